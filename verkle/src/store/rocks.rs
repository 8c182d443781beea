//! [`RocksStore`]: nodes and meta records in RocksDB, one `WriteBatch` per write.
//!
//! Three column families: `top` (the records of nodes at depth ≤ `TOP_PATH_LEN`: key =
//! the node's path, value = the [`StoredNode`](super::StoredNode) record), `nodes` (the same
//! for deeper nodes, paths of at most 32 bytes) and `meta` (root commitment, block height,
//! and caller-defined identifiers). Why the top has its own column family: every block
//! rewrites the records near the root (each with the map-to-field scalars of all its
//! children), over and over, while the deeper records it writes are mostly new keys. Kept
//! apart, the top's memtable ([`RocksConfig::top_write_buffer_bytes`]) holds many blocks'
//! versions of the same few records and each flush writes one version of each, and the
//! compactions of the deep column family no longer carry them. A database created before
//! the split (only `nodes` and `meta`) is opened as it is, with every node in `nodes`
//! ([`RocksStore::splits_top`] says which). A [`NodeBatch`] becomes one RocksDB `WriteBatch`, which the
//! write-ahead log applies atomically: a process killed during a write reopens with all of
//! the batch or none of it. With [`RocksConfig::sync_writes`] off (the default) a batch is
//! durable against a process crash; turn it on to be durable against a power loss too.
//! RocksDB's flushes and compactions run at the lowest CPU priority (nice 19), so on a busy
//! machine they wait for the block being applied.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use rocksdb::{
    BlockBasedOptions, BlockBasedTablePinningTier, Cache, ColumnFamily, ColumnFamilyDescriptor,
    DBCompressionType, DataBlockIndexType, Options, ReadOptions, WriteBatch, WriteOptions, DB,
};

use super::{NodeBatch, NodePath, NodeStore};

/// Column family of node records.
const CF_NODES: &str = "nodes";
/// Column family of meta records.
const CF_META: &str = "meta";
/// Column family of the node records at depth ≤ `TOP_PATH_LEN`.
const CF_TOP: &str = "top";

/// Nodes whose path is at most this many bytes long (the root and depths 1 and 2) are kept
/// in the `top` column family, the others in `nodes`.
pub const TOP_PATH_LEN: usize = 2;

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

/// Keys per `MultiGet` below which [`RocksStore::get_nodes`] does not split a read
/// across threads.
const PARALLEL_READ_CHUNK: usize = 512;

/// Read options of the hot path (node and meta reads).
///
/// Block checksums are not verified on these reads: checksumming the whole 4 KB block of
/// every randomly read node costs more than decoding the record. The trade-off: a block
/// corrupted on disk after it was written is not reported as such by the read. What still
/// catches it: RocksDB verifies checksums whenever it reads a file for compaction, so a
/// corrupt file fails its next compaction loudly; every record is decoded with its
/// canonical checks (exact lengths, points on the curve, scalars below the modulus); and
/// a loaded node's map-to-field scalar must equal the one its parent committed to
/// (`Inconsistent` otherwise). A flipped bit in a leaf value that leaves all of that intact
/// would go unnoticed until that compaction.
fn node_read_options() -> ReadOptions {
    let mut o = ReadOptions::default();
    o.set_verify_checksums(false);
    o
}

/// Tuning of a [`RocksStore`].
#[derive(Clone, Debug)]
pub struct RocksConfig {
    /// Size of RocksDB's block cache (uncompressed blocks), in bytes.
    pub block_cache_bytes: usize,
    /// Size of one memtable, in bytes (RocksDB keeps up to two per column family; default
    /// 128 MiB). A block rewrites the records of its nodes' whole paths, and the records near
    /// the root are rewritten by every block: a larger memtable holds more blocks, so each
    /// such record reaches the disk once per flush instead of once per block, and flushes and
    /// compactions have less to write, for up to twice this size in memory. Opening a
    /// database replays the write-ahead log not yet flushed, up to 4 × this size.
    /// `BENCHMARKS.md` (fractional tree) has the measured effect.
    pub write_buffer_bytes: usize,
    /// Size of one memtable of the `top` column family (the nodes at depth ≤
    /// `TOP_PATH_LEN`), in bytes (default 256 MiB; up to two). Each block rewrites most
    /// of these records (on a 1M-key state ≈ 8 MB per 10k-update block, over ≈ 42 MB of
    /// distinct records): a memtable holding ≈ 30 blocks flushes one version of each record
    /// per 30 blocks, and the compactions of the deeper records do not carry them.
    pub top_write_buffer_bytes: usize,
    /// `fsync` the write-ahead log on every batch (durable against power loss, slower).
    pub sync_writes: bool,
    /// Read table files through memory maps instead of `pread` (default off). A node read
    /// that misses the block cache then costs no system call and no copy: on a 1M-key
    /// state with the files in the page cache, the reads of a 10k-update block take about
    /// 40 % less time. The cost is in what the process reports: every mapped page that was
    /// read counts in its resident set (RSS) until the kernel reclaims it, up to the size
    /// of the database, although it is the same page cache `pread` would have read from.
    pub mmap_reads: bool,
}

