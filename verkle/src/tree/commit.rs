//! Recomputing commitments after changes (`spec/WIRE.md` §13), by deltas, level by level.
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

use banderwagon::arith::{One, Zero};
use banderwagon::{Element, Fr};
use ipa::Committer;
use rayon::prelude::*;

use super::node::{Arena, ChildRef, Leaf, Node, NodeId, DIRTY};
use witness::leaf::{stem_field, value_halves};

/// Below this many items a level is computed on the calling thread.
const PARALLEL_MIN: usize = 32;

/// Multiplications per parallel task, at most (a small batch is split finer, so that every
/// thread gets a share: [`mul_chunk`]).
const MUL_CHUNK: usize = 256;
/// Multiplications per parallel task, at least.
const MUL_CHUNK_MIN: usize = 16;
/// Multiplications whose products are held at once (about 5 MB of points).
pub(super) const MUL_WINDOW: usize = 32_768;

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

/// `map_to_scalar_field` of many points: batched, chunks in parallel.
pub(super) fn batch_mtf(points: &[Element]) -> Vec<Fr> {
    Element::par_batch_map_to_scalar_field(points)
}

/// One fixed-base scalar multiplication of a batch: `scalar·G_base`, added to `target`.
#[derive(Clone, Copy)]
pub(super) struct Term {
    pub(super) base: u16,
    pub(super) target: u32,
    pub(super) scalar: Fr,
}

impl Term {
    pub(super) fn new(target: usize, base: usize, scalar: Fr) -> Term {
        Term {
            base: base as u16,
            target: target as u32,
            scalar,
        }
    }
}

/// One internal node's terms and the (entry position, new scalar) of its moved children.
pub(super) type NodeTerms = (Vec<Term>, Vec<(usize, Fr)>);

/// Targets × [`BY_TARGET_MAX_TERMS`] per parallel task of [`sum_terms`]'s target-by-target
/// order.
const TERM_CHUNK: usize = 512;
/// [`sum_terms`] sums target by target while the targets average at most this many terms.
const BY_TARGET_MAX_TERMS: usize = 4;

/// `Σ scalar·G_base` per target (`targets` sums; a target without terms is the identity).
///
/// Two orders, both keeping consecutive multiplications on the same generators' precomputed
/// rows (which then stay in the core's cache instead of each multiplication missing it):
/// - with `by_target` and few terms per target (suffix commitments, whose terms come in
///   pairs on adjacent generators `G_2s`, `G_2s+1`): target by target, the targets ordered
///   by their smallest generator, each target's terms accumulated into one point (no
///   product held, no sum of products);
/// - otherwise in generator order over all terms, the products then summed per target.
///   (Target by target would interleave unrelated generators here: slower on a bench of
///   growing trees, whose internal levels have a few terms per node on random generators.)
fn sum_terms(
    terms: Vec<Term>,
    targets: usize,
    committer: &Committer,
    by_target: bool,
) -> Vec<Element> {
    if terms.len() < PARALLEL_MIN {
        return sums_by_generator(terms, targets, committer);
    }
    let mut out = vec![Element::identity(); targets];
    // Counting sort of the terms by target.
    let mut start = vec![0u32; targets + 1];
    for t in &terms {
        start[t.target as usize + 1] += 1;
    }
    for i in 0..targets {
        start[i + 1] += start[i];
    }
    let with_terms = (0..targets).filter(|&i| start[i] < start[i + 1]).count();
    if by_target && terms.len() <= BY_TARGET_MAX_TERMS * with_terms {
        let mut fill = start.clone();
        let mut grouped = vec![(0usize, Fr::zero()); terms.len()];
        for t in &terms {
            let slot = &mut fill[t.target as usize];
            grouped[*slot as usize] = (usize::from(t.base), t.scalar);
            *slot += 1;
        }
        drop(terms);
        // (smallest generator, target) of every target with terms, in generator order.
        let mut order: Vec<(usize, u32)> = (0..targets)
            .filter(|&i| start[i] < start[i + 1])
            .map(|i| {
                let g = &mut grouped[start[i] as usize..start[i + 1] as usize];
                g.sort_unstable_by_key(|(base, _)| *base);
                (g[0].0, i as u32)
            })
            .collect();
        order.sort_unstable();
        let grouped = &grouped;
        let start = &start;
        let sums: Vec<Element> = order
            .par_chunks(TERM_CHUNK / BY_TARGET_MAX_TERMS)
            .flat_map_iter(|chunk| {
                let mut sums = vec![Element::identity(); chunk.len()];
                let terms = chunk.iter().map(|&(_, i)| {
                    let i = i as usize;
                    &grouped[start[i] as usize..start[i + 1] as usize]
                });
                committer.commit_sparse_many(terms, &mut sums);
                sums
            })
            .collect();
        for ((_, i), s) in order.into_iter().zip(sums) {
            out[i as usize] = s;
        }
        return out;
    }
    sums_by_generator(terms, targets, committer)
}

