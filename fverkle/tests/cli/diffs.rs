//! `fverkle replay --diffs`: geth's `prestateTracer` diff-mode traces replayed as tree
//! writes, and `fverkle gen --format prestate-diff` round trips.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{fverkle, json_lines, show};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Runs `fverkle --json replay --diffs DIFFS --genesis G --layout L [extra]`.
fn replay(genesis: &Path, layout: &str, diffs: &[&Path], extra: &[&str]) -> std::process::Output {
    let mut cmd = fverkle();
    cmd.args(["--json", "replay", "--layout", layout, "--genesis"])
        .arg(genesis)
        .arg("--diffs")
        .args(diffs)
        .args(extra);
    cmd.output().unwrap()
}

fn ok_lines(out: &std::process::Output) -> Vec<Value> {
    assert_eq!(out.status.code(), Some(0), "{}", show(out));
    json_lines(out)
}

/// The per-block roots and the summary root of a `--json` replay.
fn roots(lines: &[Value], field: &str) -> (Vec<Value>, Value) {
    let blocks = lines
        .iter()
        .filter(|l| l.get("number").is_some())
        .map(|l| l[field].clone())
        .collect();
    (blocks, lines.last().unwrap()["root"].clone())
}

#[test]
fn gen_prestate_diff_replays_to_the_roots_of_its_witness_export() {
    let dir = tempfile::tempdir().unwrap();
    for layout in ["eip6800", "legacy"] {
        let gen = |format: &str| {
            let out_path = dir.path().join(format!("{layout}-{format}.jsonl"));
            let out = fverkle()
                .args(["--json", "gen", "--blocks", "4", "--updates", "300"])
                .args(["--accounts", "3000", "--seed", "4", "--layout", layout])
                .args(["--format", format, "--out"])
                .arg(&out_path)
                .output()
                .unwrap();
            let summary = ok_lines(&out).remove(0);
            (out_path, summary)
        };
        let (export, se) = gen("export");
        let (diffs, sd) = gen("prestate-diff");
        assert_eq!(se["root"], sd["root"], "the same chain");
        let genesis = PathBuf::from(sd["genesis"].as_str().unwrap());
        // Every trace is geth's shape: txHash, result.pre, result.post.
        let first: Value = serde_json::from_str(
            std::fs::read_to_string(&diffs)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(first["number"], 1);
        let t = &first["traces"][0];
        assert!(
            t["txHash"].is_string()
                && t["result"]["pre"].is_object()
                && t["result"]["post"].is_object()
        );

        let mut replay_export = fverkle();
        replay_export
            .args(["--json", "replay", "--layout", layout, "--genesis"])
            .arg(&genesis)
            .arg(&export);
        let from_export = ok_lines(&replay_export.output().unwrap());
        let from_diffs = ok_lines(&replay(&genesis, layout, &[&diffs], &["--witness-sizes"]));
        let (export_roots, export_final) = roots(&from_export, "post_root");
        let (diff_roots, diff_final) = roots(&from_diffs, "root");
        assert_eq!(export_roots.len(), 4);
        assert_eq!(diff_roots, export_roots, "{layout}: per-block roots");
        assert_eq!(diff_final, export_final);
        assert_eq!(diff_final, sd["root"]);
        let blocks: Vec<&Value> = from_diffs
            .iter()
            .filter(|l| l.get("number").is_some())
            .collect();
        for b in &blocks {
            assert!(b["keys_written"].as_u64().unwrap() >= 250, "{b}");
            assert!(b["witness_bytes"].as_u64().unwrap() > 1000, "{b}");
            assert!(b["accounts"].as_u64().unwrap() > 0 && b["slots"].as_u64().unwrap() > 0);
            assert!(b["stems"].as_u64().unwrap() <= b["keys_written"].as_u64().unwrap());
            assert!(b["mpt_state_root"].is_null());
        }
        // A resumed datadir skips what it holds: two runs, the second adds nothing.
        let dd = dir.path().join(format!("dd-{layout}"));
        let dd_arg = dd.to_str().unwrap();
        let once = ok_lines(&replay(&genesis, layout, &[&diffs], &["--datadir", dd_arg]));
        let again = ok_lines(&replay(&genesis, layout, &[&diffs], &["--datadir", dd_arg]));
        assert_eq!(once.last().unwrap()["root"], sd["root"]);
        assert_eq!(again.last().unwrap()["root"], sd["root"]);
        assert_eq!(again.last().unwrap()["skipped"], 4);
    }
}

const A: &str = "0x00000000000000000000000000000000000000aa";
const B: &str = "0x00000000000000000000000000000000000000bb";
const N: &str = "0x00000000000000000000000000000000000000cc";

fn word(x: u64) -> String {
    format!("0x{x:064x}")
}

/// Block 1 as geth writes it: A pays B 0x10 (nonce as a JSON number); B's slot 1 goes from
/// 5 to 9 and slot 0x400 is created (main storage); A deploys N with code.
fn geth_traces() -> Value {
    json!([
        {"txHash": "0x01", "result": {
            "pre": {
                A: {"balance": "0x100", "nonce": 1},
                B: {"balance": "0x0", "code": "0x6001600055", "storage": {word(1): word(5)}}
            },
            "post": {
                A: {"balance": "0xf0", "nonce": 2},
                B: {"balance": "0x10", "storage": {word(1): word(9), word(0x400): word(3)}}
            }
        }},
        {"txHash": "0x02", "result": {
            "pre": {A: {"balance": "0xf0", "nonce": 2}, N: {"balance": "0x0"}},
            "post": {A: {"nonce": 3}, N: {"nonce": 1, "code": "0x60ff60005260206000f3"}}
        }}
    ])
}

fn genesis_before() -> Value {
    json!({"alloc": {
        A: {"balance": "0x100", "nonce": "0x1"},
        B: {"balance": "0x0", "code": "0x6001600055", "storage": {"0x01": "0x05"}}
    }})
}

/// The state after block 1, as a genesis: its root is the diff replay's.
fn genesis_after() -> Value {
    json!({"alloc": {
        A: {"balance": "0xf0", "nonce": "0x3"},
        B: {"balance": "0x10", "code": "0x6001600055",
            "storage": {"0x01": "0x09", "0x0400": "0x03"}},
        N: {"balance": "0x0", "nonce": "0x1", "code": "0x60ff60005260206000f3"}
    }})
}

#[test]
fn geth_traces_give_the_root_of_the_state_they_describe() {
    let dir = tempfile::tempdir().unwrap();
    let g1 = write(
        dir.path(),
        "g1.json",
        genesis_before().to_string().as_bytes(),
    );
    let g2 = write(
        dir.path(),
        "g2.json",
        genesis_after().to_string().as_bytes(),
    );
    let empty = write(dir.path(), "empty.jsonl", b"");
    let root_hex = format!("0x{}", "12".repeat(32));
    for layout in ["eip6800", "legacy"] {
        let expected = ok_lines(&replay(&g2, layout, &[&empty], &[]))
            .last()
            .unwrap()["root"]
            .clone();
        // The same block in each accepted form: the wrapper, the wrapper around the RPC
        // response, the RPC response whose id is the block number; plain and gzip.
        let wrapper = json!({"number": "0x1", "stateRoot": root_hex, "traces": geth_traces()});
        let around =
            json!({"number": 1, "traces": {"jsonrpc": "2.0", "id": 7, "result": geth_traces()}});
        let response = json!({"jsonrpc": "2.0", "id": 1, "result": geth_traces()});
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, format!("\n{wrapper}\n\n").as_bytes()).unwrap();
        let files = [
            write(dir.path(), "w.jsonl", format!("{wrapper}\n").as_bytes()),
            write(dir.path(), "a.jsonl", around.to_string().as_bytes()),
            write(dir.path(), "r.jsonl", format!("{response}\n").as_bytes()),
            write(dir.path(), "w.jsonl.gz", &gz.finish().unwrap()),
        ];
        for f in &files {
            let lines = ok_lines(&replay(&g1, layout, &[f], &[]));
            let block = lines.iter().find(|l| l.get("number").is_some()).unwrap();
            assert_eq!(block["root"], expected, "{layout}: {}", f.display());
            assert_eq!(lines.last().unwrap()["root"], expected);
            assert_eq!(block["txs"], 2);
            assert_eq!(block["accounts"], 3);
            assert_eq!(block["created"], 1);
            assert_eq!(block["slots"], 2);
            assert_eq!(block["code_bytes"], 10);
            let mpt = if f.ends_with("w.jsonl") || f.ends_with("w.jsonl.gz") {
                json!(root_hex)
            } else {
                Value::Null
            };
            assert_eq!(block["mpt_state_root"], mpt, "kept, never compared");
        }
    }
}

