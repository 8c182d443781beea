//! What the JSON reader fills as it goes: the witness's fields as flat tables and byte strings,
//! laid out as one canonical SSZ buffer at the end (`spec/WIRE.md`, "SSZ").

use crate::prelude::*;

use crate::error::SszError;
use crate::preset::{BYTES32_LEN, IPA_PROOF_DEPTH, IPA_PROOF_LEN, STEM_LEN};

/// One `StemStateDiff`: its stem and where its suffix diffs are in [`Builder::diffs`].
pub(super) struct StemRecord {
    pub(super) stem: [u8; STEM_LEN],
    pub(super) first_diff: usize,
    pub(super) diff_count: usize,
}

/// One `SuffixStateDiff`.
#[derive(Default)]
pub(super) struct DiffRecord {
    pub(super) suffix: u8,
    pub(super) current_value: Option<[u8; 32]>,
    pub(super) new_value: Option<[u8; 32]>,
}

/// A witness as read so far. Tables grow as entries arrive; nothing is sized from a count
/// the document states.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) stems: Vec<StemRecord>,
    /// The suffix diffs of every stem, stem after stem.
    pub(super) diffs: Vec<DiffRecord>,
    /// `other_stems`, 31 bytes each.
    pub(super) other_stems: Vec<u8>,
    pub(super) depth_extension_present: Vec<u8>,
    /// `commitments_by_path`, 32 bytes each.
    pub(super) commitments_by_path: Vec<u8>,
    pub(super) d: [u8; 32],
    pub(super) cl: [[u8; 32]; IPA_PROOF_DEPTH],
    pub(super) cr: [[u8; 32]; IPA_PROOF_DEPTH],
    /// Little-endian, as SSZ holds it.
    pub(super) final_evaluation: [u8; 32],
}

/// Fixed part of `ExecutionWitness`: two offsets.
const WITNESS_FIXED: usize = 8;
/// Fixed part of `StemStateDiff`: the stem and one offset.
const STEM_DIFF_FIXED: usize = STEM_LEN + 4;
/// Fixed part of `SuffixStateDiff`: the suffix and two offsets.
const SUFFIX_DIFF_FIXED: usize = 1 + 4 + 4;
/// Fixed part of `VerkleProof`: three offsets, `d` and the `IPAProof`.
const PROOF_FIXED: usize = 3 * 4 + BYTES32_LEN + IPA_PROOF_LEN;

/// SSZ size of a `Union[None, Bytes32]`.
fn union_len(v: &Option<[u8; 32]>) -> usize {
    if v.is_some() {
        1 + BYTES32_LEN
    } else {
        1
    }
}

fn diff_len(d: &DiffRecord) -> usize {
    SUFFIX_DIFF_FIXED + union_len(&d.current_value) + union_len(&d.new_value)
}

/// Appends a `u32` offset; the caller has checked that the whole buffer fits in `u32`.
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

impl Builder {
    /// The suffix diffs of `s`.
    fn diffs_of(&self, s: &StemRecord) -> &[DiffRecord] {
        self.diffs
            .get(s.first_diff..s.first_diff.saturating_add(s.diff_count))
            .unwrap_or(&[])
    }

    fn stem_len(&self, s: &StemRecord) -> usize {
        STEM_DIFF_FIXED
            + self
                .diffs_of(s)
                .iter()
                .map(|d| 4 + diff_len(d))
                .sum::<usize>()
    }

    /// The canonical SSZ encoding, in one allocation of the exact size. The reader has
    /// already held every list to its spec limit; `TooLarge` if the total passes `u32`.
    pub(super) fn into_ssz(self) -> Result<Vec<u8>, SszError> {
        let state_diff_len: usize = self.stems.iter().map(|s| 4 + self.stem_len(s)).sum();
        let proof_len = PROOF_FIXED
            + self.other_stems.len()
            + self.depth_extension_present.len()
            + self.commitments_by_path.len();
        let total = WITNESS_FIXED + state_diff_len + proof_len;
        if u32::try_from(total).is_err() {
            return Err(SszError::TooLarge { len: total });
        }

        let mut out = Vec::with_capacity(total);
        put_offset(&mut out, WITNESS_FIXED);
        put_offset(&mut out, WITNESS_FIXED + state_diff_len);

        // state_diff: offset table, then the elements.
        let mut off = 4 * self.stems.len();
        for s in &self.stems {
            put_offset(&mut out, off);
            off += self.stem_len(s);
        }
        for s in &self.stems {
            let diffs = self.diffs_of(s);
            out.extend_from_slice(&s.stem);
            put_offset(&mut out, STEM_DIFF_FIXED);
            let mut off = 4 * diffs.len();
            for d in diffs {
                put_offset(&mut out, off);
                off += diff_len(d);
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
        let other_len = self.other_stems.len();
        put_offset(&mut out, PROOF_FIXED);
        put_offset(&mut out, PROOF_FIXED + other_len);
        put_offset(
            &mut out,
            PROOF_FIXED + other_len + self.depth_extension_present.len(),
        );
        out.extend_from_slice(&self.d);
        for p in self.cl.iter().chain(&self.cr) {
            out.extend_from_slice(p);
        }
        out.extend_from_slice(&self.final_evaluation);
        out.extend_from_slice(&self.other_stems);
        out.extend_from_slice(&self.depth_extension_present);
        out.extend_from_slice(&self.commitments_by_path);
        debug_assert_eq!(out.len(), total);
        Ok(out)
    }
}
