//! What the JSON reader fills as it goes: the witness's fields as flat tables and byte strings,
//! laid out as one canonical SSZ buffer at the end by the SSZ encoder's layout
//! (`spec/WIRE.md`, "SSZ").

use crate::prelude::*;

use crate::error::SszError;
use crate::owned::OwnedSuffixStateDiff;
use crate::preset::{IPA_PROOF_DEPTH, STEM_LEN};
use crate::ssz::{write_witness, ProofParts};

/// One `StemStateDiff`: its stem and where its suffix diffs are in [`Builder::diffs`].
pub(super) struct StemRecord {
    pub(super) stem: [u8; STEM_LEN],
    pub(super) first_diff: usize,
    pub(super) diff_count: usize,
}

/// One `SuffixStateDiff`.
pub(super) type DiffRecord = OwnedSuffixStateDiff;

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

impl Builder {
    /// The suffix diffs of `s`.
    fn diffs_of(&self, s: &StemRecord) -> &[DiffRecord] {
        self.diffs
            .get(s.first_diff..s.first_diff.saturating_add(s.diff_count))
            .unwrap_or(&[])
    }

    /// The canonical SSZ encoding, in one allocation of the exact size. The reader has
    /// already held every list to its spec limit; `TooLarge` if the total passes `u32`.
    pub(super) fn into_ssz(self) -> Result<Vec<u8>, SszError> {
        write_witness(
            self.stems.iter().map(|s| (&s.stem, self.diffs_of(s))),
            &ProofParts {
                other_stems: &self.other_stems,
                depth_extension_present: &self.depth_extension_present,
                commitments_by_path: &self.commitments_by_path,
                d: &self.d,
                cl: &self.cl,
                cr: &self.cr,
                final_evaluation: &self.final_evaluation,
            },
        )
    }
}
