//! The leaf-posing-as-internal-node absence (`spec/FRACTIONAL.md` §5.2), built against a
//! shard holding one stem, against a leaf deeper in a shard, and against a lone leaf above
//! the shard prefix at depth 2: a prover holding the whole state claims a stem absent
//! under a leaf by presenting the leaf as an internal node opened at an empty index. The
//! same construction passes the standard EIP-6800 verifier (as an unbound absence); every
//! form of it is rejected as a fractional proof, under both anchors.

use banderwagon::arith::One;
use banderwagon::{Element, Fr};
use ipa::{Committer, MultiProof, ProverQuery};
use verkle::keys::TreeKey;
use verkle::proof::OpenedNode;
use witness::fractional::{
    start_transcript, Anchor, FractionalDecodeError, FractionalVerifyError, OwnedFractionalProof,
    OwnedFractionalStem, OwnedFractionalSuffix,
};

use fractional::ShardDepth;

use crate::proofs::{trees, verify};
use crate::props::key;

/// How the forger handles the internal witness the fake internal node needs.
#[derive(Clone, Copy, Debug)]
enum Witness {
    /// Leaves it out.
    Omitted,
    /// Gives 1, the leaf's true value at index 0.
    One,
    /// Gives another value and proves the openings anyway (the multiproof is then over a
    /// false opening).
    Other,
}

/// The multiproof bytes over `(node, point, claimed value)` queries.
fn prove(transcript: &mut ipa::Transcript, queries: &[(&OpenedNode, u8, Fr)]) -> [u8; 576] {
    let q: Vec<ProverQuery<'_>> = queries
        .iter()
        .map(|(n, z, y)| ProverQuery {
            commitment: n.commitment,
            poly: &n.poly,
            point: *z,
            result: *y,
        })
        .collect();
    MultiProof::prove(Committer::eip6800(), transcript, &q).to_bytes()
}

/// Builds the forgery: `writes` make a tree where `target` is absent and its path ends at
/// a leaf at depth `leaf_depth` (absent-other); the forged proof claims `target`
/// absent-empty one level deeper, the leaf standing for an internal node opened at
/// `target[leaf_depth]` (≥ 4, where every leaf is 0).
fn forge(
    depth: ShardDepth,
    writes: &[(TreeKey, Option<[u8; 32]>)],
    target: TreeKey,
    leaf_depth: usize,
    witness: Witness,
) -> (
    Anchor,
    Anchor,
    OwnedFractionalProof,
    witness::owned::OwnedExecutionWitness,
) {
    let (mut sharded, mut single) = trees(depth, writes);
    let honest = sharded.prove_fractional(&[(target, None)], true).unwrap();
    assert_eq!(honest.stems.len(), 1);
    assert_eq!(
        honest.stems[0].ext,
        ((leaf_depth as u8) << 3) | 1,
        "the target ends at the leaf, absent-other"
    );
    // The proven path's nodes with their polynomials: root, internal nodes, the leaf.
    let opened = single.hypertree_openings(&[], &[(target, None)]).unwrap();
    let nodes = opened.nodes;
    assert_eq!(nodes.len(), leaf_depth + 1);
    let leaf = &nodes[leaf_depth];
    assert!(
        leaf.poly[0].is_one(),
        "the node at the end of the path is a leaf"
    );
    let index = target[leaf_depth];
    assert!(index >= 4);

    let coordinator = sharded.coordinator_root();
    let mut queries: Vec<(&OpenedNode, u8, Fr)> = Vec::new();
    for n in &nodes[..leaf_depth] {
        let z = target[n.path.len()];
        queries.push((n, z, n.poly[usize::from(z)]));
    }
    let mut internal_witnesses = Vec::new();
    match witness {
        Witness::Omitted => {}
        Witness::One => {
            internal_witnesses.push(banderwagon::fr_to_le_bytes(&Fr::one()));
            queries.push((leaf, 0, Fr::one()));
        }
        Witness::Other => {
            let w = Fr::one() + Fr::one();
            internal_witnesses.push(banderwagon::fr_to_le_bytes(&w));
            queries.push((leaf, 0, w));
        }
    }
    queries.push((leaf, index, leaf.poly[usize::from(index)]));
    let commitments: Vec<Element> = nodes[1..].iter().map(|n| n.commitment).collect();
    let mut forged = OwnedFractionalProof {
        depth: depth.to_byte(),
        root: sharded.canonical_root(),
        stems: vec![OwnedFractionalStem {
            stem: target[..31].try_into().unwrap(),
            ext: ((leaf_depth as u8 + 1) << 3),
            suffixes: vec![OwnedFractionalSuffix {
                suffix: target[31],
                current_value: None,
                new_value: None,
                deleted: false,
            }],
        }],
        other_stems: Vec::new(),
        commitments: Element::batch_to_bytes(&commitments),
        internal_witnesses,
        siblings: honest.siblings.clone(),
        multiproof: [0u8; 576],
    };
    let body = forged.to_bytes().unwrap();
    forged.multiproof = prove(&mut start_transcript(&body[..body.len() - 576]), &queries);

    // The same construction as a standard EIP-6800 witness ("vt", no internal witness).
    let standard_queries: Vec<(&OpenedNode, u8, Fr)> = queries
        .iter()
        .filter(|(n, z, _)| !(n.path == leaf.path && *z == 0))
        .copied()
        .collect();
    let bytes = prove(&mut ipa::Transcript::new(b"vt"), &standard_queries);
    let mut standard = sharded.prove(&[target]).unwrap();
    standard.verkle_proof.depth_extension_present = vec![(leaf_depth as u8 + 1) << 3];
    standard.verkle_proof.other_stems = Vec::new();
    standard.verkle_proof.commitments_by_path = forged.commitments.clone();
    standard.verkle_proof.d = bytes[..32].try_into().unwrap();
    for i in 0..8 {
        standard.verkle_proof.ipa_proof.cl[i] = bytes[32 + 32 * i..64 + 32 * i].try_into().unwrap();
        standard.verkle_proof.ipa_proof.cr[i] =
            bytes[288 + 32 * i..320 + 32 * i].try_into().unwrap();
    }
    standard.verkle_proof.ipa_proof.final_evaluation = bytes[544..].try_into().unwrap();
    (
        Anchor::StateRoot(sharded.canonical_root()),
        Anchor::CoordinatorRoot(coordinator),
        forged,
        standard,
    )
}

