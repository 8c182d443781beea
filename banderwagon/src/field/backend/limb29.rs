//! Montgomery multiplication in `Fq` on nine 29-bit limbs held in 64-bit words, for
//! targets whose widest native product is 32×32→64 bits (WebAssembly's `i64.mul`).
//!
//! arkworks' four 64-bit limbs need 64×64→128-bit products, which `wasm32` emulates with four
//! multiplications and carry handling each. Here the operands are split into 29-bit limbs,
//! so each limb product is below 2⁵⁸ and up to 64 of them add up in a `u64` without
//! carrying. The product and the reduction are scanned column by column (finely integrated
//! product scanning): column `k` sums `a_i·b_j` (`i + j = k`) and `m_i·p_j` and carries only
//! once, its low 29 bits.
//!
//! The operands and the result are arkworks' own Montgomery words (`R = 2²⁵⁶`, four
//! little-endian 64-bit limbs, fully reduced), so the result is bit-identical to `Fq`'s
//! portable multiplication. Nine limbs of 29 bits span 261 bits, so dividing by `R` takes
//! eight reduction steps of 29 bits and a ninth of 24: the `m_k` make the low 256 bits of
//! `a·b + m·p` zero (`m < 2²⁵⁶`), and the result starts at bit 24 of column 8. Because
//! `p < 2²⁵⁵`, `(a·b + m·p) / 2²⁵⁶ < 2p`, so one conditional subtraction ends in `[0, p)`.
//!
//! Bounds: a column holds at most nine products of each kind, each below 2⁵⁸, plus the
//! carry from the column before (below 2³⁵): `18·2⁵⁸ + 2³⁵ < 2⁶³`.

use ark_ff::BigInt;

use crate::field::montgomery::{FieldMul, MODULUS, NEG_P_INV};
use crate::Fq;

/// Bits per limb.
const BITS: u32 = 29;
/// Limbs per operand.
const N: usize = 9;
const MASK: u64 = (1 << BITS) - 1;
/// Bits the last reduction step removes: `256 − 8·29`.
const LAST_BITS: u32 = 256 - 8 * BITS;

/// `p` in 29-bit limbs.
const P: [u64; N] = split(&MODULUS);
/// `p` in 64-bit limbs.
const P64: [u64; 4] = MODULUS;
/// `−p⁻¹ mod 2²⁹`.
const MU: u64 = NEG_P_INV & MASK;

/// The 29-bit limbs of a value below 2²⁶¹ given as four 64-bit limbs.
#[inline(always)]
const fn split(w: &[u64; 4]) -> [u64; N] {
    [
        w[0] & MASK,
        (w[0] >> 29) & MASK,
        ((w[0] >> 58) | (w[1] << 6)) & MASK,
        (w[1] >> 23) & MASK,
        ((w[1] >> 52) | (w[2] << 12)) & MASK,
        (w[2] >> 17) & MASK,
        ((w[2] >> 46) | (w[3] << 18)) & MASK,
        (w[3] >> 11) & MASK,
        w[3] >> 40,
    ]
}

/// The multiplication backend on 29-bit limbs (no processor requirement).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limb29;

/// Column `k` of the reduction: `acc` holds the carry in, `sum` the column's operand
/// products. Adds `m_i·p_{k−i}` and returns the column's limb (masked) while leaving the
/// carry out in `acc`; for `k < N` it first chooses `m_k`. Everything but the carry and
/// `m_{k−1}·p_1` is summed apart, so that the chain from column to column stays short.
#[inline(always)]
fn reduce_column(k: usize, acc: &mut u64, m: &mut [u64; N], mut sum: u64) -> u64 {
    let lo = k.saturating_sub(N - 1);
    let mut i = lo;
    while i + 1 < k && i < N {
        sum += times_p(m[i], k - i);
        i += 1;
    }
    *acc += sum;
    if k > lo && k <= N {
        *acc += times_p(m[k - 1], 1);
    }
    if k < N {
        let mask = if k == N - 1 {
            (1 << LAST_BITS) - 1
        } else {
            MASK
        };
        m[k] = (*acc).wrapping_mul(MU) & mask;
        *acc += times_p(m[k], 0);
    }
    let limb = *acc & MASK;
    *acc >>= BITS;
    limb
}

