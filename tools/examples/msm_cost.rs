//! One variable-base MSM of `n` points, for instruction counts under callgrind.
//!
//! `cargo run --release -p tools --example msm_cost -- [n]`
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use banderwagon::arith::UniformRand;
use banderwagon::{vartime_multi_scalar_mul, Element, Fr};
use rand::{rngs::StdRng, SeedableRng};

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

fn main() {
    field_env::field_backend_from_env();
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(250);
    let mut rng = StdRng::seed_from_u64(9);
    let step = Element::generator() * Fr::rand(&mut rng);
    let mut p = Element::generator();
    let pts: Vec<Element> = (0..n)
        .map(|_| {
            p += step;
            p
        })
        .collect();
    let sc: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    black_box(vartime_multi_scalar_mul(black_box(&pts), black_box(&sc)));
}
