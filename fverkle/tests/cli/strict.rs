//! `fverkle verify` on witnesses a hostile prover builds (`spec/WIRE.md` §6.6): the identity
//! as an internal node is invalid; a leaf posing as an internal node verifies, is reported
//! with `unbound_absences`, and is invalid under `--strict`.

use witness::hostile::{identity_internal_node, leaf_posing_as_internal, Hostile};

use crate::common::{fverkle, json_lines, show, vectors};

/// Writes the hostile witness as go-verkle JSON; returns the file and the pre-state root.
fn write(h: &Hostile, dir: &tempfile::TempDir, name: &str) -> (std::path::PathBuf, String) {
    let path = dir.path().join(name);
    let w = h.witness.to_witness().unwrap();
    std::fs::write(&path, w.to_json_string()).unwrap();
    (path, format!("0x{}", hex::encode(h.pre_state_root)))
}

#[test]
fn identity_internal_node_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let (f, root) = write(&identity_internal_node(), &dir, "identity.json");
    let out = fverkle()
        .args(["--json", "verify", "--pre-root", &root])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let line = &json_lines(&out)[0];
    assert_eq!(line["ok"], false);
    let error = line["error"].as_str().unwrap();
    assert!(error.contains("is the identity"), "{error}");
}

#[test]
fn unbound_absence_is_reported_and_rejected_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let h = leaf_posing_as_internal(2);
    let (f, root) = write(&h, &dir, "posing.json");
    let post = format!("0x{}", hex::encode(h.canonical_post_state_root));

    let out = fverkle()
        .args(["--json", "verify", "--pre-root", &root])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let line = &json_lines(&out)[0];
    assert_eq!(line["ok"], true);
    assert_eq!(line["unbound_absences"], 1);
    assert_eq!(line["unbound_writes"], 1);

    let text = fverkle()
        .args(["verify", "--pre-root", &root])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(0), "{}", show(&text));
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("1 unbound absences"),
        "{}",
        show(&text)
    );

    let strict = fverkle()
        .args(["--json", "verify", "--strict", "--pre-root", &root])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1), "{}", show(&strict));
    let line = &json_lines(&strict)[0];
    assert_eq!(line["ok"], false);
    assert!(line["error"].as_str().unwrap().contains("--strict"));

    // The post-state root it leads to is not what a full node computes.
    let post_checked = fverkle()
        .args(["verify", "--pre-root", &root, "--post-root", &post])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(
        post_checked.status.code(),
        Some(1),
        "{}",
        show(&post_checked)
    );
}

#[test]
fn real_witness_has_a_zero_count_and_passes_strict_when_bound() {
    let f = vectors().join("witness/valid_block_72.json");
    let root = "0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510";
    let out = fverkle()
        .args(["--json", "verify", "--pre-root", root])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let line = &json_lines(&out)[0];
    let unbound = line["unbound_absences"].as_u64().unwrap();
    let strict = fverkle()
        .args(["verify", "--strict", "--pre-root", root])
        .arg(&f)
        .output()
        .unwrap();
    let expected = if unbound == 0 { 0 } else { 1 };
    assert_eq!(strict.status.code(), Some(expected), "{}", show(&strict));
}

/// Blocks of a `gen` export (JSON Lines) as (parent root, witness).
fn export_witnesses(path: &std::path::Path) -> Vec<([u8; 32], witness::ExecutionWitness)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let b: serde_json::Value = serde_json::from_str(line).unwrap();
            let root = b["parentStateRoot"].as_str().unwrap();
            let root: [u8; 32] = hex::decode(&root[2..]).unwrap().try_into().unwrap();
            let w = witness::ExecutionWitness::from_json_value(&b).unwrap();
            (root, w)
        })
        .collect()
}

fn unbound_per_block(path: &std::path::Path) -> Vec<usize> {
    export_witnesses(path)
        .iter()
        .map(|(root, w)| witness::verify(root, w).unwrap().unbound_absences())
        .collect()
}

#[test]
fn gen_and_prove_bind_absences() {
    let dir = tempfile::tempdir().unwrap();
    let gen = |name: &str, bind: bool| {
        let out_path = dir.path().join(name);
        let mut cmd = fverkle();
        cmd.args([
            "--json",
            "gen",
            "--blocks",
            "3",
            "--updates",
            "150",
            "--accounts",
            "1500",
            "--seed",
            "4",
            "--out",
        ])
        .arg(&out_path);
        if bind {
            cmd.arg("--bind-absences");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        (out_path, json_lines(&out).remove(0))
    };
    let (plain, sp) = gen("plain.jsonl", false);
    let (bound, sb) = gen("bound.jsonl", true);
    assert_eq!(sp["root"], sb["root"], "the same chain either way");
    let plain_unbound = unbound_per_block(&plain);
    assert!(
        plain_unbound.iter().sum::<usize>() > 0,
        "this chain's plain witnesses have unbound absences: {plain_unbound:?}"
    );
    assert_eq!(unbound_per_block(&bound), vec![0; 3]);
    let out = fverkle()
        .args(["--json", "replay", "--layout", "eip6800", "--genesis"])
        .arg(sb["genesis"].as_str().unwrap())
        .arg(&bound)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(json_lines(&out).last().unwrap()["root"], sb["root"]);

    // `prove --bind-absences` from a datadir at that chain's genesis.
    let dd = dir.path().join("dd");
    let out = fverkle()
        .args(["genesis", "--layout", "eip6800", "--datadir"])
        .arg(&dd)
        .arg(sb["genesis"].as_str().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    // Keys of absent stems all over the tree.
    let keys: String = (0u8..16)
        .map(|i| format!("0x{:02x}{:02x}{}\n", i * 16 + 3, i * 7 + 1, "5a".repeat(30)))
        .collect();
    let kf = dir.path().join("keys.txt");
    std::fs::write(&kf, keys).unwrap();
    let prove = |name: &str, bind: bool| {
        let wf = dir.path().join(name);
        let mut cmd = fverkle();
        cmd.args(["prove", "--datadir"])
            .arg(&dd)
            .arg(&kf)
            .arg("--out")
            .arg(&wf);
        if bind {
            cmd.arg("--bind-absences");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let out = fverkle()
            .args(["--json", "verify", "--strict", "--pre-root", &root])
            .arg(&wf)
            .output()
            .unwrap();
        (out.status.code(), json_lines(&out).remove(0))
    };
    let (code, line) = prove("plain.json", false);
    assert_eq!(code, Some(1), "{line}");
    assert!(line["unbound_absences"].as_u64().unwrap() > 0);
    let (code, line) = prove("bound.json", true);
    assert_eq!(code, Some(0), "{line}");
    assert_eq!(line["unbound_absences"], 0);
    assert!(
        line["keys"].as_u64().unwrap() > 16,
        "binding reads were added: {line}"
    );
}
