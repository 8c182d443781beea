//! Datadirs: `genesis --datadir`, resume, kill -9 at random moments, refusal of a datadir
//! made for another chain or layout, nothing written for a failed block, `prove`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{chain_blocks, chain_file, devnet6_genesis, fverkle, json_lines, show};

fn replay(dd: &Path, chain: &str, layout: &str, blocks: &Path) -> std::process::Output {
    fverkle()
        .args([
            "--json",
            "replay",
            "--layout",
            layout,
            "--chain",
            chain,
            "--genesis",
        ])
        .arg(devnet6_genesis())
        .arg("--datadir")
        .arg(dd)
        .arg(blocks)
        .output()
        .unwrap()
}

fn write_blocks(path: &Path, blocks: &[serde_json::Value]) {
    let doc = serde_json::json!({ "blocks": blocks });
    std::fs::write(path, doc.to_string()).unwrap();
}

fn summary(out: &std::process::Output) -> serde_json::Value {
    json_lines(out).pop().unwrap()
}

#[test]
fn resume_skips_applied_blocks_and_refuses_other_chains() {
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("dd");
    let blocks = chain_blocks();
    let first = dir.path().join("first.json");
    write_blocks(&first, &blocks[..30]);
    let out = replay(&dd, "kaustinen6", "legacy", &first);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(summary(&out)["height"], 30);

    // The same datadir with another rule set or layout is refused, naming the field.
    let out = replay(&dd, "none", "legacy", &first);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fverkle/chain") && err.contains("kaustinen6"),
        "{err}"
    );
    let out = replay(&dd, "kaustinen6", "eip6800", &first);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fverkle/layout"));

    // A failed block writes nothing: block 32 with a wrong stateRoot stops the run at 31.
    let mut bad = blocks[..40].to_vec();
    bad[31]["stateRoot"] = bad[30]["stateRoot"].clone();
    let badf = dir.path().join("bad.json");
    write_blocks(&badf, &bad);
    let out = replay(&dd, "kaustinen6", "legacy", &badf);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let s = summary(&out);
    assert_eq!(s["skipped"], 30);
    assert_eq!(s["height"], 31);
    assert_eq!(s["root"], blocks[30]["stateRoot"]);

    // Resume over the whole chain: 31 skipped, the rest applied, the chain's final root.
    let out = replay(&dd, "kaustinen6", "legacy", &chain_file());
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s = summary(&out);
    assert_eq!(s["skipped"], 31);
    assert_eq!(s["blocks"], 169);
    assert_eq!(s["root"], blocks[199]["stateRoot"]);
}

/// Runs `fverkle --json replay ARGS`, waits for `blocks` block reports (each block is in
/// the store before its report) and `ms` milliseconds more, and kills it with SIGKILL.
fn kill_replay(args: &[&std::ffi::OsStr], blocks: u64, ms: u64) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("fverkle"))
        .args(["--json", "replay"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kept open until the kill: closing it would end the run through a broken pipe.
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = 0;
    while seen < blocks {
        let Some(line) = lines.next() else { break };
        if line.unwrap().contains("\"number\"") {
            seen += 1;
        }
    }
    assert_eq!(seen, blocks, "the run ended before {blocks} blocks");
    std::thread::sleep(Duration::from_millis(ms));
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    drop(lines);
    assert_eq!(status.code(), None, "killed by a signal");
}

/// The run that resumes after the kills: it succeeds, every block it applies reaches the
/// export's root, no block reported before a kill is replayed again, and it ends at the
/// export's last height and root.
fn check_resumed(
    out: &std::process::Output,
    blocks: &[serde_json::Value],
    applied_before_kills: u64,
    kills: &[String],
) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "kills at {kills:?}: {}",
        show(out)
    );
    let lines = json_lines(out);
    for r in lines.iter().filter(|l| l.get("number").is_some()) {
        let n = r["number"].as_u64().unwrap() as usize;
        assert_eq!(
            r["post_root"],
            blocks[n - 1]["stateRoot"],
            "kills at {kills:?}"
        );
    }
    let s = lines.last().unwrap();
    assert!(
        s["skipped"].as_u64().unwrap() >= applied_before_kills,
        "kills at {kills:?}: blocks reported before a kill were not kept: {s}"
    );
    assert_eq!(s["height"], blocks.len(), "kills at {kills:?}");
    assert_eq!(
        s["root"],
        blocks[blocks.len() - 1]["stateRoot"],
        "kills at {kills:?}"
    );
}

