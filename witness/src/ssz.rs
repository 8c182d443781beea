//! SSZ layout of the EIP-6800 witness containers (`spec/WIRE.md`, "SSZ").
//!
//! Decoding validates the whole buffer up front — every length and offset against the bytes
//! that remain and against the spec limit, before anything is allocated for it — and records
//! where each stem and suffix diff lives in two index tables whose sizes come from a first,
//! allocation-free pass. The views in [`crate::view`] then read from the buffer in place.

use crate::prelude::*;

use core::ops::Range;

use crate::error::{SszError, SszField};
use crate::owned::{OwnedExecutionWitness, OwnedStemStateDiff, OwnedSuffixStateDiff};
use crate::preset::{
    BYTES32_LEN, IPA_PROOF_DEPTH, IPA_PROOF_LEN, MAX_COMMITMENTS, MAX_STEMS, STEM_LEN, VERKLE_WIDTH,
};

/// Fixed part of `ExecutionWitness`: two offsets.
const WITNESS_FIXED: usize = 8;
/// Fixed part of `StemStateDiff`: stem and one offset.
const STEM_DIFF_FIXED: usize = STEM_LEN + 4;
/// Fixed part of `SuffixStateDiff`: suffix and two offsets.
const SUFFIX_DIFF_FIXED: usize = 1 + 4 + 4;
/// Fixed part of `VerkleProof`: three offsets, `d` and the 544-byte `IPAProof`.
pub(crate) const PROOF_FIXED: usize = 3 * 4 + BYTES32_LEN + IPA_PROOF_LEN;
/// Position of `d` inside the fixed part of `VerkleProof`.
pub(crate) const PROOF_D_AT: usize = 3 * 4;

/// Where one `StemStateDiff` lives in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StemEntry {
    /// Absolute position of the 31-byte stem.
    pub stem_at: u32,
    /// Index of its first entry in the suffix-diff table.
    pub first_diff: u32,
    /// Number of suffix diffs (at most 256).
    pub diff_count: u32,
}

/// Where one `SuffixStateDiff` lives in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DiffEntry {
    /// The suffix byte.
    pub suffix: u8,
    /// Absolute position of the current value's 32 bytes, if `Some`.
    pub current_at: Option<u32>,
    /// Absolute position of the new value's 32 bytes, if `Some`.
    pub new_at: Option<u32>,
}

/// The validated layout of a witness buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// One entry per stem, in order.
    pub stems: Vec<StemEntry>,
    /// One entry per suffix diff, stems' diffs concatenated in order.
    pub diffs: Vec<DiffEntry>,
    /// Absolute start of the `VerkleProof` container.
    pub proof_at: usize,
    /// Bytes of `other_stems` (a multiple of 31).
    pub other_stems: Range<usize>,
    /// Bytes of `depth_extension_present`.
    pub depth_extension_present: Range<usize>,
    /// Bytes of `commitments_by_path` (a multiple of 32).
    pub commitments_by_path: Range<usize>,
}

/// Receives the stems and suffix diffs of a state diff as it is walked.
trait Sink {
    fn stem(&mut self, stem_at: usize, diff_count: usize);
    fn diff(&mut self, suffix: u8, current_at: Option<usize>, new_at: Option<usize>);
}

/// First pass: counts, allocates nothing.
#[derive(Default)]
struct Counter {
    stems: usize,
    diffs: usize,
}

impl Sink for Counter {
    fn stem(&mut self, _: usize, _: usize) {
        self.stems += 1;
    }
    fn diff(&mut self, _: u8, _: Option<usize>, _: Option<usize>) {
        self.diffs += 1;
    }
}

/// Second pass: fills the index tables, pre-sized by the first pass.
struct Filler {
    stems: Vec<StemEntry>,
    diffs: Vec<DiffEntry>,
}

// Positions fit in u32: `decode_layout` rejects buffers longer than `u32::MAX` first.
impl Sink for Filler {
    fn stem(&mut self, stem_at: usize, diff_count: usize) {
        self.stems.push(StemEntry {
            stem_at: stem_at as u32,
            first_diff: self.diffs.len() as u32,
            diff_count: diff_count as u32,
        });
    }
    fn diff(&mut self, suffix: u8, current_at: Option<usize>, new_at: Option<usize>) {
        self.diffs.push(DiffEntry {
            suffix,
            current_at: current_at.map(|p| p as u32),
            new_at: new_at.map(|p| p as u32),
        });
    }
}

