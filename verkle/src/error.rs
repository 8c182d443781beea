//! Errors of tree operations.

use crate::store::{NodeKind, NodePath, RecordError};

/// Why a tree operation failed. Only store-backed trees fail: every failure comes from the
/// store (reading a node that is not in memory, reading meta records, writing a batch) or
/// from a caller's meta key that collides with the tree's own.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TreeError {
    /// The store itself failed.
    #[error("node store: {source}")]
    Store {
        /// The store's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A parent names a child the store does not have.
    #[error("node {path} is referenced by its parent but missing from the store")]
    MissingNode {
        /// The child's path.
        path: NodePath,
    },
    /// A stored record does not decode.
    #[error("node {path}: {source}")]
    CorruptNode {
        /// The record's path.
        path: NodePath,
        /// What is wrong with it.
        source: RecordError,
    },
    /// The stored root commitment (meta record) differs from the root node's commitment.
    #[error(
        "root record says 0x{}, root node commits to 0x{}",
        hex::encode(stored),
        hex::encode(computed)
    )]
    RootMismatch {
        /// The meta record's root.
        stored: [u8; 32],
        /// The root node's commitment.
        computed: [u8; 32],
    },
    /// A meta record the tree owns does not decode.
    #[error("meta record {key:?}: {reason}")]
    CorruptMeta {
        /// The meta key.
        key: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A caller's meta key is one the tree writes itself.
    #[error("meta key {key:?} is reserved by the tree")]
    ReservedMetaKey {
        /// The key, lossy UTF-8.
        key: String,
    },
    /// A stored record decodes but disagrees with its parent or its path.
    #[error("node {path}: {reason}")]
    Inconsistent {
        /// The record's path.
        path: NodePath,
        /// What disagrees.
        reason: InconsistencyReason,
    },
}

/// How a stored node disagrees with the tree around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InconsistencyReason {
    /// The parent says one kind, the record another.
    #[error("parent expects a {expected:?} node, record is {found:?}")]
    KindMismatch {
        /// Kind the parent names.
        expected: NodeKind,
        /// Kind of the record.
        found: NodeKind,
    },
    /// The parent's cached map-to-field scalar of the child differs from the record's.
    #[error("parent's cached commitment scalar differs from the record's")]
    CommitmentMismatch,
    /// A leaf's stem does not start with its path.
    #[error("leaf stem does not start with the node's path")]
    StemOffPath,
    /// The root record is not an internal node.
    #[error("root record is not an internal node")]
    RootNotInternal,
    /// A path reached the maximum depth without ending at a leaf.
    #[error("path too deep")]
    TooDeep,
}
