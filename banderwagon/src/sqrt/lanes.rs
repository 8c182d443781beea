//! Eight square roots at once on the AVX-512 IFMA lanes (`field::backend::ifma`), for point
//! decompression in batches.
//!
//! [`sqrt_ratio8`] gives, lane by lane, what `sqrt::sqrt_ratio` gives. The fixed part — the
//! chain `v^(2³²−1)`, `v^(2³³−1)`, the sliding-window power `(u·v^(2³³−1))^((m−1)/2)` and the
//! products `c = x^((m+1)/2)`, `τ = x^m` (`sqrt/mod.rs` explains them), about 330 of the 360
//! field products of a root — runs on eight lanes at once; the discrete logarithm of `τ` and
//! the last product run per lane on the scalar arithmetic.
//!
//! # Montgomery domains
//!
//! `ifma::mul` computes `a·b·2⁻²⁶⁰`, arkworks keeps `x·2²⁵⁶`. The lanes are loaded with
//! arkworks' words and multiplied once by `2²⁶⁴ mod p`, which gives `x·2²⁶⁰`, the lanes' own
//! Montgomery form, where products stay exact; the results go back by one product with
//! `2²⁵⁶ mod p` and a final reduction below `p`.
//!
//! # Bounds
//!
//! Every value entering `ifma::mul` is either loaded or constant (below `p`) or the output
//! of a previous `mul` (below `2p`), so each product's inputs multiply to at most `4p²`,
//! within the `35p²` that `ifma::mul` allows.
//!
//! # Safety
//!
//! The `#[target_feature]` function is reached only from [`sqrt_ratio8`], which takes the
//! [`Ifma`] token proving the features were detected.
#![allow(unsafe_code)]

use ark_ff::{BigInt, Field, One, PrimeField, Zero};

use super::{tables, Schedule};
use crate::field::backend::ifma::{self, Ifma, F8, LANES};
use crate::field::montgomery::FieldMul;
use crate::field::with_field_mul;
use crate::Fq;

/// `2^k mod p` as a canonical integer's four words.
fn two_pow(k: u64) -> [u64; 4] {
    Fq::from(2u64).pow([k]).into_bigint().0
}

/// All lanes holding the integer `w` (below `p`).
#[target_feature(enable = "avx512f,avx512ifma")]
fn splat_words(w: &[u64; 4]) -> F8 {
    F8::from_words(&[[w[0]; 8], [w[1]; 8], [w[2]; 8], [w[3]; 8]])
}

/// The lanes of eight arkworks elements (their Montgomery words).
#[target_feature(enable = "avx512f,avx512ifma")]
fn load(x: &[Fq; LANES]) -> F8 {
    let words: [[u64; 8]; 4] = core::array::from_fn(|k| core::array::from_fn(|l| x[l].0 .0[k]));
    F8::from_words(&words)
}

/// Eight arkworks elements from lanes below `p` holding Montgomery words.
#[target_feature(enable = "avx512f,avx512ifma")]
fn unload(x: &F8) -> [Fq; LANES] {
    let w = x.to_words();
    core::array::from_fn(|l| Fq::new_unchecked(BigInt([w[0][l], w[1][l], w[2][l], w[3][l]])))
}

#[target_feature(enable = "avx512f,avx512ifma")]
fn square(a: &F8) -> F8 {
    ifma::mul(a, a)
}

/// `x^(2^k − 1)` for `k` a power of two (as `sqrt::pow_2k_minus_1`).
#[target_feature(enable = "avx512f,avx512ifma")]
fn pow_2k_minus_1(x: &F8, k: u32) -> F8 {
    let mut acc = *x;
    let mut j = 1;
    while j < k {
        let mut y = acc;
        for _ in 0..j {
            y = square(&y);
        }
        acc = ifma::mul(&acc, &y);
        j *= 2;
    }
    acc
}

/// `x^e` for the exponent `schedule` stands for (as `Schedule::pow`).
#[target_feature(enable = "avx512f,avx512ifma")]
fn pow(schedule: &Schedule, x: &F8) -> F8 {
    let x2 = square(x);
    let mut odd = [*x; 16];
    for k in 1..odd.len() {
        odd[k] = ifma::mul(&odd[k - 1], &x2);
    }
    let mut acc = odd[usize::from(schedule.first >> 1)];
    for &(sq, d) in &schedule.steps {
        for _ in 0..sq {
            acc = square(&acc);
        }
        if d != 0 {
            acc = ifma::mul(&acc, &odd[usize::from(d >> 1)]);
        }
    }
    acc
}

