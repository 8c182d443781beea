//! In-memory nodes and the arena that owns them.
//!
//! Nodes live in a slab indexed by [`NodeId`]; a parent names a child either by id (loaded)
//! or by its kind alone (still in the store — its map-to-field scalar is the `committed`
//! value the parent holds, so the parent can be recommitted without loading it).

use banderwagon::arith::Zero;
use banderwagon::{Element, Fr};

use crate::keys::{Stem, Value};
use crate::store::{NodeKind, StoredNode};

/// Index of a node in the arena.
pub(crate) type NodeId = u32;

/// The node's commitment (or a descendant's) must be recomputed.
pub(crate) const DIRTY: u8 = 1;
/// The node must be written by the next persist.
pub(crate) const UNSAVED: u8 = 2;
/// A record of this node exists in the store at its current path.
pub(crate) const PERSISTED: u8 = 4;

/// How a parent reaches a child.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ChildRef {
    /// In the arena.
    Loaded(NodeId),
    /// Only in the store.
    Stored(NodeKind),
}

/// One non-empty child slot of an internal node.
#[derive(Clone, Debug)]
pub(crate) struct ChildEntry {
    /// The slot (stem byte at this depth).
    pub index: u8,
    /// The child.
    pub child: ChildRef,
    /// The child's map-to-field scalar as included in this node's commitment.
    pub committed: Fr,
}

/// An internal node: `C = Σ mtf(child_i)·G_i`.
#[derive(Clone, Debug)]
pub(crate) struct Internal {
    /// Non-empty slots, index ascending.
    pub children: Vec<ChildEntry>,
    /// Commitment as of the last commit.
    pub commitment: Element,
    /// Its map-to-field scalar.
    pub mtf: Fr,
    /// Contributions `(index, committed)` of children removed since the last commit.
    pub removed: Vec<(u8, Fr)>,
    /// [`DIRTY`], [`UNSAVED`], [`PERSISTED`].
    pub flags: u8,
}

impl Internal {
    /// A new node with no children (commitment identity).
    pub fn empty(flags: u8) -> Internal {
        Internal {
            children: Vec::new(),
            commitment: Element::identity(),
            mtf: Fr::zero(),
            removed: Vec::new(),
            flags,
        }
    }

    /// Position of slot `index` (`Err` = where it would be inserted).
    pub fn find(&self, index: u8) -> Result<usize, usize> {
        self.children.binary_search_by_key(&index, |e| e.index)
    }
}

/// A leaf node (extension-and-suffix node of the EIP):
/// `C = G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3`.
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    /// The stem.
    pub stem: Stem,
    /// Present values, suffix ascending.
    pub values: Vec<(u8, Value)>,
    /// Suffix commitment of suffixes 0..128.
    pub c1: Element,
    /// `mtf(C1)`.
    pub c1_mtf: Fr,
    /// Suffix commitment of suffixes 128..256.
    pub c2: Element,
    /// `mtf(C2)`.
    pub c2_mtf: Fr,
    /// Leaf commitment as of the last commit.
    pub commitment: Element,
    /// Its map-to-field scalar.
    pub mtf: Fr,
    /// `(suffix, value at the last commit)` of every suffix changed since.
    pub pending: Vec<(u8, Option<Value>)>,
    /// Bit `s` set when suffix `s` is in `pending`.
    pending_mask: [u64; 4],
    /// Never committed: the commitment is computed from scratch.
    pub fresh: bool,
    /// [`DIRTY`], [`UNSAVED`], [`PERSISTED`].
    pub flags: u8,
}

impl Leaf {
    /// A new, empty, uncommitted leaf.
    pub fn new(stem: Stem) -> Leaf {
        Leaf {
            stem,
            values: Vec::new(),
            c1: Element::identity(),
            c1_mtf: Fr::zero(),
            c2: Element::identity(),
            c2_mtf: Fr::zero(),
            commitment: Element::identity(),
            mtf: Fr::zero(),
            pending: Vec::new(),
            pending_mask: [0; 4],
            fresh: true,
            flags: DIRTY | UNSAVED,
        }
    }

    /// The value at `suffix`.
    pub fn get(&self, suffix: u8) -> Option<&Value> {
        self.values
            .binary_search_by_key(&suffix, |(s, _)| *s)
            .ok()
            .map(|i| &self.values[i].1)
    }

