//! Locating the shared vectors and running the binary.

use std::path::PathBuf;

use assert_cmd::Command;

/// `$FVERKLE_VECTORS`, or `../shared/vectors` from the workspace root; fails naming the path.
pub fn vectors() -> PathBuf {
    let p = match std::env::var_os("FVERKLE_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    };
    assert!(
        p.is_dir(),
        "vectors directory {} is missing (set FVERKLE_VECTORS)",
        p.display()
    );
    p
}

/// The Kaustinen6 chain export (blocks 1..200).
pub fn chain_file() -> PathBuf {
    let p = vectors().join("chain/kaustinen6_witness_chain_0001-0200.json");
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// The devnet6 genesis.
pub fn devnet6_genesis() -> PathBuf {
    let p = vectors().join("genesis/devnet6_genesis.json");
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// The binary under test.
pub fn fverkle() -> Command {
    Command::cargo_bin("fverkle").unwrap()
}

/// The chain file's blocks as JSON values.
pub fn chain_blocks() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(chain_file()).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["blocks"].as_array_mut().unwrap().drain(..).collect()
}

/// Output as text, for assertion messages.
pub fn show(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The JSON Lines of stdout.
pub fn json_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// `$FVERKLE_BINARY_VECTORS`, or `../shared/binary-tree` from the workspace root: the
/// published binary-tree vectors (EIP-8297, EIP-7864).
pub fn binary_vectors() -> PathBuf {
    match std::env::var_os("FVERKLE_BINARY_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/binary-tree"),
    }
}

/// A binary-tree vector file (`rel` under [`binary_vectors`]) as JSON; a missing file fails
/// the test, naming the path.
pub fn binary_vector_json(rel: &str) -> serde_json::Value {
    let path = binary_vectors().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "binary-tree vector file {} is missing or unreadable ({e}); set \
             FVERKLE_BINARY_VECTORS to the binary-tree vectors directory",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}
