//! Committing many trees at once: the shards (hypertrees) of a fractional tree, each its own
//! [`Tree`] under one stem prefix.
//!
//! [`commit_many`] recomputes the changed nodes of every tree exactly as [`Tree::commit`]
//! does for one (verkle-facts §3), but runs each phase once over all the trees: the
//! suffix-commitment multiplications of every changed leaf, one batched map-to-field of the
//! moved suffix commitments, the leaf-commitment multiplications, one batched map-to-field
//! of the leaves, then per depth (deepest first) the internal nodes of that depth in every
//! tree. Committing shards one by one gives each shard a few dozen multiplications per
//! phase spread over all 256 generators, so every multiplication reads a generator table
//! that is not in the cache; batched over all shards, the multiplications are computed in
//! generator order and consecutive ones share their table rows (about 1.6× faster per
//! multiplication), and the map-to-field batches (one field inversion each) are few and
//! large instead of five per shard.

use banderwagon::arith::One;
use banderwagon::{Element, Fr};
use ipa::Committer;
use rayon::prelude::*;

use super::commit::{batch_mtf, internal_terms, leaf_terms, suffix_terms, Term};
use super::node::{Arena, ChildRef, Node, NodeId, DIRTY};
use super::{CommitCounts, Tree};
use crate::store::NodeStore;

/// Below this many items a batch is computed on the calling thread.
const PARALLEL_MIN: usize = 32;
/// Multiplications per parallel task.
const MUL_CHUNK: usize = 256;
/// Multiplications whose products are held at once (about 5 MB of points).
const MUL_WINDOW: usize = 32_768;

/// A node of one of the trees: (tree position, arena id).
type At = (usize, NodeId);

/// `Σ scalar·G_base` for each of `targets` sums (the identity for a target without
/// multiplications). The multiplications run in generator order, in parallel; each sum is
/// then added up from its products.
fn sums(mut muls: Vec<Term>, targets: usize, committer: &Committer) -> Vec<Element> {
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
    muls.sort_unstable_by_key(|m| (m.base, m.target));
    // Per window: the products, then (counting sort by target) each target's products
    // added up in parallel.
    let mut first = vec![0u32; targets + 1];
    for window in muls.chunks(MUL_WINDOW) {
        let products: Vec<Element> = window
            .par_chunks(MUL_CHUNK)
            .flat_map_iter(|chunk| chunk.iter().map(mul))
            .collect();
        first.iter_mut().for_each(|f| *f = 0);
        for m in window {
            if let Some(f) = first.get_mut(m.target as usize + 1) {
                *f += 1;
            }
        }
        for i in 0..targets {
            first[i + 1] += first[i];
        }
        let mut next = first.clone();
        let mut by_target = vec![0u32; window.len()];
        for (i, m) in window.iter().enumerate() {
            if let Some(n) = next.get_mut(m.target as usize) {
                by_target[*n as usize] = i as u32;
                *n += 1;
            }
        }
        let (first, by_target, products) = (&first, &by_target, &products);
        out.par_iter_mut().enumerate().for_each(|(t, acc)| {
            for &i in &by_target[first[t] as usize..first[t + 1] as usize] {
                *acc += products[i as usize];
            }
        });
    }
    out
}