    /// Sets (`Some`) or removes (`None`) the value at `suffix`; whether anything changed.
    pub fn set(&mut self, suffix: u8, value: Option<Value>) -> bool {
        let pos = self.values.binary_search_by_key(&suffix, |(s, _)| *s);
        let old = pos.ok().map(|i| self.values[i].1);
        if old == value {
            return false;
        }
        let (word, bit) = (usize::from(suffix / 64), suffix % 64);
        if self.pending_mask[word] & (1 << bit) == 0 {
            self.pending_mask[word] |= 1 << bit;
            self.pending.push((suffix, old));
        }
        match (pos, value) {
            (Ok(i), Some(v)) => self.values[i].1 = v,
            (Ok(i), None) => {
                self.values.remove(i);
            }
            (Err(i), Some(v)) => self.values.insert(i, (suffix, v)),
            (Err(_), None) => {}
        }
        true
    }

    /// A leaf read from the store (committed, nothing pending).
    pub fn from_stored(l: crate::store::StoredLeaf) -> Leaf {
        Leaf {
            stem: l.stem,
            values: l.values,
            c1: l.c1,
            c1_mtf: l.c1_mtf,
            c2: l.c2,
            c2_mtf: l.c2_mtf,
            commitment: l.commitment,
            mtf: l.mtf,
            pending: Vec::new(),
            pending_mask: [0; 4],
            fresh: false,
            flags: PERSISTED,
        }
    }

    /// Forgets pending changes after a commit.
    pub fn clear_pending(&mut self) {
        self.pending.clear();
        self.pending_mask = [0; 4];
        self.fresh = false;
    }
}

/// A node of either kind.
///
/// A leaf (about 600 bytes: three commitments) is boxed so that an arena slot, free or
/// holding an internal node, costs the size of an internal node (about 200 bytes), not
/// that of a leaf.
// Internal nodes stay inline (no allocation of their own): 216 bytes is the slot size.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub(crate) enum Node {
    /// Internal node.
    Internal(Internal),
    /// Leaf node.
    Leaf(Box<Leaf>),
}

/// The in-memory node of a record read from the store: its children are store handles
/// that carry their map-to-field scalars.
pub(super) fn node_from_record(rec: StoredNode) -> Node {
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

impl Node {
    pub fn flags(&self) -> u8 {
        match self {
            Node::Internal(n) => n.flags,
            Node::Leaf(l) => l.flags,
        }
    }

    pub fn flags_mut(&mut self) -> &mut u8 {
        match self {
            Node::Internal(n) => &mut n.flags,
            Node::Leaf(l) => &mut l.flags,
        }
    }

    pub fn mtf(&self) -> Fr {
        match self {
            Node::Internal(n) => n.mtf,
            Node::Leaf(l) => l.mtf,
        }
    }

    pub fn commitment(&self) -> Element {
        match self {
            Node::Internal(n) => n.commitment,
            Node::Leaf(l) => l.commitment,
        }
    }

    pub fn kind(&self) -> NodeKind {
        match self {
            Node::Internal(_) => NodeKind::Internal,
            Node::Leaf(_) => NodeKind::Leaf,
        }
    }

    /// The memory this node holds: its arena slot and stamp, and what it allocates (the
    /// leaf's box, child lists and value lists by capacity). Allocator overhead is not
    /// counted.
    pub fn bytes(&self) -> usize {
        use std::mem::size_of;
        let slot = size_of::<Option<Node>>() + size_of::<u32>();
        match self {
            Node::Internal(n) => {
                slot + n.children.capacity() * size_of::<ChildEntry>()
                    + n.removed.capacity() * size_of::<(u8, Fr)>()
            }
            Node::Leaf(l) => {
                slot + size_of::<Leaf>()
                    + l.values.capacity() * size_of::<(u8, Value)>()
                    + l.pending.capacity() * size_of::<(u8, Option<Value>)>()
            }
        }
    }
}

/// The slab of nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arena {
    slots: Vec<Option<Node>>,
    /// Per slot: the epoch in which the node was last used (see [`Arena::touch`]).
    stamps: Vec<u32>,
    /// The current epoch (the tree advances it at every persist).
    epoch: u32,
    free: Vec<NodeId>,
    live: usize,
    internal: usize,
}