/// Validates `buf` as a canonical SSZ `ExecutionWitness` and indexes it.
///
/// Allocates exactly the two index tables (none when they are empty).
pub(crate) fn decode_layout(buf: &[u8]) -> Result<Layout, SszError> {
    if u32::try_from(buf.len()).is_err() {
        return Err(SszError::TooLarge { len: buf.len() });
    }
    let end = buf.len();
    let [state_diff_at, proof_at] = variable_fields(
        buf,
        0..end,
        WITNESS_FIXED,
        [0, 4],
        [SszField::top("state_diff"), SszField::top("verkle_proof")],
        SszField::top("ExecutionWitness"),
    )?;
    let proof = decode_proof(buf, proof_at..end)?;
    let state_diff = state_diff_at..proof_at;

    let mut counter = Counter::default();
    walk_state_diff(buf, state_diff.clone(), &mut counter)?;
    let mut filler = Filler {
        stems: Vec::with_capacity(counter.stems),
        diffs: Vec::with_capacity(counter.diffs),
    };
    walk_state_diff(buf, state_diff, &mut filler)?;
    Ok(Layout {
        stems: filler.stems,
        diffs: filler.diffs,
        ..proof
    })
}

/// Validates the `VerkleProof` container in `range`; the index tables are left empty.
fn decode_proof(buf: &[u8], range: Range<usize>) -> Result<Layout, SszError> {
    let start = range.start;
    let end = range.end;
    let [other_at, ext_at, comm_at] = variable_fields(
        buf,
        range,
        PROOF_FIXED,
        [0, 4, 8],
        [
            SszField::top("other_stems"),
            SszField::top("depth_extension_present"),
            SszField::top("commitments_by_path"),
        ],
        SszField::top("VerkleProof"),
    )?;
    fixed_list(
        other_at..ext_at,
        STEM_LEN,
        MAX_STEMS,
        SszField::top("other_stems"),
    )?;
    fixed_list(
        ext_at..comm_at,
        1,
        MAX_STEMS,
        SszField::top("depth_extension_present"),
    )?;
    fixed_list(
        comm_at..end,
        BYTES32_LEN,
        MAX_COMMITMENTS,
        SszField::top("commitments_by_path"),
    )?;
    Ok(Layout {
        stems: Vec::new(),
        diffs: Vec::new(),
        proof_at: start,
        other_stems: other_at..ext_at,
        depth_extension_present: ext_at..comm_at,
        commitments_by_path: comm_at..end,
    })
}

/// Walks `state_diff: List[StemStateDiff, MAX_STEMS]` in `range`, validating everything.
fn walk_state_diff(buf: &[u8], range: Range<usize>, sink: &mut impl Sink) -> Result<(), SszError> {
    let stems = list_count(buf, range.clone(), MAX_STEMS, SszField::top("state_diff"))?;
    for i in 0..stems {
        let elem = element(
            buf,
            range.clone(),
            i,
            stems,
            SszField::stem("StemStateDiff", i),
        )?;
        let [diffs_at] = variable_fields(
            buf,
            elem.clone(),
            STEM_DIFF_FIXED,
            [STEM_LEN],
            [SszField::stem("suffix_diffs", i)],
            SszField::stem("StemStateDiff", i),
        )?;
        let diffs_range = diffs_at..elem.end;
        let count = list_count(
            buf,
            diffs_range.clone(),
            VERKLE_WIDTH,
            SszField::stem("suffix_diffs", i),
        )?;
        sink.stem(elem.start, count);
        for j in 0..count {
            let d = element(
                buf,
                diffs_range.clone(),
                j,
                count,
                SszField::diff("SuffixStateDiff", i, j),
            )?;
            let [current_at, new_at] = variable_fields(
                buf,
                d.clone(),
                SUFFIX_DIFF_FIXED,
                [1, 5],
                [
                    SszField::diff("current_value", i, j),
                    SszField::diff("new_value", i, j),
                ],
                SszField::diff("SuffixStateDiff", i, j),
            )?;
            let suffix = buf.get(d.start).copied().unwrap_or(0);
            let current = union32(
                buf,
                current_at..new_at,
                SszField::diff("current_value", i, j),
            )?;
            let new = union32(buf, new_at..d.end, SszField::diff("new_value", i, j))?;
            sink.diff(suffix, current, new);
        }
    }
    Ok(())
}

/// Reads a little-endian `u32` at `at`, which must lie inside `..end`.
fn read_u32(buf: &[u8], at: usize, end: usize, field: SszField) -> Result<u32, SszError> {
    let bytes = at
        .checked_add(4)
        .filter(|&e| e <= end)
        .and_then(|e| buf.get(at..e))
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .ok_or(SszError::Truncated {
            field,
            at,
            needed: 4,
            available: end.saturating_sub(at),
        })?;
    Ok(u32::from_le_bytes(bytes))
}

