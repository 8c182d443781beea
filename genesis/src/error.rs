//! What is wrong with an import, and where.

use verkle::keys::LayoutError;
use verkle::ParseU256Error;

/// Why one field of an import is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldError {
    /// A required field is absent.
    #[error("missing")]
    Missing,
    /// The field has the wrong JSON type.
    #[error("expected {expected}")]
    WrongType {
        /// What was expected.
        expected: &'static str,
    },
    /// Not hexadecimal.
    #[error("invalid hex: {message}")]
    BadHex {
        /// The decoder's message.
        message: String,
    },
    /// Wrong number of bytes.
    #[error("expected {expected} bytes, got {got}")]
    WrongLength {
        /// Bytes required.
        expected: usize,
        /// Bytes found.
        got: usize,
    },
    /// Longer than allowed.
    #[error("at most {max} bytes, got {got}")]
    TooLong {
        /// Largest allowed.
        max: usize,
        /// Bytes found.
        got: usize,
    },
    /// Not a 256-bit number.
    #[error("{0}")]
    Number(#[from] ParseU256Error),
    /// A nonce above 2^64 − 1.
    #[error("nonce does not fit in 64 bits")]
    NonceTooLarge,
    /// The account cannot be written in the chosen layout.
    #[error("{0}")]
    Layout(#[from] LayoutError),
    /// More fields on a CSV line than `key,value[,]`.
    #[error("unexpected extra field")]
    ExtraField,
}

/// Why an import failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file is not JSON.
    #[error("{source_name}: not JSON: {message}")]
    Json {
        /// File or other source name.
        source_name: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The document's structure is not a genesis or an alloc.
    #[error("{source_name}: {what}")]
    Shape {
        /// File or other source name.
        source_name: String,
        /// What is wrong.
        what: &'static str,
    },
    /// One account of the alloc is wrong.
    #[error("{source_name}: account {account}: {field}: {reason}")]
    Account {
        /// File or other source name.
        source_name: String,
        /// The account's key as written.
        account: String,
        /// The field (`address`, `balance`, `nonce`, `code`, `storage[<slot>]`, ...).
        field: String,
        /// What is wrong.
        reason: FieldError,
    },
    /// One line of a CSV file is wrong.
    #[error("{source_name}: line {line}: {field}: {reason}")]
    Csv {
        /// File or other source name.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// `key` or `value`.
        field: &'static str,
        /// What is wrong.
        reason: FieldError,
    },
}
