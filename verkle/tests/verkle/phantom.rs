//! Phantom nodes: reading or deleting what does not exist creates nothing and computes
//! nothing (DESIGN "Lessons": phantom nodes).

use verkle::keys::TreeKey;
use verkle::{CommitCounts, Tree};

fn key(prefix: &[u8], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..prefix.len()].copy_from_slice(prefix);
    k[31] = suffix;
    k
}

fn populated() -> Tree {
    let mut t = Tree::new();
    for (p, s) in [
        (&[1u8, 2, 3][..], 0u8),
        (&[1, 2, 3], 200),
        (&[1, 2, 4], 5),
        (&[9], 1),
        (&[1, 7], 1),
    ] {
        t.insert(&key(p, s), [s; 32]).unwrap();
    }
    t.commit();
    t
}

/// Runs `op` and asserts nodes, dirtiness, commit work and root did not change.
fn assert_no_effect(t: &mut Tree, what: &str, op: impl FnOnce(&mut Tree)) {
    let before = t.stats();
    let root = t.root_bytes();
    op(t);
    assert!(!t.is_dirty(), "{what}: marked the tree dirty");
    assert_eq!(
        t.stats().nodes_in_memory,
        before.nodes_in_memory,
        "{what}: created nodes"
    );
    let work_before = t.stats().commit;
    assert_eq!(t.root_bytes(), root, "{what}: root changed");
    assert_eq!(t.stats().commit, work_before, "{what}: commit did work");
    assert_eq!(
        t.stats().commit,
        before.commit,
        "{what}: work counters moved"
    );
}

#[test]
fn deleting_absent_keys_does_nothing() {
    let mut t = populated();
    let nodes = t.stats().nodes_in_memory;
    assert_eq!(nodes, 1 + 1 + 1 + 4, "root, [1], [1,2], four leaves");
    // Empty slot at the root.
    assert_no_effect(&mut t, "delete under empty root slot", |t| {
        t.delete(&key(&[5], 0)).unwrap()
    });
    // Empty slot below an internal node.
    assert_no_effect(&mut t, "delete under empty inner slot", |t| {
        t.delete(&key(&[1, 2, 9], 0)).unwrap()
    });
    // The slot holds a leaf of another stem sharing a long prefix.
    assert_no_effect(&mut t, "delete beside another stem", |t| {
        t.delete(&key(&[1, 2, 3, 0, 0, 0, 0, 1], 0)).unwrap()
    });
    assert_no_effect(&mut t, "delete beside a leaf at depth 1", |t| {
        t.delete(&key(&[9, 1], 1)).unwrap()
    });
    // The stem exists, the suffix does not.
    assert_no_effect(&mut t, "delete absent suffix", |t| {
        t.delete(&key(&[1, 2, 3], 7)).unwrap()
    });
    // Batches of deletes only.
    assert_no_effect(&mut t, "batch of absent deletes", |t| {
        t.apply((0..50u8).map(|i| (key(&[100 + i, i], i), None)))
            .unwrap()
    });
    // Rewriting a value with itself.
    assert_no_effect(&mut t, "rewrite same value", |t| {
        t.insert(&key(&[1, 2, 3], 200), [200; 32]).unwrap()
    });
    // Set then delete of a new key in one batch: net nothing.
    assert_no_effect(&mut t, "insert+delete in one batch", |t| {
        let k = key(&[50], 0);
        t.apply([(k, Some([1; 32])), (k, None)]).unwrap()
    });
}

#[test]
fn reading_absent_keys_does_nothing() {
    let mut t = populated();
    assert_no_effect(&mut t, "reads", |t| {
        assert_eq!(t.get(&key(&[5], 0)).unwrap(), None);
        assert_eq!(t.get(&key(&[1, 2, 3, 4], 0)).unwrap(), None);
        assert_eq!(t.get(&key(&[1, 2, 3], 9)).unwrap(), None);
        assert_eq!(t.get(&key(&[1, 2, 3], 200)).unwrap(), Some([200; 32]));
    });
}

#[test]
fn commit_without_changes_is_free() {
    let mut t = populated();
    let c = t.stats().commit;
    t.commit();
    t.commit();
    assert_eq!(t.stats().commit, c);
    let mut empty = Tree::new();
    empty.delete(&key(&[1], 1)).unwrap();
    assert_eq!(empty.root_bytes(), [0u8; 32]);
    assert_eq!(empty.stats().commit, CommitCounts::default());
    assert_eq!(empty.stats().nodes_in_memory, 1);
}

#[test]
fn one_update_costs_one_path() {
    let mut t = populated();
    let before = t.stats().commit;
    // Change one value of the leaf at depth 3: high half only differs.
    let mut v = [0u8; 32];
    v[31] = 1;
    t.insert(&key(&[1, 2, 3], 0), v).unwrap();
    t.commit();
    let after = t.stats().commit;
    assert_eq!(after.leaves - before.leaves, 1);
    assert_eq!(
        after.internal_nodes - before.internal_nodes,
        3,
        "root, [1], [1,2]"
    );
    // C1: 1 slot (only the high half changed); C: 1 (mtf(C1)·G2); 3 internal nodes: 1 each.
    assert_eq!(after.scalar_muls - before.scalar_muls, 1 + 1 + 3);
    // mtf(C1), mtf(C), and one per internal node.
    assert_eq!(after.maps_to_field - before.maps_to_field, 2 + 3);
}
