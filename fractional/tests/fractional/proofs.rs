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

use fractional::{KeyOp, ShardConfig, ShardDepth, ShardedTree};

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
    let ops: Vec<(TreeKey, KeyOp)> = block(asked)
        .into_iter()
        .map(|(k, v)| (k, v.map_or(KeyOp::Read, KeyOp::Set)))
        .collect();
    check_ops(depth, present, &ops);
}

/// The tree of `present` (`(stem selector, suffix selector, value)`), proofs of `ops` from
/// it: the standard witness of the same keys equals the single tree's, the fractional proof
/// verifies under both anchors and in the lean form with the values the tree holds, and
/// its post-state roots are the sharded tree's after applying the writes and deletions.
/// Returns the verified proof (state-root anchor).
fn check_ops(
    depth: ShardDepth,
    present: &[(u8, u8, u8)],
    ops: &[(TreeKey, KeyOp)],
) -> VerifiedFractional {
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
    // One op per key, the last one winning, as a block's writes would.
    let asked: Vec<(TreeKey, KeyOp)> = ops
        .iter()
        .copied()
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect();
    let keys: Vec<TreeKey> = asked.iter().map(|(k, _)| *k).collect();
    let standard = sharded.prove(&keys).unwrap();
    assert_eq!(
        standard.to_ssz().unwrap(),
        single.prove(&keys).unwrap().to_ssz().unwrap()
    );
    let proof = sharded.prove_fractional_ops(&asked, true).unwrap();
    assert_eq!(proof.to_bytes().unwrap().len(), proof.encoded_len());
    let lean = sharded.prove_fractional_ops(&asked, false).unwrap();
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
    for (k, op) in &asked {
        let expected = single.get(k).unwrap();
        for p in results.iter().chain([&lean_proven]) {
            assert_eq!(p.current_value(k).map(|v| v.copied()), Some(expected));
            let proven = p.keys().into_iter().find(|f| f.key() == *k).unwrap();
            let deletes = matches!(op, KeyOp::Delete) && expected.is_some();
            assert_eq!(proven.deleted, deletes, "{k:02x?}");
            let set = match op {
                KeyOp::Set(v) => Some(*v),
                _ => None,
            };
            assert_eq!(proven.new_value, set);
        }
    }
    // Keys the proof covers beyond those asked are reads (collapse reads).
    for p in results.iter().chain([&lean_proven]) {
        for f in p.keys() {
            if !asked.iter().any(|(k, _)| *k == f.key()) {
                assert!(f.new_value.is_none() && !f.deleted);
            }
        }
    }
    // The writes' post-state roots, from the proof alone, equal the sharded tree's after
    // applying them (the last op of a key wins, as in the proof).
    let (post_state, post_coordinator) = results[0].post_roots().unwrap();
    let (lean_post, lean_coordinator) = lean_proven.post_roots().unwrap();
    let applied: Vec<(TreeKey, Option<[u8; 32]>)> = asked
        .iter()
        .filter_map(|(k, op)| match op {
            KeyOp::Read => None,
            KeyOp::Set(v) => Some((*k, Some(*v))),
            KeyOp::Delete => Some((*k, None)),
        })
        .collect();
    sharded.apply(&applied).unwrap();
    single.apply(applied.iter().copied()).unwrap();
    assert_eq!(post_state, sharded.canonical_root(), "{depth:?}");
    assert_eq!(post_state, single.root_bytes(), "{depth:?}");
    assert_eq!(
        post_coordinator,
        Some(sharded.coordinator_root()),
        "{depth:?}"
    );
    assert_eq!(lean_post, post_state);
    assert_eq!(lean_coordinator, None);
    results.swap_remove(0)
}

/// Ops from `(stem selector, suffix selector, op code, value)`: 0 read, 1 set, 2 delete.
fn ops_of(asked: &[(u8, u8, u8, u8)]) -> Vec<(TreeKey, KeyOp)> {
    asked
        .iter()
        .map(|&(s, x, code, v)| {
            let op = match code % 3 {
                0 => KeyOp::Read,
                1 => KeyOp::Set([v; 32]),
                _ => KeyOp::Delete,
            };
            (key(stem_from(s), SUFFIXES[usize::from(x % 4)]), op)
        })
        .collect()
}

