//! SSZ encoding of a witness (`spec/WIRE.md`, "SSZ"): the layout written in one allocation of
//! the exact size, from an owned witness or from the JSON reader's tables.

use crate::prelude::*;

use super::fixed::{PROOF_FIXED, STEM_DIFF_FIXED, SUFFIX_DIFF_FIXED, WITNESS_FIXED};
use crate::error::{SszError, SszField};
use crate::owned::{OwnedExecutionWitness, OwnedSuffixStateDiff};
use crate::preset::{
    BYTES32_LEN, IPA_PROOF_DEPTH, IPA_PROOF_LEN, MAX_COMMITMENTS, MAX_STEMS, STEM_LEN, VERKLE_WIDTH,
};

/// The `VerkleProof` as the layout reads it, its lists as the bytes of their elements.
pub(crate) struct ProofParts<'a> {
    /// `other_stems`, 31 bytes each.
    pub(crate) other_stems: &'a [u8],
    /// `depth_extension_present`, one byte per stem.
    pub(crate) depth_extension_present: &'a [u8],
    /// `commitments_by_path`, 32 bytes each.
    pub(crate) commitments_by_path: &'a [u8],
    /// `d`.
    pub(crate) d: &'a [u8; 32],
    /// The IPA proof's left commitments.
    pub(crate) cl: &'a [[u8; 32]; IPA_PROOF_DEPTH],
    /// The IPA proof's right commitments.
    pub(crate) cr: &'a [[u8; 32]; IPA_PROOF_DEPTH],
    /// The IPA proof's final scalar, little-endian.
    pub(crate) final_evaluation: &'a [u8; 32],
}

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

fn stem_diff_len(diffs: &[OwnedSuffixStateDiff]) -> usize {
    STEM_DIFF_FIXED + diffs.iter().map(|d| 4 + suffix_diff_len(d)).sum::<usize>()
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

/// Appends a `u32` offset; [`write_witness`] has checked that the total fits in `u32`.
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

/// Lays out a witness as SSZ in one allocation of the exact size: `stems` yields each
/// `StemStateDiff`'s stem and suffix diffs, in order (it is walked three times). The caller
/// has held every list to its spec limit; `TooLarge` if the total passes `u32`.
pub(crate) fn write_witness<'s>(
    stems: impl ExactSizeIterator<Item = (&'s [u8; STEM_LEN], &'s [OwnedSuffixStateDiff])> + Clone,
    proof: &ProofParts<'_>,
) -> Result<Vec<u8>, SszError> {
    let state_diff_len: usize = stems
        .clone()
        .map(|(_, diffs)| 4 + stem_diff_len(diffs))
        .sum();
    let proof_len = PROOF_FIXED
        + proof.other_stems.len()
        + proof.depth_extension_present.len()
        + proof.commitments_by_path.len();
    let total = WITNESS_FIXED + state_diff_len + proof_len;
    if u32::try_from(total).is_err() {
        return Err(SszError::TooLarge { len: total });
    }

    let mut out = Vec::with_capacity(total);
    put_offset(&mut out, WITNESS_FIXED);
    put_offset(&mut out, WITNESS_FIXED + state_diff_len);

    // state_diff: offset table, then the elements.
    let mut off = 4 * stems.len();
    for (_, diffs) in stems.clone() {
        put_offset(&mut out, off);
        off += stem_diff_len(diffs);
    }
    for (stem, diffs) in stems {
        out.extend_from_slice(stem);
        put_offset(&mut out, STEM_DIFF_FIXED);
        let mut off = 4 * diffs.len();
        for d in diffs {
            put_offset(&mut out, off);
            off += suffix_diff_len(d);
        }
        for d in diffs {
            out.push(d.suffix);
            put_offset(&mut out, SUFFIX_DIFF_FIXED);
            put_offset(&mut out, SUFFIX_DIFF_FIXED + union_len(&d.current_value));
            put_union(&mut out, &d.current_value);
            put_union(&mut out, &d.new_value);
        }
    }

    // verkle_proof: three offsets, d, ipa_proof, then the three lists.
    let other_len = proof.other_stems.len();
    put_offset(&mut out, PROOF_FIXED);
    put_offset(&mut out, PROOF_FIXED + other_len);
    put_offset(
        &mut out,
        PROOF_FIXED + other_len + proof.depth_extension_present.len(),
    );
    out.extend_from_slice(proof.d);
    for p in proof.cl.iter().chain(proof.cr) {
        out.extend_from_slice(p);
    }
    out.extend_from_slice(proof.final_evaluation);
    out.extend_from_slice(proof.other_stems);
    out.extend_from_slice(proof.depth_extension_present);
    out.extend_from_slice(proof.commitments_by_path);
    debug_assert_eq!(out.len(), total);
    debug_assert_eq!(
        IPA_PROOF_LEN,
        2 * IPA_PROOF_DEPTH * BYTES32_LEN + BYTES32_LEN
    );
    Ok(out)
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

    write_witness(
        w.state_diff
            .iter()
            .map(|s| (&s.stem, s.suffix_diffs.as_slice())),
        &ProofParts {
            other_stems: vp.other_stems.as_flattened(),
            depth_extension_present: &vp.depth_extension_present,
            commitments_by_path: vp.commitments_by_path.as_flattened(),
            d: &vp.d,
            cl: &vp.ipa_proof.cl,
            cr: &vp.ipa_proof.cr,
            final_evaluation: &vp.ipa_proof.final_evaluation,
        },
    )
}