/// `Σ scalar·G_base` for each of `targets` sums (the identity for a target without
/// multiplications). The multiplications run in generator order, in parallel; each sum is
/// then added up from its products.
///
/// The steps between the multiplications are kept linear and cheap, as they partly run
/// while other threads wait: the terms are put in generator order by a counting sort (the
/// comparison sort it replaces took 1.6–2.4 ms per 10k-update block, at 2 and 1 threads),
/// the products are written in place in parallel (no per-task lists joined afterwards), and
/// a sum starts as its first product instead of as the identity plus it.
pub(super) fn sums_by_generator(
    muls: Vec<Term>,
    targets: usize,
    committer: &Committer,
) -> Vec<Element> {
    let mut out = vec![Element::identity(); targets];
    let mul = |m: &Term| committer.scalar_mul(usize::from(m.base), &m.scalar);
    if muls.len() < PARALLEL_MIN {
        for m in &muls {
            if let Some(o) = out.get_mut(m.target as usize) {
                *o += mul(m);
            }
        }
        return out;
    }
    let muls = by_generator(muls);
    // Per window: the products, then each target's products added up ([`add_products`]).
    let mut started = vec![false; targets];
    let mut products: Vec<Element> = Vec::new();
    for window in muls.chunks(MUL_WINDOW) {
        // Tasks of `chunk` products, each batch computed by `scalar_mul_many` (eight side
        // by side where the processor allows).
        let chunk = mul_chunk(window.len());
        products.clear();
        products.resize(window.len(), Element::identity());
        window
            .par_chunks(chunk)
            .zip(products.par_chunks_mut(chunk))
            .for_each(|(terms, out)| {
                committer
                    .scalar_mul_many(terms.iter().map(|m| (usize::from(m.base), &m.scalar)), out)
            });
        add_products(window, &products, &mut out, &mut started);
    }
    out
}

/// `muls` in generator order (a stable counting sort: within a generator, the terms keep
/// their order). The order only serves the cache; the sums do not depend on it.
fn by_generator(muls: Vec<Term>) -> Vec<Term> {
    let bucket = |m: &Term| usize::from(m.base).min(255);
    let mut start = [0usize; 257];
    for m in &muls {
        start[bucket(m) + 1] += 1;
    }
    for i in 0..256 {
        start[i + 1] += start[i];
    }
    let mut sorted = muls.clone();
    for m in muls {
        let slot = &mut start[bucket(&m)];
        sorted[*slot] = m;
        *slot += 1;
    }
    sorted
}

/// The task size for `muls` multiplications: [`MUL_CHUNK`], or less when that would leave
/// threads idle (a level of 256 shard roots is 256 multiplications: one task of
/// [`MUL_CHUNK`] would run them all on one thread).
fn mul_chunk(muls: usize) -> usize {
    (muls / (4 * rayon::current_num_threads()).max(1)).clamp(MUL_CHUNK_MIN, MUL_CHUNK)
}

/// Adds a window's products into their targets' sums (`products[i]` is `window[i]`'s): the
/// products grouped by target (a counting sort), then each target's group added in
/// parallel. A sum not `started` yet takes its first product as it is (no addition to the
/// identity).
fn add_products(window: &[Term], products: &[Element], out: &mut [Element], started: &mut [bool]) {
    let targets = out.len();
    let mut first = vec![0u32; targets + 1];
    for t in window {
        if let Some(f) = first.get_mut(t.target as usize + 1) {
            *f += 1;
        }
    }
    for i in 0..targets {
        first[i + 1] += first[i];
    }
    let mut next = first.clone();
    let mut order = vec![0u32; window.len()];
    for (i, t) in window.iter().enumerate() {
        if let Some(n) = next.get_mut(t.target as usize) {
            order[*n as usize] = i as u32;
            *n += 1;
        }
    }
    let (first, order) = (&first, &order);
    out.par_iter_mut()
        .zip(started.par_iter_mut())
        .enumerate()
        .for_each(|(target, (acc, started))| {
            for &i in &order[first[target] as usize..first[target + 1] as usize] {
                let Some(&p) = products.get(i as usize) else {
                    continue;
                };
                if *started {
                    *acc += p;
                } else {
                    *acc = p;
                    *started = true;
                }
            }
        });
}

