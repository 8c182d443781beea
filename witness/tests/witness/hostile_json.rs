//! Hostile JSON: documents built to blow up the witness search, suffixes outside the
//! grammar, and objects naming a field twice (camelCase and snake_case).

use serde_json::{json, Map, Value};
use witness::{
    json::{find_json_witnesses, MAX_SEARCH_DEPTH},
    owned::OwnedExecutionWitness,
    ExecutionWitness, JsonError,
};

use crate::alloc::allocations;
use crate::common::read_json;

fn block_1() -> Value {
    read_json("witness/valid_block_1.json")["executionWitness"].clone()
}

/// `{"<key>": [<item> × n]}`.
fn wide(key: &str, item: &Value, n: usize) -> Value {
    let mut doc = Map::new();
    doc.insert(key.to_owned(), Value::Array(vec![item.clone(); n]));
    Value::Object(doc)
}

/// Escapes a key as one JSON Pointer step.
fn step(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// Allocations made by reading `doc` (already parsed), which must fail with `NotFound`.
fn not_found_allocations(doc: &Value) -> usize {
    let (r, n) = allocations(|| ExecutionWitness::from_json_value(doc).map(|_| ()));
    assert!(matches!(r, Err(JsonError::NotFound)), "{r:?}");
    n
}

#[test]
fn long_key_over_many_siblings_is_searched_in_bounded_memory() {
    // ~400 KB of text; a search copying the path per sibling would hold 100,000 copies of
    // the 100,000-byte key (10 GB).
    let key = "a".repeat(100_000);
    let doc = wide(&key, &json!([]), 100_000);
    let text = serde_json::to_string(&doc).unwrap();
    assert!(
        text.len() > 300_000 && text.len() < 500_000,
        "{}",
        text.len()
    );
    assert!(matches!(
        ExecutionWitness::from_json_str(&text),
        Err(JsonError::NotFound)
    ));
    assert!(find_json_witnesses(&doc).unwrap().is_empty());

    // The search allocates per level of nesting, not per sibling: as often for 100,000
    // siblings as for 10, and a handful of times in all.
    let bomb = not_found_allocations(&doc);
    assert_eq!(bomb, not_found_allocations(&wide(&key, &json!([]), 10)));
    assert!(bomb <= 4, "{bomb} allocations");

    let objects: Map<String, Value> = (0..100_000).map(|i| (format!("k{i}"), json!({}))).collect();
    let mut doc = Map::new();
    doc.insert(key, Value::Object(objects));
    let doc = Value::Object(doc);
    assert_eq!(not_found_allocations(&doc), bomb);
}

#[test]
fn many_witnesses_under_a_long_key_render_only_the_two_named() {
    let key = "b".repeat(100_000);
    let stub = json!({"witness": {"stateDiff": [], "verkleProof": {}}});
    let ambiguous = |n: usize| {
        let doc = wide(&key, &stub, n);
        let (r, allocs) = allocations(|| ExecutionWitness::from_json_value(&doc).map(|_| ()));
        match r {
            Err(JsonError::Ambiguous {
                count,
                first,
                second,
            }) => {
                assert_eq!(count, n);
                assert_eq!(first, format!("/{key}/0/witness"));
                assert_eq!(second, format!("/{key}/1/witness"));
            }
            other => panic!("expected Ambiguous, got {other:?}"),
        }
        allocs
    };
    // Two pointers of 100 KB each are rendered, whether 2 or 5,000 witnesses are found.
    assert_eq!(ambiguous(5_000), ambiguous(2));
}

#[test]
fn too_deep_names_the_first_container_past_the_limit() {
    let mut doc = json!({"x": 1});
    for _ in 0..100 {
        doc = json!({ "a/~": doc });
    }
    match ExecutionWitness::from_json_value(&doc) {
        Err(JsonError::TooDeep { path, max }) => {
            assert_eq!(max, MAX_SEARCH_DEPTH);
            assert_eq!(path, "/a~1~0".repeat(MAX_SEARCH_DEPTH + 1));
        }
        other => panic!("expected TooDeep, got {other:?}"),
    }

    let mut doc = json!([]);
    for _ in 0..MAX_SEARCH_DEPTH + 1 {
        doc = json!([1, doc]);
    }
    match find_json_witnesses(&doc) {
        Err(JsonError::TooDeep { path, .. }) => {
            assert_eq!(path, "/1".repeat(MAX_SEARCH_DEPTH + 1));
        }
        other => panic!("expected TooDeep, got {other:?}"),
    }
    // One level less is searched to the bottom.
    let mut doc = json!([]);
    for _ in 0..MAX_SEARCH_DEPTH {
        doc = json!([1, doc]);
    }
    assert!(find_json_witnesses(&doc).unwrap().is_empty());
}

#[test]
fn deep_witnesses_are_found_with_their_paths_in_document_order() {
    let w = block_1();
    // The witness key is a child of the deepest container the search enters.
    let mut deep = json!({ "witness": w });
    let mut pointer = "/witness".to_owned();
    for i in 0..MAX_SEARCH_DEPTH {
        let key = format!("k{}/{i}", i % 3);
        pointer = format!("{}{pointer}", step(&key));
        deep = json!({ key: deep });
    }
    let found = find_json_witnesses(&deep).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, pointer);
    assert_eq!(deep.pointer(&pointer), Some(found[0].1));
    assert_eq!(
        ExecutionWitness::from_json_value(&deep).unwrap(),
        ExecutionWitness::from_json_value(&w).unwrap()
    );
    // One level more and the object holding the witness key is past the limit.
    let deeper = json!({ "k": deep });
    match find_json_witnesses(&deeper) {
        Err(JsonError::TooDeep { path, .. }) => {
            let holder = pointer.strip_suffix("/witness").unwrap();
            assert_eq!(path, format!("/k{holder}"));
        }
        other => panic!("expected TooDeep, got {other:?}"),
    }

    // Keys iterate in the map's (sorted) order; a found witness is not entered.
    let mut nested = w.clone();
    nested["executionWitness"] = w.clone();
    let doc = json!({
        "a": [{"x": 1}, {"execution_witness": w}],
        "b": {"c": {"executionWitness": nested}},
        "d": [[], [[{"witness": w}]]],
    });
    let found: Vec<String> = find_json_witnesses(&doc)
        .unwrap()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        found,
        [
            "/a/1/execution_witness",
            "/b/c/executionWitness",
            "/d/1/0/0/witness"
        ]
    );
    for p in &found {
        assert!(doc.pointer(p).is_some(), "{p}");
    }
}

