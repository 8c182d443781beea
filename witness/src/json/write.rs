//! A witness written as go-verkle writes it.

use crate::prelude::*;

use serde_json::Value;

use crate::execution_witness::ExecutionWitness;

fn hex0x(bytes: &[u8]) -> Value {
    Value::String(format!("0x{}", hex::encode(bytes)))
}

fn obj<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// Writes a witness as go-verkle does: camelCase names, `0x` hex, `suffix` as a number,
/// `null` for absent values and `finalEvaluation` big-endian.
pub(crate) fn write_witness(w: &ExecutionWitness) -> Value {
    let state_diff = w
        .state_diff()
        .iter()
        .map(|s| {
            let diffs = s
                .suffix_diffs
                .iter()
                .map(|d| {
                    obj([
                        ("suffix", Value::from(d.suffix)),
                        (
                            "currentValue",
                            d.current_value.map_or(Value::Null, |v| hex0x(v)),
                        ),
                        ("newValue", d.new_value.map_or(Value::Null, |v| hex0x(v))),
                    ])
                })
                .collect();
            obj([
                ("stem", hex0x(s.stem)),
                ("suffixDiffs", Value::Array(diffs)),
            ])
        })
        .collect();
    let vp = w.verkle_proof();
    let ipa = vp.ipa_proof();
    let mut final_be = *ipa.final_evaluation;
    final_be.reverse();
    let proof = obj([
        (
            "otherStems",
            Value::Array(vp.other_stems().iter().map(|s| hex0x(s)).collect()),
        ),
        ("depthExtensionPresent", hex0x(vp.depth_extension_present())),
        (
            "commitmentsByPath",
            Value::Array(vp.commitments_by_path().iter().map(|c| hex0x(c)).collect()),
        ),
        ("d", hex0x(vp.d())),
        (
            "ipaProof",
            obj([
                (
                    "cl",
                    Value::Array(ipa.cl.iter().map(|p| hex0x(*p)).collect()),
                ),
                (
                    "cr",
                    Value::Array(ipa.cr.iter().map(|p| hex0x(*p)).collect()),
                ),
                ("finalEvaluation", hex0x(&final_be)),
            ]),
        ),
    ]);
    obj([
        ("stateDiff", Value::Array(state_diff)),
        ("verkleProof", proof),
    ])
}
