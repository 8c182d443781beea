//! [`RocksBinaryState`]: a binary state tree in a RocksDB datadir, with a bounded node cache
//! and one atomic write per block.
//!
//! Two column families: `binary-nodes` (each node's record under its position, the short bit
//! path of [`bintree::store`]) and `binary-meta` (the tree's kind, root, value count and
//! height, and the caller's meta entries under `user/`). [`BinaryState::persist`] writes the
//! block's changed and removed records with all the meta as one RocksDB `WriteBatch`, which
//! the write-ahead log applies whole or not at all: a process stopped at any point reopens at
//! the last persisted height, with its root and values. Nodes are read when an operation
//! reaches them (each checked against the hash its parent holds) and, after each persist,
//! the tree keeps at most [`BinaryConfig::cache_nodes`] nodes in memory.
//!
//! A datadir holds one kind of tree: its kind is recorded when it is created, and opening it
//! as another kind, or opening a Verkle datadir, is an error.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use bintree::store::NodeSource;
use bintree::witness::Write;
use bintree::{eip7864, eip8297, Blake3, Sha256};
use rocksdb::{ColumnFamilyDescriptor, Options, WriteBatch, WriteOptions, DB};

use super::{BinaryKind, BinaryState, CF_META, CF_NODES};

/// Meta key of the tree's kind (`tree/hash`, as `--tree` and `--hash` name them).
pub const META_KIND: &[u8] = b"binary/kind";
/// Meta key of the root as of the last persist (32 bytes).
pub const META_ROOT: &[u8] = b"binary/root";
/// Meta key of the number of values as of the last persist (8 bytes, big-endian).
pub const META_LEN: &[u8] = b"binary/len";
/// Meta key of the height of the last persist (8 bytes, big-endian).
pub const META_HEIGHT: &[u8] = b"binary/height";
/// Prefix of the caller's meta keys.
const USER_PREFIX: &[u8] = b"user/";

/// Tuning of a [`RocksBinaryState`].
#[derive(Clone, Debug)]
pub struct BinaryConfig {
    /// Most tree nodes kept in memory after a persist (internal and stem nodes for EIP-7864,
    /// branches and leaves for EIP-8297). A block loads what it reaches on top of them.
    pub cache_nodes: usize,
    /// Size of RocksDB's block cache, in bytes.
    pub block_cache_bytes: usize,
    /// Size of one memtable, in bytes.
    pub write_buffer_bytes: usize,
    /// `fsync` the write-ahead log on every persist (durable against power loss, slower).
    pub sync_writes: bool,
}

impl BinaryConfig {
    /// Default of [`BinaryConfig::cache_nodes`]: about 100 MiB of nodes of a state of
    /// single-value stems.
    pub const DEFAULT_CACHE_NODES: usize = 1 << 18;
}

impl Default for BinaryConfig {
    fn default() -> Self {
        BinaryConfig {
            cache_nodes: Self::DEFAULT_CACHE_NODES,
            block_cache_bytes: 64 << 20,
            write_buffer_bytes: 64 << 20,
            sync_writes: false,
        }
    }
}

/// Why a binary datadir does not open. Each variant names the datadir.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BinaryDatadirError {
    /// The directory cannot be created.
    #[error("{dir}: cannot create")]
    Create {
        /// The datadir.
        dir: PathBuf,
        /// The file system's error.
        source: std::io::Error,
    },
    /// The database in it does not open, or its meta cannot be read or written.
    #[error("{dir}: {what}")]
    Rocks {
        /// The datadir.
        dir: PathBuf,
        /// What failed.
        what: &'static str,
        /// RocksDB's error.
        source: rocksdb::Error,
    },
    /// It holds a database that is not a binary tree (a Verkle datadir).
    #[error("{dir}: holds no binary tree (column families {families:?}; a Verkle datadir?)")]
    NotBinary {
        /// The datadir.
        dir: PathBuf,
        /// Its column families.
        families: Vec<String>,
    },
    /// It holds another kind of binary tree.
    #[error("{dir}: meta {}: the datadir holds {holds}, not {}/{}", String::from_utf8_lossy(META_KIND), wanted.tree(), wanted.hash())]
    WrongKind {
        /// The datadir.
        dir: PathBuf,
        /// The kind it holds, as recorded.
        holds: String,
        /// The kind asked for.
        wanted: BinaryKind,
    },
    /// A meta record does not decode.
    #[error("{dir}: meta {field}: {got} bytes, expected {expected}")]
    Meta {
        /// The datadir.
        dir: PathBuf,
        /// The meta key.
        field: String,
        /// Its length.
        got: usize,
        /// The length it must have.
        expected: usize,
    },
}

