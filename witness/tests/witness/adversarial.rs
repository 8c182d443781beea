//! Witnesses a prover holding the whole state can send (`spec/WIRE.md` §7): what the
//! verifier rejects, what it accepts and reports, and that honest witnesses are untouched.

use witness::hostile::{
    absence_under_internal, identity_internal_node, identity_internal_node_honest,
    leaf_posing_as_internal, Hostile,
};
use witness::{verify, ExtensionStatus, NodeKind, VerifyError};

use crate::verify::chain;

fn decoded(h: &Hostile) -> witness::ExecutionWitness {
    h.witness
        .to_witness()
        .expect("hostile witness lays out as SSZ")
}

#[test]
fn identity_as_internal_node_is_rejected() {
    let h = identity_internal_node();
    let err = verify(&h.pre_state_root, &decoded(&h)).unwrap_err();
    match err {
        VerifyError::IdentityCommitment { index, path, kind } => {
            assert_eq!(index, 0);
            assert_eq!(path.as_bytes(), &[0x11]);
            assert_eq!(kind, NodeKind::Internal);
        }
        other => panic!("expected IdentityCommitment, got {other}"),
    }
    assert!(err_text(&h).contains("commitments_by_path[0] is the identity"));
}

fn err_text(h: &Hostile) -> String {
    verify(&h.pre_state_root, &decoded(h))
        .map(|_| String::new())
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn honest_absence_in_empty_tree_gives_the_canonical_root() {
    let h = identity_internal_node_honest();
    let proven = verify(&h.pre_state_root, &decoded(&h)).unwrap();
    assert_eq!(
        proven.unbound_absences(),
        0,
        "a depth-1 absence is always bound"
    );
    assert_eq!(
        proven.post_state_root().unwrap(),
        h.canonical_post_state_root
    );
}

#[test]
fn identity_as_leaf_is_rejected() {
    // The item-1 witness with the stem claimed absent-other at depth 1, its "leaf" the
    // identity: rejected by the same rule before the proof is looked at.
    let mut h = identity_internal_node();
    h.witness.verkle_proof.depth_extension_present = vec![(1 << 3) | 1];
    let mut other = h.witness.state_diff[0].stem;
    other[30] ^= 1;
    h.witness.verkle_proof.other_stems = vec![other];
    match verify(&h.pre_state_root, &decoded(&h)).unwrap_err() {
        VerifyError::IdentityCommitment { kind, .. } => assert_eq!(kind, NodeKind::Leaf),
        other => panic!("expected IdentityCommitment, got {other}"),
    }
}

#[test]
fn leaf_posing_as_internal_is_accepted_and_reported_unbound() {
    for depth in [2u8, 3] {
        let h = leaf_posing_as_internal(depth);
        let w = decoded(&h);
        // The format cannot tell: the multiproof is true.
        let proven = verify(&h.pre_state_root, &w)
            .unwrap_or_else(|e| panic!("depth {depth}: the construction must verify: {e}"));
        let key = proven.keys()[0];
        assert_eq!(key.current_value, None);
        assert!(h.hidden_value.is_some(), "the key exists in the pre-state");
        assert!(
            !key.bound,
            "depth {depth}: the absence must be reported unbound"
        );
        assert_eq!(proven.unbound_absences(), 1);
        assert_eq!(proven.unbound_stems(), 1);
        assert_eq!(proven.unbound_writes(), 1);
        let stem = proven.stems()[0];
        assert_eq!(stem.status, ExtensionStatus::AbsentEmpty);
        assert!(!stem.bound);
        // The leaf posing as internal is not proven internal.
        let posing = proven.node(&stem.stem[..1]).unwrap();
        assert_eq!(posing.kind, NodeKind::Internal);
        assert!(!posing.proven_internal);
        // The post-state root it leads to is not the canonical one.
        let post = proven.post_state_root().unwrap();
        assert_ne!(post, h.canonical_post_state_root, "depth {depth}");
    }
}

#[test]
fn absence_below_a_proven_internal_node_is_bound() {
    let h = absence_under_internal(true);
    let proven = verify(&h.pre_state_root, &decoded(&h)).unwrap();
    assert_eq!(proven.unbound_absences(), 0);
    assert!(proven.keys().iter().all(|k| k.bound));
    assert!(proven.node(&[0x10]).unwrap().proven_internal);
    assert_eq!(
        proven.post_state_root().unwrap(),
        h.canonical_post_state_root
    );
}

#[test]
fn absence_whose_parent_is_opened_only_at_empty_slots_is_unbound() {
    // True, but nothing in the witness rules out a leaf at [0x10].
    let h = absence_under_internal(false);
    let proven = verify(&h.pre_state_root, &decoded(&h)).unwrap();
    assert_eq!(proven.unbound_absences(), 1);
    assert_eq!(proven.unbound_writes(), 0);
    assert!(!proven.node(&[0x10]).unwrap().proven_internal);
    assert!(
        proven.node(&[]).unwrap().proven_internal,
        "the root is internal"
    );
}

/// Every real Kaustinen6 witness still verifies in the default mode, and the bound flags
/// agree with the definition node by node.
#[test]
fn real_chain_verifies_and_bound_flags_follow_the_definition() {
    let mut blocks_with_unbound = 0usize;
    let mut unbound_keys = 0usize;
    for b in chain() {
        let p = verify(&b.parent_state_root, &b.witness)
            .unwrap_or_else(|e| panic!("block {}: {e}", b.number));
        for s in p.stems() {
            let all_proven = (1..usize::from(s.depth))
                .all(|d| p.node(&s.stem[..d]).is_some_and(|n| n.proven_internal));
            let expect = s.status != ExtensionStatus::AbsentEmpty || all_proven;
            assert_eq!(s.bound, expect, "block {}: stem {:02x?}", b.number, s.stem);
        }
        for n in p.nodes() {
            if n.kind != NodeKind::Internal {
                assert!(!n.proven_internal);
            }
        }
        if p.unbound_absences() > 0 {
            blocks_with_unbound += 1;
        }
        unbound_keys += p.unbound_absences();
    }
    println!(
        "kaustinen6 1..200: {blocks_with_unbound} blocks with an unbound absence, {unbound_keys} keys"
    );
}
