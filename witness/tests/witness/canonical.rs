//! Each canonical-form rule rejects a real witness altered to break just that rule.

use witness::{
    canonical::check_canonical, owned::OwnedExecutionWitness, CanonicalError, ExecutionWitness,
};

use crate::common::{read_text, real_witnesses};

fn owned(rel: &str) -> OwnedExecutionWitness {
    ExecutionWitness::from_json_str(&read_text(rel))
        .unwrap()
        .to_owned_witness()
}

fn check(w: &OwnedExecutionWitness) -> Result<(), CanonicalError> {
    check_canonical(&w.to_witness().unwrap())
}

#[test]
fn unaltered_witness_passes() {
    assert_eq!(check(&owned("witness/valid_block_72.json")), Ok(()));
}

#[test]
fn swapped_stems_are_rejected() {
    let mut w = owned("witness/valid_block_72.json");
    w.state_diff.swap(1, 2);
    assert_eq!(
        check(&w),
        Err(CanonicalError::StemsNotAscending { index: 2 })
    );
}

#[test]
fn duplicate_stem_is_rejected() {
    let mut w = owned("witness/valid_block_72.json");
    w.state_diff[1].stem = w.state_diff[0].stem;
    assert_eq!(
        check(&w),
        Err(CanonicalError::StemsNotAscending { index: 1 })
    );
}

#[test]
fn repeated_suffix_is_rejected() {
    let mut w = owned("witness/valid_block_72.json");
    let first = w.state_diff[0].suffix_diffs[0].suffix;
    w.state_diff[0].suffix_diffs[1].suffix = first;
    assert_eq!(
        check(&w),
        Err(CanonicalError::SuffixesNotAscending {
            stem_index: 0,
            diff_index: 1,
            suffix: first
        })
    );
}

#[test]
fn missing_extension_status_is_rejected() {
    let mut w = owned("witness/valid_block_72.json");
    w.verkle_proof.depth_extension_present.pop();
    assert_eq!(
        check(&w),
        Err(CanonicalError::ExtensionStatusCount {
            stems: 5,
            statuses: 4
        })
    );
}

#[test]
fn extension_status_3_is_rejected() {
    let mut w = owned("witness/valid_block_72.json");
    w.verkle_proof.depth_extension_present[2] = 0x0b;
    assert_eq!(
        check(&w),
        Err(CanonicalError::BadExtensionStatus {
            stem_index: 2,
            byte: 0x0b
        })
    );
}

#[test]
fn depth_0_is_rejected() {
    let mut w = owned("witness/valid_block_72.json");
    w.verkle_proof.depth_extension_present[1] = 0x02;
    assert_eq!(
        check(&w),
        Err(CanonicalError::BadDepth {
            stem_index: 1,
            byte: 0x02
        })
    );
}

#[test]
fn current_value_on_absent_stem_is_rejected() {
    // eest: the last stem is absent-empty (0x08) with null current values.
    let mut w = owned("witness/eest_verkleBlock.json");
    assert_eq!(check(&w), Ok(()));
    w.state_diff[3].suffix_diffs[1].current_value = Some([1; 32]);
    assert_eq!(
        check(&w),
        Err(CanonicalError::AbsentStemHasCurrentValue {
            stem_index: 3,
            suffix: 1,
            status: 0
        })
    );
}

fn with_two_other_stems() -> OwnedExecutionWitness {
    real_witnesses()
        .into_iter()
        .map(|(_, w)| w.to_owned_witness())
        .find(|w| w.verkle_proof.other_stems.len() >= 2)
        .expect("a chain block with two other stems")
}

#[test]
fn unsorted_other_stems_are_rejected() {
    let mut w = with_two_other_stems();
    w.verkle_proof.other_stems.swap(0, 1);
    assert_eq!(
        check(&w),
        Err(CanonicalError::OtherStemsNotAscending { index: 1 })
    );
}

#[test]
fn unused_other_stem_is_rejected() {
    let mut w = owned("witness/valid_block_1.json");
    assert_eq!(check(&w), Ok(()));
    // Depth 1: the other stem must share the first byte of the absent-other stem.
    w.verkle_proof.other_stems[0][0] ^= 0x80;
    assert_eq!(check(&w), Err(CanonicalError::OtherStemUnused { index: 0 }));
}