/// Every witness handling is rejected under both anchors, with the error that names it;
/// the standard verifier accepts the construction and reports the absence unbound.
fn check_rejected(
    depth: ShardDepth,
    writes: &[(TreeKey, Option<[u8; 32]>)],
    target: TreeKey,
    leaf_depth: usize,
) {
    for witness in [Witness::Omitted, Witness::One, Witness::Other] {
        let (state, coordinator, forged, standard) =
            forge(depth, writes, target, leaf_depth, witness);
        for anchor in [state, coordinator] {
            let err = verify(&forged, anchor).unwrap_err();
            let expected = match witness {
                Witness::Omitted => matches!(
                    err,
                    FractionalVerifyError::InternalWitnessCount {
                        expected: 1,
                        got: 0
                    }
                ),
                Witness::One => matches!(
                    err,
                    FractionalVerifyError::Decode(FractionalDecodeError::InternalWitnessOne {
                        index: 0
                    })
                ),
                Witness::Other => matches!(
                    err,
                    FractionalVerifyError::Witness(witness::VerifyError::ProofRejected)
                ),
            };
            assert!(expected, "{depth:?} {witness:?} {anchor:?}: {err:?}");
        }
        let Anchor::StateRoot(root) = state else {
            unreachable!()
        };
        let w = standard.to_witness().unwrap();
        let proven = witness::verify(&root, &w).expect("the standard verifier accepts it");
        assert_eq!(proven.unbound_absences(), 1);
    }
}

fn stem(bytes: &[(usize, u8)]) -> [u8; 31] {
    let mut s = [0x33u8; 31];
    for &(i, b) in bytes {
        s[i] = b;
    }
    s
}

#[test]
fn leaf_posing_as_internal_in_a_one_stem_shard() {
    // Shard 0x40 holds one stem: its top is that stem's leaf, at depth 1.
    let writes = [
        (key(stem(&[(0, 0x40)]), 0), Some([1; 32])),
        (key(stem(&[(0, 0x80)]), 0), Some([2; 32])),
    ];
    let target = key(stem(&[(0, 0x40), (1, 0x90)]), 5);
    check_rejected(ShardDepth::One, &writes, target, 1);
}

#[test]
fn leaf_posing_as_internal_deeper_in_a_shard() {
    // Shard 0x40 holds two stems that part at byte 1: leaves at depth 2 under an internal
    // top.
    let writes = [
        (key(stem(&[(0, 0x40), (1, 0x10)]), 0), Some([1; 32])),
        (key(stem(&[(0, 0x40), (1, 0x20)]), 0), Some([2; 32])),
    ];
    let target = key(stem(&[(0, 0x40), (1, 0x10), (2, 0x90)]), 7);
    check_rejected(ShardDepth::One, &writes, target, 2);
}

#[test]
fn lone_leaf_above_the_shard_prefix_at_depth_2() {
    // One stem starts with 0x40: at shard depth 2 its leaf hangs at depth 1, the top of
    // shard 0x4033, and every other shard under 0x40 is empty.
    let writes = [
        (key(stem(&[(0, 0x40)]), 0), Some([1; 32])),
        (key(stem(&[(0, 0x80)]), 0), Some([2; 32])),
    ];
    let target = key(stem(&[(0, 0x40), (1, 0x90)]), 5);
    check_rejected(ShardDepth::Two, &writes, target, 1);
}

#[test]
fn leaf_posing_as_internal_deeper_at_depth_2() {
    let writes = [
        (
            key(stem(&[(0, 0x40), (1, 0x10), (2, 0x10)]), 0),
            Some([1; 32]),
        ),
        (
            key(stem(&[(0, 0x40), (1, 0x10), (2, 0x20)]), 0),
            Some([2; 32]),
        ),
    ];
    let target = key(stem(&[(0, 0x40), (1, 0x10), (2, 0x10), (3, 0x90)]), 5);
    check_rejected(ShardDepth::Two, &writes, target, 3);
}
