//! Errors of the sharded tree.

use verkle::TreeError;

/// Why a sharded-tree operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalError {
    /// A shard's tree failed (reading a node from the store).
    #[error("shard {shard}: {source}")]
    Tree {
        /// The shard.
        shard: u16,
        /// The tree's error.
        source: TreeError,
    },
    /// The store failed.
    #[error("store: {0}")]
    Store(Box<dyn std::error::Error + Send + Sync>),
    /// A meta record in the store does not decode.
    #[error("meta record {key}: {reason}")]
    CorruptMeta {
        /// The record's key (hex).
        key: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The store was written with another shard depth.
    #[error("the store holds a tree of shard depth {stored}; asked for depth {requested}")]
    DepthMismatch {
        /// Depth recorded in the store.
        stored: u8,
        /// Depth of the configuration.
        requested: u8,
    },
    /// A proof was asked for no keys.
    #[error("a proof needs at least one key")]
    NoKeys,
    /// The proof has more items of one kind than its 16-bit wire count can hold; prove
    /// fewer keys at a time.
    #[error("fractional proof too large: {count} {what} (the wire format holds at most 65,535)")]
    ProofTooLarge {
        /// Which count overflows (`shards`, `stems in one shard`, `siblings`, `other stems`).
        what: &'static str,
        /// How many there are.
        count: usize,
    },
}
