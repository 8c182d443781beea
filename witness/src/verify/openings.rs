//! The openings `(path, z) → y` of the proven tree (`spec/WIRE.md` §6.3).

use crate::prelude::*;

use banderwagon::arith::{One, Zero};
use banderwagon::Fr;
use ipa::Opening;

use crate::leaf::{stem_field, value_halves};
use crate::view::StateDiff;

use super::{proven::*, shape::*};

/// The openings in `(path, z)` order before the points are decoded: each opening's value
/// where the witness gives it (a value half, a stem, 1, or 0 for an empty slot), and for the
/// others — a node's field in its parent, a suffix tree's field in its leaf — the index of
/// the commitment whose `map_to_scalar_field` is the value.
pub(super) struct OpeningPlan {
    /// The openings, each node's together, commitment indices ascending; values still to
    /// be filled are 0.
    pub(super) openings: Vec<Opening>,
    /// `(opening, commitment)`: `openings[opening]` takes the field of `commitment`.
    pub(super) fills: Vec<(u32, u32)>,
}

impl OpeningPlan {
    /// The openings with every value filled in from `fields` (indexed by commitment).
    pub(super) fn fill(self, fields: &[Fr]) -> Vec<Opening> {
        let mut openings = self.openings;
        for (o, c) in self.fills {
            if let (Some(slot), Some(f)) = (openings.get_mut(o as usize), fields.get(c as usize)) {
                slot.result = *f;
            }
        }
        openings
    }
}

/// Plans the openings of the shape's nodes (in path order; commitment `k` is the `k`-th node
/// that is not an empty slot, the root being 0).
///
/// One pass over the nodes in path order (a pre-order walk of the proven tree), with no
/// lookups by path: an internal node's openings are written with a placeholder value, and
/// each child claims its parent's next one when the walk reaches it (the children come in
/// the same order as the parent's opened indices). A leaf's suffix trees are the one or two
/// nodes right after it.
pub(super) fn plan_openings(nodes: &[(NodePath, Draft)], state_diff: StateDiff<'_>) -> OpeningPlan {
    let mut leaves = 0usize;
    let mut children = 0usize;
    for (_, draft) in nodes {
        match draft {
            Draft::Internal { children: c } => children += c.len(),
            Draft::Leaf { .. } => leaves += 1,
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(children + 4 * leaves + 2 * state_diff.suffix_diff_count());
    let mut fills: Vec<(u32, u32)> = Vec::with_capacity(children + 2 * leaves);
    // The internal nodes on the path to the current node: (depth, index of the next of its
    // openings that waits for a child's value, one past its last opening).
    let mut ancestors: Vec<(usize, usize, usize)> = Vec::with_capacity(MAX_PATH_LEN);
    let mut next_commitment = 0u32;
    for (i, (path, draft)) in nodes.iter().enumerate() {
        let depth = path.len();
        let commitment = if matches!(draft, Draft::Empty) {
            None
        } else {
            let c = next_commitment;
            next_commitment += 1;
            Some(c)
        };
        if !matches!(draft, Draft::SuffixTree { .. }) && depth > 0 {
            while ancestors.last().is_some_and(|&(d, _, _)| d >= depth) {
                ancestors.pop();
            }
            claim_parent_opening(&out, &mut fills, &mut ancestors, path, depth, commitment);
        }
        let Some(commitment) = commitment else {
            continue;
        };
        let first = out.len();
        let mut open = |point: u8, result: Fr| {
            out.push(Opening {
                commitment,
                point,
                result,
            });
        };
        match *draft {
            Draft::Internal { children } => {
                for z in children.iter() {
                    // Claimed by the child; an empty slot's field is 0.
                    open(z, Fr::zero());
                }
                ancestors.push((depth, first, first + children.len()));
            }
            Draft::Leaf { stem, .. } => {
                let Some(stem) = stem else { continue };
                open(0, Fr::one());
                open(1, stem_field(&stem));
                // The suffix trees follow the leaf and take the next commitments.
                let mut following = nodes.iter().skip(i + 1).take(2);
                let mut next = following.next();
                let mut suffix_commitment = commitment + 1;
                for byte in [SUFFIX_TREE_BYTE, SUFFIX_TREE_BYTE + 1] {
                    let Some((c_path, _)) = next else { break };
                    if Some(*c_path) == path.child(byte) {
                        if let Ok(o) = u32::try_from(out.len()) {
                            fills.push((o, suffix_commitment));
                        }
                        out.push(Opening {
                            commitment,
                            point: byte,
                            result: Fr::zero(),
                        });
                        suffix_commitment += 1;
                        next = following.next();
                    }
                }
            }
            Draft::SuffixTree { stem_index } => {
                let half_is_c2 = path.as_bytes().last() == Some(&(SUFFIX_TREE_BYTE + 1));
                let Some(s) = state_diff.get(stem_index) else {
                    continue;
                };
                for d in s.suffix_diffs.iter() {
                    if (d.suffix >= 128) != half_is_c2 {
                        continue;
                    }
                    let (low, high) = value_halves(d.current_value);
                    let z = 2 * (d.suffix % 128);
                    open(z, low);
                    open(z + 1, high);
                }
            }
            Draft::Empty => {}
        }
    }
    OpeningPlan {
        openings: out,
        fills,
    }
}

/// Claims, for the node at `path` (depth ≥ 1, not a suffix tree) with commitment
/// `commitment` (`None` for an empty slot, whose field 0 is already in place), its
/// parent's next waiting opening: that of the innermost ancestor, which is the parent.
pub(super) fn claim_parent_opening(
    openings: &[Opening],
    fills: &mut Vec<(u32, u32)>,
    ancestors: &mut [(usize, usize, usize)],
    path: &NodePath,
    depth: usize,
    commitment: Option<u32>,
) {
    let Some((parent_depth, next, end)) = ancestors.last_mut() else {
        return;
    };
    let index = path.as_bytes().last().copied();
    if *parent_depth + 1 != depth || *next >= *end {
        return;
    }
    if let Some(o) = openings.get(*next) {
        // The shape gives every opened index exactly one child node, in index order.
        debug_assert_eq!(Some(o.point), index);
        if Some(o.point) == index {
            if let (Some(c), Ok(at)) = (commitment, u32::try_from(*next)) {
                fills.push((at, c));
            }
            *next += 1;
        }
    }
}
