//! SSZ encoding of an owned witness (`spec/WIRE.md`, "SSZ"): one allocation of the exact size.

use crate::prelude::*;

use super::fixed::{PROOF_FIXED, STEM_DIFF_FIXED, SUFFIX_DIFF_FIXED, WITNESS_FIXED};
use crate::error::{SszError, SszField};
use crate::owned::{OwnedExecutionWitness, OwnedStemStateDiff, OwnedSuffixStateDiff};
use crate::preset::{
    BYTES32_LEN, IPA_PROOF_DEPTH, IPA_PROOF_LEN, MAX_COMMITMENTS, MAX_STEMS, STEM_LEN, VERKLE_WIDTH,
};

/// SSZ size of a `Union[None, Bytes32]`.
fn union_len(v: &Option<[u8; 32]>) -> usize {
    if v.is_some() {
        1 + BYTES32_LEN
    } else {
        1
    }
}

fn suffix_diff_len(d: &OwnedSuffixStateDiff) -> usize {
    SUFFIX_DIFF_FIXED + union_len(&d.current_value) + union_len(&d.new_value)
}

fn stem_diff_len(s: &OwnedStemStateDiff) -> usize {
    STEM_DIFF_FIXED
        + s.suffix_diffs
            .iter()
            .map(|d| 4 + suffix_diff_len(d))
            .sum::<usize>()
}

fn check_limit(field: SszField, count: usize, max: usize) -> Result<(), SszError> {
    if count > max {
        return Err(SszError::TooMany {
            field,
            at: 0,
            count,
            max,
        });
    }
    Ok(())
}

/// Appends a `u32` offset; `encode` has checked that the total fits in `u32`.
fn put_offset(out: &mut Vec<u8>, off: usize) {
    out.extend_from_slice(&(off as u32).to_le_bytes());
}

fn put_union(out: &mut Vec<u8>, v: &Option<[u8; 32]>) {
    match v {
        Some(b) => {
            out.push(1);
            out.extend_from_slice(b);
        }
        None => out.push(0),
    }
}

/// Encodes an owned witness as canonical SSZ, in one allocation of the exact size.
///
/// Errors `TooMany` (with `at: 0`) when a list exceeds its spec limit, and `TooLarge` when the
/// encoding would not fit 32-bit offsets.
pub(crate) fn encode(w: &OwnedExecutionWitness) -> Result<Vec<u8>, SszError> {
    let vp = &w.verkle_proof;
    check_limit(SszField::top("state_diff"), w.state_diff.len(), MAX_STEMS)?;
    for (i, s) in w.state_diff.iter().enumerate() {
        check_limit(
            SszField::stem("suffix_diffs", i),
            s.suffix_diffs.len(),
            VERKLE_WIDTH,
        )?;
    }
    check_limit(
        SszField::top("other_stems"),
        vp.other_stems.len(),
        MAX_STEMS,
    )?;
    check_limit(
        SszField::top("depth_extension_present"),
        vp.depth_extension_present.len(),
        MAX_STEMS,
    )?;
    check_limit(
        SszField::top("commitments_by_path"),
        vp.commitments_by_path.len(),
        MAX_COMMITMENTS,
    )?;

    let state_diff_len: usize = w.state_diff.iter().map(|s| 4 + stem_diff_len(s)).sum();
    let proof_len = PROOF_FIXED
        + STEM_LEN * vp.other_stems.len()
        + vp.depth_extension_present.len()
        + BYTES32_LEN * vp.commitments_by_path.len();
    let total = WITNESS_FIXED + state_diff_len + proof_len;
    if u32::try_from(total).is_err() {
        return Err(SszError::TooLarge { len: total });
    }

    let mut out = Vec::with_capacity(total);
    put_offset(&mut out, WITNESS_FIXED);
    put_offset(&mut out, WITNESS_FIXED + state_diff_len);

    // state_diff: offset table, then the elements.
    let mut off = 4 * w.state_diff.len();
    for s in &w.state_diff {
        put_offset(&mut out, off);
        off += stem_diff_len(s);
    }
    for s in &w.state_diff {
        out.extend_from_slice(&s.stem);
        put_offset(&mut out, STEM_DIFF_FIXED);
        let mut off = 4 * s.suffix_diffs.len();
        for d in &s.suffix_diffs {
            put_offset(&mut out, off);
            off += suffix_diff_len(d);
        }
        for d in &s.suffix_diffs {
            out.push(d.suffix);
            put_offset(&mut out, SUFFIX_DIFF_FIXED);
            put_offset(&mut out, SUFFIX_DIFF_FIXED + union_len(&d.current_value));
            put_union(&mut out, &d.current_value);
            put_union(&mut out, &d.new_value);
        }
    }

    // verkle_proof: three offsets, d, ipa_proof, then the three lists.
    let other_len = STEM_LEN * vp.other_stems.len();
    put_offset(&mut out, PROOF_FIXED);
    put_offset(&mut out, PROOF_FIXED + other_len);
    put_offset(
        &mut out,
        PROOF_FIXED + other_len + vp.depth_extension_present.len(),
    );
    out.extend_from_slice(&vp.d);
    for p in vp.ipa_proof.cl.iter().chain(&vp.ipa_proof.cr) {
        out.extend_from_slice(p);
    }
    out.extend_from_slice(&vp.ipa_proof.final_evaluation);
    for s in &vp.other_stems {
        out.extend_from_slice(s);
    }
    out.extend_from_slice(&vp.depth_extension_present);
    for c in &vp.commitments_by_path {
        out.extend_from_slice(c);
    }
    debug_assert_eq!(out.len(), total);
    debug_assert_eq!(
        IPA_PROOF_LEN,
        2 * IPA_PROOF_DEPTH * BYTES32_LEN + BYTES32_LEN
    );
    Ok(out)
}