/// The tree in a datadir, by kind.
enum Tree {
    Eip7864Sha256(eip7864::StoredTree<Sha256>),
    Eip7864Blake3(eip7864::StoredTree<Blake3>),
    Eip8297(eip8297::StoredTree<Blake3>),
}

/// The node records of an open database, as a tree reads them.
struct Nodes<'a> {
    db: &'a DB,
}

impl NodeSource for Nodes<'_> {
    type Error = rocksdb::Error;

    fn load(&self, key: &[u8]) -> Result<Option<Vec<u8>>, rocksdb::Error> {
        match self.db.cf_handle(CF_NODES) {
            Some(cf) => self.db.get_cf(cf, key),
            None => Ok(None),
        }
    }

    /// RocksDB batched multi-gets for all the keys (the first failing read is the error): one,
    /// or for [`PARALLEL_MIN_KEYS`] keys and more, one for each half on its own thread.
    fn load_many(&self, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>, rocksdb::Error> {
        let Some(cf) = self.db.cf_handle(CF_NODES) else {
            return Ok(vec![None; keys.len()]);
        };
        let read = |keys: &[&[u8]]| -> Result<Vec<Option<Vec<u8>>>, rocksdb::Error> {
            self.db
                .batched_multi_get_cf(cf, keys.iter().copied(), false)
                .into_iter()
                .map(|answer| answer.map(|record| record.map(|slice| slice.to_vec())))
                .collect()
        };
        if keys.len() < PARALLEL_MIN_KEYS {
            return read(keys);
        }
        let (first, second) = keys.split_at(keys.len() / 2);
        let (first, second) = std::thread::scope(|scope| {
            let other = scope.spawn(|| read(second));
            (read(first), other.join())
        });
        let mut answers = first?;
        match second {
            Ok(second) => answers.extend(second?),
            Err(panic) => std::panic::resume_unwind(panic),
        }
        Ok(answers)
    }
}

/// Keys of one read from which the datadir reads each half on its own thread.
const PARALLEL_MIN_KEYS: usize = 2048;

/// A binary state tree in a RocksDB datadir.
pub struct RocksBinaryState {
    db: DB,
    dir: PathBuf,
    kind: BinaryKind,
    tree: Tree,
    height: Option<u64>,
    config: BinaryConfig,
    /// Size of the last block's write, the next one's first guess.
    batch_bytes: usize,
}

impl std::fmt::Debug for RocksBinaryState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksBinaryState")
            .field("dir", &self.dir)
            .field("kind", &self.kind)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// The meta value naming `kind`.
fn kind_name(kind: BinaryKind) -> String {
    format!("{}/{}", kind.tree(), kind.hash())
}

impl RocksBinaryState {
    /// Opens the datadir `dir` holding a tree of `kind` (created, with its kind recorded, when
    /// missing), with [`BinaryConfig::default`].
    pub fn open(dir: &Path, kind: BinaryKind) -> Result<Self, BinaryDatadirError> {
        Self::open_with(dir, kind, BinaryConfig::default())
    }

