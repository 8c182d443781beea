//! `verify witness N openings` (issue #3): a light client's whole `witness::verify` (SSZ
//! decode, canonical checks, point decoding, opening-set rebuild, multiproof check) of a
//! witness our prover makes for random keys of a 100k-key tree, sized so that it holds at
//! least N openings (the bench name gives the exact count). Keys as in `tree.rs`.
#![allow(missing_docs, clippy::unwrap_used)]

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use sha2::{Digest, Sha256};
use verkle::Tree;
use witness::ExecutionWitness;

const STATE_KEYS: u32 = 100_000;

fn initial_key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}

/// The SSZ witness for the first `k` keys, and its opening count.
fn witness_for(tree: &mut Tree, root: &[u8; 32], k: u32) -> (Bytes, usize) {
    let keys: Vec<[u8; 32]> = (0..k).map(initial_key).collect();
    let w = tree.prove(&keys).unwrap();
    let ssz = Bytes::from(w.to_ssz().unwrap());
    let view = ExecutionWitness::from_ssz(ssz.clone()).unwrap();
    let openings = witness::verify(root, &view).unwrap().opening_count();
    (ssz, openings)
}

fn verify_openings(c: &mut Criterion) {
    let targets: Vec<usize> = [1_000usize, 16_000, 128_000]
        .into_iter()
        .filter(|n| {
            std::env::var("FVERKLE_BENCH_MAX_OPENINGS")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .map_or(true, |max| *n <= max)
        })
        .collect();
    let mut tree = Tree::new();
    tree.apply((0..STATE_KEYS).map(|i| {
        let k = initial_key(i);
        (k, Some(k))
    }))
    .unwrap();
    let root = tree.root_bytes();
    let mut g = c.benchmark_group("verify witness N openings");
    g.sample_size(10);
    for n in targets {
        // Double the key count until the witness holds n openings, then interpolate once.
        let (mut lo, mut hi) = ((0u32, 0usize), (64u32, witness_for(&mut tree, &root, 64).1));
        while hi.1 < n {
            lo = hi;
            let k = hi.0 * 2;
            hi = (k, witness_for(&mut tree, &root, k).1);
        }
        let span = (hi.1 - lo.1).max(1) as u64;
        let guess = lo.0 + ((u64::from(hi.0 - lo.0) * (n - lo.1) as u64).div_ceil(span)) as u32;
        let keys = if witness_for(&mut tree, &root, guess).1 >= n {
            guess
        } else {
            hi.0
        };
        let hi = keys;
        let (ssz, openings) = witness_for(&mut tree, &root, hi);
        eprintln!(
            "N = {n}: {hi} keys, {openings} openings, {} bytes of SSZ",
            ssz.len()
        );
        g.bench_function(format!("{n} ({openings} openings, {hi} keys)"), |b| {
            b.iter(|| {
                let view = ExecutionWitness::from_ssz(ssz.clone()).unwrap();
                witness::verify(&root, &view).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, verify_openings);
criterion_main!(benches);
