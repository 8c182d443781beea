//! The canonical EIP-6800 tree: insert / get / delete, batched delta commitments, persistence.
//!
//! Shape (`spec/WIRE.md` §13): the root is an internal node at depth 0; a subtree holding one
//! stem is that stem's leaf node; internal nodes exist only where two or more stems share a
//! prefix. Deleting a stem's last value removes its leaf, and an internal node left with a
//! single leaf child (and nothing else) collapses into it, so after any sequence of
//! operations the root equals the root of a tree built from the final key/value set.
//! Reading or deleting a key whose stem is absent creates no node and computes nothing.
//!
//! Changes only mark nodes; [`Tree::commit`] recomputes the changed paths (see `commit.rs`).

mod commit;
mod evict;
pub mod hypertree;
mod load;
pub mod multi_commit;
mod mutate;
pub(crate) mod node;
mod persist;
mod read;

pub use commit::CommitCounts;

use banderwagon::Element;
use ipa::Committer;

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{Stem, STEM_LEN};
use crate::store::{
    MemoryStore, NodeKind, NodePath, NodeStore, StoredLeaf, StoredNode, META_HEIGHT, META_ROOT,
};
use load::node_from_record;
use node::{Arena, Internal, Node, NodeId, DIRTY};

/// Sizes and cumulative work counters of a tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Nodes held in memory (internal and leaf, including the root).
    pub nodes_in_memory: usize,
    /// Internal nodes held in memory (including the root).
    pub internal_nodes_in_memory: usize,
    /// Nodes read from the store so far.
    pub nodes_loaded: u64,
    /// Nodes evicted from memory so far (see [`TreeConfig::cache_nodes`]).
    pub nodes_evicted: u64,
    /// Commitment work of every commit so far.
    pub commit: CommitCounts,
}

/// How a store-backed tree uses memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeConfig {
    /// The most nodes kept in memory after a persist. Clean nodes beyond it are evicted,
    /// internal nodes kept before leaves, otherwise least recently used first (see
    /// [`Tree::evict`]); they become store handles that
    /// still carry their map-to-field scalar. Between persists the tree also
    /// holds every node the changes since the last persist touched. `usize::MAX`: never
    /// evict.
    pub cache_nodes: usize,
    /// The most bytes the kept nodes may hold after a persist (each node counted by its
    /// slot, child list and values; allocator overhead not included), applied beside
    /// [`TreeConfig::cache_nodes`]. Internal nodes' child lists grow with the state (a
    /// depth-2 node of a 10M-key tree lists ≈ 150 children), so a node count alone lets
    /// memory grow with the state; a byte budget does not. `usize::MAX`: no byte limit.
    pub cache_bytes: usize,
}

impl TreeConfig {
    /// The default node budget: 500,000 nodes.
    pub const DEFAULT_CACHE_NODES: usize = 500_000;

    /// The default byte budget: 384 MiB.
    pub const DEFAULT_CACHE_BYTES: usize = 384 << 20;

    /// Keep every node in memory.
    pub const fn unbounded() -> TreeConfig {
        TreeConfig {
            cache_nodes: usize::MAX,
            cache_bytes: usize::MAX,
        }
    }

    /// A budget of `nodes` nodes and no byte limit.
    pub const fn nodes(nodes: usize) -> TreeConfig {
        TreeConfig {
            cache_nodes: nodes,
            cache_bytes: usize::MAX,
        }
    }
}

impl Default for TreeConfig {
    fn default() -> Self {
        TreeConfig {
            cache_nodes: TreeConfig::DEFAULT_CACHE_NODES,
            cache_bytes: TreeConfig::DEFAULT_CACHE_BYTES,
        }
    }
}

/// The commitments of one leaf node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafCommitments {
    /// `C = G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3`.
    pub commitment: Element,
    /// Commitment to suffixes 0..128.
    pub c1: Element,
    /// Commitment to suffixes 128..256.
    pub c2: Element,
}

/// Where a leaf was found.
enum FoundLeaf {
    Loaded(NodeId),
    Stored(Box<StoredLeaf>),
}

