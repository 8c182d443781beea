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

mod record;
#[cfg(feature = "rocksdb")]
mod rocks;

pub use record::{NodeKind, RecordError, StoredChild, StoredInternal, StoredLeaf, StoredNode};
#[cfg(feature = "rocksdb")]
pub use rocks::{RocksConfig, RocksError, RocksMemory, RocksStore};

/// Meta key of the root commitment (32 bytes, compressed) as of the last write.
pub const META_ROOT: &[u8] = b"root";
/// Meta key of the block height (8 bytes, big-endian) as of the last write.
pub const META_HEIGHT: &[u8] = b"height";

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The path of a node from the root: at most 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodePath {
    len: u8,
    bytes: [u8; NodePath::MAX_LEN],
}

impl NodePath {
    /// The longest path (a shard byte plus a 31-byte stem).
    pub const MAX_LEN: usize = 32;

    /// The root's (empty) path.
    pub const fn root() -> NodePath {
        NodePath {
            len: 0,
            bytes: [0; NodePath::MAX_LEN],
        }
    }

    /// A path from bytes; `None` if longer than [`NodePath::MAX_LEN`].
    pub fn new(bytes: &[u8]) -> Option<NodePath> {
        if bytes.len() > NodePath::MAX_LEN {
            return None;
        }
        let mut p = NodePath::root();
        p.bytes[..bytes.len()].copy_from_slice(bytes);
        p.len = bytes.len() as u8;
        Some(p)
    }

    /// The path bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Number of bytes (the node's depth).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the path is empty (the root's).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether this is the root's path.
    pub fn is_root(&self) -> bool {
        self.len == 0
    }

    /// The path of child `index`; `None` past [`NodePath::MAX_LEN`].
    pub fn child(&self, index: u8) -> Option<NodePath> {
        let n = usize::from(self.len);
        if n >= NodePath::MAX_LEN {
            return None;
        }
        let mut p = *self;
        p.bytes[n] = index;
        p.len += 1;
        Some(p)
    }
}

impl Ord for NodePath {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for NodePath {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodePath(0x{})", hex::encode(self.as_bytes()))
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.as_bytes()))
    }
}

/// The records one commit writes: applied atomically, deletes first, then puts, then meta.
#[derive(Clone, Debug, Default)]
pub struct NodeBatch {
    /// Records to write (no path appears twice).
    pub puts: Vec<(NodePath, Vec<u8>)>,
    /// Paths whose records no longer exist (none of them is also in `puts`).
    pub deletes: Vec<NodePath>,
    /// Meta records to write (key, value); a key written twice keeps the last value.
    pub meta: Vec<(Vec<u8>, Vec<u8>)>,
}

impl NodeBatch {
    /// Whether the batch writes nothing.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty() && self.meta.is_empty()
    }

    /// Appends `other` (for merging the batches of several trees into one write; their
    /// paths must not overlap).
    pub fn extend(&mut self, other: NodeBatch) {
        self.puts.extend(other.puts);
        self.deletes.extend(other.deletes);
        self.meta.extend(other.meta);
    }
}

/// Where a tree keeps its nodes.
///
/// Implementations: [`MemoryStore`] and `RocksStore` (one RocksDB `WriteBatch` per
/// [`NodeStore::write`]).
pub trait NodeStore {
    /// The store's own failure (I/O, corruption reported by the backend).
    type Error: std::error::Error + Send + Sync + 'static;

    /// The record at `path`, if any.
    fn get(&self, path: &NodePath) -> Result<Option<Vec<u8>>, Self::Error>;

    /// The records at `paths`, in order. The default reads them one by one; a backend that
    /// can read many keys in one call (`RocksStore`) overrides it.
    fn get_many(&self, paths: &[NodePath]) -> Vec<Result<Option<Vec<u8>>, Self::Error>> {
        paths.iter().map(|p| self.get(p)).collect()
    }

    /// The meta record at `key`, if any.
    fn get_meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error>;

    /// Applies `batch` atomically: after a crash either all of it or none of it is visible.
    fn write(&mut self, batch: NodeBatch) -> Result<(), Self::Error>;
}

/// An in-memory [`NodeStore`] (a sorted map), with read and write counters.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: BTreeMap<NodePath, Vec<u8>>,
    meta: BTreeMap<Vec<u8>, Vec<u8>>,
    reads: AtomicU64,
    writes: u64,
}

impl Clone for MemoryStore {
    fn clone(&self) -> MemoryStore {
        MemoryStore {
            records: self.records.clone(),
            meta: self.meta.clone(),
            reads: AtomicU64::new(self.reads()),
            writes: self.writes,
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the store holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Records read so far.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// Records written or deleted so far.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Every `(path, record)` in path order.
    pub fn records(&self) -> impl Iterator<Item = (&NodePath, &Vec<u8>)> {
        self.records.iter()
    }
}

impl NodeStore for MemoryStore {
    type Error = std::convert::Infallible;

    fn get(&self, path: &NodePath) -> Result<Option<Vec<u8>>, Self::Error> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        Ok(self.records.get(path).cloned())
    }

    fn get_meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        Ok(self.meta.get(key).cloned())
    }

    fn write(&mut self, batch: NodeBatch) -> Result<(), Self::Error> {
        self.writes += (batch.deletes.len() + batch.puts.len()) as u64;
        for p in &batch.deletes {
            self.records.remove(p);
        }
        for (p, v) in batch.puts {
            self.records.insert(p, v);
        }
        for (k, v) in batch.meta {
            self.meta.insert(k, v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let r = NodePath::root();
        assert!(r.is_root());
        let c = r.child(7).unwrap().child(9).unwrap();
        assert_eq!(c.as_bytes(), &[7, 9]);
        assert_eq!(c.len(), 2);
        assert_eq!(NodePath::new(&[7, 9]), Some(c));
        assert!(NodePath::new(&[0; 33]).is_none());
        assert!(NodePath::new(&[0; 32]).unwrap().child(0).is_none());
        // Lexicographic order, not length-first.
        assert!(NodePath::new(&[1]).unwrap() > NodePath::new(&[0, 5]).unwrap());
        assert_eq!(format!("{c}"), "0x0709");
    }

    #[test]
    fn memory_store_batches() {
        let mut s = MemoryStore::new();
        let a = NodePath::new(&[1]).unwrap();
        let b = NodePath::new(&[2]).unwrap();
        s.write(NodeBatch {
            puts: vec![(a, vec![1]), (b, vec![2])],
            deletes: vec![],
            meta: vec![(b"k".to_vec(), vec![3])],
        })
        .unwrap();
        s.write(NodeBatch {
            puts: vec![],
            deletes: vec![a],
            meta: vec![],
        })
        .unwrap();
        assert_eq!(s.get(&a).unwrap(), None);
        assert_eq!(s.get(&b).unwrap(), Some(vec![2]));
        assert_eq!(s.get_meta(b"k").unwrap(), Some(vec![3]));
        assert_eq!(s.get_meta(b"x").unwrap(), None);
        assert_eq!(s.len(), 1);
        assert_eq!(s.reads(), 2);
        assert_eq!(s.writes(), 3);
    }
}