#[test]
fn clears_and_deletions_write_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let g1 = write(
        dir.path(),
        "g1.json",
        genesis_before().to_string().as_bytes(),
    );
    let empty = write(dir.path(), "empty.jsonl", b"");
    let genesis_root = ok_lines(&replay(&g1, "eip6800", &[&empty], &[]))
        .last()
        .unwrap()["root"]
        .clone();
    // Block 1 clears B's slot 1 (left out of post, as geth leaves zeros out); block 2
    // deletes A (in pre, not in post); block 3 writes slot 1 back and recreates A as it
    // was: zeros are leaves, so the root is not the genesis root.
    let b1 = json!({"number": 1, "traces": [{"result": {
        "pre": {B: {"balance": "0x0", "code": "0x6001600055", "storage": {word(1): word(5)}}},
        "post": {B: {}}}}]});
    let b2 = json!({"number": 2, "traces": [{"result": {
        "pre": {A: {"balance": "0x100", "nonce": 1}}, "post": {}}}]});
    let b3 = json!({"number": 3, "traces": [{"result": {
        "pre": {A: {"balance": "0x0"}, B: {"balance": "0x0", "code": "0x6001600055"}},
        "post": {A: {"balance": "0x100", "nonce": 1}, B: {"storage": {word(1): word(5)}}}}}]});
    let f = write(
        dir.path(),
        "z.jsonl",
        format!("{b1}\n{b2}\n{b3}\n").as_bytes(),
    );
    let lines = ok_lines(&replay(&g1, "eip6800", &[&f], &[]));
    let blocks: Vec<&Value> = lines.iter().filter(|l| l.get("number").is_some()).collect();
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[0]["keys_written"], 1);
    assert_eq!(blocks[0]["slots"], 1);
    assert_eq!(blocks[1]["deleted"], 1);
    assert_eq!(
        blocks[1]["keys_written"], 2,
        "BASIC_DATA and code hash zeroed"
    );
    assert_eq!(blocks[2]["created"], 1, "a zeroed header is a new account");
    let roots: Vec<&Value> = blocks.iter().map(|b| &b["root"]).collect();
    assert_ne!(roots[0], &genesis_root);
    assert_ne!(roots[0], roots[1]);
    // Everything written back: the values of the genesis again, every key of it present.
    assert_eq!(roots[2], &genesis_root);
}

