//! Locating and reading the shared vectors; small helpers.

use std::path::PathBuf;

use serde_json::Value as Json;
use verkle::keys::{TreeKey, Value};
use verkle::Tree;

/// `$FVERKLE_VECTORS`, or `<workspace root>/../shared/vectors`.
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("FVERKLE_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    }
}

/// Reads a vector file; a missing file fails the test, naming the path.
pub fn read_text(rel: &str) -> String {
    let path = vectors_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "vector file {} is missing or unreadable ({e}); set FVERKLE_VECTORS to the shared vectors directory",
            path.display()
        )
    })
}

/// Reads and parses a vector file.
pub fn read_json(rel: &str) -> Json {
    serde_json::from_str(&read_text(rel)).unwrap_or_else(|e| panic!("{rel}: not JSON: {e}"))
}

/// Hex (with or without `0x`) to bytes.
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim_start_matches("0x")).unwrap_or_else(|e| panic!("bad hex {s}: {e}"))
}

/// Hex to exactly 32 bytes.
pub fn h32(s: &str) -> [u8; 32] {
    unhex(s).try_into().unwrap()
}

/// `0x`-prefixed lowercase hex.
pub fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

/// A tree holding exactly `leaves`, built in one batch.
pub fn tree_of(leaves: &[(TreeKey, Value)]) -> Tree {
    let mut t = Tree::new();
    t.apply(leaves.iter().map(|(k, v)| (*k, Some(*v)))).unwrap();
    t
}
