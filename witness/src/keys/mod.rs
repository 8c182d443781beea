//! Where an account's data lives in the tree: EIP-6800 tree keys (`spec/WIRE.md` §12), the
//! position math of both account layouts, and a light key deriver for stateless clients.
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
//! Which header suffix holds the balance, nonce, code hash… depends on the [`Layout`].
//!
//! [`AccountKeysWith`] derives an account's keys with any [`StemHasher`]. [`AccountKeys`]
//! hashes with [`ipa::get_tree_key_from_crs`] ([`CrsStems`]): the CRS is its only table, so
//! a verifier or a WebAssembly page gets keys without the prover's committer tables. The
//! `verkle` crate's `AccountKeys` is the same type hashing with those tables, faster per key.
//!
//! ```
//! use witness::keys::{address32, AccountKeys, Layout, U256};
//!
//! let keys = AccountKeys::new(&address32(&[0x11; 20]));
//! let balance = keys.balance_key(Layout::Eip6800);
//! let slot = keys.storage_slot_key(&U256::from_u64(3));
//! // Both sit in the account's header stem, at suffixes 0 and 64 + 3.
//! assert_eq!((balance[..31] == slot[..31], balance[31], slot[31]), (true, 0, 67));
//! ```

mod key;
mod layout;
mod uint;

pub use key::{join_key, split_key, stem, suffix, Stem, TreeKey, Value, STEM_LEN};
pub use layout::{
    keccak256, legacy, AccountState, BasicData, Layout, LayoutError, BASIC_DATA_LEAF_KEY,
    CODE_HASH_LEAF_KEY, EMPTY_CODE_HASH,
};
pub use uint::{ParseU256Error, U256};

use ipa::Crs;

use crate::prelude::*;

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

/// The keys of `positions`, asking `stem_of` once per run of equal tree indices (consecutive
/// code chunks share a stem 256 at a time).
pub fn keys_of_positions<I, F>(positions: I, mut stem_of: F) -> Vec<TreeKey>
where
    I: IntoIterator<Item = TreePosition>,
    F: FnMut(&U256) -> Stem,
{
    let positions = positions.into_iter();
    let mut out = Vec::with_capacity(positions.size_hint().0);
    let mut cached: Option<(U256, Stem)> = None;
    for p in positions {
        let stem = match cached {
            Some((idx, s)) if idx == p.tree_index => s,
            _ => {
                let s = stem_of(&p.tree_index);
                cached = Some((p.tree_index, s));
                s
            }
        };
        out.push(join_key(&stem, p.sub_index));
    }
    out
}

/// The tree key at `position` of `address` ([`ipa::get_tree_key_from_crs`]: no tables).
pub fn tree_key_from_crs(address: &[u8; 32], position: &TreePosition) -> TreeKey {
    ipa::get_tree_key_from_crs(
        Crs::eip6800(),
        address,
        &position.tree_index.to_le_bytes(),
        position.sub_index,
    )
}

/// How the stems of one account are hashed: the first 31 bytes of
/// `pedersen_hash(address32 ‖ LE32(tree_index))`. Implementations differ in the tables they
/// need and their speed per stem, never in the stems they give.
pub trait StemHasher {
    /// Prepares the hashes of `address`'s stems (an implementation may precompute the half
    /// of the hash the address decides).
    fn new(address: &[u8; 32]) -> Self;

    /// The 32-byte address the stems belong to.
    fn address(&self) -> &[u8; 32];

    /// The stem of `tree_index`.
    fn stem(&self, tree_index: &U256) -> Stem;
}

/// Stems hashed over the CRS alone ([`ipa::get_tree_key_from_crs`]: one five-term
/// multi-scalar multiplication per stem): no tables, for verifiers and WebAssembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrsStems {
    address: [u8; 32],
}

impl StemHasher for CrsStems {
    fn new(address: &[u8; 32]) -> CrsStems {
        CrsStems { address: *address }
    }

    fn address(&self) -> &[u8; 32] {
        &self.address
    }

    fn stem(&self, tree_index: &U256) -> Stem {
        stem(&ipa::get_tree_key_from_crs(
            Crs::eip6800(),
            &self.address,
            &tree_index.to_le_bytes(),
            0,
        ))
    }
}

/// Tree keys of one account, stems hashed by `H`: the header stem (every header leaf,
/// storage slots 0..64 and code chunks 0..128) is computed once, in [`AccountKeysWith::new`].
///
/// [`AccountKeys`] hashes over the CRS ([`CrsStems`]); the `verkle` crate's `AccountKeys`
/// is the same type over the prover's committer tables, faster per key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountKeysWith<H = CrsStems> {
    hasher: H,
    header_stem: Stem,
}

/// Tree keys of one account for a light client: each stem is one Pedersen hash over the
/// CRS ([`CrsStems`]); the CRS is the only table, so a verifier or a WebAssembly page gets
/// keys without the prover's committer tables.
pub type AccountKeys = AccountKeysWith<CrsStems>;

impl<H: StemHasher> AccountKeysWith<H> {
    /// Computes the header stem of `address32` (use [`address32`] for a 20-byte address).
    pub fn new(address: &[u8; 32]) -> AccountKeysWith<H> {
        let hasher = H::new(address);
        let header_stem = hasher.stem(&U256::ZERO);
        AccountKeysWith {
            hasher,
            header_stem,
        }
    }

    /// The 32-byte address the keys belong to.
    pub fn address(&self) -> &[u8; 32] {
        self.hasher.address()
    }

    /// The stem of `tree_index`.
    pub fn stem(&self, tree_index: &U256) -> Stem {
        if tree_index.is_zero() {
            self.header_stem
        } else {
            self.hasher.stem(tree_index)
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

    /// The key of the BASIC_DATA leaf ([`Layout::Eip6800`] only; `None` for
    /// [`Layout::Legacy`], which has no such leaf).
    pub fn basic_data_key(&self, layout: Layout) -> Option<TreeKey> {
        (layout == Layout::Eip6800).then(|| self.header_key(BASIC_DATA_LEAF_KEY))
    }

    /// The key of the leaf holding the balance.
    pub fn balance_key(&self, layout: Layout) -> TreeKey {
        self.header_key(layout.balance_leaf())
    }

    /// The key of the leaf holding the nonce.
    pub fn nonce_key(&self, layout: Layout) -> TreeKey {
        self.header_key(layout.nonce_leaf())
    }

    /// The key of the leaf holding the code hash.
    pub fn code_hash_key(&self, layout: Layout) -> TreeKey {
        self.header_key(layout.code_hash_leaf())
    }

    /// The key of the leaf holding the code size.
    pub fn code_size_key(&self, layout: Layout) -> TreeKey {
        self.header_key(layout.code_size_leaf())
    }

    /// The key of storage slot `slot` (the same in both layouts).
    pub fn storage_slot_key(&self, slot: &U256) -> TreeKey {
        self.key(&TreePosition::storage_slot(slot))
    }

    /// The key of code chunk `chunk_index` (the same in both layouts).
    pub fn code_chunk_key(&self, chunk_index: u64) -> TreeKey {
        self.key(&TreePosition::code_chunk(chunk_index))
    }

    /// Keys of code chunks `0..count`, hashing each distinct tree index once.
    pub fn code_chunk_keys(&self, count: u64) -> Vec<TreeKey> {
        keys_of_positions((0..count).map(TreePosition::code_chunk), |i| self.stem(i))
    }
}

#[cfg(test)]
mod tests;
