//! Sums of products in `Fr` with one reduction per sum (lazy reduction).
//!
//! The Montgomery representations `aR`, `bR` (each below `2²⁵⁶`) are multiplied as plain
//! integers and the 512-bit products added into a 576-bit accumulator `T`, so a sum of
//! `n` products costs `16n` word multiplications and no reduction. At the end
//! `T = A + B·2²⁵⁶ + C·2⁵¹²` (`A`, `B` 256-bit, `C` one word) with `T ≡ R²·Σ a·b`. Read
//! as a Montgomery representation, `[A]` is the field element `A/R`, so
//! `Σ a·b = T/R² = [A]·R⁻¹ + [B] + [C]·R` with `R = 2²⁵⁶`.

use ark_ff::{BigInt, Field, PrimeField};
use banderwagon::Fr;
use std::sync::OnceLock;

/// A 576-bit unreduced accumulator of products of Montgomery representations.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Acc([u64; 9]);

#[inline(always)]
fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (acc as u128) + (a as u128) * (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

impl Acc {
    /// `self += a·b` (unreduced).
    #[inline(always)]
    pub(crate) fn add_product(&mut self, a: &Fr, b: &Fr) {
        let a = &a.0 .0;
        let b = &b.0 .0;
        // Schoolbook 4×4 into 8 words, then add into the accumulator.
        let mut p = [0u64; 8];
        for i in 0..4 {
            let mut carry = 0u64;
            for j in 0..4 {
                let (lo, hi) = mac(p[i + j], a[i], b[j], carry);
                p[i + j] = lo;
                carry = hi;
            }
            p[i + 4] = carry;
        }
        let mut carry = 0u64;
        for k in 0..8 {
            let t = (self.0[k] as u128) + (p[k] as u128) + (carry as u128);
            self.0[k] = t as u64;
            carry = (t >> 64) as u64;
        }
        self.0[8] = self.0[8].wrapping_add(carry);
    }

    /// The field element `Σ a·b`.
    pub(crate) fn reduce(&self) -> Fr {
        let (r_inv, r) = consts();
        let w = &self.0;
        let lo = raw(&[w[0], w[1], w[2], w[3]]);
        let mid = raw(&[w[4], w[5], w[6], w[7]]);
        if w[8] == 0 {
            return lo * r_inv + mid;
        }
        let hi = raw(&[w[8], 0, 0, 0]);
        lo * r_inv + mid + hi * r
    }
}

/// The element whose Montgomery representation is `limbs mod r`.
fn raw(limbs: &[u64; 4]) -> Fr {
    let mut v = BigInt::new(*limbs);
    // limbs < 2²⁵⁶ < 9·r: at most 8 subtractions.
    while v >= Fr::MODULUS {
        v.sub_with_borrow(&Fr::MODULUS);
    }
    Fr::new_unchecked(v)
}

/// The field elements `2⁻²⁵⁶` and `2²⁵⁶`.
fn consts() -> (Fr, Fr) {
    static C: OnceLock<(Fr, Fr)> = OnceLock::new();
    *C.get_or_init(|| {
        let two64 = Fr::from(1u64 << 32).square();
        let r = two64.square().square();
        (r.inverse().expect("2^256 is invertible mod r"), r)
    })
}

use ark_ff::BigInteger;

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{UniformRand, Zero};
    use rand::{rngs::StdRng, SeedableRng};

    #[test]
    fn lazy_sums_match() {
        let mut rng = StdRng::seed_from_u64(4);
        for n in [0usize, 1, 2, 5, 17, 1000, 5000] {
            let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let mut acc = Acc::default();
            let mut want = Fr::zero();
            for (x, y) in a.iter().zip(&b) {
                acc.add_product(x, y);
                want += *x * y;
            }
            assert_eq!(acc.reduce(), want, "n = {n}");
        }
        // Extreme values: -1 times -1 many times.
        let m1 = -Fr::from(1u64);
        let mut acc = Acc::default();
        for _ in 0..100_000 {
            acc.add_product(&m1, &m1);
        }
        assert_eq!(acc.reduce(), Fr::from(100_000u64));
    }
}
