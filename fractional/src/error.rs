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
    /// The proof cannot be written in the wire form.
    #[error("encoding the fractional proof: {0}")]
    Encode(witness::fractional::FractionalEncodeError),
    /// An internal node's value at index 0 is 1 (a child whose field is 1, which happens
    /// with negligible probability): no internal witness can prove it internal.
    #[error("internal node at path {path:02x?} has the value 1 at index 0 and cannot be proven internal")]
    UnprovableInternal {
        /// The node's path.
        path: Vec<u8>,
    },
    /// The proof's deletions leave the collapse of the internal node at `path` undecided
    /// and no child of it can be read to decide it (a tree inconsistent with its
    /// commitments).
    #[error(
        "deletions under the internal node at path {path:02x?}: its collapse cannot be proven"
    )]
    UndecidedCollapse {
        /// The node's path.
        path: Vec<u8>,
    },
    /// The proof just built does not verify against the tree's own root (a tree
    /// inconsistent with its commitments).
    #[error("the fractional proof just built does not verify: {0}")]
    SelfCheck(Box<dyn std::error::Error + Send + Sync>),
    /// The proof has more items of one kind than its 16-bit wire count can hold; prove
    /// fewer keys at a time.
    #[error("fractional proof too large: {count} {what} (the wire format holds at most 65,535)")]
    ProofTooLarge {
        /// Which count overflows (`stems`, `siblings`, `other stems`, `internal witnesses`).
        what: &'static str,
        /// How many there are.
        count: usize,
    },
}
