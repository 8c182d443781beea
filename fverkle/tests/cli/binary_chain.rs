//! `fverkle gen/replay/demo --tree eip7864|eip8297`: binary exports written, replayed block
//! by block, refused when edited or given to the wrong tree.

use std::path::{Path, PathBuf};

use crate::common::{fverkle, json_lines, show};

/// `gen --tree TREE [--hash HASH]` into `dir/name`: the export and the summary line.
fn gen(dir: &Path, name: &str, tree: &[&str], seed: &str) -> (PathBuf, serde_json::Value) {
    let out_path = dir.join(name);
    let out = fverkle()
        .args([
            "--json",
            "gen",
            "--blocks",
            "3",
            "--updates",
            "120",
            "--accounts",
            "1200",
        ])
        .args(["--seed", seed])
        .args(tree)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    (out_path, json_lines(&out).remove(0))
}

/// The two binary trees' `--tree` arguments.
const BINARY_TREES: [&[&str]; 2] = [&["--tree", "eip7864"], &["--tree", "eip8297"]];

/// `--json replay --genesis GENESIS TREE --datadir DATADIR FILE`.
fn replay_into(tree: &[&str], genesis: &str, datadir: &Path, file: &Path) -> std::process::Output {
    fverkle()
        .args(["--json", "replay", "--genesis", genesis])
        .args(tree)
        .arg("--datadir")
        .arg(datadir)
        .arg(file)
        .output()
        .unwrap()
}

fn replay(tree: &[&str], genesis: &str, export: &Path) -> std::process::Output {
    fverkle()
        .args(["--json", "replay", "--genesis", genesis])
        .args(tree)
        .arg(export)
        .output()
        .unwrap()
}

#[test]
fn each_binary_tree_generates_and_replays_its_chain() {
    let dir = tempfile::tempdir().unwrap();
    let trees: [&[&str]; 3] = [
        &["--tree", "eip7864"],
        &["--tree", "eip7864", "--hash", "blake3"],
        &["--tree", "eip8297"],
    ];
    let mut roots = Vec::new();
    for (i, tree) in trees.into_iter().enumerate() {
        let (a, sa) = gen(dir.path(), &format!("a{i}.jsonl"), tree, "9");
        let (b, _) = gen(dir.path(), &format!("b{i}.jsonl"), tree, "9");
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(sa["keys_written"].as_u64().unwrap() >= 360);
        let genesis = sa["genesis"].as_str().unwrap();
        let out = replay(tree, genesis, &a);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let lines = json_lines(&out);
        // The genesis line, three blocks, the summary.
        assert_eq!(lines.len(), 5, "{}", show(&out));
        for block in &lines[1..4] {
            assert_eq!(block["ok"], true);
            assert_eq!(block["post_root"], block["witness_post_root"]);
            assert!(block["proof_bytes"].as_u64().unwrap() > 0);
        }
        let summary = lines.last().unwrap();
        assert_eq!(summary["height"], 3);
        assert_eq!(summary["root"], sa["root"]);
        roots.push(sa["root"].clone());

        // The export given to the Verkle replay, or to another tree: refused at its line.
        let out = fverkle()
            .args(["replay", "--layout", "eip6800", "--genesis", genesis])
            .arg(&a)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("a{i}.jsonl: line 1")), "{err}");
        assert!(err.contains("--tree"), "{err}");
        let other: &[&str] = if i == 2 {
            &["--tree", "eip7864"]
        } else {
            &["--tree", "eip8297"]
        };
        let out = replay(other, genesis, &a);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("line 1"),
            "{}",
            show(&out)
        );
    }
    assert!(roots[0] != roots[1] && roots[1] != roots[2]);
}

#[test]
fn a_verkle_export_given_to_a_binary_replay_and_an_edited_block_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (verkle, sv) = gen(dir.path(), "v.jsonl", &[], "4");
    let genesis = sv["genesis"].as_str().unwrap().to_string();
    let out = replay(&["--tree", "eip7864"], &genesis, &verkle);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("v.jsonl: line 1") && err.contains("Verkle"),
        "{err}"
    );

    // Block 2's stateRoot edited: block 1 replays, block 2 is a mismatch with its rule.
    let (bin, sb) = gen(dir.path(), "b.jsonl", &["--tree", "eip8297"], "4");
    assert_eq!(
        sb["genesis"].as_str().unwrap(),
        format!("{}.genesis.json", bin.display())
    );
    let text = std::fs::read_to_string(&bin).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[1]["stateRoot"] = serde_json::json!(format!("0x{}", "ab".repeat(32)));
    let edited = dir.path().join("edited.jsonl");
    let body: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&edited, body.join("\n")).unwrap();
    let out = replay(
        &["--tree", "eip8297"],
        sb["genesis"].as_str().unwrap(),
        &edited,
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let reports = json_lines(&out);
    let bad: Vec<_> = reports.iter().filter(|r| r["ok"] == false).collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0]["number"], 2);
    assert_eq!(bad[0]["rule"], "replay.witness_post_root");
    assert_eq!(
        reports.last().unwrap()["height"],
        1,
        "the replay stops at block 2"
    );
}