    /// [`RocksBinaryState::open`] with `config`.
    pub fn open_with(
        dir: &Path,
        kind: BinaryKind,
        config: BinaryConfig,
    ) -> Result<Self, BinaryDatadirError> {
        let dir = dir.to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|source| BinaryDatadirError::Create {
            dir: dir.clone(),
            source,
        })?;
        let rocks = |what: &'static str| {
            let dir = dir.clone();
            move |source| BinaryDatadirError::Rocks { dir, what, source }
        };
        let mut options = Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        options.set_max_open_files(512);
        options.increase_parallelism(2);
        options.set_max_total_wal_size(4 * config.write_buffer_bytes as u64);
        match DB::list_cf(&options, &dir) {
            Ok(families) => {
                let ours = |f: &String| f == "default" || f == CF_NODES || f == CF_META;
                if !families.iter().all(ours) {
                    return Err(BinaryDatadirError::NotBinary { dir, families });
                }
            }
            Err(_) if !dir.join("CURRENT").exists() => {}
            Err(source) => return Err(rocks("cannot list the column families")(source)),
        }
        let cache = rocksdb::Cache::new_lru_cache(config.block_cache_bytes);
        let mut table = rocksdb::BlockBasedOptions::default();
        table.set_block_cache(&cache);
        table.set_bloom_filter(10.0, false);
        let mut nodes = Options::default();
        nodes.set_block_based_table_factory(&table);
        nodes.set_write_buffer_size(config.write_buffer_bytes);
        // Records are hashes and values, which do not compress.
        nodes.set_compression_type(rocksdb::DBCompressionType::None);
        let cfs = vec![
            ColumnFamilyDescriptor::new(CF_NODES, nodes),
            ColumnFamilyDescriptor::new(CF_META, Options::default()),
        ];
        let db = DB::open_cf_descriptors(&options, &dir, cfs).map_err(rocks("cannot open"))?;
        let meta = |key: &[u8]| -> Result<Option<Vec<u8>>, BinaryDatadirError> {
            let cf = db
                .cf_handle(CF_META)
                .ok_or_else(|| BinaryDatadirError::NotBinary {
                    dir: dir.clone(),
                    families: Vec::new(),
                })?;
            db.get_cf(cf, key).map_err(rocks("cannot read its meta"))
        };
        let fixed = |key: &[u8], len: usize| -> Result<Option<Vec<u8>>, BinaryDatadirError> {
            match meta(key)? {
                Some(v) if v.len() != len => Err(BinaryDatadirError::Meta {
                    dir: dir.clone(),
                    field: String::from_utf8_lossy(key).into_owned(),
                    got: v.len(),
                    expected: len,
                }),
                other => Ok(other),
            }
        };
        let u64_of = |v: Vec<u8>| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&v);
            u64::from_be_bytes(b)
        };
        let name = kind_name(kind);
        match meta(META_KIND)? {
            Some(holds) if holds != name.as_bytes() => {
                return Err(BinaryDatadirError::WrongKind {
                    dir,
                    holds: String::from_utf8_lossy(&holds).into_owned(),
                    wanted: kind,
                })
            }
            Some(_) => {}
            None => {
                let cf = db
                    .cf_handle(CF_META)
                    .ok_or_else(|| BinaryDatadirError::NotBinary {
                        dir: dir.clone(),
                        families: Vec::new(),
                    })?;
                db.put_cf(cf, META_KIND, name.as_bytes())
                    .map_err(rocks("cannot record its kind"))?;
            }
        }
        let mut root = [0u8; 32];
        if let Some(v) = fixed(META_ROOT, 32)? {
            root.copy_from_slice(&v);
        }
        let len = fixed(META_LEN, 8)?.map(u64_of).unwrap_or(0);
        let height = fixed(META_HEIGHT, 8)?.map(u64_of);
        let tree = match kind {
            BinaryKind::Eip7864Sha256 => Tree::Eip7864Sha256(eip7864::StoredTree::open(root, len)),
            BinaryKind::Eip7864Blake3 => Tree::Eip7864Blake3(eip7864::StoredTree::open(root, len)),
            BinaryKind::Eip8297 => Tree::Eip8297(eip8297::StoredTree::open(root, len)),
        };
        Ok(RocksBinaryState {
            db,
            dir,
            kind,
            tree,
            height,
            config,
            batch_bytes: 0,
        })
    }

    /// The datadir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Tree nodes in memory now.
    pub fn loaded_nodes(&self) -> usize {
        match &self.tree {
            Tree::Eip7864Sha256(t) => t.loaded_nodes(),
            Tree::Eip7864Blake3(t) => t.loaded_nodes(),
            Tree::Eip8297(t) => t.loaded_nodes(),
        }
    }

    /// The write of everything changed since the last persist, with `height` and `meta`, and
    /// the number of records in it; nothing is marked written yet. The node records go into
    /// the batch as the tree hands them out, sized by the last block's batch.
    fn batch(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<(WriteBatch, usize)> {
        let (Some(nodes), Some(meta_cf)) =
            (self.db.cf_handle(CF_NODES), self.db.cf_handle(CF_META))
        else {
            bail!("{}: column families missing", self.dir.display());
        };
        // The tree hands out puts and deletes through two callbacks writing to one batch.
        let batch = RefCell::new(WriteBatch::with_capacity_bytes(self.batch_bytes));
        let records = Cell::new(0usize);
        let put = |key: &[u8], record: &[u8]| {
            batch.borrow_mut().put_cf(nodes, key, record);
            records.set(records.get() + 1);
        };
        let delete = |key: &[u8]| {
            batch.borrow_mut().delete_cf(nodes, key);
            records.set(records.get() + 1);
        };
        let (root, len) = match &mut self.tree {
            Tree::Eip7864Sha256(t) => t.changes_with(put),
            Tree::Eip7864Blake3(t) => t.changes_with(put),
            Tree::Eip8297(t) => t.changes_with(put, delete),
        };
        let (mut batch, records) = (batch.into_inner(), records.get());
        batch.put_cf(meta_cf, META_ROOT, root);
        batch.put_cf(meta_cf, META_LEN, len.to_be_bytes());
        batch.put_cf(meta_cf, META_HEIGHT, height.to_be_bytes());
        for (key, value) in meta {
            batch.put_cf(meta_cf, [USER_PREFIX, key].concat(), value);
        }
        Ok((batch, records + 3 + meta.len()))
    }
}