#[test]
fn kill_9_at_random_moments_then_resume_reaches_the_same_roots() {
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("dd");
    // Deterministic pseudo-random moments (reported on failure; FVERKLE_KILL_SEED varies them).
    let mut x: u64 = std::env::var("FVERKLE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9);
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % n
    };
    let genesis = devnet6_genesis();
    let chain = chain_file();
    let args: Vec<&std::ffi::OsStr> = vec![
        "--layout".as_ref(),
        "legacy".as_ref(),
        "--chain".as_ref(),
        "kaustinen6".as_ref(),
        "--genesis".as_ref(),
        genesis.as_os_str(),
        "--datadir".as_ref(),
        dd.as_os_str(),
        chain.as_os_str(),
    ];
    let mut kills = Vec::new();
    let mut applied_before_kills = 0u64;
    for round in 0..4 {
        // Round 0: somewhere in start-up or the genesis import. Then: after k more blocks
        // were reported, plus a few milliseconds: mid-block, mid-commit or mid-write.
        let (k, ms) = if round == 0 {
            (0, 50 + next(400))
        } else {
            (1 + next(40), next(30))
        };
        kill_replay(&args, k, ms);
        applied_before_kills += k;
        kills.push(format!("{k} blocks + {ms} ms"));
    }
    let out = replay(&dd, "kaustinen6", "legacy", &chain);
    check_resumed(&out, &chain_blocks(), applied_before_kills, &kills);
}

/// Blocks large enough that each batch is written on the writer thread while the next
/// block is applied: a kill -9 right after a block's report, or a few milliseconds later
/// (mid-apply, mid-commit, mid-write of the next block), never loses a reported block, and
/// the resumed run reaches every root of the export.
#[test]
fn kill_9_during_pipelined_writes_then_resume() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("big.jsonl");
    let out = fverkle()
        .args(["--json", "gen", "--blocks", "6", "--updates", "10000"])
        .args(["--accounts", "10000", "--seed", "5", "--out"])
        .arg(&export)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let genesis = PathBuf::from(json_lines(&out)[0]["genesis"].as_str().unwrap());
    let blocks: Vec<serde_json::Value> = std::fs::read_to_string(&export)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let dd = dir.path().join("dd");
    let args: Vec<&std::ffi::OsStr> = vec![
        "--layout".as_ref(),
        "eip6800".as_ref(),
        "--genesis".as_ref(),
        genesis.as_os_str(),
        "--datadir".as_ref(),
        dd.as_os_str(),
        export.as_os_str(),
    ];
    let mut applied_before_kills = 0u64;
    let mut kills = Vec::new();
    for (k, ms) in [(1u64, 0u64), (1, 0), (1, 2)] {
        kill_replay(&args, k, ms);
        applied_before_kills += k;
        kills.push(format!("{k} blocks + {ms} ms"));
    }
    let out = replay_synthetic(&dd, "single", &genesis, &export);
    check_resumed(&out, &blocks, applied_before_kills, &kills);
}

