//! Criterion benches for the witness crate, named after what a stateless client does.
//!
//! `nice -n -20 cargo bench -p witness --bench witness -- --warm-up-time 1 --measurement-time 5 --sample-size 10`
//!
//! The real witnesses come from `$FVERKLE_VECTORS` (default `<workspace>/../shared/vectors`).
//! `decode json large witness` reads `$FVERKLE_LARGE_WITNESS` (a block file holding one
//! witness, e.g. `b5.json` of `scripts/bench-large-witness.sh 5 DIR`); unset, it decodes a
//! synthetic block of 7,000 stems of the same shape instead.
//! `verify witness N openings` needs a prover that builds N-opening witnesses from a tree;
//! it waits for the tree crate.
#![allow(missing_docs)] // criterion_group! generates undocumented items
#![allow(clippy::unwrap_used)] // bench set-up: a failure is a broken bench, not input

use std::hint::black_box;
use std::path::PathBuf;

use bytes::Bytes;
use criterion::{criterion_group, Criterion};
use rand::{rngs::StdRng, Rng, SeedableRng};
use serde_json::Value;
use witness::{
    canonical::check_canonical,
    owned::{
        OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
        OwnedVerkleProof,
    },
    verify, verify_batch, ExecutionWitness, VerifiedWitness,
};

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

const CHAIN_FILE: &str = "chain/kaustinen6_witness_chain_0001-0200.json";

/// `$FVERKLE_VECTORS`, or `<workspace root>/../shared/vectors`.
fn vectors_dir() -> PathBuf {
    match std::env::var_os("FVERKLE_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    }
}

/// One block of the Kaustinen6 chain file.
struct Block {
    number: u64,
    parent_state_root: [u8; 32],
    /// The `executionWitness` object as JSON text.
    witness_json: String,
    witness: ExecutionWitness,
}

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

/// The 200 blocks of the chain file; panics naming the path when it is missing.
fn chain() -> Vec<Block> {
    let path = vectors_dir().join(CHAIN_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "vector file {} is missing or unreadable ({e}); set FVERKLE_VECTORS to the shared vectors directory",
            path.display()
        )
    });
    let doc: Value = serde_json::from_str(&text).unwrap();
    let blocks: Vec<Block> = doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let witness_json = b["executionWitness"].to_string();
            Block {
                number: b["blockNumber"].as_u64().unwrap(),
                parent_state_root: hex32(b["parentStateRoot"].as_str().unwrap()),
                witness: ExecutionWitness::from_json_str(&witness_json).unwrap(),
                witness_json,
            }
        })
        .collect();
    assert_eq!(blocks.len(), 200, "{}: block count", path.display());
    blocks
}

/// The number of commitments a block's proof carries (its verification work).
fn commitments(b: &Block) -> usize {
    b.witness.verkle_proof().commitments_by_path().len()
}

/// The block of median size by commitment count (ties by block number).
fn median_block(blocks: &[Block]) -> &Block {
    let mut by_size: Vec<&Block> = blocks.iter().collect();
    by_size.sort_by_key(|b| (commitments(b), b.number));
    by_size[by_size.len() / 2]
}

fn largest_block(blocks: &[Block]) -> &Block {
    blocks.iter().max_by_key(|b| commitments(b)).unwrap()
}

fn describe(b: &Block) -> String {
    format!(
        "block {}: {} stems, {} keys, {} commitments, {} bytes of JSON",
        b.number,
        b.witness.state_diff().len(),
        b.witness.state_diff().suffix_diff_count(),
        commitments(b),
        b.witness_json.len()
    )
}

fn verify_all(blocks: &[Block]) -> Vec<VerifiedWitness> {
    blocks
        .iter()
        .map(|b| verify(&b.parent_state_root, &b.witness).unwrap())
        .collect()
}

fn bench_verify(c: &mut Criterion) {
    let blocks = chain();
    let median = median_block(&blocks);
    let largest = largest_block(&blocks);
    eprintln!("median {}", describe(median));
    eprintln!("largest {}", describe(largest));
    let total: usize = blocks.iter().map(commitments).sum();
    eprintln!("blocks 1..200: {total} commitments in all");

    c.bench_function("verify kaustinen6 blocks 1..200", |b| {
        b.iter(|| {
            for block in &blocks {
                black_box(verify(&block.parent_state_root, black_box(&block.witness)).unwrap());
            }
        })
    });
    let items: Vec<(&[u8; 32], &ExecutionWitness)> = blocks
        .iter()
        .map(|b| (&b.parent_state_root, &b.witness))
        .collect();
    c.bench_function("verify kaustinen6 blocks 1..200 as one batch", |b| {
        b.iter(|| {
            for r in verify_batch(black_box(&items)) {
                black_box(r.unwrap());
            }
        })
    });
    for (label, block) in [("median block", median), ("largest block", largest)] {
        c.bench_function(&format!("verify kaustinen6 block ({label})"), |b| {
            b.iter(|| verify(&block.parent_state_root, black_box(&block.witness)).unwrap())
        });
    }

    let verified = verify_all(&blocks);
    c.bench_function("post-state root kaustinen6 blocks 1..200", |b| {
        b.iter(|| {
            for v in &verified {
                black_box(v.post_state_root().unwrap());
            }
        })
    });
}

