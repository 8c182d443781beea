//! The coordinator tree: a binary SHA-256 Merkle tree over the shard commitments
//! (`spec/FRACTIONAL.md` §3), and its multiproofs.
//!
//! `leaf_i = sha256(0x00 ‖ u16_be(i) ‖ compress(C_i))`, `node = sha256(0x01 ‖ L ‖ R)`; an empty
//! shard's commitment is the identity point (32 zero bytes). With `2^h` shards the tree has
//! `h` levels above the leaves (8 for 256 shards, 16 for 65,536).
//!
//! A multiproof for a set of leaves carries only the siblings that cannot be computed from
//! those leaves: level by level from the leaves up, positions ascending, for every known node
//! whose sibling is not known. [`fold_multiproof`] consumes them in that order.

use crate::prelude::*;

use sha2::{Digest, Sha256};

/// Domain byte of a leaf hash.
pub const LEAF_DOMAIN: u8 = 0x00;
/// Domain byte of an inner-node hash.
pub const NODE_DOMAIN: u8 = 0x01;

/// `sha256(0x00 ‖ u16_be(index) ‖ commitment)`: the coordinator leaf of shard `index`.
pub fn leaf_hash(index: u16, commitment: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([LEAF_DOMAIN]);
    h.update(index.to_be_bytes());
    h.update(commitment);
    h.finalize().into()
}

/// `sha256(0x01 ‖ left ‖ right)`: an inner node of the coordinator tree.
pub fn node_hash(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([NODE_DOMAIN]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Why a coordinator multiproof does not yield a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MerkleProofError {
    /// The proof ran out of siblings.
    #[error("the multiproof has {got} siblings; the leaves need more")]
    TooFewSiblings {
        /// Siblings given.
        got: usize,
    },
    /// Siblings are left over after the root was reached.
    #[error("the multiproof has {got} siblings; the leaves need {used}")]
    TooManySiblings {
        /// Siblings given.
        got: usize,
        /// Siblings used.
        used: usize,
    },
    /// Leaf positions are not strictly ascending or do not fit the tree's height.
    #[error("leaf position {position} is out of order or beyond a tree of height {height}")]
    BadLeafPosition {
        /// The offending position.
        position: u32,
        /// The tree's height.
        height: u8,
    },
}

/// Walks a multiproof from the leaves `(position, hash)` (positions strictly ascending) up
/// to the root of a tree of `height` levels. `sibling(k)` gives the `k`-th sibling of the
/// canonical order, `None` past the end; it is called once per needed sibling, in order.
/// Returns the root and the number of siblings used.
pub fn fold_multiproof<'a>(
    height: u8,
    leaves: &[(u32, [u8; 32])],
    mut sibling: impl FnMut(usize) -> Option<&'a [u8; 32]>,
) -> Result<([u8; 32], usize), MerkleProofError> {
    let width = 1u64 << height;
    let mut prev: Option<u32> = None;
    for &(position, _) in leaves {
        if u64::from(position) >= width || prev.is_some_and(|p| position <= p) {
            return Err(MerkleProofError::BadLeafPosition { position, height });
        }
        prev = Some(position);
    }
    let mut level: Vec<(u32, [u8; 32])> = leaves.to_vec();
    let mut next: Vec<(u32, [u8; 32])> = Vec::with_capacity(level.len());
    let mut used = 0usize;
    for _ in 0..height {
        next.clear();
        let mut i = 0;
        while let Some(&(pos, hash)) = level.get(i) {
            let pair = level
                .get(i + 1)
                .filter(|(p, _)| pos % 2 == 0 && *p == pos + 1);
            let parent = match pair {
                Some((_, right)) => {
                    i += 2;
                    node_hash(&hash, right)
                }
                None => {
                    let sib =
                        sibling(used).ok_or(MerkleProofError::TooFewSiblings { got: used })?;
                    used += 1;
                    i += 1;
                    if pos % 2 == 0 {
                        node_hash(&hash, sib)
                    } else {
                        node_hash(sib, &hash)
                    }
                }
            };
            next.push((pos / 2, parent));
        }
        core::mem::swap(&mut level, &mut next);
    }
    let root = level.first().map_or([0u8; 32], |(_, h)| *h);
    Ok((root, used))
}

/// The siblings a multiproof for the leaves at `positions` (strictly ascending) carries,
/// in canonical order, read from a full tree `levels` (`levels[0]` the `2^h` leaves,
/// `levels[h]` the root).
pub fn multiproof_siblings(levels: &[Vec<[u8; 32]>], positions: &[u32]) -> Vec<[u8; 32]> {
    let mut out = Vec::new();
    let mut known: Vec<u32> = positions.to_vec();
    let mut next: Vec<u32> = Vec::with_capacity(known.len());
    for level in levels.iter().take(levels.len().saturating_sub(1)) {
        next.clear();
        let mut i = 0;
        while let Some(&pos) = known.get(i) {
            if pos % 2 == 0 && known.get(i + 1) == Some(&(pos + 1)) {
                i += 2;
            } else {
                if let Some(s) = level.get((pos ^ 1) as usize) {
                    out.push(*s);
                }
                i += 1;
            }
            next.push(pos / 2);
        }
        core::mem::swap(&mut known, &mut next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_tree(height: u8) -> Vec<Vec<[u8; 32]>> {
        let mut levels = vec![(0..1u32 << height)
            .map(|i| leaf_hash(i as u16, &[i as u8; 32]))
            .collect::<Vec<_>>()];
        while levels.last().map_or(0, Vec::len) > 1 {
            let prev = levels.last().cloned().unwrap_or_default();
            levels.push(prev.chunks(2).map(|p| node_hash(&p[0], &p[1])).collect());
        }
        levels
    }

    #[test]
    fn multiproofs_fold_to_the_root() {
        let levels = full_tree(4);
        let root = levels[4][0];
        for positions in [
            vec![0u32],
            vec![15],
            vec![0, 1],
            vec![3, 4, 9],
            (0..16).collect(),
        ] {
            let sibs = multiproof_siblings(&levels, &positions);
            let leaves: Vec<(u32, [u8; 32])> = positions
                .iter()
                .map(|&p| (p, levels[0][p as usize]))
                .collect();
            let (got, used) = fold_multiproof(4, &leaves, |k| sibs.get(k)).unwrap();
            assert_eq!((got, used), (root, sibs.len()), "positions {positions:?}");
        }
        // Every sibling is needed: one leaf of 16 takes 4, all leaves take none.
        assert_eq!(multiproof_siblings(&levels, &[5]).len(), 4);
        assert!(multiproof_siblings(&levels, &(0..16).collect::<Vec<_>>()).is_empty());
    }

    #[test]
    fn bad_positions_and_short_proofs() {
        let leaf = [0u8; 32];
        assert_eq!(
            fold_multiproof(2, &[(4, leaf)], |_| None),
            Err(MerkleProofError::BadLeafPosition {
                position: 4,
                height: 2
            })
        );
        assert_eq!(
            fold_multiproof(2, &[(1, leaf), (1, leaf)], |_| None),
            Err(MerkleProofError::BadLeafPosition {
                position: 1,
                height: 2
            })
        );
        assert_eq!(
            fold_multiproof(2, &[(1, leaf)], |_| None),
            Err(MerkleProofError::TooFewSiblings { got: 0 })
        );
    }
}
