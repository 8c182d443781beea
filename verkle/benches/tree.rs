//! Tree benchmarks, keys as rust-verkle's benches make them (so the figures compare):
//! a block's keys are `SHA-256(u32_be(i))`, initial keys `SHA-256(u32_be(i) ‖ 28 zero bytes
//! ‖ "seed")`, value = key.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use genesis::parse_leaf_csv;
use verkle::store::RocksStore;
use verkle::{Tree, TreeConfig};

#[path = "support/keys.rs"]
mod keys;
use keys::{block_key, initial_key, state_keys, update_block, BLOCK};

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

/// rust-verkle's `insert 10k`: every iteration inserts (and commits) the same 10k block keys
/// into a fresh clone of the initial tree (the clone is made and dropped outside the timing).
/// Initial trees are built on first use, so a filtered-out size costs nothing.
fn insert_10k(c: &mut Criterion) {
    let keys: Vec<[u8; 32]> = (0..BLOCK).map(block_key).collect();
    let mut g = c.benchmark_group("insert 10k");
    g.sample_size(10);
    for initial in [0u32, 100_000, 1_000_000] {
        let mut tree: Option<Tree> = None;
        g.bench_function(format!("{initial} initial keys"), |b| {
            let tree = tree.get_or_insert_with(|| tree_with(initial));
            b.iter_batched(
                || tree.clone(),
                |mut t| {
                    t.apply(keys.iter().map(|k| (*k, Some(*k)))).unwrap();
                    t.commit();
                    t
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

/// A fresh block of 10k keys per iteration into one growing tree (the tree gains 10k keys
/// per iteration, so "0 initial keys" ends with tens of thousands of keys).
fn insert_10k_growing(c: &mut Criterion) {
    let mut g = c.benchmark_group("insert 10k growing");
    g.sample_size(10);
    for initial in [0u32, 100_000, 1_000_000] {
        let mut tree: Option<Tree> = None;
        let mut next = 0u32;
        g.bench_function(format!("{initial} initial keys"), |b| {
            let tree = tree.get_or_insert_with(|| tree_with(initial));
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

/// A proof for the 10k keys of one block, in a tree holding only those keys (as rust-verkle's
/// bench does).
fn proof_10k(c: &mut Criterion) {
    let keys: Vec<[u8; 32]> = (0..BLOCK).map(block_key).collect();
    let mut tree: Option<Tree> = None;
    let mut g = c.benchmark_group("proof 10k");
    g.sample_size(10);
    g.bench_function("10k keys", |b| {
        let tree = tree.get_or_insert_with(|| {
            let mut t = Tree::new();
            t.apply(keys.iter().map(|k| (*k, Some(*k)))).unwrap();
            t.commit();
            t
        });
        b.iter(|| tree.prove(&keys).unwrap())
    });
    g.finish();
}

const STATE_KEYS: u32 = 1_000_000;

/// Opens (building it first when `$FVERKLE_BENCH_STATE` is unset) the 1M-key state; also
/// returns its height and key count (the `build_state` example records the count; 1M if
/// the state does not say).
fn open_state() -> (Tree<RocksStore>, u64, u32) {
    let dir = match std::env::var_os("FVERKLE_BENCH_STATE") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            let tmp =
                std::env::temp_dir().join(format!("fverkle-bench-state-{}", std::process::id()));
            let mut t =
                Tree::open_with(RocksStore::open(&tmp).unwrap(), TreeConfig::nodes(200_000))
                    .unwrap();
            let start = Instant::now();
            for b in 0..STATE_KEYS / 100_000 {
                t.apply((b * 100_000..(b + 1) * 100_000).map(|i| {
                    let k = initial_key(i);
                    (k, Some(k))
                }))
                .unwrap();
                t.persist_with(u64::from(b) + 1, &[]).unwrap();
            }
            eprintln!(
                "built a {STATE_KEYS}-key state in {} in {:?}",
                tmp.display(),
                start.elapsed()
            );
            tmp
        }
    };
    let store = RocksStore::open(&dir).unwrap();
    let tree = Tree::open_with(store, TreeConfig::nodes(200_000)).unwrap();
    let height = tree.height().unwrap_or(0);
    let keys = state_keys(tree.store(), STATE_KEYS);
    eprintln!("state of {keys} keys at height {height}");
    (tree, height, keys)
}

/// Updates of 10k existing keys on an on-disk 1M-key state: apply, commit and the RocksDB
/// write batch. The state is `$FVERKLE_BENCH_STATE` (built by the `build_state` example
/// with `--keys 1000000`) or, when unset, built into a temporary directory first. A state
/// of another size (say `build_state --keys 10000000`) works too: the updated keys are
/// spread over all of its keys.
fn block_10k_rocks(c: &mut Criterion) {
    let mut state: Option<(Tree<RocksStore>, u64, u32)> = None;
    // Rounds continue from the state's height, so a rerun on the same state writes new
    // values instead of the ones a previous run already wrote (which would change nothing).
    let mut round: Option<u32> = None;
    let mut g = c.benchmark_group("block 10k updates on 1M keys (rocksdb)");
    g.sample_size(10);
    g.bench_function("apply + commit + write batch", |b| {
        let (tree, height, keys) = state.get_or_insert_with(open_state);
        let keys = *keys;
        let round = round.get_or_insert(*height as u32);
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                *round += 1;
                let round = *round;
                // 10k existing keys spread over the state, new values.
                let writes = update_block(round, keys);
                *height += 1;
                let start = Instant::now();
                tree.apply(writes).unwrap();
                tree.persist_with(*height, &[]).unwrap();
                total += start.elapsed();
            }
            total
        })
    });
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

criterion_group!(
    benches,
    devnet6_genesis,
    insert_10k,
    insert_10k_growing,
    proof_10k,
    block_10k_rocks
);
criterion_main!(benches);
