//! `Tree::prove`: proofs of random trees and key sets verify with `witness::verify`, and the
//! proven current values are the tree's.

use proptest::prelude::*;
use verkle::keys::{TreeKey, Value};
use verkle::Tree;
use witness::{owned::OwnedExecutionWitness, ExtensionStatus, VerifiedWitness};

use crate::common::tree_of;

/// Stems sharing long prefixes: a base with bits flipped at chosen depths (so paths split at
/// depth 1, 2, 3, 16 and 30–31), and bit 6 moving the stem to another root slot.
fn stem_from(bits: u8) -> [u8; 31] {
    let mut s = [0x5au8; 31];
    for (bit, pos) in [0usize, 1, 2, 15, 29, 30].iter().enumerate() {
        if bits & (1 << bit) != 0 {
            s[*pos] ^= 1;
        }
    }
    if bits & (1 << 6) != 0 {
        s[0] = 0x07;
    }
    s
}

/// Suffixes on both halves (C1: 0..127, C2: 128..255), at the edges of each.
const SUFFIXES: [u8; 7] = [0, 1, 5, 127, 128, 200, 255];

fn key(stem: [u8; 31], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(&stem);
    k[31] = suffix;
    k
}

fn value_from(v: u8) -> Value {
    match v % 3 {
        0 => [0u8; 32], // zero is present, not absent
        1 => [v; 32],
        _ => {
            let mut x = [0u8; 32];
            x[31] = v;
            x
        }
    }
}

/// Proves `keys`, verifies against the tree's root, and checks every proven current value
/// against the tree.
fn prove_and_verify(tree: &mut Tree, keys: &[TreeKey]) -> (OwnedExecutionWitness, VerifiedWitness) {
    let root = tree.root_bytes();
    let w = tree.prove(keys).unwrap();
    let proven = witness::verify(&root, &w.to_witness().unwrap())
        .unwrap_or_else(|e| panic!("proof of {} keys rejected: {e}", keys.len()));
    for k in keys {
        assert_eq!(
            proven.current_value(k).map(|v| v.copied()),
            Some(tree.get(k).unwrap()),
            "current value of {}",
            hex::encode(k)
        );
    }
    assert_eq!(proven.keys().len(), {
        let mut d = keys.to_vec();
        d.sort();
        d.dedup();
        d.len()
    });
    (w, proven)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_trees_and_key_sets_verify(
        leaves in prop::collection::vec((0u8..128, 0usize..7, any::<u8>()), 0..24),
        reads in prop::collection::vec((0u8..128, 0usize..7), 1..14),
        writes in prop::collection::vec((0u8..128, 0usize..7, any::<u8>()), 0..6),
    ) {
        let leaves: Vec<(TreeKey, Value)> = leaves
            .iter()
            .map(|&(s, x, v)| (key(stem_from(s), SUFFIXES[x]), value_from(v)))
            .collect();
        let mut tree = tree_of(&leaves);
        let keys: Vec<TreeKey> = reads
            .iter()
            .map(|&(s, x)| key(stem_from(s), SUFFIXES[x]))
            .collect();
        let (w, proven) = prove_and_verify(&mut tree, &keys);

        // The statuses agree with the tree.
        for (s, ps) in w.state_diff.iter().zip(proven.stems()) {
            let present = s.suffix_diffs.iter().any(|d| d.current_value.is_some())
                || tree.leaf_commitments(&s.stem).unwrap().is_some();
            prop_assert_eq!(present, ps.status == ExtensionStatus::Present);
        }

        // The same proof from the same tree read back from a store.
        tree.persist().unwrap();
        let mut reopened = Tree::open(tree.into_store()).unwrap();
        prop_assert_eq!(reopened.prove(&keys).unwrap(), w.clone());

        // With writes: the new values are carried, the proof is unchanged, and the post-state
        // root computed from the witness alone equals the tree's after the writes.
        let writes: Vec<(TreeKey, Option<Value>)> = writes
            .iter()
            .map(|&(s, x, v)| (key(stem_from(s), SUFFIXES[x]), Some(value_from(v))))
            .collect();
        let mut with_writes: Vec<(TreeKey, Option<Value>)> =
            keys.iter().map(|k| (*k, None)).collect();
        with_writes.extend(writes.iter().copied());
        let root = reopened.root_bytes();
        let ww = reopened.prove_with_new_values(&with_writes).unwrap();
        let proven = witness::verify(&root, &ww.to_witness().unwrap()).unwrap();
        // A key written twice carries its last write.
        let last: std::collections::BTreeMap<TreeKey, Option<Value>> =
            writes.iter().copied().collect();
        for (k, v) in &last {
            prop_assert_eq!(proven.keys().iter().find(|p| p.key() == *k).unwrap().new_value, *v);
        }
        reopened.apply(writes.iter().copied()).unwrap();
        prop_assert_eq!(proven.post_state_root().unwrap(), reopened.root_bytes());
    }
}

#[test]
fn absent_keys_in_an_empty_tree() {
    let mut tree = Tree::new();
    let keys = [key([1; 31], 0), key([1; 31], 200), key([2; 31], 3)];
    let (w, _) = prove_and_verify(&mut tree, &keys);
    // Both stems end at empty slots of the root: depth 1, absent-empty; no commitments.
    assert_eq!(w.verkle_proof.depth_extension_present, vec![0x08, 0x08]);
    assert!(w.verkle_proof.commitments_by_path.is_empty());
    assert!(w.verkle_proof.other_stems.is_empty());
}

