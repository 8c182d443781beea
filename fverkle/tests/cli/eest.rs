//! `fverkle replay --eest` on the execution-spec-tests fixture of the shared vectors and on
//! tampered copies of it.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::common::{fverkle, json_lines, show, vectors};

/// The EEST verkle fixture (a bare fixture, EIP-6800 layout, one block).
fn fixture_file() -> PathBuf {
    let p = vectors().join("witness/eest_verkleBlock.json");
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

fn fixture() -> Json {
    serde_json::from_str(&std::fs::read_to_string(fixture_file()).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, doc: &Json) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    p
}

/// Runs `--json replay --eest FILE` with `extra` arguments.
fn run(file: &Path, extra: &[&str]) -> std::process::Output {
    fverkle()
        .args(["--json", "replay", "--eest"])
        .arg(file)
        .args(extra)
        .output()
        .unwrap()
}

/// `hex` with its last hex digit changed.
fn flip_last_digit(hex: &str) -> String {
    let mut s = hex.to_string();
    let last = s.pop().unwrap();
    s.push(if last == '0' { '1' } else { '0' });
    s
}

#[test]
fn the_eest_fixture_replays_to_its_post_root() {
    let fx = fixture();
    let out = run(&fixture_file(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{}", show(&out));
    let r = &lines[0];
    assert_eq!(r["name"], "eest_verkleBlock");
    assert_eq!(r["ok"], true);
    assert_eq!(r["error"], Json::Null);
    let blocks = fx["blocks"].as_array().unwrap();
    assert_eq!(r["blocks"], blocks.len() as u64);
    assert_eq!(r["genesis_root"], fx["genesisBlockHeader"]["stateRoot"]);
    assert_eq!(
        r["genesis_root"],
        "0x3901899f4bfd31a5d77611f70c4eb98cffdbbe5280fba656631f04336afe6f5a"
    );
    assert_eq!(
        r["root"],
        blocks.last().unwrap()["blockHeader"]["stateRoot"]
    );
    assert_ne!(r["root"], r["genesis_root"]);

    // The sharded tree reaches the same roots.
    let frac = run(&fixture_file(), &["--mode", "fractional"]);
    assert_eq!(frac.status.code(), Some(0), "{}", show(&frac));
    let f = &json_lines(&frac)[0];
    assert_eq!(f["root"], r["root"]);
    assert_eq!(f["genesis_root"], r["genesis_root"]);

    // The text form: one line for the test, then the count.
    let out = fverkle()
        .args(["replay", "--eest"])
        .arg(fixture_file())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("eest_verkleBlock: ok, 1 block"), "{text}");
    assert!(text.contains("1 passed, 0 failed"), "{text}");
}

#[test]
fn a_named_test_map_replays_each_test_and_test_selects_one() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixture();
    let mut bad = fixture();
    let root = bad["blocks"][0]["blockHeader"]["stateRoot"]
        .as_str()
        .unwrap()
        .to_string();
    bad["blocks"][0]["blockHeader"]["stateRoot"] = Json::from(flip_last_digit(&root));
    let doc = serde_json::json!({
        "tests/verkle/test_block.py::test_good[fork_Verkle]": good,
        "tests/verkle/test_block.py::test_bad[fork_Verkle]": bad,
    });
    let file = write(dir.path(), "map.json", &doc);

    // Both run; one fails, so the run exits 1.
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2, "{}", show(&out));
    let by_name = |n: &str| {
        lines
            .iter()
            .find(|l| l["name"].as_str().is_some_and(|s| s.contains(n)))
            .unwrap_or_else(|| panic!("no result for {n}: {}", show(&out)))
    };
    assert_eq!(by_name("test_good")["ok"], true);
    assert_eq!(by_name("test_bad")["ok"], false);

    // `--test` selects the good one alone.
    let name = "tests/verkle/test_block.py::test_good[fork_Verkle]";
    let out = run(&file, &["--test", name]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{}", show(&out));
    assert_eq!(lines[0]["name"], name);
    assert_eq!(lines[0]["ok"], true);
    assert_eq!(
        lines[0]["root"],
        fixture()["blocks"][0]["blockHeader"]["stateRoot"]
    );

    // An unknown name is a usage error listing the names there are.
    let out = run(&file, &["--test", "test_missing"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(out.stdout.is_empty(), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"test_missing\""), "{err}");
    assert!(
        err.contains("test_good") && err.contains("test_bad"),
        "{err}"
    );
}

#[test]
fn a_tampered_block_state_root_fails_naming_the_test_and_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = fixture();
    let root = fx["blocks"][0]["blockHeader"]["stateRoot"]
        .as_str()
        .unwrap()
        .to_string();
    fx["blocks"][0]["blockHeader"]["stateRoot"] = Json::from(flip_last_digit(&root));
    let file = write(dir.path(), "post.json", &fx);
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    let r = &lines[0];
    assert_eq!(r["ok"], false);
    assert_eq!(r["name"], "post");
    assert_eq!(r["failed_block"], 0);
    assert_eq!(r["blocks"], 0);
    let e = r["error"].as_str().unwrap();
    assert!(e.contains("test post: blocks[0]: block 1"), "{e}");
    assert!(e.contains("field stateRoot"), "{e}");
    // The root the block reaches is the real one.
    assert!(e.contains(&root), "{e}");
    // The genesis still matched.
    assert_eq!(r["genesis_root"], fx["genesisBlockHeader"]["stateRoot"]);
}

#[test]
fn a_tampered_genesis_state_root_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = fixture();
    let root = fx["genesisBlockHeader"]["stateRoot"]
        .as_str()
        .unwrap()
        .to_string();
    fx["genesisBlockHeader"]["stateRoot"] = Json::from(flip_last_digit(&root));
    let file = write(dir.path(), "genesis.json", &fx);
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let r = &json_lines(&out)[0];
    assert_eq!(r["ok"], false);
    assert_eq!(r["blocks"], 0);
    assert_eq!(r["failed_block"], Json::Null);
    // The root computed from `pre` is the real genesis root.
    assert_eq!(r["genesis_root"], root.as_str());
    let e = r["error"].as_str().unwrap();
    assert!(e.contains("genesisBlockHeader.stateRoot"), "{e}");
}