/// The reduced result from the limbs of columns `N − 1..2N − 1` (column `N − 1` holds the
/// result's low `29 − 24` bits in its top) and the final carry: the value is below `2p`;
/// subtracts `p` once if needed.
#[inline(always)]
fn finish(c: &[u64; N], carry: u64) -> [u64; 4] {
    let s = LAST_BITS;
    // Column N−1+j starts at result bit 29·j − 24 (j ≥ 1); column N−1's top 5 bits at 0.
    let r = [
        (c[0] >> s) | (c[1] << 5) | (c[2] << 34) | (c[3] << 63),
        (c[3] >> 1) | (c[4] << 28) | (c[5] << 57),
        (c[5] >> 7) | (c[6] << 22) | (c[7] << 51),
        (c[7] >> 13) | (c[8] << 16) | (carry << 45),
    ];
    let (d0, b0) = r[0].overflowing_sub(P64[0]);
    let (d1, b1) = sub_borrow(r[1], P64[1], b0);
    let (d2, b2) = sub_borrow(r[2], P64[2], b1);
    let (d3, b3) = sub_borrow(r[3], P64[3], b2);
    if b3 {
        r
    } else {
        [d0, d1, d2, d3]
    }
}

#[inline(always)]
fn sub_borrow(a: u64, b: u64, borrow: bool) -> (u64, bool) {
    let (d, x) = a.overflowing_sub(b);
    let (d, y) = d.overflowing_sub(borrow as u64);
    (d, x | y)
}

/// `x·p_j` (`x < 2²⁹`, `j` a constant once inlined): a shift and a subtraction when
/// `p_j = 2^a − 2^b` (`p_0 = 1`, `p_1 = 2²⁹ − 2³` for this `p`), else a multiplication.
#[inline(always)]
fn times_p(x: u64, j: usize) -> u64 {
    let pj = P[j];
    let low = pj & pj.wrapping_neg();
    if pj != 0 && (pj + low).is_power_of_two() {
        (x << (pj + low).trailing_zeros()) - (x << low.trailing_zeros())
    } else {
        x * pj
    }
}

/// Column `K` of `a·b`: sums `a_i·b_{K−i}`, then reduces ([`reduce_column`]).
#[inline(always)]
fn mul_column<const K: usize>(a: &[u64; N], b: &[u64; N], acc: &mut u64, m: &mut [u64; N]) -> u64 {
    let mut sum = 0u64;
    let mut i = K.saturating_sub(N - 1);
    while i <= K && i < N {
        sum += a[i] * b[K - i];
        i += 1;
    }
    reduce_column(K, acc, m, sum)
}

/// Column `K` of `a²`: the cross products `a_i·a_{K−i}` (`i < K − i`) once, doubled, and
/// the square `a_{K/2}²` for even `K`; then reduces ([`reduce_column`]).
#[inline(always)]
fn square_column<const K: usize>(a: &[u64; N], acc: &mut u64, m: &mut [u64; N]) -> u64 {
    let mut cross = 0u64;
    let mut i = K.saturating_sub(N - 1);
    while 2 * i < K {
        cross += a[i] * a[K - i];
        i += 1;
    }
    let mut sum = cross << 1;
    if K.is_multiple_of(2) {
        sum += a[K / 2] * a[K / 2];
    }
    reduce_column(K, acc, m, sum)
}

/// Runs the 17 columns with `$col::<K>(…)` (constant `K`, so every loop unrolls) and packs
/// the result from columns `N − 1..2N − 1`.
macro_rules! columns {
    ($acc:ident, $col:ident($($arg:expr),*)) => {{
        let mut m = [0u64; N];
        let mut $acc = 0u64;
        $col::<0>($($arg,)* &mut $acc, &mut m);
        $col::<1>($($arg,)* &mut $acc, &mut m);
        $col::<2>($($arg,)* &mut $acc, &mut m);
        $col::<3>($($arg,)* &mut $acc, &mut m);
        $col::<4>($($arg,)* &mut $acc, &mut m);
        $col::<5>($($arg,)* &mut $acc, &mut m);
        $col::<6>($($arg,)* &mut $acc, &mut m);
        $col::<7>($($arg,)* &mut $acc, &mut m);
        let c = [
            $col::<8>($($arg,)* &mut $acc, &mut m),
            $col::<9>($($arg,)* &mut $acc, &mut m),
            $col::<10>($($arg,)* &mut $acc, &mut m),
            $col::<11>($($arg,)* &mut $acc, &mut m),
            $col::<12>($($arg,)* &mut $acc, &mut m),
            $col::<13>($($arg,)* &mut $acc, &mut m),
            $col::<14>($($arg,)* &mut $acc, &mut m),
            $col::<15>($($arg,)* &mut $acc, &mut m),
            $col::<16>($($arg,)* &mut $acc, &mut m),
        ];
        finish(&c, $acc)
    }};
}

