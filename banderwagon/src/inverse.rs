//! Variable-time modular inversion by a binary extended GCD that runs its inner steps on
//! 64-bit approximations of the operands (the approach of Pornin, "Optimized Binary GCD for
//! Modular Inversion", 2020; this is an independent implementation).
//!
//! Each outer round takes `a, b` (`b` odd), builds 64-bit words holding their low 30 bits
//! and their top 34 bits (aligned to the longer operand), and runs 30 binary-GCD steps on
//! those words, recording the steps as a matrix `[[f0, g0], [f1, g1]]` with
//! `|entries| ≤ 2³⁰` (each row packed in one u64). The matrix is then applied once to the
//! full 256-bit `a, b` (exact division by 2³⁰) and to the Bézout coefficients `u, v` (kept modulo `p` with a
//! one-limb Montgomery reduction, i.e. a factor `2⁻⁶⁴` per round). Parity decisions are
//! exact; comparisons on the approximations may err, which only costs a sign flip that is
//! undone after the update. With the invariant `a ≡ x·u·2³⁴ᵗ`, `b ≡ x·v·2³⁴ᵗ (mod p)`
//! after `t` rounds, the loop ends at `a = 0, b = 1`, so `x⁻¹ = v·2³⁴ᵀ`.
//!
//! The operands are the raw Montgomery words `X = x·2²⁵⁶`, and the final correction
//! multiplies by a per-`T` constant so that the result is again in Montgomery form. The
//! input is public here (commitments), so variable time is fine. If the loop ever fails to
//! finish within [`MAX_ROUNDS`] (it cannot for primes below 2²⁵⁵: 509 steps, 17 rounds, suffice), the
//! caller falls back to arkworks' inversion.

use crate::prelude::*;

use crate::once::Once as OnceLock;

use ark_ff::{BigInt, Field, Zero};

use crate::field::montgomery::neg_inverse_mod_2_64;
use crate::{Fq, Fr};

/// Steps per round (so that `|f|, |g| ≤ 2³⁰` fit the packed 32-bit halves).
const K: u32 = 30;
/// Rounds allowed before giving up (17 always suffice for a 255-bit modulus).
const MAX_ROUNDS: usize = 20;

type Limbs = [u64; 4];

pub(crate) fn bit_len(a: &Limbs) -> u32 {
    for i in (0..4).rev() {
        if a[i] != 0 {
            return 64 * i as u32 + (64 - a[i].leading_zeros());
        }
    }
    0
}

/// The 64 bits of `a` starting at bit `s` (`s ≤ 255`).
pub(crate) fn bits_from(a: &Limbs, s: u32) -> u64 {
    let w = (s / 64) as usize;
    let r = s % 64;
    let lo = a[w] >> r;
    if r == 0 || w == 3 {
        lo
    } else {
        lo | (a[w + 1] << (64 - r))
    }
}

/// `(f·a + g·b) / 2^shift` (`0 < shift < 64`) for non-negative `a, b < 2²⁵⁶`, as magnitude
/// and sign (true when negative). The division is exact by construction of the matrix
/// (here with `shift = 30`; `crate::legendre` uses its own step count).
pub(crate) fn lin_shift(a: &Limbs, b: &Limbs, f: i64, g: i64, shift: u32) -> (Limbs, bool) {
    let mut s = [0u64; 5];
    let mut carry: i128 = 0;
    for i in 0..4 {
        let t = (f as i128) * (a[i] as i128) + (g as i128) * (b[i] as i128) + carry;
        s[i] = t as u64;
        carry = t >> 64;
    }
    s[4] = carry as u64;
    let neg = carry < 0;
    if neg {
        // Two's-complement negation of the 320-bit value.
        let mut c = 1u64;
        for w in s.iter_mut() {
            let (v, o) = (!*w).overflowing_add(c);
            *w = v;
            c = o as u64;
        }
    }
    let mut out = [0u64; 4];
    for i in 0..4 {
        out[i] = (s[i] >> shift) | (s[i + 1] << (64 - shift));
    }
    (out, neg)
}

/// Modulus data for one field.
struct Modulus {
    p: Limbs,
    /// `−p⁻¹ mod 2⁶⁴`.
    n0: u64,
}

impl Modulus {
    fn new(p: Limbs) -> Self {
        Modulus {
            p,
            n0: neg_inverse_mod_2_64(p[0]),
        }
    }
}