#[test]
fn genesis_datadir_then_prove_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("dd");
    let out = fverkle()
        .args([
            "genesis",
            "--layout",
            "legacy",
            "--chain",
            "kaustinen6",
            "--datadir",
        ])
        .arg(&dd)
        .arg(devnet6_genesis())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert_eq!(
        root,
        "0x1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee"
    );

    // Keys of block 1's witness, proven from the genesis datadir: the witness verifies.
    let b1 = &chain_blocks()[0];
    let mut keys = String::from("# block 1 keys\n");
    for s in b1["executionWitness"]["stateDiff"].as_array().unwrap() {
        let stem = s["stem"].as_str().unwrap();
        for d in s["suffixDiffs"].as_array().unwrap() {
            let suffix: u64 = match &d["suffix"] {
                serde_json::Value::String(x) => x.parse().unwrap(),
                v => v.as_u64().unwrap(),
            };
            keys.push_str(&format!("{stem}{suffix:02x}\n"));
        }
    }
    let kf = dir.path().join("keys.txt");
    std::fs::write(&kf, keys).unwrap();
    let wf = dir.path().join("w.json");
    let out = fverkle()
        .args(["prove", "--datadir"])
        .arg(&dd)
        .arg(&kf)
        .arg("--out")
        .arg(&wf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = fverkle()
        .args(["verify", "--pre-root", &root])
        .arg(&wf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let sf = dir.path().join("w.ssz");
    let out = fverkle()
        .args(["prove", "--format", "ssz", "--datadir"])
        .arg(&dd)
        .arg(&kf)
        .arg("--out")
        .arg(&sf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = fverkle()
        .args(["verify", "--pre-root", &root])
        .arg(&sf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // A non-hex key names the file and line.
    std::fs::write(&kf, "0x00\n").unwrap();
    let out = fverkle()
        .args(["prove", "--datadir"])
        .arg(&dd)
        .arg(&kf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("keys.txt: line 1"));

    // The replay continues from the genesis datadir.
    let first = dir.path().join("first.json");
    write_blocks(&first, &chain_blocks()[..5]);
    let out = replay(&dd, "kaustinen6", "legacy", &first);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(summary(&out)["height"], 5);
}

#[test]
fn fractional_datadir_resumes_and_proves_fractionally() {
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("ddf");
    let run = |blocks: &Path, mode: &str| {
        fverkle()
            .args([
                "--json",
                "replay",
                "--layout",
                "legacy",
                "--chain",
                "kaustinen6",
                "--mode",
                mode,
                "--genesis",
            ])
            .arg(devnet6_genesis())
            .arg("--datadir")
            .arg(&dd)
            .arg(blocks)
            .output()
            .unwrap()
    };
    let chain = chain_blocks();
    let first = dir.path().join("first.json");
    write_blocks(&first, &chain[..40]);
    let out = run(&first, "fractional");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s1 = summary(&out);
    assert_eq!(s1["height"], 40);
    assert_eq!(s1["root"], chain[39]["stateRoot"]);

    // A sharded datadir is not a single tree's.
    let out = run(&first, "single");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fverkle/mode") && err.contains("fractional"),
        "{err}"
    );

    let second = dir.path().join("second.json");
    write_blocks(&second, &chain[..60]);
    let out = run(&second, "fractional");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s2 = summary(&out);
    assert_eq!(s2["skipped"], 40);
    assert_eq!(s2["height"], 60);
    assert_eq!(s2["root"], chain[59]["stateRoot"]);

    // A fractional proof of block 61's keys, carrying its writes, verifies against block
    // 60's state root and against the datadir's coordinator root; its post-state roots are
    // block 61's state root and the coordinator root after replaying block 61.
    let lines = json_lines(&out);
    let coordinator = lines
        .iter()
        .rev()
        .find_map(|l| l["coordinator_root"].as_str())
        .unwrap()
        .to_string();
    let mut keys = String::new();
    for (key, _, new) in witness_keys(&chain[60]) {
        match new {
            Some(v) => keys.push_str(&format!("{key},{v}\n")),
            None => keys.push_str(&format!("{key}\n")),
        }
    }
    let kf = dir.path().join("keys.txt");
    std::fs::write(&kf, keys).unwrap();
    let pf = dir.path().join("p.bin");
    let jf = dir.path().join("p.json");
    for (format, file) in [("ssz", &pf), ("json", &jf)] {
        let out = fverkle()
            .args(["prove", "--fractional", "--format", format, "--datadir"])
            .arg(&dd)
            .arg(&kf)
            .arg("--out")
            .arg(file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&jf).unwrap()).unwrap();
    assert_eq!(doc["stateRoot"], chain[59]["stateRoot"]);
    assert_eq!(doc["coordinatorRoot"].as_str(), Some(coordinator.as_str()));
    assert!(doc["fractionalProof"].as_str().unwrap().starts_with("0x02"));

    let after = dir.path().join("after.json");
    write_blocks(&after, &chain[..61]);
    let out61 = run(&after, "fractional");
    assert_eq!(out61.status.code(), Some(0), "{}", show(&out61));
    let post_coordinator = json_lines(&out61)
        .iter()
        .rev()
        .find_map(|l| l["coordinator_root"].as_str().map(str::to_owned))
        .unwrap();
    assert_ne!(post_coordinator, coordinator);
    let pre_root = chain[59]["stateRoot"].as_str().unwrap();
    let post_root = chain[60]["stateRoot"].as_str().unwrap();
    let verify = |file: &Path, anchor: &[&str]| {
        fverkle()
            .args(["--json", "verify", "--fractional"])
            .args(anchor)
            .arg(file)
            .output()
            .unwrap()
    };
    for file in [&pf, &jf] {
        for anchor in [
            ["--pre-root", pre_root, "--post-root", post_root],
            [
                "--coordinator-root",
                &coordinator,
                "--post-coordinator-root",
                &post_coordinator,
            ],
        ] {
            let out = verify(file, &anchor);
            assert_eq!(out.status.code(), Some(0), "{anchor:?}: {}", show(&out));
            let line = &json_lines(&out)[0];
            assert_eq!(line["ok"], true);
            assert_eq!(line["state_root"].as_str(), Some(pre_root));
            assert_eq!(
                line["coordinator_root"].as_str(),
                Some(coordinator.as_str())
            );
            assert!(line["written"].as_u64().unwrap() > 0);
        }
    }
    // A wrong post-state root is a verdict of invalid.
    let out = verify(&pf, &["--pre-root", pre_root, "--post-root", pre_root]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(json_lines(&out)[0]["error"]
        .as_str()
        .unwrap()
        .contains("post-state root mismatch"));
    // Altered bytes are invalid under both anchors (a spread of positions; every position
    // is the `any_altered_byte_is_rejected_under_both_anchors` test of the fractional crate).
    let bytes = std::fs::read(&pf).unwrap();
    let tampered = dir.path().join("t.bin");
    for at in (0..bytes.len()).step_by(bytes.len() / 23 + 1) {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        std::fs::write(&tampered, &b).unwrap();
        for anchor in [
            ["--pre-root", pre_root],
            ["--coordinator-root", &coordinator],
        ] {
            let out = verify(&tampered, &anchor);
            assert_eq!(
                out.status.code(),
                Some(1),
                "byte {at}, {anchor:?}: {}",
                show(&out)
            );
        }
    }

    // Deletions against the datadir as it is now (block 61): `KEY,delete` lines for the
    // present keys of block 61's witness. The proof marks them deleted, verifies under both
    // anchors, and both anchors give the same post-state root (the library's property
    // tests compare it with the tree's).
    let mut deletes = String::new();
    for (key, current, _) in witness_keys(&chain[60]) {
        if current.is_some() {
            deletes.push_str(&format!("{key},delete\n"));
        }
    }
    let df = dir.path().join("deletes.txt");
    std::fs::write(&df, &deletes).unwrap();
    let delete_count = deletes.lines().count() as u64;
    assert!(delete_count > 0);
    let dp = dir.path().join("d.bin");
    let out = fverkle()
        .args(["prove", "--fractional", "--format", "ssz", "--datadir"])
        .arg(&dd)
        .arg(&df)
        .arg("--out")
        .arg(&dp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let mut posts = Vec::new();
    for anchor in [
        ["--pre-root", post_root, "--post-root", post_root],
        [
            "--coordinator-root",
            &post_coordinator,
            "--post-coordinator-root",
            &post_coordinator,
        ],
    ] {
        // The roots given as post roots are the pre-state's: deletions change them.
        let out = verify(&dp, &anchor);
        assert_eq!(out.status.code(), Some(1), "{anchor:?}: {}", show(&out));
        let line = &json_lines(&out)[0];
        assert_eq!(line["state_root"].as_str(), Some(post_root), "{line}");
        assert_eq!(line["deleted"].as_u64(), Some(delete_count));
        assert_eq!(line["written"].as_u64(), Some(0));
        assert!(
            line["error"].as_str().unwrap().contains("mismatch"),
            "{line}"
        );
        assert_ne!(line["post_state_root"].as_str(), Some(post_root));
        posts.push(line["post_state_root"].clone());
    }
    assert_eq!(posts[0], posts[1]);
    // A standard witness carries no deletion: the line is refused, naming it.
    let out = fverkle()
        .args(["prove", "--datadir"])
        .arg(&dd)
        .arg(&df)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1") && err.contains("--fractional"),
        "{err}"
    );
}

/// The keys of a block's witness (go-verkle JSON) as hex tree keys, with their current
/// and new values.
fn witness_keys(block: &serde_json::Value) -> Vec<(String, Option<String>, Option<String>)> {
    let mut out = Vec::new();
    for s in block["executionWitness"]["stateDiff"].as_array().unwrap() {
        let stem = s["stem"].as_str().unwrap();
        for d in s["suffixDiffs"].as_array().unwrap() {
            let suffix: u64 = match &d["suffix"] {
                serde_json::Value::String(x) => x.parse().unwrap(),
                v => v.as_u64().unwrap(),
            };
            out.push((
                format!("{stem}{suffix:02x}"),
                d["currentValue"].as_str().map(str::to_owned),
                d["newValue"].as_str().map(str::to_owned),
            ));
        }
    }
    out
}

/// A synthetic chain from `fverkle gen`: its export, genesis and blocks.
struct Synthetic {
    genesis: PathBuf,
    blocks: Vec<serde_json::Value>,
}

fn synthetic(dir: &Path, name: &str, seed: &str, blocks: &str) -> Synthetic {
    let out_path = dir.join(name);
    let out = fverkle()
        .args([
            "--json",
            "gen",
            "--blocks",
            blocks,
            "--updates",
            "40",
            "--accounts",
            "400",
            "--seed",
            seed,
            "--out",
        ])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let summary = json_lines(&out).remove(0);
    let text = std::fs::read_to_string(&out_path).unwrap();
    let blocks: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        blocks.last().unwrap()["stateRoot"].as_str(),
        summary["root"].as_str()
    );
    Synthetic {
        genesis: PathBuf::from(summary["genesis"].as_str().unwrap()),
        blocks,
    }
}

fn replay_synthetic(dd: &Path, mode: &str, genesis: &Path, blocks: &Path) -> std::process::Output {
    fverkle()
        .args(["--json", "replay", "--layout", "eip6800", "--mode", mode])
        .arg("--genesis")
        .arg(genesis)
        .arg("--datadir")
        .arg(dd)
        .arg(blocks)
        .output()
        .unwrap()
}

/// The block report that failed.
fn failed(out: &std::process::Output) -> serde_json::Value {
    json_lines(out)
        .into_iter()
        .find(|l| l["ok"] == false)
        .unwrap_or_else(|| panic!("no failed block: {}", show(out)))
}

#[test]
fn resumed_blocks_are_checked_against_the_roots_recorded_per_height() {
    let dir = tempfile::tempdir().unwrap();
    let a = synthetic(dir.path(), "a.jsonl", "1", "6");
    let b = synthetic(dir.path(), "b.jsonl", "2", "6");
    assert_ne!(a.blocks[0]["stateRoot"], b.blocks[0]["stateRoot"]);
    for mode in ["single", "fractional"] {
        let dd = dir.path().join(format!("dd-{mode}"));
        let a4 = dir.path().join("a4.json");
        write_blocks(&a4, &a.blocks[..4]);
        let out = replay_synthetic(&dd, mode, &a.genesis, &a4);
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", show(&out));
        assert_eq!(summary(&out)["height"], 4);

        // Another chain's blocks 1..4: a verdict at block 1, whose parent root is another
        // genesis root.
        let b4 = dir.path().join("b4.json");
        write_blocks(&b4, &b.blocks[..4]);
        let out = replay_synthetic(&dd, mode, &a.genesis, &b4);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", show(&out));
        let r = failed(&out);
        assert_eq!(r["number"], 1, "{mode}");
        let err = r["error"].as_str().unwrap();
        assert!(
            err.contains("b4.json: blocks[0]: block 1: field parentStateRoot")
                && err.contains(b.blocks[0]["parentStateRoot"].as_str().unwrap())
                && err.contains(a.blocks[0]["parentStateRoot"].as_str().unwrap()),
            "{mode}: {err}"
        );

        // Without parent roots, each block's own root is checked: block 1 names both roots.
        let mut bare = b.blocks[..4].to_vec();
        for blk in &mut bare {
            blk.as_object_mut().unwrap().remove("parentStateRoot");
        }
        let bf = dir.path().join("b4-bare.json");
        write_blocks(&bf, &bare);
        let out = replay_synthetic(&dd, mode, &a.genesis, &bf);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", show(&out));
        let r = failed(&out);
        assert_eq!(r["number"], 1, "{mode}");
        let err = r["error"].as_str().unwrap();
        assert!(
            err.contains("block 1: field stateRoot")
                && err.contains(b.blocks[0]["stateRoot"].as_str().unwrap())
                && err.contains(a.blocks[0]["stateRoot"].as_str().unwrap()),
            "{mode}: {err}"
        );
        let s = summary(&out);
        assert_eq!(s["skipped"], 0, "{mode}");
        assert_eq!(s["height"], 4, "{mode}");

        // Chain A with block 3's root replaced: blocks 1 and 2 pass, block 3 is named.
        let mut forged = a.blocks[..4].to_vec();
        forged[2]["stateRoot"] = b.blocks[2]["stateRoot"].clone();
        let ff = dir.path().join("forged.json");
        write_blocks(&ff, &forged);
        let out = replay_synthetic(&dd, mode, &a.genesis, &ff);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", show(&out));
        let r = failed(&out);
        assert_eq!(r["number"], 3, "{mode}");
        assert!(
            r["error"].as_str().unwrap().contains("field stateRoot"),
            "{mode}: {r}"
        );
        assert_eq!(summary(&out)["skipped"], 2, "{mode}");

        // The chain itself: 4 checked and skipped, 2 applied.
        let out = replay_synthetic(&dd, mode, &a.genesis, &dir.path().join("a.jsonl"));
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", show(&out));
        let s = summary(&out);
        assert_eq!(s["skipped"], 4, "{mode}");
        assert_eq!(s["unchecked"], 0, "{mode}");
        assert_eq!(s["blocks"], 2, "{mode}");
        assert_eq!(s["root"], a.blocks[5]["stateRoot"], "{mode}");
    }
}

#[test]
fn after_a_mismatch_the_summary_reports_the_persisted_root() {
    let dir = tempfile::tempdir().unwrap();
    let a = synthetic(dir.path(), "a.jsonl", "3", "6");
    for mode in ["single", "fractional"] {
        let dd = dir.path().join(format!("dd-{mode}"));
        // Block 5 claims block 6's root: blocks 1..4 are written, block 5 is not.
        let mut bad = a.blocks.clone();
        bad[4]["stateRoot"] = a.blocks[5]["stateRoot"].clone();
        let badf = dir.path().join("bad.json");
        write_blocks(&badf, &bad);
        let out = replay_synthetic(&dd, mode, &a.genesis, &badf);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", show(&out));
        let r = failed(&out);
        assert_eq!(r["number"], 5, "{mode}");
        assert_ne!(r["post_root"], a.blocks[3]["stateRoot"], "{mode}");
        let s = summary(&out);
        assert_eq!(s["height"], 4, "{mode}");
        assert_eq!(s["root"], a.blocks[3]["stateRoot"], "{mode}: {s}");

        // Reopened, the datadir holds that height and root.
        let a4 = dir.path().join("a4.json");
        write_blocks(&a4, &a.blocks[..4]);
        let out = replay_synthetic(&dd, mode, &a.genesis, &a4);
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", show(&out));
        let again = summary(&out);
        assert_eq!(again["blocks"], 0, "{mode}");
        assert_eq!(again["skipped"], 4, "{mode}");
        assert_eq!(again["height"], s["height"], "{mode}");
        assert_eq!(again["root"], s["root"], "{mode}");
    }
}

#[test]
fn a_datadir_without_per_height_roots_reports_its_skipped_blocks_unchecked() {
    use verkle::keys::{Layout, TreeKey, Value};
    let dir = tempfile::tempdir().unwrap();
    let a = synthetic(dir.path(), "a.jsonl", "4", "6");
    // A datadir at height 4 as a replay writes it without per-height roots: nodes, height
    // and the chain, layout, mode and genesis root meta.
    let dd = dir.path().join("dd");
    {
        let store = verkle::store::RocksStore::open(&dd).unwrap();
        let mut tree = verkle::Tree::open(store).unwrap();
        let text = std::fs::read_to_string(&a.genesis).unwrap();
        let leaves = genesis::genesis_leaves(&text, Layout::Eip6800, "g").unwrap();
        tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
            .unwrap();
        let genesis_root = tree.root_bytes();
        assert_eq!(
            Some(hex_root(&genesis_root).as_str()),
            a.blocks[0]["parentStateRoot"].as_str()
        );
        let meta: [(&[u8], &[u8]); 4] = [
            (b"fverkle/chain", b"none"),
            (b"fverkle/layout", b"eip6800"),
            (b"fverkle/mode", b"single"),
            (b"fverkle/genesis_root", &genesis_root),
        ];
        tree.persist_with(0, &meta).unwrap();
        let bytes32 = |v: &serde_json::Value| -> [u8; 32] {
            hex::decode(&v.as_str().unwrap()[2..])
                .unwrap()
                .try_into()
                .unwrap()
        };
        for (i, blk) in a.blocks[..4].iter().enumerate() {
            let mut writes: Vec<(TreeKey, Option<Value>)> = Vec::new();
            for s in blk["executionWitness"]["stateDiff"].as_array().unwrap() {
                let stem = hex::decode(&s["stem"].as_str().unwrap()[2..]).unwrap();
                for d in s["suffixDiffs"].as_array().unwrap() {
                    if d["newValue"].is_null() {
                        continue;
                    }
                    let mut key = [0u8; 32];
                    key[..31].copy_from_slice(&stem);
                    key[31] = d["suffix"].as_u64().unwrap() as u8;
                    writes.push((key, Some(bytes32(&d["newValue"]))));
                }
            }
            tree.apply(writes).unwrap();
            assert_eq!(tree.root_bytes(), bytes32(&blk["stateRoot"]));
            tree.persist_with(i as u64 + 1, &meta).unwrap();
        }
    }
    let copy = dir.path().join("dd-copy");
    copy_dir(&dd, &copy);
    // Blocks 1..3 have no recorded root (block 4's is the state's own); they are counted.
    let out = replay_synthetic(&dd, "single", &a.genesis, &dir.path().join("a.jsonl"));
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s = summary(&out);
    assert_eq!(s["skipped"], 4);
    assert_eq!(s["unchecked"], 3);
    assert_eq!(s["blocks"], 2);
    assert_eq!(s["root"], a.blocks[5]["stateRoot"]);
    // The run recorded block 4's root beside block 5's: blocks 1..3 stay unchecked. The
    // text summary says so too.
    let out = fverkle()
        .args(["replay", "--layout", "eip6800", "--genesis"])
        .arg(&a.genesis)
        .arg("--datadir")
        .arg(&dd)
        .arg(dir.path().join("a.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(6 skipped, 3 of them unchecked"),
        "{}",
        show(&out)
    );
    // The state's own height is checked without a recorded root: a forged block 4.
    let mut forged = a.blocks[..4].to_vec();
    forged[3]["stateRoot"] = a.blocks[4]["stateRoot"].clone();
    let ff = dir.path().join("forged.json");
    write_blocks(&ff, &forged);
    let out = replay_synthetic(&copy, "single", &a.genesis, &ff);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let r = failed(&out);
    assert_eq!(r["number"], 4);
    assert!(
        r["error"].as_str().unwrap().contains("field stateRoot"),
        "{r}"
    );
    let s = summary(&out);
    assert_eq!(s["skipped"], 3);
    assert_eq!(s["unchecked"], 3);
}

/// Copies a closed datadir (a flat RocksDB directory).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        assert!(e.file_type().unwrap().is_file(), "{}", e.path().display());
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn hex_root(r: &[u8; 32]) -> String {
    format!("0x{}", hex::encode(r))
}

#[test]
fn a_genesis_stopped_part_way_keeps_its_tree_mode() {
    let dir = tempfile::tempdir().unwrap();
    // More leaves than one write of the genesis import holds, then an account that does
    // not parse: the import stops after it has written nodes.
    let accounts = 110_000u64;
    let mut alloc = serde_json::Map::new();
    for i in 0..accounts {
        let mut a = [0u8; 20];
        a[12..].copy_from_slice(&i.to_be_bytes());
        let balance = if i + 1 == accounts {
            "0xnope".to_owned()
        } else {
            format!("0x{:x}", i + 1)
        };
        alloc.insert(hex::encode(a), serde_json::json!({ "balance": balance }));
    }
    let bad = dir.path().join("bad-genesis.json");
    std::fs::write(&bad, serde_json::json!({ "alloc": alloc }).to_string()).unwrap();
    let dd = dir.path().join("dd");
    let out = fverkle()
        .args(["genesis", "--layout", "legacy", "--datadir"])
        .arg(&dd)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped part-way"), "{err}");

    let none = dir.path().join("none.json");
    write_blocks(&none, &[]);
    let reopen = |dd: &Path, mode: &str| {
        fverkle()
            .args(["replay", "--layout", "legacy", "--mode", mode, "--genesis"])
            .arg(devnet6_genesis())
            .arg("--datadir")
            .arg(dd)
            .arg(&none)
            .output()
            .unwrap()
    };
    // As a sharded tree it is refused, naming the mode it holds.
    let out = reopen(&dd, "fractional");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fverkle/mode") && err.contains("single tree, not fractional"),
        "{err}"
    );
    // As a single tree it is named interrupted.
    let out = reopen(&dd, "single");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("interrupted genesis import"),
        "{}",
        show(&out)
    );

    // A finished genesis datadir is refused in the other mode too.
    let dd2 = dir.path().join("dd2");
    let out = fverkle()
        .args(["genesis", "--layout", "legacy", "--datadir"])
        .arg(&dd2)
        .arg(devnet6_genesis())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = reopen(&dd2, "fractional");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("fverkle/mode"),
        "{}",
        show(&out)
    );
    let out = reopen(&dd2, "single");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// `replay --mode fractional --proofs DIR` writes each block's fractional proof, named in
