//! Fq multiplication: latency (one dependent chain) against throughput (independent chains),
//! in CPU ns (`/proc/self/schedstat`). `cargo run --release -p tools --example field_cost`
#![allow(clippy::unwrap_used, missing_docs)]
use std::hint::black_box;
use std::time::Instant;

use banderwagon::arith::UniformRand;
use banderwagon::Fq;
use rand::{rngs::StdRng, SeedableRng};

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

fn cpu_ns() -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// `n` multiplications spread over `K` independent chains; prints CPU and wall ns per
/// multiplication.
fn chains<const K: usize>(label: &str, n: u32, y: Fq, rng: &mut StdRng) {
    let mut xs: [Fq; K] = std::array::from_fn(|_| Fq::rand(rng));
    let t = Instant::now();
    let c0 = cpu_ns();
    for _ in 0..n / K as u32 {
        for x in xs.iter_mut() {
            *x *= black_box(y);
        }
    }
    black_box(xs);
    println!(
        "{label}: cpu {:.2} ns wall {:.2} ns",
        (cpu_ns() - c0) / n as f64,
        t.elapsed().as_nanos() as f64 / n as f64
    );
}

fn main() {
    field_env::field_backend_from_env();
    let mut rng = StdRng::seed_from_u64(1);
    let y = Fq::rand(&mut rng);
    let n = 5_000_000u32;
    chains::<1>("mul latency", n, y, &mut rng);
    chains::<4>("mul throughput (4 chains)", n, y, &mut rng);
    chains::<2>("mul throughput (2 chains)", n, y, &mut rng);
}
