//! Sums of products in `Fr` with one reduction per sum (lazy reduction).
//!
//! The Montgomery representations `aR`, `bR` (each below `2²⁵⁶`) are multiplied as plain
//! integers and the halves of the 16 word products added into eight 128-bit column sums,
//! so a sum of `n` products costs `16n` word multiplications, no carry chains and no
//! reduction. At the end the columns are carried into a 576-bit integer
//! `T = A + B·2²⁵⁶ + C·2⁵¹²` (`A`, `B` 256-bit, `C` one word) with `T ≡ R²·Σ a·b`. Read
//! as a Montgomery representation, `[A]` is the field element `A/R`, so
//! `Σ a·b = T/R² = [A]·R⁻¹ + [B] + [C]·R` with `R = 2²⁵⁶`.

use ark_ff::{BigInt, Field, PrimeField};
use banderwagon::once::Once as OnceLock;
use banderwagon::Fr;

/// An unreduced accumulator of products of Montgomery representations: eight 128-bit
/// column sums, column `k` collecting the 64-bit halves of word products at weight `2^(64k)`
/// (no carry chains while accumulating; fine for fewer than 2⁶⁰ products).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Acc([u128; 8]);

impl Acc {
    /// `self += a·b` (unreduced).
    #[inline(always)]
    pub(crate) fn add_product(&mut self, a: &Fr, b: &Fr) {
        let a = &a.0 .0;
        let b = &b.0 .0;
        for i in 0..4 {
            for j in 0..4 {
                let p = (a[i] as u128) * (b[j] as u128);
                self.0[i + j] += p as u64 as u128;
                // i + j ≤ 6: the high half lands in column 7 at most.
                self.0[i + j + 1] += p >> 64;
            }
        }
    }

    /// Whether nothing was added (or only zero products).
    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|c| *c == 0)
    }

    /// The field element `Σ a·b`.
    pub(crate) fn reduce(&self) -> Fr {
        let mut w = [0u64; 9];
        let mut carry: u128 = 0;
        for k in 0..8 {
            let t = self.0[k] + carry;
            w[k] = t as u64;
            carry = t >> 64;
        }
        w[8] = carry as u64;
        let (r_inv, r) = consts();
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
