//! EIP-6800 tree keys (EIP-6800; `spec/WIRE.md` §12) with the prover's committer tables.
//!
//! The position math — where an account's header leaves, storage slots and code chunks sit,
//! per [`Layout`] — and [`U256`] are [`witness::keys`]'s, re-exported here. This module
//! hashes positions into keys with `ipa::Committer::eip6800()` (fast per key, 134 MiB of
//! tables); `witness::keys::AccountKeys` gives the same keys from the CRS alone.
//!
//! The committer's tables are built on first use with rayon; call it once on an ordinary
//! thread before hashing keys inside a rayon pool.

mod batch;
mod code;

pub use batch::{account_leaves, account_leaves_many};

pub use code::{chunkify_code, CHUNK_CODE_BYTES, PUSH1, PUSH32};
pub use witness::keys::{
    address32, join_key, keccak256, keys_of_positions, legacy, split_key, stem, suffix,
    AccountState, BasicData, Layout, LayoutError, Stem, TreeKey, TreePosition, Value,
    BASIC_DATA_LEAF_KEY, CODE_HASH_LEAF_KEY, CODE_OFFSET, EMPTY_CODE_HASH, HEADER_STORAGE_OFFSET,
    MAIN_STORAGE_OFFSET_LOG2, STEM_LEN, VERKLE_NODE_WIDTH,
};

use ipa::{AddressHasher, Committer};

use crate::uint::U256;

/// The tree key at `position` of `address`: EIP-6800 `get_tree_key(address32, tree_index,
/// sub_index)` ([`ipa::get_tree_key`]) with the EIP-6800 committer.
pub fn tree_key_at(address: &[u8; 32], position: &TreePosition) -> TreeKey {
    ipa::get_tree_key(
        Committer::eip6800(),
        address,
        &position.tree_index.to_le_bytes(),
        position.sub_index,
    )
}

/// Tree keys of one account, with the address half of the hash and the header stem
/// computed once (every header leaf, the first 128 code chunks and storage slots 0..64 share
/// the stem of tree index 0). The same keys as `witness::keys::AccountKeys`, from the
/// committer's tables.
#[derive(Clone, Debug)]
pub struct AccountKeys {
    hasher: AddressHasher<'static>,
    header_stem: Stem,
}

impl AccountKeys {
    /// Precomputes the address part and the header stem of `address32`.
    pub fn new(address: &[u8; 32]) -> AccountKeys {
        let hasher = AddressHasher::new(Committer::eip6800(), address);
        let header_stem = hasher.stem(&[0u8; 32]);
        AccountKeys {
            hasher,
            header_stem,
        }
    }

    /// The stem of `tree_index`.
    pub fn stem(&self, tree_index: &U256) -> Stem {
        if tree_index.is_zero() {
            self.header_stem
        } else {
            self.hasher.stem(&tree_index.to_le_bytes())
        }
    }

    /// The stem of the account header (tree index 0).
    pub fn header_stem(&self) -> Stem {
        self.header_stem
    }

    /// The key of a position.
    pub fn key(&self, position: &TreePosition) -> TreeKey {
        join_key(&self.stem(&position.tree_index), position.sub_index)
    }

    /// The key of header leaf `sub_index`.
    pub fn header_key(&self, sub_index: u8) -> TreeKey {
        join_key(&self.header_stem, sub_index)
    }

    /// The key of storage slot `slot`.
    pub fn storage_slot_key(&self, slot: &U256) -> TreeKey {
        self.key(&TreePosition::storage_slot(slot))
    }

    /// The key of code chunk `chunk_index`.
    pub fn code_chunk_key(&self, chunk_index: u64) -> TreeKey {
        self.key(&TreePosition::code_chunk(chunk_index))
    }

    /// Keys of code chunks `0..count`, hashing each distinct tree index once.
    pub fn code_chunk_keys(&self, count: u64) -> Vec<TreeKey> {
        keys_of_positions((0..count).map(TreePosition::code_chunk), |i| self.stem(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_tree_key_known_answer() {
        // `spec/WIRE.md` §12: address bytes 1..=32, tree index bytes [64, 63, ..., 33], sub 0.
        let mut addr = [0u8; 32];
        for (i, b) in addr.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        let mut idx_le = [0u8; 32];
        for (i, b) in idx_le.iter_mut().enumerate() {
            *b = 64 - i as u8;
        }
        let pos = TreePosition {
            tree_index: U256::from_le_bytes(&idx_le),
            sub_index: 0,
        };
        assert_eq!(
            hex::encode(tree_key_at(&addr, &pos)),
            "ff7e3916badeb510dfcdad458726273319280742e553d8d229bd676428147300"
        );
        assert_eq!(AccountKeys::new(&addr).key(&pos), tree_key_at(&addr, &pos));
    }
}
