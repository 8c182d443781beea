//! Why a witness does not verify.

use banderwagon::DecodeError;
use ipa::ProofDecodeError;

use crate::error::CanonicalError;
use crate::preset::IPA_PROOF_DEPTH;

use super::proven::*;

/// Why a witness does not verify against a pre-state root.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A structural canonical-form rule (`spec/WIRE.md` §5) is broken.
    #[error("witness not canonical: {0}")]
    NotCanonical(#[from] CanonicalError),
    /// The state diff is empty: there is nothing to prove.
    #[error("the state diff is empty: a witness proves at least one key")]
    NoKeys,
    /// A stem carries no suffix diffs (no prover lists a stem without keys).
    #[error("state_diff[{stem_index}] has no suffix diffs")]
    EmptyStem {
        /// Index into `state_diff`.
        stem_index: usize,
    },
    /// A stem's path needs a node that an earlier stem placed as something else: the depths
    /// do not describe one tree.
    #[error("state_diff[{stem_index}] needs {wanted} at depth {depth}, where another stem placed {found}")]
    PathConflict {
        /// Index into `state_diff`.
        stem_index: usize,
        /// Depth of the conflicting node.
        depth: usize,
        /// What this stem needs there.
        wanted: NodeKind,
        /// What is already there.
        found: NodeKind,
    },
    /// Two present stems claim the same leaf.
    #[error("state_diff[{stem_index}] and state_diff[{other_index}] are both present at the same leaf path")]
    SharedLeaf {
        /// Index of the later stem.
        stem_index: usize,
        /// Index of the earlier stem.
        other_index: usize,
    },
    /// `other_stems` does not hold exactly one stem per absent-other leaf not held by a
    /// present stem.
    #[error("other_stems has {got} entries; the absent-other leaves need {expected}")]
    OtherStemCount {
        /// Leaves needing an other stem.
        expected: usize,
        /// Entries in `other_stems`.
        got: usize,
    },
    /// An other stem does not lie at the leaf path it is assigned to.
    #[error("other_stems[{index}] does not start with the leaf path of state_diff[{stem_index}]")]
    OtherStemOffPath {
        /// Index into `other_stems`.
        index: usize,
        /// Index of a stem that is absent-other at that leaf.
        stem_index: usize,
    },
    /// An other stem is one of the state diff's stems: it cannot both be the leaf's stem
    /// and be absent.
    #[error("other_stems[{index}] equals state_diff[{stem_index}].stem, which is not present")]
    OtherStemInStateDiff {
        /// Index into `other_stems`.
        index: usize,
        /// Index into `state_diff`.
        stem_index: usize,
    },
    /// `commitments_by_path` does not hold exactly one commitment per proven non-root node.
    #[error("commitments_by_path has {got} commitments; the proven paths need {expected}")]
    CommitmentCount {
        /// Proven nodes other than the root and empty slots (when there are more than
        /// `got`, counting stops at the first stem that goes over).
        expected: usize,
        /// Commitments given.
        got: usize,
    },
    /// The pre-state root is not the encoding of a Banderwagon element.
    #[error("the pre-state root is not a Banderwagon element: {0}")]
    BadRoot(DecodeError),
    /// `commitments_by_path[index]` is not the encoding of a Banderwagon element.
    #[error("commitments_by_path[{index}] is not a Banderwagon element: {source}")]
    BadPoint {
        /// Index into `commitments_by_path`.
        index: usize,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// A point of the multiproof (`d`, `ipa_proof.cl[i]`, `ipa_proof.cr[i]`) does not decode.
    #[error("{field}[{index}] of the proof is not a Banderwagon element: {source}")]
    BadProofPoint {
        /// `"d"`, `"cl"` or `"cr"`.
        field: &'static str,
        /// Index in `cl` or `cr` (0 for `d`).
        index: usize,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// `ipa_proof.final_evaluation` is not a canonical scalar (it is ≥ r).
    #[error("ipa_proof.final_evaluation is not a canonical scalar (>= r)")]
    BadScalar,
    /// `commitments_by_path[index]` stands for an internal node or a leaf but is the
    /// identity. No internal node or leaf of a tree has the identity as its commitment (only
    /// an empty suffix tree does), so the witness describes no real tree: an identity
    /// "internal node" opens to 0 everywhere and would make any absence below it provable.
    #[error(
        "commitments_by_path[{index}] is the identity, but it stands for {kind} at path {path}"
    )]
    IdentityCommitment {
        /// Index into `commitments_by_path`.
        index: usize,
        /// The node's path.
        path: NodePath,
        /// What the shape says the node is (internal node or leaf).
        kind: NodeKind,
    },
    /// The multiproof could not be decoded for another reason.
    #[error("multiproof encoding: {0}")]
    BadProof(ProofDecodeError),
    /// The multiproof does not open the commitments to the claimed values: a current value,
    /// a commitment, the proof or the pre-state root is wrong.
    #[error("the multiproof does not prove the witness against the pre-state root")]
    ProofRejected,
}

impl VerifyError {
    pub(super) fn from_proof_decode(e: ProofDecodeError) -> VerifyError {
        match e {
            ProofDecodeError::BadPoint { index, source } => {
                let (field, index) = match index {
                    0 => ("d", 0),
                    i if i <= IPA_PROOF_DEPTH => ("cl", i - 1),
                    i => ("cr", i - 1 - IPA_PROOF_DEPTH),
                };
                VerifyError::BadProofPoint {
                    field,
                    index,
                    source,
                }
            }
            ProofDecodeError::BadScalar => VerifyError::BadScalar,
            other => VerifyError::BadProof(other),
        }
    }
}
