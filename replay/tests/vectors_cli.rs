//! `fverkle vectors gen` and `fverkle vectors check` end to end: byte-identical output,
//! verdicts and exit codes.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use assert_cmd::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shared() -> PathBuf {
    let p = match std::env::var_os("FVERKLE_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => workspace().join("../shared/vectors"),
    };
    assert!(
        p.is_dir(),
        "vectors directory {} is missing (set FVERKLE_VECTORS)",
        p.display()
    );
    p
}

fn fverkle() -> Command {
    Command::cargo_bin("fverkle").unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fverkle-vectors-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn gen_writes_the_committed_suite_byte_for_byte() {
    let dir = temp_dir("gen");
    let out = fverkle()
        .args(["vectors", "gen"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = workspace().join("vectors/suite");
    let mut count = 0;
    for entry in std::fs::read_dir(&committed).unwrap() {
        let name = entry.unwrap().file_name();
        let a = std::fs::read(committed.join(&name)).unwrap();
        let b = std::fs::read(dir.join(&name)).unwrap();
        assert!(a == b, "{name:?} differs");
        count += 1;
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), count);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_passes_on_our_suite_and_the_upstream_data() {
    let out = fverkle()
        .args(["vectors", "check"])
        .arg(workspace().join("vectors"))
        .arg(shared())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" 0 failed"), "{stdout}");
    assert!(
        stdout.contains("pedersen_hash_test.json: ok (10 checks)"),
        "{stdout}"
    );
    assert!(stdout.contains("held-out.bin: skipped"), "{stdout}");
}

#[test]
fn check_exits_1_on_a_wrong_vector_and_names_it() {
    let dir = temp_dir("wrong");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(workspace().join("vectors/suite/point_codec.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["cases"][1]["output"]["map_to_scalar_field"] =
        serde_json::Value::from(format!("0x{}", "00".repeat(32)));
    std::fs::write(dir.join("point_codec.json"), doc.to_string()).unwrap();
    let out = fverkle()
        .args(["--json", "vectors", "check"])
        .arg(&dir)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one file line and the summary");
    assert_eq!(lines[0]["status"], "failed");
    let detail = lines[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("case generator") && detail.contains("map_to_scalar_field"),
        "{detail}"
    );
    assert_eq!(lines[1]["failed"], 1);
}

#[test]
fn check_of_a_missing_path_is_an_input_error() {
    let out = fverkle()
        .args(["vectors", "check", "/nonexistent/fverkle-vectors"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/fverkle-vectors"));
}