impl BinaryState for RocksBinaryState {
    fn kind(&self) -> BinaryKind {
        self.kind
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<[u8; 32]>> {
        let nodes = Nodes { db: &self.db };
        Ok(match &mut self.tree {
            Tree::Eip7864Sha256(t) => t.get(&nodes, key)?,
            Tree::Eip7864Blake3(t) => t.get(&nodes, key)?,
            Tree::Eip8297(t) => t.get(&nodes, key)?,
        })
    }

    fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()> {
        let nodes = Nodes { db: &self.db };
        if let Tree::Eip8297(t) = &mut self.tree {
            let ops = writes.iter().filter_map(|(key, write)| match write {
                Write::Set(value) => Some((key, Some(*value))),
                Write::Delete => Some((key, None)),
                Write::Unchanged => None,
            });
            t.apply(&nodes, ops)?;
            return Ok(());
        }
        let mut sets = Vec::with_capacity(writes.len());
        for (i, (key, write)) in writes.iter().enumerate() {
            match write {
                Write::Set(value) => sets.push((key, *value)),
                Write::Unchanged => {}
                Write::Delete => bail!("write {i}: EIP-7864 defines no deletion"),
            }
        }
        match &mut self.tree {
            Tree::Eip7864Sha256(t) => t.apply(&nodes, sets)?,
            Tree::Eip7864Blake3(t) => t.apply(&nodes, sets)?,
            Tree::Eip8297(_) => {}
        }
        Ok(())
    }

    fn root(&mut self) -> Result<[u8; 32]> {
        Ok(match &mut self.tree {
            Tree::Eip7864Sha256(t) => t.root(),
            Tree::Eip7864Blake3(t) => t.root(),
            Tree::Eip8297(t) => t.root(),
        })
    }

    fn hash_count(&self) -> u64 {
        match &self.tree {
            Tree::Eip7864Sha256(t) => t.hash_count(),
            Tree::Eip7864Blake3(t) => t.hash_count(),
            Tree::Eip8297(t) => t.hash_count(),
        }
    }

    fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>> {
        let nodes = Nodes { db: &self.db };
        Ok(match &mut self.tree {
            Tree::Eip7864Sha256(t) => t.witness(&nodes, writes)?,
            Tree::Eip7864Blake3(t) => t.witness(&nodes, writes)?,
            Tree::Eip8297(t) => t.witness(&nodes, writes)?,
        })
    }

    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()> {
        let (batch, records) = self.batch(height, meta)?;
        self.batch_bytes = batch.size_in_bytes();
        let mut options = WriteOptions::default();
        options.set_sync(self.config.sync_writes);
        if let Err(e) = self.db.write_opt(batch, &options) {
            bail!(
                "{}: writing block {height} ({records} records): {e}",
                self.dir.display()
            );
        }
        self.height = Some(height);
        let budget = self.config.cache_nodes;
        match &mut self.tree {
            Tree::Eip7864Sha256(t) => {
                t.committed();
                t.evict(budget);
            }
            Tree::Eip7864Blake3(t) => {
                t.committed();
                t.evict(budget);
            }
            Tree::Eip8297(t) => {
                t.committed();
                t.evict(budget);
            }
        }
        Ok(())
    }

    fn height(&self) -> Option<u64> {
        self.height
    }

    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let Some(cf) = self.db.cf_handle(CF_META) else {
            bail!("{}: column family {CF_META} missing", self.dir.display());
        };
        Ok(self.db.get_cf(cf, [USER_PREFIX, key].concat())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::Rng;
    use bintree::TreeHash;

    fn config(cache_nodes: usize) -> BinaryConfig {
        BinaryConfig {
            cache_nodes,
            block_cache_bytes: 1 << 20,
            write_buffer_bytes: 1 << 20,
            sync_writes: false,
        }
    }

    /// An in-memory tree of either kind, the reference the datadir is held to.
    enum Memory {
        E7864Sha(eip7864::Tree<Sha256>),
        E7864Blake(eip7864::Tree<Blake3>),
        E8297(eip8297::Tree<Blake3>),
    }

    impl Memory {
        fn new(kind: BinaryKind) -> Memory {
            match kind {
                BinaryKind::Eip7864Sha256 => Memory::E7864Sha(eip7864::Tree::new()),
                BinaryKind::Eip7864Blake3 => Memory::E7864Blake(eip7864::Tree::new()),
                BinaryKind::Eip8297 => Memory::E8297(eip8297::Tree::new()),
            }
        }
        fn apply(&mut self, writes: &[(Vec<u8>, Write)]) {
            fn sets(writes: &[(Vec<u8>, Write)]) -> impl Iterator<Item = (&Vec<u8>, [u8; 32])> {
                writes.iter().filter_map(|(k, w)| match w {
                    Write::Set(v) => Some((k, *v)),
                    _ => None,
                })
            }
            match self {
                Memory::E7864Sha(t) => t.apply(sets(writes)).unwrap(),
                Memory::E7864Blake(t) => t.apply(sets(writes)).unwrap(),
                Memory::E8297(t) => t
                    .apply(writes.iter().filter_map(|(k, w)| match w {
                        Write::Set(v) => Some((k, Some(*v))),
                        Write::Delete => Some((k, None)),
                        Write::Unchanged => None,
                    }))
                    .unwrap(),
            }
        }
        fn root(&mut self) -> [u8; 32] {
            match self {
                Memory::E7864Sha(t) => t.root(),
                Memory::E7864Blake(t) => t.root(),
                Memory::E8297(t) => t.root(),
            }
        }
        fn get(&self, key: &[u8]) -> Option<[u8; 32]> {
            match self {
                Memory::E7864Sha(t) => t.get(key).copied(),
                Memory::E7864Blake(t) => t.get(key).copied(),
                Memory::E8297(t) => t.get(key).copied(),
            }
        }
        fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Vec<u8> {
            match self {
                Memory::E7864Sha(t) => t.witness(writes).unwrap(),
                Memory::E7864Blake(t) => t.witness(writes).unwrap(),
                Memory::E8297(t) => t.witness(writes).unwrap(),
            }
        }
    }

    /// A key of the kind's form from a small space, so that keys repeat and share prefixes.
    fn key(rng: &mut Rng, kind: BinaryKind) -> Vec<u8> {
        match kind {
            BinaryKind::Eip8297 => {
                let mut k = vec![0u8; 34];
                k[0] = rng.below(2) as u8;
                k[1] = rng.below(4) as u8 * 0x21;
                k[33] = rng.below(64) as u8;
                k
            }
            _ => {
                // Byte 4 keeps every stem off the all-zero stem, which no witness key has.
                let mut k = [0u8; 32].to_vec();
                k[0] = rng.below(3) as u8;
                k[4] = 1;
                k[5] = rng.below(2) as u8;
                k[30] = rng.below(48) as u8;
                k[31] = rng.below(3) as u8 * 40;
                k
            }
        }
    }

    /// A block of writes, each key once; deletes on EIP-8297 only.
    fn block(rng: &mut Rng, kind: BinaryKind, count: usize) -> Vec<(Vec<u8>, Write)> {
        let mut writes: Vec<(Vec<u8>, Write)> = Vec::new();
        for _ in 0..count {
            let k = key(rng, kind);
            if writes.iter().any(|(w, _)| *w == k) {
                continue;
            }
            let write = match rng.below(10) {
                0 => Write::Unchanged,
                1..=3 if kind == BinaryKind::Eip8297 => Write::Delete,
                _ => Write::Set(rng.bytes32()),
            };
            writes.push((k, write));
        }
        writes
    }

    fn roots_hold_across_reopens(kind: BinaryKind, seed: u64) {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng(seed);
        let mut memory = Memory::new(kind);
        let mut budget = 4;
        let mut state = RocksBinaryState::open_with(dir.path(), kind, config(budget)).unwrap();
        for height in 1..=40u64 {
            let count = rng.below(40) + 1;
            let writes = block(&mut rng, kind, count);
            // The witness from the datadir before the block, byte for byte the memory tree's.
            let proved = state.witness(&writes).unwrap();
            assert_eq!(proved, memory.witness(&writes), "{kind:?} block {height}");
            state.apply(&writes).unwrap();
            memory.apply(&writes);
            assert_eq!(
                state.root().unwrap(),
                memory.root(),
                "{kind:?} block {height}"
            );
            state
                .persist(height, &[(b"block", &height.to_be_bytes())])
                .unwrap();
            assert!(state.loaded_nodes() <= budget);
            if rng.below(3) == 0 {
                drop(state);
                budget = rng.below(8);
                state = RocksBinaryState::open_with(dir.path(), kind, config(budget)).unwrap();
                assert_eq!(state.height(), Some(height));
                assert_eq!(
                    state.meta(b"block").unwrap(),
                    Some(height.to_be_bytes().to_vec())
                );
                assert_eq!(state.root().unwrap(), memory.root());
            }
            let probe = key(&mut rng, kind);
            assert_eq!(state.get(&probe).unwrap(), memory.get(&probe));
        }
    }

    #[test]
    fn eip7864_sha256_datadir_matches_the_memory_tree() {
        roots_hold_across_reopens(BinaryKind::Eip7864Sha256, 1);
    }

    #[test]
    fn eip7864_blake3_datadir_matches_the_memory_tree() {
        roots_hold_across_reopens(BinaryKind::Eip7864Blake3, 2);
    }

    #[test]
    fn eip8297_datadir_matches_the_memory_tree_with_deletes() {
        roots_hold_across_reopens(BinaryKind::Eip8297, 3);
        roots_hold_across_reopens(BinaryKind::Eip8297, 4);
    }

    #[test]
    fn another_kind_or_a_verkle_datadir_does_not_open() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = RocksBinaryState::open(dir.path(), BinaryKind::Eip7864Sha256).unwrap();
        state.apply(&[(vec![1; 32], Write::Set([2; 32]))]).unwrap();
        state.persist(1, &[]).unwrap();
        drop(state);
        for wanted in [BinaryKind::Eip7864Blake3, BinaryKind::Eip8297] {
            let err = RocksBinaryState::open(dir.path(), wanted).unwrap_err();
            assert!(
                matches!(&err, BinaryDatadirError::WrongKind { holds, .. } if holds == "eip7864/sha256"),
                "{err}"
            );
        }
        let verkle = tempfile::tempdir().unwrap();
        drop(verkle::store::RocksStore::open(verkle.path()).unwrap());
        let err = RocksBinaryState::open(verkle.path(), BinaryKind::Eip8297).unwrap_err();
        assert!(matches!(err, BinaryDatadirError::NotBinary { .. }), "{err}");
        assert!(RocksBinaryState::open(dir.path(), BinaryKind::Eip7864Sha256).is_ok());
    }

    /// Rewrites the record under `key` in a closed datadir.
    fn rewrite(dir: &Path, key: &[u8], edit: impl Fn(&mut Vec<u8>)) {
        let db = DB::open_cf(&Options::default(), dir, [CF_NODES, CF_META]).unwrap();
        let cf = db.cf_handle(CF_NODES).unwrap();
        let mut record = db.get_cf(cf, key).unwrap().unwrap();
        edit(&mut record);
        db.put_cf(cf, key, record).unwrap();
    }

    #[test]
    fn a_corrupt_record_is_an_error_naming_it() {
        type Edit = fn(&mut Vec<u8>);
        let edits: [(Edit, &str); 3] = [
            (|r| r.truncate(r.len() - 1), "bytes; the layout needs"),
            (|r| r[0] = 7, "version 7"),
            (|r| r[10] ^= 1, "hashes to"),
        ];
        for (edit, says) in edits {
            let dir = tempfile::tempdir().unwrap();
            let kind = BinaryKind::Eip7864Sha256;
            let mut state = RocksBinaryState::open_with(dir.path(), kind, config(0)).unwrap();
            state
                .apply(&[
                    (vec![0; 32], Write::Set([1; 32])),
                    (vec![0xff; 32], Write::Set([2; 32])),
                ])
                .unwrap();
            state.persist(1, &[]).unwrap();
            drop(state);
            // Depth 1, bit 1: the stem node of the 0xff… key.
            rewrite(dir.path(), &[1, 0x80], edit);
            let mut state = RocksBinaryState::open(dir.path(), kind).unwrap();
            assert_eq!(state.get(&[0; 32]).unwrap(), Some([1; 32]));
            let err = state.get(&[0xff; 32]).unwrap_err().to_string();
            assert!(
                err.contains("node record 0x0180") && err.contains(says),
                "{err}"
            );
        }
    }

    #[test]
    fn many_records_read_at_once_are_the_records_read_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let kind = BinaryKind::Eip7864Sha256;
        let mut state = RocksBinaryState::open_with(dir.path(), kind, config(0)).unwrap();
        let mut rng = Rng(9);
        let writes: Vec<(Vec<u8>, Write)> = (0..3000)
            .map(|_| (rng.bytes32().to_vec(), Write::Set(rng.bytes32())))
            .collect();
        state.apply(&writes).unwrap();
        state.persist(1, &[]).unwrap();
        // Every position of depth 12 and 13 (most hold a record, some none), enough for the
        // read split in two.
        let keys: Vec<Vec<u8>> = (0..1u16 << 12)
            .map(|i| {
                let [a, b] = (i << 4).to_be_bytes();
                vec![12, a, b]
            })
            .chain((0..1u16 << 13).map(|i| {
                let [a, b] = (i << 3).to_be_bytes();
                vec![13, a, b]
            }))
            .collect();
        let asked: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        assert!(asked.len() >= 2 * PARALLEL_MIN_KEYS);
        let nodes = Nodes { db: &state.db };
        let one_by_one: Vec<Option<Vec<u8>>> =
            asked.iter().map(|key| nodes.load(key).unwrap()).collect();
        let present = one_by_one.iter().filter(|r| r.is_some()).count();
        assert!(present > 1000 && present < asked.len(), "{present}");
        for count in [asked.len(), PARALLEL_MIN_KEYS - 1, 3] {
            assert_eq!(
                nodes.load_many(&asked[..count]).unwrap(),
                one_by_one[..count]
            );
        }
    }

