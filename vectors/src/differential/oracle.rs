//! The oracle of the differential run: a mutant both implementations accept is verified
//! again here and held to what its seed proves (`witness::fuzz::oracle`): its roots, its
//! proven nodes and current values, and its post-state roots must all be true. A binary
//! mutant is held to its tree or to the suite's valid cases ([`BinaryTruth`]).

use serde_json::Value;
use witness::fractional::{verify_fractional_bytes, Anchor};
use witness::fuzz::oracle::{Checked, Truth};
use witness::ExecutionWitness;

use crate::at::parse_hex;

use super::binary::BinaryTruth;
use super::mutants::Mutant;

/// What an accepted mutant is held to: its Verkle seed's truth or its binary seed's.
#[derive(Clone, Copy)]
pub(crate) enum Oracle<'a> {
    Verkle(&'a Truth),
    Binary(&'a BinaryTruth),
}

/// Why a mutant could not be judged: its input does not verify here (the answers said it
/// does, so this is itself a finding).
fn unverifiable(what: impl Into<String>) -> String {
    format!("accepted, yet does not verify again: {}", what.into())
}

fn field<'a>(input: &'a Value, name: &str) -> Result<&'a str, String> {
    input
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| unverifiable(format!("`{name}` missing")))
}

fn hex32(input: &Value, name: &str) -> Result<[u8; 32], String> {
    let b = parse_hex(field(input, name)?).map_err(|e| unverifiable(e.to_string()))?;
    b.as_slice()
        .try_into()
        .map_err(|_| unverifiable(format!("`{name}` is not 32 bytes")))
}

/// Checks every claim of the accepted mutant `m` against `truth`.
///
/// # Errors
/// The first false claim, said in words (or the mutant's failure to verify again).
pub(crate) fn check(m: &Mutant, truth: &Truth) -> Result<Checked, String> {
    let input = &m.input;
    match m.kind {
        "witness" => {
            let root = hex32(input, "pre_state_root")?;
            let w = match (input.get("ssz"), input.get("json")) {
                (Some(_), _) => {
                    let b =
                        parse_hex(field(input, "ssz")?).map_err(|e| unverifiable(e.to_string()))?;
                    ExecutionWitness::from_ssz(bytes::Bytes::from(b))
                        .map_err(|e| unverifiable(e.to_string()))?
                }
                (None, Some(j)) => {
                    ExecutionWitness::from_json_value(j).map_err(|e| unverifiable(e.to_string()))?
                }
                (None, None) => return Err(unverifiable("no witness")),
            };
            let v = witness::verify(&root, &w).map_err(|e| unverifiable(e.to_string()))?;
            truth
                .check_witness(&v, None)
                .map_err(|claim| format!("false claim: {claim}"))
        }
        _ => {
            let root = hex32(input, "root")?;
            let anchor = match field(input, "anchor")? {
                "state_root" => Anchor::StateRoot(root),
                "coordinator_root" => Anchor::CoordinatorRoot(root),
                other => return Err(unverifiable(format!("anchor {other}"))),
            };
            let proof =
                parse_hex(field(input, "proof")?).map_err(|e| unverifiable(e.to_string()))?;
            let v = verify_fractional_bytes(bytes::Bytes::from(proof), &anchor)
                .map_err(|e| unverifiable(e.to_string()))?;
            truth
                .check_fractional(&v, &anchor, None)
                .map_err(|claim| format!("false claim: {claim}"))
        }
    }
}
