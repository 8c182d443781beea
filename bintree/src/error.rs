//! Errors of the binary trees and their key derivations.

/// What went wrong with a key, a value or an account handed to this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An EIP-8297 key is empty or longer than [`crate::eip8297::MAX_KEY_LENGTH`] bytes.
    #[error("key of {len} bytes; EIP-8297 keys are 1 to {max} bytes")]
    KeyLength {
        /// The key's length in bytes.
        len: usize,
        /// The largest length allowed.
        max: usize,
    },
    /// A key of fixed width (EIP-7864 tree key, stem, address) has the wrong length.
    #[error("{what} of {got} bytes; expected {expected}")]
    WrongLength {
        /// What the bytes were meant to be.
        what: &'static str,
        /// The length received.
        got: usize,
        /// The length required.
        expected: usize,
    },
    /// A value is not 32 bytes.
    #[error("value of {len} bytes; values are 32 bytes")]
    ValueLength {
        /// The value's length in bytes.
        len: usize,
    },
    /// Two EIP-8297 keys where one is a proper prefix of the other.
    #[error(
        "keys are not prefix-free: a key of {shorter} bytes is a prefix of a key of {longer} bytes"
    )]
    NotPrefixFree {
        /// The shorter key's length in bytes.
        shorter: usize,
        /// The longer key's length in bytes.
        longer: usize,
    },
    /// A write reached a subtree of a stored tree that is not loaded.
    #[error("a write reached a subtree that is not loaded")]
    Unloaded,
    /// A field does not fit the width the basic-data leaf gives it.
    #[error("{field} = {value} does not fit in {bytes} bytes of the basic-data leaf")]
    FieldOverflow {
        /// The field's name.
        field: &'static str,
        /// The value that does not fit.
        value: u64,
        /// The field's width in bytes.
        bytes: usize,
    },
}