/// `c` and `τ^(2^(8k))` for `k = 0..4` of each lane, `c = u^((m+1)/2)·v^(−(m+1)/2)`,
/// `τ = (u/v)^m` (non-zero inputs): the discrete logarithm's squarings on the lanes too.
#[target_feature(enable = "avx512f,avx512ifma")]
fn fixed_part(
    u: &[Fq; LANES],
    v: &[Fq; LANES],
    schedule: &Schedule,
) -> ([Fq; LANES], [[Fq; LANES]; 4]) {
    let to_own = splat_words(&two_pow(264));
    let to_arkworks = splat_words(&two_pow(256));
    let u = ifma::mul(&load(u), &to_own);
    let v = ifma::mul(&load(v), &to_own);
    let v_m1 = pow_2k_minus_1(&v, 32);
    let v_2_33_m1 = ifma::mul(&square(&v_m1), &v);
    let s = ifma::mul(&pow(schedule, &ifma::mul(&u, &v_2_33_m1)), &v_m1);
    let c = ifma::mul(&s, &u);
    let tau = ifma::mul(&ifma::mul(&c, &s), &v);
    let back = |x: &F8| unload(&ifma::reduce(&ifma::mul(x, &to_arkworks)));
    let mut pw = [tau; 4];
    for k in 1..4 {
        let mut y = pw[k - 1];
        for _ in 0..8 {
            y = square(&y);
        }
        pw[k] = y;
    }
    (back(&c), pw.map(|p| back(&p)))
}

/// `sqrt::sqrt_ratio(u[i], v[i])` for each lane `i`: `None` where `v` is zero or `u/v` is
/// not a square, zero where `u` is zero, else a square root (the same one).
pub(crate) fn sqrt_ratio8(_ifma: Ifma, u: &[Fq; LANES], v: &[Fq; LANES]) -> [Option<Fq>; LANES] {
    // Lanes with a zero input take 1/1 through the lanes; their answers are set below.
    let zero = |l: usize| u[l].is_zero() || v[l].is_zero();
    let uu: [Fq; LANES] = core::array::from_fn(|l| if zero(l) { Fq::one() } else { u[l] });
    let vv: [Fq; LANES] = core::array::from_fn(|l| if zero(l) { Fq::one() } else { v[l] });
    let tb = tables();
    // SAFETY: the `Ifma` token proves AVX-512F and AVX-512 IFMA were detected.
    let (c, pw) = unsafe { fixed_part(&uu, &vv, &tb.half_m) };
    core::array::from_fn(|l| {
        if v[l].is_zero() {
            return None;
        }
        if u[l].is_zero() {
            return Some(Fq::zero());
        }
        with_field_mul!(|m| {
            let e = tb.dlog_from_powers(m, &[pw[0][l], pw[1][l], pw[2][l], pw[3][l]]);
            if e & 1 == 1 {
                None
            } else {
                Some(m.mul(&c[l], &tb.g_neg_pow(m, e >> 1)))
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::test_values::edge_values;
    use crate::sqrt::sqrt_ratio;
    use ark_ff::UniformRand;
    use rand::{rngs::StdRng, SeedableRng};

    #[test]
    #[cfg_attr(
        not(build_host_has_ifma),
        ignore = "the build machine has no AVX-512 IFMA: the 8-lane square roots are not tested"
    )]
    fn eight_lanes_give_the_scalar_roots() {
        let ifma = Ifma::detect().expect("the build machine reported IFMA");
        let mut rng = StdRng::seed_from_u64(0x5147);
        let mut values = edge_values();
        values.extend((0..64).map(|_| Fq::rand(&mut rng)));
        // Squares and their negatives (non-squares: −1 is not a square mod p), zeros.
        let mut pick = |i: usize| -> Fq {
            match i % 5 {
                0 => {
                    let r = values[i % values.len()];
                    r * r
                }
                1 => Fq::rand(&mut rng),
                2 => values[(i * 3) % values.len()],
                3 => -values[(i * 7) % values.len()].square(),
                _ => Fq::rand(&mut rng).square(),
            }
        };
        let mut roots = 0;
        for i in 0..600 {
            let u: [Fq; LANES] = core::array::from_fn(|l| pick(i * 8 + l));
            let v: [Fq; LANES] = core::array::from_fn(|l| pick(i * 8 + l + 3));
            let got = sqrt_ratio8(ifma, &u, &v);
            for l in 0..LANES {
                let want = sqrt_ratio(&u[l], &v[l]);
                assert_eq!(got[l], want, "lane {l}: u = {}, v = {}", u[l], v[l]);
                if let Some(y) = got[l] {
                    assert_eq!(y.square() * v[l], u[l]);
                    roots += 1;
                }
            }
        }
        assert!(roots > 1000 && roots < 4500, "{roots} roots of 4800");
    }
}
