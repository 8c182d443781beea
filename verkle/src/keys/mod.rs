//! EIP-6800 tree keys (EIP-6800; `spec/WIRE.md` §12).
//!
//! A tree key is 32 bytes: a 31-byte **stem** naming a leaf node and a 1-byte **suffix**
//! naming one of its 256 values. `get_tree_key(address, tree_index, sub_index)` is the first
//! 31 bytes of `pedersen_hash(address32 ‖ LE32(tree_index))` followed by `sub_index`.
//! An account's data sits at positions `(tree_index, sub_index)`:
//!
//! | data | position `pos` | `(tree_index, sub_index)` |
//! |---|---|---|
//! | header leaves | `sub` | `(0, sub)` |
//! | storage slot `k < 64` | `64 + k` | `(0, 64 + k)` |
//! | storage slot `k ≥ 64` | `256^31 + k` | `(pos / 256, pos % 256)` |
//! | code chunk `i` | `128 + i` | `(pos / 256, pos % 256)` |
//!
//! The hashing uses `ipa::Committer::eip6800()`, whose tables are built on first use with
//! rayon; call it once on an ordinary thread before hashing keys inside a rayon pool.

mod batch;
mod code;
mod layout;

pub use batch::account_leaves_many;

pub use code::{chunkify_code, CHUNK_CODE_BYTES, PUSH1, PUSH32};
pub use layout::{
    account_leaves, keccak256, legacy, AccountState, BasicData, Layout, LayoutError,
    BASIC_DATA_LEAF_KEY, CODE_HASH_LEAF_KEY, EMPTY_CODE_HASH,
};

use ipa::{AddressHasher, Committer};

use crate::uint::U256;

/// The 31-byte stem of a tree key: which leaf node.
pub type Stem = [u8; 31];
/// A 32-byte tree key: stem ‖ suffix.
pub type TreeKey = [u8; 32];
/// A 32-byte leaf value.
pub type Value = [u8; 32];

/// Bytes in a stem.
pub const STEM_LEN: usize = 31;
/// Children of an internal node, values of a leaf node.
pub const VERKLE_NODE_WIDTH: u64 = 256;
/// First header position of the storage slots below 64.
pub const HEADER_STORAGE_OFFSET: u64 = 64;
/// Position of code chunk 0.
pub const CODE_OFFSET: u64 = 128;
/// `log2(MAIN_STORAGE_OFFSET) = log2(256^31)`.
pub const MAIN_STORAGE_OFFSET_LOG2: u32 = 248;

/// `MAIN_STORAGE_OFFSET / 256 = 2^240`: the tree index of main-storage slot 0.
const MAIN_STORAGE_INDEX_BASE: U256 = U256::from_limbs([0, 0, 0, 1 << 48]);

/// The stem of a key.
pub fn stem(key: &TreeKey) -> Stem {
    split_key(key).0
}

/// The suffix (last byte) of a key.
pub fn suffix(key: &TreeKey) -> u8 {
    key[31]
}

/// `(stem, suffix)`.
pub fn split_key(key: &TreeKey) -> (Stem, u8) {
    let mut s = [0u8; STEM_LEN];
    s.copy_from_slice(&key[..STEM_LEN]);
    (s, key[STEM_LEN])
}

/// `stem ‖ suffix`.
pub fn join_key(stem: &Stem, suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..STEM_LEN].copy_from_slice(stem);
    k[STEM_LEN] = suffix;
    k
}

/// A 20-byte address left-padded with 12 zero bytes, as the tree key hash takes it.
pub fn address32(address: &[u8; 20]) -> [u8; 32] {
    let mut a = [0u8; 32];
    a[12..].copy_from_slice(address);
    a
}

/// Where a piece of account data lives: `get_tree_key(address, tree_index, sub_index)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TreePosition {
    /// The 256-bit tree index (hashed with the address into the stem).
    pub tree_index: U256,
    /// The suffix within the stem's leaf.
    pub sub_index: u8,
}

impl TreePosition {
    /// The position `pos` as `(pos / 256, pos % 256)`.
    pub fn from_pos(pos: &U256) -> TreePosition {
        TreePosition {
            tree_index: pos.shr(8),
            sub_index: pos.low_u8(),
        }
    }

    /// A header leaf: `(0, sub_index)`.
    pub fn header(sub_index: u8) -> TreePosition {
        TreePosition {
            tree_index: U256::ZERO,
            sub_index,
        }
    }

