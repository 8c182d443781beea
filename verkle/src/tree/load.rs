//! Loading nodes from the store: one record at a time, or the paths of many stems at once.

use banderwagon::Fr;
use rayon::prelude::*;

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{Stem, STEM_LEN};
use crate::store::{NodeKind, NodePath, NodeStore, StoredNode};

use super::core::{stem_path, store_error, Tree};
use super::node::{node_from_record, Arena, ChildRef, Node, NodeId};

/// The node of a record read for the child at `path`, checked against what its parent
/// says (`kind`, map-to-field scalar `mtf`).
pub(super) fn checked_node(
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

impl<S: NodeStore> Tree<S> {
    pub(super) fn read_record(&self, path: &NodePath) -> Result<StoredNode, TreeError> {
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
    pub(super) fn load(
        &mut self,
        path: NodePath,
        kind: NodeKind,
        mtf: Fr,
    ) -> Result<NodeId, TreeError> {
        let rec = self.read_record(&path)?;
        let node = checked_node(path, kind, mtf, rec)?;
        self.loads += 1;
        Ok(self.arena.alloc(node))
    }

    /// Before a batch of writes: reads, level by level, every stored node the descents of
    /// `stems` (sorted) will reach, with one batched store read per level and the records
    /// decoded in parallel. Nodes already in memory are not read again.
    pub(super) fn prefetch(&mut self, stems: &[Stem]) -> Result<(), TreeError> {
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
}