/// its report; each verifies against the block's pre-state root with the block's state root
/// as its post-state root, and against the coordinator root before the block with the one
/// after it (block 1 included: the chain rule's writes are in its proof).
#[test]
fn fractional_replay_writes_each_blocks_proof() {
    let dir = tempfile::tempdir().unwrap();
    let proofs = dir.path().join("proofs");
    let chain = chain_blocks();
    let blocks = dir.path().join("blocks.json");
    write_blocks(&blocks, &chain[..12]);
    let out = fverkle()
        .args([
            "--json",
            "replay",
            "--layout",
            "legacy",
            "--chain",
            "kaustinen6",
            "--mode",
            "fractional",
            "--proofs",
        ])
        .arg(&proofs)
        .arg("--genesis")
        .arg(devnet6_genesis())
        .arg(&blocks)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let reports: Vec<serde_json::Value> = json_lines(&out)
        .into_iter()
        .filter(|l| l["number"].is_u64())
        .collect();
    assert_eq!(reports.len(), 12);
    let mut coordinator_before: Option<String> = None;
    for r in &reports {
        let file = PathBuf::from(r["proof_file"].as_str().unwrap());
        assert!(file.starts_with(&proofs));
        assert_eq!(
            std::fs::metadata(&file).unwrap().len(),
            r["proof_bytes"].as_u64().unwrap()
        );
        let pre = r["pre_root"].as_str().unwrap();
        let post = r["post_root"].as_str().unwrap();
        let coordinator_after = r["coordinator_root"].as_str().unwrap().to_owned();
        let mut anchors = vec![vec![
            "--pre-root".to_owned(),
            pre.to_owned(),
            "--post-root".to_owned(),
            post.to_owned(),
        ]];
        if let Some(before) = &coordinator_before {
            anchors.push(vec![
                "--coordinator-root".to_owned(),
                before.clone(),
                "--post-coordinator-root".to_owned(),
                coordinator_after.clone(),
            ]);
        }
        for a in anchors {
            let v = fverkle()
                .args(["verify", "--fractional"])
                .args(&a)
                .arg(&file)
                .output()
                .unwrap();
            assert_eq!(
                v.status.code(),
                Some(0),
                "block {}: {a:?}: {}",
                r["number"],
                show(&v)
            );
        }
        coordinator_before = Some(coordinator_after);
    }
    // Without a sharded state there is no fractional proof to write.
    let out = fverkle()
        .args([
            "replay", "--layout", "legacy", "--mode", "single", "--proofs",
        ])
        .arg(&proofs)
        .arg("--genesis")
        .arg(devnet6_genesis())
        .arg(&blocks)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--mode fractional"));
}
