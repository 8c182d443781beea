//! [`RocksStore`]: nodes and meta records in RocksDB, one `WriteBatch` per write.
//!
//! Two column families: `nodes` (key = the node's path, at most 32 bytes; value = the
//! [`StoredNode`](super::StoredNode) record) and `meta` (root commitment, block height, and
//! caller-defined identifiers). A [`NodeBatch`] becomes one RocksDB `WriteBatch`, which the
//! write-ahead log applies atomically: a process killed during a write reopens with all of
//! the batch or none of it. With [`RocksConfig::sync_writes`] off (the default) a batch is
//! durable against a process crash; turn it on to be durable against a power loss too.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType, Options,
    WriteBatch, WriteOptions, DB,
};

use super::{NodeBatch, NodePath, NodeStore};

/// Column family of node records.
const CF_NODES: &str = "nodes";
/// Column family of meta records.
const CF_META: &str = "meta";

/// Why a RocksDB operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RocksError {
    /// The database could not be opened (or created).
    #[error("cannot open the RocksDB database in {dir}: {source}")]
    Open {
        /// The database directory.
        dir: PathBuf,
        /// RocksDB's reason.
        source: rocksdb::Error,
    },
    /// A column family is missing from an opened database.
    #[error("RocksDB database in {dir} has no column family {name:?}")]
    MissingColumnFamily {
        /// The database directory.
        dir: PathBuf,
        /// The column family.
        name: &'static str,
    },
    /// A read failed.
    #[error("reading {column} key 0x{key} from {dir}: {source}")]
    Read {
        /// The database directory.
        dir: PathBuf,
        /// `nodes` or `meta`.
        column: &'static str,
        /// The key, hex.
        key: String,
        /// RocksDB's reason.
        source: rocksdb::Error,
    },
    /// A batch write failed (nothing of it was applied).
    #[error("writing a batch of {records} records to {dir}: {source}")]
    Write {
        /// The database directory.
        dir: PathBuf,
        /// Records in the batch.
        records: usize,
        /// RocksDB's reason.
        source: rocksdb::Error,
    },
}

/// Tuning of a [`RocksStore`].
#[derive(Clone, Debug)]
pub struct RocksConfig {
    /// Size of RocksDB's block cache (uncompressed blocks), in bytes.
    pub block_cache_bytes: usize,
    /// Size of one memtable, in bytes (RocksDB keeps up to two per column family).
    pub write_buffer_bytes: usize,
    /// `fsync` the write-ahead log on every batch (durable against power loss, slower).
    pub sync_writes: bool,
}

impl Default for RocksConfig {
    fn default() -> Self {
        RocksConfig {
            block_cache_bytes: 64 << 20,
            write_buffer_bytes: 64 << 20,
            sync_writes: false,
        }
    }
}

/// A [`NodeStore`] in a RocksDB database. Cloning shares the one open database (an
/// `Arc`), so several trees (or a wrapper that remaps keys) can use it; a database
/// directory can be open in one process at a time.
#[derive(Clone)]
pub struct RocksStore {
    db: Arc<DB>,
    dir: Arc<PathBuf>,
    sync: bool,
}

impl std::fmt::Debug for RocksStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksStore")
            .field("dir", &self.dir)
            .field("sync", &self.sync)
            .finish()
    }
}

impl RocksStore {
    /// Opens (creating if needed) the database in `dir` with [`RocksConfig::default`].
    pub fn open(dir: impl AsRef<Path>) -> Result<RocksStore, RocksError> {
        RocksStore::open_with(dir, &RocksConfig::default())
    }

    /// Opens (creating if needed) the database in `dir`.
    pub fn open_with(
        dir: impl AsRef<Path>,
        config: &RocksConfig,
    ) -> Result<RocksStore, RocksError> {
        let dir = dir.as_ref().to_path_buf();
        let cache = Cache::new_lru_cache(config.block_cache_bytes);
        let cf_options = |bloom: bool| {
            let mut table = BlockBasedOptions::default();
            table.set_block_cache(&cache);
            table.set_cache_index_and_filter_blocks(true);
            if bloom {
                table.set_bloom_filter(10.0, false);
            }
            let mut o = Options::default();
            o.set_block_based_table_factory(&table);
            o.set_compression_type(DBCompressionType::Lz4);
            o.set_write_buffer_size(config.write_buffer_bytes);
            o
        };
        let mut db_options = Options::default();
        db_options.create_if_missing(true);
        db_options.create_missing_column_families(true);
        db_options.set_max_open_files(512);
        db_options.increase_parallelism(2);
        // The meta column family takes a few bytes per batch and is rarely flushed, so it
        // pins old write-ahead logs: without a cap they grew to 4 × the memtables (about
        // 1 GB; 610 MB of a 1M-key state's 893 MB) and were all replayed on every open.
        db_options.set_max_total_wal_size(4 * config.write_buffer_bytes as u64);
        // Write SST files and logs out in 1 MB steps instead of in bursts at each fsync.
        db_options.set_bytes_per_sync(1 << 20);
        db_options.set_wal_bytes_per_sync(1 << 20);
        let cfs = vec![
            ColumnFamilyDescriptor::new(CF_NODES, cf_options(true)),
            ColumnFamilyDescriptor::new(CF_META, cf_options(false)),
        ];
        let db =
            DB::open_cf_descriptors(&db_options, &dir, cfs).map_err(|source| RocksError::Open {
                dir: dir.clone(),
                source,
            })?;
        let store = RocksStore {
            db: Arc::new(db),
            dir: Arc::new(dir),
            sync: config.sync_writes,
        };
        store.cf(CF_NODES)?;
        store.cf(CF_META)?;
        Ok(store)
    }

