//! A multiproof prove/verify loop with cheap setup, for `perf record` / callgrind.
//!
//! `cargo run --release -p ipa --example mp_profile -- [prove|verify] [n] [iterations] [dense|sparse]`
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use banderwagon::{arith::UniformRand, Element, Fr};
use ipa::{Committer, Crs, MultiProof, ProverQuery, Transcript, VerifierQuery};
use rand::{rngs::StdRng, Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).cloned().unwrap_or_else(|| "prove".into());
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(16_000);
    let iters: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let sparse = args.get(4).map(|s| s == "sparse").unwrap_or(false);
    let committer = Committer::eip6800();
    let crs = Crs::eip6800();
    let mut rng = StdRng::seed_from_u64(1);
    let base: Vec<Fr> = (0..256).map(|_| Fr::rand(&mut rng)).collect();
    let base_c = committer.commit(&base);
    let distinct = n.div_ceil(4);
    let mut polys = Vec::with_capacity(distinct);
    let mut comms = Vec::with_capacity(distinct);
    for k in 0..distinct {
        let s = Fr::rand(&mut rng);
        if sparse {
            let mut p = vec![Fr::from(0u64); 256];
            p[k % 256] = s;
            p[(k + 7) % 256] = s;
            comms.push(committer.scalar_mul(k % 256, &s) + committer.scalar_mul((k + 7) % 256, &s));
            polys.push(p);
        } else {
            let mut p = base.clone();
            p[k % 256] += s;
            comms.push(base_c + committer.scalar_mul(k % 256, &s));
            polys.push(p);
        }
    }
    let pq: Vec<ProverQuery> = (0..n)
        .map(|i| {
            let z: u8 = rng.gen();
            ProverQuery {
                commitment: comms[i / 4],
                poly: &polys[i / 4],
                point: z,
                result: polys[i / 4][z as usize],
            }
        })
        .collect();
    let proof = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &pq);
    let vq: Vec<VerifierQuery> = pq
        .iter()
        .map(|q| VerifierQuery {
            commitment: q.commitment,
            point: q.point,
            result: q.result,
        })
        .collect();
    let _: Element = comms[0];
    let t = std::time::Instant::now();
    for _ in 0..iters {
        if what == "prove" {
            black_box(MultiProof::prove(
                committer,
                &mut Transcript::new(b"vt"),
                &pq,
            ));
        } else {
            proof.verify(crs, &mut Transcript::new(b"vt"), &vq).unwrap();
        }
    }
    println!("{what} {n}: {:?}/iter (wall)", t.elapsed() / iters as u32);
}