#[test]
fn untrusted_input_is_a_typed_error_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let g1 = write(
        dir.path(),
        "g1.json",
        genesis_before().to_string().as_bytes(),
    );
    let good = json!({"number": 1, "traces": geth_traces()});
    let cases = [
        (
            json!({"number": 2, "traces": [{"result": {"pre": {}, "post": {A: {"balance": "0x1z"}}}}]}).to_string(),
            format!("line 2: field traces[0].result.post.{A}.balance"),
        ),
        (
            json!({"number": 2, "traces": [{"result": {"pre": {}, "post": {A: {"storage": {"0x01": 5}}}}}]}).to_string(),
            format!("line 2: field traces[0].result.post.{A}.storage.0x01: expected a string"),
        ),
        ("{\"number\": 2, \"traces\": [".to_owned(), "line 2: field (line): not JSON".to_owned()),
        (
            json!({"number": 3, "traces": []}).to_string(),
            "line 2: field number: block 3 does not follow the state's height 1".to_owned(),
        ),
        (
            json!({"number": 2, "traces": [{"result": {"pre": {}, "post": {A: {"balance": format!("0x1{}", "0".repeat(32))}}}}]}).to_string(),
            format!("line 2: field traces[0].result.post.{A}: balance needs 129 bits"),
        ),
    ];
    for (i, (line, wanted)) in cases.iter().enumerate() {
        let f = write(
            dir.path(),
            &format!("bad{i}.jsonl"),
            format!("{good}\n{line}\n").as_bytes(),
        );
        let out = replay(&g1, "eip6800", &[&f], &[]);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let file = f.display().to_string();
        assert!(
            stderr.contains(&format!("{file}: {wanted}")),
            "wanted {file}: {wanted}\n{}",
            show(&out)
        );
    }
    // Balance too large is an EIP-6800 matter: the legacy layout holds 256 bits.
    let (line, _) = &cases[4];
    let f = write(
        dir.path(),
        "big.jsonl",
        format!("{good}\n{line}\n").as_bytes(),
    );
    ok_lines(&replay(&g1, "legacy", &[&f], &[]));
    // Chain rules amend witnesses; diffs are replayed as they are.
    let out = replay(&g1, "eip6800", &[&f], &["--chain", "kaustinen6"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--chain kaustinen6"));
}
