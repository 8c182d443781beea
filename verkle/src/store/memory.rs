//! [`MemoryStore`]: the in-memory [`NodeStore`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{NodeBatch, NodePath, NodeStore};

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
