//! Per-element cost of decompression: the fast decoder against the textbook path
//! (inverse, arkworks Tonelli–Shanks, Legendre symbol), for A/B runs under callgrind.
//!
//! `cargo run --release -p tools --example decode_cost -- [fast|old|both] [n]`
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Instant;

use banderwagon::arith::{Field, One, UniformRand};
use banderwagon::{Element, Fq, Fr};
use rand::{rngs::StdRng, SeedableRng};

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

fn old_decode(x: Fq) -> bool {
    // a = −5, d = 138827208126141220649022263972958607803 / 171449701953573178309673572579671231137
    let x2 = x.square();
    let num = Fq::one() + Fq::from(5u64) * x2;
    let den = Fq::one() - Fq::from(7u64) * x2; // cost-equivalent stand-in for d
    let y = den.inverse().and_then(|i| (num * i).sqrt());
    y.is_some() && num.legendre().is_qr()
}

fn main() {
    field_env::field_backend_from_env();
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("both");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut rng = StdRng::seed_from_u64(3);
    let pts: Vec<Element> = (0..n)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    let enc = Element::batch_to_bytes(&pts);
    if mode == "fast" || mode == "both" {
        let t = Instant::now();
        for e in &enc {
            black_box(Element::from_bytes(black_box(e)).unwrap());
        }
        println!("fast: {:?}/element", t.elapsed() / n as u32);
        let t = Instant::now();
        black_box(Element::batch_from_bytes(&enc).unwrap());
        println!("fast batch: {:?}/element", t.elapsed() / n as u32);
    }
    if mode == "ops" {
        let xs: Vec<Fq> = pts.iter().map(|p| p.to_affine_coordinates().0).collect();
        let t = Instant::now();
        let mut acc = Fq::one();
        for x in &xs {
            acc *= black_box(*x);
        }
        black_box(acc);
        println!("mul: {:?}", t.elapsed() / n as u32);
        let t = Instant::now();
        for x in &xs {
            black_box(black_box(*x).inverse());
        }
        println!("inverse: {:?}", t.elapsed() / n as u32);
        let t = Instant::now();
        for x in &xs {
            black_box(banderwagon::fq_inverse(black_box(x)));
        }
        println!("fq_inverse (binary GCD): {:?}", t.elapsed() / n as u32);
        let t = Instant::now();
        for p in &pts {
            black_box(black_box(p).map_to_scalar_field());
        }
        println!("map_to_scalar_field: {:?}", t.elapsed() / n as u32);
    }
    if mode == "old" || mode == "both" {
        let xs: Vec<Fq> = pts.iter().map(|p| p.to_affine_coordinates().0).collect();
        let t = Instant::now();
        let mut ok = 0;
        for x in &xs {
            ok += old_decode(black_box(*x)) as usize;
        }
        println!("old: {:?}/element ({ok} ok)", t.elapsed() / n as u32);
    }
}
