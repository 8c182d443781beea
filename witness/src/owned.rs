//! An owned, mutable execution witness: what a prover builds and what the JSON reader fills,
//! before it is laid out as SSZ bytes and read back through zero-copy views.

use crate::prelude::*;

use crate::preset::IPA_PROOF_DEPTH;

/// One suffix of a stem: its value before and after the block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedSuffixStateDiff {
    /// Last byte of the tree key.
    pub suffix: u8,
    /// Value in the pre-state; `None` = absent.
    pub current_value: Option<[u8; 32]>,
    /// Value written by the block; `None` = not written.
    pub new_value: Option<[u8; 32]>,
}

/// The suffix diffs of one stem.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedStemStateDiff {
    /// The first 31 bytes of the tree keys.
    pub stem: [u8; 31],
    /// Diffs by suffix (canonical: strictly ascending suffixes).
    pub suffix_diffs: Vec<OwnedSuffixStateDiff>,
}

/// The IPA proof of the multiproof.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedIpaProof {
    /// Left commitments `L_0..L_7`, compressed.
    pub cl: [[u8; 32]; IPA_PROOF_DEPTH],
    /// Right commitments `R_0..R_7`, compressed.
    pub cr: [[u8; 32]; IPA_PROOF_DEPTH],
    /// Final scalar `a`, as 32 **little-endian** bytes (the SSZ and 576-byte multiproof
    /// order; go-verkle's JSON writes it big-endian).
    pub final_evaluation: [u8; 32],
}

/// The Verkle proof of a witness.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedVerkleProof {
    /// Stems proving absence of other stems on the same path (canonical: strictly ascending).
    pub other_stems: Vec<[u8; 31]>,
    /// One byte per stem of the state diff: `(depth << 3) | extension status`.
    pub depth_extension_present: Vec<u8>,
    /// Commitments of the non-root nodes on the proven paths, sorted by path.
    pub commitments_by_path: Vec<[u8; 32]>,
    /// The multiproof's `D`, compressed.
    pub d: [u8; 32],
    /// The IPA proof.
    pub ipa_proof: OwnedIpaProof,
}

/// An owned execution witness (consensus-spec `ExecutionWitness`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedExecutionWitness {
    /// Diffs by stem (canonical: strictly ascending stems).
    pub state_diff: Vec<OwnedStemStateDiff>,
    /// The proof of the current values against the pre-state root.
    pub verkle_proof: OwnedVerkleProof,
}