impl Arena {
    /// Stores a node and returns its id.
    pub fn alloc(&mut self, node: Node) -> NodeId {
        self.live += 1;
        if matches!(node, Node::Internal(_)) {
            self.internal += 1;
        }
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Some(node);
                self.stamps[id as usize] = self.epoch;
                id
            }
            None => {
                self.slots.push(Some(node));
                self.stamps.push(self.epoch);
                (self.slots.len() - 1) as NodeId
            }
        }
    }

    /// Marks node `id` as used in the current epoch.
    pub fn touch(&mut self, id: NodeId) {
        if let Some(s) = self.stamps.get_mut(id as usize) {
            *s = self.epoch;
        }
    }

    /// The epoch in which node `id` was last used (allocated, changed or descended through
    /// for a change).
    pub fn stamp(&self, id: NodeId) -> u32 {
        self.stamps.get(id as usize).copied().unwrap_or(0)
    }

    /// Starts a new epoch: nodes used from now on rank above every node used before.
    pub fn advance_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Removes a node, returning it.
    pub fn free(&mut self, id: NodeId) -> Option<Node> {
        let n = self.slots.get_mut(id as usize)?.take()?;
        self.live -= 1;
        if matches!(n, Node::Internal(_)) {
            self.internal -= 1;
        }
        self.free.push(id);
        Some(n)
    }

    /// Nodes in memory.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Internal nodes in memory.
    pub fn internal_count(&self) -> usize {
        self.internal
    }

    /// [`Node::bytes`] summed over the nodes in memory (one pass over the slots).
    pub fn bytes(&self) -> usize {
        self.slots.iter().flatten().map(Node::bytes).sum()
    }

    /// [`Node::bytes`] summed over the internal nodes in memory.
    pub fn internal_bytes(&self) -> usize {
        self.slots
            .iter()
            .flatten()
            .filter(|n| matches!(n, Node::Internal(_)))
            .map(Node::bytes)
            .sum()
    }

    /// The node `id`. Ids come only from `alloc` and are removed from every parent before
    /// `free`, so a live id always resolves.
    pub fn get(&self, id: NodeId) -> &Node {
        self.slots[id as usize]
            .as_ref()
            .expect("arena ids held by the tree are live")
    }

    /// The node `id`, mutably.
    pub fn get_mut(&mut self, id: NodeId) -> &mut Node {
        self.slots[id as usize]
            .as_mut()
            .expect("arena ids held by the tree are live")
    }

    /// The internal node `id` (the caller knows its kind).
    pub fn internal(&self, id: NodeId) -> &Internal {
        match self.get(id) {
            Node::Internal(n) => n,
            Node::Leaf(_) => unreachable!("node {id} is an internal node by construction"),
        }
    }

    /// The internal node `id`, mutably.
    pub fn internal_mut(&mut self, id: NodeId) -> &mut Internal {
        match self.get_mut(id) {
            Node::Internal(n) => n,
            Node::Leaf(_) => unreachable!("node {id} is an internal node by construction"),
        }
    }

    /// The leaf node `id`.
    pub fn leaf(&self, id: NodeId) -> &Leaf {
        match self.get(id) {
            Node::Leaf(l) => l,
            Node::Internal(_) => unreachable!("node {id} is a leaf by construction"),
        }
    }

    /// The leaf node `id`, mutably.
    pub fn leaf_mut(&mut self, id: NodeId) -> &mut Leaf {
        match self.get_mut(id) {
            Node::Leaf(l) => l,
            Node::Internal(_) => unreachable!("node {id} is a leaf by construction"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_set_tracks_first_old_value() {
        let mut l = Leaf::new([0; 31]);
        assert!(l.set(5, Some([1; 32])));
        assert!(!l.set(5, Some([1; 32])));
        assert!(l.set(5, Some([2; 32])));
        assert!(l.set(3, Some([3; 32])));
        assert_eq!(l.pending, vec![(5, None), (3, None)]);
        assert_eq!(l.values, vec![(3, [3; 32]), (5, [2; 32])]);
        l.clear_pending();
        assert!(l.set(5, None));
        assert!(!l.set(5, None));
        assert_eq!(l.pending, vec![(5, Some([2; 32]))]);
        assert_eq!(l.get(5), None);
        assert_eq!(l.get(3), Some(&[3; 32]));
    }

    #[test]
    fn slots_are_internal_node_sized() {
        assert!(std::mem::size_of::<Option<Node>>() <= std::mem::size_of::<Internal>() + 8);
    }

    #[test]
    fn arena_reuses_slots() {
        let mut a = Arena::default();
        let x = a.alloc(Node::Leaf(Box::new(Leaf::new([1; 31]))));
        let y = a.alloc(Node::Internal(Internal::empty(0)));
        assert_eq!((a.live(), a.internal_count()), (2, 1));
        assert!(a.free(y).is_some());
        assert!(a.free(y).is_none());
        assert_eq!((a.live(), a.internal_count()), (1, 0));
        a.advance_epoch();
        let z = a.alloc(Node::Leaf(Box::new(Leaf::new([2; 31]))));
        assert_eq!(z, y);
        assert_eq!((a.stamp(x), a.stamp(z)), (0, 1));
        a.touch(x);
        assert_eq!(a.stamp(x), 1);
        assert_eq!(a.leaf(x).stem, [1; 31]);
    }
}
