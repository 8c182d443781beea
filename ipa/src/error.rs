//! Errors of proof decoding and verification.

use banderwagon::DecodeError;

/// Why bytes are not an encoded proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofDecodeError {
    /// The encoding has the wrong length.
    #[error("proof must be {expected} bytes, got {got}")]
    WrongLength {
        /// Required length.
        expected: usize,
        /// Length received.
        got: usize,
    },
    /// A point of the proof does not decode (index counts 32-byte points from the start).
    #[error("proof point {index} is invalid: {source}")]
    BadPoint {
        /// Position of the point among the proof's points.
        index: usize,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// The final scalar is not below the group order.
    #[error("proof final scalar is not canonical (>= r)")]
    BadScalar,
}

/// Why a multiproof was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofVerifyError {
    /// No queries were given.
    #[error("a multiproof needs at least one opening")]
    NoQueries,
    /// `verify_openings` was given a different number of encodings than commitments.
    #[error("{commitments} commitments but {encodings} commitment encodings")]
    CommitmentEncodings {
        /// Number of commitments.
        commitments: usize,
        /// Number of encodings.
        encodings: usize,
    },
    /// An opening refers to a commitment that was not given.
    #[error("opening {opening} refers to commitment {index}, but only {commitments} were given")]
    CommitmentIndex {
        /// Position of the opening.
        opening: usize,
        /// The commitment index it names.
        index: u32,
        /// Number of commitments given.
        commitments: usize,
    },
    /// The proof does not open the commitments to the claimed values.
    #[error("multiproof rejected: the openings do not match the commitments")]
    ProofRejected,
}
