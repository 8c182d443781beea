//! SSZ layout of the EIP-6800 witness containers (`spec/WIRE.md`, "SSZ").
//!
//! Decoding validates the whole buffer up front — every length and offset against the bytes
//! that remain and against the spec limit, before anything is allocated for it — and records
//! where each stem and suffix diff lives in two index tables whose sizes come from a first,
//! allocation-free pass. The views in [`crate::view`] then read from the buffer in place.

use crate::prelude::*;

use core::ops::Range;

use crate::error::{SszError, SszField};
use crate::preset::{BYTES32_LEN, MAX_COMMITMENTS, MAX_STEMS, STEM_LEN, VERKLE_WIDTH};

mod encode;
mod fixed;
#[cfg(test)]
mod tests;

pub(crate) use encode::{encode, write_witness, ProofParts};
use fixed::{PROOF_D_AT, PROOF_FIXED, STEM_DIFF_FIXED, SUFFIX_DIFF_FIXED, WITNESS_FIXED};

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
    /// Absolute start of the 576 multiproof bytes `D ‖ L[8] ‖ R[8] ‖ a` (in SSZ, `d` and
    /// `ipa_proof` of the `VerkleProof` container).
    pub multiproof_at: usize,
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
        multiproof_at: start + PROOF_D_AT,
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
            let suffix = *buf
                .get(d.start)
                .expect("variable_fields checked the fixed part lies in the buffer");
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
