//! The Legendre symbol `(x | p)` by a binary GCD whose inner steps run on 64-bit
//! approximations of the operands, tracking the symbol's sign as it goes (the approach of
//! Pornin, "Optimized Binary GCD for Modular Inversion", 2020, carried over from inversion
//! to the Jacobi symbol; this is an independent implementation).
//!
//! The binary algorithm keeps `J = (a | b)` for odd `b` and repeats: strip the factors of two
//! from `a` (each flips `J` when `b ≡ ±3 mod 8`), swap `a, b` when `a < b` (a flip when
//! `a ≡ b ≡ 3 mod 4`, by quadratic reciprocity), subtract `a −= b` (no change). It ends at
//! `a = 0, b = gcd = 1`, where `J` is the answer. Every rule reads only the low three bits of
//! the operands.
//!
//! Each round takes `a, b` and builds 64-bit words from their low [`LOW`] bits and the top
//! `64 − LOW` bits of the longer operand, runs [`STEPS`] halvings on those words (recording
//! them as a matrix with entries of at most `2^STEPS`, each row packed in one `u64`), then
//! applies the matrix once to the full 256-bit values (an exact division by `2^STEPS`).
//! The low bits of the words stay exact (two-adically) for `LOW − s` bits after `s`
//! halvings; [`STEPS`] `= LOW − 2` keeps three exact bits for every decision that reads
//! them. Comparisons on the approximations may be wrong, so one operand can go negative;
//! the symbol is kept as `(a | |b|)`, for which the halving and subtraction rules hold as
//! they are and reciprocity holds unless both operands are negative — which the steps
//! (swap, `a − b`, halve) can never reach from two non-negative operands. After a round
//! a negative `a` is negated with the factor `(−1 | |b|)`, a negative `b` for free. Once
//! both operands fit in 64 bits the words are exact and the algorithm finishes on them.
//!
//! The operand is the raw Montgomery word `x·2²⁵⁶ mod p`: `2²⁵⁶` is a square, so the
//! symbol is the same and no conversion is needed. Inputs are public (point encodings), so
//! variable time is fine.

use crate::inverse::{bit_len, bits_from, lin_shift, unpack};

/// Four little-endian 64-bit limbs.
type Limbs = [u64; 4];

/// Low bits of each operand kept exact in the 64-bit approximations.
const LOW: u32 = 31;
/// Halvings per round: each decision reads up to three exact low bits.
const STEPS: u32 = LOW - 2;
/// Rounds allowed before giving up (≈ 14 are needed for 255-bit operands).
const MAX_ROUNDS: usize = 40;

/// The `(x | p)` sign flip for halving `a` `t` times, `b` odd: `(2 | b) = −1` iff
/// `b ≡ 3, 5 (mod 8)`, i.e. iff bits 1 and 2 of `b` differ. Returns 0 or 1.
#[inline(always)]
fn halving_flip(t: u32, b: u64) -> u64 {
    ((b >> 1) ^ (b >> 2)) & u64::from(t) & 1
}

/// The flip for swapping odd `a, b` by reciprocity: `−1` iff both are `3 mod 4`. 0 or 1.
#[inline(always)]
fn swap_flip(a: u64, b: u64) -> u64 {
    (a & b) >> 1 & 1
}

/// Whether `(a | b) = 1` for 64-bit `a ≥ 0` and odd `b > 0`, with `flip` (0 or 1) already
/// accumulated; the exact binary algorithm.
fn finish(mut a: u64, mut b: u64, mut flip: u64) -> bool {
    loop {
        if a == 0 {
            return b == 1 && flip == 0;
        }
        let t = a.trailing_zeros();
        a >>= t;
        flip ^= halving_flip(t, b);
        // As in the rounds, branch-free: (a, b) ← (a − b, b) or (b − a, a).
        let (d, borrow) = a.overflowing_sub(b);
        let swap = u64::from(borrow).wrapping_neg();
        flip ^= swap & swap_flip(a, b);
        b = b.wrapping_add(d & swap);
        a = (d ^ swap).wrapping_sub(swap);
    }
}

