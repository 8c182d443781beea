//! Cheap structural checks come before point work: a witness whose commitment count cannot
//! match its shape is refused without decompressing a single point.
//!
//! Its own test binary: the probe, `witness::decompressed_points`, counts for the whole
//! process, so no other test may verify witnesses beside it.
#![allow(clippy::unwrap_used)]

use banderwagon::Element;
use witness::{
    decompressed_points, verify, OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff,
    OwnedSuffixStateDiff, OwnedVerkleProof, VerifyError,
};

/// One stem absent-empty at depth 1 (it needs no commitment) and `commitments` valid,
/// distinct-looking commitments, with a proof of valid points.
fn witness_with(commitments: usize) -> OwnedExecutionWitness {
    let g = Element::generator().to_bytes();
    OwnedExecutionWitness {
        state_diff: vec![OwnedStemStateDiff {
            stem: [0x42; 31],
            suffix_diffs: vec![OwnedSuffixStateDiff {
                suffix: 0,
                current_value: None,
                new_value: None,
            }],
        }],
        verkle_proof: OwnedVerkleProof {
            other_stems: Vec::new(),
            depth_extension_present: vec![1 << 3],
            commitments_by_path: vec![g; commitments],
            d: g,
            ipa_proof: OwnedIpaProof {
                cl: [g; 8],
                cr: [g; 8],
                final_evaluation: [0; 32],
            },
        },
    }
}

#[test]
fn two_million_commitments_are_refused_before_any_point_is_decompressed() {
    let w = witness_with(2_000_000).to_witness().unwrap();
    assert!(w.as_ssz().len() > 64_000_000, "about 64 MB of commitments");
    let before = decompressed_points();
    let err = verify(&[0u8; 32], &w).unwrap_err();
    assert!(
        matches!(
            err,
            VerifyError::CommitmentCount {
                expected: 0,
                got: 2_000_000
            }
        ),
        "{err}"
    );
    assert_eq!(
        decompressed_points(),
        before,
        "no point may be decompressed"
    );

    // The probe counts: a witness of the right shape does decompress its points (and then
    // fails the proof, which is made of generators).
    let right = witness_with(0).to_witness().unwrap();
    let before = decompressed_points();
    assert!(matches!(
        verify(&[0u8; 32], &right),
        Err(VerifyError::ProofRejected)
    ));
    assert_eq!(
        decompressed_points() - before,
        1 + 16 + 1,
        "D, L, R and the root"
    );
}
