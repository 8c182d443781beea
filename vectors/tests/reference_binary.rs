//! The Python reference's binary trees (`spec/reference/binary_tree.py`, its own BLAKE3 in
//! `blake3.py`) against every root of the published binary-tree vectors, through its
//! self-test `spec/reference/test_binary_tree.py`.

use std::path::PathBuf;
use std::process::Command;

fn binary_vectors() -> PathBuf {
    let dir = match std::env::var_os("FVERKLE_BINARY_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/binary-tree"),
    };
    assert!(
        dir.join("eip8297/eels_vectors.json").is_file(),
        "binary-tree vectors missing at {}; set FVERKLE_BINARY_VECTORS",
        dir.display()
    );
    dir
}

#[test]
fn python_reference_binary_tree_roots_match_every_published_root() {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/reference/test_binary_tree.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(binary_vectors())
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{}\n{stdout}\n{stderr}",
        script.display()
    );
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: usize = summary
        .strip_suffix(" passed, 0 failed")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected summary {summary:?}"));
    // 1 BLAKE3 + 1 + 8 EIP-8297 trie roots + 5 × 120 sequence roots + 9 execution-specs roots
    // + 10 EIP-7864 BLAKE3 roots + 4 EIP-7864 SHA-256 roots.
    assert_eq!(passed, 633, "{stdout}");
}

#[test]
fn python_reference_binary_witness_reproduces_the_spec_s_worked_examples() {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/reference/test_binary_witness.py");
    let out = Command::new("python3")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: usize = summary
        .strip_suffix(" passed, 0 failed")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected summary {summary:?}"));
    assert!(passed >= 20, "{stdout}");
}
