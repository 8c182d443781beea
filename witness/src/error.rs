//! Errors of the witness codecs and of the canonical-form checks.
//!
//! Every variant says what was wrong and where: a byte offset into the SSZ buffer, a
//! stem or suffix-diff index, or a JSON path.

use crate::prelude::*;

use core::fmt;

/// Where in an SSZ witness a field lives: its name and, inside `state_diff`, the stem and
/// suffix-diff indices. Displays as `state_diff[3].suffix_diffs[2].current_value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SszField {
    /// Field name in the consensus-spec containers, e.g. `"current_value"`.
    pub name: &'static str,
    /// Index into `state_diff`, when the field is inside a `StemStateDiff`.
    pub stem_index: Option<usize>,
    /// Index into that stem's `suffix_diffs`, when the field is inside a `SuffixStateDiff`.
    pub diff_index: Option<usize>,
}

impl SszField {
    /// A top-level field (outside `state_diff` elements).
    pub(crate) const fn top(name: &'static str) -> Self {
        Self {
            name,
            stem_index: None,
            diff_index: None,
        }
    }

    /// A field of `state_diff[stem_index]`.
    pub(crate) const fn stem(name: &'static str, stem_index: usize) -> Self {
        Self {
            name,
            stem_index: Some(stem_index),
            diff_index: None,
        }
    }

    /// A field of `state_diff[stem_index].suffix_diffs[diff_index]`.
    pub(crate) const fn diff(name: &'static str, stem_index: usize, diff_index: usize) -> Self {
        Self {
            name,
            stem_index: Some(stem_index),
            diff_index: Some(diff_index),
        }
    }
}

impl fmt::Display for SszField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = self.stem_index {
            write!(f, "state_diff[{s}].")?;
        }
        if let Some(d) = self.diff_index {
            write!(f, "suffix_diffs[{d}].")?;
        }
        f.write_str(self.name)
    }
}

/// The SSZ bytes of a witness are not a canonical encoding of an `ExecutionWitness`.
///
/// Byte positions (`at`) are absolute offsets into the buffer handed to the decoder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SszError {
    /// A fixed-size part needs more bytes than the enclosing range holds.
    #[error("{field}: need {needed} bytes at byte {at}, only {available} available")]
    Truncated {
        /// The field being read.
        field: SszField,
        /// Absolute byte position where the read starts.
        at: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes left in the enclosing range.
        available: usize,
    },
    /// The first offset of a container does not point just past its fixed part.
    #[error("{field}: offset at byte {at} is {got}, canonical SSZ requires {expected}")]
    OffsetMismatch {
        /// The variable-size field the offset points to.
        field: SszField,
        /// Absolute byte position of the offset.
        at: usize,
        /// The offset read.
        got: u32,
        /// The only canonical value.
        expected: usize,
    },
    /// An offset goes backwards or past the end of its enclosing range.
    #[error("{field}: offset at byte {at} is {got}, outside the allowed {min}..={max}")]
    OffsetOutOfRange {
        /// The variable-size field the offset points to.
        field: SszField,
        /// Absolute byte position of the offset.
        at: usize,
        /// The offset read (relative to the start of its container or list).
        got: u32,
        /// Smallest allowed value (the previous offset).
        min: usize,
        /// Largest allowed value (the length of the enclosing range).
        max: usize,
    },
    /// The offset table of a list of variable-size elements is malformed: its first offset is
    /// zero, not a multiple of 4, or past the end of the list.
    #[error("{field}: list offset table at byte {at} starts with {got}, which is not 4·n for 1 ≤ n and 4·n ≤ {len}")]
    BadListOffset {
        /// The list.
        field: SszField,
        /// Absolute byte position of the first offset.
        at: usize,
        /// The offset read.
        got: u32,
        /// Length of the list's bytes.
        len: usize,
    },
    /// A list of fixed-size elements is not a whole number of elements long.
    #[error("{field}: {len} bytes at byte {at} are not a multiple of the {elem}-byte element")]
    NotMultiple {
        /// The list.
        field: SszField,
        /// Absolute byte position of the list.
        at: usize,
        /// Length of the list's bytes.
        len: usize,
        /// Element size.
        elem: usize,
    },
    /// A list holds more elements than the spec limit.
    #[error("{field}: {count} elements at byte {at} exceed the limit {max}")]
    TooMany {
        /// The list.
        field: SszField,
        /// Absolute byte position of the list.
        at: usize,
        /// Elements found.
        count: usize,
        /// The spec limit.
        max: usize,
    },
    /// A `Union[None, Bytes32]` selector is neither 0 nor 1.
    #[error("{field}: union selector {selector} at byte {at}, expected 0 (None) or 1 (Some)")]
    BadSelector {
        /// The optional field.
        field: SszField,
        /// Absolute byte position of the selector.
        at: usize,
        /// The selector read.
        selector: u8,
    },
    /// A `Union[None, Bytes32]` is not exactly 1 (None) or 33 (Some) bytes long.
    #[error("{field}: union at byte {at} is {len} bytes, its selector requires {expected}")]
    UnionLength {
        /// The optional field.
        field: SszField,
        /// Absolute byte position of the union.
        at: usize,
        /// Its length as given by the offsets.
        len: usize,
        /// The length its selector requires (1 or 33; 1 when empty).
        expected: usize,
    },
    /// The buffer is too large for SSZ's 32-bit offsets.
    #[error("witness is {len} bytes, beyond the 32-bit SSZ offset range")]
    TooLarge {
        /// Buffer length.
        len: usize,
    },
}

