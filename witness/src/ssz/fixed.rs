//! The fixed-size parts of the SSZ containers: what precedes each variable-size field.

use crate::preset::{BYTES32_LEN, IPA_PROOF_LEN, STEM_LEN};

/// Fixed part of `ExecutionWitness`: two offsets.
pub(super) const WITNESS_FIXED: usize = 8;
/// Fixed part of `StemStateDiff`: stem and one offset.
pub(super) const STEM_DIFF_FIXED: usize = STEM_LEN + 4;
/// Fixed part of `SuffixStateDiff`: suffix and two offsets.
pub(super) const SUFFIX_DIFF_FIXED: usize = 1 + 4 + 4;
/// Fixed part of `VerkleProof`: three offsets, `d` and the 544-byte `IPAProof`.
pub(super) const PROOF_FIXED: usize = 3 * 4 + BYTES32_LEN + IPA_PROOF_LEN;
/// Position of `d` inside the fixed part of `VerkleProof`.
pub(super) const PROOF_D_AT: usize = 3 * 4;
