//! Why bytes are not a fractional proof (`spec/FRACTIONAL.md` §4.1, F-DEC).

/// Why bytes are not a fractional proof. Offsets count from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalDecodeError {
    /// The bytes end before a field.
    #[error("{field} at offset {offset} needs {needed} bytes, {available} left")]
    Truncated {
        /// The field.
        field: &'static str,
        /// Where it starts.
        offset: usize,
        /// Bytes it needs (for a list, at least).
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// Bytes are left after the multiproof.
    #[error("{extra} bytes after the end of the proof")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The proof is longer than a fractional proof can be (2^32 bytes).
    #[error("{len} bytes: longer than a fractional proof can be")]
    TooLarge {
        /// Its length.
        len: usize,
    },
    /// The version byte is not [`VERSION`](super::header::VERSION).
    #[error("version {0}: this verifier reads version 2 only (version 1 is not read)")]
    BadVersion(u8),
    /// The shard depth is not 1 or 2.
    #[error("shard depth {0} (must be 1 or 2)")]
    BadDepth(u8),
    /// A flag bit other than bit 0 is set.
    #[error("flags byte {0:#04x}: only bit 0 (coordinator path) is defined")]
    BadFlags(u8),
    /// The proof lists no stem.
    #[error("the proof lists no stem")]
    NoKeys,
    /// A presence byte has bits other than 0 (current value), 1 (new value) and 2 (deleted)
    /// set, or sets bit 2 without bit 0 or with bit 1.
    #[error(
        "stem {stem_index}, suffix {suffix}: presence byte {byte:#04x} (bits 3..7 must be 0; \
         bit 2, deleted, needs bit 0 and excludes bit 1)"
    )]
    BadPresence {
        /// Index of the stem.
        stem_index: usize,
        /// The suffix.
        suffix: u8,
        /// The byte.
        byte: u8,
    },
    /// An internal witness is not a canonical scalar (≥ r).
    #[error("internal witness {index} is not a canonical scalar (≥ r)")]
    InternalWitnessScalar {
        /// Its index.
        index: usize,
    },
    /// An internal witness is 1, the value every leaf has at index 0: it proves nothing.
    #[error("internal witness {index} is 1, which does not tell an internal node from a leaf")]
    InternalWitnessOne {
        /// Its index.
        index: usize,
    },
}
