//! Fractional-tree benchmarks (`BENCHMARKS.md`, "Fractional"). Keys as the `verkle` benches
//! make them: state keys `SHA-256(u32_be(i) ‖ 28 zero bytes ‖ "seed")`, each its own value.
//!
//! The apply benches run on an on-disk state of `FRACTIONAL_BENCH_KEYS` keys (default
//! 100,000; the figure is 1,000,000) held twice under `FRACTIONAL_BENCH_STATE`
//! (default `/tmp/fverkle-frac-state-<keys>`): `sharded/` (256 shards) and `single/` (one
//! `verkle::Tree`), both RocksDB-backed with the same node budget `FRACTIONAL_BENCH_CACHE`
//! (default 200,000 nodes). The state is built on the first run and reused afterwards
//! (every timed block is persisted, untimed, so later runs continue at the stored height).
//! Both databases are opened with memory-mapped reads ([`RocksConfig::mmap_reads`]); each
//! bench opens only its own tree, so the other database's background work does not run
//! beside it.
//! A block updates 10k existing keys spread over the state, the same block for both trees.
//! Setups only run when a bench of theirs passes the filter.
#![allow(missing_docs, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use fractional::coordinator::Coordinator;
use fractional::{ShardConfig, ShardedTree};
use sha2::{Digest, Sha256};
use verkle::store::{RocksConfig, RocksStore};
use verkle::{Tree, TreeConfig};
use witness::fractional::{verify_fractional, Anchor, FractionalProof};

const BLOCK: u32 = 10_000;
const BUILD_CHUNK: u32 = 100_000;

fn initial_key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}

fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn state_keys() -> u32 {
    env_u32("FRACTIONAL_BENCH_KEYS", 100_000)
}

fn cache_nodes() -> usize {
    env_u32("FRACTIONAL_BENCH_CACHE", 200_000) as usize
}

fn state_dir(n: u32) -> PathBuf {
    std::env::var_os("FRACTIONAL_BENCH_STATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(format!("fverkle-frac-state-{n}")))
}

fn chunk(from: u32, to: u32) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    (from..to)
        .map(|i| (initial_key(i), Some(initial_key(i))))
        .collect()
}

/// Block `round` of a state of `n` keys: 10k existing keys spread over the state, new values.
fn block(round: u64, n: u32) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    let r = round as u32;
    (0..BLOCK)
        .map(|i| {
            let j = (r.wrapping_mul(BLOCK).wrapping_add(i)).wrapping_mul(97) % n;
            let mut v = initial_key(j);
            v[..8].copy_from_slice(&round.to_be_bytes());
            (initial_key(j), Some(v))
        })
        .collect()
}

fn sharded_config() -> ShardConfig {
    ShardConfig {
        cache_nodes: cache_nodes(),
        ..ShardConfig::default()
    }
}

fn rocks_config() -> RocksConfig {
    RocksConfig {
        mmap_reads: true,
        ..RocksConfig::default()
    }
}

fn open_sharded(dir: &Path) -> ShardedTree {
    ShardedTree::open_with(dir, sharded_config(), &rocks_config()).unwrap()
}

fn open_single(dir: &Path) -> Tree<RocksStore> {
    Tree::open_with(
        RocksStore::open_with(dir, &rocks_config()).unwrap(),
        TreeConfig::nodes(cache_nodes()),
    )
    .unwrap()
}

/// Builds both states if `<dir>/built` is missing; returns the directory.
fn build_states(n: u32) -> PathBuf {
    let dir = state_dir(n);
    let marker = dir.join("built");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let start = Instant::now();
        let mut sharded = open_sharded(&dir.join("sharded"));
        let mut single = open_single(&dir.join("single"));
        let mut from = 0;
        while from < n {
            let to = n.min(from + BUILD_CHUNK);
            let w = chunk(from, to);
            sharded.apply(&w).unwrap();
            sharded.persist(0, &[]).unwrap();
            single.apply(w).unwrap();
            single.persist_with(0, &[]).unwrap();
            from = to;
        }
        assert_eq!(sharded.canonical_root(), single.root_bytes());
        std::fs::write(&marker, n.to_string()).unwrap();
        eprintln!(
            "built the {n}-key states in {} in {:?}",
            dir.display(),
            start.elapsed()
        );
    }
    dir
}