    #[test]
    fn an_unwritten_commit_leaves_the_last_height() {
        for kind in [BinaryKind::Eip7864Blake3, BinaryKind::Eip8297] {
            let dir = tempfile::tempdir().unwrap();
            let mut rng = Rng(5);
            let mut state = RocksBinaryState::open_with(dir.path(), kind, config(2)).unwrap();
            let first = block(&mut rng, kind, 30);
            state.apply(&first).unwrap();
            state.persist(1, &[(b"m", b"one")]).unwrap();
            let root = state.root().unwrap();
            let second: Vec<(Vec<u8>, Write)> = first
                .iter()
                .map(|(k, _)| (k.clone(), Write::Set([9; 32])))
                .collect();
            state.apply(&second).unwrap();
            assert_ne!(state.root().unwrap(), root);
            // The block's batch is made and never written (a process stopped before).
            let (batch, records) = state.batch(2, &[(b"m", b"two")]).unwrap();
            assert!(records > 3);
            drop(batch);
            drop(state);
            let mut state = RocksBinaryState::open(dir.path(), kind).unwrap();
            assert_eq!(state.height(), Some(1));
            assert_eq!(state.root().unwrap(), root);
            assert_eq!(state.meta(b"m").unwrap(), Some(b"one".to_vec()));
            for (k, w) in &first {
                let expected = match w {
                    Write::Set(v) => Some(*v),
                    _ => None,
                };
                if *w != Write::Unchanged {
                    assert_eq!(state.get(k).unwrap(), expected);
                }
            }
        }
    }

