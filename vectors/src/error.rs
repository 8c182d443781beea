//! Why a vector file could not be read, or what it disagreed with.

use std::path::PathBuf;

/// A vector file that cannot be read, is malformed, or disagrees with our implementation.
///
/// `at` fields name the place: a file path, then a JSON Pointer (RFC 6901) or a case name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VectorError {
    /// The file or directory cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{}: not JSON: {source}", path.display())]
    Json {
        /// The path.
        path: PathBuf,
        /// The parser's reason.
        source: serde_json::Error,
    },
    /// A field is missing or has the wrong type, length or form.
    #[error("{at}: {reason}")]
    Field {
        /// Where (JSON Pointer, case name).
        at: String,
        /// What is wrong.
        reason: String,
    },
    /// Our implementation computes something other than the vector says.
    #[error("{at}: got {got}, expected {expected}")]
    Mismatch {
        /// Where (JSON Pointer, case name).
        at: String,
        /// What we computed.
        got: String,
        /// What the vector says.
        expected: String,
    },
    /// No checker knows this file.
    #[error("{}: no checker knows this file (not one of our suite files nor a known upstream file)", path.display())]
    Unrecognised {
        /// The path.
        path: PathBuf,
    },
    /// The generator's own cross-check failed: a bug in fverkle, not in the input.
    #[error("generator self-check: {0}")]
    Generator(String),
}

impl VectorError {
    /// A [`VectorError::Field`] error.
    pub fn field(at: impl Into<String>, reason: impl Into<String>) -> VectorError {
        VectorError::Field {
            at: at.into(),
            reason: reason.into(),
        }
    }

    /// A [`VectorError::Mismatch`] error.
    pub fn mismatch(
        at: impl Into<String>,
        got: impl std::fmt::Display,
        expected: impl std::fmt::Display,
    ) -> VectorError {
        VectorError::Mismatch {
            at: at.into(),
            got: got.to_string(),
            expected: expected.to_string(),
        }
    }
}

/// Fails with a mismatch at `at` unless `got == expected`.
pub(crate) fn expect_eq<T: PartialEq + std::fmt::Display>(
    at: &str,
    got: T,
    expected: T,
) -> Result<(), VectorError> {
    if got == expected {
        Ok(())
    } else {
        Err(VectorError::mismatch(at, got, expected))
    }
}
