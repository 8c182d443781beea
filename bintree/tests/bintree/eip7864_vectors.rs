//! `eip7864/blake3_vectors.json` (BLAKE3) and `eip7864/sha256_geth_vectors.json` (SHA-256).

use bintree::eip7864::{keys, Tree};
use bintree::{Blake3, Sha256, TreeHash};
use serde_json::Value;

use crate::common::{array, hex, hex_n, name, read_json, report, u256};

const BLAKE3: &str = "eip7864/blake3_vectors.json";
const SHA256: &str = "eip7864/sha256_geth_vectors.json";

/// Inserts in order, one at a time and as one batch; both roots must equal `expected_root`.
fn check_root<H: TreeHash>(file: &str, case: &Value) {
    let inserts: Vec<([u8; 32], [u8; 32])> = array(case, "inserts")
        .iter()
        .map(|i| (hex_n::<32>(&i["key"]), hex_n::<32>(&i["value"])))
        .collect();
    let expected = hex_n::<32>(&case["expected_root"]);
    let mut tree = Tree::<H>::new();
    for (key, value) in &inserts {
        tree.insert(key, value).unwrap();
    }
    assert_eq!(
        tree.root(),
        expected,
        "{file} {}: root, one write at a time",
        name(case)
    );
    let mut batch = Tree::<H>::new();
    batch.apply(inserts.iter().map(|(k, v)| (k, *v))).unwrap();
    assert_eq!(
        batch.root(),
        expected,
        "{file} {}: root, one batch",
        name(case)
    );
}

#[test]
fn blake3_roots() {
    let doc = read_json(BLAKE3);
    let cases = doc.as_array().expect("an array of cases");
    for case in cases {
        check_root::<Blake3>(BLAKE3, case);
    }
    report(BLAKE3, "roots", cases.len(), cases.len(), 0);
}

#[test]
fn sha256_geth_roots_and_keys() {
    let doc = read_json(SHA256);
    assert_eq!(doc["hash"].as_str(), Some("sha256"), "{SHA256}: hash");
    let cases = array(&doc, "tree_root_cases");
    for case in cases {
        check_root::<Sha256>(SHA256, case);
    }
    report(SHA256, "tree_root_cases", cases.len(), cases.len(), 0);
    let key_cases = array(&doc, "tree_key_cases");
    for case in key_cases {
        let mut address = [0u8; 32];
        address[12..].copy_from_slice(&hex_n::<20>(&case["address"]));
        let key = match case["kind"].as_str() {
            Some("basic_data") => keys::basic_data_key::<Sha256>(&address),
            Some("storage_slot") => {
                keys::storage_slot_key::<Sha256>(&address, &u256(&case["slot"]))
            }
            other => panic!("{SHA256} {}: unknown kind {other:?}", name(case)),
        };
        assert_eq!(
            key.to_vec(),
            hex(&case["expected_key"]),
            "{SHA256} {}",
            name(case)
        );
    }
    report(
        SHA256,
        "tree_key_cases",
        key_cases.len(),
        key_cases.len(),
        0,
    );
}