    #[test]
    fn fifty_thousand_keys_stay_within_the_node_budget() {
        const BUDGET: usize = 1_000;
        let dir = tempfile::tempdir().unwrap();
        let kind = BinaryKind::Eip7864Sha256;
        let mut state = RocksBinaryState::open_with(dir.path(), kind, config(BUDGET)).unwrap();
        let mut rng = Rng(50);
        let keys: Vec<Vec<u8>> = (0..50_000).map(|_| rng.bytes32().to_vec()).collect();
        let writes: Vec<(Vec<u8>, Write)> = keys
            .iter()
            .map(|k| (k.clone(), Write::Set(Sha256::hash(&[k]))))
            .collect();
        state.apply(&writes).unwrap();
        assert!(state.loaded_nodes() > 50_000);
        state.persist(1, &[]).unwrap();
        assert!(state.loaded_nodes() <= BUDGET, "{}", state.loaded_nodes());
        let update: Vec<(Vec<u8>, Write)> = keys
            .iter()
            .step_by(50)
            .map(|k| (k.clone(), Write::Set([3; 32])))
            .collect();
        state.apply(&update).unwrap();
        state.persist(2, &[]).unwrap();
        assert!(state.loaded_nodes() <= BUDGET, "{}", state.loaded_nodes());
        assert_eq!(state.get(&keys[50]).unwrap(), Some([3; 32]));
        assert_eq!(
            state.get(&keys[51]).unwrap(),
            Some(Sha256::hash(&[&keys[51]]))
        );
    }
}
