//! Reading values and leaf commitments.

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{split_key, Stem, TreeKey, Value, STEM_LEN};
use crate::store::{NodeStore, StoredLeaf, StoredNode};

use super::core::{stem_path, FoundLeaf, LeafCommitments, Tree};
use super::node::{ChildRef, Node};

impl<S: NodeStore> Tree<S> {
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
    pub(super) fn find_leaf(&self, stem: &Stem) -> Result<Option<FoundLeaf>, TreeError> {
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

    pub(super) fn find_stored_leaf(
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
}
