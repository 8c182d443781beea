//! Proofs: the sharded tree's standard witness equals the single tree's byte for byte;
//! fractional proofs verify against the coordinator root, and each tampering is rejected
//! with its own error.

use bytes::Bytes;
use proptest::prelude::*;
use verkle::keys::TreeKey;
use verkle::Tree;
use witness::fractional::{
    verify_fractional_bytes, FractionalDecodeError, FractionalVerifyError, OwnedFractionalProof,
};

use fractional::{ShardConfig, ShardDepth, ShardedTree};

use crate::props::{key, stem_from, SUFFIXES};

/// A sharded tree and a single tree over the same writes.
fn trees(depth: ShardDepth, writes: &[(TreeKey, Option<[u8; 32]>)]) -> (ShardedTree, Tree) {
    let mut sharded = ShardedTree::in_memory(ShardConfig {
        depth,
        ..ShardConfig::default()
    });
    sharded.apply(writes).unwrap();
    let mut single = Tree::new();
    single.apply(writes.iter().copied()).unwrap();
    (sharded, single)
}

fn check_proofs(depth: ShardDepth, present: &[(u8, u8, u8)], asked: &[(u8, u8)]) {
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
    let keys: Vec<TreeKey> = asked
        .iter()
        .map(|&(s, x)| key(stem_from(s), SUFFIXES[usize::from(x % 4)]))
        .collect();
    let standard = sharded.prove(&keys).unwrap();
    assert_eq!(
        standard.to_ssz().unwrap(),
        single.prove(&keys).unwrap().to_ssz().unwrap()
    );
    let proof = sharded.prove_fractional(&keys).unwrap();
    let bytes = proof.to_bytes().unwrap();
    assert_eq!(bytes.len(), proof.encoded_len());
    let proven = verify_fractional_bytes(&sharded.coordinator_root(), Bytes::from(bytes))
        .unwrap_or_else(|e| panic!("fractional proof rejected ({depth:?}): {e}"));
    for k in &keys {
        assert_eq!(
            proven.current_value(k).map(|v| v.copied()),
            Some(single.get(k).unwrap())
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn sharded_proofs_depth_1(
        present in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>()), 0..16),
        asked in prop::collection::vec((0u8..24, any::<u8>()), 1..8),
    ) {
        check_proofs(ShardDepth::One, &present, &asked);
    }

    #[test]
    fn sharded_proofs_depth_2(
        present in prop::collection::vec((0u8..24, any::<u8>(), any::<u8>()), 0..16),
        asked in prop::collection::vec((0u8..24, any::<u8>()), 1..8),
    ) {
        check_proofs(ShardDepth::Two, &present, &asked);
    }
}

/// A tree with stems in shards 0x10, 0x11 and 0xf0, and a proof touching all three.
fn fixture() -> (ShardedTree, Vec<TreeKey>, OwnedFractionalProof) {
    let writes: Vec<(TreeKey, Option<[u8; 32]>)> = (0..24u8)
        .map(|s| (key(stem_from(s), 0), Some([s; 32])))
        .collect();
    let (mut sharded, _) = trees(ShardDepth::One, &writes);
    let keys: Vec<TreeKey> = [0u8, 3, 1, 4, 2]
        .iter()
        .map(|&s| key(stem_from(s), 0))
        .collect();
    let proof = sharded.prove_fractional(&keys).unwrap();
    assert_eq!(proof.shards.len(), 3);
    (sharded, keys, proof)
}

fn verify(root: &[u8; 32], proof: &OwnedFractionalProof) -> Result<(), FractionalVerifyError> {
    verify_fractional_bytes(root, Bytes::from(proof.to_bytes().unwrap())).map(|_| ())
}

#[test]
fn untampered_fixture_verifies() {
    let (tree, _, proof) = fixture();
    verify(&tree.coordinator_root(), &proof).unwrap();
}

#[test]
fn shard_presented_under_another_index() {
    let (tree, _, mut proof) = fixture();
    // Entry 1 (shard 0x11) relabelled as shard 0x12, a shard the proof does not list.
    proof.shards[1].index = 0x12;
    assert!(matches!(
        verify(&tree.coordinator_root(), &proof),
        Err(FractionalVerifyError::ShardIndexMismatch {
            entry: 1,
            index: 0x12,
            routes_to: 0x11
        })
    ));
}

#[test]
fn altered_or_swapped_sibling() {
    let (tree, _, proof) = fixture();
    let mut altered = proof.clone();
    altered.siblings[0][5] ^= 1;
    assert!(matches!(
        verify(&tree.coordinator_root(), &altered),
        Err(FractionalVerifyError::CoordinatorRootMismatch { .. })
    ));
    let mut swapped = proof;
    assert!(swapped.siblings.len() >= 2);
    swapped.siblings.swap(0, 1);
    assert!(matches!(
        verify(&tree.coordinator_root(), &swapped),
        Err(FractionalVerifyError::CoordinatorRootMismatch { .. })
    ));
}

