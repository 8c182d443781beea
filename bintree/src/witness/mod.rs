//! The binary witness: for a block on a binary tree, the touched keys with their pre-values
//! (or proven absence) and writes, and one multiproof from which a verifier recomputes the
//! pre-state root and the post-state root, with nothing else. The byte layout, the canonical
//! rules and both algorithms are in `spec/BINARY.md`; the tree-specific parts live beside each
//! tree ([`crate::eip7864::witness`], [`crate::eip8297::witness`]).
//!
//! Decoding builds views over the input bytes (no per-item allocation); every count is
//! checked against its limit before anything is read.

mod error;
pub(crate) mod prefix;
pub(crate) mod wire;

pub(crate) use error::broken;
pub use error::{Rule, WitnessError};

use crate::TreeHash;

/// The version byte of this layout.
pub const VERSION: u8 = 3;
/// Tree byte of an EIP-7864 witness.
pub const TREE_EIP7864: u8 = 1;
/// Tree byte of an EIP-8297 witness.
pub const TREE_EIP8297: u8 = 2;
/// Hash byte of SHA-256.
pub const HASH_SHA256: u8 = 1;
/// Hash byte of BLAKE3.
pub const HASH_BLAKE3: u8 = 2;

/// Most keys in one witness.
pub const MAX_KEYS: usize = 1 << 18;
/// Most other-stem (EIP-7864) or other-leaf (EIP-8297) records in one witness, and most
/// EIP-7864 anchors.
pub const MAX_OTHERS: usize = MAX_KEYS;
/// Longest EIP-8297 key in a witness, in bytes: the zones' keys are 34 and 66 bytes, so a
/// path has at most 528 branches (the verifier's recursion depth).
pub const MAX_WITNESS_KEY_LENGTH: usize = 66;
/// Most sibling slots in one witness (256 per key: a full path and a full stem subtree).
pub const MAX_SIBLINGS: usize = MAX_KEYS * 256;
/// Most hashes in one witness.
pub const MAX_HASHES: usize = MAX_SIBLINGS;

/// Flags bit: the key is present in the pre-state and its pre-value follows.
pub const FLAG_PRE: u8 = 0x01;
/// Flags bit: the block sets the key; the new value follows.
pub const FLAG_SET: u8 = 0x02;
/// Flags bit: the block deletes the key (EIP-8297 only; the key must be present).
pub const FLAG_DELETE: u8 = 0x04;

/// The hash byte of `H`.
pub fn hash_id<H: TreeHash>() -> u8 {
    match H::NAME {
        "sha256" => HASH_SHA256,
        "blake3" => HASH_BLAKE3,
        _ => 0,
    }
}

/// What the block does to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// Read only.
    Unchanged,
    /// Set to this value.
    Set([u8; 32]),
    /// Removed (EIP-8297 only).
    Delete,
}

/// A write as the witness carries it: the new value is a view into the witness bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteRef<'a> {
    /// Read only.
    Unchanged,
    /// Set to this value.
    Set(&'a [u8; 32]),
    /// Removed.
    Delete,
}

/// One key's claim: its pre-value (`None`: proven absent) and the block's write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The value before the block, or `None` if the key is absent.
    pub pre: Option<&'a [u8; 32]>,
    /// What the block writes.
    pub write: WriteRef<'a>,
}

/// What a verified witness establishes besides its claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    /// The post-state root: the pre-state tree with the witness's writes applied.
    pub post_root: [u8; 32],
    /// Hashes computed for the pre-state root.
    pub pre_hashes: u64,
    /// Hashes computed for the post-state root.
    pub post_hashes: u64,
}