/// A JSON document does not hold a readable execution witness.
///
/// `path` fields are JSON Pointers (RFC 6901) into the document, e.g.
/// `/executionWitness/stateDiff/3/suffixDiffs/0/suffix`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is not JSON.
    #[error("JSON syntax: {0}")]
    Syntax(#[from] serde_json::Error),
    /// No object under `executionWitness`, `execution_witness` or `witness` (nor the root)
    /// has a state diff and a Verkle proof.
    #[error("no execution witness found (looked for executionWitness, execution_witness and witness objects)")]
    NotFound,
    /// More than one witness was found where exactly one was asked for.
    #[error("{count} execution witnesses found, first at {first} and then at {second}")]
    Ambiguous {
        /// Number of witnesses found.
        count: usize,
        /// Path of the first.
        first: String,
        /// Path of the second.
        second: String,
    },
    /// A required field is missing.
    #[error("{path}: missing field `{field}`")]
    Missing {
        /// Path of the object lacking the field.
        path: String,
        /// The field (its go-verkle camelCase name).
        field: &'static str,
    },
    /// An object holds a field under both its camelCase and its snake_case name.
    #[error("{path}: both `{camel}` and `{snake}` are present; only one may be")]
    DuplicateField {
        /// Path of the object.
        path: String,
        /// The go-verkle camelCase name.
        camel: &'static str,
        /// Its snake_case twin.
        snake: &'static str,
    },
    /// A value has the wrong JSON type.
    #[error("{path}: expected {expected}")]
    Type {
        /// Path of the value.
        path: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A string is not hexadecimal.
    #[error("{path}: invalid hex string")]
    Hex {
        /// Path of the string.
        path: String,
    },
    /// A hex string decodes to the wrong number of bytes.
    #[error("{path}: {got} bytes, expected {expected}")]
    Length {
        /// Path of the string.
        path: String,
        /// Bytes decoded.
        got: usize,
        /// Bytes required.
        expected: usize,
    },
    /// An array has the wrong number of entries (`cl` and `cr` hold exactly 8).
    #[error("{path}: {got} entries, expected {expected}")]
    WrongCount {
        /// Path of the array.
        path: String,
        /// Entries found.
        got: usize,
        /// Entries required.
        expected: usize,
    },
    /// A `suffix` is not an integer in 0..=255 written as a JSON integer, a decimal string
    /// (ASCII digits, no sign, space or leading zero) or `0x` and one or two hex digits.
    #[error("{path}: suffix {got:?} is not an integer in 0..=255 (a JSON integer, a decimal string without sign or leading zero, or 0x and 1-2 hex digits)")]
    Suffix {
        /// Path of the suffix.
        path: String,
        /// The value as written.
        got: String,
    },
    /// An array or byte string is longer than the spec limit.
    #[error("{path}: {count} entries exceed the limit {max}")]
    TooMany {
        /// Path of the array.
        path: String,
        /// Entries found.
        count: usize,
        /// The spec limit.
        max: usize,
    },
    /// The document nests deeper than the witness search goes.
    #[error("{path}: JSON nests deeper than {max} levels")]
    TooDeep {
        /// Path where the limit was hit.
        path: String,
        /// The depth limit.
        max: usize,
    },
    /// The witness read from JSON could not be laid out as SSZ.
    #[error("laying out the witness as SSZ: {0}")]
    Ssz(#[from] SszError),
}

/// A decoded witness breaks a canonical-form rule (see `spec/WIRE.md`, "Canonical form").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CanonicalError {
    /// `state_diff[index].stem` is not greater than the stem before it.
    #[error("state_diff[{index}].stem is not strictly greater than the previous stem")]
    StemsNotAscending {
        /// Index into `state_diff`.
        index: usize,
    },
    /// A suffix is not greater than the one before it within the same stem.
    #[error("state_diff[{stem_index}].suffix_diffs[{diff_index}]: suffix {suffix} is not strictly greater than the previous suffix")]
    SuffixesNotAscending {
        /// Index into `state_diff`.
        stem_index: usize,
        /// Index into its `suffix_diffs`.
        diff_index: usize,
        /// The offending suffix.
        suffix: u8,
    },
    /// `depth_extension_present` does not hold exactly one byte per stem.
    #[error("depth_extension_present has {statuses} bytes for {stems} stems")]
    ExtensionStatusCount {
        /// Stems in `state_diff`.
        stems: usize,
        /// Bytes in `depth_extension_present`.
        statuses: usize,
    },
    /// An extension status (low 3 bits) is not 0, 1 or 2.
    #[error("depth_extension_present[{stem_index}] = {byte:#04x}: extension status {} is not 0, 1 or 2", byte & 7)]
    BadExtensionStatus {
        /// Index of the stem.
        stem_index: usize,
        /// The byte.
        byte: u8,
    },
    /// A depth (high 5 bits) is 0: every stem's leaf or empty slot is below the root.
    #[error("depth_extension_present[{stem_index}] = {byte:#04x}: depth 0")]
    BadDepth {
        /// Index of the stem.
        stem_index: usize,
        /// The byte.
        byte: u8,
    },
    /// `other_stems[index]` is not greater than the stem before it.
    #[error("other_stems[{index}] is not strictly greater than the previous other stem")]
    OtherStemsNotAscending {
        /// Index into `other_stems`.
        index: usize,
    },
    /// `other_stems[index]` lies on the path of no absent-other stem.
    #[error("other_stems[{index}] lies on the path of no stem with extension status absent-other")]
    OtherStemUnused {
        /// Index into `other_stems`.
        index: usize,
    },
    /// A stem proven absent carries a current value.
    #[error("state_diff[{stem_index}] is absent (extension status {status}) but suffix {suffix} has a current value")]
    AbsentStemHasCurrentValue {
        /// Index into `state_diff`.
        stem_index: usize,
        /// The suffix carrying a value.
        suffix: u8,
        /// The stem's extension status (0 or 1).
        status: u8,
    },
}
