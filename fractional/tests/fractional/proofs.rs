//! Proofs: the sharded tree's standard witness equals the single tree's byte for byte;
//! fractional proofs verify against the canonical state root and the coordinator root,
//! carry writes whose post-state roots equal the sharded tree's after applying them, and
//! any altered byte is rejected under both anchors.

use bytes::Bytes;
use proptest::prelude::*;
use verkle::keys::TreeKey;
use verkle::Tree;
use witness::fractional::{
    verify_fractional_bytes, Anchor, FractionalDecodeError, FractionalVerifyError,
    OwnedFractionalProof, VerifiedFractional,
};

use fractional::{ShardConfig, ShardDepth, ShardedTree};

use crate::props::{key, stem_from, SUFFIXES};

/// A sharded tree and a single tree over the same writes.
pub fn trees(depth: ShardDepth, writes: &[(TreeKey, Option<[u8; 32]>)]) -> (ShardedTree, Tree) {
    let mut sharded = ShardedTree::in_memory(ShardConfig {
        depth,
        ..ShardConfig::default()
    });
    sharded.apply(writes).unwrap();
    let mut single = Tree::new();
    single.apply(writes.iter().copied()).unwrap();
    (sharded, single)
}

pub fn verify(
    proof: &OwnedFractionalProof,
    anchor: Anchor,
) -> Result<VerifiedFractional, FractionalVerifyError> {
    verify_fractional_bytes(Bytes::from(proof.to_bytes().unwrap()), &anchor)
}

/// Keys from `(stem selector, suffix selector, write)`: a write sets the key to `[v; 32]`.
fn block(asked: &[(u8, u8, Option<u8>)]) -> Vec<(TreeKey, Option<[u8; 32]>)> {
    asked
        .iter()
        .map(|&(s, x, w)| {
            (
                key(stem_from(s), SUFFIXES[usize::from(x % 4)]),
                w.map(|v| [v; 32]),
            )
        })
        .collect()
}

fn check_proofs(depth: ShardDepth, present: &[(u8, u8, u8)], asked: &[(u8, u8, Option<u8>)]) {
    let writes: Vec<(TreeKey, Option<[u8; 32]>)> = present
        .iter()
        .map(|&(s, x, v)| {
            (
                key(stem_from(s), SUFFIXES[usize::from(x % 4)]),
                Some([v; 32]),
            )
        })
        .collect();
    let (mut sharded, mut single) = trees(depth, &writes);
    // One entry per key, the last one winning, as a block's writes would.
    let asked: Vec<(TreeKey, Option<[u8; 32]>)> = block(asked)
        .into_iter()
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect();
    let keys: Vec<TreeKey> = asked.iter().map(|(k, _)| *k).collect();
    let standard = sharded.prove(&keys).unwrap();
    assert_eq!(
        standard.to_ssz().unwrap(),
        single.prove(&keys).unwrap().to_ssz().unwrap()
    );
    let proof = sharded.prove_fractional(&asked, true).unwrap();
    assert_eq!(proof.to_bytes().unwrap().len(), proof.encoded_len());
    let lean = sharded.prove_fractional(&asked, false).unwrap();
    let state_root = sharded.canonical_root();
    let coordinator_root = sharded.coordinator_root();
    let mut results = Vec::new();
    for anchor in [
        Anchor::StateRoot(state_root),
        Anchor::CoordinatorRoot(coordinator_root),
    ] {
        let proven = verify(&proof, anchor)
            .unwrap_or_else(|e| panic!("fractional proof rejected ({depth:?}, {anchor:?}): {e}"));
        assert_eq!(proven.witness().unbound_absences(), 0);
        results.push(proven);
    }
    let lean_proven = verify(&lean, Anchor::StateRoot(state_root)).unwrap();
    assert!(matches!(
        verify(&lean, Anchor::CoordinatorRoot(coordinator_root)),
        Err(FractionalVerifyError::NoCoordinatorPath)
    ));
    for (k, _) in &asked {
        let expected = single.get(k).unwrap();
        for p in results.iter().chain([&lean_proven]) {
            assert_eq!(p.current_value(k).map(|v| v.copied()), Some(expected));
        }
    }
    // The writes' post-state roots, from the proof alone, equal the sharded tree's after
    // applying them (the last write of a key wins, as in the proof).
    let (post_state, post_coordinator) = results[0].post_roots().unwrap();
    let (lean_post, lean_coordinator) = lean_proven.post_roots().unwrap();
    let applied: Vec<(TreeKey, Option<[u8; 32]>)> =
        asked.iter().filter(|(_, v)| v.is_some()).copied().collect();
    sharded.apply(&applied).unwrap();
    assert_eq!(post_state, sharded.canonical_root(), "{depth:?}");
    assert_eq!(
        post_coordinator,
        Some(sharded.coordinator_root()),
        "{depth:?}"
    );
    assert_eq!(lean_post, post_state);
    assert_eq!(lean_coordinator, None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn fractional_proofs_and_post_roots_depth_1(
        present in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>()), 0..16),
        asked in prop::collection::vec((0u8..24, any::<u8>(), prop::option::of(any::<u8>())), 1..10),
    ) {
        check_proofs(ShardDepth::One, &present, &asked);
    }

    #[test]
    fn fractional_proofs_and_post_roots_depth_2(
        present in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>()), 0..16),
        asked in prop::collection::vec((0u8..24, any::<u8>(), prop::option::of(any::<u8>())), 1..10),
    ) {
        check_proofs(ShardDepth::Two, &present, &asked);
    }
}

