//! [`ShardedTree`]: the hypertrees, their parallel commit, and the two roots.

use std::collections::{BTreeMap, BTreeSet};
#[cfg(feature = "rocksdb")]
use std::path::Path;
use std::time::Instant;

#[cfg(feature = "rocksdb")]
use banderwagon::fr_from_le_bytes_canonical;
use banderwagon::{fr_to_le_bytes, Element};
use ipa::Committer;
use rayon::prelude::*;
use verkle::keys::{TreeKey, Value};
use verkle::store::{MemoryStore, NodeBatch, NodeKind};
#[cfg(feature = "rocksdb")]
use verkle::store::{RocksConfig, RocksStore};

use crate::db::{Db, StoreError};
use verkle::{Tree, TreeConfig};

use crate::canonical::{CanonicalTop, ShardTop};
use crate::coordinator::Coordinator;
use crate::error::FractionalError;
use crate::shard::{ShardConfig, ShardDepth};
use crate::store::ShardStore;

/// One write of a block: `Some` sets, `None` deletes.
pub(crate) type Write = (TreeKey, Option<Value>);

/// The tree type of one shard.
pub(crate) type ShardTree = Tree<ShardStore>;

/// Meta key of the shard depth (1 byte).
const META_DEPTH: &[u8] = b"f/depth";
/// Meta key of the block height (8 bytes, big-endian).
const META_HEIGHT: &[u8] = b"f/height";
/// Meta key of the canonical root (32 bytes).
const META_ROOT: &[u8] = b"f/root";
/// Meta-key prefix of a shard's top: `"f/t" ‖ u16_be(shard)` → kind byte (0 empty,
/// 1 internal, 2 leaf) ‖ `compress(C_i)` ‖ `mtf(C_i)` (32 bytes little-endian).
const META_TOP: &[u8] = b"f/t";
/// Meta-key prefix of the caller's records.
const META_USER: &[u8] = b"u/";

fn meta_key(prefix: &[u8], rest: &[u8]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    k.extend_from_slice(rest);
    k
}

fn store_err(e: StoreError) -> FractionalError {
    FractionalError::Store(Box::new(e))
}

fn encode_top(t: &ShardTop) -> Vec<u8> {
    let mut v = Vec::with_capacity(65);
    v.push(match t.kind {
        None => 0,
        Some(NodeKind::Internal) => 1,
        Some(NodeKind::Leaf) => 2,
    });
    v.extend_from_slice(&t.compressed);
    v.extend_from_slice(&fr_to_le_bytes(&t.mtf));
    v
}

#[cfg(feature = "rocksdb")]
fn decode_top(key: &[u8], v: &[u8]) -> Result<ShardTop, FractionalError> {
    let corrupt = |reason| FractionalError::CorruptMeta {
        key: key.iter().map(|b| format!("{b:02x}")).collect(),
        reason,
    };
    if v.len() != 65 {
        return Err(corrupt("shard top is not 65 bytes"));
    }
    let kind = match v[0] {
        0 => None,
        1 => Some(NodeKind::Internal),
        2 => Some(NodeKind::Leaf),
        _ => return Err(corrupt("unknown node kind")),
    };
    let mut compressed = [0u8; 32];
    compressed.copy_from_slice(&v[1..33]);
    let mtf =
        fr_from_le_bytes_canonical(&v[33..65]).map_err(|_| corrupt("scalar not canonical"))?;
    Ok(ShardTop {
        kind,
        mtf,
        compressed,
    })
}

/// What one [`ShardedTree::apply`] did, with the wall-clock time of each phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyReport {
    /// Writes in the block.
    pub writes: usize,
    /// Shards the block touched.
    pub shards_touched: usize,
    /// Partitioning the writes by shard, µs.
    pub partition_us: u64,
    /// Applying the writes to the touched shards (reading their nodes from the store and
    /// updating them, the shards in parallel), µs.
    pub update_us: u64,
    /// Committing the touched shards (in parallel), µs.
    pub commit_us: u64,
    /// Updating the coordinator root, µs.
    pub coordinator_us: u64,
    /// Updating the canonical root, µs.
    pub canonical_us: u64,
}

impl ApplyReport {
    /// Time spent applying the writes (partition and update), µs.
    pub fn apply_us(&self) -> u64 {
        self.partition_us.saturating_add(self.update_us)
    }

    /// Time spent on commitments (the shards' commit and both roots), µs.
    pub fn commitment_us(&self) -> u64 {
        self.commit_us
            .saturating_add(self.coordinator_us)
            .saturating_add(self.canonical_us)
    }
}