/// Block 1's witness with its first suffix replaced.
fn with_suffix(suffix: Value) -> Result<ExecutionWitness, JsonError> {
    let mut w = json!({ "executionWitness": block_1() });
    w["executionWitness"]["stateDiff"][0]["suffixDiffs"][0]["suffix"] = suffix;
    ExecutionWitness::from_json_value(&w)
}

#[test]
fn suffix_grammar_accepts_integers_decimal_strings_and_short_hex() {
    for (v, want) in [
        (json!(0), 0u8),
        (json!(64), 64),
        (json!(255), 255),
        (json!("0"), 0),
        (json!("5"), 5),
        (json!("64"), 64),
        (json!("255"), 255),
        (json!("0x0"), 0),
        (json!("0x05"), 5),
        (json!("0x40"), 64),
        (json!("0xFF"), 255),
        (json!("0Xff"), 255),
    ] {
        let w = with_suffix(v.clone()).unwrap_or_else(|e| panic!("{v}: {e}"));
        let d = w.state_diff().get(0).unwrap().suffix_diffs.get(0).unwrap();
        assert_eq!(d.suffix, want, "{v}");
    }
}

#[test]
fn suffix_outside_the_grammar_is_refused_naming_its_path() {
    for v in [
        json!("+5"),
        json!("-5"),
        json!(" 5"),
        json!("5 "),
        json!("05"),
        json!("00"),
        json!("000"),
        json!("0064"),
        json!(""),
        json!("256"),
        json!("1000"),
        json!("5.0"),
        json!("1e2"),
        json!("\u{0665}"),
        json!("0x"),
        json!("0x+5"),
        json!("0x 5"),
        json!("0x100"),
        json!("0x040"),
        json!("0xg"),
        json!("x5"),
        json!(256),
        json!(-1),
        json!(5.0),
        json!(1e2),
        json!(true),
        json!(null),
        json!([5]),
    ] {
        match with_suffix(v.clone()) {
            Err(JsonError::Suffix { path, got }) => {
                assert_eq!(path, "/executionWitness/stateDiff/0/suffixDiffs/0/suffix");
                assert_eq!(got, v.to_string());
            }
            other => panic!("{v}: expected a Suffix error, got {other:?}"),
        }
    }
}