    /// The database directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn cf(&self, name: &'static str) -> Result<&ColumnFamily, RocksError> {
        self.db
            .cf_handle(name)
            .ok_or_else(|| RocksError::MissingColumnFamily {
                dir: self.dir.to_path_buf(),
                name,
            })
    }

    fn read(&self, column: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>, RocksError> {
        let cf = self.cf(column)?;
        self.db
            .get_pinned_cf(cf, key)
            .map(|v| v.map(|v| v.to_vec()))
            .map_err(|source| RocksError::Read {
                dir: self.dir.to_path_buf(),
                column,
                key: hex::encode(key),
                source,
            })
    }

    /// The node record under the raw key `key` (a node path, possibly remapped by a wrapper).
    pub fn get_node(&self, key: &[u8]) -> Result<Option<Vec<u8>>, RocksError> {
        self.read(CF_NODES, key)
    }

    /// The node records under many raw keys, in order, with one RocksDB `MultiGet`.
    pub fn get_nodes<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) -> Vec<Result<Option<Vec<u8>>, RocksError>> {
        let keys: Vec<&[u8]> = keys.into_iter().collect();
        let Ok(cf) = self.cf(CF_NODES) else {
            // Checked when the store was opened; each read reports the error itself.
            return keys.iter().map(|k| self.read(CF_NODES, k)).collect();
        };
        self.db
            .batched_multi_get_cf(cf, keys.iter().copied(), false)
            .into_iter()
            .zip(&keys)
            .map(|(r, key)| {
                r.map(|v| v.map(|v| v.to_vec()))
                    .map_err(|source| RocksError::Read {
                        dir: self.dir.to_path_buf(),
                        column: CF_NODES,
                        key: hex::encode(key),
                        source,
                    })
            })
            .collect()
    }

    /// The meta record under `key`.
    pub fn get_meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, RocksError> {
        self.read(CF_META, key)
    }

    /// Writes `batch` as one atomic RocksDB `WriteBatch` (deletes, node puts, meta puts).
    /// Takes `&self`: clones of the store may write; each write is atomic on its own.
    pub fn write_batch(&self, batch: &NodeBatch) -> Result<(), RocksError> {
        let nodes = self.cf(CF_NODES)?;
        let meta = self.cf(CF_META)?;
        let mut wb = WriteBatch::default();
        for p in &batch.deletes {
            wb.delete_cf(nodes, p.as_bytes());
        }
        for (p, v) in &batch.puts {
            wb.put_cf(nodes, p.as_bytes(), v);
        }
        for (k, v) in &batch.meta {
            wb.put_cf(meta, k, v);
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(self.sync);
        let records = batch.deletes.len() + batch.puts.len() + batch.meta.len();
        self.db
            .write_opt(wb, &wo)
            .map_err(|source| RocksError::Write {
                dir: self.dir.to_path_buf(),
                records,
                source,
            })
    }

    /// Flushes the memtables to disk (not needed for durability: the write-ahead log has
    /// every batch; this shortens the next open's log replay).
    pub fn flush(&self) -> Result<(), RocksError> {
        let cfs = [self.cf(CF_NODES)?, self.cf(CF_META)?];
        self.db
            .flush_cfs_opt(&cfs, &rocksdb::FlushOptions::default())
            .map_err(|source| RocksError::Write {
                dir: self.dir.to_path_buf(),
                records: 0,
                source,
            })
    }
}

impl NodeStore for RocksStore {
    type Error = RocksError;

    fn get(&self, path: &NodePath) -> Result<Option<Vec<u8>>, RocksError> {
        self.get_node(path.as_bytes())
    }

    fn get_many(&self, paths: &[NodePath]) -> Vec<Result<Option<Vec<u8>>, RocksError>> {
        self.get_nodes(paths.iter().map(NodePath::as_bytes))
    }

    fn get_meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, RocksError> {
        RocksStore::get_meta(self, key)
    }

    fn write(&mut self, batch: NodeBatch) -> Result<(), RocksError> {
        self.write_batch(&batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fverkle-rocks-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn batches_round_trip_and_reopen() {
        let dir = temp_dir("unit");
        let a = NodePath::new(&[1, 2]).unwrap();
        let b = NodePath::new(&[0xff; 32]).unwrap();
        {
            let mut s = RocksStore::open(&dir).unwrap();
            s.write(NodeBatch {
                puts: vec![(a, vec![1]), (b, vec![2])],
                deletes: vec![],
                meta: vec![(b"k".to_vec(), vec![7])],
            })
            .unwrap();
            let shared = s.clone();
            shared
                .write_batch(&NodeBatch {
                    puts: vec![],
                    deletes: vec![a],
                    meta: vec![],
                })
                .unwrap();
            assert_eq!(s.get(&a).unwrap(), None);
        }
        let s = RocksStore::open(&dir).unwrap();
        assert_eq!(s.get(&a).unwrap(), None);
        assert_eq!(s.get(&b).unwrap(), Some(vec![2]));
        assert_eq!(s.get_node(&[0xff; 32]).unwrap(), Some(vec![2]));
        assert_eq!(NodeStore::get_meta(&s, b"k").unwrap(), Some(vec![7]));
        // Node and meta keys live apart.
        assert_eq!(s.get_node(b"k").unwrap(), None);
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn open_failure_names_the_directory() {
        let dir = temp_dir("file");
        std::fs::write(&dir, b"not a directory").unwrap();
        match RocksStore::open(&dir) {
            Err(e @ RocksError::Open { .. }) => {
                assert!(e.to_string().contains(&dir.display().to_string()), "{e}")
            }
            other => panic!("expected an open error, got {other:?}"),
        }
        let _ = std::fs::remove_file(&dir);
    }
}