/// The suffix-commitment terms of one leaf (`target` 2·i for `C1`, 2·i + 1 for `C2`).
pub(super) fn suffix_terms(i: usize, leaf: &Leaf) -> impl Iterator<Item = Term> + '_ {
    leaf.pending.iter().flat_map(move |(s, old)| {
        let new = leaf.get(*s);
        let (ol, oh) = value_halves(old.as_ref());
        let (nl, nh) = value_halves(new);
        let base = 2 * usize::from(s % 128);
        let target = 2 * i + usize::from(*s >= 128);
        let lo = (ol != nl).then(|| Term::new(target, base, nl - ol));
        let hi = (oh != nh).then(|| Term::new(target, base + 1, nh - oh));
        lo.into_iter().chain(hi)
    })
}

/// The terms (target `i`) that move internal node `id`'s commitment: for each loaded child
/// whose map-to-field changed, `(new − committed)·G_index`; for each removed child,
/// `−old·G_index`. Returns the (entry position, new scalar) of the children that moved.
pub(super) fn internal_terms(
    arena: &Arena,
    id: NodeId,
    i: usize,
    terms: &mut Vec<Term>,
) -> Vec<(usize, Fr)> {
    let n = arena.internal(id);
    let mut committed: Vec<(usize, Fr)> = Vec::new();
    for (pos, e) in n.children.iter().enumerate() {
        if let ChildRef::Loaded(c) = e.child {
            let cur = arena.get(c).mtf();
            if cur != e.committed {
                terms.push(Term::new(i, usize::from(e.index), cur - e.committed));
                committed.push((pos, cur));
            }
        }
    }
    for (index, old) in &n.removed {
        if !old.is_zero() {
            terms.push(Term::new(i, usize::from(*index), -*old));
        }
    }
    committed
}

/// The leaf-commitment terms of leaf `i` given its new `mtf(C1)`, `mtf(C2)`: a new leaf
/// `1·G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3` (without the constant `1·G0` term when
/// `with_g0` is false: the caller then adds that point itself), a committed one the changes
/// of `mtf(C1)·G2` and `mtf(C2)·G3`.
pub(super) fn leaf_terms(
    i: usize,
    leaf: &Leaf,
    (m1, m2): (Fr, Fr),
    with_g0: bool,
    out: &mut Vec<Term>,
) {
    let (old1, old2) = if leaf.fresh {
        if with_g0 {
            out.push(Term::new(i, 0, Fr::one()));
        }
        out.push(Term::new(i, 1, stem_field(&leaf.stem)));
        (Fr::zero(), Fr::zero())
    } else {
        (leaf.c1_mtf, leaf.c2_mtf)
    };
    if m1 != old1 {
        out.push(Term::new(i, 2, m1 - old1));
    }
    if m2 != old2 {
        out.push(Term::new(i, 3, m2 - old2));
    }
}

/// The dirty nodes below (and including) `root`: the leaves (any depth), and the internal
/// nodes by depth (`levels[d]`: depth `d`). Nothing when `root` is clean.
pub(super) fn dirty_nodes(arena: &Arena, root: NodeId) -> (Vec<NodeId>, Vec<Vec<NodeId>>) {
    let mut leaves: Vec<NodeId> = Vec::new();
    let mut levels: Vec<Vec<NodeId>> = Vec::new();
    if arena.get(root).flags() & DIRTY == 0 {
        return (leaves, levels);
    }
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
    (leaves, levels)
}