/// `(f·u + g·v)·2⁻⁶⁴ mod p`, for `u, v < 2²⁵⁵`; result in `[0, p + 2²²⁵)`.
fn lin_mod(m: &Modulus, u: &Limbs, v: &Limbs, f: i64, g: i64) -> Limbs {
    let mut s = [0u64; 4];
    let mut carry: i128 = 0;
    for i in 0..4 {
        let t = (f as i128) * (u[i] as i128) + (g as i128) * (v[i] as i128) + carry;
        s[i] = t as u64;
        carry = t >> 64;
    }
    let s4 = carry; // signed top, |s4| < 2³⁴
    let q = s[0].wrapping_mul(m.n0);
    // r = s + q·p; r[0] becomes 0.
    let mut r = [0u64; 4];
    let mut c: i128 = 0;
    for i in 0..4 {
        let prod = (q as u128) * (m.p[i] as u128);
        let acc = s[i] as i128 + (prod as u64) as i128 + c;
        r[i] = acc as u64;
        c = (acc >> 64) + (prod >> 64) as i128;
    }
    let top = s4 + c; // value = (r[1], r[2], r[3], top) after dividing by 2⁶⁴
    let mut out = [r[1], r[2], r[3], top as u64];
    if top < 0 {
        // Add p once: the value is > −2²²⁵ > −p.
        let mut cc = 0u128;
        for i in 0..4 {
            let t = out[i] as u128 + m.p[i] as u128 + cc;
            out[i] = t as u64;
            cc = t >> 64;
        }
    }
    out
}

