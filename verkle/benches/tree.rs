//! Tree benchmarks, keys as rust-verkle's benches make them (so the figures compare):
//! a block's keys are `SHA-256(u32_be(i))`, initial keys `SHA-256(u32_be(i) ‖ 28 zero bytes
//! ‖ "seed")`, value = key.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use sha2::{Digest, Sha256};
use verkle::genesis::parse_leaf_csv;
use verkle::Tree;

const BLOCK: u32 = 10_000;

fn block_key(i: u32) -> [u8; 32] {
    Sha256::digest(i.to_be_bytes()).into()
}

fn initial_key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}

fn tree_with(n: u32) -> Tree {
    let mut t = Tree::new();
    let start = Instant::now();
    t.apply((0..n).map(|i| {
        let k = initial_key(i);
        (k, Some(k))
    }))
    .unwrap();
    t.commit();
    if n > 0 {
        eprintln!("built a {n}-key tree in {:?}", start.elapsed());
    }
    t
}

/// Inserts (and commits) a fresh block of 10k keys per iteration into one growing tree.
fn insert_10k(c: &mut Criterion) {
    let mut g = c.benchmark_group("insert 10k");
    g.sample_size(10);
    for initial in [0u32, 100_000, 1_000_000] {
        let mut tree = tree_with(initial);
        let mut next = 0u32;
        g.bench_function(format!("{initial} initial keys"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let keys: Vec<[u8; 32]> = (next..next + BLOCK).map(block_key).collect();
                    next += BLOCK;
                    let start = Instant::now();
                    tree.apply(keys.iter().map(|k| (*k, Some(*k)))).unwrap();
                    tree.commit();
                    total += start.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

/// The devnet6 genesis (1354 leaves) from its CSV to the root.
fn devnet6_genesis(c: &mut Criterion) {
    let dir = std::env::var_os("FVERKLE_VECTORS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors")
        });
    let path = dir.join("genesis/gen-devnet-6.csv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is missing ({e})", path.display()));
    let leaves = parse_leaf_csv(&text, "gen-devnet-6.csv").unwrap();
    c.bench_function("devnet6 genesis root from 1354 leaves", |b| {
        b.iter(|| {
            let mut t = Tree::new();
            t.apply(leaves.iter().map(|(k, v)| (*k, Some(*v)))).unwrap();
            t.root_bytes()
        })
    });
}

criterion_group!(benches, devnet6_genesis, insert_10k);
criterion_main!(benches);
