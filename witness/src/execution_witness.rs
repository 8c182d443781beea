//! [`ExecutionWitness`]: one buffer of canonical SSZ bytes and the views into it.

use crate::prelude::*;

use core::fmt;

use bytes::Bytes;

use crate::error::{JsonError, SszError};
use crate::json;
use crate::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
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
    /// [`check_canonical`](crate::check_canonical).
    pub fn from_ssz(buf: Bytes) -> Result<Self, SszError> {
        let layout = ssz::decode_layout(&buf)?;
        Ok(Self { buf, layout })
    }

    /// Decodes SSZ bytes from a slice, copying them once into a new buffer.
    pub fn from_ssz_slice(bytes: &[u8]) -> Result<Self, SszError> {
        Self::from_ssz(Bytes::copy_from_slice(bytes))
    }

    /// Reads the one execution witness in a JSON document: a bare witness, or one found under
    /// an `executionWitness`, `execution_witness` or `witness` key anywhere in a block, an
    /// engine payload, a header or a beacon-API block dump (`spec/WIRE.md`, "JSON").
    ///
    /// Errors with [`JsonError::Ambiguous`] when the document holds several; use
    /// [`find_json_witnesses`](crate::find_json_witnesses) for those.
    pub fn from_json_str(text: &str) -> Result<Self, JsonError> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        Self::from_json_value(&value)
    }

    /// Like [`from_json_str`](Self::from_json_str), on a parsed document.
    pub fn from_json_value(value: &serde_json::Value) -> Result<Self, JsonError> {
        let (path, w) = json::find_one_witness(value)?;
        json::read_witness(w, &path)
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

    /// Copies the witness into an owned, editable form.
    pub fn to_owned_witness(&self) -> OwnedExecutionWitness {
        let vp = self.verkle_proof();
        let ipa = vp.ipa_proof();
        OwnedExecutionWitness {
            state_diff: self
                .state_diff()
                .iter()
                .map(|s| OwnedStemStateDiff {
                    stem: *s.stem,
                    suffix_diffs: s
                        .suffix_diffs
                        .iter()
                        .map(|d| OwnedSuffixStateDiff {
                            suffix: d.suffix,
                            current_value: d.current_value.copied(),
                            new_value: d.new_value.copied(),
                        })
                        .collect(),
                })
                .collect(),
            verkle_proof: OwnedVerkleProof {
                other_stems: vp.other_stems().iter().copied().collect(),
                depth_extension_present: vp.depth_extension_present().to_vec(),
                commitments_by_path: vp.commitments_by_path().iter().copied().collect(),
                d: *vp.d(),
                ipa_proof: OwnedIpaProof {
                    cl: ipa.cl.map(|p| *p),
                    cr: ipa.cr.map(|p| *p),
                    final_evaluation: *ipa.final_evaluation,
                },
            },
        }
    }

    /// The witness as go-verkle writes it in JSON (`spec/WIRE.md`, "JSON").
    pub fn to_json_value(&self) -> serde_json::Value {
        json::write_witness(self)
    }

    /// [`to_json_value`](Self::to_json_value) as compact text.
    pub fn to_json_string(&self) -> String {
        self.to_json_value().to_string()
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