#[test]
fn demo_runs_on_a_binary_tree() {
    for tree in ["eip7864", "eip8297"] {
        let out = fverkle()
            .args([
                "--json",
                "demo",
                "--tree",
                tree,
                "--accounts",
                "2000",
                "--blocks",
                "3",
            ])
            .args(["--updates", "200"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let lines = json_lines(&out);
        let steps: Vec<&str> = lines.iter().map(|l| l["step"].as_str().unwrap()).collect();
        assert_eq!(
            steps,
            ["gen", "replay", "prove", "summary"],
            "{}",
            show(&out)
        );
        assert_eq!(lines[1]["root"], lines[0]["root"]);
        assert_eq!(lines[2]["ok"], true);
        assert_eq!(lines[3]["ok"], true);
    }
}

/// `replay --tree eip7864 --carry` takes the Kaustinen6 export into an EIP-7864 tree: one
/// report per block with both witnesses' sizes, every block's binary witness verified, and a
/// summary; an EIP-8297 tree or no tree is refused.
#[test]
fn kaustinen6_is_carried_into_an_eip7864_tree() {
    let export = crate::common::chain_file();
    let out = fverkle()
        .args(["--json", "replay", "--tree", "eip7864", "--carry"])
        .arg(&export)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let lines = json_lines(&out);
    let (summary, blocks) = lines.split_last().unwrap();
    assert_eq!(blocks.len(), 200);
    assert_eq!(summary["blocks"], 200);
    assert_eq!(summary["tree"], "eip7864");
    assert_eq!(summary["hash"], "sha256");
    for (i, b) in blocks.iter().enumerate() {
        assert_eq!(b["number"].as_u64(), Some(i as u64 + 1), "{b}");
        assert!(b["binary_witness_bytes"].as_u64().unwrap() > 0, "{b}");
        assert!(b["verkle_witness_bytes"].as_u64().unwrap() > 0, "{b}");
        // Each block starts from the root the one before ended at.
        if i > 0 {
            assert_eq!(b["pre_root"], blocks[i - 1]["post_root"], "{b}");
        }
    }
    assert_eq!(summary["final_root"], blocks[199]["post_root"]);
    let sum = |k: &str| -> u64 { blocks.iter().map(|b| b[k].as_u64().unwrap()).sum() };
    assert_eq!(
        summary["verkle_witness_bytes"]["total"],
        sum("verkle_witness_bytes")
    );
    assert_eq!(
        summary["binary_witness_bytes"]["total"],
        sum("binary_witness_bytes")
    );

    for tree in [&["--tree", "eip8297"][..], &[][..]] {
        let refused = fverkle()
            .arg("replay")
            .args(tree)
            .arg("--carry")
            .arg(&export)
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(2), "{}", show(&refused));
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("--tree eip7864"),
            "{}",
            show(&refused)
        );
    }
}

/// `replay --tree T --datadir DIR` keeps the binary state on disk: a replay of the first two
/// blocks, then of the whole export into the same datadir (the two blocks skipped), ends at
/// the in-memory replay's root; a datadir of one tree refuses another tree and a Verkle
/// replay.
#[test]
fn a_binary_datadir_resumes_after_its_last_block() {
    let dir = tempfile::tempdir().unwrap();
    for (i, tree) in BINARY_TREES.into_iter().enumerate() {
        let (export, s) = gen(dir.path(), &format!("c{i}.jsonl"), tree, "5");
        let genesis = s["genesis"].as_str().unwrap();
        let text = std::fs::read_to_string(&export).unwrap();
        let first_two = dir.path().join(format!("c{i}-2.jsonl"));
        let two: Vec<&str> = text.lines().take(2).collect();
        std::fs::write(&first_two, two.join("\n") + "\n").unwrap();
        let datadir = dir.path().join(format!("dd{i}"));
        let into = |file: &Path| replay_into(tree, genesis, &datadir, file);
        let part = into(&first_two);
        assert_eq!(part.status.code(), Some(0), "{}", show(&part));
        assert_eq!(json_lines(&part).last().unwrap()["height"], 2);
        let rest = into(&export);
        assert_eq!(rest.status.code(), Some(0), "{}", show(&rest));
        let rest = json_lines(&rest);
        let summary = rest.last().unwrap();
        assert_eq!(summary["skipped"], 2, "{summary}");
        assert_eq!(summary["blocks"], 1, "{summary}");
        let memory = replay(tree, genesis, &export);
        let memory = json_lines(&memory);
        assert_eq!(summary["root"], memory.last().unwrap()["root"]);
        assert_eq!(summary["height"], 3);

        let other: &[&str] = if i == 0 {
            &["--tree", "eip8297"]
        } else {
            &["--tree", "eip7864"]
        };
        let wrong = fverkle()
            .args(["replay", "--genesis", genesis])
            .args(other)
            .arg("--datadir")
            .arg(&datadir)
            .arg(&export)
            .output()
            .unwrap();
        assert_eq!(wrong.status.code(), Some(2), "{}", show(&wrong));
        assert!(
            String::from_utf8_lossy(&wrong.stderr).contains("the datadir holds"),
            "{}",
            show(&wrong)
        );
        let verkle = fverkle()
            .args(["replay", "--layout", "eip6800", "--genesis", genesis])
            .arg("--datadir")
            .arg(&datadir)
            .arg(&export)
            .output()
            .unwrap();
        assert_eq!(verkle.status.code(), Some(2), "{}", show(&verkle));
        assert!(
            show(&verkle).contains("holds a binary tree"),
            "{}",
            show(&verkle)
        );
    }
}