#[test]
fn two_missing_stems_under_one_empty_slot() {
    // The root's slot 0x5a holds an internal node (two leaves split at depth 2); two absent
    // stems end at the same empty slot 0x5a,0x00.
    let a = stem_from(0);
    let b = stem_from(1 << 1);
    let mut tree = tree_of(&[(key(a, 0), [1; 32]), (key(b, 0), [2; 32])]);
    let mut x = a;
    x[1] = 0;
    let mut y = x;
    y[30] = 9;
    let (w, proven) = prove_and_verify(&mut tree, &[key(x, 1), key(y, 2)]);
    assert_eq!(w.verkle_proof.depth_extension_present, vec![2 << 3, 2 << 3]);
    assert!(proven
        .stems()
        .iter()
        .all(|s| s.status == ExtensionStatus::AbsentEmpty));
    // Only the internal node at 0x5a is committed to.
    assert_eq!(w.verkle_proof.commitments_by_path.len(), 1);
}

#[test]
fn absent_stem_beside_another_leaf_and_present_stem_on_both_halves() {
    let a = stem_from(0);
    let b = stem_from(1 << 5); // differs at byte 30: one internal chain down to depth 31
    let mut tree = tree_of(&[(key(a, 3), [1; 32]), (key(a, 130), [2; 32])]);
    // b is absent, beside a's leaf (at depth 1): absent-other with a as the other stem.
    let (w, _) = prove_and_verify(&mut tree, &[key(b, 0)]);
    assert_eq!(w.verkle_proof.depth_extension_present, vec![(1 << 3) | 1]);
    assert_eq!(w.verkle_proof.other_stems, vec![a]);
    // a present (keys on C1 and C2, one absent suffix) and b absent-other: a covers the path,
    // so other_stems is empty; commitments: leaf, C1, C2.
    let (w, _) = prove_and_verify(&mut tree, &[key(a, 3), key(a, 4), key(a, 130), key(b, 7)]);
    assert_eq!(w.verkle_proof.depth_extension_present, vec![0x0a, 0x09]);
    assert!(w.verkle_proof.other_stems.is_empty());
    assert_eq!(w.verkle_proof.commitments_by_path.len(), 3);
    // Insert b: the two leaves now sit at depth 31.
    tree.insert(&key(b, 0), [3; 32]).unwrap();
    let (w, _) = prove_and_verify(&mut tree, &[key(a, 3), key(b, 0)]);
    assert_eq!(
        w.verkle_proof.depth_extension_present,
        vec![(31 << 3) | 2; 2]
    );
    // 30 internal nodes below the root, two leaves, two C1s.
    assert_eq!(w.verkle_proof.commitments_by_path.len(), 30 + 2 + 2);
}

#[test]
fn suffix_tree_listed_when_its_half_is_empty() {
    let a = stem_from(0);
    let mut tree = tree_of(&[(key(a, 3), [1; 32])]);
    let (w, _) = prove_and_verify(&mut tree, &[key(a, 250)]);
    // Leaf and C2 (the identity: no value at 128..255).
    assert_eq!(w.verkle_proof.commitments_by_path.len(), 2);
    assert_eq!(w.verkle_proof.commitments_by_path[1], [0u8; 32]);
}

/// `prove_bound` adds a read under child 0 of an internal node that the plain proof opens
/// only at an empty slot, making the absence bound; the same keys are still proven.
#[test]
fn prove_bound_binds_an_absence_below_an_unproven_internal_node() {
    let mut a = [0x5au8; 31];
    a[0] = 0x10;
    a[1] = 0x05;
    let mut c = a;
    c[1] = 0x30;
    let mut b = a;
    b[0] = 0x20;
    // Child 0 of [0x10] holds a leaf in the second tree, is empty in the first.
    let mut zero_child = a;
    zero_child[1] = 0x00;
    zero_child[2] = 0x01;
    for with_child_0 in [false, true] {
        let mut entries = vec![
            (key(a, 0), [1u8; 32]),
            (key(b, 0), [2u8; 32]),
            (key(c, 3), [3u8; 32]),
        ];
        if with_child_0 {
            entries.push((key(zero_child, 7), [4u8; 32]));
        }
        let mut tree: Tree = tree_of(&entries);
        let root = tree.root_bytes();
        let mut absent = a;
        absent[1] = 0x07;
        let keys = [(key(absent, 0), None), (key(absent, 1), Some([9u8; 32]))];

        let plain = tree.prove_with_new_values(&keys).unwrap();
        let p = witness::verify(&root, &plain.to_witness().unwrap()).unwrap();
        assert_eq!(p.unbound_absences(), 2, "both keys of the absent stem");
        assert_eq!(p.unbound_writes(), 1);
        let mut binding = [0u8; 32];
        binding[0] = 0x10;
        assert_eq!(p.binding_keys(), vec![binding]);

        let (bound, added) = tree.prove_bound(&keys).unwrap();
        assert_eq!(added, 1);
        let v = witness::verify(&root, &bound.to_witness().unwrap()).unwrap();
        assert_eq!(v.unbound_absences(), 0, "with_child_0 = {with_child_0}");
        assert!(v.node(&[0x10]).unwrap().proven_internal);
        for k in &keys {
            assert_eq!(v.current_value(&k.0), Some(None));
        }
        assert_eq!(v.post_state_root().unwrap(), p.post_state_root().unwrap());
        // The post-state root is the tree's after the write.
        tree.insert(&key(absent, 1), [9u8; 32]).unwrap();
        assert_eq!(v.post_state_root().unwrap(), tree.root_bytes());
    }
}