/// Decoding and the canonical-form checks, to compare with `verify kaustinen6 blocks 1..200`
/// (their share of verification).
fn bench_decode_share(c: &mut Criterion) {
    let blocks = chain();
    let ssz: Vec<Bytes> = blocks.iter().map(|b| b.witness.as_ssz().clone()).collect();
    c.bench_function("decode ssz kaustinen6 blocks 1..200", |b| {
        b.iter(|| {
            for bytes in &ssz {
                black_box(ExecutionWitness::from_ssz(bytes.clone()).unwrap());
            }
        })
    });
    c.bench_function("check canonical kaustinen6 blocks 1..200", |b| {
        b.iter(|| {
            for block in &blocks {
                check_canonical(black_box(&block.witness)).unwrap();
            }
        })
    });
    c.bench_function(
        "decode ssz + check canonical kaustinen6 blocks 1..200",
        |b| {
            b.iter(|| {
                for bytes in &ssz {
                    let w = ExecutionWitness::from_ssz(bytes.clone()).unwrap();
                    check_canonical(&w).unwrap();
                    black_box(w);
                }
            })
        },
    );
    let median = median_block(&blocks);
    c.bench_function("decode json kaustinen6 block", |b| {
        b.iter(|| ExecutionWitness::from_json_str(black_box(&median.witness_json)).unwrap())
    });
}

/// A witness with `stems` random stems (ascending), each with two suffix diffs, and two
/// commitments per stem: a realistic layout for the decoder (the proof is not valid).
fn synthetic(stems: usize) -> OwnedExecutionWitness {
    let mut rng = StdRng::seed_from_u64(10_000);
    let mut stem_list: Vec<[u8; 31]> = (0..stems).map(|_| rng.gen()).collect();
    stem_list.sort_unstable();
    stem_list.dedup();
    let state_diff = stem_list
        .iter()
        .map(|&stem| OwnedStemStateDiff {
            stem,
            suffix_diffs: vec![
                OwnedSuffixStateDiff {
                    suffix: 0,
                    current_value: Some(rng.gen()),
                    new_value: Some(rng.gen()),
                },
                OwnedSuffixStateDiff {
                    suffix: 64,
                    current_value: None,
                    new_value: Some(rng.gen()),
                },
            ],
        })
        .collect();
    OwnedExecutionWitness {
        state_diff,
        verkle_proof: OwnedVerkleProof {
            other_stems: Vec::new(),
            depth_extension_present: vec![(3 << 3) | 2; stem_list.len()],
            commitments_by_path: (0..2 * stem_list.len()).map(|_| rng.gen()).collect(),
            d: rng.gen(),
            ipa_proof: OwnedIpaProof {
                cl: rng.gen(),
                cr: rng.gen(),
                final_evaluation: [1; 32],
            },
        },
    }
}

fn bench_decode_synthetic(c: &mut Criterion) {
    let bytes = Bytes::from(synthetic(10_000).to_ssz().unwrap());
    eprintln!("synthetic 10k-stem witness: {} bytes of SSZ", bytes.len());
    c.bench_function("decode ssz witness 10k stems", |b| {
        b.iter(|| ExecutionWitness::from_ssz(black_box(bytes.clone())).unwrap())
    });
}

/// The JSON text of `$FVERKLE_LARGE_WITNESS`, or a synthetic block of 7,000 stems (two suffix
/// diffs and two commitments each) written as go-verkle does; with a label saying which.
fn large_witness_json() -> (String, String) {
    if let Some(path) = std::env::var_os("FVERKLE_LARGE_WITNESS") {
        let path = PathBuf::from(path);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("FVERKLE_LARGE_WITNESS={}: unreadable ({e})", path.display())
        });
        return (path.display().to_string(), text);
    }
    let w = synthetic(7_000).to_witness().unwrap();
    let block = serde_json::json!({"blockNumber": 5, "executionWitness": w.to_json_value()});
    ("synthetic 7k stems".to_owned(), block.to_string())
}

/// Decoding a large block's witness from JSON text, as `fverkle verify` does (the text is
/// already in memory), and from a document parsed beforehand.
fn bench_decode_json_large(c: &mut Criterion) {
    let (source, text) = large_witness_json();
    let w = ExecutionWitness::from_json_str(&text).unwrap();
    eprintln!(
        "large witness ({source}): {} stems, {} keys, {} commitments, {} bytes of JSON",
        w.state_diff().len(),
        w.state_diff().suffix_diff_count(),
        w.verkle_proof().commitments_by_path().len(),
        text.len()
    );
    c.bench_function("decode json large witness", |b| {
        b.iter(|| ExecutionWitness::from_json_str(black_box(&text)).unwrap())
    });
    let doc: Value = serde_json::from_str(&text).unwrap();
    c.bench_function("decode json large witness (parsed document)", |b| {
        b.iter(|| ExecutionWitness::from_json_value(black_box(&doc)).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_verify, bench_decode_share, bench_decode_synthetic, bench_decode_json_large
}

fn main() {
    field_env::field_backend_from_env();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
