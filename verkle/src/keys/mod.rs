//! EIP-6800 tree keys (EIP-6800; `spec/WIRE.md` §12) with the prover's committer tables.
//!
//! The position math — where an account's header leaves, storage slots and code chunks sit,
//! per [`Layout`] — and [`AccountKeysWith`] are [`witness::keys`]'s, re-exported here. This
//! module hashes positions into keys with `ipa::Committer::eip6800()` ([`CommitterStems`]:
//! fast per key, 134 MiB of tables); `witness::keys::AccountKeys` gives the same keys from the
//! CRS alone.
//!
//! The committer's tables are built on first use with rayon; call it once on an ordinary
//! thread before hashing keys inside a rayon pool.

mod batch;
mod code;

pub use batch::{account_leaves, account_leaves_many};

pub use code::{chunkify_code, CHUNK_CODE_BYTES, PUSH1, PUSH32};
pub use witness::keys::{
    address32, join_key, keccak256, keys_of_positions, legacy, split_key, stem, suffix,
    AccountKeysWith, AccountState, BasicData, Layout, LayoutError, Stem, StemHasher, TreeKey,
    TreePosition, Value, BASIC_DATA_LEAF_KEY, CODE_HASH_LEAF_KEY, CODE_OFFSET, EMPTY_CODE_HASH,
    HEADER_STORAGE_OFFSET, MAIN_STORAGE_OFFSET_LOG2, STEM_LEN, VERKLE_NODE_WIDTH,
};

use ipa::{AddressHasher, Committer};
use witness::keys::U256;

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

/// Stems hashed with the EIP-6800 committer's tables: the address half of the hash is
/// precomputed once per account ([`AddressHasher`]), so a stem adds the tree index's two
/// terms from the tables and maps the sum to the scalar field.
#[derive(Clone, Debug)]
pub struct CommitterStems {
    address: [u8; 32],
    hasher: AddressHasher<'static>,
}

impl StemHasher for CommitterStems {
    fn new(address: &[u8; 32]) -> CommitterStems {
        CommitterStems {
            address: *address,
            hasher: AddressHasher::new(Committer::eip6800(), address),
        }
    }

    fn address(&self) -> &[u8; 32] {
        &self.address
    }

    fn stem(&self, tree_index: &U256) -> Stem {
        self.hasher.stem(&tree_index.to_le_bytes())
    }
}

/// Tree keys of one account, with the address half of the hash and the header stem
/// computed once (every header leaf, the first 128 code chunks and storage slots 0..64 share
/// the stem of tree index 0): `witness::keys::AccountKeysWith` over the committer's tables,
/// the same keys as the light `witness::keys::AccountKeys`.
pub type AccountKeys = AccountKeysWith<CommitterStems>;
