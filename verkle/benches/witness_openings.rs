//! `verify witness N openings`: a light client's whole `witness::verify` (SSZ
//! decode, canonical checks, point decoding, opening-set rebuild, multiproof check) of a
//! witness our prover makes for random keys of a 100k-key tree, sized so that it holds about
//! N openings (within 5 %; the bench name gives the exact count and the key count). Keys as
//! in `tree.rs`.
#![allow(missing_docs, clippy::unwrap_used)]

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use verkle::Tree;
use witness::ExecutionWitness;

const STATE_KEYS: u32 = 100_000;

#[path = "support/keys.rs"]
mod keys;
use keys::initial_key;

/// The SSZ witness for the first `k` keys, its opening count and its number of distinct
/// commitments (the root and `commitments_by_path`).
fn witness_for(tree: &mut Tree, root: &[u8; 32], k: u32) -> (Bytes, usize, usize) {
    let keys: Vec<[u8; 32]> = (0..k).map(initial_key).collect();
    let w = tree.prove(&keys).unwrap();
    let ssz = Bytes::from(w.to_ssz().unwrap());
    let view = ExecutionWitness::from_ssz(ssz.clone()).unwrap();
    let verified = witness::verify(root, &view).unwrap();
    let commitments = 1 + view.verkle_proof().commitments_by_path().len();
    (ssz, verified.opening_count(), commitments)
}

/// The witness whose opening count is nearest `n` (within 5 % when the key count allows):
/// the key count doubles until the witness holds at least `n` openings, then an
/// interpolation search narrows the bracket. Returns the key count, the SSZ, the openings
/// and the commitments.
fn sized_witness(tree: &mut Tree, root: &[u8; 32], n: usize) -> (u32, Bytes, usize, usize) {
    let mut count = |k: u32| {
        let (ssz, openings, commitments) = witness_for(tree, root, k);
        (k, ssz, openings, commitments)
    };
    let close = |openings: usize| openings.abs_diff(n) * 20 <= n;
    let mut lo = count(1);
    let mut hi = count(64);
    while hi.2 < n {
        let k = hi.0 * 2;
        lo = hi;
        hi = count(k);
    }
    while !close(lo.2) && !close(hi.2) && hi.0 - lo.0 > 1 {
        // Openings grow about linearly with keys: aim at n, stay strictly inside.
        let span = (hi.2 - lo.2).max(1) as u64;
        let step = (u64::from(hi.0 - lo.0) * (n - lo.2) as u64 / span) as u32;
        let mid = count((lo.0 + step).clamp(lo.0 + 1, hi.0 - 1));
        if mid.2 < n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let best = if n.abs_diff(lo.2) < hi.2.abs_diff(n) {
        lo
    } else {
        hi
    };
    (best.0, best.1, best.2, best.3)
}

fn verify_openings(c: &mut Criterion) {
    let targets: Vec<usize> = [1_000usize, 16_000, 128_000]
        .into_iter()
        .filter(|n| {
            std::env::var("FVERKLE_BENCH_MAX_OPENINGS")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .is_none_or(|max| *n <= max)
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
        let (keys, ssz, openings, commitments) = sized_witness(&mut tree, &root, n);
        eprintln!(
            "N = {n}: {keys} keys, {openings} openings of {commitments} commitments \
             ({:.2} openings per commitment), {} bytes of SSZ",
            openings as f64 / commitments as f64,
            ssz.len()
        );
        g.bench_function(format!("{n} ({openings} openings, {keys} keys)"), |b| {
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
