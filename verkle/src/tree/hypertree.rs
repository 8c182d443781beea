//! The hypertree under a stem prefix: the subtree of the canonical tree that holds exactly
//! the stems starting with the prefix (one shard of a fractional tree).
//!
//! The hypertree at prefix `p` holds exactly the stems starting with `p`. Its **top** is the
//! node that commits to those stems: the internal node at path `p` when two or more stems
//! share `p`, the single stem's leaf when there is one (wherever that leaf sits on the way
//! to `p` — a leaf hangs at the shallowest depth where its stem is alone), and nothing when
//! no stem starts with `p` (commitment: the identity).

use banderwagon::arith::Zero;
use banderwagon::{Element, Fr};

use super::node::{ChildRef, Node};
use super::Tree;
use crate::error::TreeError;
use crate::store::{NodeKind, NodePath, NodeStore};

/// The top node of a non-empty hypertree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HypertreeTop {
    /// Internal node (two or more stems under the prefix) or leaf (one stem).
    pub kind: NodeKind,
    /// Its commitment.
    pub commitment: Element,
    /// `map_to_scalar_field(commitment)`: what a parent at the prefix's depth commits to.
    pub mtf: Fr,
}

impl HypertreeTop {
    /// `map_to_scalar_field` of an optional top: 0 for an empty hypertree.
    pub fn mtf_or_zero(top: Option<&HypertreeTop>) -> Fr {
        top.map_or_else(Fr::zero, |t| t.mtf)
    }
}

impl<S: NodeStore> Tree<S> {
    /// The top of the hypertree under `prefix` (commits pending changes first); `None` when no
    /// stem starts with `prefix`. The empty prefix gives the root (an internal node, whose
    /// commitment is the identity when the tree is empty). Nodes on the way that are not in
    /// memory are read from the store and kept.
    ///
    /// ```
    /// let mut tree = verkle::Tree::new();
    /// tree.insert(&[7u8; 32], [1u8; 32]).unwrap();
    /// let top = tree.hypertree_top(&[7, 7]).unwrap().unwrap();
    /// assert_eq!(top.kind, verkle::store::NodeKind::Leaf);
    /// assert!(tree.hypertree_top(&[8]).unwrap().is_none());
    /// ```
    pub fn hypertree_top(&mut self, prefix: &[u8]) -> Result<Option<HypertreeTop>, TreeError> {
        self.commit();
        let mut cur = self.root;
        for (depth, &index) in prefix.iter().enumerate() {
            let Ok(pos) = self.arena.internal(cur).find(index) else {
                return Ok(None);
            };
            let Some(child_path) = NodePath::new(&prefix[..=depth]) else {
                return Ok(None);
            };
            let child = match self.arena.internal(cur).children[pos].child {
                ChildRef::Loaded(id) => id,
                ChildRef::Stored(_) => self.load_child(cur, pos, child_path)?,
            };
            match self.arena.get(child) {
                Node::Internal(_) => cur = child,
                Node::Leaf(l) => {
                    return Ok(l.stem.starts_with(prefix).then_some(HypertreeTop {
                        kind: NodeKind::Leaf,
                        commitment: l.commitment,
                        mtf: l.mtf,
                    }))
                }
            }
        }
        let n = self.arena.internal(cur);
        Ok(Some(HypertreeTop {
            kind: NodeKind::Internal,
            commitment: n.commitment,
            mtf: n.mtf,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(prefix: &[u8], suffix: u8) -> [u8; 32] {
        let mut k = [0u8; 32];
        k[..prefix.len()].copy_from_slice(prefix);
        k[31] = suffix;
        k
    }

    #[test]
    fn tops_by_prefix() {
        let mut t = Tree::new();
        t.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        t.insert(&key(&[1, 2, 4], 0), [2; 32]).unwrap();
        t.insert(&key(&[9], 0), [3; 32]).unwrap();
        let root = t.commit();
        assert_eq!(t.hypertree_top(&[]).unwrap().unwrap().commitment, root);
        // [1] and [1, 2] are internal (two stems share them); [1, 2, 3] is a leaf.
        let one = t.hypertree_top(&[1]).unwrap().unwrap();
        let one_two = t.hypertree_top(&[1, 2]).unwrap().unwrap();
        assert_eq!(one.kind, NodeKind::Internal);
        assert_eq!(one_two.kind, NodeKind::Internal);
        assert_ne!(one.commitment, one_two.commitment);
        let leaf = t.hypertree_top(&[1, 2, 3]).unwrap().unwrap();
        assert_eq!(leaf.kind, NodeKind::Leaf);
        // The leaf of [9, 0, ..] sits at depth 1 and is also the top of [9, 0] and [9, 0, 0].
        let nine = t.hypertree_top(&[9]).unwrap().unwrap();
        assert_eq!(nine.kind, NodeKind::Leaf);
        assert_eq!(t.hypertree_top(&[9, 0, 0]).unwrap(), Some(nine));
        assert_eq!(t.hypertree_top(&[9, 1]).unwrap(), None);
        assert_eq!(t.hypertree_top(&[2]).unwrap(), None);
        assert_eq!(HypertreeTop::mtf_or_zero(None), Fr::zero());
        assert_eq!(HypertreeTop::mtf_or_zero(Some(&nine)), nine.mtf);
    }
}
