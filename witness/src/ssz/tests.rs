//! SSZ decoding and encoding against hand-computed layouts and every malformation.

use super::*;
use crate::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
use crate::ExecutionWitness;

/// One stem (0x11…), suffix 5 with current None and new 0x22…; no other stems; one
/// extension status 0x12; no commitments. Layout worked out by hand:
/// `0..8` header, `8..12` stem offsets, `12..43` stem, `43..47` offset, `47..51` diff
/// offsets, `51` suffix, `52..60` union offsets, `60` None, `61..94` Some(0x22…),
/// `94..106` proof offsets, `106..138` d, `138..682` ipa, `682` status.
fn small() -> OwnedExecutionWitness {
    OwnedExecutionWitness {
        state_diff: vec![OwnedStemStateDiff {
            stem: [0x11; 31],
            suffix_diffs: vec![OwnedSuffixStateDiff {
                suffix: 5,
                current_value: None,
                new_value: Some([0x22; 32]),
            }],
        }],
        verkle_proof: OwnedVerkleProof {
            other_stems: vec![],
            depth_extension_present: vec![0x12],
            commitments_by_path: vec![],
            d: [0x33; 32],
            ipa_proof: OwnedIpaProof {
                cl: [[0x44; 32]; 8],
                cr: [[0x55; 32]; 8],
                final_evaluation: [0x66; 32],
            },
        },
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn small_witness_has_the_hand_computed_layout() {
    let b = small().to_ssz().unwrap();
    assert_eq!(b.len(), 683);
    assert_eq!((u32_at(&b, 0), u32_at(&b, 4)), (8, 94));
    assert_eq!(u32_at(&b, 8), 4);
    assert_eq!(&b[12..43], &[0x11; 31]);
    assert_eq!(u32_at(&b, 43), 35);
    assert_eq!(u32_at(&b, 47), 4);
    assert_eq!(b[51], 5);
    assert_eq!((u32_at(&b, 52), u32_at(&b, 56)), (9, 10));
    assert_eq!(b[60], 0, "None selector");
    assert_eq!(b[61], 1, "Some selector");
    assert_eq!(&b[62..94], &[0x22; 32]);
    assert_eq!(
        (u32_at(&b, 94), u32_at(&b, 98), u32_at(&b, 102)),
        (588, 588, 589)
    );
    assert_eq!(&b[106..138], &[0x33; 32]);
    assert_eq!(&b[138..394], &[0x44; 256]);
    assert_eq!(&b[394..650], &[0x55; 256]);
    assert_eq!(&b[650..682], &[0x66; 32]);
    assert_eq!(b[682], 0x12);
    let w = ExecutionWitness::from_ssz_slice(&b).unwrap();
    assert_eq!(w.to_owned_witness(), small());
}

#[test]
fn empty_witness_is_596_bytes() {
    let b = OwnedExecutionWitness::default().to_ssz().unwrap();
    assert_eq!(b.len(), WITNESS_FIXED + PROOF_FIXED);
    assert_eq!(PROOF_FIXED, 588);
    let w = ExecutionWitness::from_ssz_slice(&b).unwrap();
    assert!(w.state_diff().is_empty());
    assert_eq!(w.verkle_proof().multiproof_bytes(), [0; 576]);
}

fn decode(b: &[u8]) -> SszError {
    ExecutionWitness::from_ssz_slice(b).unwrap_err()
}

#[test]
fn truncated_header_is_rejected() {
    let b = small().to_ssz().unwrap();
    assert!(matches!(
        decode(&b[..5]),
        SszError::Truncated {
            at: 0,
            needed: 8,
            available: 5,
            ..
        }
    ));
}

#[test]
fn non_canonical_first_offset_is_rejected() {
    let mut b = small().to_ssz().unwrap();
    set_u32(&mut b, 0, 12);
    assert!(matches!(
        decode(&b),
        SszError::OffsetMismatch {
            at: 0,
            got: 12,
            expected: 8,
            ..
        }
    ));
}

#[test]
fn bad_union_selector_is_rejected() {
    let mut b = small().to_ssz().unwrap();
    b[60] = 2;
    let e = decode(&b);
    assert_eq!(
        e,
        SszError::BadSelector {
            field: SszField::diff("current_value", 0, 0),
            at: 60,
            selector: 2
        }
    );
    assert!(e
        .to_string()
        .contains("state_diff[0].suffix_diffs[0].current_value"));
}

#[test]
fn union_with_a_trailing_byte_is_rejected() {
    let mut b = small().to_ssz().unwrap();
    set_u32(&mut b, 56, 11);
    assert!(matches!(
        decode(&b),
        SszError::UnionLength {
            at: 60,
            len: 2,
            expected: 1,
            ..
        }
    ));
}

#[test]
fn trailing_byte_is_rejected() {
    let mut b = small().to_ssz().unwrap();
    b.push(0);
    assert!(matches!(
        decode(&b),
        SszError::NotMultiple {
            len: 1,
            elem: 32,
            ..
        }
    ));
}

#[test]
fn other_stems_must_be_whole_stems() {
    let mut b = small().to_ssz().unwrap();
    set_u32(&mut b, 98, 589);
    assert!(matches!(
        decode(&b),
        SszError::NotMultiple {
            at: 682,
            len: 1,
            elem: 31,
            ..
        }
    ));
}

#[test]
fn decreasing_offset_is_rejected() {
    let mut b = small().to_ssz().unwrap();
    set_u32(&mut b, 102, 587);
    assert!(matches!(
        decode(&b),
        SszError::OffsetOutOfRange {
            at: 102,
            got: 587,
            min: 588,
            ..
        }
    ));
}

#[test]
fn bad_list_offset_is_rejected() {
    let mut b = small().to_ssz().unwrap();
    set_u32(&mut b, 8, 6);
    assert!(matches!(
        decode(&b),
        SszError::BadListOffset { at: 8, got: 6, .. }
    ));
    set_u32(&mut b, 8, 0);
    assert!(matches!(decode(&b), SszError::BadListOffset { got: 0, .. }));
}

#[test]
fn more_than_256_suffix_diffs_are_rejected_both_ways() {
    let mut w = small();
    w.state_diff[0].suffix_diffs = vec![OwnedSuffixStateDiff::default(); 257];
    assert!(matches!(
        w.to_ssz(),
        Err(SszError::TooMany {
            count: 257,
            max: 256,
            ..
        })
    ));
    // By hand: a stem whose suffix list holds 257 None/None diffs (11 bytes each).
    let mut diffs = Vec::new();
    for i in 0..257u32 {
        diffs.extend_from_slice(&(4 * 257 + 11 * i).to_le_bytes());
    }
    for _ in 0..257 {
        diffs.extend_from_slice(&[0, 9, 0, 0, 0, 10, 0, 0, 0, 0, 0]);
    }
    let mut stem = vec![0u8; 31];
    stem.extend_from_slice(&35u32.to_le_bytes());
    stem.extend_from_slice(&diffs);
    let mut sd = 4u32.to_le_bytes().to_vec();
    sd.extend_from_slice(&stem);
    let mut b = 8u32.to_le_bytes().to_vec();
    b.extend_from_slice(&(8 + sd.len() as u32).to_le_bytes());
    b.extend_from_slice(&sd);
    let mut proof = vec![0u8; PROOF_FIXED];
    for at in [0, 4, 8] {
        set_u32(&mut proof, at, PROOF_FIXED as u32);
    }
    b.extend_from_slice(&proof);
    assert!(matches!(
        decode(&b),
        SszError::TooMany {
            count: 257,
            max: 256,
            at: 47,
            ..
        }
    ));
}

#[test]
fn field_paths_display_in_spec_words() {
    assert_eq!(SszField::top("d").to_string(), "d");
    assert_eq!(
        SszField::stem("suffix_diffs", 3).to_string(),
        "state_diff[3].suffix_diffs"
    );
    assert_eq!(
        SszField::diff("new_value", 3, 2).to_string(),
        "state_diff[3].suffix_diffs[2].new_value"
    );
}