fn apply_bench(c: &mut Criterion) {
    let n = state_keys();
    let threads = rayon::current_num_threads();
    let cache = cache_nodes();
    let mut sharded: Option<ShardedTree> = None;
    let mut single: Option<Tree<RocksStore>> = None;
    let mut g = c.benchmark_group("fractional");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function(
        format!("apply 10k-update block on {n} keys (256 shards, RocksDB, cache {cache} nodes, {threads} threads)"),
        |b| {
            let sharded = sharded.get_or_insert_with(|| open_sharded(&build_states(n).join("sharded")));
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let height = sharded.height().unwrap_or(0) + 1;
                    let w = block(height, n);
                    let t = Instant::now();
                    sharded.apply(&w).unwrap();
                    total += t.elapsed();
                    sharded.persist(height, &[]).unwrap();
                }
                total
            })
        },
    );
    g.bench_function(
        format!("single tree: apply+commit 10k-update block on {n} keys (RocksDB, cache {cache} nodes, {threads} threads)"),
        |b| {
            // The sharded tree is closed first (its database's background work stops).
            sharded = None;
            let single = single.get_or_insert_with(|| open_single(&build_states(n).join("single")));
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let height = single.height().unwrap_or(0) + 1;
                    let w = block(height, n);
                    let t = Instant::now();
                    single.apply(w).unwrap();
                    single.commit();
                    total += t.elapsed();
                    single.persist_with(height, &[]).unwrap();
                }
                total
            })
        },
    );
    g.finish();
}

fn coordinator_bench(c: &mut Criterion) {
    // A 10k-update block on a large state touches all 256 shards.
    let mut coordinator = Coordinator::empty(256);
    let mut round = 0u8;
    let mut g = c.benchmark_group("fractional");
    g.bench_function(
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
    g.finish();
}

/// `count` keys of the state: spread over it (every key its own stem, as a block's accounts
/// are), or clustered (256 suffixes of each stem of the first `count / 256 + 1` state keys,
/// as one account's slots are).
fn proof_keys(count: u32, clustered: bool) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    (0..count)
        .map(|i| {
            let key = if clustered {
                let mut k = initial_key(i / 256);
                k[31] = (i % 256) as u8;
                k
            } else {
                initial_key(i)
            };
            (key, None)
        })
        .collect()
}

fn proof_benches(c: &mut Criterion) {
    let n = state_keys().min(100_000);
    let mut state: Option<ShardedTree> = None;
    let mut setup = || {
        let mut sharded = ShardedTree::in_memory(ShardConfig::default());
        sharded.apply(&chunk(0, n)).unwrap();
        for count in [1u32, 10, 1000, 10_000] {
            for clustered in [false, true] {
                let keys = proof_keys(count, clustered);
                let plain: Vec<[u8; 32]> = keys.iter().map(|(k, _)| *k).collect();
                let mut size = |path| {
                    let p = sharded.prove_fractional(&keys, path).unwrap();
                    (p.to_bytes().unwrap().len(), p.internal_witnesses.len())
                };
                let (both, u) = size(true);
                let (lean, _) = size(false);
                let standard = sharded.prove(&plain).unwrap().to_ssz().unwrap().len();
                let layout = if clustered { "clustered" } else { "spread" };
                eprintln!(
                    "proof size, {count} keys {layout} on {n}: fractional {both} bytes \
                     (lean {lean}, {u} internal witnesses), standard witness (SSZ) {standard} bytes"
                );
            }
        }
        sharded
    };
    let mut g = c.benchmark_group("fractional");
    g.sample_size(10);
    for count in [1000u32, 10_000] {
        let keys = proof_keys(count, false);
        let plain: Vec<[u8; 32]> = keys.iter().map(|(k, _)| *k).collect();
        g.bench_function(format!("verify standard witness {count} keys"), |b| {
            let sharded = state.get_or_insert_with(&mut setup);
            let bytes = Bytes::from(sharded.prove(&plain).unwrap().to_ssz().unwrap());
            let root = sharded.canonical_root();
            b.iter(|| {
                let w = witness::ExecutionWitness::from_ssz(bytes.clone()).unwrap();
                witness::verify(&root, &w).unwrap()
            })
        });
        for (name, coordinator) in [("state root", false), ("coordinator root", true)] {
            g.bench_function(format!("verify_fractional {count} keys, {name}"), |b| {
                let sharded = state.get_or_insert_with(&mut setup);
                let proof = sharded.prove_fractional(&keys, true).unwrap();
                let bytes = Bytes::from(proof.to_bytes().unwrap());
                let anchor = if coordinator {
                    Anchor::CoordinatorRoot(sharded.coordinator_root())
                } else {
                    Anchor::StateRoot(sharded.canonical_root())
                };
                b.iter(|| {
                    let p = FractionalProof::from_bytes(bytes.clone()).unwrap();
                    verify_fractional(&p, &anchor).unwrap()
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, coordinator_bench, proof_benches, apply_bench);
criterion_main!(benches);
