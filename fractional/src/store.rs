//! Where the shards keep their nodes: in memory, or in one RocksDB shared by all shards
//! (`spec/FRACTIONAL.md` §6).
//!
//! In RocksDB every shard's tree stores its nodes under their canonical paths (a path at the
//! shard depth or below starts with the shard's prefix, so paths of different shards never
//! meet). The nodes a shard's tree keeps *above* the shard depth — its own root, and at
//! depth 2 its depth-1 node — are artifacts of the route and would collide across shards:
//! they go to the meta column under `"f/n" ‖ u16_be(shard) ‖ path`, and the tree's own meta
//! records under `"f/m" ‖ u16_be(shard) ‖ key`. A deleted remapped node is written as an
//! empty value (meta records cannot be deleted in a batch) and reads as absent.

use verkle::store::{MemoryStore, NodeBatch, NodePath, NodeStore};

use crate::db::{Db, StoreError};

/// Meta-key prefix of a shard's nodes above the shard depth.
pub const TOP_NODE_PREFIX: &[u8] = b"f/n";
/// Meta-key prefix of a shard tree's own meta records.
pub const SHARD_META_PREFIX: &[u8] = b"f/m";

/// The store of one shard's tree.
#[derive(Debug)]
pub enum ShardStore {
    /// In memory.
    Memory(MemoryStore),
    /// In the shared RocksDB.
    Rocks {
        /// The database (shared).
        db: Db,
        /// The shard.
        shard: u16,
        /// Prefix bytes per shard (1 or 2).
        depth: usize,
    },
}

fn keyed(prefix: &[u8], shard: u16, rest: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(prefix.len() + 2 + rest.len());
    k.extend_from_slice(prefix);
    k.extend_from_slice(&shard.to_be_bytes());
    k.extend_from_slice(rest);
    k
}

impl ShardStore {
    /// Rewrites a shard tree's batch into the shared database's keys.
    pub fn remap(&self, batch: NodeBatch) -> NodeBatch {
        let ShardStore::Rocks { shard, depth, .. } = self else {
            return batch;
        };
        let mut out = NodeBatch::default();
        for p in batch.deletes {
            if p.len() < *depth {
                out.meta
                    .push((keyed(TOP_NODE_PREFIX, *shard, p.as_bytes()), Vec::new()));
            } else {
                out.deletes.push(p);
            }
        }
        for (p, v) in batch.puts {
            if p.len() < *depth {
                out.meta
                    .push((keyed(TOP_NODE_PREFIX, *shard, p.as_bytes()), v));
            } else {
                out.puts.push((p, v));
            }
        }
        for (k, v) in batch.meta {
            out.meta.push((keyed(SHARD_META_PREFIX, *shard, &k), v));
        }
        out
    }
}

impl NodeStore for ShardStore {
    type Error = StoreError;

    fn get(&self, path: &NodePath) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            ShardStore::Memory(m) => match m.get(path) {
                Ok(v) => Ok(v),
                Err(never) => match never {},
            },
            ShardStore::Rocks { db, shard, depth } => {
                if path.len() < *depth {
                    let v = db.get_meta(&keyed(TOP_NODE_PREFIX, *shard, path.as_bytes()))?;
                    Ok(v.filter(|v| !v.is_empty()))
                } else {
                    db.get_node(path.as_bytes())
                }
            }
        }
    }

    /// In RocksDB, the paths at or below the shard depth (all of them, in a prefetch past
    /// the shard's top) are read with one `MultiGet`; the few above it one by one.
    fn get_many(&self, paths: &[NodePath]) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
        let ShardStore::Rocks { db, depth, .. } = self else {
            return paths.iter().map(|p| self.get(p)).collect();
        };
        if paths.iter().all(|p| p.len() >= *depth) {
            return db.get_nodes(paths.iter().map(NodePath::as_bytes));
        }
        let deep: Vec<&[u8]> = paths
            .iter()
            .filter(|p| p.len() >= *depth)
            .map(NodePath::as_bytes)
            .collect();
        let mut read = db.get_nodes(deep).into_iter();
        paths
            .iter()
            .map(|p| {
                if p.len() >= *depth {
                    read.next().unwrap_or_else(|| self.get(p))
                } else {
                    self.get(p)
                }
            })
            .collect()
    }

    fn get_meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            ShardStore::Memory(m) => match m.get_meta(key) {
                Ok(v) => Ok(v),
                Err(never) => match never {},
            },
            ShardStore::Rocks { db, shard, .. } => {
                db.get_meta(&keyed(SHARD_META_PREFIX, *shard, key))
            }
        }
    }

    fn write(&mut self, batch: NodeBatch) -> Result<(), StoreError> {
        match self {
            ShardStore::Memory(m) => match m.write(batch) {
                Ok(()) => Ok(()),
                Err(never) => match never {},
            },
            ShardStore::Rocks { .. } => {
                let remapped = self.remap(batch);
                match self {
                    ShardStore::Rocks { db, .. } => db.write_batch(&remapped),
                    ShardStore::Memory(_) => Ok(()),
                }
            }
        }
    }
}

#[cfg(all(test, feature = "rocksdb"))]
mod tests {
    use super::*;
    use verkle::store::RocksStore;

    #[test]
    fn remaps_paths_above_the_shard_depth() {
        let dir = std::env::temp_dir().join(format!("fverkle-frac-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let db = RocksStore::open(&dir).unwrap();
        let mut s = ShardStore::Rocks {
            db: db.clone(),
            shard: 0x0102,
            depth: 2,
        };
        let root = NodePath::root();
        let one = NodePath::new(&[1]).unwrap();
        let deep = NodePath::new(&[1, 2, 3]).unwrap();
        s.write(NodeBatch {
            puts: vec![(root, vec![1]), (one, vec![2]), (deep, vec![3])],
            deletes: vec![],
            meta: vec![(b"root".to_vec(), vec![4])],
        })
        .unwrap();
        assert_eq!(s.get(&root).unwrap(), Some(vec![1]));
        assert_eq!(s.get(&one).unwrap(), Some(vec![2]));
        assert_eq!(s.get(&deep).unwrap(), Some(vec![3]));
        assert_eq!(s.get_meta(b"root").unwrap(), Some(vec![4]));
        // Nothing of the shard's own root reaches the shared node keys.
        assert_eq!(db.get_node(&[]).unwrap(), None);
        assert_eq!(db.get_node(&[1]).unwrap(), None);
        assert_eq!(db.get_meta(b"root").unwrap(), None);
        s.write(NodeBatch {
            puts: vec![],
            deletes: vec![one],
            meta: vec![],
        })
        .unwrap();
        assert_eq!(s.get(&one).unwrap(), None);
        // Batched reads agree with single reads, above and below the shard depth, in order.
        let other = NodePath::new(&[1, 2, 4]).unwrap();
        let mixed = [deep, root, one, other, deep];
        let many: Vec<Option<Vec<u8>>> =
            s.get_many(&mixed).into_iter().map(|r| r.unwrap()).collect();
        let single: Vec<Option<Vec<u8>>> = mixed.iter().map(|p| s.get(p).unwrap()).collect();
        assert_eq!(many, single);
        assert_eq!(
            many,
            vec![Some(vec![3]), Some(vec![1]), None, None, Some(vec![3])]
        );
        let deep_only = [other, deep];
        let many: Vec<Option<Vec<u8>>> = s
            .get_many(&deep_only)
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(many, vec![None, Some(vec![3])]);
        drop((s, db));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
