//! Criterion benches for the crypto core, named after what a user does.
//!
//! `cargo bench -p ipa --bench crypto -- --warm-up-time 1 --measurement-time 5 --sample-size 10`
//! Set `FVERKLE_BENCH_MAX_OPENINGS` (default 131072) to skip the largest multiproof sizes.
#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;
use std::time::Instant;

use banderwagon::{arith::UniformRand, Element, Fr};
use criterion::{criterion_group, BenchmarkId, Criterion};
use ipa::{
    get_tree_key_from_crs, hash64, hash64_many, AddressHasher, Committer, Crs, IpaProof,
    MultiProof, ProverQuery, Transcript, VerifierQuery,
};
use rand::{rngs::StdRng, Rng, SeedableRng};

#[path = "support/queries.rs"]
mod queries;
use queries::random_z_queries;

fn rand_poly(rng: &mut StdRng) -> Vec<Fr> {
    (0..256).map(|_| Fr::rand(rng)).collect()
}

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

fn max_openings() -> usize {
    std::env::var("FVERKLE_BENCH_MAX_OPENINGS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(131_072)
}

fn bench_committer(c: &mut Criterion) {
    // The light tree-key path's only table is the CRS: 256 points embedded in the binary.
    let t = Instant::now();
    let crs = Crs::eip6800();
    eprintln!(
        "CRS (the light tree-key path's table): {} points, {} bytes affine, ready in {:?}",
        crs.g.len() + 1,
        (crs.g.len() + 1) * 64,
        t.elapsed()
    );
    let addr: [u8; 32] = std::array::from_fn(|i| i as u8 ^ 0x5a);
    let idx: [u8; 32] = std::array::from_fn(|i| if i < 3 { i as u8 + 1 } else { 0 });
    c.bench_function("tree key from the CRS alone (no committer tables)", |b| {
        b.iter(|| get_tree_key_from_crs(crs, black_box(&addr), black_box(&idx), 7))
    });
    let t = Instant::now();
    let committer = Committer::new(crs);
    eprintln!(
        "committer tables: {:.1} MiB, built in {:?} (first build, measured once)",
        committer.memory_bytes() as f64 / (1 << 20) as f64,
        t.elapsed()
    );
    let mut rng = StdRng::seed_from_u64(1);
    let values = rand_poly(&mut rng);
    c.bench_function("commit 256 values", |b| {
        b.iter(|| committer.commit(black_box(&values)))
    });
    let old = Fr::rand(&mut rng);
    let new = Fr::rand(&mut rng);
    for index in [3usize, 100] {
        c.bench_function(&format!("commit delta 1 slot (index {index})"), |b| {
            b.iter(|| committer.commit_delta(black_box(index), &old, &new))
        });
    }
    let input: [u8; 64] = std::array::from_fn(|i| rng.gen::<u8>() ^ i as u8);
    c.bench_function("tree key (pedersen hash 64 bytes)", |b| {
        b.iter(|| hash64(&committer, black_box(&input)))
    });
    // The fixed input above lets branchy code (arkworks' inversion) learn its branches;
    // real tree keys vary.
    let inputs: Vec<[u8; 64]> = (0..256)
        .map(|_| std::array::from_fn(|_| rng.gen()))
        .collect();
    let mut next = 0usize;
    c.bench_function("tree key, 256 varying inputs", |b| {
        b.iter(|| {
            next = (next + 1) % inputs.len();
            hash64(&committer, black_box(&inputs[next]))
        })
    });
    let many: Vec<[u8; 64]> = (0..1024)
        .map(|_| std::array::from_fn(|_| rng.gen()))
        .collect();
    c.bench_function("tree keys 1024, one by one (hash64)", |b| {
        b.iter(|| {
            many.iter()
                .map(|x| hash64(&committer, black_box(x)))
                .collect::<Vec<_>>()
        })
    });
    c.bench_function("tree keys 1024, batched (hash64_many)", |b| {
        b.iter(|| hash64_many(&committer, black_box(&many)))
    });
    let addr: [u8; 32] = std::array::from_fn(|_| rng.gen());
    let hasher = AddressHasher::new(&committer, &addr);
    let idx: [u8; 32] = std::array::from_fn(|i| if i < 2 { rng.gen() } else { 0 });
    c.bench_function("tree key, address half cached", |b| {
        b.iter(|| hasher.tree_key(black_box(&idx), 7))
    });
    let pts: Vec<Element> = (0..1024)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    c.bench_function("map to field batch 1024", |b| {
        b.iter(|| Element::batch_map_to_scalar_field(black_box(&pts)))
    });
    let encoded = Element::batch_to_bytes(&pts);
    c.bench_function("element decompress", |b| {
        b.iter(|| Element::from_bytes(black_box(&encoded[0])))
    });
    c.bench_function("element decompress batch 1024", |b| {
        b.iter(|| Element::batch_from_bytes(black_box(&encoded)))
    });
    let mut g = c.benchmark_group("committer setup");
    g.sample_size(10);
    g.bench_function("build tables", |b| b.iter(|| Committer::new(crs)));
    g.finish();
}

fn bench_ipa(c: &mut Criterion) {
    let crs = Crs::eip6800();
    let committer = Committer::eip6800();
    let mut rng = StdRng::seed_from_u64(2);
    let poly = rand_poly(&mut rng);
    let comm = committer.commit(&poly);
    let z = Fr::rand(&mut rng);
    c.bench_function("ipa prove 256", |b| {
        b.iter(|| {
            IpaProof::prove(
                committer,
                &mut Transcript::new(b"ipa"),
                comm,
                poly.clone(),
                &z,
            )
        })
    });
    let (proof, y) = IpaProof::prove(committer, &mut Transcript::new(b"ipa"), comm, poly, &z);
    c.bench_function("ipa verify 256", |b| {
        b.iter(|| assert!(proof.verify(crs, &mut Transcript::new(b"ipa"), comm, &z, &y)))
    });
}

/// N openings over N/4 distinct polynomials at random points. Polynomial k is a random
/// base polynomial plus a random scalar at slot k mod 256, so its commitment costs one
/// table lookup instead of a full commit.
/// Polynomials, their commitments, and `(polynomial index, point)` per opening.
type Workload = (Vec<Vec<Fr>>, Vec<Element>, Vec<(usize, u8)>);

fn our_workload(n: usize, rng: &mut StdRng) -> Workload {
    let committer = Committer::eip6800();
    let base = rand_poly(rng);
    let base_c = committer.commit(&base);
    let distinct = n.div_ceil(4);
    let mut polys = Vec::with_capacity(distinct);
    let mut comms = Vec::with_capacity(distinct);
    for k in 0..distinct {
        let s = Fr::rand(rng);
        let mut p = base.clone();
        p[k % 256] += s;
        comms.push(base_c + committer.scalar_mul(k % 256, &s));
        polys.push(p);
    }
    let opens = (0..n).map(|i| (i / 4, rng.gen::<u8>())).collect();
    (polys, comms, opens)
}

/// Leaf-like polynomials: 4 non-zero values plus 2 per stored value (1 to 4 values).
fn sparse_polys(count: usize, rng: &mut StdRng) -> Vec<Vec<Fr>> {
    (0..count)
        .map(|k| {
            let mut p = vec![Fr::from(0u64); 256];
            for slot in p.iter_mut().take(4) {
                *slot = Fr::rand(rng);
            }
            for v in 0..(1 + k % 4) {
                let s = (7 * k + 60 * v) % 252 + 4;
                p[s] = Fr::rand(rng);
                p[s + 1] = Fr::rand(rng);
            }
            p
        })
        .collect()
}

fn bench_multiproof(c: &mut Criterion) {
    let crs = Crs::eip6800();
    let committer = Committer::eip6800();
    let mut rng = StdRng::seed_from_u64(3);
    let sizes: Vec<usize> = [1usize, 1_000, 16_000, 128_000]
        .into_iter()
        .filter(|n| *n <= max_openings())
        .collect();

    let mut g = c.benchmark_group("multiproof (ours: N/4 polynomials, random z)");
    g.sample_size(10);
    for &n in &sizes {
        let (polys, comms, opens) = our_workload(n, &mut rng);
        let pq: Vec<ProverQuery> = opens
            .iter()
            .map(|&(p, z)| ProverQuery {
                commitment: comms[p],
                poly: &polys[p],
                point: z,
                result: polys[p][z as usize],
            })
            .collect();
        g.bench_with_input(BenchmarkId::new("multiproof prove", n), &pq, |b, pq| {
            b.iter(|| MultiProof::prove(committer, &mut Transcript::new(b"vt"), pq))
        });
        let proof = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &pq);
        let vq: Vec<VerifierQuery> = pq.iter().map(VerifierQuery::from).collect();
        g.bench_with_input(BenchmarkId::new("multiproof verify", n), &vq, |b, vq| {
            b.iter(|| proof.verify(crs, &mut Transcript::new(b"vt"), vq).is_ok())
        });
    }
    g.finish();

    // Leaf-like sparse polynomials (4 non-zero values plus 2 per stored value), as a tree
    // proof opens them: N/4 polynomials, random z.
    let mut g = c.benchmark_group("multiproof (sparse leaf-like polynomials)");
    g.sample_size(10);
    for &n in sizes.iter().filter(|n| **n == 16_000) {
        let polys = sparse_polys(n.div_ceil(4), &mut rng);
        let comms = committer.batch_commit(&polys);
        let pq = random_z_queries(n, &polys, &comms, &mut rng);
        g.bench_with_input(
            BenchmarkId::new("multiproof prove sparse", n),
            &pq,
            |b, pq| b.iter(|| MultiProof::prove(committer, &mut Transcript::new(b"vt"), pq)),
        );
    }
    g.finish();

    // rust-verkle's shape: one random polynomial cloned N times, all opened at z = 1.
    let mut g = c.benchmark_group("multiproof (rust-verkle shape: 1 polynomial x N, z = 1)");
    g.sample_size(10);
    let poly = rand_poly(&mut rng);
    let comm = committer.commit(&poly);
    for &n in &sizes {
        let pq: Vec<ProverQuery> = (0..n)
            .map(|_| ProverQuery {
                commitment: comm,
                poly: &poly,
                point: 1,
                result: poly[1],
            })
            .collect();
        g.bench_with_input(BenchmarkId::new("multiproof prove", n), &pq, |b, pq| {
            b.iter(|| MultiProof::prove(committer, &mut Transcript::new(b"foo"), pq))
        });
        let proof = MultiProof::prove(committer, &mut Transcript::new(b"foo"), &pq);
        let vq: Vec<VerifierQuery> = (0..n)
            .map(|_| VerifierQuery {
                commitment: comm,
                point: 1,
                result: poly[1],
            })
            .collect();
        g.bench_with_input(BenchmarkId::new("multiproof verify", n), &vq, |b, vq| {
            b.iter(|| proof.verify(crs, &mut Transcript::new(b"foo"), vq).is_ok())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_committer, bench_ipa, bench_multiproof);

fn main() {
    field_env::field_backend_from_env();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
