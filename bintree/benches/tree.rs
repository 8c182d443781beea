//! What a block builder pays for the root of an EIP-7864 (SHA-256) tree after a block's
//! writes, and the hash floor under it.
//!
//! - "commit 10k-update block on 1M keys": a tree of 1M keys on 250k stems takes a batch of
//!   7k changed values and 3k new stems, then computes the new root.
//! - "sha256 of 64 bytes", "blake3 of 64 bytes": one node hash.
#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;
use std::time::{Duration, Instant};

use bintree::{eip7864, Blake3, Sha256, TreeHash};
use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const STEMS: usize = 250_000;
const KEYS_PER_STEM: usize = 4;
const CHANGED: usize = 7_000;
const NEW_STEMS: usize = 3_000;

fn key(stem: &[u8; 31], sub_index: u8) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..31].copy_from_slice(stem);
    key[31] = sub_index;
    key
}

fn block_update(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7864);
    let stems: Vec<[u8; 31]> = (0..STEMS).map(|_| rng.gen()).collect();
    let mut tree = eip7864::Tree::<Sha256>::new();
    let start = Instant::now();
    tree.apply(stems.iter().flat_map(|stem| {
        // Basic data, code hash and two header storage slots, as an account would have.
        [0u8, 1, 64, 65].map(|sub| (key(stem, sub), [sub ^ stem[0]; 32]))
    }))
    .expect("32-byte keys");
    let root = tree.root();
    eprintln!(
        "built {} keys on {STEMS} stems in {:?} ({} hashes), root {:02x?}",
        tree.len(),
        start.elapsed(),
        tree.hash_count(),
        &root[..4]
    );
    assert_eq!(tree.len(), STEMS * KEYS_PER_STEM);

    let mut group = c.benchmark_group("eip7864 sha256");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    group.bench_function("commit 10k-update block on 1M keys", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut batch: Vec<([u8; 32], [u8; 32])> = (0..CHANGED)
                    .map(|_| {
                        let stem = &stems[rng.gen_range(0..STEMS)];
                        let sub = [0u8, 1, 64, 65][rng.gen_range(0..KEYS_PER_STEM)];
                        (key(stem, sub), rng.gen())
                    })
                    .collect();
                batch.extend((0..NEW_STEMS).map(|_| (key(&rng.gen(), 0), rng.gen())));
                let (hashes, start) = (tree.hash_count(), Instant::now());
                tree.apply(batch).expect("32-byte keys");
                let applied = start.elapsed();
                black_box(tree.root());
                total += start.elapsed();
                if iters == 1 {
                    eprintln!(
                        "apply {applied:?}, root {:?}, {} hashes",
                        start.elapsed() - applied,
                        tree.hash_count() - hashes
                    );
                }
            }
            total
        })
    });
    group.finish();
}

fn hash_floor(c: &mut Criterion) {
    let data = [0x5au8; 64];
    let mut group = c.benchmark_group("hash floor");
    group
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    group.bench_function("sha256 of 64 bytes", |b| {
        b.iter(|| Sha256::hash(&[black_box(&data)]))
    });
    group.bench_function("blake3 of 64 bytes", |b| {
        b.iter(|| Blake3::hash(&[black_box(&data)]))
    });
    group.finish();
}

criterion_group!(benches, hash_floor, block_update);
criterion_main!(benches);
