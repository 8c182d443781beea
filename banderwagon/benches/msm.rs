//! Criterion benches for the group's multi-scalar multiplications.
//!
//! `cargo bench -p banderwagon --bench msm -- --warm-up-time 1 --measurement-time 5 --sample-size 10`
#![allow(clippy::unwrap_used)]
#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;

use banderwagon::arith::UniformRand;
use banderwagon::{
    vartime_multi_scalar_mul, vartime_straus, Element, FixedBaseMsm, FixedBaseTable, Fr,
};
use criterion::{criterion_group, Criterion};
use rand::{rngs::StdRng, SeedableRng};

#[path = "support/field_env.rs"]
mod field_env;

fn random_points(n: usize, rng: &mut StdRng) -> Vec<Element> {
    let g = Element::generator();
    let step = g * Fr::rand(rng);
    // Cheap distinct points: a random start and a random step.
    let mut p = g * Fr::rand(rng);
    (0..n)
        .map(|_| {
            p += step;
            p
        })
        .collect()
}

fn bench_msm(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(5);
    let bases = random_points(257, &mut rng);
    let scalars: Vec<Fr> = (0..257).map(|_| Fr::rand(&mut rng)).collect();
    let table = FixedBaseMsm::new(&bases, FixedBaseMsm::DEFAULT_WINDOW);
    c.bench_function("fixed-base msm 257 (bucket over window shifts)", |b| {
        b.iter(|| table.msm(black_box(&scalars)))
    });
    let mut g = c.benchmark_group("fixed-base setup");
    g.sample_size(10);
    g.bench_function("build window shifts of 257 bases", |b| {
        b.iter(|| FixedBaseMsm::new(black_box(&bases), FixedBaseMsm::DEFAULT_WINDOW))
    });
    g.finish();
    let per_base = FixedBaseTable::new(&bases[..2], 8);
    c.bench_function("fixed-base mul 1 (8-bit window table)", |b| {
        b.iter(|| per_base.mul(1, black_box(&scalars[0])))
    });
    // 64 products on one base (as a commit orders them), one at a time and in batches
    // (`mul_many`: eight side by side where the processor has AVX-512 IFMA).
    let batch: Vec<(usize, Fr)> = scalars[..64].iter().map(|s| (1, *s)).collect();
    c.bench_function(
        "fixed-base mul 64, one at a time (8-bit window table)",
        |b| {
            b.iter(|| {
                batch
                    .iter()
                    .map(|(i, s)| per_base.mul(*i, black_box(s)))
                    .sum::<Element>()
            })
        },
    );
    let lanes = if banderwagon::field_uses_lanes() {
        "8 lanes"
    } else {
        "no AVX-512 IFMA: one at a time"
    };
    c.bench_function(
        &format!("fixed-base mul 64, mul_many ({lanes}; 8-bit window table)"),
        |b| {
            let mut out = vec![Element::identity(); batch.len()];
            b.iter(|| {
                per_base.mul_many(batch.iter().map(|(i, s)| (*i, black_box(s))), &mut out);
                out.iter().copied().sum::<Element>()
            })
        },
    );
    c.bench_function("variable-base msm 16 (Straus)", |b| {
        b.iter(|| vartime_straus(black_box(&bases[..16]), black_box(&scalars[..16])))
    });
    // Where Straus' shared doubling chain stops beating the bucket method
    // (`vartime_multi_scalar_mul` picks Straus up to its threshold, buckets above).
    for n in [32usize, 48, 64, 96, 128] {
        c.bench_function(&format!("variable-base msm {n} (Straus)"), |b| {
            b.iter(|| vartime_straus(black_box(&bases[..n]), black_box(&scalars[..n])))
        });
        c.bench_function(
            &format!("variable-base msm {n} (vartime_multi_scalar_mul)"),
            |b| {
                b.iter(|| {
                    vartime_multi_scalar_mul(black_box(&bases[..n]), black_box(&scalars[..n]))
                })
            },
        );
    }
    for n in [4_000usize, 32_000] {
        let pts = random_points(n, &mut rng);
        let sc: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        c.bench_function(&format!("variable-base msm {n} (Pippenger)"), |b| {
            b.iter(|| vartime_multi_scalar_mul(black_box(&pts), black_box(&sc)))
        });
    }
}

criterion_group!(benches, bench_msm);

fn main() {
    field_env::field_backend_from_env();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