/// An EIP-6800 Verkle tree over a [`NodeStore`].
///
/// Only operations that must read a node from the store can fail. If a mutating call
/// returns an error, the in-memory tree may hold part of that call's change: drop it and
/// [`Tree::open`] the store again.
///
/// ```
/// let mut tree = verkle::Tree::new();
/// tree.insert(&[1u8; 32], [2u8; 32]).unwrap();
/// assert_eq!(tree.get(&[1u8; 32]).unwrap(), Some([2u8; 32]));
/// let state_root: [u8; 32] = tree.root_bytes();
/// # assert_ne!(state_root, [0u8; 32]);
/// ```
#[derive(Debug)]
pub struct Tree<S: NodeStore = MemoryStore> {
    arena: Arena,
    root: NodeId,
    store: S,
    /// Paths of persisted nodes that moved or vanished since the last persist.
    pending_deletes: Vec<NodePath>,
    committer: &'static Committer,
    counts: CommitCounts,
    loads: u64,
    evicted: u64,
    /// Block height as of the last persist (or as opened).
    height: Option<u64>,
    config: TreeConfig,
}

impl Tree<MemoryStore> {
    /// An empty tree over a fresh [`MemoryStore`], keeping every node in memory.
    pub fn new() -> Tree<MemoryStore> {
        Tree::empty_over(MemoryStore::new(), TreeConfig::unbounded())
    }
}

/// An independent copy of an in-memory tree (nodes, store and pending changes). Trees over
/// other stores are not `Clone`: two trees writing one database would corrupt it.
impl Clone for Tree<MemoryStore> {
    fn clone(&self) -> Self {
        Tree {
            arena: self.arena.clone(),
            root: self.root,
            store: self.store.clone(),
            pending_deletes: self.pending_deletes.clone(),
            committer: self.committer,
            counts: self.counts,
            loads: self.loads,
            evicted: self.evicted,
            height: self.height,
            config: self.config,
        }
    }
}

impl Default for Tree<MemoryStore> {
    fn default() -> Self {
        Tree::new()
    }
}

/// The path `stem[..len]` (`len ≤ 31` by construction of every caller).
pub(super) fn stem_path(stem: &Stem, len: usize) -> NodePath {
    NodePath::new(&stem[..len.min(STEM_LEN)]).expect("a stem prefix is at most 31 bytes")
}

impl<S: NodeStore> Tree<S> {
    fn empty_over(store: S, config: TreeConfig) -> Tree<S> {
        let mut arena = Arena::default();
        let root = arena.alloc(Node::Internal(Internal::empty(0)));
        Tree {
            arena,
            root,
            store,
            pending_deletes: Vec::new(),
            committer: Committer::eip6800(),
            counts: CommitCounts::default(),
            loads: 0,
            evicted: 0,
            height: None,
            config,
        }
    }

    /// Opens the tree persisted in `store` (an empty store gives an empty tree). Only the
    /// root is read; other nodes are read when an operation reaches them.
    ///
    /// The root node's commitment must equal the root meta record ([`META_ROOT`]) when one
    /// exists ([`TreeError::RootMismatch`] otherwise); the block height ([`META_HEIGHT`])
    /// is read into [`Tree::height`]. The node cache has the default budget
    /// ([`TreeConfig::default`]).
    pub fn open(store: S) -> Result<Tree<S>, TreeError> {
        Tree::open_with(store, TreeConfig::default())
    }

    /// [`Tree::open`] with a memory configuration.
    pub fn open_with(store: S, config: TreeConfig) -> Result<Tree<S>, TreeError> {
        let mut tree = Tree::empty_over(store, config);
        let stored_root =
            match tree.store.get_meta(META_ROOT).map_err(store_error)? {
                None => None,
                Some(v) => Some(<[u8; 32]>::try_from(v.as_slice()).map_err(|_| {
                    TreeError::CorruptMeta {
                        key: "root",
                        reason: "not 32 bytes",
                    }
                })?),
            };
        tree.height = match tree.store.get_meta(META_HEIGHT).map_err(store_error)? {
            None => None,
            Some(v) => Some(u64::from_be_bytes(v.as_slice().try_into().map_err(
                |_| TreeError::CorruptMeta {
                    key: "height",
                    reason: "not 8 bytes",
                },
            )?)),
        };
        let path = NodePath::root();
        if let Some(bytes) = tree.store.get(&path).map_err(store_error)? {
            let rec = StoredNode::from_bytes(&bytes)
                .map_err(|source| TreeError::CorruptNode { path, source })?;
            if rec.kind() != NodeKind::Internal {
                return Err(TreeError::Inconsistent {
                    path,
                    reason: InconsistencyReason::RootNotInternal,
                });
            }
            tree.loads += 1;
            *tree.arena.get_mut(tree.root) = node_from_record(rec);
        }
        let computed = tree.arena.get(tree.root).commitment().to_bytes();
        if let Some(stored) = stored_root {
            if stored != computed {
                return Err(TreeError::RootMismatch { stored, computed });
            }
        }
        Ok(tree)
    }

