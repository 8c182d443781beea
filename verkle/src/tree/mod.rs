//! The canonical EIP-6800 tree: insert / get / delete, batched delta commitments, persistence.
//!
//! Shape (`spec/WIRE.md` §13): the root is an internal node at depth 0; a subtree holding one
//! stem is that stem's leaf node; internal nodes exist only where two or more stems share a
//! prefix. Deleting a stem's last value removes its leaf, and an internal node left with a
//! single leaf child (and nothing else) collapses into it, so after any sequence of
//! operations the root equals the root of a tree built from the final key/value set.
//! Reading or deleting a key whose stem is absent creates no node and computes nothing.
//!
//! Changes only mark nodes; [`Tree::commit`] recomputes the changed paths (see `commit.rs`).

mod commit;
mod core;
mod evict;
pub mod hypertree;
mod load;
pub mod multi_commit;
mod mutate;
pub(crate) mod node;
mod persist;
mod read;

pub use self::core::{LeafCommitments, Tree, TreeConfig, TreeStats};
pub use commit::CommitCounts;

#[cfg(test)]
mod tests {
    use super::mutate::normalize;
    use super::node::{ChildRef, Node};
    use super::*;
    use crate::keys::TreeKey;

    /// (internal nodes, sorted stamps of the cached leaves) of a tree.
    fn cache_profile(t: &Tree) -> (usize, Vec<u32>) {
        let mut stamps = Vec::new();
        let mut stack = vec![t.root];
        while let Some(id) = stack.pop() {
            if let Node::Internal(n) = t.arena.get(id) {
                for e in &n.children {
                    if let ChildRef::Loaded(c) = e.child {
                        match t.arena.get(c) {
                            Node::Internal(_) => stack.push(c),
                            Node::Leaf(_) => stamps.push(t.arena.stamp(c)),
                        }
                    }
                }
            }
        }
        stamps.sort_unstable();
        (t.arena.internal_count(), stamps)
    }

    /// Six persisted blocks of 300 scattered keys, in memory.
    fn six_blocks() -> Tree {
        let mut t = Tree::new();
        for b in 0..6u32 {
            t.apply((0..300u32).map(|i| {
                let n = (b * 300 + i).wrapping_mul(2_654_435_761);
                let k: TreeKey = std::array::from_fn(|j| (n >> (j % 4 * 8)) as u8 ^ (j as u8));
                (k, Some([b as u8; 32]))
            }))
            .unwrap();
            t.persist().unwrap();
        }
        t
    }

    #[test]
    fn leaf_eviction_matches_the_general_walk() {
        let mut t = six_blocks();
        let internal = t.arena.internal_count();
        assert!(internal > 100, "{internal}");
        for budget in [
            2 * internal,
            2 * internal + 1,
            2 * internal + 700,
            t.arena.live() - 1,
        ] {
            let mut fast = t.clone();
            let mut walk = t.clone();
            let nodes = super::evict::Budget {
                nodes: budget,
                bytes: usize::MAX,
            };
            fast.evict_leaves(nodes);
            walk.evict_walk(nodes);
            assert_eq!(
                fast.arena.live(),
                budget.min(t.arena.live()),
                "budget {budget}"
            );
            assert_eq!(
                cache_profile(&fast),
                cache_profile(&walk),
                "budget {budget}"
            );
            assert_eq!(fast.stats().nodes_evicted, walk.stats().nodes_evicted);
            assert_eq!(fast.root_bytes(), t.root_bytes());
        }
    }

