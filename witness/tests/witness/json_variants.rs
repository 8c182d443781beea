//! The JSON variants producers write, and errors that name the JSON path.

use serde_json::{json, Value};
use witness::{owned::OwnedExecutionWitness, ExecutionWitness, JsonError};

use crate::common::read_json;

fn block_1() -> Value {
    read_json("witness/valid_block_1.json")["executionWitness"].clone()
}

fn reference() -> ExecutionWitness {
    ExecutionWitness::from_json_value(&block_1()).unwrap()
}

#[test]
fn snake_case_hex_without_prefix_uppercase_and_string_suffix_read_the_same() {
    let w = block_1();
    let strip =
        |v: &Value| Value::String(v.as_str().unwrap().trim_start_matches("0x").to_uppercase());
    let proof = &w["verkleProof"];
    let ipa = &proof["ipaProof"];
    let snake = json!({
        "beacon": {"execution_payload": {"execution_witness": {
            "state_diff": [{
                "stem": strip(&w["stateDiff"][0]["stem"]),
                "suffix_diffs": [{"suffix": "64", "current_value": null,
                                  "new_value": w["stateDiff"][0]["suffixDiffs"][0]["newValue"]}]
            }],
            "verkle_proof": {
                "other_stems": proof["otherStems"],
                "depth_extension_present": "9",
                "commitments_by_path": proof["commitmentsByPath"],
                "d": strip(&proof["d"]),
                "ipa_proof": {"cl": ipa["cl"], "cr": ipa["cr"],
                              "final_evaluation": ipa["finalEvaluation"]}
            }
        }}}
    });
    let read = ExecutionWitness::from_json_value(&snake).unwrap();
    assert_eq!(read, reference());
}

#[test]
fn missing_new_value_is_null_and_hex_suffix_is_read() {
    let mut w = block_1();
    let diff = w["stateDiff"][0]["suffixDiffs"][0].as_object_mut().unwrap();
    diff.remove("newValue");
    diff.insert("suffix".into(), json!("0x40"));
    let read = ExecutionWitness::from_json_value(&w).unwrap();
    let d = read
        .state_diff()
        .get(0)
        .unwrap()
        .suffix_diffs
        .get(0)
        .unwrap();
    assert_eq!(d.suffix, 64);
    assert_eq!(d.new_value, None);
}

#[test]
fn bare_witness_and_owned_reader_agree() {
    let w = block_1();
    let owned = OwnedExecutionWitness::from_json_witness(&w).unwrap();
    assert_eq!(owned, reference().to_owned_witness());
    assert_eq!(owned.to_witness().unwrap(), reference());
}

fn error_of(mutate: impl FnOnce(&mut Value)) -> JsonError {
    let mut doc = json!({"executionWitness": block_1()});
    mutate(&mut doc);
    ExecutionWitness::from_json_value(&doc).unwrap_err()
}

#[test]
fn suffix_out_of_range_names_its_path() {
    let e = error_of(|d| {
        d["executionWitness"]["stateDiff"][0]["suffixDiffs"][0]["suffix"] = json!(256)
    });
    match e {
        JsonError::Suffix { path, got } => {
            assert_eq!(path, "/executionWitness/stateDiff/0/suffixDiffs/0/suffix");
            assert_eq!(got, "256");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_hex_names_its_path() {
    let e =
        error_of(|d| d["executionWitness"]["verkleProof"]["commitmentsByPath"][0] = json!("0xzz"));
    match e {
        JsonError::Length { path, .. } | JsonError::Hex { path } => {
            assert_eq!(path, "/executionWitness/verkleProof/commitmentsByPath/0")
        }
        other => panic!("{other:?}"),
    }
    let e = error_of(|d| {
        d["executionWitness"]["verkleProof"]["d"] = json!(format!("0x{}", "g".repeat(64)))
    });
    assert!(
        matches!(e, JsonError::Hex { ref path } if path == "/executionWitness/verkleProof/d"),
        "{e:?}"
    );
}

#[test]
fn short_stem_is_a_length_error() {
    let e = error_of(|d| d["executionWitness"]["stateDiff"][0]["stem"] = json!("0x1234"));
    match e {
        JsonError::Length {
            path,
            got,
            expected,
        } => {
            assert_eq!(path, "/executionWitness/stateDiff/0/stem");
            assert_eq!((got, expected), (2, 31));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_field_and_wrong_count_are_reported() {
    let e = error_of(|d| {
        d["executionWitness"]["verkleProof"]
            .as_object_mut()
            .unwrap()
            .remove("d");
    });
    assert!(
        matches!(e, JsonError::Missing { ref path, field: "d" } if path == "/executionWitness/verkleProof"),
        "{e:?}"
    );
    let e = error_of(|d| {
        d["executionWitness"]["verkleProof"]["ipaProof"]["cr"]
            .as_array_mut()
            .unwrap()
            .pop();
    });
    assert!(
        matches!(
            e,
            JsonError::WrongCount {
                got: 7,
                expected: 8,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn documents_without_a_witness_are_not_found() {
    let mpt = json!({"executionWitness": {"state": [], "codes": [], "headers": []}});
    assert!(matches!(
        ExecutionWitness::from_json_value(&mpt),
        Err(JsonError::NotFound)
    ));
    assert!(matches!(
        ExecutionWitness::from_json_str("[1, 2"),
        Err(JsonError::Syntax(_))
    ));
}

#[test]
fn too_many_stems_are_rejected_before_reading_them() {
    let mut w = block_1();
    let stem = w["stateDiff"][0].clone();
    w["stateDiff"] = Value::Array(vec![stem; witness::preset::MAX_STEMS + 1]);
    match ExecutionWitness::from_json_value(&w) {
        Err(JsonError::TooMany { path, count, max }) => {
            assert_eq!(path, "/stateDiff");
            assert_eq!((count, max), (65537, 65536));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn deep_nesting_is_bounded() {
    let mut doc = json!({"x": 1});
    for _ in 0..100 {
        doc = json!({ "a": doc });
    }
    assert!(matches!(
        ExecutionWitness::from_json_value(&doc),
        Err(JsonError::TooDeep { .. })
    ));
}
