//! What a block builder pays for the root of an EIP-7864 (SHA-256) tree after a block's
//! writes, and the hash floor under it.
//!
//! - "commit 10k-update block on 1M keys": a tree of 1M keys on 250k stems takes a batch of
//!   7k changed values and 3k new stems, then computes the new root.
//! - EIP-8297 (BLAKE3), the same shape: 1M 34-byte keys of 250k accounts (4 each), then 5k
//!   changed values, 2k deletes and 3k new accounts, then the new root.
//! - "sha256 of 64 bytes" (an EIP-7864 node), "blake3 of 64 bytes", "blake3 of 67 bytes" (an
//!   EIP-8297 leaf: tag, 34-byte key, value; a branch hashes 66 bytes and up): one node hash;
//!   "sha256 of 64 bytes, 64 messages together": a batch of independent node hashes;
//!   "blake3 of 67 bytes, two messages together": two independent leaves (BLAKE3 on AVX2
//!   compresses two two-block messages at once).
#![allow(missing_docs)] // criterion_group! generates undocumented items

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use bintree::{Blake3, Sha256, TreeHash};
use common::*;
use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn block_update(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7864);
    let stems: Vec<[u8; 31]> = (0..STEMS).map(|_| rng.gen()).collect();
    let start = Instant::now();
    let mut tree = tree7864(&stems);
    let root = tree.root();
    eprintln!(
        "built {} keys on {STEMS} stems in {:?} ({} hashes), root {:02x?}",
        tree.len(),
        start.elapsed(),
        tree.hash_count(),
        &root[..4]
    );
    assert_eq!(tree.len(), STEMS * KEYS_PER_STEM);

    let mut group = block_group(c, "eip7864 sha256");
    group.bench_function("commit 10k-update block on 1M keys", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut batch: Vec<([u8; 32], [u8; 32])> = (0..CHANGED)
                    .map(|_| {
                        let stem = &stems[rng.gen_range(0..STEMS)];
                        let sub = SUB_INDICES[rng.gen_range(0..KEYS_PER_STEM)];
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
    let leaf = [0x5au8; 67];
    group.bench_function("blake3 of 67 bytes", |b| {
        b.iter(|| Blake3::hash(&[black_box(&leaf)]))
    });
    // Independent messages hashed together, as a batch's rehash gathers them (SHA-256 on
    // SHA-NI: two interleaved); the time is for 64 messages.
    let many: Vec<[u8; 64]> = (0..64u8).map(|i| [i; 64]).collect();
    let mut out = vec![[0u8; 32]; many.len()];
    group.bench_function("sha256 of 64 bytes, 64 messages together", |b| {
        b.iter(|| Sha256::hash64_many(black_box(&many), &mut out))
    });
    let other = [0xa5u8; 67];
    group.bench_function("blake3 of 67 bytes, two messages together", |b| {
        b.iter(|| Blake3::hash_two(&[black_box(&leaf)], &[black_box(&other)]))
    });
    group.finish();
}

fn block_update_8297(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(8297);
    let accounts: Vec<[u8; 32]> = (0..STEMS).map(|_| rng.gen()).collect();
    let start = Instant::now();
    let mut tree = tree8297(&accounts);
    let root = tree.root();
    eprintln!(
        "built {} keys of {STEMS} accounts in {:?} ({} hashes), root {:02x?}",
        tree.len(),
        start.elapsed(),
        tree.hash_count(),
        &root[..4]
    );
    assert_eq!(tree.len(), STEMS * KEYS_PER_STEM);

    let mut group = block_group(c, "eip8297 blake3");
    group.bench_function("commit 10k-update block on 1M keys", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // 5k changed values and 2k deletes of present keys (distinct), 3k new accounts.
                let mut batch: Vec<(Vec<u8>, Option<[u8; 32]>)> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                while batch.len() < CHANGED {
                    let account = &accounts[rng.gen_range(0..STEMS)];
                    let key = key8297(account, SUB_INDICES[rng.gen_range(0..KEYS_PER_STEM)]);
                    if tree.get(&key).is_none() || !seen.insert(key.clone()) {
                        continue;
                    }
                    let value = (batch.len() >= 2_000).then(|| rng.gen());
                    batch.push((key, value));
                }
                batch.extend((0..NEW_STEMS).map(|_| (key8297(&rng.gen(), 0), Some(rng.gen()))));
                let (hashes, start) = (tree.hash_count(), Instant::now());
                tree.apply(batch).expect("34-byte keys");
                black_box(tree.root());
                total += start.elapsed();
                if iters == 1 {
                    eprintln!(
                        "apply and root {:?}, {} hashes",
                        start.elapsed(),
                        tree.hash_count() - hashes
                    );
                }
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, hash_floor, block_update, block_update_8297);
criterion_main!(benches);
