//! JSON text read as it streams agrees with the same document read once parsed: whatever the
//! order of its keys, with keys named twice (a parsed document keeps the last), and on
//! syntax errors anywhere in the text.

use serde_json::{json, Value};
use witness::{ExecutionWitness, JsonError};

use crate::common::read_json;

fn block_1() -> Value {
    read_json("witness/valid_block_1.json")["executionWitness"].clone()
}

/// `v` as compact JSON with every object's keys in reverse order (serde_json writes them
/// sorted).
fn reversed(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let fields: Vec<String> = m
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), reversed(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(reversed).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The outcome of reading `text`, and of reading it parsed, as comparable strings.
fn both(text: &str) -> (String, String) {
    let show = |r: Result<ExecutionWitness, JsonError>| match r {
        Ok(w) => format!("ok {}", hex::encode(w.as_ssz())),
        Err(e) => format!("{e:?}"),
    };
    let streamed = show(ExecutionWitness::from_json_str(text));
    let parsed = match serde_json::from_str::<Value>(text) {
        Ok(doc) => show(ExecutionWitness::from_json_value(&doc)),
        Err(e) => format!("{:?}", JsonError::Syntax(e)),
    };
    (streamed, parsed)
}

#[test]
fn key_order_changes_neither_the_witness_nor_the_error() {
    let doc = json!({"blockNumber": 1, "executionWitness": block_1()});
    let sorted = doc.to_string();
    let backwards = reversed(&doc);
    assert_ne!(sorted, backwards);
    let reference = ExecutionWitness::from_json_value(&doc).unwrap();
    assert_eq!(ExecutionWitness::from_json_str(&sorted).unwrap(), reference);
    assert_eq!(
        ExecutionWitness::from_json_str(&backwards).unwrap(),
        reference
    );

    // Two faults: `verkleProof` comes first in the reversed text, but the rules check
    // `stateDiff` first, so the stem's fault is the one reported either way.
    let mut bad = doc.clone();
    bad["executionWitness"]["verkleProof"]["d"] = json!("0x12");
    bad["executionWitness"]["stateDiff"][0]["stem"] = json!("0xzz");
    for text in [bad.to_string(), reversed(&bad)] {
        match ExecutionWitness::from_json_str(&text) {
            Err(JsonError::Length { path, got, .. }) => {
                assert_eq!(path, "/executionWitness/stateDiff/0/stem");
                assert_eq!(got, 1);
            }
            other => panic!("expected the stem's Length error, got {other:?}"),
        }
        let (streamed, parsed) = both(&text);
        assert_eq!(streamed, parsed);
    }

    // Inside one suffix diff: a missing `suffix` ranks before a bad `newValue`, even when the
    // bad value comes first in the text.
    let mut bad = doc;
    let diff = bad["executionWitness"]["stateDiff"][0]["suffixDiffs"][0]
        .as_object_mut()
        .unwrap();
    diff.remove("suffix");
    diff.insert("newValue".into(), json!(7));
    let text = reversed(&bad);
    match ExecutionWitness::from_json_str(&text) {
        Err(JsonError::Missing { path, field }) => {
            assert_eq!(path, "/executionWitness/stateDiff/0/suffixDiffs/0");
            assert_eq!(field, "suffix");
        }
        other => panic!("expected Missing suffix, got {other:?}"),
    }
    let (streamed, parsed) = both(&text);
    assert_eq!(streamed, parsed);
}

#[test]
fn a_key_named_twice_keeps_its_last_value_as_a_parsed_document_does() {
    let good = block_1().to_string();
    let reference = ExecutionWitness::from_json_value(&block_1()).unwrap();
    let stem = block_1()["stateDiff"][0]["stem"].clone();
    let cases = [
        // The key holding the witness, named twice.
        format!(r#"{{"executionWitness": 1, "executionWitness": {good}}}"#),
        format!(r#"{{"executionWitness": {good}, "executionWitness": 1}}"#),
        format!(r#"{{"a": {{"witness": {good}}}, "a": 2}}"#),
        // A field inside the witness, named twice: the first value bad, then good, and back.
        good.replacen(
            r#""stem":"#,
            &format!(r#""stem":"0x00","stem":{stem},"stem":"#),
            1,
        ),
        good.replacen(
            &format!(r#""stem":{stem}"#),
            &format!(r#""stem":{stem},"stem":"0x00""#),
            1,
        ),
        good.replacen(r#""d":"#, r#""d":[],"d":"#, 1),
    ];
    let mut read = 0;
    for text in &cases {
        let (streamed, parsed) = both(text);
        assert_eq!(streamed, parsed, "{}", &text[..80]);
        if let Ok(w) = ExecutionWitness::from_json_str(text) {
            assert_eq!(w, reference);
            read += 1;
        }
    }
    // The witness survives where its last value is good: cases 0, 3 and 5.
    assert_eq!(read, 3);
}

#[test]
fn syntax_is_checked_in_the_whole_text_as_a_parsed_document_checks_it() {
    let good = block_1().to_string();
    let cases = [
        format!(r#"{{"n": 1e400, "executionWitness": {good}}}"#),
        format!(r#"{{"executionWitness": {good}, "x": "\ud800"}}"#),
        format!(r#"{{"executionWitness": {good}}} x"#),
        format!(r#"{{"executionWitness": {good},}}"#),
        format!(r#"{{"\ud800": 1, "executionWitness": {good}}}"#),
        format!(
            r#"{{"executionWitness": {good}, "deep": {}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        ),
        good.replacen(r#""d":"#, r#""extra": 01, "d":"#, 1),
        good.replacen(r#""d":"#, r#""extra": [1e999], "d":"#, 1),
        good.replacen(r#""suffix":"#, r#""suffix": 1e999, "x":"#, 1),
    ];
    for text in &cases {
        let streamed = ExecutionWitness::from_json_str(text);
        let Err(JsonError::Syntax(e)) = streamed else {
            panic!("expected a syntax error, got {streamed:?}");
        };
        let parsed = serde_json::from_str::<Value>(text).unwrap_err();
        assert_eq!(e.to_string(), parsed.to_string());
    }
}

#[test]
fn a_witness_under_escaped_keys_is_found_and_named() {
    let good = block_1().to_string();
    let text = format!(r#"{{"a\/b": {{"\u0077itness": {good}}}, "z": [{{"x": 1}}]}}"#);
    let w = ExecutionWitness::from_json_str(&text).unwrap();
    assert_eq!(w, ExecutionWitness::from_json_value(&block_1()).unwrap());
    let bad = text.replacen(r#""d":"#, r#""d":5,"x":"#, 1);
    match ExecutionWitness::from_json_str(&bad) {
        Err(JsonError::Type { path, .. }) => assert_eq!(path, "/a~1b/witness/verkleProof/d"),
        other => panic!("expected a Type error, got {other:?}"),
    }
}
