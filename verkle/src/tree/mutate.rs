//! Writes: inserts, deletes and stem updates, with the splits and collapses that keep the
//! tree in its canonical shape.

use banderwagon::arith::Zero;
use banderwagon::Fr;

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{split_key, Stem, TreeKey, Value, STEM_LEN};
use crate::store::{NodeKind, NodePath, NodeStore};

use super::core::{stem_path, FoundLeaf, Tree};
use super::node::{ChildEntry, ChildRef, Internal, Leaf, Node, NodeId, DIRTY, PERSISTED, UNSAVED};

/// The net change per suffix: sorted by suffix, the last change of each suffix kept.
pub(super) fn normalize(changes: &[(u8, Option<Value>)]) -> Vec<(u8, Option<Value>)> {
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

impl<S: NodeStore> Tree<S> {
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

    pub(super) fn mark_path(&mut self, ancestors: &[NodeId], cur: NodeId) {
        for id in ancestors.iter().chain(std::iter::once(&cur)) {
            *self.arena.get_mut(*id).flags_mut() |= DIRTY | UNSAVED;
            self.arena.touch(*id);
        }
    }

    /// A node moves to another path: its old record (if any) must go.
    pub(super) fn relocate(&mut self, id: NodeId, old_path: NodePath) {
        let flags = self.arena.get_mut(id).flags_mut();
        if *flags & PERSISTED != 0 {
            self.pending_deletes.push(old_path);
        }
        *flags = (*flags & !PERSISTED) | UNSAVED;
    }

    /// Removes child slot `pos` of `parent` (its subtree must be that one node).
    pub(super) fn remove_child(&mut self, parent: NodeId, pos: usize, child_path: NodePath) {
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
    pub(super) fn collapse(
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
}
