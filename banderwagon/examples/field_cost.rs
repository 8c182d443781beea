//! Fq multiplication: latency (one dependent chain) against throughput (independent chains),
//! in CPU ns (`/proc/self/schedstat`). `cargo run --release -p banderwagon --example field_cost`
#![allow(clippy::unwrap_used, missing_docs)]
use std::hint::black_box;
use std::time::Instant;
fn cpu_ns() -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}
use banderwagon::arith::UniformRand;
use banderwagon::Fq;
use rand::{rngs::StdRng, SeedableRng};

fn main() {
    let mut rng = StdRng::seed_from_u64(1);
    let y = Fq::rand(&mut rng);
    let n = 5_000_000u32;
    let mut x = Fq::rand(&mut rng);
    let t = Instant::now();
    let c0 = cpu_ns();
    for _ in 0..n {
        x *= black_box(y);
    }
    black_box(x);
    println!(
        "mul latency: cpu {:.2} ns wall {:.2} ns",
        (cpu_ns() - c0) / n as f64,
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let mut xs = [
        Fq::rand(&mut rng),
        Fq::rand(&mut rng),
        Fq::rand(&mut rng),
        Fq::rand(&mut rng),
    ];
    let t = Instant::now();
    let c0 = cpu_ns();
    for _ in 0..n / 4 {
        for x in xs.iter_mut() {
            *x *= black_box(y);
        }
    }
    black_box(xs);
    println!(
        "mul throughput (4 chains): cpu {:.2} ns wall {:.2} ns",
        (cpu_ns() - c0) / n as f64,
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let mut xs = [Fq::rand(&mut rng), Fq::rand(&mut rng)];
    let t = Instant::now();
    let c0 = cpu_ns();
    for _ in 0..n / 2 {
        for x in xs.iter_mut() {
            *x *= black_box(y);
        }
    }
    black_box(xs);
    println!(
        "mul throughput (2 chains): cpu {:.2} ns wall {:.2} ns",
        (cpu_ns() - c0) / n as f64,
        t.elapsed().as_nanos() as f64 / n as f64
    );
}
