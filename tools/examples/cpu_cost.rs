//! CPU time per operation, for comparing changes on a shared, loaded machine.
//!
//! `cargo run --release -p tools --example cpu_cost [filter]`
//!
//! Criterion's wall-clock medians move with the load other processes put on the cores;
//! the CPU time this process spends per operation (user + system, summed over its
//! threads, from `/proc/self/stat`) moves much less. Each line prints both.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Instant;

use banderwagon::{arith::UniformRand, Fr};
use ipa::{hash64, AddressHasher, Committer, Crs, IpaProof, MultiProof, Transcript, VerifierQuery};
use rand::{rngs::StdRng, Rng, SeedableRng};

/// CPU seconds used by this process so far (Linux; clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat(5), counted from the state field (3) here.
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

fn measure(name: &str, filter: &Option<String>, mut op: impl FnMut()) {
    if let Some(f) = filter {
        if !name.contains(f.as_str()) {
            return;
        }
    }
    op();
    let (wall0, cpu0) = (Instant::now(), cpu_seconds());
    let mut n = 0u64;
    while wall0.elapsed().as_secs_f64() < 2.0 || cpu_seconds() - cpu0 < 0.5 {
        op();
        n += 1;
    }
    let wall = wall0.elapsed().as_secs_f64() / n as f64;
    let cpu = (cpu_seconds() - cpu0) / n as f64;
    println!(
        "{name:<44} cpu {:>10.1} µs   wall {:>10.1} µs   ({n} runs)",
        cpu * 1e6,
        wall * 1e6
    );
}

#[path = "../../ipa/benches/support/queries.rs"]
mod queries;
use queries::random_z_queries;

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

fn main() {
    field_env::field_backend_from_env();
    let filter = std::env::args().nth(1);
    let crs = Crs::eip6800();
    let t = Instant::now();
    let committer = Committer::eip6800();
    println!(
        "committer tables {:.1} MiB, built in {:?}",
        committer.memory_bytes() as f64 / (1 << 20) as f64,
        t.elapsed()
    );
    let t = Instant::now();
    let chunk_bytes = committer.prepare_chunk_table();
    println!(
        "pedersen chunk table {:.1} MiB, built in {:?}; field arithmetic: {}",
        chunk_bytes as f64 / (1 << 20) as f64,
        t.elapsed(),
        if banderwagon::field_uses_adx() {
            "BMI2/ADX assembly"
        } else {
            "portable"
        }
    );
    let mut rng = StdRng::seed_from_u64(1);
    let poly: Vec<Fr> = (0..256).map(|_| Fr::rand(&mut rng)).collect();
    let (old, new) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
    measure("commit 256 values", &filter, || {
        black_box(committer.commit(black_box(&poly)));
    });
    for index in [3usize, 100] {
        measure(
            &format!("commit delta 1 slot (index {index})"),
            &filter,
            || {
                black_box(committer.commit_delta(black_box(index), &old, &new));
            },
        );
    }
    let input: [u8; 64] = std::array::from_fn(|_| rng.gen());
    // Random index ≥ 5 and random values: cold table entries and untrained branches.
    let deltas: Vec<(usize, Fr, Fr)> = (0..256)
        .map(|_| {
            (
                rng.gen_range(5..256),
                Fr::rand(&mut rng),
                Fr::rand(&mut rng),
            )
        })
        .collect();
    let mut next = 0usize;
    measure("commit delta 1 slot (random index/values)", &filter, || {
        next = (next + 1) % deltas.len();
        let (i, o, n) = &deltas[next];
        black_box(committer.commit_delta(black_box(*i), o, n));
    });
    measure("tree key (pedersen hash 64 bytes)", &filter, || {
        black_box(hash64(committer, black_box(&input)));
    });
    let inputs: Vec<[u8; 64]> = (0..256)
        .map(|_| std::array::from_fn(|_| rng.gen()))
        .collect();
    let mut next = 0usize;
    measure("tree key, 256 varying inputs", &filter, || {
        next = (next + 1) % inputs.len();
        black_box(hash64(committer, black_box(&inputs[next])));
    });
    let addr: [u8; 32] = std::array::from_fn(|_| rng.gen());
    let hasher = AddressHasher::new(committer, &addr);
    let idx: [u8; 32] = std::array::from_fn(|i| if i < 2 { rng.gen() } else { 0 });
    measure("tree key, address half cached", &filter, || {
        black_box(hasher.tree_key(black_box(&idx), 7));
    });
    let c = committer.commit(&poly);
    let z = Fr::rand(&mut rng);
    measure("ipa prove 256", &filter, || {
        black_box(IpaProof::prove(
            committer,
            &mut Transcript::new(b"ipa"),
            c,
            poly.clone(),
            &z,
        ));
    });
    let (proof, y) = IpaProof::prove(committer, &mut Transcript::new(b"ipa"), c, poly.clone(), &z);
    measure("ipa verify 256", &filter, || {
        assert!(proof.verify(crs, &mut Transcript::new(b"ipa"), c, &z, &y));
    });
    for n in [1usize, 1_000, 16_000] {
        let distinct = n.div_ceil(4);
        let polys: Vec<Vec<Fr>> = (0..distinct)
            .map(|k| {
                let mut p = poly.clone();
                p[k % 256] += Fr::from(k as u64 + 1);
                p
            })
            .collect();
        let comms = committer.batch_commit(&polys);
        let pq = random_z_queries(n, &polys, &comms, &mut rng);
        measure(&format!("multiproof prove {n}"), &filter, || {
            black_box(MultiProof::prove(
                committer,
                &mut Transcript::new(b"vt"),
                &pq,
            ));
        });
        let mp = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &pq);
        let vq: Vec<VerifierQuery> = pq.iter().map(VerifierQuery::from).collect();
        measure(&format!("multiproof verify {n}"), &filter, || {
            mp.verify(crs, &mut Transcript::new(b"vt"), &vq).unwrap();
        });
    }
    // Leaf-like sparse polynomials: 4 non-zero values plus 2 per stored value.
    let n = 16_000;
    let polys: Vec<Vec<Fr>> = (0..n / 4)
        .map(|k| {
            let mut p = vec![Fr::from(0u64); 256];
            for slot in 0..4 {
                p[slot] = Fr::rand(&mut rng);
            }
            for v in 0..(1 + k % 4) {
                let s = (7 * k + 60 * v) % 252 + 4;
                p[s] = Fr::rand(&mut rng);
                p[s + 1] = Fr::rand(&mut rng);
            }
            p
        })
        .collect();
    let comms = committer.batch_commit(&polys);
    let pq = random_z_queries(n, &polys, &comms, &mut rng);
    measure(&format!("multiproof prove sparse {n}"), &filter, || {
        black_box(MultiProof::prove(
            committer,
            &mut Transcript::new(b"vt"),
            &pq,
        ));
    });
    let filter_build = filter.clone();
    measure("committer setup (build tables)", &filter_build, || {
        black_box(Committer::new(crs));
    });
}
