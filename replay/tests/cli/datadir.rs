//! Datadirs: `genesis --datadir`, resume, kill -9 at random moments, refusal of a datadir
//! made for another chain or layout, nothing written for a failed block, `prove`.

use std::path::Path;
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

    // Resume over the whole chain: 31 skipped, the rest applied, the chain's final root.
    let out = replay(&dd, "kaustinen6", "legacy", &chain_file());
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let s = summary(&out);
    assert_eq!(s["skipped"], 31);
    assert_eq!(s["blocks"], 169);
    assert_eq!(s["root"], blocks[199]["stateRoot"]);
}

#[test]
fn kill_9_at_random_moments_then_resume_reaches_the_same_roots() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let dd = dir.path().join("dd");
    let bin = assert_cmd::cargo::cargo_bin("fverkle");
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
    let mut kills = Vec::new();
    let mut applied_before_kills = 0u64;
    for round in 0..4 {
        let mut child = std::process::Command::new(&bin)
            .args([
                "--json",
                "replay",
                "--layout",
                "legacy",
                "--chain",
                "kaustinen6",
                "--genesis",
            ])
            .arg(devnet6_genesis())
            .arg("--datadir")
            .arg(&dd)
            .arg(chain_file())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kept open until the kill: closing it would end the run through a broken pipe.
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        if round == 0 {
            // Somewhere in start-up or the genesis import.
            let ms = 50 + next(400);
            std::thread::sleep(Duration::from_millis(ms));
            kills.push(format!("{ms} ms"));
        } else {
            // After k more blocks were reported (each is persisted before its report), plus
            // a few milliseconds: mid-block, mid-commit or mid-write.
            let k = 1 + next(40);
            let ms = next(30);
            let mut seen = 0;
            while seen < k {
                let Some(line) = lines.next() else { break };
                if line.unwrap().contains("\"number\"") {
                    seen += 1;
                }
            }
            assert_eq!(seen, k, "the run ended before {k} blocks");
            applied_before_kills += k;
            std::thread::sleep(Duration::from_millis(ms));
            kills.push(format!("{k} blocks + {ms} ms"));
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        drop(lines);
        assert_eq!(
            status.code(),
            None,
            "killed by a signal, kills at {kills:?}"
        );
    }
    let out = replay(&dd, "kaustinen6", "legacy", &chain_file());
    assert_eq!(
        out.status.code(),
        Some(0),
        "kills at {kills:?}: {}",
        show(&out)
    );
    let blocks = chain_blocks();
    let lines = json_lines(&out);
    // Every block applied after the kills matched its stateRoot; the final root is the chain's.
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
    assert_eq!(s["height"], 200, "kills at {kills:?}");
    assert_eq!(s["root"], blocks[199]["stateRoot"], "kills at {kills:?}");
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

    // A fractional proof of block 61's keys verifies against the reported coordinator root.
    let lines = json_lines(&out);
    let coordinator = lines
        .iter()
        .rev()
        .find_map(|l| l["coordinator_root"].as_str())
        .unwrap()
        .to_string();
    let mut keys = String::new();
    for s in chain[60]["executionWitness"]["stateDiff"]
        .as_array()
        .unwrap()
    {
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
    let pf = dir.path().join("p.bin");
    let out = fverkle()
        .args(["prove", "--fractional", "--format", "ssz", "--datadir"])
        .arg(&dd)
        .arg(&kf)
        .arg("--out")
        .arg(&pf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let c: [u8; 32] = hex::decode(&coordinator[2..]).unwrap().try_into().unwrap();
    let verified = witness::fractional::verify_fractional_bytes(
        &c,
        bytes::Bytes::from(std::fs::read(&pf).unwrap()),
    )
    .unwrap();
    assert!(!verified.shards().is_empty());
    let mut wrong = c;
    wrong[0] ^= 1;
    assert!(witness::fractional::verify_fractional_bytes(
        &wrong,
        bytes::Bytes::from(std::fs::read(&pf).unwrap())
    )
    .is_err());
}
