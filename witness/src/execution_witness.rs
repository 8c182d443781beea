//! [`ExecutionWitness`]: one buffer of canonical SSZ bytes and the views into it.

use core::fmt;

use bytes::Bytes;

use crate::error::SszError;
use crate::ssz::{self, Layout};
use crate::view::{StateDiff, VerkleProof};

/// A decoded execution witness (consensus-spec `ExecutionWitness`): one buffer holding its
/// canonical SSZ encoding, validated once, and two small index tables into it.
///
/// Whatever the witness's size, decoding allocates at most twice (the stem table and the
/// suffix-diff table); the values, stems, points and scalars returned by the views are
/// borrowed from the buffer.
#[derive(Clone)]
pub struct ExecutionWitness {
    buf: Bytes,
    layout: Layout,
}

impl ExecutionWitness {
    /// Decodes canonical SSZ bytes (`spec/WIRE.md`, "SSZ") without copying them.
    ///
    /// Every offset and length is checked against the bytes that remain and the spec limits
    /// before anything is allocated; non-canonical offsets and trailing bytes are errors.
    /// Domain rules (sorted stems, extension statuses, …) are checked separately by
    /// [`check_canonical`](crate::canonical::check_canonical).
    pub fn from_ssz(buf: Bytes) -> Result<Self, SszError> {
        let layout = ssz::decode_layout(&buf)?;
        Ok(Self { buf, layout })
    }

    /// Decodes SSZ bytes from a slice, copying them once into a new buffer.
    pub fn from_ssz_slice(bytes: &[u8]) -> Result<Self, SszError> {
        Self::from_ssz(Bytes::copy_from_slice(bytes))
    }

    /// The canonical SSZ encoding: the buffer itself (decoding accepts canonical bytes only).
    pub fn as_ssz(&self) -> &Bytes {
        &self.buf
    }

    /// `state_diff`: the stems touched by the block and their suffix diffs.
    pub fn state_diff(&self) -> StateDiff<'_> {
        StateDiff::new(&self.buf, &self.layout)
    }

    /// `verkle_proof`: the proof of the current values against the pre-state root.
    pub fn verkle_proof(&self) -> VerkleProof<'_> {
        VerkleProof::new(&self.buf, &self.layout)
    }
}

impl fmt::Debug for ExecutionWitness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecutionWitness")
            .field("state_diff", &self.state_diff())
            .field("verkle_proof", &self.verkle_proof())
            .finish()
    }
}

impl PartialEq for ExecutionWitness {
    /// Equal when the canonical encodings are equal.
    fn eq(&self, other: &Self) -> bool {
        self.buf == other.buf
    }
}

impl Eq for ExecutionWitness {}
