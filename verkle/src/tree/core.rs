//! The [`Tree`] type: its fields, memory configuration and statistics, opening a store, and
//! committing.

use banderwagon::Element;
use ipa::Committer;

use super::commit::{self, CommitCounts};
use super::node::{node_from_record, Arena, Internal, Node, NodeId, DIRTY};
use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{Stem, STEM_LEN};
use crate::store::{
    MemoryStore, NodeKind, NodePath, NodeStore, StoredLeaf, StoredNode, META_HEIGHT, META_ROOT,
};

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
pub(super) enum FoundLeaf {
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
    pub(super) arena: Arena,
    pub(super) root: NodeId,
    pub(super) store: S,
    /// Paths of persisted nodes that moved or vanished since the last persist.
    pub(super) pending_deletes: Vec<NodePath>,
    pub(super) committer: &'static Committer,
    pub(super) counts: CommitCounts,
    pub(super) loads: u64,
    pub(super) evicted: u64,
    /// Block height as of the last persist (or as opened).
    pub(super) height: Option<u64>,
    pub(super) config: TreeConfig,
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
