//! Bounding memory: dropping committed, persisted nodes from the in-memory cache.

use std::collections::BinaryHeap;

use crate::store::{NodeKind, NodeStore};

use super::node::{Arena, ChildRef, Node, NodeId, DIRTY, UNSAVED};
use super::Tree;

impl<S: NodeStore> Tree<S> {
    /// Shrinks the node cache to its budgets (below): keeps the root, then internal
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
    ///
    /// Both budgets of [`TreeConfig`](crate::TreeConfig) apply: the kept nodes are the longest
    /// prefix of that order within [`TreeConfig::cache_nodes`](crate::TreeConfig::cache_nodes)
    /// nodes and [`TreeConfig::cache_bytes`](crate::TreeConfig::cache_bytes) bytes (each
    /// node counted by its arena slot and what it allocates, child lists and
    /// values included).
    pub fn evict(&mut self) {
        let budget = Budget::of(&self.config);
        if self.arena.get(self.root).flags() & (DIRTY | UNSAVED) != 0
            || !self.pending_deletes.is_empty()
            || (self.arena.live() <= budget.nodes
                && (budget.bytes == usize::MAX || self.arena.bytes() <= budget.bytes))
        {
            return;
        }
        // The byte sums are passes over the cache: skipped when there is no byte limit.
        if self.arena.internal_count() <= budget.nodes / 2
            && (budget.bytes == usize::MAX || self.arena.internal_bytes() <= budget.bytes / 2)
        {
            self.evict_leaves(budget);
        } else {
            self.evict_walk(budget);
        }
    }

    /// Bytes the node cache holds now, counted as [`TreeConfig::cache_bytes`](crate::TreeConfig::cache_bytes)
    /// counts them.
    pub fn cache_bytes(&self) -> usize {
        self.arena.bytes()
    }

    /// [`Tree::evict`] in general: a walk from the root, best candidate first.
    pub(super) fn evict_walk(&mut self, budget: Budget) {
        // (preferred, stamp, shallower first, parent, slot position, child). While
        // internal nodes are preferred, they come before every leaf: an internal node is on
        // the path of every stem below it, so a block of scattered writes reaches it again
        // far more often than any one leaf. The preference lasts for the first half of the
        // budget, so recently used leaves keep the other half.
        type Candidate = (bool, u32, std::cmp::Reverse<usize>, NodeId, usize, NodeId);
        let reserve = Budget {
            nodes: budget.nodes / 2,
            bytes: budget.bytes / 2,
        };
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
        let mut kept = Kept {
            nodes: 1,
            bytes: self.arena.get(self.root).bytes(),
        };
        // Once a node does not fit, every later one is evicted: the kept nodes are a prefix
        // of the order.
        let mut full = false;
        let mut doomed: Vec<NodeId> = Vec::new();
        loop {
            if preferring && !kept.below(reserve) {
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
            let child = self.arena.get(c);
            if !full && kept.fits(budget, child.bytes()) {
                kept.add(child.bytes());
                push_children(&self.arena, &mut heap, c, depth, preferring);
                continue;
            }
            full = true;
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
    pub(super) fn evict_leaves(&mut self, budget: Budget) {
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
        let doomed: &[(u32, std::cmp::Reverse<usize>, NodeId, usize)] = if budget.bytes
            == usize::MAX
        {
            let keep = budget.nodes.saturating_sub(self.arena.internal_count());
            let Some(cut) = leaves.len().checked_sub(keep).filter(|&c| c > 0) else {
                return;
            };
            // The `cut` least wanted leaves first.
            leaves.select_nth_unstable_by_key(cut - 1, |&(stamp, depth, ..)| (stamp, depth));
            &leaves[..cut]
        } else {
            // Most wanted first, in the walk's order; the longest prefix that fits is kept.
            leaves.sort_unstable_by(|a, b| b.cmp(a));
            let mut kept = Kept {
                nodes: self.arena.internal_count(),
                bytes: self.arena.internal_bytes(),
            };
            let mut keep = 0;
            for &(_, _, parent, pos) in &leaves {
                let ChildRef::Loaded(c) = self.arena.internal(parent).children[pos].child else {
                    break;
                };
                let b = self.arena.get(c).bytes();
                if !kept.fits(budget, b) {
                    break;
                }
                kept.add(b);
                keep += 1;
            }
            &leaves[keep..]
        };
        for &(_, _, parent, pos) in doomed {
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
}

/// The node cache's budgets: nodes and bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    pub nodes: usize,
    pub bytes: usize,
}

impl Budget {
    pub fn of(config: &super::TreeConfig) -> Budget {
        Budget {
            nodes: config.cache_nodes.max(1),
            bytes: config.cache_bytes,
        }
    }
}

/// What an eviction has kept so far.
struct Kept {
    nodes: usize,
    bytes: usize,
}

impl Kept {
    /// Whether one more node of `bytes` stays within `budget`.
    fn fits(&self, budget: Budget, bytes: usize) -> bool {
        self.nodes < budget.nodes && self.bytes.saturating_add(bytes) <= budget.bytes
    }

    fn below(&self, budget: Budget) -> bool {
        self.nodes < budget.nodes && self.bytes < budget.bytes
    }

    fn add(&mut self, bytes: usize) {
        self.nodes += 1;
        self.bytes = self.bytes.saturating_add(bytes);
    }
}
