//! Canonical-form rules that need no cryptography (`spec/WIRE.md`, "Canonical form").
//!
//! Two implementations proving the same keys against the same state must produce the same
//! bytes; these rules reject every other arrangement of a witness before any point is
//! decompressed. Rules that need the rebuilt tree (every absent-other stem has its other
//! stem, depths agree with commitments) are the verifier's.

use crate::prelude::*;

use crate::error::CanonicalError;
use crate::execution_witness::ExecutionWitness;
use crate::preset::{EXT_STATUS_ABSENT_OTHER, EXT_STATUS_PRESENT};
use crate::view::{StateDiff, VerkleProof};

/// Checks the structural canonical-form rules of a decoded witness:
///
/// 1. stems strictly ascending;
/// 2. suffixes strictly ascending within a stem;
/// 3. exactly one `depth_extension_present` byte per stem, its extension status (low 3 bits)
///    0 (absent-empty), 1 (absent-other) or 2 (present) and its depth (high 5 bits) ≥ 1;
/// 4. a stem proven absent (status 0 or 1) has no current value;
/// 5. `other_stems` strictly ascending;
/// 6. every other stem lies on the path of some absent-other stem: it shares the first
///    `depth` bytes of a stem whose status is 1.
///
/// Runs in `O(stems · log stems + suffix diffs)`; allocates one table of paths.
pub fn check_canonical(w: &ExecutionWitness) -> Result<(), CanonicalError> {
    check_canonical_parts(w.state_diff(), &w.verkle_proof())
}

/// [`check_canonical`] over the views of a witness, wherever its bytes are laid out (an SSZ
/// witness, or the witness a fractional proof carries).
pub(crate) fn check_canonical_parts(
    state_diff: StateDiff<'_>,
    proof: &VerkleProof<'_>,
) -> Result<(), CanonicalError> {
    let ext = proof.depth_extension_present();
    if ext.len() != state_diff.len() {
        return Err(CanonicalError::ExtensionStatusCount {
            stems: state_diff.len(),
            statuses: ext.len(),
        });
    }

    let mut absent_other_paths: Vec<&[u8]> = Vec::new();
    let mut prev_stem: Option<&[u8; 31]> = None;
    for (stem_index, (s, &byte)) in state_diff.iter().zip(ext).enumerate() {
        if prev_stem.is_some_and(|p| s.stem <= p) {
            return Err(CanonicalError::StemsNotAscending { index: stem_index });
        }
        prev_stem = Some(s.stem);

        let status = byte & 0b111;
        let depth = usize::from(byte >> 3);
        if status > EXT_STATUS_PRESENT {
            return Err(CanonicalError::BadExtensionStatus { stem_index, byte });
        }
        if depth == 0 {
            return Err(CanonicalError::BadDepth { stem_index, byte });
        }
        if status == EXT_STATUS_ABSENT_OTHER {
            if let Some(path) = s.stem.get(..depth) {
                absent_other_paths.push(path);
            }
        }

        let mut prev_suffix: Option<u8> = None;
        for (diff_index, d) in s.suffix_diffs.iter().enumerate() {
            if prev_suffix.is_some_and(|p| d.suffix <= p) {
                return Err(CanonicalError::SuffixesNotAscending {
                    stem_index,
                    diff_index,
                    suffix: d.suffix,
                });
            }
            prev_suffix = Some(d.suffix);
            if status != EXT_STATUS_PRESENT && d.current_value.is_some() {
                return Err(CanonicalError::AbsentStemHasCurrentValue {
                    stem_index,
                    suffix: d.suffix,
                    status,
                });
            }
        }
    }

    let other_stems = proof.other_stems();
    let mut prev_other: Option<&[u8; 31]> = None;
    for (index, other) in other_stems.iter().enumerate() {
        if prev_other.is_some_and(|p| other <= p) {
            return Err(CanonicalError::OtherStemsNotAscending { index });
        }
        prev_other = Some(other);
    }

    absent_other_paths.sort_unstable();
    absent_other_paths.dedup();
    for (index, other) in other_stems.iter().enumerate() {
        let used = (1..=other.len()).any(|d| {
            other
                .get(..d)
                .is_some_and(|prefix| absent_other_paths.binary_search(&prefix).is_ok())
        });
        if !used {
            return Err(CanonicalError::OtherStemUnused { index });
        }
    }
    Ok(())
}
