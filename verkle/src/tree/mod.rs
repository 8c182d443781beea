//! The canonical EIP-6800 tree: insert / get / delete, batched delta commitments, persistence.
//!
//! Shape (verkle-facts §3): the root is an internal node at depth 0; a subtree holding one
//! stem is that stem's leaf node; internal nodes exist only where two or more stems share a
//! prefix. Deleting a stem's last value removes its leaf, and an internal node left with a
//! single leaf child (and nothing else) collapses into it, so after any sequence of
//! operations the root equals the root of a tree built from the final key/value set.
//! Reading or deleting a key whose stem is absent creates no node and computes nothing.
//!
//! Changes only mark nodes; [`Tree::commit`] recomputes the changed paths (see `commit.rs`).

mod commit;
pub(crate) mod node;
pub mod prefix;
pub mod subtree;

pub use commit::CommitCounts;

use std::collections::{BinaryHeap, HashSet};

use banderwagon::arith::Zero;
use banderwagon::{Element, Fr};
use ipa::Committer;
use rayon::prelude::*;

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{split_key, Stem, TreeKey, Value, STEM_LEN};
use crate::store::{
    MemoryStore, NodeBatch, NodeKind, NodePath, NodeStore, StoredChild, StoredInternal, StoredLeaf,
    StoredNode, META_HEIGHT, META_ROOT,
};
use node::{Arena, ChildEntry, ChildRef, Internal, Leaf, Node, NodeId, DIRTY, PERSISTED, UNSAVED};

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
}

impl TreeConfig {
    /// The default node budget: 500,000 nodes (a few hundred MB).
    pub const DEFAULT_CACHE_NODES: usize = 500_000;

    /// Keep every node in memory.
    pub const fn unbounded() -> TreeConfig {
        TreeConfig {
            cache_nodes: usize::MAX,
        }
    }
}