    /// The block height written by the last [`Tree::persist_with`] or [`Tree::take_batch`]
    /// (or read by [`Tree::open`]); `None` if none was ever written.
    pub fn height(&self) -> Option<u64> {
        self.height
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Gives the store back (unpersisted changes are lost).
    pub fn into_store(self) -> S {
        self.store
    }

    /// Sizes and work counters.
    pub fn stats(&self) -> TreeStats {
        TreeStats {
            nodes_in_memory: self.arena.live(),
            internal_nodes_in_memory: self.arena.internal_count(),
            nodes_loaded: self.loads,
            nodes_evicted: self.evicted,
            commit: self.counts,
        }
    }

    /// Whether there are changes not yet committed.
    pub fn is_dirty(&self) -> bool {
        self.arena.get(self.root).flags() & DIRTY != 0
    }

    /// Recomputes the commitments of every changed path and returns the root commitment.
    /// Without changes since the last commit this does no work.
    pub fn commit(&mut self) -> Element {
        let c = commit::commit(&mut self.arena, self.root, self.committer);
        self.counts.scalar_muls += c.scalar_muls;
        self.counts.maps_to_field += c.maps_to_field;
        self.counts.leaves += c.leaves;
        self.counts.internal_nodes += c.internal_nodes;
        self.arena.get(self.root).commitment()
    }

    /// The state root a block header carries: the compressed root commitment (commits first).
    /// The empty tree's root is the identity, `00..00`.
    pub fn root_bytes(&mut self) -> [u8; 32] {
        self.commit().to_bytes()
    }
}

pub(super) fn store_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> TreeError {
    TreeError::Store {
        source: Box::new(e),
    }
}

#[cfg(test)]
mod tests {
    use super::mutate::normalize;
    use super::node::ChildRef;
    use super::*;
    use crate::keys::TreeKey;

    /// (internal nodes, sorted stamps of the cached leaves) of a tree.
    fn cache_profile(t: &Tree) -> (usize, Vec<u32>) {
        let mut stamps = Vec::new();
        let mut stack = vec![t.root];
        while let Some(id) = stack.pop() {
            if let Node::Internal(n) = t.arena.get(id) {
                for e in &n.children {
                    if let ChildRef::Loaded(c) = e.child {
                        match t.arena.get(c) {
                            Node::Internal(_) => stack.push(c),
                            Node::Leaf(_) => stamps.push(t.arena.stamp(c)),
                        }
                    }
                }
            }
        }
        stamps.sort_unstable();
        (t.arena.internal_count(), stamps)
    }

    /// Six persisted blocks of 300 scattered keys, in memory.
    fn six_blocks() -> Tree {
        let mut t = Tree::new();
        for b in 0..6u32 {
            t.apply((0..300u32).map(|i| {
                let n = (b * 300 + i).wrapping_mul(2_654_435_761);
                let k: TreeKey = std::array::from_fn(|j| (n >> (j % 4 * 8)) as u8 ^ (j as u8));
                (k, Some([b as u8; 32]))
            }))
            .unwrap();
            t.persist().unwrap();
        }
        t
    }

    #[test]
    fn leaf_eviction_matches_the_general_walk() {
        let mut t = six_blocks();
        let internal = t.arena.internal_count();
        assert!(internal > 100, "{internal}");
        for budget in [
            2 * internal,
            2 * internal + 1,
            2 * internal + 700,
            t.arena.live() - 1,
        ] {
            let mut fast = t.clone();
            let mut walk = t.clone();
            let nodes = super::evict::Budget {
                nodes: budget,
                bytes: usize::MAX,
            };
            fast.evict_leaves(nodes);
            walk.evict_walk(nodes);
            assert_eq!(
                fast.arena.live(),
                budget.min(t.arena.live()),
                "budget {budget}"
            );
            assert_eq!(
                cache_profile(&fast),
                cache_profile(&walk),
                "budget {budget}"
            );
            assert_eq!(fast.stats().nodes_evicted, walk.stats().nodes_evicted);
            assert_eq!(fast.root_bytes(), t.root_bytes());
        }
    }

