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
pub enum VerifyError {
    /// No queries were given.
    #[error("a multiproof needs at least one opening")]
    NoQueries,
    /// `verify_encoded` was given a different number of encodings than queries.
    #[error("{queries} queries but {encodings} commitment encodings")]
    EncodingCount {
        /// Number of queries.
        queries: usize,
        /// Number of encodings.
        encodings: usize,
    },
    /// The proof does not open the commitments to the claimed values.
    #[error("multiproof rejected: the openings do not match the commitments")]
    ProofRejected,
}