impl Default for TreeConfig {
    fn default() -> Self {
        TreeConfig {
            cache_nodes: TreeConfig::DEFAULT_CACHE_NODES,
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

/// The net change per suffix: sorted by suffix, the last change of each suffix kept.
fn normalize(changes: &[(u8, Option<Value>)]) -> Vec<(u8, Option<Value>)> {
    let mut v = changes.to_vec();
    v.sort_by_key(|(s, _)| *s);
    let mut out: Vec<(u8, Option<Value>)> = Vec::with_capacity(v.len());
    for c in v {
        match out.last_mut() {
            Some(last) if last.0 == c.0 => *last = c,
            _ => out.push(c),
        }
    }
    out
}

/// The path `stem[..len]` (`len ≤ 31` by construction of every caller).
fn stem_path(stem: &Stem, len: usize) -> NodePath {
    NodePath::new(&stem[..len.min(STEM_LEN)]).expect("a stem prefix is at most 31 bytes")
}

/// The node of a record read for the child at `path`, checked against what its parent
/// says (`kind`, map-to-field scalar `mtf`).
fn checked_node(
    path: NodePath,
    kind: NodeKind,
    mtf: Fr,
    rec: StoredNode,
) -> Result<Node, TreeError> {
    let inconsistent = |reason| TreeError::Inconsistent { path, reason };
    if rec.kind() != kind {
        return Err(inconsistent(InconsistencyReason::KindMismatch {
            expected: kind,
            found: rec.kind(),
        }));
    }
    if rec.mtf() != mtf {
        return Err(inconsistent(InconsistencyReason::CommitmentMismatch));
    }
    if let StoredNode::Leaf(l) = &rec {
        if !l.stem.starts_with(path.as_bytes()) {
            return Err(inconsistent(InconsistencyReason::StemOffPath));
        }
    }
    Ok(node_from_record(rec))
}

fn node_from_record(rec: StoredNode) -> Node {
    match rec {
        StoredNode::Internal(n) => Node::Internal(Internal {
            children: n
                .children
                .into_iter()
                .map(|c| ChildEntry {
                    index: c.index,
                    child: ChildRef::Stored(c.kind),
                    committed: c.mtf,
                })
                .collect(),
            commitment: n.commitment,
            mtf: n.mtf,
            removed: Vec::new(),
            flags: PERSISTED,
        }),
        StoredNode::Leaf(l) => Node::Leaf(Box::new(Leaf::from_stored(l))),
    }
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

    fn read_record(&self, path: &NodePath) -> Result<StoredNode, TreeError> {
        let bytes = self
            .store
            .get(path)
            .map_err(|e| TreeError::Store {
                source: Box::new(e),
            })?
            .ok_or(TreeError::MissingNode { path: *path })?;
        StoredNode::from_bytes(&bytes).map_err(|source| TreeError::CorruptNode {
            path: *path,
            source,
        })
    }

    /// Reads the child at `path` into the arena, checking it against what its parent says.
    fn load(&mut self, path: NodePath, kind: NodeKind, mtf: Fr) -> Result<NodeId, TreeError> {
        let rec = self.read_record(&path)?;
        let node = checked_node(path, kind, mtf, rec)?;
        self.loads += 1;
        Ok(self.arena.alloc(node))
    }

    /// Before a batch of writes: reads, level by level, every stored node the descents of
    /// `stems` (sorted) will reach, with one batched store read per level and the records
    /// decoded in parallel. Nodes already in memory are not read again.
    fn prefetch(&mut self, stems: &[Stem]) -> Result<(), TreeError> {
        // Where each stem's descent stopped at a stored child: (stem, node, depth). The
        // next level resumes there instead of walking down from the root again.
        let mut cursors: Vec<(&Stem, NodeId, usize)> =
            stems.iter().map(|s| (s, self.root, 0usize)).collect();
        loop {
            // (parent, slot position, child path, kind, committed scalar) of each stored
            // child a descent stops at.
            let mut frontier: Vec<(NodeId, usize, NodePath, NodeKind, Fr)> = Vec::new();
            let mut waiting = Vec::with_capacity(cursors.len());
            for (stem, mut cur, mut depth) in cursors.drain(..) {
                while depth < STEM_LEN {
                    let n = self.arena.internal(cur);
                    let Ok(pos) = n.find(stem[depth]) else {
                        break;
                    };
                    let e = &n.children[pos];
                    match e.child {
                        ChildRef::Loaded(id) => match self.arena.get(id) {
                            Node::Internal(_) => {
                                cur = id;
                                depth += 1;
                            }
                            Node::Leaf(_) => break,
                        },
                        ChildRef::Stored(kind) => {
                            if frontier.last().map(|f| (f.0, f.1)) != Some((cur, pos)) {
                                frontier.push((
                                    cur,
                                    pos,
                                    stem_path(stem, depth + 1),
                                    kind,
                                    e.committed,
                                ));
                            }
                            waiting.push((stem, cur, depth));
                            break;
                        }
                    }
                }
            }
            cursors = waiting;
            if frontier.is_empty() {
                return Ok(());
            }
            let paths: Vec<NodePath> = frontier.iter().map(|f| f.2).collect();
            let read = self.store.get_many(&paths);
            let nodes: Vec<Result<Node, TreeError>> = frontier
                .par_iter()
                .zip(read)
                .map(|(&(_, _, path, kind, mtf), bytes)| {
                    let bytes = bytes
                        .map_err(store_error)?
                        .ok_or(TreeError::MissingNode { path })?;
                    let rec = StoredNode::from_bytes(&bytes)
                        .map_err(|source| TreeError::CorruptNode { path, source })?;
                    checked_node(path, kind, mtf, rec)
                })
                .collect();
            for ((parent, pos, ..), node) in frontier.into_iter().zip(nodes) {
                let id = self.arena.alloc(node?);
                self.loads += 1;
                self.arena.internal_mut(parent).children[pos].child = ChildRef::Loaded(id);
            }
        }
    }

    /// The node arena, read-only (for the prover in `crate::proof`).
    pub(crate) fn arena(&self) -> &Arena {
        &self.arena
    }

    /// The root's arena id.
    pub(crate) fn root_id(&self) -> NodeId {
        self.root
    }

    /// Child slot `pos` of the internal node `parent`, whose path is `child_path`: its arena
    /// id, read from the store first if it is not in memory (as a descent for a write would).
    pub(crate) fn load_child(
        &mut self,
        parent: NodeId,
        pos: usize,
        child_path: NodePath,
    ) -> Result<NodeId, TreeError> {
        let entry = &self.arena.internal(parent).children[pos];
        match entry.child {
            ChildRef::Loaded(id) => Ok(id),
            ChildRef::Stored(kind) => {
                let committed = entry.committed;
                let id = self.load(child_path, kind, committed)?;
                self.arena.internal_mut(parent).children[pos].child = ChildRef::Loaded(id);
                Ok(id)
            }
        }
    }

    /// The value at `key`, if present. Does not change the tree; nodes not in memory are
    /// read from the store without being cached.
    pub fn get(&self, key: &TreeKey) -> Result<Option<Value>, TreeError> {
        let (stem, suffix) = split_key(key);
        Ok(match self.find_leaf(&stem)? {
            None => None,
            Some(FoundLeaf::Loaded(id)) => self.arena.leaf(id).get(suffix).copied(),
            Some(FoundLeaf::Stored(l)) => l
                .values
                .binary_search_by_key(&suffix, |(s, _)| *s)
                .ok()
                .map(|i| l.values[i].1),
        })
    }

    /// The commitments of the leaf of `stem` (commits pending changes first); `None` if
    /// the stem is absent.
    pub fn leaf_commitments(&mut self, stem: &Stem) -> Result<Option<LeafCommitments>, TreeError> {
        self.commit();
        Ok(match self.find_leaf(stem)? {
            None => None,
            Some(FoundLeaf::Loaded(id)) => {
                let l = self.arena.leaf(id);
                Some(LeafCommitments {
                    commitment: l.commitment,
                    c1: l.c1,
                    c2: l.c2,
                })
            }
            Some(FoundLeaf::Stored(l)) => Some(LeafCommitments {
                commitment: l.commitment,
                c1: l.c1,
                c2: l.c2,
            }),
        })
    }

    /// The leaf of `stem`, in memory or in the store.
    fn find_leaf(&self, stem: &Stem) -> Result<Option<FoundLeaf>, TreeError> {
        let mut cur = self.root;
        let mut depth = 0usize;
        loop {
            if depth >= STEM_LEN {
                return Err(TreeError::Inconsistent {
                    path: stem_path(stem, depth),
                    reason: InconsistencyReason::TooDeep,
                });
            }
            let n = self.arena.internal(cur);
            let Ok(pos) = n.find(stem[depth]) else {
                return Ok(None);
            };
            match n.children[pos].child {
                ChildRef::Loaded(id) => match self.arena.get(id) {
                    Node::Internal(_) => {
                        cur = id;
                        depth += 1;
                    }
                    Node::Leaf(l) => return Ok((l.stem == *stem).then_some(FoundLeaf::Loaded(id))),
                },
                ChildRef::Stored(_) => {
                    return Ok(self
                        .find_stored_leaf(stem, depth + 1)?
                        .map(|l| FoundLeaf::Stored(Box::new(l))))
                }
            }
        }
    }

    fn find_stored_leaf(
        &self,
        stem: &Stem,
        mut depth: usize,
    ) -> Result<Option<StoredLeaf>, TreeError> {
        loop {
            let path = stem_path(stem, depth);
            match self.read_record(&path)? {
                StoredNode::Leaf(l) => return Ok((l.stem == *stem).then_some(l)),
                StoredNode::Internal(n) => {
                    if depth >= STEM_LEN {
                        return Err(TreeError::Inconsistent {
                            path,
                            reason: InconsistencyReason::TooDeep,
                        });
                    }
                    if n.children
                        .binary_search_by_key(&stem[depth], |c| c.index)
                        .is_err()
                    {
                        return Ok(None);
                    }
                    depth += 1;
                }
            }
        }
    }

    /// Sets `key` to `value`.
    pub fn insert(&mut self, key: &TreeKey, value: Value) -> Result<(), TreeError> {
        let (stem, suffix) = split_key(key);
        self.update_stem(&stem, &[(suffix, Some(value))])
    }

    /// Removes `key` (absent afterwards, which is not the same as a zero value). Removing an
    /// absent key changes nothing.
    pub fn delete(&mut self, key: &TreeKey) -> Result<(), TreeError> {
        let (stem, suffix) = split_key(key);
        self.update_stem(&stem, &[(suffix, None)])
    }

    /// Applies many writes (`Some` = set, `None` = delete); for a key written more than once
    /// the last write wins. One descent per distinct stem.
    pub fn apply<I>(&mut self, writes: I) -> Result<(), TreeError>
    where
        I: IntoIterator<Item = (TreeKey, Option<Value>)>,
    {
        let mut w: Vec<(TreeKey, Option<Value>)> = writes.into_iter().collect();
        // Stable: writes to one key keep their order, so `normalize` keeps the last.
        w.sort_by(|a, b| a.0[..STEM_LEN].cmp(&b.0[..STEM_LEN]));
        // Read the stored nodes the writes reach in batches first (deletes-only stems are
        // left out: deleting an absent key must not load anything).
        let mut stems: Vec<Stem> = Vec::new();
        for (k, v) in &w {
            if v.is_some() {
                let (stem, _) = split_key(k);
                if stems.last() != Some(&stem) {
                    stems.push(stem);
                }
            }
        }
        if stems.len() > 1 {
            self.prefetch(&stems)?;
        }
        let mut changes: Vec<(u8, Option<Value>)> = Vec::new();
        let mut i = 0;
        while i < w.len() {
            let (stem, _) = split_key(&w[i].0);
            changes.clear();
            let mut j = i;
            while j < w.len() && w[j].0[..STEM_LEN] == stem {
                changes.push((w[j].0[STEM_LEN], w[j].1));
                j += 1;
            }
            self.update_stem(&stem, &changes)?;
            i = j;
        }
        Ok(())
    }

    fn mark_path(&mut self, ancestors: &[NodeId], cur: NodeId) {
        for id in ancestors.iter().chain(std::iter::once(&cur)) {
            *self.arena.get_mut(*id).flags_mut() |= DIRTY | UNSAVED;
            self.arena.touch(*id);
        }
    }

    /// A node moves to another path: its old record (if any) must go.
    fn relocate(&mut self, id: NodeId, old_path: NodePath) {
        let flags = self.arena.get_mut(id).flags_mut();
        if *flags & PERSISTED != 0 {
            self.pending_deletes.push(old_path);
        }
        *flags = (*flags & !PERSISTED) | UNSAVED;
    }

    /// Removes child slot `pos` of `parent` (its subtree must be that one node).
    fn remove_child(&mut self, parent: NodeId, pos: usize, child_path: NodePath) {
        let p = self.arena.internal_mut(parent);
        let entry = p.children.remove(pos);
        if !entry.committed.is_zero() {
            p.removed.push((entry.index, entry.committed));
        }
        match entry.child {
            ChildRef::Loaded(id) => {
                if let Some(node) = self.arena.free(id) {
                    if node.flags() & PERSISTED != 0 {
                        self.pending_deletes.push(child_path);
                    }
                }
            }
            ChildRef::Stored(_) => self.pending_deletes.push(child_path),
        }
    }

    /// Applies changes `(suffix, Some(value) | None)` to the values of one stem.
    ///
    /// The stem absent and no value set: nothing happens (no node, no work).
    pub fn update_stem(
        &mut self,
        stem: &Stem,
        changes: &[(u8, Option<Value>)],
    ) -> Result<(), TreeError> {
        let changes = normalize(changes);
        if changes.iter().all(|(_, v)| v.is_none()) {
            // Deletes only: if none of these values exists, touch nothing (not even the
            // store's nodes on the way, which a read does not cache).
            let present = match self.find_leaf(stem)? {
                None => false,
                Some(FoundLeaf::Loaded(id)) => {
                    let l = self.arena.leaf(id);
                    changes.iter().any(|(s, _)| l.get(*s).is_some())
                }
                Some(FoundLeaf::Stored(l)) => changes
                    .iter()
                    .any(|(s, _)| l.values.binary_search_by_key(s, |(x, _)| *x).is_ok()),
            };
            if !present {
                return Ok(());
            }
        }
        let mut ancestors: Vec<NodeId> = Vec::new();
        let mut cur = self.root;
        let mut depth = 0usize;
        loop {
            if depth >= STEM_LEN {
                return Err(TreeError::Inconsistent {
                    path: stem_path(stem, depth),
                    reason: InconsistencyReason::TooDeep,
                });
            }
            let index = stem[depth];
            let child_path = stem_path(stem, depth + 1);
            let pos = match self.arena.internal(cur).find(index) {
                Ok(pos) => pos,
                Err(at) => {
                    // Empty slot: a new leaf, if anything is set.
                    let mut leaf = Leaf::new(*stem);
                    for (s, v) in &changes {
                        if v.is_some() {
                            leaf.set(*s, *v);
                        }
                    }
                    if leaf.values.is_empty() {
                        return Ok(());
                    }
                    let id = self.arena.alloc(Node::Leaf(Box::new(leaf)));
                    self.arena.internal_mut(cur).children.insert(
                        at,
                        ChildEntry {
                            index,
                            child: ChildRef::Loaded(id),
                            committed: Fr::zero(),
                        },
                    );
                    self.mark_path(&ancestors, cur);
                    return Ok(());
                }
            };
            let entry = &self.arena.internal(cur).children[pos];
            let child = match entry.child {
                ChildRef::Loaded(id) => id,
                ChildRef::Stored(kind) => {
                    let committed = entry.committed;
                    let id = self.load(child_path, kind, committed)?;
                    self.arena.internal_mut(cur).children[pos].child = ChildRef::Loaded(id);
                    id
                }
            };
            let other_stem = match self.arena.get(child) {
                Node::Internal(_) => {
                    ancestors.push(cur);
                    cur = child;
                    depth += 1;
                    continue;
                }
                Node::Leaf(l) => l.stem,
            };
            if other_stem == *stem {
                let leaf = self.arena.leaf_mut(child);
                let mut changed = false;
                for (s, v) in &changes {
                    changed |= leaf.set(*s, *v);
                }
                if !changed {
                    return Ok(());
                }
                if !leaf.values.is_empty() {
                    leaf.flags |= DIRTY | UNSAVED;
                    self.mark_path(&ancestors, cur);
                    return Ok(());
                }
                // The stem's last value is gone: the leaf disappears, the tree re-compacts.
                self.remove_child(cur, pos, child_path);
                return self.collapse(ancestors, cur, depth, stem);
            }
            // Another stem holds the slot: split, if anything is set.
            let mut leaf = Leaf::new(*stem);
            for (s, v) in &changes {
                if v.is_some() {
                    leaf.set(*s, *v);
                }
            }
            if leaf.values.is_empty() {
                return Ok(());
            }
            // Both stems share stem[..=depth] (the leaf's path); they differ further on.
            let Some(k) = (depth + 1..STEM_LEN).find(|&i| stem[i] != other_stem[i]) else {
                return Err(TreeError::Inconsistent {
                    path: child_path,
                    reason: InconsistencyReason::StemOffPath,
                });
            };
            self.relocate(child, child_path);
            let new_leaf = self.arena.alloc(Node::Leaf(Box::new(leaf)));
            let entry = |index: u8, id: NodeId| ChildEntry {
                index,
                child: ChildRef::Loaded(id),
                committed: Fr::zero(),
            };
            let mut bottom = Internal::empty(DIRTY | UNSAVED);
            bottom.children = if other_stem[k] < stem[k] {
                vec![entry(other_stem[k], child), entry(stem[k], new_leaf)]
            } else {
                vec![entry(stem[k], new_leaf), entry(other_stem[k], child)]
            };
            let mut top = self.arena.alloc(Node::Internal(bottom));
            for j in (depth + 1..k).rev() {
                let mut n = Internal::empty(DIRTY | UNSAVED);
                n.children.push(entry(stem[j], top));
                top = self.arena.alloc(Node::Internal(n));
            }
            self.arena.internal_mut(cur).children[pos].child = ChildRef::Loaded(top);
            self.mark_path(&ancestors, cur);
            return Ok(());
        }
    }

    /// After `cur` (at `depth`, on the path of `stem`) lost a child: collapse every internal
    /// node on the way up that is left with a single leaf child (or none), then mark the path.
    fn collapse(
        &mut self,
        mut ancestors: Vec<NodeId>,
        mut cur: NodeId,
        mut depth: usize,
        stem: &Stem,
    ) -> Result<(), TreeError> {
        while let Some(&parent) = ancestors.last() {
            let cur_path = stem_path(stem, depth);
            let ppos = self
                .arena
                .internal(parent)
                .find(stem[depth - 1])
                .expect("a node on the descent path is in its parent");
            let n = self.arena.internal(cur);
            match n.children.len() {
                0 => self.remove_child(parent, ppos, cur_path),
                1 => {
                    let e = n.children[0].clone();
                    let kind = match e.child {
                        ChildRef::Loaded(id) => self.arena.get(id).kind(),
                        ChildRef::Stored(k) => k,
                    };
                    if kind != NodeKind::Leaf {
                        break;
                    }
                    let leaf_path = cur_path
                        .child(e.index)
                        .expect("a leaf below depth 31 has a path");
                    let leaf = match e.child {
                        ChildRef::Loaded(id) => id,
                        ChildRef::Stored(_) => self.load(leaf_path, NodeKind::Leaf, e.committed)?,
                    };
                    self.relocate(leaf, leaf_path);
                    if let Some(node) = self.arena.free(cur) {
                        if node.flags() & PERSISTED != 0 {
                            self.pending_deletes.push(cur_path);
                        }
                    }
                    // The parent keeps its old `committed` scalar: the next commit moves it
                    // from the collapsed node's scalar to the leaf's.
                    self.arena.internal_mut(parent).children[ppos].child = ChildRef::Loaded(leaf);
                }
                _ => break,
            }
            ancestors.pop();
            cur = parent;
            depth -= 1;
        }
        self.mark_path(&ancestors, cur);
        Ok(())
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

    /// Commits, then writes every node changed since the last persist (and deletes the
    /// records of nodes that moved or vanished) with the root commitment, in one atomic
    /// [`NodeBatch`]. The stored height is left as it is. Afterwards nodes beyond the
    /// cache budget are evicted ([`Tree::evict`]).
    pub fn persist(&mut self) -> Result<(), TreeError> {
        let (batch, written) = self.collect_batch(self.height, &[])?;
        self.write_collected(batch, written, self.height)?;
        self.evict();
        Ok(())
    }

    /// [`Tree::persist`], also writing the block `height` and the caller's `extra_meta`
    /// records (chain or layout identifiers) in the same atomic batch.
    pub fn persist_with(
        &mut self,
        height: u64,
        extra_meta: &[(&[u8], &[u8])],
    ) -> Result<(), TreeError> {
        let (batch, written) = self.collect_batch(Some(height), extra_meta)?;
        self.write_collected(batch, written, Some(height))?;
        self.evict();
        Ok(())
    }

    /// Commits and returns the batch [`Tree::persist_with`] would write, without writing
    /// it: the nodes count as persisted from now on, so the caller must write the batch
    /// (for example merged with other trees' batches into one atomic write). If that write
    /// fails, drop the tree and [`Tree::open`] the store again. Nothing is evicted: call
    /// [`Tree::evict`] once the batch is written.
    pub fn take_batch(
        &mut self,
        height: u64,
        extra_meta: &[(&[u8], &[u8])],
    ) -> Result<NodeBatch, TreeError> {
        let (batch, written) = self.collect_batch(Some(height), extra_meta)?;
        self.mark_persisted(written, Some(height));
        Ok(batch)
    }

    /// Shrinks the node cache to [`TreeConfig::cache_nodes`]: keeps the root, then internal
    /// nodes before leaves until half the budget is kept, then the rest by recency; within
    /// each part the most recently used first (a node counts as used when it was read from
    /// the store, created, or on the path of a change; recency is counted in persists), the
    /// shallower first among equals. Every other child becomes a store handle (its subtree
    /// is freed). A node is only kept after its parent, so the kept nodes stay one
    /// connected top of the tree. Internal nodes are preferred because each is on the
    /// path of every stem below it: with scattered writes (a 1M-key state, 10k writes per
    /// block) the internal levels are reached again at every block, the leaves rarely. Does
    /// nothing while changes are not persisted, or when the tree is within budget. Roots
    /// and contents are unchanged; evicted nodes are read back from the store when an
    /// operation reaches them.
    pub fn evict(&mut self) {
        let budget = self.config.cache_nodes.max(1);
        if self.arena.live() <= budget
            || self.arena.get(self.root).flags() & (DIRTY | UNSAVED) != 0
            || !self.pending_deletes.is_empty()
        {
            return;
        }
        if self.arena.internal_count() <= budget / 2 {
            self.evict_leaves(budget);
        } else {
            self.evict_walk(budget);
        }
    }

    /// [`Tree::evict`] in general: a walk from the root, best candidate first.
    fn evict_walk(&mut self, budget: usize) {
        // (preferred, stamp, shallower first, parent, slot position, child). While
        // internal nodes are preferred, they come before every leaf: an internal node is on
        // the path of every stem below it, so a block of scattered writes reaches it again
        // far more often than any one leaf. The preference lasts for the first half of the
        // budget, so recently used leaves keep the other half.
        type Candidate = (bool, u32, std::cmp::Reverse<usize>, NodeId, usize, NodeId);
        let reserve = budget / 2;
        let mut preferring = true;
        let push_children =
            |arena: &Arena, heap: &mut BinaryHeap<Candidate>, id, depth, preferring: bool| {
                if let Node::Internal(n) = arena.get(id) {
                    for (pos, e) in n.children.iter().enumerate() {
                        if let ChildRef::Loaded(c) = e.child {
                            let preferred = preferring && matches!(arena.get(c), Node::Internal(_));
                            heap.push((
                                preferred,
                                arena.stamp(c),
                                std::cmp::Reverse(depth + 1),
                                id,
                                pos,
                                c,
                            ));
                        }
                    }
                }
            };
        let mut heap: BinaryHeap<Candidate> = BinaryHeap::new();
        push_children(&self.arena, &mut heap, self.root, 0, preferring);
        let mut kept = 1usize;
        let mut doomed: Vec<NodeId> = Vec::new();
        loop {
            if preferring && kept >= reserve {
                // From here on, plain recency.
                preferring = false;
                heap = heap
                    .into_iter()
                    .map(|mut c| {
                        c.0 = false;
                        c
                    })
                    .collect();
            }
            let Some((_, _, std::cmp::Reverse(depth), parent, pos, c)) = heap.pop() else {
                break;
            };
            if kept < budget {
                kept += 1;
                push_children(&self.arena, &mut heap, c, depth, preferring);
                continue;
            }
            let child = self.arena.get(c);
            debug_assert!(child.mtf() == self.arena.internal(parent).children[pos].committed);
            let kind = child.kind();
            self.arena.internal_mut(parent).children[pos].child = ChildRef::Stored(kind);
            doomed.push(c);
        }
        while let Some(id) = doomed.pop() {
            if let Some(Node::Internal(n)) = self.arena.free(id) {
                for e in &n.children {
                    if let ChildRef::Loaded(c) = e.child {
                        doomed.push(c);
                    }
                }
            }
            self.evicted += 1;
        }
    }

    /// [`Tree::evict`] when every internal node fits in the preferred half of the budget:
    /// all internal nodes stay, and of the leaves the most recently used (the shallower
    /// first among equals) fill the rest of the budget. The same choice as the general
    /// walk, found with one pass over the internal nodes and a linear-time selection
    /// instead of a heap over every cached node.
    fn evict_leaves(&mut self, budget: usize) {
        let keep = budget.saturating_sub(self.arena.internal_count());
        // (stamp, shallower first, parent, slot position) of every cached leaf.
        let mut leaves: Vec<(u32, std::cmp::Reverse<usize>, NodeId, usize)> = Vec::new();
        let mut stack = vec![(self.root, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            if let Node::Internal(n) = self.arena.get(id) {
                for (pos, e) in n.children.iter().enumerate() {
                    if let ChildRef::Loaded(c) = e.child {
                        match self.arena.get(c) {
                            Node::Internal(_) => stack.push((c, depth + 1)),
                            Node::Leaf(_) => leaves.push((
                                self.arena.stamp(c),
                                std::cmp::Reverse(depth + 1),
                                id,
                                pos,
                            )),
                        }
                    }
                }
            }
        }
        let Some(cut) = leaves.len().checked_sub(keep).filter(|&c| c > 0) else {
            return;
        };
        // The `cut` least wanted leaves first.
        leaves.select_nth_unstable_by_key(cut - 1, |&(stamp, depth, ..)| (stamp, depth));
        for &(_, _, parent, pos) in leaves.iter().take(cut) {
            let entry = &self.arena.internal(parent).children[pos];
            let ChildRef::Loaded(c) = entry.child else {
                continue;
            };
            debug_assert!(self.arena.get(c).mtf() == entry.committed);
            self.arena.internal_mut(parent).children[pos].child = ChildRef::Stored(NodeKind::Leaf);
            self.arena.free(c);
            self.evicted += 1;
        }
    }

    fn write_collected(
        &mut self,
        batch: NodeBatch,
        written: Vec<NodeId>,
        height: Option<u64>,
    ) -> Result<(), TreeError> {
        let deletes = batch.deletes.clone();
        if let Err(e) = self.store.write(batch) {
            // Nothing was written: the deletes are still owed.
            self.pending_deletes = deletes;
            return Err(store_error(e));
        }
        self.mark_persisted(written, height);
        Ok(())
    }

    fn mark_persisted(&mut self, written: Vec<NodeId>, height: Option<u64>) {
        self.arena.advance_epoch();
        for id in written {
            let f = self.arena.get_mut(id).flags_mut();
            *f = (*f & !UNSAVED) | PERSISTED;
        }
        self.height = height;
    }

    /// Commits and collects the records to write: every unsaved node, the deletes owed, the
    /// root and height meta and `extra_meta`. Takes the pending deletes.
    fn collect_batch(
        &mut self,
        height: Option<u64>,
        extra_meta: &[(&[u8], &[u8])],
    ) -> Result<(NodeBatch, Vec<NodeId>), TreeError> {
        for (k, _) in extra_meta {
            if *k == META_ROOT || *k == META_HEIGHT {
                return Err(TreeError::ReservedMetaKey {
                    key: String::from_utf8_lossy(k).into_owned(),
                });
            }
        }
        let root = self.commit();
        let mut batch = NodeBatch::default();
        let mut written: Vec<NodeId> = Vec::new();
        let mut paths: Vec<NodePath> = Vec::new();
        let mut records: Vec<StoredNode> = Vec::new();
        let mut stack = vec![(self.root, NodePath::root())];
        while let Some((id, path)) = stack.pop() {
            let node = self.arena.get(id);
            if node.flags() & UNSAVED == 0 {
                continue;
            }
            let rec = match node {
                Node::Internal(n) => {
                    let mut children = Vec::with_capacity(n.children.len());
                    for e in &n.children {
                        let kind = match e.child {
                            ChildRef::Loaded(c) => {
                                let child = self.arena.get(c);
                                if child.flags() & UNSAVED != 0 {
                                    let p =
                                        path.child(e.index).expect("paths stay within 31 bytes");
                                    stack.push((c, p));
                                }
                                child.kind()
                            }
                            ChildRef::Stored(k) => k,
                        };
                        children.push(StoredChild {
                            index: e.index,
                            kind,
                            mtf: e.committed,
                        });
                    }
                    StoredNode::Internal(StoredInternal {
                        commitment: n.commitment,
                        mtf: n.mtf,
                        children,
                    })
                }
                Node::Leaf(l) => StoredNode::Leaf(StoredLeaf {
                    stem: l.stem,
                    commitment: l.commitment,
                    mtf: l.mtf,
                    c1: l.c1,
                    c1_mtf: l.c1_mtf,
                    c2: l.c2,
                    c2_mtf: l.c2_mtf,
                    values: l.values.clone(),
                }),
            };
            paths.push(path);
            records.push(rec);
            written.push(id);
            if records.len() == ENCODE_CHUNK {
                encode_into(&mut batch.puts, &mut paths, &mut records);
            }
        }
        encode_into(&mut batch.puts, &mut paths, &mut records);
        let put_paths: HashSet<NodePath> = batch.puts.iter().map(|(p, _)| *p).collect();
        let mut deletes = std::mem::take(&mut self.pending_deletes);
        deletes.sort();
        deletes.dedup();
        deletes.retain(|p| !put_paths.contains(p));
        batch.deletes = deletes;
        batch
            .meta
            .push((META_ROOT.to_vec(), root.to_bytes().to_vec()));
        if let Some(h) = height {
            batch
                .meta
                .push((META_HEIGHT.to_vec(), h.to_be_bytes().to_vec()));
        }
        for (k, v) in extra_meta {
            batch.meta.push((k.to_vec(), v.to_vec()));
        }
        Ok((batch, written))
    }
}

/// Records encoded at a time by [`Tree::persist`] (bounds the decoded copies held at once).
const ENCODE_CHUNK: usize = 8_192;

/// Encodes `records` (in parallel, with batched point normalisation) into `puts`, then
/// empties `paths` and `records`.
fn encode_into(
    puts: &mut Vec<(NodePath, Vec<u8>)>,
    paths: &mut Vec<NodePath>,
    records: &mut Vec<StoredNode>,
) {
    let encoded: Vec<Vec<u8>> = if records.len() < 64 {
        StoredNode::batch_to_bytes(records)
    } else {
        let parts: Vec<Vec<Vec<u8>>> = records
            .par_chunks(256)
            .map(StoredNode::batch_to_bytes)
            .collect();
        parts.concat()
    };
    puts.extend(paths.drain(..).zip(encoded));
    records.clear();
}

fn store_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> TreeError {
    TreeError::Store {
        source: Box::new(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn leaf_eviction_matches_the_general_walk() {
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
            fast.evict_leaves(budget);
            walk.evict_walk(budget);
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