/// `gen --tree T --state-dir DIR` keeps the generator's binary tree in a temporary datadir
/// inside DIR: the export and the genesis are byte-identical to the in-memory run's, and
/// nothing is left in DIR; a DIR that is a regular file is refused, naming it.
#[test]
fn a_binary_generator_in_a_state_dir_writes_the_in_memory_files() {
    let dir = tempfile::tempdir().unwrap();
    let gen_into = |tree: &str, name: &str, state_dir: Option<&Path>| {
        let out_path = dir.path().join(name);
        let mut cmd = fverkle();
        cmd.args(["--json", "gen", "--tree", tree])
            .args(["--blocks", "2", "--updates", "50", "--accounts", "300"])
            .args(["--seed", "3", "--out"])
            .arg(&out_path);
        if let Some(s) = state_dir {
            cmd.arg("--state-dir").arg(s);
        }
        cmd.output().unwrap()
    };
    for tree in ["eip7864", "eip8297"] {
        let memory = gen_into(tree, &format!("m-{tree}.jsonl"), None);
        assert_eq!(memory.status.code(), Some(0), "{}", show(&memory));
        let state_dir = dir.path().join(format!("state-{tree}"));
        let rocks = gen_into(tree, &format!("r-{tree}.jsonl"), Some(&state_dir));
        assert_eq!(rocks.status.code(), Some(0), "{}", show(&rocks));
        let (m, r) = (json_lines(&memory).remove(0), json_lines(&rocks).remove(0));
        assert_eq!(m["root"], r["root"]);
        assert_eq!(m["keys_written"], r["keys_written"]);
        for key in ["out", "genesis"] {
            let read = |s: &serde_json::Value| std::fs::read(s[key].as_str().unwrap()).unwrap();
            let (a, b) = (read(&m), read(&r));
            assert!(!a.is_empty(), "{tree}: {key} is empty");
            assert!(a == b, "{tree}: the {key} files differ");
        }
        let left: Vec<_> = std::fs::read_dir(&state_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{tree}: left in the state dir: {left:?}");

        let file = dir.path().join(format!("file-{tree}"));
        std::fs::write(&file, b"not a directory").unwrap();
        let refused = gen_into(tree, &format!("f-{tree}.jsonl"), Some(&file));
        assert_ne!(refused.status.code(), Some(0), "{}", show(&refused));
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains(&file.display().to_string()),
            "{}",
            show(&refused)
        );
    }
}

