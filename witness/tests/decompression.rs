//! Cheap structural checks come before point work: a witness whose commitment count cannot
//! match its shape is refused without decompressing a single point.
//!
//! Its own test binary: the probe, `witness::decompressed_points`, counts for the whole
//! process, so no other test may verify witnesses beside it.
#![allow(clippy::unwrap_used)]

use witness::hostile::many_commitments;
use witness::{decompressed_points, verify, VerifyError};

#[test]
fn two_million_commitments_are_refused_before_any_point_is_decompressed() {
    let w = many_commitments(2_000_000).to_witness().unwrap();
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
    let right = many_commitments(0).to_witness().unwrap();
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
