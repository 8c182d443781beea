//! Recomputing commitments after changes (verkle-facts §3), by deltas, level by level.
//!
//! 1. Dirty leaves (any depth): each changed suffix moves `C1` or `C2` by
//!    `(new − old)·G_{2(s mod 128)}` and `(new − old)·G_{2(s mod 128)+1}` with
//!    `low = LE(v[0..16]) + 2^128`, `high = LE(v[16..32])` (absent = 0, 0); then one batched
//!    map-to-field for all changed `C1`/`C2`; then the leaf commitment moves by the changes of
//!    `mtf(C1)·G2`, `mtf(C2)·G3` (a new leaf: `G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3`);
//!    then one batched map-to-field for all leaves.
//! 2. Dirty internal nodes, deepest level first: each child whose map-to-field scalar moved
//!    adds `(new − old)·G_index`, a removed child subtracts its old scalar; one batched
//!    map-to-field per level.
//!
//! Nodes of one level are independent and are computed in parallel (rayon); results are
//! written back afterwards, so the computation only ever reads the arena.

use std::sync::OnceLock;

use banderwagon::arith::{One, Zero};
use banderwagon::{fr_from_le_bytes_mod_order, Element, Fr};
use ipa::Committer;
use rayon::prelude::*;

use super::node::{Arena, ChildRef, Leaf, Node, NodeId, DIRTY};
use crate::keys::Value;

/// Below this many items a level is computed on the calling thread.
const PARALLEL_MIN: usize = 32;
/// Points per batched map-to-field call on one thread.
const MTF_CHUNK: usize = 256;

/// Work done by one commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitCounts {
    /// Fixed-base scalar multiplications (one per changed commitment slot).
    pub scalar_muls: u64,
    /// Points mapped to the scalar field.
    pub maps_to_field: u64,
    /// Leaves recommitted.
    pub leaves: u64,
    /// Internal nodes recommitted.
    pub internal_nodes: u64,
}

fn two_pow_128() -> Fr {
    static T: OnceLock<Fr> = OnceLock::new();
    *T.get_or_init(|| Fr::from(u128::MAX) + Fr::one())
}

/// `(low, high)` of a value slot: `(LE(v[0..16]) + 2^128, LE(v[16..32]))`, or `(0, 0)`.
pub(crate) fn value_scalars(v: Option<&Value>) -> (Fr, Fr) {
    match v {
        None => (Fr::zero(), Fr::zero()),
        Some(v) => {
            let mut lo = [0u8; 16];
            lo.copy_from_slice(&v[..16]);
            let mut hi = [0u8; 16];
            hi.copy_from_slice(&v[16..]);
            (
                Fr::from(u128::from_le_bytes(lo)) + two_pow_128(),
                Fr::from(u128::from_le_bytes(hi)),
            )
        }
    }
}

/// A recommitted internal node: new commitment, `(entry position, committed scalar)` of the
/// children that moved, scalar multiplications done.
type InternalUpdate = (Element, Vec<(usize, Fr)>, u64);

/// `map_to_scalar_field` of many points: batched, chunks in parallel.
fn batch_mtf(points: &[Element]) -> Vec<Fr> {
    if points.len() <= MTF_CHUNK {
        return Element::batch_map_to_scalar_field(points);
    }
    let parts: Vec<Vec<Fr>> = points
        .par_chunks(MTF_CHUNK)
        .map(Element::batch_map_to_scalar_field)
        .collect();
    parts.concat()
}

