//! [`ShardedTree`]: the hypertrees, their parallel commit, and the two roots.

use std::collections::BTreeMap;
use std::time::Instant;

use banderwagon::Element;
use ipa::Committer;
use rayon::prelude::*;
use verkle::keys::{TreeKey, Value};
use verkle::store::MemoryStore;
use verkle::Tree;

use crate::canonical::{CanonicalTop, ShardTop};
use crate::coordinator::Coordinator;
use crate::error::FractionalError;
use crate::shard::{ShardConfig, ShardDepth};

/// The tree type of one shard.
pub(crate) type ShardTree = Tree<MemoryStore>;

/// What one [`ShardedTree::apply`] did, with per-phase wall-clock times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyReport {
    /// Writes in the block.
    pub writes: usize,
    /// Shards the block touched.
    pub shards_touched: usize,
    /// Partitioning the writes by shard, µs.
    pub partition_us: u64,
    /// Updating and committing the touched shards (in parallel), µs.
    pub shards_us: u64,
    /// Updating the coordinator root, µs.
    pub coordinator_us: u64,
    /// Updating the canonical root, µs.
    pub canonical_us: u64,
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
fn partition(
    depth: ShardDepth,
    writes: &[(TreeKey, Option<Value>)],
) -> Vec<(u16, Vec<(TreeKey, Option<Value>)>)> {
    let mut order: Vec<(u16, usize)> = writes
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (depth.shard_of(k), i))
        .collect();
    // Stable: writes of one shard keep their order.
    order.sort_by_key(|(s, _)| *s);
    let mut groups: Vec<(u16, Vec<(TreeKey, Option<Value>)>)> = Vec::new();
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
        }
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
        Ok(self.meta.get(key).cloned())
    }

    /// Records the height and the extra meta records (an in-memory tree keeps them in
    /// memory).
    pub fn persist(
        &mut self,
        height: u64,
        extra_meta: &[(&[u8], &[u8])],
    ) -> Result<(), FractionalError> {
        for (k, v) in extra_meta {
            self.meta.insert(k.to_vec(), v.to_vec());
        }
        self.height = Some(height);
        Ok(())
    }

    /// The value at `key`, if present.
    pub fn get(&self, key: &TreeKey) -> Result<Option<Value>, FractionalError> {
        let shard = self.config.depth.shard_of(key);
        match self.shards.get(usize::from(shard)).and_then(|s| s.as_ref()) {
            None => Ok(None),
            Some(tree) => tree
                .get(key)
                .map_err(|source| FractionalError::Tree { shard, source }),
        }
    }

    /// Applies a block's writes (`Some` = set, `None` = delete; the last write of a key
    /// wins): partitions them by shard, updates and commits the touched shards in parallel
    /// (each shard's tree is its own; no lock is shared), then updates the coordinator root
    /// (only the touched leaves' paths) and the canonical root (by deltas).
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
        for (s, _) in &groups {
            if let Some(slot) = self.shards.get_mut(usize::from(*s)) {
                if slot.is_none() {
                    *slot = Some(Box::new(Tree::new()));
                }
            }
        }
        // Pair each group with its shard's tree (both in shard order).
        let mut work: Vec<(u16, &mut ShardTree, Vec<(TreeKey, Option<Value>)>)> =
            Vec::with_capacity(groups.len());
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
        let results: Vec<Result<(u16, ShardTop), FractionalError>> = work
            .into_par_iter()
            .map(|(s, tree, w)| {
                let err = |source| FractionalError::Tree { shard: s, source };
                tree.apply(w).map_err(err)?;
                let top = tree.subtree_top(depth.prefix(s)).map_err(err)?;
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
        let shards_us = micros(start);
        self.update_roots(&changed)
            .map(|(coordinator_us, canonical_us)| ApplyReport {
                writes: writes.len(),
                shards_touched: changed.len(),
                partition_us,
                shards_us,
                coordinator_us,
                canonical_us,
            })
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

/// The [`ShardTop`] of a subtree top.
pub(crate) fn shard_top(top: Option<verkle::tree::subtree::SubtreeTop>) -> ShardTop {
    match top {
        None => ShardTop::empty(),
        Some(t) => ShardTop {
            kind: Some(t.kind),
            commitment: t.commitment,
            mtf: t.mtf,
            compressed: t.commitment.to_bytes(),
        },
    }
}
