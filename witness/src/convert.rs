//! Conversions between the witness's forms: owned (what a prover builds), SSZ bytes with
//! zero-copy views ([`ExecutionWitness`]) and go-verkle JSON. The forms themselves depend on
//! nothing but the preset; every conversion lives here.

use crate::prelude::*;

use bytes::Bytes;

use crate::error::{JsonError, SszError};
use crate::execution_witness::ExecutionWitness;
use crate::json;
use crate::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
use crate::ssz;

impl OwnedExecutionWitness {
    /// The SSZ encoding (`spec/WIRE.md`), after checking every list against its spec limit.
    pub fn to_ssz(&self) -> Result<Vec<u8>, SszError> {
        ssz::encode(self)
    }

    /// Lays the witness out as SSZ in one buffer and returns zero-copy views over it.
    pub fn to_witness(&self) -> Result<ExecutionWitness, SszError> {
        ExecutionWitness::from_ssz(Bytes::from(self.to_ssz()?))
    }

    /// Reads a bare witness object (go-verkle JSON or its snake_case variant), with no search.
    pub fn from_json_witness(v: &serde_json::Value) -> Result<Self, JsonError> {
        Ok(json::decode_bare(v)?.to_owned_witness())
    }
}

impl ExecutionWitness {
    /// Reads the one execution witness in a JSON document: a bare witness, or one found under
    /// an `executionWitness`, `execution_witness` or `witness` key anywhere in a block, an
    /// engine payload, a header or a beacon-API block dump (`spec/WIRE.md`, "JSON").
    ///
    /// Errors with [`JsonError::Ambiguous`] when the document holds several; use
    /// [`find_json_witnesses`](crate::json::find_json_witnesses) for those.
    pub fn from_json_str(text: &str) -> Result<Self, JsonError> {
        json::decode_str(text)
    }

    /// Like [`from_json_str`](Self::from_json_str), on a parsed document.
    pub fn from_json_value(value: &serde_json::Value) -> Result<Self, JsonError> {
        json::decode_value(value)
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