fn geq(a: &Limbs, b: &Limbs) -> bool {
    for i in (0..4).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

fn sub_in_place(a: &mut Limbs, b: &Limbs) {
    let mut borrow = 0u64;
    for i in 0..4 {
        let (d1, o1) = a[i].overflowing_sub(b[i]);
        let (d2, o2) = d1.overflowing_sub(borrow);
        a[i] = d2;
        borrow = (o1 | o2) as u64;
    }
}

/// `(v, T)` with `x·v·2³⁴ᵀ ≡ 1 (mod p)` and `v < p`, or `None` if the loop did not finish
/// (only possible if `x = 0` or the bound is wrong). `x` must be in `[1, p)`.
fn raw_inverse(m: &Modulus, x: &Limbs) -> Option<(Limbs, usize)> {
    let mut a = *x;
    let mut b = m.p;
    let mut u: Limbs = [1, 0, 0, 0];
    let mut v: Limbs = [0; 4];
    let low_mask = (1u64 << K) - 1;
    for round in 0..MAX_ROUNDS {
        if a == [0; 4] {
            if b == [1, 0, 0, 0] {
                if geq(&v, &m.p) {
                    sub_in_place(&mut v, &m.p);
                }
                return Some((v, round));
            }
            return None;
        }
        let n = bit_len(&a).max(bit_len(&b)).max(64);
        let (mut xa, mut xb) = if n == 64 {
            (a[0], b[0])
        } else {
            let s = n - (64 - K);
            (
                (a[0] & low_mask) | (bits_from(&a, s) << K),
                (b[0] & low_mask) | (bits_from(&b, s) << K),
            )
        };
        // The matrix rows packed as `f + g·2³²` (wrapping): every step is linear in them.
        let (mut p0, mut p1) = (1u64, 1u64 << 32);
        for _ in 0..K {
            // Branch-free step: the branches are data-dependent coin flips.
            let odd = (xa & 1).wrapping_neg();
            let swap = odd & ((xa < xb) as u64).wrapping_neg();
            let t = (xa ^ xb) & swap;
            xa ^= t;
            xb ^= t;
            let t = (p0 ^ p1) & swap;
            p0 ^= t;
            p1 ^= t;
            xa -= xb & odd;
            p0 = p0.wrapping_sub(p1 & odd);
            xa >>= 1;
            p1 <<= 1;
        }
        let (mut f0, mut g0) = unpack(p0);
        let (mut f1, mut g1) = unpack(p1);
        let (na, na_neg) = lin_shift(&a, &b, f0, g0, K);
        let (nb, nb_neg) = lin_shift(&a, &b, f1, g1, K);
        if na_neg {
            f0 = -f0;
            g0 = -g0;
        }
        if nb_neg {
            f1 = -f1;
            g1 = -g1;
        }
        let nu = lin_mod(m, &u, &v, f0, g0);
        let nv = lin_mod(m, &u, &v, f1, g1);
        a = na;
        b = nb;
        u = nu;
        v = nv;
    }
    None
}

/// `(f, g)` from the packed row `f + g·2³² mod 2⁶⁴` with `|f|, |g| < 2³¹` (shared with
/// `crate::legendre`).
pub(crate) fn unpack(p: u64) -> (i64, i64) {
    let f = p as u32 as i32 as i64;
    let g = (p as i64).wrapping_sub(f) >> 32;
    (f, g)
}

/// Field elements with value `2^(34·T + 512)` for `T < MAX_ROUNDS`: multiplying the raw
/// result `v` (read as a Montgomery word) by it gives `x⁻¹` in Montgomery form.
fn corrections<F: Field>() -> Vec<F> {
    let two = F::one() + F::one();
    (0..MAX_ROUNDS)
        .map(|t| two.pow([(64 - K as u64) * t as u64 + 512]))
        .collect()
}

/// `x⁻¹` in the Bandersnatch base field (`None` for zero), bit-identical to
/// `Field::inverse` but several times faster. Variable time.
pub fn fq_inverse(x: &Fq) -> Option<Fq> {
    static M: OnceLock<(Modulus, Vec<Fq>)> = OnceLock::new();
    if x.is_zero() {
        return None;
    }
    let (m, corr) = M.get_or_init(|| {
        let p = <Fq as ark_ff::PrimeField>::MODULUS.0;
        (Modulus::new(p), corrections::<Fq>())
    });
    match raw_inverse(m, &x.0 .0) {
        Some((v, t)) => corr
            .get(t)
            .map(|c| Fq::new_unchecked(BigInt(v)) * c)
            .or_else(|| x.inverse()),
        None => x.inverse(),
    }
}

/// `x⁻¹` in the Banderwagon scalar field (`None` for zero), bit-identical to
/// `Field::inverse`. Variable time.
pub fn fr_inverse(x: &Fr) -> Option<Fr> {
    static M: OnceLock<(Modulus, Vec<Fr>)> = OnceLock::new();
    if x.is_zero() {
        return None;
    }
    let (m, corr) = M.get_or_init(|| {
        let p = <Fr as ark_ff::PrimeField>::MODULUS.0;
        (Modulus::new(p), corrections::<Fr>())
    });
    match raw_inverse(m, &x.0 .0) {
        Some((v, t)) => corr
            .get(t)
            .map(|c| Fr::new_unchecked(BigInt(v)) * c)
            .or_else(|| x.inverse()),
        None => x.inverse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::UniformRand;
    use rand::{rngs::StdRng, SeedableRng};

    fn edge_cases<F: ark_ff::PrimeField>() -> Vec<F> {
        let mut v = vec![
            F::zero(),
            F::one(),
            -F::one(),
            F::from(2u64),
            -F::from(2u64),
        ];
        for k in [
            1u64, 31, 32, 33, 62, 63, 64, 65, 127, 128, 191, 192, 200, 250, 253, 254,
        ] {
            let p = F::from(2u64).pow([k]);
            v.push(p);
            v.push(p - F::one());
            v.push(p + F::one());
            v.push(-p);
        }
        // Values with small / large raw Montgomery words.
        for w in [1u64, 2, 3, u64::MAX] {
            v.push(F::from_bigint(F::BigInt::from(w)).unwrap_or_default());
        }
        v
    }

    #[test]
    fn fq_matches_arkworks() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut xs = edge_cases::<Fq>();
        xs.extend((0..20000).map(|_| Fq::rand(&mut rng)));
        for x in &xs {
            assert_eq!(fq_inverse(x), x.inverse(), "x = {x}");
        }
    }

    #[test]
    fn fr_matches_arkworks() {
        let mut rng = StdRng::seed_from_u64(8);
        let mut xs = edge_cases::<Fr>();
        xs.extend((0..20000).map(|_| Fr::rand(&mut rng)));
        for x in &xs {
            assert_eq!(fr_inverse(x), x.inverse(), "x = {x}");
        }
    }

    #[test]
    fn never_falls_back() {
        let mut rng = StdRng::seed_from_u64(9);
        let p = <Fq as ark_ff::PrimeField>::MODULUS.0;
        let m = Modulus::new(p);
        let mut worst = 0;
        for x in (0..5000)
            .map(|_| Fq::rand(&mut rng))
            .chain(edge_cases::<Fq>())
        {
            if x.is_zero() {
                continue;
            }
            let (_, t) = raw_inverse(&m, &x.0 .0).expect("finishes");
            worst = worst.max(t);
        }
        assert!(worst <= 17, "worst {worst}");
        let p = <Fr as ark_ff::PrimeField>::MODULUS.0;
        let m = Modulus::new(p);
        for x in (0..5000)
            .map(|_| Fr::rand(&mut rng))
            .chain(edge_cases::<Fr>())
        {
            if x.is_zero() {
                continue;
            }
            let (_, t) = raw_inverse(&m, &x.0 .0).expect("finishes");
            assert!(t <= 17);
        }
    }
}
