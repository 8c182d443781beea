//! One variable-base MSM of `n` points, for instruction counts under callgrind.
//!
//! `cargo run --release -p banderwagon --example msm_cost -- [n]`
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use banderwagon::arith::UniformRand;
use banderwagon::{multi_scalar_mul, Element, Fr};
use rand::{rngs::StdRng, SeedableRng};

/// `FVERKLE_PORTABLE_FIELD` and `FVERKLE_NO_LANES` (set to anything but `0`) force the
/// portable field code or turn off the 8-lane products, for A/B measurements.
fn field_backend_from_env() {
    let on = |name: &str| std::env::var_os(name).is_some_and(|v| v != "0");
    if on("FVERKLE_PORTABLE_FIELD") {
        banderwagon::use_portable_field(true);
    }
    if on("FVERKLE_NO_LANES") {
        banderwagon::use_lanes(false);
    }
}

fn main() {
    field_backend_from_env();
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
    black_box(multi_scalar_mul(black_box(&pts), black_box(&sc)));
}