    /// Storage slot `slot`: header storage `(0, 64 + slot)` below 64, else
    /// `pos = 256^31 + slot` split as `(pos / 256, pos % 256)`.
    ///
    /// `pos` itself can exceed 2^256 for slots near the top, so it is never formed:
    /// `pos / 256 = 256^30 + slot / 256` (256^31 is a multiple of 256) and
    /// `pos % 256 = slot % 256`; the sum is below 2^249 and cannot overflow.
    pub fn storage_slot(slot: &U256) -> TreePosition {
        let boundary = U256::from_u64(CODE_OFFSET - HEADER_STORAGE_OFFSET);
        if *slot < boundary {
            // Below 64: fits in the low byte.
            return TreePosition::header((HEADER_STORAGE_OFFSET as u8) + slot.low_u8());
        }
        let tree_index = slot
            .shr(8)
            .checked_add(&MAIN_STORAGE_INDEX_BASE)
            .expect("slot / 256 + 2^240 < 2^249");
        TreePosition {
            tree_index,
            sub_index: slot.low_u8(),
        }
    }

    /// Code chunk `chunk_index`: `pos = 128 + chunk_index`.
    pub fn code_chunk(chunk_index: u64) -> TreePosition {
        let pos = u128::from(chunk_index) + u128::from(CODE_OFFSET);
        let index = pos >> 8;
        TreePosition {
            tree_index: U256::from_limbs([index as u64, (index >> 64) as u64, 0, 0]),
            sub_index: pos as u8,
        }
    }
}

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
/// the stem of tree index 0).
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
        let mut out = Vec::with_capacity(count as usize);
        let mut cached: Option<(U256, Stem)> = None;
        for i in 0..count {
            let p = TreePosition::code_chunk(i);
            let stem = match cached {
                Some((idx, s)) if idx == p.tree_index => s,
                _ => {
                    let s = self.stem(&p.tree_index);
                    cached = Some((p.tree_index, s));
                    s
                }
            };
            out.push(join_key(&stem, p.sub_index));
        }
        out
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

    #[test]
    fn storage_positions() {
        assert_eq!(
            TreePosition::storage_slot(&U256::ZERO),
            TreePosition::header(64)
        );
        assert_eq!(
            TreePosition::storage_slot(&U256::from_u64(63)),
            TreePosition::header(127)
        );
        // 64 goes to main storage: pos = 2^248 + 64 → (2^240, 64).
        let p = TreePosition::storage_slot(&U256::from_u64(64));
        assert_eq!(p.tree_index, U256::pow2(240).unwrap());
        assert_eq!(p.sub_index, 64);
        // 10001 = 0x2711 → (2^240 + 0x27, 0x11).
        let p = TreePosition::storage_slot(&U256::from_u64(10001));
        assert_eq!(
            p.tree_index,
            U256::pow2(240)
                .unwrap()
                .checked_add(&U256::from_u64(0x27))
                .unwrap()
        );
        assert_eq!(p.sub_index, 0x11);
        // The largest slot: pos would exceed 2^256; pos / 256 = 2^240 + (2^248 - 1).
        let p = TreePosition::storage_slot(&U256::MAX);
        let expect = U256::pow2(240)
            .unwrap()
            .checked_add(&U256::MAX.shr(8))
            .unwrap();
        assert_eq!(p.tree_index, expect);
        assert_eq!(p.sub_index, 0xff);
    }

    #[test]
    fn code_positions() {
        assert_eq!(TreePosition::code_chunk(0), TreePosition::header(128));
        assert_eq!(TreePosition::code_chunk(127), TreePosition::header(255));
        let p = TreePosition::code_chunk(128);
        assert_eq!(p.tree_index, U256::from_u64(1));
        assert_eq!(p.sub_index, 0);
        let p = TreePosition::code_chunk(u64::MAX);
        // (2^64 - 1 + 128) / 256 = 2^56 (exactly: 2^64 + 127 >> 8).
        assert_eq!(p.tree_index, U256::pow2(56).unwrap());
        assert_eq!(p.sub_index, 127);
        let keys = AccountKeys::new(&[7u8; 32]);
        let batch = keys.code_chunk_keys(300);
        assert_eq!(batch[5], keys.code_chunk_key(5));
        assert_eq!(batch[200], keys.code_chunk_key(200));
        assert_eq!(stem(&batch[0]), keys.header_stem());
        assert_ne!(stem(&batch[128]), keys.header_stem());
    }

    #[test]
    fn split_and_join() {
        let mut k = [0u8; 32];
        k[0] = 9;
        k[31] = 200;
        let (s, x) = split_key(&k);
        assert_eq!(x, 200);
        assert_eq!(suffix(&k), 200);
        assert_eq!(join_key(&s, x), k);
        assert_eq!(stem(&k)[0], 9);
        assert_eq!(address32(&[1u8; 20])[..12], [0u8; 12]);
    }
}