fn map_maybe_par<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    if items.len() < PARALLEL_MIN {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

/// New `C1`, `C2` (`None` = unchanged) and the number of scalar multiplications.
fn suffix_commitments(
    leaf: &Leaf,
    committer: &Committer,
) -> (Option<Element>, Option<Element>, u64) {
    let mut t1: Vec<(usize, Fr)> = Vec::new();
    let mut t2: Vec<(usize, Fr)> = Vec::new();
    for (s, old) in &leaf.pending {
        let new = leaf.get(*s);
        if new == old.as_ref() {
            continue;
        }
        let (ol, oh) = value_scalars(old.as_ref());
        let (nl, nh) = value_scalars(new);
        let base = 2 * usize::from(s % 128);
        let terms = if *s < 128 { &mut t1 } else { &mut t2 };
        if ol != nl {
            terms.push((base, nl - ol));
        }
        if oh != nh {
            terms.push((base + 1, nh - oh));
        }
    }
    let muls = (t1.len() + t2.len()) as u64;
    let c1 = (!t1.is_empty()).then(|| leaf.c1 + committer.commit_sparse(&t1));
    let c2 = (!t2.is_empty()).then(|| leaf.c2 + committer.commit_sparse(&t2));
    (c1, c2, muls)
}

/// The new leaf commitment given the new `mtf(C1)`, `mtf(C2)`.
fn leaf_commitment(leaf: &Leaf, m1: &Fr, m2: &Fr, committer: &Committer) -> (Element, u64) {
    if leaf.fresh {
        let stem = fr_from_le_bytes_mod_order(&leaf.stem);
        let terms: Vec<(usize, Fr)> = [(0, Fr::one()), (1, stem), (2, *m1), (3, *m2)]
            .into_iter()
            .filter(|(_, v)| !v.is_zero())
            .collect();
        return (committer.commit_sparse(&terms), terms.len() as u64);
    }
    let mut terms = Vec::with_capacity(2);
    if *m1 != leaf.c1_mtf {
        terms.push((2, *m1 - leaf.c1_mtf));
    }
    if *m2 != leaf.c2_mtf {
        terms.push((3, *m2 - leaf.c2_mtf));
    }
    if terms.is_empty() {
        return (leaf.commitment, 0);
    }
    (
        leaf.commitment + committer.commit_sparse(&terms),
        terms.len() as u64,
    )
}

/// Recommits every dirty node below (and including) `root`.
pub(crate) fn commit(arena: &mut Arena, root: NodeId, committer: &Committer) -> CommitCounts {
    let mut counts = CommitCounts::default();
    if arena.get(root).flags() & DIRTY == 0 {
        return counts;
    }
    // Collect the dirty nodes: leaves (any depth) and internal nodes by depth.
    let mut leaves: Vec<NodeId> = Vec::new();
    let mut levels: Vec<Vec<NodeId>> = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((id, depth)) = stack.pop() {
        match arena.get(id) {
            Node::Leaf(_) => leaves.push(id),
            Node::Internal(n) => {
                if levels.len() <= depth {
                    levels.resize_with(depth + 1, Vec::new);
                }
                levels[depth].push(id);
                for e in &n.children {
                    if let ChildRef::Loaded(c) = e.child {
                        if arena.get(c).flags() & DIRTY != 0 {
                            stack.push((c, depth + 1));
                        }
                    }
                }
            }
        }
    }

    // Leaves: suffix commitments, their map-to-field, leaf commitments, their map-to-field.
    let arena_ref: &Arena = arena;
    let suffix: Vec<(Option<Element>, Option<Element>, u64)> = map_maybe_par(&leaves, |id| {
        suffix_commitments(arena_ref.leaf(*id), committer)
    });
    let changed: Vec<Element> = suffix
        .iter()
        .flat_map(|(a, b, _)| a.iter().chain(b.iter()).copied())
        .collect();
    let changed_mtf = batch_mtf(&changed);
    counts.maps_to_field += changed.len() as u64;
    let mut it = changed_mtf.into_iter();
    let mut new_suffix: Vec<(Fr, Fr)> = Vec::with_capacity(leaves.len());
    for (id, (a, b, muls)) in leaves.iter().zip(&suffix) {
        counts.scalar_muls += muls;
        let l = arena_ref.leaf(*id);
        let m1 = if a.is_some() { it.next() } else { None }.unwrap_or(l.c1_mtf);
        let m2 = if b.is_some() { it.next() } else { None }.unwrap_or(l.c2_mtf);
        new_suffix.push((m1, m2));
    }
    let work: Vec<(NodeId, (Fr, Fr))> = leaves.iter().copied().zip(new_suffix).collect();
    let leaf_c: Vec<(Element, u64)> = map_maybe_par(&work, |(id, (m1, m2))| {
        leaf_commitment(arena_ref.leaf(*id), m1, m2, committer)
    });
    let points: Vec<Element> = leaf_c.iter().map(|(c, _)| *c).collect();
    let leaf_mtf = batch_mtf(&points);
    counts.maps_to_field += points.len() as u64;
    counts.leaves += leaves.len() as u64;
    for (i, (id, (m1, m2))) in work.iter().enumerate() {
        let (a, b, _) = suffix[i];
        counts.scalar_muls += leaf_c[i].1;
        let l = arena.leaf_mut(*id);
        if let Some(c1) = a {
            l.c1 = c1;
        }
        if let Some(c2) = b {
            l.c2 = c2;
        }
        l.c1_mtf = *m1;
        l.c2_mtf = *m2;
        l.commitment = leaf_c[i].0;
        l.mtf = leaf_mtf[i];
        l.clear_pending();
        l.flags &= !DIRTY;
    }

    // Internal nodes, deepest first.
    for level in levels.iter().rev() {
        let arena_ref: &Arena = arena;
        let updates: Vec<InternalUpdate> = map_maybe_par(level, |id| {
            let n = arena_ref.internal(*id);
            let mut terms: Vec<(usize, Fr)> = Vec::new();
            let mut committed: Vec<(usize, Fr)> = Vec::new();
            for (pos, e) in n.children.iter().enumerate() {
                if let ChildRef::Loaded(c) = e.child {
                    let cur = arena_ref.get(c).mtf();
                    if cur != e.committed {
                        terms.push((usize::from(e.index), cur - e.committed));
                        committed.push((pos, cur));
                    }
                }
            }
            for (index, old) in &n.removed {
                if !old.is_zero() {
                    terms.push((usize::from(*index), -*old));
                }
            }
            let c = if terms.is_empty() {
                n.commitment
            } else {
                n.commitment + committer.commit_sparse(&terms)
            };
            (c, committed, terms.len() as u64)
        });
        let points: Vec<Element> = updates.iter().map(|(c, _, _)| *c).collect();
        let mtfs = batch_mtf(&points);
        counts.maps_to_field += points.len() as u64;
        counts.internal_nodes += level.len() as u64;
        for ((id, (c, committed, muls)), m) in level.iter().zip(updates).zip(mtfs) {
            counts.scalar_muls += muls;
            let n = arena.internal_mut(*id);
            n.commitment = c;
            n.mtf = m;
            for (pos, v) in committed {
                n.children[pos].committed = v;
            }
            n.removed.clear();
            n.flags &= !DIRTY;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_scalars_marker() {
        let (lo, hi) = value_scalars(Some(&[0u8; 32]));
        assert_eq!(lo, two_pow_128());
        assert_eq!(hi, Fr::zero());
        let mut v = [0u8; 32];
        v[0] = 1;
        v[16] = 2;
        let (lo, hi) = value_scalars(Some(&v));
        assert_eq!(lo, two_pow_128() + Fr::from(1u64));
        assert_eq!(hi, Fr::from(2u64));
        assert_eq!(value_scalars(None), (Fr::zero(), Fr::zero()));
    }
}