/// `a·b·2⁻²⁵⁶ mod p` on raw limbs, for `a, b < p`.
#[inline(never)]
fn mont_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let a = split(a);
    let b = split(b);
    columns!(acc, mul_column(&a, &b))
}

/// `a²·2⁻²⁵⁶ mod p` on raw limbs, for `a < p`.
#[inline(never)]
fn mont_square(a: &[u64; 4]) -> [u64; 4] {
    let a = split(a);
    columns!(acc, square_column(&a))
}

impl FieldMul for Limb29 {
    #[inline(always)]
    fn mul(self, a: &Fq, b: &Fq) -> Fq {
        Fq::new_unchecked(BigInt(mont_mul(&a.0 .0, &b.0 .0)))
    }

    #[inline(always)]
    fn square(self, a: &Fq) -> Fq {
        Fq::new_unchecked(BigInt(mont_square(&a.0 .0)))
    }
}

/// The WebAssembly backend: [`Limb29`], or arkworks' multiplication when the portable path is
/// forced (`use_portable_field`), chosen by one predictable branch per product. The hot loops
/// are thus monomorphised once, not once per backend: a second copy of every loop with
/// arkworks' products inlined would double the module's code.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limb29OrPortable {
    /// Use arkworks' multiplication.
    pub(crate) portable: bool,
}

/// arkworks' `a·b`, kept out of line so that each call site stays small.
#[inline(never)]
fn portable_mul(a: &Fq, b: &Fq) -> Fq {
    *a * b
}

/// arkworks' `a²`, kept out of line so that each call site stays small.
#[inline(never)]
fn portable_square(a: &Fq) -> Fq {
    ark_ff::Field::square(a)
}

impl FieldMul for Limb29OrPortable {
    #[inline(always)]
    fn mul(self, a: &Fq, b: &Fq) -> Fq {
        if self.portable {
            portable_mul(a, b)
        } else {
            Limb29.mul(a, b)
        }
    }

    #[inline(always)]
    fn square(self, a: &Fq) -> Fq {
        if self.portable {
            portable_square(a)
        } else {
            Limb29.square(a)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limbs_round_trip() {
        // The split and the packing of `finish` (with no reduction step) agree on p − 1.
        let mut pm1 = P64;
        pm1[0] -= 1;
        let l = split(&pm1);
        assert!(l.iter().all(|&x| x <= MASK));
        let mut back = [0u64; 4];
        for (i, &x) in l.iter().enumerate() {
            let bit = 29 * i;
            back[bit / 64] |= x << (bit % 64);
            if bit % 64 + 29 > 64 && bit / 64 + 1 < 4 {
                back[bit / 64 + 1] |= x >> (64 - bit % 64);
            }
        }
        assert_eq!(back, pm1);
        assert_eq!(P64[0].wrapping_mul(MU) & MASK, MASK, "p·μ ≡ −1 (mod 2²⁹)");
    }

    #[test]
    fn switch_takes_either_multiplication() {
        use ark_ff::{Field, UniformRand};
        use rand::{rngs::StdRng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(29);
        for portable in [false, true] {
            let m = Limb29OrPortable { portable };
            for _ in 0..1000 {
                let a = Fq::rand(&mut rng);
                let b = Fq::rand(&mut rng);
                assert_eq!(m.mul(&a, &b), a * b, "{a} * {b}, portable: {portable}");
                assert_eq!(m.square(&a), a.square(), "{a}², portable: {portable}");
            }
        }
    }
}