/// Recommits every dirty node below (and including) `root`.
pub(crate) fn commit(arena: &mut Arena, root: NodeId, committer: &Committer) -> CommitCounts {
    let mut counts = CommitCounts::default();
    if arena.get(root).flags() & DIRTY == 0 {
        return counts;
    }
    let (leaves, levels) = dirty_nodes(arena, root);

    // Leaves: suffix commitments, their map-to-field, leaf commitments, their map-to-field.
    let arena_ref: &Arena = arena;
    let terms: Vec<Term> = if leaves.len() < PARALLEL_MIN {
        leaves
            .iter()
            .enumerate()
            .flat_map(|(i, id)| suffix_terms(i, arena_ref.leaf(*id)))
            .collect()
    } else {
        leaves
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, id)| suffix_terms(i, arena_ref.leaf(*id)))
            .collect()
    };
    counts.scalar_muls += terms.len() as u64;
    let deltas = sum_terms(terms, 2 * leaves.len(), committer, true);
    // A suffix commitment moved when its delta is not the identity (a new leaf's suffix
    // commitments start at the identity: the delta is the commitment).
    let moved = |l: &Leaf, c: Element, d: Element| {
        (!d.is_identity()).then(|| if l.fresh { d } else { c + d })
    };
    // Serial, like the other cheap steps between the sums: on a loaded machine every extra
    // parallel section costs a wait for the second thread.
    let new_suffix: Vec<(Option<Element>, Option<Element>)> = leaves
        .iter()
        .zip(deltas.chunks_exact(2))
        .map(|(id, d)| {
            let l = arena_ref.leaf(*id);
            (moved(l, l.c1, d[0]), moved(l, l.c2, d[1]))
        })
        .collect();
    drop(deltas);
    let changed: Vec<Element> = new_suffix
        .iter()
        .flat_map(|(a, b)| a.iter().chain(b.iter()).copied())
        .collect();
    let changed_mtf = batch_mtf(&changed);
    counts.maps_to_field += changed.len() as u64;
    drop(changed);
    let mut it = changed_mtf.into_iter();
    let mut new_mtf: Vec<(Fr, Fr)> = Vec::with_capacity(leaves.len());
    let mut terms: Vec<Term> = Vec::new();
    let mut fresh = 0u64;
    for (i, (id, (a, b))) in leaves.iter().zip(&new_suffix).enumerate() {
        let l = arena_ref.leaf(*id);
        let m1 = if a.is_some() { it.next() } else { None }.unwrap_or(l.c1_mtf);
        let m2 = if b.is_some() { it.next() } else { None }.unwrap_or(l.c2_mtf);
        fresh += u64::from(l.fresh);
        leaf_terms(i, l, (m1, m2), true, &mut terms);
        new_mtf.push((m1, m2));
    }
    // The constant `G0` terms of new leaves are not multiplications.
    counts.scalar_muls += terms.len() as u64 - fresh;
    let leaf_deltas = sum_terms(terms, leaves.len(), committer, false);
    let point = |(id, d): (&NodeId, &Element)| {
        let l = arena_ref.leaf(*id);
        if l.fresh {
            *d
        } else {
            l.commitment + *d
        }
    };
    let points: Vec<Element> = leaves.iter().zip(&leaf_deltas).map(point).collect();
    let leaf_mtf = batch_mtf(&points);
    counts.maps_to_field += points.len() as u64;
    counts.leaves += leaves.len() as u64;
    for (i, id) in leaves.iter().enumerate() {
        let (a, b) = new_suffix[i];
        let (m1, m2) = new_mtf[i];
        let l = arena.leaf_mut(*id);
        if let Some(c1) = a {
            l.c1 = c1;
        }
        if let Some(c2) = b {
            l.c2 = c2;
        }
        l.c1_mtf = m1;
        l.c2_mtf = m2;
        l.commitment = points[i];
        l.mtf = leaf_mtf[i];
        l.clear_pending();
        l.flags &= !DIRTY;
    }

    // Internal nodes, deepest first.
    for level in levels.iter().rev() {
        let arena_ref: &Arena = arena;
        // Per node: its terms and the (entry position, new scalar) of the children that moved.
        let node_terms = |(i, id): (usize, &NodeId)| {
            let mut terms: Vec<Term> = Vec::new();
            let committed = internal_terms(arena_ref, *id, i, &mut terms);
            (terms, committed)
        };
        let per_node: Vec<NodeTerms> = level.iter().enumerate().map(node_terms).collect();
        let mut terms: Vec<Term> = Vec::with_capacity(per_node.iter().map(|p| p.0.len()).sum());
        let mut moved: Vec<Vec<(usize, Fr)>> = Vec::with_capacity(level.len());
        for (t, m) in per_node {
            terms.extend(t);
            moved.push(m);
        }
        counts.scalar_muls += terms.len() as u64;
        let deltas = sum_terms(terms, level.len(), committer, false);
        // A node created since the last commit starts at the identity.
        let point = |(id, d): (&NodeId, &Element)| {
            let c = arena_ref.internal(*id).commitment;
            if c.is_identity() {
                *d
            } else {
                c + *d
            }
        };
        let points: Vec<Element> = level.iter().zip(&deltas).map(point).collect();
        let mtfs = batch_mtf(&points);
        counts.maps_to_field += points.len() as u64;
        counts.internal_nodes += level.len() as u64;
        for (((id, c), committed), m) in level.iter().zip(points).zip(moved).zip(mtfs) {
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

    /// Generator order, stable within a generator, every term kept.
    #[test]
    fn by_generator_is_a_stable_counting_sort() {
        let muls: Vec<Term> = (0..5000u64)
            .map(|t| {
                let base = (t.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize;
                Term::new(t as usize, base, Fr::from(t * 7 + 1))
            })
            .collect();
        let sorted = by_generator(muls.clone());
        let mut expected = muls;
        expected.sort_by_key(|m| m.base);
        let key = |m: &Term| (m.base, m.target, m.scalar);
        assert_eq!(
            sorted.iter().map(key).collect::<Vec<_>>(),
            expected.iter().map(key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn sum_terms_matches_per_target_commitments() {
        let committer = Committer::eip6800();
        // More terms than one window, a target without terms, repeated generators.
        let targets = 700;
        let terms: Vec<Term> = (0..MUL_WINDOW + 3_000)
            .map(|i| {
                let target = (i * 7919) % targets;
                let target = if target == 5 { 6 } else { target };
                Term::new(target, (i * 31) % 256, Fr::from(i as u64 * 1_000_003 + 1))
            })
            .collect();
        let mut per_target: Vec<Vec<(usize, Fr)>> = vec![Vec::new(); targets];
        for t in &terms {
            per_target[t.target as usize].push((usize::from(t.base), t.scalar));
        }
        let sums = sum_terms(terms.clone(), targets, committer, false);
        for (target, expected) in per_target.iter().enumerate() {
            assert_eq!(
                sums[target],
                committer.commit_sparse(expected),
                "target {target}"
            );
        }
        assert!(sums[5].is_identity());
        // Many terms per target: `by_target` leaves the generator order in place.
        assert_eq!(sum_terms(terms, targets, committer, true), sums);
        // Few terms: the sequential path.
        let few = vec![
            Term::new(1, 3, Fr::from(9u64)),
            Term::new(1, 4, Fr::from(2u64)),
        ];
        let sums = sum_terms(few, 2, committer, false);
        assert!(sums[0].is_identity());
        assert_eq!(
            sums[1],
            committer.commit_sparse(&[(3, Fr::from(9u64)), (4, Fr::from(2u64))])
        );
    }

    #[test]
    fn sum_terms_by_target_matches_per_target_commitments() {
        let committer = Committer::eip6800();
        // Few terms per target (the target-by-target path), with fast-table generators
        // (0..5), repeated generators within a target, and targets without terms.
        let targets = 3_000;
        let terms: Vec<Term> = (0..5_000usize)
            .filter(|i| (i * 7) % targets % 10 != 3)
            .map(|i| {
                let target = (i * 7) % targets;
                let base = if i % 3 == 0 { i % 5 } else { (i * 31) % 256 };
                let scalar = if i % 11 == 0 {
                    -Fr::from(i as u64 + 1)
                } else {
                    Fr::from(i as u64 * 1_000_003 + 1)
                };
                Term::new(target, base, scalar)
            })
            .collect();
        let mut per_target: Vec<Vec<(usize, Fr)>> = vec![Vec::new(); targets];
        for t in &terms {
            per_target[t.target as usize].push((usize::from(t.base), t.scalar));
        }
        let with_terms = per_target.iter().filter(|t| !t.is_empty()).count();
        assert!(terms.len() <= BY_TARGET_MAX_TERMS * with_terms);
        assert!(with_terms < targets);
        let sums = sum_terms(terms.clone(), targets, committer, true);
        for (target, expected) in per_target.iter().enumerate() {
            assert_eq!(
                sums[target],
                committer.commit_sparse(expected),
                "target {target}"
            );
        }
        // The same terms in generator order.
        assert_eq!(sum_terms(terms, targets, committer, false), sums);
    }
}