impl Default for RocksConfig {
    fn default() -> Self {
        RocksConfig {
            block_cache_bytes: 64 << 20,
            write_buffer_bytes: 128 << 20,
            top_write_buffer_bytes: 256 << 20,
            sync_writes: false,
            mmap_reads: false,
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
    /// Whether the database has the `top` column family (false: created before the split).
    split: bool,
}

impl std::fmt::Debug for RocksStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksStore")
            .field("dir", &self.dir)
            .field("sync", &self.sync)
            .field("split", &self.split)
            .finish()
    }
}

/// RocksDB's memory by use, in bytes ([`RocksStore::memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RocksMemory {
    /// Memtables (active and immutable, not yet flushed).
    pub memtables: u64,
    /// Table readers outside the block cache (indexes and filters not cached).
    pub table_readers: u64,
    /// The block cache, pinned entries included.
    pub block_cache: u64,
    /// Pinned entries of the block cache (index and filter blocks of open files).
    pub block_cache_pinned: u64,
}

impl RocksConfig {
    /// A tree over a store within a total memory budget of `bytes` (an operator's
    /// `--cache-mb`): half for the tree's node cache ([`crate::TreeConfig::cache_bytes`], no node
    /// count limit), half for RocksDB — a fifth of that for the block cache (index and filter
    /// blocks included) and a fifth for each of the four memtables (two per column family).
    /// Per-node and allocator overhead come on top.
    pub fn split_budget(bytes: usize) -> (crate::TreeConfig, RocksConfig) {
        let half = bytes / 2;
        let fifth = (half / 5).max(1 << 20);
        let tree = crate::TreeConfig {
            cache_nodes: usize::MAX,
            cache_bytes: half.max(1),
        };
        let rocks = RocksConfig {
            block_cache_bytes: fifth,
            write_buffer_bytes: fifth,
            top_write_buffer_bytes: fifth,
            ..RocksConfig::default()
        };
        (tree, rocks)
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
        let cf_options = |nodes: bool| {
            let mut table = BlockBasedOptions::default();
            table.set_block_cache(&cache);
            // Index and filter blocks live in the block cache and stay pinned there while
            // their file is open: every point read needs them, and a random node read must
            // not evict them.
            table.set_cache_index_and_filter_blocks(true);
            table.set_pin_l0_filter_and_index_blocks_in_cache(true);
            table.set_unpartitioned_pinning_tier(BlockBasedTablePinningTier::All);
            if nodes {
                table.set_bloom_filter(10.0, false);
                // A hash index inside each data block: a point read finds its key without
                // the binary search over the block's restart points.
                table.set_data_block_index_type(DataBlockIndexType::BinaryAndHash);
                table.set_data_block_hash_ratio(0.75);
            }
            let mut o = Options::default();
            o.set_block_based_table_factory(&table);
            // Node records are commitments and scalars, which do not compress: compression
            // would cost CPU on every flush, compaction and block read for no space. (Files
            // written with LZ4 by earlier versions stay readable; compaction rewrites them
            // uncompressed.)
            o.set_compression_type(DBCompressionType::None);
            o.set_write_buffer_size(config.write_buffer_bytes);
            if nodes {
                // Node reads almost always find their key (a parent names its children):
                // no filter on the last level (it would say "maybe" every time), and a
                // bloom filter on the memtables so a read skips them when they do not
                // hold the key.
                o.set_optimize_filters_for_hits(true);
                o.set_memtable_prefix_bloom_ratio(0.02);
                o.set_memtable_whole_key_filtering(true);
            }
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
        db_options.set_max_total_wal_size(
            4 * config.write_buffer_bytes.max(config.top_write_buffer_bytes) as u64,
        );
        // Write SST files and logs out in 1 MB steps instead of in bursts at each fsync.
        db_options.set_bytes_per_sync(1 << 20);
        db_options.set_wal_bytes_per_sync(1 << 20);
        db_options.set_allow_mmap_reads(config.mmap_reads);
        // Flushes and compactions run at the lowest CPU priority (nice 19 for RocksDB's
        // background threads): on a machine whose cores are all busy applying a block they
        // yield to it and catch up while the block is written (a single-threaded step). Idle
        // cores run them as before; a backlog is bounded
        // by RocksDB's own write slowdown. The thread pools are process-wide, so this holds
        // for every RocksDB database in the process. (Creating the default environment
        // handle cannot fail in practice; if it did, the priorities would stay as they are.)
        if let Ok(mut env) = rocksdb::Env::new() {
            env.lower_thread_pool_cpu_priority();
            env.lower_high_priority_thread_pool_cpu_priority();
            db_options.set_env(&env);
        }
        // An existing database keeps its layout: with `top` if it was created with it. A
        // directory that holds no database yet (no `CURRENT` file) gets the split layout. A
        // database whose column families cannot be listed is not opened: guessing its layout
        // wrong would hide its top nodes.
        let split = match DB::list_cf(&db_options, &dir) {
            Ok(names) => names.iter().any(|n| n == CF_TOP),
            Err(_) if !dir.join("CURRENT").exists() => true,
            Err(source) => {
                return Err(RocksError::Open {
                    dir: dir.clone(),
                    source,
                })
            }
        };
        let mut cfs = vec![
            ColumnFamilyDescriptor::new(CF_NODES, cf_options(true)),
            ColumnFamilyDescriptor::new(CF_META, cf_options(false)),
        ];
        if split {
            let mut top = cf_options(true);
            top.set_write_buffer_size(config.top_write_buffer_bytes);
            cfs.push(ColumnFamilyDescriptor::new(CF_TOP, top));
        }
        let db =
            DB::open_cf_descriptors(&db_options, &dir, cfs).map_err(|source| RocksError::Open {
                dir: dir.clone(),
                source,
            })?;
        let store = RocksStore {
            db: Arc::new(db),
            dir: Arc::new(dir),
            sync: config.sync_writes,
            split,
        };
        store.cf(CF_NODES)?;
        store.cf(CF_META)?;
        if split {
            store.cf(CF_TOP)?;
        }
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

    /// What RocksDB holds in memory now, summed over the column families (its own
    /// estimates; 0 for a figure it does not report).
    pub fn memory(&self) -> RocksMemory {
        let prop = |name: &str, p: &str| {
            self.db
                .cf_handle(name)
                .and_then(|cf| self.db.property_int_value_cf(cf, p).ok().flatten())
                .unwrap_or(0)
        };
        let sum = |p: &str| [CF_NODES, CF_META, CF_TOP].map(|n| prop(n, p)).iter().sum();
        RocksMemory {
            memtables: sum("rocksdb.cur-size-all-mem-tables"),
            table_readers: sum("rocksdb.estimate-table-readers-mem"),
            // One block cache serves every column family.
            block_cache: prop(CF_NODES, "rocksdb.block-cache-usage"),
            block_cache_pinned: prop(CF_NODES, "rocksdb.block-cache-pinned-usage"),
        }
    }

    /// Whether node records at depth ≤ `TOP_PATH_LEN` have their own column family (every
    /// database created by this version; false for one created before the split).
    pub fn splits_top(&self) -> bool {
        self.split
    }

    /// The column family of the node record under `key`.
    fn node_column(&self, key: &[u8]) -> &'static str {
        if self.split && key.len() <= TOP_PATH_LEN {
            CF_TOP
        } else {
            CF_NODES
        }
    }

    fn read(&self, column: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>, RocksError> {
        let cf = self.cf(column)?;
        self.db
            .get_pinned_cf_opt(cf, key, &node_read_options())
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
        self.read(self.node_column(key), key)
    }

    /// The node records under many raw keys, in order, with RocksDB `MultiGet`s: per
    /// column family one, or for many keys one per chunk, the chunks read in parallel
    /// (rayon).
    pub fn get_nodes<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) -> Vec<Result<Option<Vec<u8>>, RocksError>> {
        let keys: Vec<&[u8]> = keys.into_iter().collect();
        let in_top: Vec<bool> = keys.iter().map(|k| self.node_column(k) == CF_TOP).collect();
        let (mut upper, mut lower): (Vec<&[u8]>, Vec<&[u8]>) = (Vec::new(), Vec::new());
        for (k, t) in keys.iter().zip(&in_top) {
            if *t {
                upper.push(k)
            } else {
                lower.push(k)
            }
        }
        if upper.is_empty() {
            return self.get_column(CF_NODES, &lower);
        }
        if lower.is_empty() {
            return self.get_column(CF_TOP, &upper);
        }
        // Both columns: read each one's keys, then interleave the results back into key
        // order (each column's results are in its keys' order, one per key).
        let mut upper = self.get_column(CF_TOP, &upper).into_iter();
        let mut lower = self.get_column(CF_NODES, &lower).into_iter();
        in_top
            .iter()
            .filter_map(|t| if *t { upper.next() } else { lower.next() })
            .collect()
    }

    /// [`RocksStore::get_nodes`] for keys all in `column`.
    fn get_column(
        &self,
        column: &'static str,
        keys: &[&[u8]],
    ) -> Vec<Result<Option<Vec<u8>>, RocksError>> {
        let Ok(cf) = self.cf(column) else {
            // Checked when the store was opened; each read reports the error itself.
            return keys.iter().map(|k| self.read(column, k)).collect();
        };
        let threads = rayon::current_num_threads();
        if threads < 2 || keys.len() < 2 * PARALLEL_READ_CHUNK {
            return self.multi_get(column, cf, keys);
        }
        let chunk = keys.len().div_ceil(threads).max(PARALLEL_READ_CHUNK);
        let parts: Vec<Vec<Result<Option<Vec<u8>>, RocksError>>> = keys
            .par_chunks(chunk)
            .map(|part| self.multi_get(column, cf, part))
            .collect();
        parts.into_iter().flatten().collect()
    }

    /// One `MultiGet` of node records (sorted keys are passed as such, saving RocksDB a sort).
    fn multi_get(
        &self,
        column: &'static str,
        cf: &ColumnFamily,
        keys: &[&[u8]],
    ) -> Vec<Result<Option<Vec<u8>>, RocksError>> {
        let sorted = keys.windows(2).all(|w| w[0] < w[1]);
        self.db
            .batched_multi_get_cf_opt(cf, keys.iter().copied(), sorted, &node_read_options())
            .into_iter()
            .zip(keys)
            .map(|(r, key)| {
                r.map(|v| v.map(|v| v.to_vec()))
                    .map_err(|source| RocksError::Read {
                        dir: self.dir.to_path_buf(),
                        column,
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
        let top = if self.split { self.cf(CF_TOP)? } else { nodes };
        let meta = self.cf(CF_META)?;
        let column = |key: &[u8]| {
            if self.node_column(key) == CF_TOP {
                top
            } else {
                nodes
            }
        };
        let mut wb = WriteBatch::default();
        for p in &batch.deletes {
            wb.delete_cf(column(p.as_bytes()), p.as_bytes());
        }
        for (p, v) in &batch.puts {
            wb.put_cf(column(p.as_bytes()), p.as_bytes(), v);
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

    /// The open column families (`top` only when the database has it).
    fn columns(&self) -> Result<Vec<&ColumnFamily>, RocksError> {
        let mut cfs = vec![self.cf(CF_NODES)?, self.cf(CF_META)?];
        if self.split {
            cfs.push(self.cf(CF_TOP)?);
        }
        Ok(cfs)
    }

    /// Compacts every column family over its whole key range: rewrites every file with
    /// the current options (for example the LZ4-compressed files of earlier versions, which
    /// become uncompressed) and drops overwritten and deleted records. Slow (it reads and
    /// writes the whole database); for maintenance, not for the block path.
    pub fn compact(&self) -> Result<(), RocksError> {
        for cf in self.columns()? {
            self.db.compact_range_cf::<&[u8], &[u8]>(cf, None, None);
        }
        Ok(())
    }

    /// Flushes the memtables to disk (not needed for durability: the write-ahead log has
    /// every batch; this shortens the next open's log replay).
    pub fn flush(&self) -> Result<(), RocksError> {
        let cfs = self.columns()?;
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
mod tests;