    /// A byte budget keeps the same kind of prefix as a node budget: the fast leaf pass and
    /// the general walk agree, the kept nodes fit, and the root is unchanged.
    #[test]
    fn byte_budgets_keep_the_most_wanted_nodes_that_fit() {
        let t = six_blocks();
        // Clones allocate lists at their length: measure a clone, as the evictions run on clones.
        let mut t = t.clone();
        let internal = t.arena.internal_bytes();
        let all = t.arena.bytes();
        assert!(internal < all / 2, "{internal} of {all}");
        for bytes in [
            2 * internal,
            2 * internal + 5_000,
            (all + 2 * internal) / 2,
            all - 1,
        ] {
            let budget = super::evict::Budget {
                nodes: usize::MAX,
                bytes,
            };
            let mut fast = t.clone();
            let mut walk = t.clone();
            fast.evict_leaves(budget);
            walk.evict_walk(budget);
            assert!(fast.arena.bytes() <= bytes, "budget {bytes}");
            // Within one leaf of the budget: the next leaf in order did not fit.
            assert!(
                fast.arena.bytes() + 2_000 > bytes,
                "budget {bytes}: kept {} of {all}",
                fast.arena.bytes()
            );
            assert!(fast.arena.live() < t.arena.live());
            assert_eq!(cache_profile(&fast), cache_profile(&walk), "budget {bytes}");
            assert_eq!(fast.stats().nodes_evicted, walk.stats().nodes_evicted);
            assert_eq!(fast.root_bytes(), t.root_bytes());
        }
        // Tighter than the internal nodes: the general walk drops internal nodes too.
        let mut walk = t.clone();
        walk.evict_walk(super::evict::Budget {
            nodes: usize::MAX,
            bytes: internal / 3,
        });
        assert!(walk.arena.bytes() <= internal / 3);
        assert!(walk.arena.internal_count() < t.arena.internal_count());
        assert_eq!(walk.root_bytes(), t.root_bytes());
    }

    fn key(prefix: &[u8], suffix: u8) -> TreeKey {
        let mut k = [0u8; 32];
        k[..prefix.len()].copy_from_slice(prefix);
        k[31] = suffix;
        k
    }

    #[test]
    fn empty_root_is_zero() {
        let mut t = Tree::new();
        assert_eq!(t.root_bytes(), [0u8; 32]);
        assert_eq!(t.stats().commit, CommitCounts::default());
    }

    #[test]
    fn shape_splits_and_collapses() {
        let mut t = Tree::new();
        t.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        assert_eq!(t.stats().nodes_in_memory, 2);
        // Shares two bytes: root → internal(depth 1) → internal(depth 2) → two leaves.
        t.insert(&key(&[1, 2, 4], 0), [2; 32]).unwrap();
        assert_eq!(t.stats().nodes_in_memory, 5);
        assert_eq!(t.stats().internal_nodes_in_memory, 3);
        t.delete(&key(&[1, 2, 4], 0)).unwrap();
        assert_eq!(t.stats().nodes_in_memory, 2);
        let mut fresh = Tree::new();
        fresh.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        assert_eq!(t.root_bytes(), fresh.root_bytes());
    }

    #[test]
    fn clone_is_independent() {
        let mut t = Tree::new();
        t.insert(&key(&[1, 2, 3], 0), [1; 32]).unwrap();
        t.insert(&key(&[1, 2, 4], 0), [2; 32]).unwrap();
        let root = t.root_bytes();
        let mut c = t.clone();
        assert_eq!(c.root_bytes(), root);
        c.insert(&key(&[1, 2, 5], 0), [3; 32]).unwrap();
        c.delete(&key(&[1, 2, 3], 0)).unwrap();
        assert_ne!(c.root_bytes(), root);
        assert_eq!(t.root_bytes(), root);
        assert_eq!(t.get(&key(&[1, 2, 3], 0)).unwrap(), Some([1; 32]));
        assert_eq!(t.get(&key(&[1, 2, 5], 0)).unwrap(), None);
    }

    #[test]
    fn normalize_keeps_last_per_suffix() {
        let n = normalize(&[(5, Some([1; 32])), (1, None), (5, None), (1, Some([2; 32]))]);
        assert_eq!(n, vec![(1, Some([2; 32])), (5, None)]);
    }
}
