//! Node storage: the [`NodeStore`] trait, node paths, write batches, [`MemoryStore`] and
//! (with the default `rocksdb` feature) `RocksStore`.
//!
//! A node is stored under its **path**: the bytes of the stem prefix that lead to it from
//! the root (the root's path is empty; a leaf's path is `stem[..depth]`). Paths are at most
//! [`NodePath::MAX_LEN`] bytes, never a serialized point. The value is a [`StoredNode`]
//! record: the node's commitment and cached map-to-field scalar, and for an internal node
//! the map-to-field scalar of every child, so a parent is recommitted without loading
//! children that did not change.
//!
//! Beside the nodes, a store keeps a few **meta** records (small keys, small values) written
//! in the same atomic batch: the root commitment ([`META_ROOT`]), the block height
//! ([`META_HEIGHT`]), and whatever the caller adds (chain or layout identifiers).

mod memory;
mod node_store;
mod path;
mod record;
#[cfg(feature = "rocksdb")]
mod rocks;

pub use memory::MemoryStore;
pub use node_store::{NodeBatch, NodeStore, META_HEIGHT, META_ROOT};
pub use path::NodePath;
pub use record::{NodeKind, RecordError, StoredChild, StoredInternal, StoredLeaf, StoredNode};
#[cfg(feature = "rocksdb")]
pub use rocks::{RocksConfig, RocksError, RocksMemory, RocksStore};