#[test]
fn a_tampered_witness_current_value_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = fixture();
    let d = &mut fx["blocks"][0]["witness"]["stateDiff"][0]["suffixDiffs"][0];
    let v = d["currentValue"].as_str().unwrap().to_string();
    d["currentValue"] = Json::from(flip_last_digit(&v));
    let file = write(dir.path(), "current.json", &fx);
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let r = &json_lines(&out)[0];
    assert_eq!(r["ok"], false);
    assert_eq!(r["failed_block"], 0);
    let e = r["error"].as_str().unwrap();
    assert!(e.contains("test current: blocks[0]"), "{e}");
    assert!(e.contains("Witness"), "{e}");
}

#[test]
fn unreadable_input_exits_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();

    let file = dir.path().join("truncated.json");
    let text = std::fs::read_to_string(fixture_file()).unwrap();
    std::fs::write(&file, &text[..text.len() / 2]).unwrap();
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("truncated.json: not JSON"), "{err}");

    let mut fx = fixture();
    fx.as_object_mut().unwrap().remove("pre");
    let file = write(dir.path(), "nopre.json", &serde_json::json!({"t1": fx}));
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(out.stdout.is_empty(), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nopre.json: test t1: field pre: missing"),
        "{err}"
    );

    let mut fx = fixture();
    fx["blocks"][0]["blockHeader"]
        .as_object_mut()
        .unwrap()
        .remove("number");
    let file = write(dir.path(), "nonumber.json", &fx);
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("test nonumber: blocks[0]: field blockHeader.number: missing"),
        "{err}"
    );

    let mut fx = fixture();
    fx["network"] = Json::from("Cancun");
    let file = write(dir.path(), "network.json", &fx);
    let out = run(&file, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("field network: unknown network \"Cancun\""),
        "{err}"
    );
}

#[test]
fn eest_and_genesis_exclude_each_other() {
    let out = fverkle()
        .args(["replay", "--eest"])
        .arg(fixture_file())
        .args(["--layout", "eip6800"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let out = fverkle()
        .args(["replay", "--test", "x", "blocks.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}