/// `present`'s keys picked by `picks`, deleted.
fn deletions(present: &[(u8, u8, u8)], picks: &[prop::sample::Index]) -> Vec<(TreeKey, KeyOp)> {
    if present.is_empty() {
        return Vec::new();
    }
    picks
        .iter()
        .map(|i| {
            let (s, x, _) = present[i.index(present.len())];
            (
                key(stem_from(s), SUFFIXES[usize::from(x % 4)]),
                KeyOp::Delete,
            )
        })
        .collect()
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

    #[test]
    fn deletions_and_writes_post_roots_depth_1(
        present in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>()), 1..16),
        asked in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>(), any::<u8>()), 0..6),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..12),
    ) {
        let mut ops = ops_of(&asked);
        ops.extend(deletions(&present, &picks));
        check_ops(ShardDepth::One, &present, &ops);
    }

    #[test]
    fn deletions_and_writes_post_roots_depth_2(
        present in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>()), 1..16),
        asked in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>(), any::<u8>()), 0..6),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..12),
    ) {
        let mut ops = ops_of(&asked);
        ops.extend(deletions(&present, &picks));
        check_ops(ShardDepth::Two, &present, &ops);
    }
}

/// Deletions that empty a leaf whose sibling differs only at the last stem byte (the
/// sibling rises through thirty internal nodes), that empty a whole shard, that leave a
/// leaf with values, and that meet inserts under the same node; and deleting every key.
#[test]
fn post_roots_after_deletes_that_collapse_nodes() {
    // Stems 0 and 12 differ only at byte 30; 1 and 13 too; 2, 5, 8, 11 … share 0xf0.
    let present: Vec<(u8, u8, u8)> = (0..24u8)
        .flat_map(|s| [(s, 0, s + 1), (s, 2, s + 100)])
        .collect();
    let del = |s: u8, x: u8| (key(stem_from(s), SUFFIXES[usize::from(x)]), KeyOp::Delete);
    let set = |s: u8, x: u8, v: u8| {
        (
            key(stem_from(s), SUFFIXES[usize::from(x)]),
            KeyOp::Set([v; 32]),
        )
    };
    let shard_f0: Vec<(TreeKey, KeyOp)> = (0..24u8)
        .filter(|s| s % 3 == 2)
        .flat_map(|s| [del(s, 0), del(s, 2)])
        .collect();
    let everything: Vec<(TreeKey, KeyOp)> =
        (0..24u8).flat_map(|s| [del(s, 0), del(s, 2)]).collect();
    for depth in [ShardDepth::One, ShardDepth::Two] {
        // Stem 0 emptied: stem 12 rises; the proof reads under it to show it is alone.
        let v = check_ops(depth, &present, &[del(0, 0), del(0, 2)]);
        let sibling = key(stem_from(12), 0);
        assert!(
            v.keys().iter().any(|k| k.stem == sibling[..31]),
            "{depth:?}: the proof reads under the rising sibling"
        );
        // One of two values deleted: the leaf stays.
        check_ops(depth, &present, &[del(0, 0)]);
        // Both stems of a pair emptied, with a read of another.
        check_ops(
            depth,
            &present,
            &[
                del(0, 0),
                del(0, 2),
                del(12, 0),
                del(12, 2),
                (key(stem_from(1), 0), KeyOp::Read),
            ],
        );
        // A whole first byte (a whole shard at depth 1) emptied.
        check_ops(depth, &present, &shard_f0);
        // A deletion and an insert under the same node.
        check_ops(
            depth,
            &present,
            &[
                del(0, 0),
                del(0, 2),
                set(12, 1, 9),
                (key([0x10; 31], 0), KeyOp::Set([1; 32])),
            ],
        );
        // Deleting an absent key proves its absence and writes nothing.
        let v = check_ops(depth, &present, &[del(0, 1)]);
        assert!(v.keys().iter().all(|k| !k.deleted));
        // Every key: the tree ends empty.
        let v = check_ops(depth, &present, &everything);
        assert_eq!(v.post_roots().unwrap().0, [0u8; 32], "{depth:?}");
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
