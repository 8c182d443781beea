//! This implementation's answer to a `witness`, `fractional_proof` or `binary_witness`
//! request, in the
//! `--impl` protocol's form (`vectors/README.md`, "Checking another implementation"): the
//! library calls the suite runner makes for a case (SSZ or JSON decoding, `witness::verify`,
//! `witness::fractional::verify_fractional_bytes`, the post-state roots, the `bintree`
//! witness verifiers), their errors named by the schema's rule ids.

use serde_json::{json, Value};
use witness::fractional::{verify_fractional_bytes, Anchor};
use witness::ExecutionWitness;

use crate::at::{hex0x, parse_hex};
use crate::schema::{
    binary_witness_value, fractional_rule, fractional_value, ssz_rule, verify_rule, witness_keys,
};

fn valid(value: Value) -> Value {
    json!({"verdict": "valid", "value": value})
}

fn invalid(rule: &str) -> Value {
    json!({"verdict": "invalid", "rule": rule})
}

/// An input this implementation cannot read (the protocol's `"error"` verdict).
fn error(detail: impl Into<String>) -> Value {
    json!({"verdict": "error", "detail": detail.into()})
}

fn hex_field(input: &Value, field: &str) -> Result<Vec<u8>, Value> {
    let s = input
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| error(format!("`{field}` missing or not a string")))?;
    parse_hex(s).map_err(|e| error(format!("`{field}`: {e}")))
}

fn hex32_field(input: &Value, field: &str) -> Result<[u8; 32], Value> {
    let b = hex_field(input, field)?;
    b.as_slice()
        .try_into()
        .map_err(|_| error(format!("`{field}`: {} bytes, expected 32", b.len())))
}

/// The answer to a request of `kind` with `input`; kinds other than `witness`,
/// `fractional_proof` and `binary_witness` are `unsupported`.
pub fn answer(kind: &str, input: &Value) -> Value {
    let got = match kind {
        "witness" => witness_answer(input),
        "fractional_proof" => fractional_answer(input),
        "binary_witness" => binary_answer(input),
        _ => return json!({"verdict": "unsupported"}),
    };
    got.unwrap_or_else(|e| e)
}

fn witness_answer(input: &Value) -> Result<Value, Value> {
    let root = hex32_field(input, "pre_state_root")?;
    let from_ssz = match input.get("ssz") {
        Some(_) => {
            let bytes = hex_field(input, "ssz")?;
            match ExecutionWitness::from_ssz(bytes::Bytes::from(bytes)) {
                Ok(w) => Some(w),
                Err(e) => return Ok(invalid(ssz_rule(&e))),
            }
        }
        None => None,
    };
    let from_json = match input.get("json") {
        Some(j) => {
            let w = ExecutionWitness::from_json_value(j)
                .map_err(|e| error(format!("witness JSON: {e}")))?;
            if w.to_json_value() != *j {
                return Err(error(
                    "the JSON is not what go-verkle's JSON writer produces",
                ));
            }
            Some(w)
        }
        None => None,
    };
    let w = match (from_ssz, from_json) {
        (Some(s), Some(j)) if s.as_ssz() != j.as_ssz() => {
            return Err(error("the JSON and SSZ forms are different witnesses"))
        }
        (Some(s), _) => s,
        (None, Some(j)) => j,
        (None, None) => return Err(error("a witness case needs `json` or `ssz`")),
    };
    let v = match witness::verify(&root, &w) {
        Ok(v) => v,
        Err(e) => return Ok(invalid(verify_rule(&e))),
    };
    let post = v
        .post_state_root()
        .map_err(|e| error(format!("post-state root: {e}")))?;
    let keys = witness_keys(&v);
    Ok(valid(json!({
        "post_state_root": hex0x(&post),
        "openings": v.opening_count(),
        "unbound_absences": v.unbound_absences(),
        "unbound_writes": v.unbound_writes(),
        "keys": keys,
    })))
}

fn fractional_answer(input: &Value) -> Result<Value, Value> {
    let root = hex32_field(input, "root")?;
    let anchor = match input.get("anchor").and_then(Value::as_str) {
        Some("state_root") => Anchor::StateRoot(root),
        Some("coordinator_root") => Anchor::CoordinatorRoot(root),
        other => return Err(error(format!("unknown anchor {other:?}"))),
    };
    let proof = hex_field(input, "proof")?;
    let v = match verify_fractional_bytes(bytes::Bytes::from(proof), &anchor) {
        Ok(v) => v,
        Err(e) => return Ok(invalid(fractional_rule(&e))),
    };
    let value = fractional_value(&v).map_err(|e| error(format!("post-state roots: {e}")))?;
    Ok(valid(value))
}

/// A binary witness of `tree` hashed with `hash` (`eip7864` with `sha256` or `blake3`,
/// `eip8297` with `blake3`), as the suite's checker reads a `binary_witness` case.
fn binary_answer(input: &Value) -> Result<Value, Value> {
    let text = |field: &str| {
        input
            .get(field)
            .and_then(Value::as_str)
            .ok_or_else(|| error(format!("`{field}` missing or not a string")))
    };
    let (tree, hash) = (text("tree")?, text("hash")?);
    let root = hex32_field(input, "pre_state_root")?;
    let bytes = hex_field(input, "witness")?;
    let got = match (tree, hash) {
        ("eip7864", "sha256") => binary_witness_value::<bintree::Sha256>(tree, &bytes, &root),
        ("eip7864" | "eip8297", "blake3") => {
            binary_witness_value::<bintree::Blake3>(tree, &bytes, &root)
        }
        _ => {
            return Err(error(format!(
                "no binary witness for tree `{tree}` hashed with `{hash}`"
            )))
        }
    };
    Ok(got.map_or_else(invalid, valid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_inputs_are_errors_not_verdicts() {
        let a = answer("witness", &json!({"pre_state_root": "0x00", "ssz": "0x"}));
        assert_eq!(a["verdict"], "error");
        let a = answer(
            "fractional_proof",
            &json!({"anchor": "elsewhere", "root": format!("0x{}", "00".repeat(32)),
                    "proof": "0x"}),
        );
        assert_eq!(a["verdict"], "error");
        assert_eq!(answer("ipa", &json!({}))["verdict"], "unsupported");
        let zero = format!("0x{}", "00".repeat(32));
        let a = answer(
            "binary_witness",
            &json!({"tree": "eip8297", "hash": "sha256", "pre_state_root": zero, "witness": "0x"}),
        );
        assert_eq!(a["verdict"], "error");
        let a = answer(
            "binary_witness",
            &json!({"tree": "eip7864", "hash": "sha256", "pre_state_root": zero, "witness": "0x03"}),
        );
        assert_eq!(a["rule"], "bw.length.truncated");
    }
}