/// `prove --tree T --datadir DIR` proves keys against a binary datadir at its last block: the
/// witness verifies against the root the replay ended at, the genesis accounts' basic-data
/// keys are present in it, a key no account has is absent, and a write (and on EIP-8297 a
/// delete) gives a post-state root. A missing directory, a directory that holds no datadir (left empty) and a datadir of
/// another tree are errors naming the directory.
#[test]
fn a_binary_datadir_proves_keys_at_its_last_block() {
    use bintree::eip8297::keys::address32;
    use bintree::{eip7864, eip8297, Blake3, Sha256};

    let dir = tempfile::tempdir().unwrap();
    for (i, tree) in BINARY_TREES.into_iter().enumerate() {
        let (export, s) = gen(dir.path(), &format!("p{i}.jsonl"), tree, "9");
        let genesis = s["genesis"].as_str().unwrap();
        let datadir = dir.path().join(format!("pdd{i}"));
        let replayed = replay_into(tree, genesis, &datadir, &export);
        assert_eq!(replayed.status.code(), Some(0), "{}", show(&replayed));
        let root = json_lines(&replayed).last().unwrap()["root"]
            .as_str()
            .unwrap()
            .to_string();

        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(genesis).unwrap()).unwrap();
        let accounts: Vec<[u8; 20]> = doc["alloc"]
            .as_object()
            .unwrap()
            .keys()
            .take(3)
            .map(|a| {
                hex::decode(a.trim_start_matches("0x"))
                    .unwrap()
                    .try_into()
                    .unwrap()
            })
            .collect();
        let key = |a: &[u8; 20]| -> String {
            let a = address32(a);
            match i {
                0 => hex::encode(eip7864::keys::basic_data_key::<Sha256>(&a)),
                _ => hex::encode(eip8297::keys::basic_data_key::<Blake3>(&a)),
            }
        };
        let present: Vec<String> = accounts.iter().map(key).collect();
        let absent = key(&[0xee; 20]);
        let written = format!("{},{}", key(&[0xef; 20]), "00".repeat(31) + "07");
        let keys = dir.path().join(format!("keys{i}.txt"));
        let mut lines = [present.clone(), vec![absent.clone(), written]].concat();
        if i == 1 {
            // EIP-8297 deletes: the last genesis account's basic data.
            lines[2] = format!("{},delete", present[2]);
        }
        std::fs::write(&keys, lines.join("\n") + "\n").unwrap();

        let witness = dir.path().join(format!("w{i}.bin"));
        let proved = fverkle()
            .args(["--json", "prove"])
            .args(tree)
            .arg("--datadir")
            .arg(&datadir)
            .arg(&keys)
            .arg("--out")
            .arg(&witness)
            .output()
            .unwrap();
        assert_eq!(proved.status.code(), Some(0), "{}", show(&proved));
        let summary = json_lines(&proved).remove(0);
        assert_eq!(summary["pre_root"], root.as_str(), "{summary}");
        assert_eq!(summary["keys"], 5, "{summary}");

        let verify = |pre_root: &str| {
            fverkle()
                .args(["--json", "verify"])
                .args(tree)
                .args(["--pre-root", pre_root])
                .arg(&witness)
                .output()
                .unwrap()
        };
        let checked = verify(&root);
        assert_eq!(checked.status.code(), Some(0), "{}", show(&checked));
        let report = json_lines(&checked).remove(0);
        let claims = report["claims"].as_array().unwrap();
        assert_eq!(claims.len(), 5, "{report}");
        for claim in claims {
            let k = claim["key"].as_str().unwrap().trim_start_matches("0x");
            if present.iter().any(|p| p == k) {
                assert!(claim["pre_value"].is_string(), "{claim}");
            } else {
                assert!(claim["pre_value"].is_null(), "{claim}");
            }
            if k == absent {
                assert_eq!(claim["write"], "unchanged", "{claim}");
            }
            if i == 1 && k == present[2] {
                assert_eq!(claim["write"], "delete", "{claim}");
            }
        }
        assert_ne!(report["post_root"], root.as_str(), "{report}");
        let mut other = root.clone().into_bytes();
        let last = other.len() - 1;
        other[last] = if other[last] == b'0' { b'1' } else { b'0' };
        let lied = verify(std::str::from_utf8(&other).unwrap());
        assert_eq!(lied.status.code(), Some(1), "{}", show(&lied));

        let prove_in = |dd: &Path, tree: &[&str]| {
            fverkle()
                .arg("prove")
                .args(tree)
                .arg("--datadir")
                .arg(dd)
                .arg(&keys)
                .output()
                .unwrap()
        };
        let missing = prove_in(&dir.path().join("missing"), tree);
        assert_eq!(missing.status.code(), Some(2), "{}", show(&missing));
        assert!(
            show(&missing).contains("no such datadir"),
            "{}",
            show(&missing)
        );
        let empty = dir.path().join(format!("empty{i}"));
        std::fs::create_dir(&empty).unwrap();
        let not = prove_in(&empty, tree);
        assert_eq!(not.status.code(), Some(2), "{}", show(&not));
        assert!(show(&not).contains("not a datadir"), "{}", show(&not));
        assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
        let other_tree: &[&str] = if i == 0 {
            &["--tree", "eip8297"]
        } else {
            &["--tree", "eip7864"]
        };
        let wrong = prove_in(&datadir, other_tree);
        assert_eq!(wrong.status.code(), Some(2), "{}", show(&wrong));
        assert!(
            show(&wrong).contains("the datadir holds"),
            "{}",
            show(&wrong)
        );
        let verkle = fverkle()
            .args(["prove", "--datadir"])
            .arg(&datadir)
            .arg("-")
            .write_stdin(format!("{}\n", "11".repeat(32)))
            .output()
            .unwrap();
        assert_eq!(verkle.status.code(), Some(2), "{}", show(&verkle));
        assert!(
            show(&verkle).contains("holds a binary tree"),
            "{}",
            show(&verkle)
        );
    }
}