/// A Verkle tree split into hypertrees by stem prefix, with a canonical EIP-6800 root and a
/// coordinator Merkle root over the shard commitments.
///
/// ```
/// use fractional::{ShardConfig, ShardedTree};
/// let mut tree = ShardedTree::in_memory(ShardConfig::default());
/// tree.apply(&[([1u8; 32], Some([2u8; 32]))]).unwrap();
/// let mut single = verkle::Tree::new();
/// single.insert(&[1u8; 32], [2u8; 32]).unwrap();
/// assert_eq!(tree.canonical_root(), single.root_bytes());
/// ```
pub struct ShardedTree {
    pub(crate) config: ShardConfig,
    /// One tree per shard, created when the shard is first touched.
    pub(crate) shards: Vec<Option<Box<ShardTree>>>,
    /// Every shard's top.
    pub(crate) tops: Vec<ShardTop>,
    pub(crate) canonical: CanonicalTop,
    canonical_bytes: [u8; 32],
    pub(crate) coordinator: Coordinator,
    height: Option<u64>,
    meta: BTreeMap<Vec<u8>, Vec<u8>>,
    /// The shared database, for a store-backed tree.
    db: Option<Db>,
    /// Shards changed since the last persist.
    unsaved: BTreeSet<u16>,
    /// The report of the last successful [`ShardedTree::apply`].
    last_apply: Option<ApplyReport>,
}

impl std::fmt::Debug for ShardedTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedTree")
            .field("config", &self.config)
            .field("canonical_root", &hex_bytes(&self.canonical_bytes))
            .field("coordinator_root", &hex_bytes(&self.coordinator.root()))
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Groups writes by shard, each group in write order (so the last write of a key wins).
fn partition(depth: ShardDepth, writes: &[Write]) -> Vec<(u16, Vec<Write>)> {
    let mut order: Vec<(u16, usize)> = writes
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (depth.shard_of(k), i))
        .collect();
    // Stable: writes of one shard keep their order.
    order.sort_by_key(|(s, _)| *s);
    let mut groups: Vec<(u16, Vec<Write>)> = Vec::new();
    for (s, i) in order {
        let Some(w) = writes.get(i) else { continue };
        match groups.last_mut() {
            Some((last, g)) if *last == s => g.push(*w),
            _ => groups.push((s, vec![*w])),
        }
    }
    groups
}