/// Every (camelCase, snake_case) pair the reader accepts, with the JSON Pointer (inside
/// block 1's witness) of an object holding the camelCase field.
const TWINS: [(&str, &str, &str); 10] = [
    ("stateDiff", "state_diff", ""),
    ("verkleProof", "verkle_proof", ""),
    ("suffixDiffs", "suffix_diffs", "/stateDiff/0"),
    (
        "currentValue",
        "current_value",
        "/stateDiff/0/suffixDiffs/0",
    ),
    ("newValue", "new_value", "/stateDiff/0/suffixDiffs/0"),
    ("otherStems", "other_stems", "/verkleProof"),
    (
        "depthExtensionPresent",
        "depth_extension_present",
        "/verkleProof",
    ),
    ("commitmentsByPath", "commitments_by_path", "/verkleProof"),
    ("ipaProof", "ipa_proof", "/verkleProof"),
    (
        "finalEvaluation",
        "final_evaluation",
        "/verkleProof/ipaProof",
    ),
];

#[test]
fn a_field_under_both_names_is_refused_for_every_pair() {
    for (camel, snake, at) in TWINS {
        let mut doc = json!({ "executionWitness": block_1() });
        let object = doc
            .pointer_mut(&format!("/executionWitness{at}"))
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("block 1 has no object at {at}"));
        let value = object
            .get(camel)
            .unwrap_or_else(|| panic!("block 1 has no {camel} at {at}"))
            .clone();
        // Either name alone reads the same witness.
        let reference = ExecutionWitness::from_json_value(&doc).unwrap();
        let mut renamed = doc.clone();
        let o = renamed
            .pointer_mut(&format!("/executionWitness{at}"))
            .and_then(Value::as_object_mut)
            .unwrap();
        o.remove(camel);
        o.insert(snake.to_owned(), value.clone());
        assert_eq!(
            ExecutionWitness::from_json_value(&renamed).unwrap(),
            reference,
            "{snake}"
        );
        // Both names, even with equal values, are refused.
        doc.pointer_mut(&format!("/executionWitness{at}"))
            .and_then(Value::as_object_mut)
            .unwrap()
            .insert(snake.to_owned(), value);
        match ExecutionWitness::from_json_value(&doc) {
            Err(JsonError::DuplicateField {
                path,
                camel: c,
                snake: s,
            }) => {
                assert_eq!(path, format!("/executionWitness{at}"), "{camel}");
                assert_eq!((c, s), (camel, snake));
            }
            other => panic!("{camel} + {snake}: expected DuplicateField, got {other:?}"),
        }
        let bare = OwnedExecutionWitness::from_json_witness(&doc["executionWitness"]);
        assert!(
            matches!(bare, Err(JsonError::DuplicateField { ref path, .. }) if *path == at),
            "{camel}: {bare:?}"
        );
    }
}
