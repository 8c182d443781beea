//! Locating and reading the shared vectors; building synthetic witnesses.

use std::path::PathBuf;

use serde_json::Value;
use witness::{
    owned::{
        OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
        OwnedVerkleProof,
    },
    ExecutionWitness,
};

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
pub fn read_json(rel: &str) -> Value {
    let text = read_text(rel);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: not JSON: {e}"))
}

/// The witness files, each with the JSON Pointer of its witness object.
pub const WITNESS_FILES: [(&str, &str); 5] = [
    ("witness/valid_block_1.json", "/executionWitness"),
    ("witness/valid_block_72.json", "/executionWitness"),
    ("witness/invalid_block_72.json", "/executionWitness"),
    (
        "witness/beacon.block.15.test.json",
        "/data/message/body/execution_payload/execution_witness",
    ),
    ("witness/eest_verkleBlock.json", "/blocks/0/witness"),
];

/// The chain file.
pub const CHAIN_FILE: &str = "chain/kaustinen6_witness_chain_0001-0200.json";

/// Every real witness as (name, raw JSON witness object): the 5 witness files and the 200
/// chain blocks.
pub fn real_witness_objects() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (file, pointer) in WITNESS_FILES {
        let doc = read_json(file);
        let w = doc
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{file}: no witness at {pointer}"))
            .clone();
        out.push((file.to_owned(), w));
    }
    let chain = read_json(CHAIN_FILE);
    let blocks = chain["blocks"].as_array().expect("chain: blocks array");
    assert_eq!(blocks.len(), 200, "{CHAIN_FILE}: block count");
    for b in blocks {
        let n = b["blockNumber"].as_u64().expect("blockNumber");
        out.push((
            format!("{CHAIN_FILE} block {n}"),
            b["executionWitness"].clone(),
        ));
    }
    out
}

/// Every real witness, decoded.
pub fn real_witnesses() -> Vec<(String, ExecutionWitness)> {
    real_witness_objects()
        .into_iter()
        .map(|(name, v)| {
            let w = ExecutionWitness::from_json_value(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, w)
        })
        .collect()
}

/// A synthetic witness with `stems` stems (ascending), two suffix diffs each, one other stem
/// and two commitments per stem.
pub fn synthetic(stems: usize) -> OwnedExecutionWitness {
    let stem = |i: usize| {
        let mut s = [0u8; 31];
        s[..8].copy_from_slice(&(i as u64).to_be_bytes());
        s
    };
    let value = |i: usize, tag: u8| {
        let mut v = [tag; 32];
        v[..8].copy_from_slice(&(i as u64).to_le_bytes());
        v
    };
    OwnedExecutionWitness {
        state_diff: (0..stems)
            .map(|i| OwnedStemStateDiff {
                stem: stem(i),
                suffix_diffs: vec![
                    OwnedSuffixStateDiff {
                        suffix: 0,
                        current_value: Some(value(i, 1)),
                        new_value: None,
                    },
                    OwnedSuffixStateDiff {
                        suffix: 200,
                        current_value: None,
                        new_value: Some(value(i, 2)),
                    },
                ],
            })
            .collect(),
        verkle_proof: OwnedVerkleProof {
            other_stems: (0..stems).map(|i| stem(2 * i + 1)).collect(),
            depth_extension_present: vec![0x12; stems],
            commitments_by_path: (0..2 * stems).map(|i| value(i, 3)).collect(),
            d: [4; 32],
            ipa_proof: OwnedIpaProof {
                cl: [[5; 32]; 8],
                cr: [[6; 32]; 8],
                final_evaluation: [7; 32],
            },
        },
    }
}
