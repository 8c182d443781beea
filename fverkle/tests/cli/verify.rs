//! `fverkle verify`, `root` and `genesis`: verdicts, exit codes, JSON output.

use crate::common::{fverkle, json_lines, show, vectors};

const ROOT_72: &str = "0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510";

#[test]
fn valid_witness_exits_0() {
    let f = vectors().join("witness/valid_block_72.json");
    let out = fverkle()
        .args(["verify", "--pre-root", ROOT_72])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("valid (5 stems"));
}

#[test]
fn invalid_witness_exits_1_with_json_reason() {
    let f = vectors().join("witness/invalid_block_72.json");
    let out = fverkle()
        .args(["--json", "verify", "--pre-root", ROOT_72])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["ok"], false);
    assert!(line["error"].as_str().unwrap().contains("multiproof"));
}

#[test]
fn post_root_is_checked() {
    let f = vectors().join("witness/eest_verkleBlock.json");
    let pre = "0x3901899f4bfd31a5d77611f70c4eb98cffdbbe5280fba656631f04336afe6f5a";
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let post = doc
        .pointer("/blocks/0/blockHeader/stateRoot")
        .and_then(|v| v.as_str())
        .expect("fixture has blocks[0].blockHeader.stateRoot")
        .to_string();
    let ok = fverkle()
        .args(["verify", "--pre-root", pre, "--post-root", &post])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    let wrong = fverkle()
        .args(["verify", "--pre-root", pre, "--post-root", ROOT_72])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&wrong.stdout).contains("post-state root mismatch"));
}

/// `--json` sizes the witness (its SSZ encoding, the proof part) and times the post-state root
/// only when `--post-root` asks for it.
#[test]
fn json_gives_sizes_and_the_post_state_time() {
    let f = vectors().join("witness/eest_verkleBlock.json");
    let pre = "0x3901899f4bfd31a5d77611f70c4eb98cffdbbe5280fba656631f04336afe6f5a";
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let post = doc
        .pointer("/blocks/0/blockHeader/stateRoot")
        .and_then(|v| v.as_str())
        .expect("fixture has blocks[0].blockHeader.stateRoot")
        .to_string();
    let run = |extra: &[&str]| {
        let out = fverkle()
            .args(["--json", "verify", "--pre-root", pre])
            .args(extra)
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        json_lines(&out).remove(0)
    };
    let plain = run(&[]);
    let with_post = run(&["--post-root", &post]);
    assert!(plain["post_state_us"].is_null(), "{plain}");
    assert!(with_post["post_state_us"].is_u64(), "{with_post}");
    assert_eq!(with_post["post_root"].as_str(), Some(post.as_str()));
    for line in [&plain, &with_post] {
        let ssz = line["ssz_bytes"].as_u64().unwrap();
        let proof = line["proof_bytes"].as_u64().unwrap();
        // The proof holds at least its fixed part (the IPA proof, D and the counts); the
        // witness holds the proof and the state diff; the JSON file is larger still.
        assert!(proof >= 588 && proof < ssz, "{line}");
        assert!(ssz < line["witness_bytes"].as_u64().unwrap(), "{line}");
    }
}

#[test]
fn stdin_is_read_for_dash() {
    let f = vectors().join("witness/valid_block_72.json");
    let out = fverkle()
        .args(["verify", "--pre-root", ROOT_72, "-"])
        .write_stdin(std::fs::read(f).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bad_input_exits_2_and_names_the_file() {
    let out = fverkle()
        .args(["verify", "--pre-root", ROOT_72, "/nonexistent/w.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/w.json"));

    let out = fverkle()
        .args(["verify", "--pre-root", "0x12", "x.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let dir = std::env::temp_dir().join(format!("fverkle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbled = dir.join("garbled.json");
    std::fs::write(&garbled, b"{\"executionWitness\": {\"stateDiff\": [").unwrap();
    let out = fverkle()
        .args(["verify", "--pre-root", ROOT_72])
        .arg(&garbled)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("garbled.json"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `{"<100,000 × a>": [[], [], … 100,000 times]}`: about 400 KB that a search copying the
/// path per sibling turns into 10 GB. Run under a 2 GiB address-space limit, the search must
/// finish with the ordinary "not found" verdict.
#[test]
fn witness_search_bomb_is_not_found_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.json");
    let mut text = format!("{{\"{}\": [", "a".repeat(100_000));
    text.push_str(&vec!["[]"; 100_000].join(", "));
    text.push_str("]}");
    std::fs::write(&bomb, &text).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("fverkle");
    let pre_root = format!("0x{}", "00".repeat(32));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 2097152 && exec "$0" "$@""#)
        .arg(&bin)
        .args(["verify", "--pre-root", &pre_root])
        .arg(&bomb)
        .output()
        .unwrap();
    let shown = show(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no execution witness found"), "{shown}");
    assert!(stderr.contains("bomb.json"), "{shown}");
}

#[test]
fn root_prints_devnet7_roots_in_order() {
    let g = vectors().join("genesis");
    let out = fverkle()
        .arg("root")
        .arg("--csv")
        .args(
            [
                "gen-devnet-7.csv",
                "devnet-7-block-1.csv",
                "devnet-7-block-2.csv",
                "devnet-7-block-3.csv",
            ]
            .map(|f| g.join(f)),
        )
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let roots: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(
        roots,
        [
            "0x514a0e5715b0b6c635ac140a5f25b8665af36cf31836344d27d9645fc57eab76",
            "0x5ac6bdb5f3dc47cfa7665c981f795a1116459dfeecde174433d14d710c433cc4",
            "0x2a63a94a9cb5dc948f98bd9a18cd4db0214adbc7cef2297a5f84362b14cb6513",
            "0x4818200283aff9e7fd8a788c28bd6e54a6545a6f3af9e8d75a784c43a4b75fbe",
        ]
    );
}

#[test]
fn genesis_prints_devnet6_root_and_rejects_bad_csv() {
    let g = vectors().join("genesis/devnet6_genesis.json");
    let out = fverkle()
        .args(["genesis", "--layout", "legacy"])
        .arg(&g)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0x1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee"
    );
    let dir = std::env::temp_dir().join(format!("fverkle-cli-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "0x00,0x01\nnot-hex,0x02\n").unwrap();
    let out = fverkle()
        .arg("root")
        .arg("--csv")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.csv") && err.contains("line 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
