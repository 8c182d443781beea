//! Commit, prove and verify with the EIP-6800 CRS, printing what each step costs.
//!
//! `cargo run --release -p ipa --example demo [OPENINGS]`

use std::time::Instant;

use banderwagon::Fr;
use ipa::{Committer, Crs, MultiProof, ProverQuery, Transcript, VerifierQuery};

fn main() {
    let openings: usize = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 1024,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: demo [OPENINGS]   (a positive integer, default 1024)");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    let crs = Crs::eip6800();
    println!("crs: 256 generators in {:?}", t.elapsed());
    let committer = Committer::eip6800();
    println!(
        "committer tables: {:.1} MiB built in {:?}",
        committer.memory_bytes() as f64 / (1 << 20) as f64,
        committer.build_time()
    );
    // N/4 polynomials, each opened at 4 points.
    let polys: Vec<Vec<Fr>> = (0..openings.div_ceil(4))
        .map(|p| {
            (0..256u64)
                .map(|i| Fr::from(i * 7919 + p as u64 * 104_729 + 1))
                .collect()
        })
        .collect();
    let t = Instant::now();
    let comms = committer.batch_commit(&polys);
    println!("commit {} polynomials: {:?}", polys.len(), t.elapsed());
    let queries: Vec<ProverQuery> = (0..openings)
        .map(|i| {
            let p = i / 4;
            let z = ((i * 37) % 256) as u8;
            ProverQuery {
                commitment: comms[p],
                poly: &polys[p],
                point: z,
                result: polys[p][z as usize],
            }
        })
        .collect();
    let t = Instant::now();
    let proof = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &queries);
    println!("prove {openings} openings: {:?}", t.elapsed());
    let bytes = proof.to_bytes();
    let vq: Vec<VerifierQuery> = queries.iter().map(VerifierQuery::from).collect();
    let t = Instant::now();
    let decoded = match MultiProof::from_bytes(&bytes) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: our own proof did not decode: {e}");
            std::process::exit(1);
        }
    };
    match decoded.verify(crs, &mut Transcript::new(b"vt"), &vq) {
        Ok(()) => println!(
            "verify {openings} openings ({} bytes): ok in {:?}",
            bytes.len(),
            t.elapsed()
        ),
        Err(e) => {
            eprintln!("error: verification failed: {e}");
            std::process::exit(1);
        }
    }
    let mut bad = vq.clone();
    bad[0].result += Fr::from(1u64);
    let rejected = decoded
        .verify(crs, &mut Transcript::new(b"vt"), &bad)
        .is_err();
    println!("a changed value is rejected: {rejected}");
    if !rejected {
        std::process::exit(1);
    }
}
