//! Committing many trees at once: the shards (hypertrees) of a fractional tree, each its own
//! [`Tree`] under one stem prefix.
//!
//! [`commit_many`] recomputes the changed nodes of every tree exactly as [`Tree::commit`]
//! does for one (`spec/WIRE.md` §13), but runs each phase once over all the trees: the
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

use super::commit::{
    batch_mtf, dirty_nodes, internal_terms, leaf_terms, suffix_terms, sums_by_generator, NodeTerms,
    Term,
};
use super::node::{Arena, NodeId, DIRTY};
use super::{CommitCounts, Tree};
use crate::store::NodeStore;

/// Below this many items a batch is computed on the calling thread.
const PARALLEL_MIN: usize = 32;
/// Leaves per parallel task when forming the leaf-commitment terms.
const TERMS_CHUNK: usize = 512;

/// A node of one of the trees: (tree position, arena id).
type At = (usize, NodeId);

/// Recommits every changed node of all `trees`, batching each phase over all of them (see
/// the module text); afterwards each tree's [`Tree::commit`] has nothing left to do and
/// returns the same root as if it had committed alone. Every tree uses the EIP-6800
/// committer (as every [`Tree`] does).
///
/// Every step runs on all threads: the scalar multiplications, the maps to field, and also
/// the bookkeeping between them (collecting the changed nodes, forming the terms, adding the
/// deltas, writing the results back, the latter tree by tree).
///
/// ```
/// let (mut a, mut b) = (verkle::Tree::new(), verkle::Tree::new());
/// a.insert(&[1u8; 32], [2u8; 32]).unwrap();
/// b.insert(&[3u8; 32], [4u8; 32]).unwrap();
/// verkle::tree::multi_commit::commit_many(&mut [&mut a, &mut b]);
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

    // The changed nodes of every tree (each tree's own walk, the trees in parallel): leaves
    // (any depth) and internal nodes by depth, each list in tree order.
    let per_tree: Vec<(Vec<NodeId>, Vec<Vec<NodeId>>)> = trees
        .par_iter_mut()
        .map(|tree| dirty_nodes(&tree.arena, tree.root))
        .collect();
    let mut leaves: Vec<At> = Vec::new();
    let mut levels: Vec<Vec<At>> = Vec::new();
    for (t, (l, by_depth)) in per_tree.into_iter().enumerate() {
        leaves.extend(l.into_iter().map(|id| (t, id)));
        if levels.len() < by_depth.len() {
            levels.resize_with(by_depth.len(), Vec::new);
        }
        for (level, ids) in levels.iter_mut().zip(by_depth) {
            level.extend(ids.into_iter().map(|id| (t, id)));
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

/// Where each tree's nodes start in `nodes` (sorted by tree): `bounds[t]..bounds[t + 1]`.
fn tree_bounds(nodes: &[At], trees: usize) -> Vec<usize> {
    let mut bounds = vec![0usize; trees + 1];
    for &(t, _) in nodes {
        if let Some(b) = bounds.get_mut(t + 1) {
            *b += 1;
        }
    }
    for t in 0..trees {
        bounds[t + 1] += bounds[t];
    }
    bounds
}

/// `f(i, item)` for every item, in parallel chunks; the results in order.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    if items.len() < PARALLEL_MIN {
        return items.iter().enumerate().map(|(i, x)| f(i, x)).collect();
    }
    items.par_iter().enumerate().map(|(i, x)| f(i, x)).collect()
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
    let deltas = sums_by_generator(muls, 2 * leaves.len(), committer);
    // A suffix commitment moved when its delta is not the identity.
    let new_suffix: Vec<(Option<Element>, Option<Element>)> = par_map(leaves, |i, at| {
        let l = leaf(at);
        let (d1, d2) = (deltas[2 * i], deltas[2 * i + 1]);
        (
            (!d1.is_identity()).then(|| l.c1 + d1),
            (!d2.is_identity()).then(|| l.c2 + d2),
        )
    });
    drop(deltas);
    // Where each leaf's moved suffix commitments start in `moved`.
    let mut first_moved: Vec<u32> = Vec::with_capacity(leaves.len());
    let mut moved: Vec<Element> = Vec::new();
    for (at, (c1, c2)) in leaves.iter().zip(&new_suffix) {
        first_moved.push(moved.len() as u32);
        moved.extend(c1.iter().chain(c2.iter()));
        counts[at.0].maps_to_field += (c1.is_some() as u64) + (c2.is_some() as u64);
    }
    let moved_mtf = batch_mtf(&moved);
    drop(moved);
    // The new `(mtf(C1), mtf(C2))` of every leaf and its leaf-commitment terms.
    let new_mtf: Vec<(Fr, Fr)> = par_map(leaves, |i, at| {
        let l = leaf(at);
        let (c1, c2) = &new_suffix[i];
        let mut next = first_moved[i] as usize;
        let mut take = |moved: bool, old: Fr| {
            if !moved {
                return old;
            }
            next += 1;
            moved_mtf.get(next - 1).copied().unwrap_or(old)
        };
        let m1 = take(c1.is_some(), l.c1_mtf);
        let m2 = take(c2.is_some(), l.c2_mtf);
        (m1, m2)
    });
    drop(moved_mtf);
    let muls: Vec<Term> = if leaves.len() < PARALLEL_MIN {
        let mut muls = Vec::new();
        for (i, at) in leaves.iter().enumerate() {
            leaf_terms(i, leaf(at), new_mtf[i], false, &mut muls);
        }
        muls
    } else {
        leaves
            .par_chunks(TERMS_CHUNK)
            .enumerate()
            .flat_map_iter(|(c, chunk)| {
                let mut muls = Vec::with_capacity(2 * chunk.len());
                for (j, at) in chunk.iter().enumerate() {
                    let i = c * TERMS_CHUNK + j;
                    leaf_terms(i, leaf(at), new_mtf[i], false, &mut muls);
                }
                muls
            })
            .collect()
    };
    for m in &muls {
        counts[leaves[m.target as usize].0].scalar_muls += 1;
    }
    let deltas = sums_by_generator(muls, leaves.len(), committer);
    let g0 = committer.scalar_mul(0, &Fr::one());
    let points: Vec<Element> = par_map(leaves, |i, at| {
        let l = leaf(at);
        if l.fresh {
            g0 + deltas[i]
        } else {
            l.commitment + deltas[i]
        }
    });
    drop(deltas);
    let leaf_mtf = batch_mtf(&points);
    drop(arenas);
    for &(t, _) in leaves {
        counts[t].maps_to_field += 1;
        counts[t].leaves += 1;
    }
    // Written back tree by tree, the trees in parallel.
    let bounds = tree_bounds(leaves, trees.len());
    trees.par_iter_mut().enumerate().for_each(|(t, tree)| {
        for i in bounds[t]..bounds[t + 1] {
            let l = tree.arena.leaf_mut(leaves[i].1);
            let (c1, c2) = new_suffix[i];
            if let Some(c1) = c1 {
                l.c1 = c1;
            }
            if let Some(c2) = c2 {
                l.c2 = c2;
            }
            (l.c1_mtf, l.c2_mtf) = new_mtf[i];
            l.commitment = points[i];
            l.mtf = leaf_mtf[i];
            l.clear_pending();
            l.flags &= !DIRTY;
        }
    });
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
    // Per node: its terms, and the (entry position, new scalar) of the children that moved.
    let per_node: Vec<NodeTerms> = par_map(level, |i, &(t, id)| {
        let mut terms = Vec::new();
        let moved = internal_terms(arenas[t], id, i, &mut terms);
        (terms, moved)
    });
    let mut muls: Vec<Term> = Vec::with_capacity(per_node.iter().map(|p| p.0.len()).sum());
    let mut moved: Vec<Vec<(usize, Fr)>> = Vec::with_capacity(level.len());
    for (&(t, _), (terms, m)) in level.iter().zip(per_node) {
        counts[t].scalar_muls += terms.len() as u64;
        counts[t].maps_to_field += 1;
        counts[t].internal_nodes += 1;
        muls.extend(terms);
        moved.push(m);
    }
    let deltas = sums_by_generator(muls, level.len(), committer);
    let points: Vec<Element> = par_map(level, |i, &(t, id)| {
        arenas[t].internal(id).commitment + deltas[i]
    });
    drop(deltas);
    let mtfs = batch_mtf(&points);
    drop(arenas);
    let bounds = tree_bounds(level, trees.len());
    trees.par_iter_mut().enumerate().for_each(|(t, tree)| {
        for i in bounds[t]..bounds[t + 1] {
            let n = tree.arena.internal_mut(level[i].1);
            n.commitment = points[i];
            n.mtf = mtfs[i];
            for &(pos, v) in &moved[i] {
                if let Some(e) = n.children.get_mut(pos) {
                    e.committed = v;
                }
            }
            n.removed.clear();
            n.flags &= !DIRTY;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::TreeKey;
    use crate::tree::commit::MUL_WINDOW;

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
                (k, (!r.is_multiple_of(5)).then_some(v))
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
        let got = sums_by_generator(muls, targets, committer);
        for (t, e) in expected.iter().enumerate() {
            assert_eq!(got[t], committer.commit_sparse(e), "target {t}");
        }
        assert!(got[9].is_identity());
        let few = vec![Term::new(1, 5, Fr::from(3u64))];
        let got = sums_by_generator(few, 2, committer);
        assert!(got[0].is_identity());
        assert_eq!(got[1], committer.commit_sparse(&[(5, Fr::from(3u64))]));
    }
}
