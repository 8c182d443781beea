//! Reading ahead: block N+1 is decoded and verified while block N is applied, yet verdicts
//! and writes stay in block order.

use std::path::Path;

use crate::common::{chain_blocks, devnet6_genesis, fverkle, json_lines, show};

fn write_blocks(path: &Path, blocks: &[serde_json::Value]) {
    let doc = serde_json::json!({ "blocks": blocks });
    std::fs::write(path, serde_json::to_string(&doc).unwrap()).unwrap();
}

fn replay(dd: &Path, file: &Path) -> Vec<serde_json::Value> {
    let out = fverkle()
        .args([
            "--json",
            "replay",
            "--layout",
            "legacy",
            "--chain",
            "kaustinen6",
        ])
        .arg("--genesis")
        .arg(devnet6_genesis())
        .arg("--datadir")
        .arg(dd)
        .arg(file)
        .output()
        .unwrap();
    let lines = json_lines(&out);
    let ok = lines.iter().all(|l| l["ok"] != false);
    assert_eq!(
        out.status.code(),
        Some(if ok { 0 } else { 1 }),
        "{}",
        show(&out)
    );
    lines
}

#[test]
fn a_bad_witness_at_block_n_plus_1_is_reported_after_block_n_is_committed() {
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("dd");
    // Block 5 carries block 6's witness: verified ahead (against block 4's claimed root)
    // while block 4 is applied, it must still be block 5's verdict, after block 4.
    let mut bad = chain[..6].to_vec();
    bad[4]["executionWitness"] = chain[5]["executionWitness"].clone();
    let f = dir.path().join("bad.json");
    write_blocks(&f, &bad);
    let lines = replay(&dd, &f);
    let numbers: Vec<(u64, bool)> = lines
        .iter()
        .filter(|l| l.get("number").is_some())
        .map(|l| (l["number"].as_u64().unwrap(), l["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        numbers,
        [(1, true), (2, true), (3, true), (4, true), (5, false)]
    );
    let bad5 = lines.iter().find(|l| l["ok"] == false).unwrap();
    assert!(
        bad5["error"]
            .as_str()
            .unwrap()
            .contains("block 5: field executionWitness: does not verify"),
        "{bad5}"
    );
    assert_eq!(bad5["pre_root"], chain[3]["stateRoot"]);
    let summary = lines.last().unwrap();
    assert_eq!(summary["height"], 4);
    assert_eq!(summary["root"], chain[3]["stateRoot"]);

    // The datadir holds block 4; the good chain resumes at 5.
    let good = dir.path().join("good.json");
    write_blocks(&good, &chain[..8]);
    let lines = replay(&dd, &good);
    let summary = lines.last().unwrap();
    assert_eq!(summary["skipped"], 4);
    assert_eq!(summary["blocks"], 4);
    assert_eq!(summary["root"], chain[7]["stateRoot"]);
}

#[test]
fn a_wrong_claimed_root_is_block_ns_verdict_not_block_n_plus_1s() {
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    // Block 3 claims block 4's root: block 4 is verified ahead against that wrong root
    // (and fails), but the verdict is block 3's root mismatch.
    let mut bad: Vec<serde_json::Value> = chain[..5].to_vec();
    bad[2]["stateRoot"] = chain[3]["stateRoot"].clone();
    for b in bad.iter_mut() {
        b.as_object_mut().unwrap().remove("parentStateRoot");
    }
    let f = dir.path().join("bad.json");
    write_blocks(&f, &bad);
    let lines = replay(&dir.path().join("dd"), &f);
    let reports: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l.get("number").is_some()).collect();
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[2]["number"], 3);
    assert_eq!(reports[2]["ok"], false);
    assert!(
        reports[2]["error"]
            .as_str()
            .unwrap()
            .contains("block 3: field stateRoot"),
        "{}",
        reports[2]
    );
    assert_eq!(lines.last().unwrap()["height"], 2);
}

#[test]
fn blocks_without_parent_state_roots_replay_verified_ahead() {
    // Without `parentStateRoot` (as JSON-RPC blocks come), each witness is verified ahead
    // against the previous block's claimed `stateRoot`.
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    let mut blocks: Vec<serde_json::Value> = chain[..30].to_vec();
    for b in blocks.iter_mut() {
        b.as_object_mut().unwrap().remove("parentStateRoot");
    }
    let f = dir.path().join("blocks.json");
    write_blocks(&f, &blocks);
    let lines = replay(&dir.path().join("dd"), &f);
    let summary = lines.last().unwrap();
    assert_eq!(summary["blocks"], 30);
    assert_eq!(summary["root"], chain[29]["stateRoot"]);
}

#[test]
fn a_witness_failing_inside_a_batch_is_reported_at_its_block_after_the_blocks_before_it() {
    // Witnesses are verified ahead in batches that grow to many blocks; block 23's proof
    // has a wrong final evaluation, which only the batch's last step (the combined
    // multi-scalar multiplication) catches. Its report must be what verifying it alone
    // says, after blocks 1..22 are applied and written.
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("dd");
    let mut bad = chain[..40].to_vec();
    let one = format!("0x{}01", "00".repeat(31));
    bad[22]["executionWitness"]["verkleProof"]["ipaProof"]["finalEvaluation"] =
        serde_json::json!(one);
    let pre_root = chain[21]["stateRoot"].as_str().unwrap();
    let root: [u8; 32] = hex::decode(&pre_root[2..]).unwrap().try_into().unwrap();
    let w = witness::ExecutionWitness::from_json_value(&bad[22]).unwrap();
    let alone = witness::verify(&root, &w).expect_err("the tampered proof is rejected");
    let f = dir.path().join("bad.json");
    write_blocks(&f, &bad);
    let lines = replay(&dd, &f);
    let reports: Vec<(u64, bool)> = lines
        .iter()
        .filter(|l| l.get("number").is_some())
        .map(|l| (l["number"].as_u64().unwrap(), l["ok"].as_bool().unwrap()))
        .collect();
    let want: Vec<(u64, bool)> = (1..=23).map(|n| (n, n < 23)).collect();
    assert_eq!(reports, want);
    let bad23 = lines.iter().find(|l| l["ok"] == false).unwrap();
    let error = bad23["error"].as_str().unwrap();
    let expected = format!(
        "block 23: field executionWitness: does not verify against the pre-state root {pre_root}: {alone}"
    );
    assert!(error.ends_with(&expected), "{error}\nwant: {expected}");
    assert_eq!(bad23["pre_root"], chain[21]["stateRoot"]);
    let summary = lines.last().unwrap();
    assert_eq!(summary["height"], 22);
    assert_eq!(summary["root"], chain[21]["stateRoot"]);

    // The datadir holds blocks 1..22; the good chain resumes at 23.
    let good = dir.path().join("good.json");
    write_blocks(&good, &chain[..40]);
    let lines = replay(&dd, &good);
    let summary = lines.last().unwrap();
    assert_eq!(summary["skipped"], 22);
    assert_eq!(summary["blocks"], 18);
    assert_eq!(summary["root"], chain[39]["stateRoot"]);
}
