//! Writing the changed nodes to the store, one atomic batch per commit.

use std::collections::HashSet;

use rayon::prelude::*;

use crate::error::TreeError;
use crate::store::{
    NodeBatch, NodePath, NodeStore, StoredChild, StoredInternal, StoredLeaf, StoredNode,
    META_HEIGHT, META_ROOT,
};

use super::core::{store_error, Tree};
use super::node::{ChildRef, Node, NodeId, PERSISTED, UNSAVED};

/// Records encoded at a time by [`Tree::persist`] (bounds the decoded copies held at once).
pub(super) const ENCODE_CHUNK: usize = 8_192;

/// Encodes `records` (in parallel, with batched point normalisation) into `puts`, then
/// empties `paths` and `records`.
pub(super) fn encode_into(
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

impl<S: NodeStore> Tree<S> {
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

    pub(super) fn write_collected(
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

    pub(super) fn mark_persisted(&mut self, written: Vec<NodeId>, height: Option<u64>) {
        self.arena.advance_epoch();
        for id in written {
            let f = self.arena.get_mut(id).flags_mut();
            *f = (*f & !UNSAVED) | PERSISTED;
        }
        self.height = height;
    }

    /// Commits and collects the records to write: every unsaved node, the deletes owed, the
    /// root and height meta and `extra_meta`. Takes the pending deletes.
    pub(super) fn collect_batch(
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
