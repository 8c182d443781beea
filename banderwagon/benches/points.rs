//! Criterion benches for the work a witness verifier does on points: decompressing a large
//! witness's commitments and the multi-scalar multiplication over them.
//!
//! `cargo bench -p banderwagon --bench points -- --warm-up-time 1 --measurement-time 5 --sample-size 10`
//! (`FVERKLE_NO_LANES=1` for the path of processors without AVX-512 IFMA).
#![allow(clippy::unwrap_used)]
#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;

use banderwagon::arith::UniformRand;
use banderwagon::{vartime_multi_scalar_mul, Element, Fr};
use criterion::{criterion_group, Criterion};
use rand::{rngs::StdRng, SeedableRng};

#[path = "support/field_env.rs"]
mod field_env;

/// Commitments in the large witness of `BENCHMARKS.md` (16,471), rounded.
const LARGE_WITNESS: usize = 16_384;

fn random_points(n: usize, rng: &mut StdRng) -> Vec<Element> {
    let g = Element::generator();
    let step = g * Fr::rand(rng);
    let mut p = g * Fr::rand(rng);
    (0..n)
        .map(|_| {
            p += step;
            p
        })
        .collect()
}

fn bench_points(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(11);
    let points = random_points(LARGE_WITNESS, &mut rng);
    let encodings = Element::batch_to_bytes(&points);
    let refs: Vec<&[u8; 32]> = encodings.iter().collect();
    let mut g = c.benchmark_group("points");
    g.sample_size(10);
    g.bench_function("decode 16k points (batch_from_bytes, all threads)", |b| {
        b.iter(|| Element::batch_from_bytes(black_box(&encodings)).unwrap())
    });
    g.bench_function("decode 16k points (decode_into, one thread)", |b| {
        let mut out = vec![Element::identity(); refs.len()];
        b.iter(|| Element::decode_into(black_box(&refs), &mut out))
    });
    let scalars: Vec<Fr> = (0..LARGE_WITNESS).map(|_| Fr::rand(&mut rng)).collect();
    g.bench_function("msm 16k (a large witness's multiproof E)", |b| {
        b.iter(|| vartime_multi_scalar_mul(black_box(&points), black_box(&scalars)))
    });
    for n in [1_024usize, 4_096] {
        g.bench_function(format!("msm {n} (a smaller witness's multiproof E)"), |b| {
            b.iter(|| vartime_multi_scalar_mul(black_box(&points[..n]), black_box(&scalars[..n])))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_points);

fn main() {
    field_env::field_backend_from_env();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