fn micros(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

impl ShardedTree {
    /// An empty tree held in memory.
    pub fn in_memory(config: ShardConfig) -> ShardedTree {
        let count = config.depth.shard_count();
        ShardedTree {
            config,
            shards: (0..count).map(|_| None).collect(),
            tops: vec![ShardTop::empty(); count],
            canonical: CanonicalTop::empty(config.depth),
            canonical_bytes: [0u8; 32],
            coordinator: Coordinator::empty(count),
            height: None,
            meta: BTreeMap::new(),
            db: None,
            unsaved: BTreeSet::new(),
            last_apply: None,
        }
    }

    /// Opens (creating if needed) the tree kept in the RocksDB database in `dir`: reads
    /// every shard's top from the meta records, rebuilds both roots from them and checks
    /// the canonical root against the stored one. Shard trees are opened when first
    /// touched, each with its share of the node-cache budget
    /// ([`ShardConfig::shard_cache_nodes`]); [`ShardedTree::persist`] evicts every persisted
    /// shard back to that share.
    #[cfg(feature = "rocksdb")]
    pub fn open(dir: &Path, config: ShardConfig) -> Result<ShardedTree, FractionalError> {
        ShardedTree::open_with(dir, config, &RocksConfig::default())
    }

    /// [`ShardedTree::open`] with RocksDB tuned by `rocks` (block cache, memtables,
    /// durability, memory-mapped reads).
    #[cfg(feature = "rocksdb")]
    pub fn open_with(
        dir: &Path,
        config: ShardConfig,
        rocks: &RocksConfig,
    ) -> Result<ShardedTree, FractionalError> {
        let db = RocksStore::open_with(dir, rocks).map_err(store_err)?;
        let depth = config.depth;
        if let Some(v) = db.get_meta(META_DEPTH).map_err(store_err)? {
            let stored = v.first().copied().unwrap_or(0);
            if v.len() != 1 || stored != depth.to_byte() {
                return Err(FractionalError::DepthMismatch {
                    stored,
                    requested: depth.to_byte(),
                });
            }
        }
        let count = depth.shard_count();
        let mut tops = Vec::with_capacity(count);
        for s in 0..count {
            let key = meta_key(META_TOP, &(s as u16).to_be_bytes());
            tops.push(match db.get_meta(&key).map_err(store_err)? {
                None => ShardTop::empty(),
                Some(v) => decode_top(&key, &v)?,
            });
        }
        let canonical = CanonicalTop::from_tops(depth, &tops, Committer::eip6800());
        let canonical_bytes = canonical.root().to_bytes();
        if let Some(v) = db.get_meta(META_ROOT).map_err(store_err)? {
            if v.as_slice() != canonical_bytes {
                return Err(FractionalError::CorruptMeta {
                    key: "f/root".into(),
                    reason: "the stored canonical root differs from the shard tops' root",
                });
            }
        }
        let height = match db.get_meta(META_HEIGHT).map_err(store_err)? {
            None => None,
            Some(v) => Some(u64::from_be_bytes(v.as_slice().try_into().map_err(
                |_| FractionalError::CorruptMeta {
                    key: "f/height".into(),
                    reason: "not 8 bytes",
                },
            )?)),
        };
        let commitments: Vec<[u8; 32]> = tops.iter().map(|t| t.compressed).collect();
        Ok(ShardedTree {
            config,
            shards: (0..count).map(|_| None).collect(),
            tops,
            canonical,
            canonical_bytes,
            coordinator: Coordinator::build(&commitments),
            height,
            meta: BTreeMap::new(),
            db: Some(db),
            unsaved: BTreeSet::new(),
            last_apply: None,
        })
    }

    /// The store a new or reopened tree of `shard` uses.
    // Without a database the `Some` arm cannot be reached (its type is uninhabited).
    #[cfg_attr(not(feature = "rocksdb"), allow(unreachable_code, unused_variables))]
    fn shard_store(&self, shard: u16) -> ShardStore {
        match &self.db {
            None => ShardStore::Memory(MemoryStore::new()),
            Some(db) => ShardStore::Rocks {
                db: db.clone(),
                shard,
                depth: self.config.depth.bytes(),
            },
        }
    }

    /// Opens the tree of `shard` from the store (an empty tree in memory).
    fn open_shard(&self, shard: u16) -> Result<ShardTree, FractionalError> {
        let config = TreeConfig {
            cache_nodes: self.config.shard_cache_nodes(),
            cache_bytes: self.config.shard_cache_bytes(),
        };
        Tree::open_with(self.shard_store(shard), config)
            .map_err(|source| FractionalError::Tree { shard, source })
    }

    /// Makes sure the trees of `shards` are open. Sequential on purpose: opening a tree
    /// may initialise process-wide tables (`OnceLock`s whose initialisers use rayon), and
    /// doing that from several rayon workers at once can deadlock. Only a shard's first
    /// touch opens it (a few reads); the node loads of `apply` run in parallel.
    pub(crate) fn ensure_open(&mut self, shards: &[u16]) -> Result<(), FractionalError> {
        for &s in shards {
            if matches!(self.shards.get(usize::from(s)), Some(None)) {
                let t = self.open_shard(s)?;
                if let Some(slot) = self.shards.get_mut(usize::from(s)) {
                    *slot = Some(Box::new(t));
                }
            }
        }
        Ok(())
    }

    /// Nodes held in memory by all open shard trees (what [`ShardConfig::cache_nodes`]
    /// bounds after each [`ShardedTree::persist`] of a store-backed tree).
    pub fn cached_nodes(&self) -> usize {
        self.shards
            .iter()
            .flatten()
            .map(|t| t.stats().nodes_in_memory)
            .sum()
    }

    /// Bytes held by the node caches of all open shard trees (what
    /// [`ShardConfig::cache_bytes`] bounds after each [`ShardedTree::persist`]).
    pub fn cached_bytes(&self) -> usize {
        self.shards.iter().flatten().map(|t| t.cache_bytes()).sum()
    }

    /// The configuration.
    pub fn config(&self) -> &ShardConfig {
        &self.config
    }

    /// The canonical EIP-6800 state root: what a single tree over the same key/value set
    /// has, and what standard witnesses verify against.
    pub fn canonical_root(&self) -> [u8; 32] {
        self.canonical_bytes
    }

    /// The root commitment (uncompressed form of [`ShardedTree::canonical_root`]).
    pub fn canonical_commitment(&self) -> Element {
        self.canonical.root()
    }

    /// The coordinator root: the SHA-256 Merkle root over the shard commitments, what
    /// fractional proofs verify against.
    pub fn coordinator_root(&self) -> [u8; 32] {
        self.coordinator.root()
    }

    /// The compressed commitment `C_i` of shard `index` (the identity, 32 zero bytes, when
    /// the shard is empty or out of range).
    pub fn shard_commitment(&self, index: u16) -> [u8; 32] {
        self.tops
            .get(usize::from(index))
            .map_or([0u8; 32], |t| t.compressed)
    }

    /// The block height of the last [`ShardedTree::persist`], if any.
    pub fn height(&self) -> Option<u64> {
        self.height
    }

    /// A meta record written by [`ShardedTree::persist`].
    pub fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, FractionalError> {
        match &self.db {
            None => Ok(self.meta.get(key).cloned()),
            Some(db) => db.get_meta(&meta_key(META_USER, key)).map_err(store_err),
        }
    }

    /// Writes every shard changed since the last persist, the shard tops, the canonical
    /// root, the `height` and the caller's `extra_meta` records in **one** atomic RocksDB
    /// write (the touched shards' batches merged), then evicts each written shard's node
    /// cache back to its share of [`ShardConfig::cache_nodes`] (in parallel). An in-memory
    /// tree only records the height and meta (and evicts nothing: its nodes live nowhere
    /// else). If the write fails, drop the tree and [`ShardedTree::open`] again.
    pub fn persist(
        &mut self,
        height: u64,
        extra_meta: &[(&[u8], &[u8])],
    ) -> Result<(), FractionalError> {
        let Some(db) = self.db.clone() else {
            for (k, v) in extra_meta {
                self.meta.insert(k.to_vec(), v.to_vec());
            }
            self.height = Some(height);
            return Ok(());
        };
        let unsaved: Vec<u16> = std::mem::take(&mut self.unsaved).into_iter().collect();
        let mut work: Vec<(u16, &mut ShardTree)> = Vec::with_capacity(unsaved.len());
        let mut wanted = unsaved.iter().peekable();
        for (i, slot) in self.shards.iter_mut().enumerate() {
            if wanted.peek().is_some_and(|&&s| usize::from(s) == i) {
                wanted.next();
                if let Some(t) = slot.as_deref_mut() {
                    work.push((i as u16, t));
                }
            }
        }
        let batches: Vec<Result<NodeBatch, FractionalError>> = work
            .par_iter_mut()
            .map(|(s, t)| {
                let shard = *s;
                let b = t
                    .take_batch(height, &[])
                    .map_err(|source| FractionalError::Tree { shard, source })?;
                Ok(t.store().remap(b))
            })
            .collect();
        let mut batch = NodeBatch::default();
        for b in batches {
            batch.extend(b?);
        }
        for &s in &unsaved {
            if let Some(t) = self.tops.get(usize::from(s)) {
                batch
                    .meta
                    .push((meta_key(META_TOP, &s.to_be_bytes()), encode_top(t)));
            }
        }
        batch
            .meta
            .push((META_DEPTH.to_vec(), vec![self.config.depth.to_byte()]));
        batch
            .meta
            .push((META_HEIGHT.to_vec(), height.to_be_bytes().to_vec()));
        batch
            .meta
            .push((META_ROOT.to_vec(), self.canonical_bytes.to_vec()));
        for (k, v) in extra_meta {
            batch.meta.push((meta_key(META_USER, k), v.to_vec()));
        }
        db.write_batch(&batch).map_err(store_err)?;
        work.into_par_iter().for_each(|(_, t)| t.evict());
        self.height = Some(height);
        Ok(())
    }

    /// The value at `key`, if present.
    pub fn get(&self, key: &TreeKey) -> Result<Option<Value>, FractionalError> {
        let shard = self.config.depth.shard_of(key);
        let err = |source| FractionalError::Tree { shard, source };
        match self.shards.get(usize::from(shard)).and_then(|s| s.as_ref()) {
            Some(tree) => tree.get(key).map_err(err),
            None if self.db.is_none() => Ok(None),
            None => self.open_shard(shard)?.get(key).map_err(err),
        }
    }

    /// Applies a block's writes (`Some` = set, `None` = delete; the last write of a key
    /// wins): partitions them by shard, updates the touched shards in parallel (each
    /// shard's tree is its own; no lock is shared), commits them together (each phase of the
    /// commit one parallel batch over all touched shards, see
    /// [`verkle::tree::multi_commit::commit_many`]), then updates the coordinator root (only the
    /// touched leaves' paths) and the canonical root (by deltas). The report gives each
    /// phase's wall time.
    ///
    /// On error the touched shards may hold part of the block; drop the tree and reopen.
    pub fn apply(
        &mut self,
        writes: &[(TreeKey, Option<Value>)],
    ) -> Result<ApplyReport, FractionalError> {
        let depth = self.config.depth;
        let start = Instant::now();
        let groups = partition(depth, writes);
        let partition_us = micros(start);

        let start = Instant::now();
        let touched: Vec<u16> = groups.iter().map(|(s, _)| *s).collect();
        self.ensure_open(&touched)?;
        self.unsaved.extend(touched.iter().copied());
        // Pair each group with its shard's tree (both in shard order).
        let mut work: Vec<(u16, &mut ShardTree, Vec<Write>)> = Vec::with_capacity(groups.len());
        let mut trees = self.shards.iter_mut().enumerate();
        for (s, w) in groups {
            for (i, slot) in trees.by_ref() {
                if i == usize::from(s) {
                    if let Some(t) = slot.as_deref_mut() {
                        work.push((s, t, w));
                    }
                    break;
                }
            }
        }
        // Phase 1: load and update the touched shards; phase 2: commit them. Two parallel
        // passes, so each phase's wall time is its own.
        let updated: Vec<Result<(), FractionalError>> = work
            .par_iter_mut()
            .map(|(s, tree, w)| {
                let shard = *s;
                tree.apply(std::mem::take(w))
                    .map_err(|source| FractionalError::Tree { shard, source })
            })
            .collect();
        updated
            .into_iter()
            .collect::<Result<(), FractionalError>>()?;
        let update_us = micros(start);

        // The touched shards are committed together: each phase of the commit (leaves,
        // then each depth) is one batch over all of them.
        let start = Instant::now();
        let mut trees: Vec<&mut ShardTree> = work.iter_mut().map(|(_, t, _)| &mut **t).collect();
        verkle::tree::multi_commit::commit_many(&mut trees);
        drop(trees);
        let results: Vec<Result<(u16, ShardTop), FractionalError>> = work
            .into_par_iter()
            .map(|(s, tree, _)| {
                let top = tree
                    .hypertree_top(depth.prefix(s))
                    .map_err(|source| FractionalError::Tree { shard: s, source })?;
                Ok((s, shard_top(top)))
            })
            .collect();
        let mut changed: Vec<u16> = Vec::with_capacity(results.len());
        for r in results {
            let (s, top) = r?;
            if let Some(slot) = self.tops.get_mut(usize::from(s)) {
                *slot = top;
            }
            changed.push(s);
        }
        let commit_us = micros(start);
        let (coordinator_us, canonical_us) = self.update_roots(&changed)?;
        let report = ApplyReport {
            writes: writes.len(),
            shards_touched: changed.len(),
            partition_us,
            update_us,
            commit_us,
            coordinator_us,
            canonical_us,
        };
        self.last_apply = Some(report);
        Ok(report)
    }

    /// The report of the last successful [`ShardedTree::apply`] (`None` before the first):
    /// for a caller that times `apply` as a whole, how that time splits into applying the
    /// writes ([`ApplyReport::apply_us`]) and committing ([`ApplyReport::commitment_us`]).
    pub fn last_apply(&self) -> Option<ApplyReport> {
        self.last_apply
    }

    /// Moves both roots to the current tops of the shards `changed` (ascending); returns the
    /// time of each, µs.
    fn update_roots(&mut self, changed: &[u16]) -> Result<(u64, u64), FractionalError> {
        let start = Instant::now();
        let leaves: Vec<(u16, [u8; 32])> = changed
            .iter()
            .filter_map(|&s| self.tops.get(usize::from(s)).map(|t| (s, t.compressed)))
            .collect();
        self.coordinator.update(&leaves);
        let coordinator_us = micros(start);
        let start = Instant::now();
        self.canonical
            .update(&self.tops, changed, Committer::eip6800());
        self.canonical_bytes = self.canonical.root().to_bytes();
        Ok((coordinator_us, micros(start)))
    }
}

/// The [`ShardTop`] of a hypertree top.
pub(crate) fn shard_top(top: Option<verkle::tree::hypertree::HypertreeTop>) -> ShardTop {
    match top {
        None => ShardTop::empty(),
        Some(t) => ShardTop {
            kind: Some(t.kind),
            mtf: t.mtf,
            compressed: t.commitment.to_bytes(),
        },
    }
}