    /// A byte budget keeps the same kind of prefix as a node budget: the fast leaf pass and
    /// the general walk agree, the kept nodes fit, and the root is unchanged.
    #[test]
    fn byte_budgets_keep_the_most_wanted_nodes_that_fit() {
        let t = six_blocks();
        // Clones allocate lists at their length: measure a clone, as the evictions run on clones.
        let mut t = t.clone();
        let internal = t.arena.internal_bytes();
        let all = t.arena.bytes();
        assert!(internal < all / 2, "{internal} of {all}");
        for bytes in [
            2 * internal,
            2 * internal + 5_000,
            (all + 2 * internal) / 2,
            all - 1,
        ] {
            let budget = super::evict::Budget {
                nodes: usize::MAX,
                bytes,
            };
            let mut fast = t.clone();
            let mut walk = t.clone();
            fast.evict_leaves(budget);
            walk.evict_walk(budget);
            assert!(fast.arena.bytes() <= bytes, "budget {bytes}");
            // Within one leaf of the budget: the next leaf in order did not fit.
            assert!(
                fast.arena.bytes() + 2_000 > bytes,
                "budget {bytes}: kept {} of {all}",
                fast.arena.bytes()
            );
            assert!(fast.arena.live() < t.arena.live());
            assert_eq!(cache_profile(&fast), cache_profile(&walk), "budget {bytes}");
            assert_eq!(fast.stats().nodes_evicted, walk.stats().nodes_evicted);
            assert_eq!(fast.root_bytes(), t.root_bytes());
        }
        // Tighter than the internal nodes: the general walk drops internal nodes too.
        let mut walk = t.clone();
        walk.evict_walk(super::evict::Budget {
            nodes: usize::MAX,
            bytes: internal / 3,
        });
        assert!(walk.arena.bytes() <= internal / 3);
        assert!(walk.arena.internal_count() < t.arena.internal_count());
        assert_eq!(walk.root_bytes(), t.root_bytes());
    }

    fn key(prefix: &[u8], suffix: u8) -> TreeKey {
        let mut k = [0u8; 32];
        k[..prefix.len()].copy_from_slice(prefix);
        k[31] = suffix;
        k
    }

    #[test]
    fn empty_root_is_zero() {
        let mut t = Tree::new();
        assert_eq!(t.root_bytes(), [0u8; 32]);
        assert_eq!(t.stats().commit, CommitCounts::default());
    }

    #[test]
    fn shape_splits_and_collapses() {
        let mut t = Tree::new();
        t.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        assert_eq!(t.stats().nodes_in_memory, 2);
        // Shares two bytes: root → internal(depth 1) → internal(depth 2) → two leaves.
        t.insert(&key(&[1, 2, 4], 0), [2; 32]).unwrap();
        assert_eq!(t.stats().nodes_in_memory, 5);
        assert_eq!(t.stats().internal_nodes_in_memory, 3);
        t.delete(&key(&[1, 2, 4], 0)).unwrap();
        assert_eq!(t.stats().nodes_in_memory, 2);
        let mut fresh = Tree::new();
        fresh.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        assert_eq!(t.root_bytes(), fresh.root_bytes());
    }

    #[test]
    fn clone_is_independent() {
        let mut t = Tree::new();
        t.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        t.insert(&key(&[1, 2, 4], 0), [2; 32]).unwrap();
        let root = t.root_bytes();
        let mut c = t.clone();
        assert_eq!(c.root_bytes(), root);
        c.insert(&key(&[1, 2, 5], 0), [3; 32]).unwrap();
        c.delete(&key(&[1, 2, 3], 0)).unwrap();
        assert_ne!(c.root_bytes(), root);
        assert_eq!(t.root_bytes(), root);
        assert_eq!(t.get(&key(&[1, 2, 3], 0)).unwrap(), Some([1; 32]));
        assert_eq!(t.get(&key(&[1, 2, 5], 0)).unwrap(), None);
    }

    #[test]
    fn normalize_keeps_last_per_suffix() {
        let n = normalize(&[(5, Some([1; 32])), (1, None), (5, None), (1, Some([2; 32]))]);
        assert_eq!(n, vec![(1, Some([2; 32])), (5, None)]);
    }
}