/// Reads the offsets of a container's `K` variable-size fields (at relative positions
/// `offsets_at`) and returns their absolute starts. The first must equal `fixed_len`
/// (canonical SSZ), the others must not decrease, and all must lie inside the container; the
/// last field ends where the container ends.
fn variable_fields<const K: usize>(
    buf: &[u8],
    range: Range<usize>,
    fixed_len: usize,
    offsets_at: [usize; K],
    fields: [SszField; K],
    container: SszField,
) -> Result<[usize; K], SszError> {
    let len = range.end.saturating_sub(range.start);
    if len < fixed_len {
        return Err(SszError::Truncated {
            field: container,
            at: range.start,
            needed: fixed_len,
            available: len,
        });
    }
    let mut out = [range.start; K];
    let mut prev: Option<usize> = None;
    for ((slot, rel), field) in out.iter_mut().zip(offsets_at).zip(fields) {
        let at = range.start + rel;
        let got = read_u32(buf, at, range.end, field)?;
        let off = got as usize;
        match prev {
            None if off != fixed_len => {
                return Err(SszError::OffsetMismatch {
                    field,
                    at,
                    got,
                    expected: fixed_len,
                })
            }
            Some(min) if off < min || off > len => {
                return Err(SszError::OffsetOutOfRange {
                    field,
                    at,
                    got,
                    min,
                    max: len,
                })
            }
            _ => {}
        }
        prev = Some(off);
        *slot = range.start + off;
    }
    Ok(out)
}

/// Number of elements of a list of variable-size elements: its first offset over 4.
fn list_count(
    buf: &[u8],
    range: Range<usize>,
    max: usize,
    field: SszField,
) -> Result<usize, SszError> {
    let len = range.end.saturating_sub(range.start);
    if len == 0 {
        return Ok(0);
    }
    let got = read_u32(buf, range.start, range.end, field)?;
    let first = got as usize;
    if first == 0 || !first.is_multiple_of(4) || first > len {
        return Err(SszError::BadListOffset {
            field,
            at: range.start,
            got,
            len,
        });
    }
    let count = first / 4;
    if count > max {
        return Err(SszError::TooMany {
            field,
            at: range.start,
            count,
            max,
        });
    }
    Ok(count)
}

/// Absolute bounds of element `i` of `count` in a list of variable-size elements. Checks
/// `offset[i] <= offset[i + 1] <= len`; done for every `i`, this makes the table monotonic.
fn element(
    buf: &[u8],
    range: Range<usize>,
    i: usize,
    count: usize,
    field: SszField,
) -> Result<Range<usize>, SszError> {
    let len = range.end.saturating_sub(range.start);
    let lo_at = range.start + 4 * i;
    let lo_got = read_u32(buf, lo_at, range.end, field)?;
    let lo = lo_got as usize;
    if lo > len {
        return Err(SszError::OffsetOutOfRange {
            field,
            at: lo_at,
            got: lo_got,
            min: 4 * count,
            max: len,
        });
    }
    let hi = if i + 1 < count {
        let at = range.start + 4 * (i + 1);
        let got = read_u32(buf, at, range.end, field)?;
        if (got as usize) < lo || got as usize > len {
            return Err(SszError::OffsetOutOfRange {
                field,
                at,
                got,
                min: lo,
                max: len,
            });
        }
        got as usize
    } else {
        len
    };
    Ok(range.start + lo..range.start + hi)
}

/// Checks a list of fixed-size elements: whole elements, no more than `max`.
fn fixed_list(
    range: Range<usize>,
    elem: usize,
    max: usize,
    field: SszField,
) -> Result<(), SszError> {
    let len = range.end.saturating_sub(range.start);
    if !len.is_multiple_of(elem) {
        return Err(SszError::NotMultiple {
            field,
            at: range.start,
            len,
            elem,
        });
    }
    if len / elem > max {
        return Err(SszError::TooMany {
            field,
            at: range.start,
            count: len / elem,
            max,
        });
    }
    Ok(())
}

/// Decodes `Union[None, Bytes32]` filling exactly `range`: selector 0 alone, or selector 1 and
/// 32 bytes. Returns the absolute position of the 32 bytes.
fn union32(buf: &[u8], range: Range<usize>, field: SszField) -> Result<Option<usize>, SszError> {
    let len = range.end.saturating_sub(range.start);
    let selector = match buf.get(range.start) {
        Some(&s) if len > 0 => s,
        _ => {
            return Err(SszError::UnionLength {
                field,
                at: range.start,
                len,
                expected: 1,
            })
        }
    };
    let expected = match selector {
        0 => 1,
        1 => 1 + BYTES32_LEN,
        _ => {
            return Err(SszError::BadSelector {
                field,
                at: range.start,
                selector,
            })
        }
    };
    if len != expected {
        return Err(SszError::UnionLength {
            field,
            at: range.start,
            len,
            expected,
        });
    }
    Ok((selector == 1).then_some(range.start + 1))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owned::{OwnedIpaProof, OwnedVerkleProof};
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
}
