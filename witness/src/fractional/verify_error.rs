//! Why a fractional proof does not verify (`spec/FRACTIONAL.md` §5).

use super::coordinator::MerkleProofError;
use super::decode_error::FractionalDecodeError;
use crate::verify::VerifyError;

/// Why a fractional proof does not verify. The checks run in the order of
/// `spec/FRACTIONAL.md` §5; the first failure is reported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalVerifyError {
    /// The bytes are not a fractional proof (F-DEC).
    #[error("fractional proof encoding: {0}")]
    Decode(#[from] FractionalDecodeError),
    /// The witness the proof carries breaks a rule of the standard witness (canonical form,
    /// structure, points), or its multiproof is rejected (`ProofRejected`: a wrong value,
    /// commitment, internal witness, state root or coordinator root).
    #[error("{0}")]
    Witness(#[from] VerifyError),
    /// The internal witnesses are not one per internal node the paths do not prove
    /// internal.
    #[error("the proof has {got} internal witnesses; its internal nodes need {expected}")]
    InternalWitnessCount {
        /// Needed (counting stops at the first node past `got`).
        expected: usize,
        /// Given.
        got: usize,
    },
    /// A touched shard's top is not among the proven nodes. Unreachable for a proof whose
    /// structure checks passed (every stem's path passes through its shard's top).
    #[error("shard {shard}: its top is not among the proven nodes")]
    ShardTopMissing {
        /// The shard.
        shard: u16,
    },
    /// The post-state roots could not be computed (unreachable for an accepted proof).
    #[error("post-state: {0}")]
    PostState(crate::PostStateError),
    /// The coordinator multiproof has too few or too many siblings.
    #[error("coordinator path: {0}")]
    Siblings(MerkleProofError),
    /// The anchor is a state root and the proof hangs from another root.
    #[error(
        "the proof is for state root 0x{}, not 0x{}",
        hex::encode(proof),
        hex::encode(anchor)
    )]
    StateRootMismatch {
        /// The root the proof carries.
        proof: [u8; 32],
        /// The anchor.
        anchor: [u8; 32],
    },
    /// The anchor is a coordinator root and the proof does not carry the coordinator path
    /// (a lean proof verifies against a state root only).
    #[error("the proof does not carry the coordinator path; verify it against a state root")]
    NoCoordinatorPath,
    /// The shard commitments and siblings hash to another coordinator root.
    #[error(
        "the shard commitments hash to coordinator root 0x{}, not 0x{}",
        hex::encode(computed),
        hex::encode(anchor)
    )]
    CoordinatorRootMismatch {
        /// What the proof hashes to.
        computed: [u8; 32],
        /// The anchor.
        anchor: [u8; 32],
    },
}
