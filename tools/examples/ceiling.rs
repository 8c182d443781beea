//! The machine's own 2-thread speedup on the work a commit is made of: `ceiling [muls]
//! [rounds]` times `muls` (default 40,000) fixed-base multiplications on pseudo-random
//! generators and scalars, in generator order and in tasks of 256 as `commit_many` orders
//! and splits them (batched as `commit_many` batches them: `Committer::scalar_mul_many`), on a pool of
//! 1 thread and on a pool of 2, `rounds` times (default 5) alternating, and prints each
//! round's figures and the median speedup.
//!
//! Nothing in this work waits on anything: its speedup is what two cores give at that moment
//! (a virtual machine's second core may share its physical core or the host's memory
//! bandwidth with other guests). `scripts/apply-ratio.sh` runs it beside each pair of apply
//! benches, so the apply's speedup can be read against it.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use banderwagon::{Element, Fr};
use ipa::Committer;
use rayon::prelude::*;

/// A deterministic pseudo-random sequence (xorshift).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Milliseconds for all the multiplications on `pool`.
fn run(pool: &rayon::ThreadPool, work: &[(usize, Fr)], committer: &Committer) -> f64 {
    let start = Instant::now();
    let sum = pool.install(|| {
        work.par_chunks(256)
            .map(|c| {
                let mut products = vec![Element::identity(); c.len()];
                committer.scalar_mul_many(c.iter().map(|(g, s)| (*g, s)), &mut products);
                products.into_iter().sum::<Element>()
            })
            .reduce(Element::identity, |a, b| a + b)
    });
    let ms = start.elapsed().as_secs_f64() * 1e3;
    // Keeps the result alive (and the work from being optimised away).
    assert!(!sum.to_bytes().is_empty());
    ms
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let muls: usize = args.get(1).map_or(40_000, |a| a.parse().expect("muls"));
    let rounds: usize = args.get(2).map_or(5, |a| a.parse().expect("rounds"));
    let committer = Committer::eip6800();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let work: Vec<(usize, Fr)> = (0..muls)
        .map(|_| {
            let g = (next(&mut state) % 256) as usize;
            let s = Fr::from(next(&mut state)) * Fr::from(next(&mut state));
            (g, s * s)
        })
        .collect();
    // In generator order, as `commit_many` orders them (consecutive multiplications share
    // their generator's table rows).
    let mut work = work;
    work.sort_unstable_by_key(|(g, _)| *g);
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("thread pool")
    };
    let (one, two) = (pool(1), pool(2));
    // Warm-up: the generator tables are built on first use.
    run(&two, &work, committer);
    let mut speedups: Vec<f64> = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let t1 = run(&one, &work, committer);
        let t2 = run(&two, &work, committer);
        println!(
            "round {r}: 1 thread {t1:.1} ms, 2 threads {t2:.1} ms, speedup {:.2}",
            t1 / t2
        );
        speedups.push(t1 / t2);
    }
    speedups.sort_by(f64::total_cmp);
    let median = speedups.get(rounds / 2).copied().unwrap_or(f64::NAN);
    println!("ceiling: {muls} multiplications, {rounds} rounds, median speedup {median:.2}");
}