/// Whether the Legendre symbol `(x | p)` is 1, for an odd prime `p < 2²⁵⁵` and `0 ≤ x < p`
/// (0 gives `false`); `None` if the loop did not finish within [`MAX_ROUNDS`] (it always
/// does for 255-bit operands; the caller then falls back to a slower method).
pub(crate) fn legendre_is_one(x: &Limbs, p: &Limbs) -> Option<bool> {
    let mut a = *x;
    let mut b = *p;
    let mut flip = 0u64;
    let low_mask = (1u64 << LOW) - 1;
    for _ in 0..MAX_ROUNDS {
        if (a[1] | a[2] | a[3] | b[1] | b[2] | b[3]) == 0 {
            return Some(finish(a[0], b[0], flip));
        }
        if a == [0; 4] {
            // gcd(x, p) = b > 1: x ≡ 0.
            return Some(false);
        }
        let s = bit_len(&a).max(bit_len(&b)) - (64 - LOW);
        let mut xa = (a[0] & low_mask) | (bits_from(&a, s) << LOW);
        let mut xb = (b[0] & low_mask) | (bits_from(&b, s) << LOW);
        // Rows `f + g·2³²`: 2^steps·a' = f0·a + g0·b and 2^steps·b' = f1·a + g1·b.
        let (mut p0, mut p1) = (1u64, 1u64 << 32);
        let mut budget = STEPS;
        // Halve a as often as it is even, within the budget (a zero word takes all of it).
        let t = xa.trailing_zeros().min(budget);
        xa >>= t;
        p1 <<= t;
        budget -= t;
        flip ^= halving_flip(t, xb);
        while budget > 0 {
            // a is odd: (a, b) ← (a − b, b) when a ≥ b, else (b − a, a) (the swap then
            // the subtraction); the comparison may err on approximations. Branch-free: the
            // swap is a coin flip.
            let (d, borrow) = xa.overflowing_sub(xb);
            let swap = u64::from(borrow).wrapping_neg();
            flip ^= swap & swap_flip(xa, xb);
            xb = xb.wrapping_add(d & swap);
            xa = (d ^ swap).wrapping_sub(swap);
            let dp = p0.wrapping_sub(p1);
            p1 = p1.wrapping_add(dp & swap);
            p0 = (dp ^ swap).wrapping_sub(swap);
            // a is even now: halve it as often as it is even, within the budget. The last
            // halving of a round is the rare branch; xa is not used after it.
            let t = xa.trailing_zeros();
            if t >= budget {
                p1 <<= budget;
                flip ^= halving_flip(budget, xb);
                break;
            }
            xa >>= t;
            p1 <<= t;
            budget -= t;
            flip ^= halving_flip(t, xb);
        }
        let (f0, g0) = unpack(p0);
        let (f1, g1) = unpack(p1);
        let (na, a_neg) = lin_shift(&a, &b, f0, g0, STEPS);
        let (nb, b_neg) = lin_shift(&a, &b, f1, g1, STEPS);
        if a_neg && b_neg {
            // Unreachable from non-negative operands; do not trust the symbol.
            return None;
        }
        if a_neg {
            // (−a | b) = (−1 | b)·(a | b), and (−1 | b) = −1 iff b ≡ 3 mod 4.
            flip ^= nb[0] >> 1 & 1;
        }
        a = na;
        b = nb;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Fq;
    use ark_ff::{BigInteger, FftField, Field, One, PrimeField, UniformRand, Zero};
    use rand::{rngs::StdRng, Rng, SeedableRng};

    /// Euler's criterion, `x^((p−1)/2) = 1`: the reference.
    fn euler(x: &Fq) -> bool {
        let mut e = Fq::MODULUS;
        e.div2();
        !x.is_zero() && x.pow(e).is_one()
    }

    fn ours(x: &Fq) -> bool {
        legendre_is_one(&x.0 .0, &Fq::MODULUS.0).expect("finishes")
    }

    /// The same on the canonical (non-Montgomery) integer: the symbol of `x` itself.
    fn ours_canonical(x: &Fq) -> bool {
        legendre_is_one(&x.into_bigint().0, &Fq::MODULUS.0).expect("finishes")
    }

    #[test]
    fn random_elements_match_euler() {
        let mut rng = StdRng::seed_from_u64(41);
        let mut squares = 0;
        for i in 0..100_000 {
            let x = if i % 4 == 0 {
                Fq::rand(&mut rng).square()
            } else {
                Fq::rand(&mut rng)
            };
            let want = euler(&x);
            assert_eq!(ours(&x), want, "x = {x}");
            squares += usize::from(want);
        }
        // A quarter are squares by construction, half of the rest by chance.
        assert!((55_000..70_000).contains(&squares), "{squares}");
        for _ in 0..5_000 {
            let x = Fq::rand(&mut rng);
            assert_eq!(ours_canonical(&x), euler(&x), "x = {x}");
        }
    }

    #[test]
    fn edge_cases_match_euler() {
        let mut xs = vec![
            Fq::zero(),
            Fq::one(),
            -Fq::one(),
            Fq::from(2u64),
            -Fq::from(2u64),
            Fq::GENERATOR,
            Fq::TWO_ADIC_ROOT_OF_UNITY,
        ];
        for k in 1..300u64 {
            xs.push(Fq::from(k));
            xs.push(-Fq::from(k));
            xs.push(Fq::from(k).square());
            xs.push(Fq::from(k).square() * Fq::GENERATOR);
        }
        for k in [
            1u64, 29, 30, 31, 32, 33, 63, 64, 65, 127, 128, 200, 253, 254,
        ] {
            let p = Fq::from(2u64).pow([k]);
            xs.extend([p, p - Fq::one(), p + Fq::one(), -p]);
        }
        for x in &xs {
            assert_eq!(ours(x), euler(x), "x = {x}");
            assert_eq!(ours_canonical(x), euler(x), "x = {x}");
        }
        assert!(!ours(&Fq::zero()));
        assert!(ours(&Fq::one()));
        // p ≡ 1 mod 4: −1 is a square; the multiplicative generator is not.
        assert!(ours(&-Fq::one()));
        assert!(!ours(&Fq::GENERATOR));
    }

    /// Raw words with long runs of zero or one bits, and near-equal operands (the
    /// approximations then cannot order them), over the whole range `[0, p)`.
    #[test]
    fn structured_words_match_euler() {
        let p = Fq::MODULUS.0;
        let mut rng = StdRng::seed_from_u64(42);
        let mut words: Vec<Limbs> = vec![[1, 0, 0, 0], [0, 0, 0, 1], [u64::MAX, 0, 0, 0]];
        for i in 0..256u32 {
            let mut w = [0u64; 4];
            w[(i / 64) as usize] = 1 << (i % 64);
            words.push(w);
            let mut m = p;
            m[(i / 64) as usize] ^= 1 << (i % 64);
            words.push(m);
        }
        for _ in 0..2000 {
            // p minus a small or a 64-bit offset, and random low words under a p-like top.
            let off: u64 = if rng.gen() {
                rng.gen_range(1..1000)
            } else {
                rng.gen()
            };
            let mut w = p;
            let (v, borrow) = w[0].overflowing_sub(off);
            w[0] = v;
            if borrow {
                w[1] -= 1;
            }
            words.push(w);
            words.push([rng.gen(), rng.gen(), 0, p[3]]);
            words.push([rng.gen(), 0, 0, 0]);
            words.push([rng.gen(), rng.gen(), 0, 0]);
        }
        for w in words {
            let Some(x) = Fq::from_bigint(ark_ff::BigInt(w)) else {
                continue; // not below p
            };
            let got = legendre_is_one(&w, &p).expect("finishes");
            assert_eq!(got, euler(&x), "w = {w:x?}");
        }
    }

    /// Small primes, against Euler's criterion over the integers, for every residue:
    /// exercises the exact 64-bit finish on its own.
    #[test]
    fn small_primes_every_residue() {
        for q in [3u64, 5, 7, 11, 13, 17, 19, 23, 101, 103, 65_537, 1_000_003] {
            let pow = |b: u64, mut e: u64| {
                let m = u128::from(q);
                let (mut acc, mut b) = (1u128, u128::from(b) % m);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc * b % m;
                    }
                    b = b * b % m;
                    e >>= 1;
                }
                acc
            };
            for x in (0..q).take(5000) {
                let want = x != 0 && pow(x, (q - 1) / 2) == 1;
                assert_eq!(
                    legendre_is_one(&[x, 0, 0, 0], &[q, 0, 0, 0]),
                    Some(want),
                    "({x} | {q})"
                );
            }
        }
    }

    #[test]
    fn rounds_stay_well_under_the_limit() {
        // Count rounds by re-running with a smaller allowance: every input must finish
        // within 20 rounds (the cap is 40).
        let mut rng = StdRng::seed_from_u64(43);
        let p = Fq::MODULUS.0;
        for _ in 0..20_000 {
            let x = Fq::rand(&mut rng);
            assert!(rounds(&x.0 .0, &p) <= 20);
        }
        let mut m = Fq::MODULUS;
        m.sub_with_borrow(&ark_ff::BigInt::from(1u64));
        assert!(rounds(&m.0, &p) <= 20);
        assert!(rounds(&[1, 0, 0, 0], &p) <= 20);
    }

    /// The rounds [`legendre_is_one`] takes before both operands fit in 64 bits.
    fn rounds(x: &Limbs, p: &Limbs) -> usize {
        let mut a = *x;
        let mut b = *p;
        let low_mask = (1u64 << LOW) - 1;
        for round in 0..MAX_ROUNDS {
            if (a[1] | a[2] | a[3] | b[1] | b[2] | b[3]) == 0 {
                return round;
            }
            let s = bit_len(&a).max(bit_len(&b)) - (64 - LOW);
            let mut xa = (a[0] & low_mask) | (bits_from(&a, s) << LOW);
            let mut xb = (b[0] & low_mask) | (bits_from(&b, s) << LOW);
            let (mut p0, mut p1) = (1u64, 1u64 << 32);
            let mut budget = STEPS;
            loop {
                let t = xa.trailing_zeros().min(budget);
                xa >>= t;
                p1 <<= t;
                budget -= t;
                if budget == 0 {
                    break;
                }
                if xa < xb {
                    core::mem::swap(&mut xa, &mut xb);
                    core::mem::swap(&mut p0, &mut p1);
                }
                xa = xa.wrapping_sub(xb);
                p0 = p0.wrapping_sub(p1);
            }
            let (f0, g0) = unpack(p0);
            let (f1, g1) = unpack(p1);
            let na = lin_shift(&a, &b, f0, g0, STEPS).0;
            b = lin_shift(&a, &b, f1, g1, STEPS).0;
            a = na;
        }
        MAX_ROUNDS
    }
}
