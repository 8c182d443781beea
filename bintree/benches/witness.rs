//! What the EIP-7864 (SHA-256) binary witness costs for a 10k-update block on a 1M-key tree
//! (250k stems, 4 keys each; 7k changed values and 3k new stems, as in the `tree` bench):
//! proving from the in-memory tree, zero-copy decode, and verification (pre-state root and
//! post-state root from the witness alone). Prints the witness's size by section, its hash
//! count, and the hashes verification performs against the tree's own rehash of the block.
//! The same for an EIP-8297 (BLAKE3) tree of the same shape (34-byte account-header keys),
//! with 5k changed values, 2k deletes (collapsing branches) and 3k new accounts.
#![allow(missing_docs)] // criterion_group! generates undocumented items

mod common;

use std::hint::black_box;

use bintree::eip7864::witness;
use bintree::witness::{Write, WriteRef};
use bintree::{eip8297, Blake3, Sha256};
use common::*;
use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn witness_10k(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7864);
    let stems: Vec<[u8; 31]> = (0..STEMS).map(|_| rng.gen()).collect();
    let mut tree = tree7864(&stems);
    let pre_root = tree.root();

    let mut writes: Vec<([u8; 32], Write)> = Vec::new();
    while writes.len() < CHANGED {
        let stem = &stems[rng.gen_range(0..STEMS)];
        let sub = SUB_INDICES[rng.gen_range(0..KEYS_PER_STEM)];
        let k = key(stem, sub);
        if !writes.iter().any(|(w, _)| *w == k) {
            writes.push((k, Write::Set(rng.gen())));
        }
    }
    writes.extend((0..NEW_STEMS).map(|_| (key(&rng.gen(), 0), Write::Set(rng.gen()))));

    let bytes = tree.witness(&writes).expect("distinct keys");
    let w = witness::Witness::decode::<Sha256>(&bytes).expect("honest witness");
    let verified = w.verify::<Sha256>(&pre_root).expect("honest witness");
    let touched = tree
        .path_nodes(writes.iter().map(|(k, _)| k))
        .expect("32-byte keys");
    let changed: Vec<[u8; 32]> = writes
        .iter()
        .filter(|(k, w)| matches!(w, Write::Set(v) if tree.get(k) != Some(v)))
        .map(|(k, _)| *k)
        .collect();
    let mut after = tree.clone();
    let before = after.hash_count();
    after
        .apply(writes.iter().filter_map(|(k, w)| match w {
            Write::Set(v) => Some((*k, *v)),
            _ => None,
        }))
        .expect("32-byte keys");
    assert_eq!(after.root(), verified.post_root);
    let least = after.path_nodes(&changed).expect("32-byte keys");
    let (keys, values) = (
        w.len(),
        w.claims()
            .map(|c| c.pre.is_some() as usize + matches!(c.write, WriteRef::Set(_)) as usize)
            .sum::<usize>(),
    );
    eprintln!(
        "witness: {} bytes for {keys} keys; {} hashes ({} bytes), {} other stems ({} bytes), \
         {} anchors ({} bytes), {values} values ({} bytes), keys {} bytes",
        bytes.len(),
        w.hash_count(),
        32 * w.hash_count(),
        w.other_count(),
        witness::OTHER_LENGTH * w.other_count(),
        w.anchor_count(),
        witness::ANCHOR_LENGTH * w.anchor_count(),
        32 * values,
        32 * keys,
    );
    eprintln!(
        "verify: {} hashes for the pre-state root, {} for the post-state root; \
         the tree rehashes {} for the same writes; the least (path nodes): {touched} + {least}",
        verified.pre_hashes,
        verified.post_hashes,
        after.hash_count() - before
    );

    let mut group = block_group(c, "eip7864 sha256 witness, 10k updates on 1M keys");
    group.bench_function("prove", |b| {
        b.iter(|| tree.witness(black_box(&writes)).expect("distinct keys"))
    });
    group.bench_function("decode", |b| {
        b.iter(|| witness::Witness::decode::<Sha256>(black_box(&bytes)).expect("honest"))
    });
    group.bench_function("verify (pre-state and post-state root)", |b| {
        b.iter(|| w.verify::<Sha256>(black_box(&pre_root)).expect("honest"))
    });
    group.finish();
}

fn witness_10k_8297(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(8297);
    let accounts: Vec<[u8; 32]> = (0..STEMS).map(|_| rng.gen()).collect();
    let mut tree = tree8297(&accounts);
    let pre_root = tree.root();
    let mut writes: Vec<(Vec<u8>, Write)> = Vec::new();
    while writes.len() < CHANGED {
        let account = &accounts[rng.gen_range(0..STEMS)];
        let k = key8297(account, SUB_INDICES[rng.gen_range(0..KEYS_PER_STEM)]);
        if !writes.iter().any(|(w, _)| *w == k) {
            let write = if writes.len() < 2_000 {
                Write::Delete
            } else {
                Write::Set(rng.gen())
            };
            writes.push((k, write));
        }
    }
    writes.extend((0..NEW_STEMS).map(|_| (key8297(&rng.gen(), 0), Write::Set(rng.gen()))));
    let bytes = tree.witness(&writes).expect("distinct keys");
    let w = eip8297::witness::Witness::decode::<Blake3>(&bytes).expect("honest witness");
    let verified = w.verify::<Blake3>(&pre_root).expect("honest witness");
    let touched = tree
        .path_nodes(writes.iter().map(|(k, _)| k))
        .expect("34-byte keys");
    let changed: Vec<&[u8]> = writes
        .iter()
        .filter(|(k, w)| match w {
            Write::Set(v) => tree.get(k) != Some(v),
            Write::Delete => tree.get(k).is_some(),
            Write::Unchanged => false,
        })
        .map(|(k, _)| k.as_slice())
        .collect();
    let mut after = tree.clone();
    let before = after.hash_count();
    after
        .apply(writes.iter().filter_map(|(k, w)| match w {
            Write::Set(v) => Some((k.clone(), Some(*v))),
            Write::Delete => Some((k.clone(), None)),
            Write::Unchanged => None,
        }))
        .expect("34-byte keys");
    assert_eq!(after.root(), verified.post_root);
    let least = after.path_nodes(&changed).expect("34-byte keys");
    eprintln!(
        "eip8297 witness: {} bytes for {} keys; {} hashes, {} other records; verify {} + {} \
         hashes, the tree rehashes {}; the least (path nodes): {touched} + {least}",
        bytes.len(),
        w.len(),
        w.hash_count(),
        w.other_count(),
        verified.pre_hashes,
        verified.post_hashes,
        after.hash_count() - before
    );
    let mut group = block_group(c, "eip8297 blake3 witness, 10k updates on 1M keys");
    group.bench_function("prove", |b| {
        b.iter(|| tree.witness(black_box(&writes)).expect("distinct keys"))
    });
    group.bench_function("decode", |b| {
        b.iter(|| eip8297::witness::Witness::decode::<Blake3>(black_box(&bytes)).expect("honest"))
    });
    group.bench_function("verify (pre-state and post-state root)", |b| {
        b.iter(|| w.verify::<Blake3>(black_box(&pre_root)).expect("honest"))
    });
    group.finish();
}

criterion_group!(benches, witness_10k, witness_10k_8297);
criterion_main!(benches);