/// Inserts into an empty shard, into a one-stem shard and under an internal shard top,
/// updates, and absent reads, at both depths: the post-state roots are the sharded tree's.
#[test]
fn post_roots_after_inserts_and_updates() {
    for depth in [ShardDepth::One, ShardDepth::Two] {
        let present = [
            (0u8, 0u8, 7u8),
            (1, 2, 8),
            (4, 1, 9),
            (7, 3, 10),
            (3, 0, 11),
        ];
        let asked = [
            (0u8, 0u8, Some(20u8)),
            (0, 1, Some(21)),
            (2, 0, Some(22)),
            (5, 2, Some(23)),
            (6, 3, None),
            (10, 0, Some(24)),
            (13, 1, Some(25)),
            (30, 0, None),
        ];
        check_proofs(depth, &present, &asked);
    }
}

/// A tree with stems in shards 0x10, 0x11 and 0xf0, and a proof touching all three.
fn fixture() -> (ShardedTree, OwnedFractionalProof) {
    let writes: Vec<(TreeKey, Option<[u8; 32]>)> = (0..24u8)
        .map(|s| (key(stem_from(s), 0), Some([s; 32])))
        .collect();
    let (mut sharded, _) = trees(ShardDepth::One, &writes);
    let keys: Vec<(TreeKey, Option<[u8; 32]>)> = [0u8, 3, 1, 4, 2, 30]
        .iter()
        .map(|&s| (key(stem_from(s), 0), Some([0xee; 32])))
        .collect();
    let proof = sharded.prove_fractional(&keys, true).unwrap();
    (sharded, proof)
}

#[test]
fn any_altered_byte_is_rejected_under_both_anchors() {
    let (sharded, proof) = fixture();
    let anchors = [
        Anchor::StateRoot(sharded.canonical_root()),
        Anchor::CoordinatorRoot(sharded.coordinator_root()),
    ];
    let bytes = proof.to_bytes().unwrap();
    for anchor in anchors {
        verify_fractional_bytes(Bytes::from(bytes.clone()), &anchor).unwrap();
    }
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= flip;
            for anchor in &anchors {
                assert!(
                    verify_fractional_bytes(Bytes::from(b.clone()), anchor).is_err(),
                    "byte {at} ^ {flip:#04x} of {} still verifies under {anchor:?}",
                    bytes.len()
                );
            }
        }
    }
}

#[test]
fn version_1_is_refused_naming_the_version() {
    let (sharded, proof) = fixture();
    let mut b = proof.to_bytes().unwrap();
    b[0] = 1;
    let err = verify_fractional_bytes(Bytes::from(b), &Anchor::StateRoot(sharded.canonical_root()))
        .unwrap_err();
    assert!(matches!(
        err,
        FractionalVerifyError::Decode(FractionalDecodeError::BadVersion(1))
    ));
    assert!(err.to_string().contains("version 1"), "{err}");
}

#[test]
fn a_proof_of_an_older_state_fails_against_the_newer_roots() {
    let (mut sharded, proof) = fixture();
    sharded
        .apply(&[(key(stem_from(0), 0), Some([0x99; 32]))])
        .unwrap();
    assert!(matches!(
        verify(&proof, Anchor::StateRoot(sharded.canonical_root())),
        Err(FractionalVerifyError::StateRootMismatch { .. })
    ));
    assert!(matches!(
        verify(&proof, Anchor::CoordinatorRoot(sharded.coordinator_root())),
        Err(FractionalVerifyError::CoordinatorRootMismatch { .. })
    ));
}

#[test]
fn absent_keys_in_empty_shards() {
    let (mut tree, _) = fixture();
    // Shard 0x00 is empty: the root's slot 0 is opened to 0, the shard's commitment is the
    // identity under the coordinator.
    let k = [0u8; 32];
    let proof = tree.prove_fractional(&[(k, None)], true).unwrap();
    assert!(proof.commitments.is_empty());
    for anchor in [
        Anchor::StateRoot(tree.canonical_root()),
        Anchor::CoordinatorRoot(tree.coordinator_root()),
    ] {
        let proven = verify(&proof, anchor).unwrap();
        assert_eq!(proven.current_value(&k), Some(None));
        assert_eq!(proven.shards(), &[(0u16, [0u8; 32])]);
    }
}