#[test]
fn stale_shard_commitment() {
    let (mut tree, keys, _) = fixture();
    let stale = tree.shard_commitment(0x10);
    tree.apply(&[(key(stem_from(0), 9), Some([0xee; 32]))])
        .unwrap();
    assert_ne!(tree.shard_commitment(0x10), stale);
    let mut proof = tree.prove_fractional(&keys).unwrap();
    verify(&tree.coordinator_root(), &proof).unwrap();
    proof.shards[0].commitment = stale;
    assert!(matches!(
        verify(&tree.coordinator_root(), &proof),
        Err(FractionalVerifyError::OpeningsRejected)
    ));
}

#[test]
fn stale_proof_against_a_newer_root() {
    // A whole, self-consistent proof built before a block: its shard commitment for 0x10 is
    // stale, so the Merkle path it implies no longer reaches the new coordinator root.
    let (mut tree, _, stale_proof) = fixture();
    let old_root = tree.coordinator_root();
    tree.apply(&[(key(stem_from(0), 9), Some([0xee; 32]))])
        .unwrap();
    assert_ne!(tree.coordinator_root(), old_root);
    verify(&old_root, &stale_proof).unwrap();
    assert!(matches!(
        verify(&tree.coordinator_root(), &stale_proof),
        Err(FractionalVerifyError::CoordinatorRootMismatch { .. })
    ));
}

#[test]
fn key_routed_to_wrong_shard() {
    let (tree, _, mut proof) = fixture();
    // Move the last stem of shard 0x10 to the front of shard 0x11's entry.
    let moved = proof.shards[0].stems.pop().unwrap();
    assert!(!proof.shards[0].stems.is_empty());
    proof.shards[1].stems.insert(0, moved);
    proof.shards[1].stems.sort_by_key(|s| s.stem);
    let err = verify(&tree.coordinator_root(), &proof).unwrap_err();
    assert!(
        matches!(
            err,
            FractionalVerifyError::KeyRoutedToWrongShard {
                index: 0x11,
                routes_to: 0x10,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn duplicated_shard_entry() {
    let (tree, _, mut proof) = fixture();
    let dup = proof.shards[0].clone();
    proof.shards.insert(1, dup);
    assert!(matches!(
        verify(&tree.coordinator_root(), &proof),
        Err(FractionalVerifyError::Decode(
            FractionalDecodeError::DuplicateShard {
                entry: 1,
                index: 0x10
            }
        ))
    ));
}

#[test]
fn altered_value_and_truncation() {
    let (tree, _, proof) = fixture();
    let mut altered = proof.clone();
    altered.shards[2].stems[0].suffixes[0].current_value = Some([0x77; 32]);
    assert!(matches!(
        verify(&tree.coordinator_root(), &altered),
        Err(FractionalVerifyError::OpeningsRejected)
    ));
    let bytes = proof.to_bytes().unwrap();
    for cut in [0, 3, 40, bytes.len() - 1] {
        let r = verify_fractional_bytes(
            &tree.coordinator_root(),
            Bytes::copy_from_slice(&bytes[..cut]),
        );
        assert!(
            matches!(
                r,
                Err(FractionalVerifyError::Decode(
                    FractionalDecodeError::Truncated { .. }
                ))
            ),
            "cut at {cut}: {r:?}"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        verify_fractional_bytes(&tree.coordinator_root(), Bytes::from(long)),
        Err(FractionalVerifyError::Decode(
            FractionalDecodeError::TrailingBytes { extra: 1 }
        ))
    ));
    // A huge count in the header is rejected before anything is reserved.
    let mut huge = bytes;
    huge[2] = 0xff;
    huge[3] = 0xff;
    assert!(matches!(
        verify_fractional_bytes(&tree.coordinator_root(), Bytes::from(huge)),
        Err(FractionalVerifyError::Decode(
            FractionalDecodeError::Truncated { .. }
        ))
    ));
}

#[test]
fn absent_keys_in_empty_shards() {
    let (mut tree, _, _) = fixture();
    // Shard 0x00 is empty: its key is proven absent by the identity commitment alone.
    let k = [0u8; 32];
    let proof = tree.prove_fractional(&[k]).unwrap();
    assert_eq!(proof.shards[0].commitment, [0u8; 32]);
    assert!(proof.commitments.is_empty());
    let proven = verify_fractional_bytes(
        &tree.coordinator_root(),
        Bytes::from(proof.to_bytes().unwrap()),
    )
    .unwrap();
    assert_eq!(proven.current_value(&k), Some(None));
}
