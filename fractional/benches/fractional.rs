//! Fractional-tree benchmarks (`BENCHMARKS.md`, "Fractional"). Keys as the `verkle` benches
//! make them: initial keys `SHA-256(u32_be(i) ‖ 28 zero bytes ‖ "seed")`, block keys
//! `SHA-256(u32_be(i))`. The state size is `FRACTIONAL_BENCH_KEYS` (default 100,000; the
//! issue's 1M takes long to build on 2 cores), built once per run in the setup.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use fractional::coordinator::Coordinator;
use fractional::{ShardConfig, ShardedTree};
use sha2::{Digest, Sha256};
use verkle::Tree;
use witness::fractional::{verify_fractional, FractionalProof};

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

fn state_keys() -> u32 {
    std::env::var("FRACTIONAL_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn initial_writes(n: u32) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    (0..n)
        .map(|i| (initial_key(i), Some(initial_key(i))))
        .collect()
}

/// Block `round`: the same 10k keys, values changing every round.
fn block(round: u32) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    (0..BLOCK)
        .map(|i| {
            let mut v = block_key(i);
            v[..4].copy_from_slice(&round.to_be_bytes());
            (block_key(i), Some(v))
        })
        .collect()
}

fn apply_bench(c: &mut Criterion) {
    let n = state_keys();
    let threads = rayon::current_num_threads();
    let dir = std::env::temp_dir().join(format!("fverkle-frac-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut sharded = ShardedTree::open(&dir, ShardConfig::default()).unwrap();
    let start = Instant::now();
    sharded.apply(&initial_writes(n)).unwrap();
    sharded.persist(0, &[]).unwrap();
    eprintln!(
        "built and persisted a {n}-key sharded tree in {:?}",
        start.elapsed()
    );
    let mut single = Tree::new();
    single.apply(initial_writes(n)).unwrap();
    single.commit();

    let mut g = c.benchmark_group("fractional");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let mut round = 1u32;
    g.bench_function(
        format!("apply 10k-update block on {n} keys (256 shards, RocksDB, {threads} threads)"),
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let w = block(round);
                    round += 1;
                    let t = Instant::now();
                    sharded.apply(&w).unwrap();
                    total += t.elapsed();
                    sharded.persist(u64::from(round), &[]).unwrap();
                }
                total
            })
        },
    );
    let mut round = 1u32;
    g.bench_function(
        format!("single tree: apply+commit 10k-update block on {n} keys ({threads} threads)"),
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let w = block(round);
                    round += 1;
                    let t = Instant::now();
                    single.apply(w).unwrap();
                    single.commit();
                    total += t.elapsed();
                }
                total
            })
        },
    );
    g.finish();
    drop(sharded);
    let _ = std::fs::remove_dir_all(&dir);
}

fn coordinator_bench(c: &mut Criterion) {
    // A 10k-update block on a large state touches all 256 shards.
    let mut coordinator = Coordinator::empty(256);
    let mut round = 0u8;
    c.bench_function(
        "coordinator root update after a 10k-update block (256 shards)",
        |b| {
            b.iter(|| {
                round = round.wrapping_add(1);
                let changed: Vec<(u16, [u8; 32])> = (0..256u16).map(|i| (i, [round; 32])).collect();
                coordinator.update(&changed);
                coordinator.root()
            })
        },
    );
}

fn proof_benches(c: &mut Criterion) {
    let n = state_keys();
    let mut sharded = ShardedTree::in_memory(ShardConfig::default());
    sharded.apply(&initial_writes(n)).unwrap();
    let root = sharded.coordinator_root();
    for count in [1u32, 10, 100, 1000] {
        let keys: Vec<[u8; 32]> = (0..count).map(initial_key).collect();
        let frac = sharded.prove_fractional(&keys).unwrap().to_bytes().len();
        let standard = sharded.prove(&keys).unwrap().to_ssz().unwrap().len();
        eprintln!("proof size, {count} keys on {n}: fractional {frac} bytes, standard witness (SSZ) {standard} bytes");
    }
    let mut g = c.benchmark_group("fractional");
    g.sample_size(10);
    for count in [1u32, 1000] {
        let keys: Vec<[u8; 32]> = (0..count).map(initial_key).collect();
        let bytes = Bytes::from(sharded.prove_fractional(&keys).unwrap().to_bytes());
        g.bench_function(format!("verify_fractional {count} keys"), |b| {
            b.iter(|| {
                let p = FractionalProof::from_bytes(bytes.clone()).unwrap();
                verify_fractional(&root, &p).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, coordinator_bench, proof_benches, apply_bench);
criterion_main!(benches);
