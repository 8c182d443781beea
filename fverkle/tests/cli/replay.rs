//! `fverkle replay` on the Kaustinen6 chain and on broken inputs.

use std::path::Path;

use crate::common::{
    chain_blocks, chain_file, devnet6_genesis, fverkle, json_lines, show, vectors,
};

fn replay_args(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "--json".into(),
        "replay".into(),
        "--layout".into(),
        "legacy".into(),
        "--genesis".into(),
        devnet6_genesis().display().to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// Writes `{"blocks": blocks}` to `path`.
fn write_blocks(path: &Path, blocks: &[serde_json::Value]) {
    let doc = serde_json::json!({ "blocks": blocks });
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

#[test]
fn kaustinen6_all_200_blocks_match_in_both_modes() {
    let blocks = chain_blocks();
    for mode in ["single", "fractional"] {
        let out = fverkle()
            .args(replay_args(&["--chain", "kaustinen6", "--mode", mode]))
            .arg(chain_file())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", show(&out));
        let lines = json_lines(&out);
        let reports: Vec<&serde_json::Value> =
            lines.iter().filter(|l| l.get("number").is_some()).collect();
        assert_eq!(reports.len(), 200, "{mode}");
        for (r, b) in reports.iter().zip(&blocks) {
            assert_eq!(r["number"], b["blockNumber"]);
            assert_eq!(r["ok"], true);
            assert_eq!(
                r["post_root"], b["stateRoot"],
                "{mode} block {}",
                b["blockNumber"]
            );
            assert_eq!(
                r["pre_root"], b["parentStateRoot"],
                "{mode} block {}",
                b["blockNumber"]
            );
            assert!(r["witness_bytes"].as_u64().unwrap() > 0);
            assert!(r["shards_touched"].as_u64().unwrap() >= 1);
            // Only the sharded tree has a coordinator root.
            assert_eq!(
                r["coordinator_root"].is_string(),
                mode == "fractional",
                "{mode}"
            );
        }
        assert_eq!(reports[0]["rule"], "kaustinen6-eip2935-history-account");
        assert!(reports[1]["rule"].is_null());
        let summary = lines.last().unwrap();
        assert_eq!(summary["summary"], true);
        assert_eq!(summary["height"], 200);
        assert_eq!(summary["root"], blocks[199]["stateRoot"]);
        // Both modes report their commit time (the sharded tree commits inside `apply`).
        assert!(summary["commit_us"].as_u64().unwrap() > 0, "{mode}");
        assert!(summary["apply_us"].as_u64().unwrap() > 0, "{mode}");
    }
}

#[test]
fn without_the_chain_rule_block_1_mismatches_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("first3.json");
    write_blocks(&f, &chain_blocks()[..3]);
    let out = fverkle().args(replay_args(&[])).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let lines = json_lines(&out);
    let first = &lines[1];
    assert_eq!(first["number"], 1);
    assert_eq!(first["ok"], false);
    let err = first["error"].as_str().unwrap();
    assert!(
        err.contains("first3.json") && err.contains("block 1") && err.contains("stateRoot"),
        "{err}"
    );
    // The run stopped there, at the genesis: the summary's root is the genesis root, not
    // the failed block's.
    assert_eq!(
        lines.iter().filter(|l| l.get("number").is_some()).count(),
        1
    );
    assert_ne!(first["post_root"], first["pre_root"]);
    let summary = lines.last().unwrap();
    assert_eq!(summary["height"], 0);
    assert_eq!(summary["root"], chain_blocks()[0]["parentStateRoot"]);
}

#[test]
fn a_witness_for_another_block_is_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let mut blocks = chain_blocks()[..3].to_vec();
    blocks[1]["executionWitness"] = blocks[2]["executionWitness"].clone();
    let f = dir.path().join("swapped.json");
    write_blocks(&f, &blocks);
    let out = fverkle()
        .args(replay_args(&["--chain", "kaustinen6"]))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let lines = json_lines(&out);
    let bad = lines.iter().find(|l| l["ok"] == false).unwrap();
    assert_eq!(bad["number"], 2);
    let err = bad["error"].as_str().unwrap();
    assert!(
        err.contains("swapped.json") && err.contains("block 2") && err.contains("executionWitness"),
        "{err}"
    );
}

#[test]
fn broken_exports_exit_2_naming_file_block_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = chain_blocks()[..2].to_vec();

    // Truncated JSON.
    let whole = serde_json::to_string_pretty(&serde_json::json!({ "blocks": blocks })).unwrap();
    let f = dir.path().join("truncated.json");
    std::fs::write(&f, &whole[..whole.len() / 2]).unwrap();
    let out = fverkle().args(replay_args(&[])).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("truncated.json") && err.contains("not JSON"),
        "{err}"
    );

    // A non-hex root.
    let mut bad = blocks.clone();
    bad[1]["stateRoot"] = serde_json::json!("0xnothex");
    let f = dir.path().join("nonhex.json");
    write_blocks(&f, &bad);
    let out = fverkle()
        .args(replay_args(&["--chain", "kaustinen6"]))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nonhex.json") && err.contains("block 2") && err.contains("stateRoot"),
        "{err}"
    );

    // A garbled witness (a commitment cut short).
    let mut bad = blocks.clone();
    bad[0]["executionWitness"]["verkleProof"]["d"] = serde_json::json!("0x1234");
    let f = dir.path().join("garbled.json");
    write_blocks(&f, &bad);
    let out = fverkle().args(replay_args(&[])).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("garbled.json") && err.contains("block 1") && err.contains("verkleProof"),
        "{err}"
    );

    // A JSON Lines file with a truncated last line: the good block is replayed first.
    let f = dir.path().join("lines.jsonl");
    let line2 = blocks[1].to_string();
    std::fs::write(&f, format!("{}\n{}", blocks[0], &line2[..line2.len() / 3])).unwrap();
    let out = fverkle()
        .args(replay_args(&["--chain", "kaustinen6"]))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lines.jsonl: line 2: not JSON"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"number\":1"));

    // A missing file.
    let out = fverkle()
        .args(replay_args(&[]))
        .arg(dir.path().join("absent.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("absent.json"));

    // Blocks out of order.
    let f = dir.path().join("gap.json");
    write_blocks(&f, &chain_blocks()[1..2]);
    let out = fverkle().args(replay_args(&[])).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("gap.json") && err.contains("block 2") && err.contains("block 1 comes next"),
        "{err}"
    );
}

#[test]
fn beacon_block_dumps_are_read() {
    // A beacon-API dump carries its payload's number and state root; block 15 of another
    // history cannot follow the devnet6 genesis, which the replay says (exit 2, naming it).
    let f = vectors().join("witness/beacon.block.15.test.json");
    let out = fverkle().args(replay_args(&[])).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("beacon.block.15.test.json: block 15"), "{err}");
}