/// Recommits every changed node of all `trees`, batching each phase over all of them (see
/// the module text); afterwards each tree's [`Tree::commit`] has nothing left to do and
/// returns the same root as if it had committed alone. Every tree uses the EIP-6800
/// committer (as every [`Tree`] does).
///
/// ```
/// let (mut a, mut b) = (verkle::Tree::new(), verkle::Tree::new());
/// a.insert(&[1u8; 32], [2u8; 32]).unwrap();
/// b.insert(&[3u8; 32], [4u8; 32]).unwrap();
/// verkle::tree::prefix::commit_many(&mut [&mut a, &mut b]);
/// let mut single = verkle::Tree::new();
/// single.insert(&[1u8; 32], [2u8; 32]).unwrap();
/// assert_eq!(a.root_bytes(), single.root_bytes());
/// ```
pub fn commit_many<S: NodeStore + Send>(trees: &mut [&mut Tree<S>]) {
    let Some(first) = trees.first() else {
        return;
    };
    let committer: &Committer = first.committer;
    let mut counts = vec![CommitCounts::default(); trees.len()];

    // The changed nodes of every tree: leaves (any depth) and internal nodes by depth.
    let mut leaves: Vec<At> = Vec::new();
    let mut levels: Vec<Vec<At>> = Vec::new();
    for (t, tree) in trees.iter().enumerate() {
        let arena = &tree.arena;
        if arena.get(tree.root).flags() & DIRTY == 0 {
            continue;
        }
        let mut stack = vec![(tree.root, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            match arena.get(id) {
                Node::Leaf(_) => leaves.push((t, id)),
                Node::Internal(n) => {
                    if levels.len() <= depth {
                        levels.resize_with(depth + 1, Vec::new);
                    }
                    levels[depth].push((t, id));
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
    }

    commit_leaves(trees, &leaves, committer, &mut counts);
    for level in levels.iter().rev() {
        commit_internal(trees, level, committer, &mut counts);
    }
    for (tree, c) in trees.iter_mut().zip(counts) {
        tree.counts.scalar_muls += c.scalar_muls;
        tree.counts.maps_to_field += c.maps_to_field;
        tree.counts.leaves += c.leaves;
        tree.counts.internal_nodes += c.internal_nodes;
    }
}

/// The leaves phase of [`commit_many`].
fn commit_leaves<S: NodeStore + Send>(
    trees: &mut [&mut Tree<S>],
    leaves: &[At],
    committer: &Committer,
    counts: &mut [CommitCounts],
) {
    if leaves.is_empty() {
        return;
    }
    let arenas: Vec<&Arena> = trees.iter().map(|t| &t.arena).collect();
    let leaf = |&(t, id): &At| arenas[t].leaf(id);
    let muls: Vec<Term> = if leaves.len() < PARALLEL_MIN {
        leaves
            .iter()
            .enumerate()
            .flat_map(|(i, at)| suffix_terms(i, leaf(at)))
            .collect()
    } else {
        leaves
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, at)| suffix_terms(i, leaf(at)))
            .collect()
    };
    for m in &muls {
        counts[leaves[m.target as usize / 2].0].scalar_muls += 1;
    }
    let deltas = sums(muls, 2 * leaves.len(), committer);
    // A suffix commitment moved when its delta is not the identity.
    let mut moved: Vec<Element> = Vec::new();
    let mut new_suffix: Vec<(Option<Element>, Option<Element>)> = Vec::with_capacity(leaves.len());
    for (at, d) in leaves.iter().zip(deltas.chunks_exact(2)) {
        let l = leaf(at);
        let c1 = (!d[0].is_identity()).then(|| l.c1 + d[0]);
        let c2 = (!d[1].is_identity()).then(|| l.c2 + d[1]);
        moved.extend(c1.iter().chain(c2.iter()));
        new_suffix.push((c1, c2));
        counts[at.0].maps_to_field += (c1.is_some() as u64) + (c2.is_some() as u64);
    }
    let mut moved_mtf = batch_mtf(&moved).into_iter();
    let mut new_mtf: Vec<(Fr, Fr)> = Vec::with_capacity(leaves.len());
    let mut muls: Vec<Term> = Vec::new();
    for (i, (at, (c1, c2))) in leaves.iter().zip(&new_suffix).enumerate() {
        let l = leaf(at);
        let m1 = c1.and_then(|_| moved_mtf.next()).unwrap_or(l.c1_mtf);
        let m2 = c2.and_then(|_| moved_mtf.next()).unwrap_or(l.c2_mtf);
        let before = muls.len();
        leaf_terms(i, l, (m1, m2), false, &mut muls);
        counts[at.0].scalar_muls += (muls.len() - before) as u64;
        new_mtf.push((m1, m2));
    }
    let deltas = sums(muls, leaves.len(), committer);
    let g0 = committer.scalar_mul(0, &Fr::one());
    let points: Vec<Element> = leaves
        .iter()
        .zip(&deltas)
        .map(|(at, d)| {
            let l = leaf(at);
            if l.fresh {
                g0 + *d
            } else {
                l.commitment + *d
            }
        })
        .collect();
    let leaf_mtf = batch_mtf(&points);
    drop(arenas);
    for ((((t, id), (c1, c2)), (m1, m2)), (c, m)) in leaves
        .iter()
        .zip(new_suffix)
        .zip(new_mtf)
        .zip(points.into_iter().zip(leaf_mtf))
    {
        counts[*t].maps_to_field += 1;
        counts[*t].leaves += 1;
        let l = trees[*t].arena.leaf_mut(*id);
        if let Some(c1) = c1 {
            l.c1 = c1;
        }
        if let Some(c2) = c2 {
            l.c2 = c2;
        }
        l.c1_mtf = m1;
        l.c2_mtf = m2;
        l.commitment = c;
        l.mtf = m;
        l.clear_pending();
        l.flags &= !DIRTY;
    }
}

/// One depth of internal nodes (of all trees) in [`commit_many`]; their changed children
/// are committed already.
fn commit_internal<S: NodeStore + Send>(
    trees: &mut [&mut Tree<S>],
    level: &[At],
    committer: &Committer,
    counts: &mut [CommitCounts],
) {
    if level.is_empty() {
        return;
    }
    let arenas: Vec<&Arena> = trees.iter().map(|t| &t.arena).collect();
    // Per node: (entry position, new scalar) of the children that moved.
    let mut moved: Vec<Vec<(usize, Fr)>> = Vec::with_capacity(level.len());
    let mut muls: Vec<Term> = Vec::new();
    for (i, &(t, id)) in level.iter().enumerate() {
        let before = muls.len();
        let committed = internal_terms(arenas[t], id, i, &mut muls);
        counts[t].scalar_muls += (muls.len() - before) as u64;
        moved.push(committed);
    }
    let deltas = sums(muls, level.len(), committer);
    let points: Vec<Element> = level
        .iter()
        .zip(&deltas)
        .map(|(&(t, id), d)| arenas[t].internal(id).commitment + *d)
        .collect();
    let mtfs = batch_mtf(&points);
    drop(arenas);
    for (((&(t, id), c), committed), m) in level.iter().zip(points).zip(moved).zip(mtfs) {
        counts[t].maps_to_field += 1;
        counts[t].internal_nodes += 1;
        let n = trees[t].arena.internal_mut(id);
        n.commitment = c;
        n.mtf = m;
        for (pos, v) in committed {
            if let Some(e) = n.children.get_mut(pos) {
                e.committed = v;
            }
        }
        n.removed.clear();
        n.flags &= !DIRTY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::TreeKey;

    /// A deterministic pseudo-random sequence (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// A key of shard `shard` (first stem byte) with a stem drawn from few values (so stems
    /// share prefixes, leaves split and collapse) and a suffix below or above 128.
    fn key(rng: &mut Rng, shard: u8) -> TreeKey {
        let mut k = [0u8; 32];
        k[0] = shard;
        let r = rng.next();
        k[1] = (r % 4) as u8;
        k[2] = ((r >> 8) % 3) as u8;
        k[3..8].copy_from_slice(&r.to_le_bytes()[3..8]);
        k[31] = (r >> 20) as u8;
        k
    }

    fn block(rng: &mut Rng, shards: u8, n: usize) -> Vec<(TreeKey, Option<[u8; 32]>)> {
        (0..n)
            .map(|_| {
                let shard = (rng.next() % u64::from(shards)) as u8;
                let k = key(rng, shard);
                let r = rng.next();
                let mut v = [0u8; 32];
                v[..8].copy_from_slice(&r.to_le_bytes());
                v[20] = (r >> 8) as u8;
                // About one write in five deletes.
                (k, (r % 5 != 0).then_some(v))
            })
            .collect()
    }

    /// Trees committed together have the roots, node commitments and counts of the same
    /// trees committed one by one, over blocks that add, change and delete values, with
    /// some trees left unchanged in a block and a tree emptied.
    #[test]
    fn commit_many_equals_commit_one_by_one() {
        const SHARDS: u8 = 6;
        let mut together: Vec<Tree> = (0..SHARDS).map(|_| Tree::new()).collect();
        let mut alone: Vec<Tree> = (0..SHARDS).map(|_| Tree::new()).collect();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Every key written to shard 2 so far.
        let mut shard_two: Vec<TreeKey> = Vec::new();
        for round in 0..8 {
            let size = if round == 0 { 400 } else { 60 };
            // Round 3 touches only shards 0 and 1; round 6 deletes everything of shard 2.
            let shards = if round == 3 { 2 } else { SHARDS };
            let mut w = block(&mut rng, shards, size);
            if round == 6 {
                w.retain(|(k, _)| k[0] != 2);
                w.extend(shard_two.iter().map(|k| (*k, None)));
            }
            shard_two.extend(w.iter().filter(|(k, _)| k[0] == 2).map(|(k, _)| *k));
            for (k, v) in &w {
                let s = usize::from(k[0]);
                together[s].apply([(*k, *v)]).unwrap();
                alone[s].apply([(*k, *v)]).unwrap();
            }
            let mut refs: Vec<&mut Tree> = together.iter_mut().collect();
            commit_many(&mut refs);
            for (s, (a, b)) in together.iter_mut().zip(alone.iter_mut()).enumerate() {
                assert!(!a.is_dirty(), "round {round} shard {s}");
                let ra = a.commit();
                assert_eq!(ra, b.commit(), "round {round} shard {s}");
                let (ca, cb) = (a.stats().commit, b.stats().commit);
                assert_eq!(ca, cb, "round {round} shard {s}");
                if round == 6 && s == 2 {
                    assert!(ra.is_identity());
                }
            }
        }
        // Nothing changed: nothing to do.
        let before: Vec<CommitCounts> = together.iter().map(|t| t.stats().commit).collect();
        let mut refs: Vec<&mut Tree> = together.iter_mut().collect();
        commit_many(&mut refs);
        let after: Vec<CommitCounts> = together.iter().map(|t| t.stats().commit).collect();
        assert_eq!(before, after);
        commit_many::<crate::store::MemoryStore>(&mut []);
    }

    #[test]
    fn sums_match_commit_sparse() {
        let committer = Committer::eip6800();
        let mut rng = Rng(7);
        let targets = 300;
        // More than one window, a target without multiplications, repeated generators.
        let muls: Vec<Term> = (0..MUL_WINDOW + 500)
            .map(|_| {
                let t = (rng.next() % targets as u64) as usize;
                let t = if t == 9 { 10 } else { t };
                Term::new(t, (rng.next() % 256) as usize, Fr::from(rng.next()))
            })
            .collect();
        let mut expected: Vec<Vec<(usize, Fr)>> = vec![Vec::new(); targets];
        for m in &muls {
            expected[m.target as usize].push((usize::from(m.base), m.scalar));
        }
        let got = sums(muls, targets, committer);
        for (t, e) in expected.iter().enumerate() {
            assert_eq!(got[t], committer.commit_sparse(e), "target {t}");
        }
        assert!(got[9].is_identity());
        let few = vec![Term::new(1, 5, Fr::from(3u64))];
        let got = sums(few, 2, committer);
        assert!(got[0].is_identity());
        assert_eq!(got[1], committer.commit_sparse(&[(5, Fr::from(3u64))]));
    }
}
