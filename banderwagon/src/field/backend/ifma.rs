//! Eight `Fq` values at once with AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`), x86-64 only.
//!
//! An [`F8`] holds eight field elements "limb-sliced": five 512-bit vectors, vector `j`
//! holding limb `j` (bits `52·j ..`) of all eight lanes. [`mul`] is Montgomery
//! multiplication with `R' = 2²⁶⁰`, i.e. `mul(a, b) = a·b·2⁻²⁶⁰ mod p`, one lane per element.
//!
//! # Lazy reduction
//!
//! Values are not kept below `p`. Because `p < 2²⁶⁰/35`, a Montgomery product of inputs
//! below `A·p` and `B·p` with `A·B ≤ 35` is below `2p` (it is at most `A·B·p²/2²⁶⁰ + p`).
//! Callers keep that bound; [`reduce`] brings a value below `2p` down below `p` where a
//! canonical value is needed. Limbs are "normalised" (each below 2⁵², the top one holding
//! the rest) after every operation here, which `vpmadd52*` needs: they read only the low
//! 52 bits of each lane.
//!
//! # Scale
//!
//! The lanes are loaded from arkworks' Montgomery words (`x·2²⁵⁶`) unchanged, so the numbers
//! a caller computes with carry a factor it must track (see `fixed_base/lanes.rs`): `mul` of
//! two such numbers gives `x·y·2²⁵²`, i.e. arkworks' `x·y/16`.
//!
//! # Safety
//!
//! Executing AVX-512 instructions on a processor without them is undefined behaviour.
//! [`Ifma`] is the proof that AVX-512F and AVX-512 IFMA were detected: its only constructor,
//! [`Ifma::detect`], returns it after `is_x86_feature_detected!` said yes, and the
//! `#[target_feature]` functions here are reached only through code holding an `Ifma`.
#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_cmplt_epi64_mask, _mm512_loadu_si512,
    _mm512_madd52hi_epu64, _mm512_madd52lo_epu64, _mm512_mask_blend_epi64, _mm512_or_si512,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_slli_epi64, _mm512_srai_epi64,
    _mm512_srli_epi64, _mm512_storeu_si512, _mm512_sub_epi64,
};

use crate::field::montgomery::{modulus_times, MODULUS, NEG_P_INV};

/// The backend token for processors with AVX-512F and AVX-512 IFMA; a value of this type
/// exists only once both features were detected at run time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ifma(());

/// Lanes of an [`F8`]: the field elements one vector operation works on.
pub(crate) const LANES: usize = 8;

impl Ifma {
    /// `Some` when the running processor has AVX-512F and AVX-512 IFMA.
    pub(crate) fn detect() -> Option<Ifma> {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma") {
            Some(Ifma(()))
        } else {
            None
        }
    }
}

const MASK: u64 = (1 << 52) - 1;

/// The 52-bit limbs of a 320-bit little-endian integer below 2²⁶⁰.
pub(crate) const fn limbs52(w: [u64; 5]) -> [u64; 5] {
    [
        w[0] & MASK,
        ((w[0] >> 52) | (w[1] << 12)) & MASK,
        ((w[1] >> 40) | (w[2] << 24)) & MASK,
        ((w[2] >> 28) | (w[3] << 36)) & MASK,
        (w[3] >> 16) | (w[4] << 48),
    ]
}

/// `p`, `2p` and `4p` in 52-bit limbs.
pub(crate) const P: [u64; 5] = limbs52(modulus_times(1));
pub(crate) const P2: [u64; 5] = limbs52(modulus_times(2));
#[cfg(test)]
pub(crate) const P4: [u64; 5] = limbs52(modulus_times(4));

/// `−p⁻¹ mod 2⁵²`.
const PINV: u64 = NEG_P_INV & MASK;

// `div16` relies on p ≡ 1 (mod 16).
const _: () = assert!(MODULUS[0] & 15 == 1);

/// Eight field elements, limb-sliced (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct F8(pub(crate) [__m512i; 5]);

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn splat(v: u64) -> __m512i {
    _mm512_set1_epi64(v as i64)
}

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn splat5(c: &[u64; 5]) -> [__m512i; 5] {
    [
        splat(c[0]),
        splat(c[1]),
        splat(c[2]),
        splat(c[3]),
        splat(c[4]),
    ]
}

impl F8 {
    /// All lanes zero.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn zero() -> F8 {
        F8([_mm512_setzero_si512(); 5])
    }

    /// All lanes the number `c` (given in 52-bit limbs).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn constant(c: &[u64; 5]) -> F8 {
        F8(splat5(c))
    }

    /// The lanes from four 64-bit words per lane (`words[k][lane]` is word `k`), numbers
    /// below 2²⁵⁶ taken as they are.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn from_words(words: &[[u64; 8]; 4]) -> F8 {
        // SAFETY: each `words[k]` is 64 readable bytes; unaligned loads are allowed.
        let w: [__m512i; 4] = core::array::from_fn(|k| unsafe {
            _mm512_loadu_si512(words[k].as_ptr().cast::<__m512i>())
        });
        let m = splat(MASK);
        F8([
            _mm512_and_si512(w[0], m),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<52>(w[0]), _mm512_slli_epi64::<12>(w[1])),
                m,
            ),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<40>(w[1]), _mm512_slli_epi64::<24>(w[2])),
                m,
            ),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<28>(w[2]), _mm512_slli_epi64::<36>(w[3])),
                m,
            ),
            _mm512_srli_epi64::<16>(w[3]),
        ])
    }

    /// Four 64-bit words per lane (`[k][lane]`) of values below 2²⁵⁶ (e.g. after [`reduce`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn to_words(self) -> [[u64; 8]; 4] {
        let l = &self.0;
        let w = [
            _mm512_or_si512(l[0], _mm512_slli_epi64::<52>(l[1])),
            _mm512_or_si512(_mm512_srli_epi64::<12>(l[1]), _mm512_slli_epi64::<40>(l[2])),
            _mm512_or_si512(_mm512_srli_epi64::<24>(l[2]), _mm512_slli_epi64::<28>(l[3])),
            _mm512_or_si512(_mm512_srli_epi64::<36>(l[3]), _mm512_slli_epi64::<16>(l[4])),
        ];
        let mut out = [[0u64; 8]; 4];
        for (o, v) in out.iter_mut().zip(w) {
            // SAFETY: `o` is 64 writable bytes; unaligned stores are allowed.
            unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast::<__m512i>(), v) };
        }
        out
    }
}

/// Carries each limb's bits above 52 into the next limb (limbs may be negative: the carry
/// is an arithmetic shift, so a non-negative total ends with every limb in `[0, 2⁵²)`).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn normalize(mut t: [__m512i; 5]) -> F8 {
    let m = splat(MASK);
    for j in 0..4 {
        let carry = _mm512_srai_epi64::<52>(t[j]);
        t[j] = _mm512_and_si512(t[j], m);
        t[j + 1] = _mm512_add_epi64(t[j + 1], carry);
    }
    F8(t)
}

/// `a + b` (bound: the sum of the bounds).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn add(a: &F8, b: &F8) -> F8 {
    normalize(core::array::from_fn(|j| _mm512_add_epi64(a.0[j], b.0[j])))
}

/// `a + k·p − b` for `b < k·p`, with `kp` one of [`P`], [`P2`], [`P4`] (bound: `a`'s plus
/// `k·p`).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn sub(a: &F8, b: &F8, kp: &[u64; 5]) -> F8 {
    let kp = splat5(kp);
    normalize(core::array::from_fn(|j| {
        _mm512_sub_epi64(_mm512_add_epi64(a.0[j], kp[j]), b.0[j])
    }))
}

/// `5·a` (bound: five times `a`'s).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn times5(a: &F8) -> F8 {
    normalize(core::array::from_fn(|j| {
        _mm512_add_epi64(_mm512_slli_epi64::<2>(a.0[j]), a.0[j])
    }))
}

/// Lanes of `if_set` where `mask` has the lane's bit, of `if_clear` elsewhere.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn select(mask: u8, if_set: &F8, if_clear: &F8) -> F8 {
    F8(core::array::from_fn(|j| {
        _mm512_mask_blend_epi64(mask, if_clear.0[j], if_set.0[j])
    }))
}

/// `a mod p` for `a < 2p`: one conditional subtraction.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn reduce(a: &F8) -> F8 {
    let p = splat5(&P);
    let s = normalize(core::array::from_fn(|j| _mm512_sub_epi64(a.0[j], p[j])));
    // A negative difference (top limb's sign bit) keeps `a`.
    let negative = _mm512_cmplt_epi64_mask(s.0[4], _mm512_setzero_si512());
    select(negative, a, &s)
}

/// `a/16 mod p` for `a < 2p` (result below `2p`): `(a + k·p)/16` with `k ≡ −a (mod 16)`,
/// since `p ≡ 1 (mod 16)`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn div16(a: &F8) -> F8 {
    let p = splat5(&P);
    let k = _mm512_and_si512(_mm512_sub_epi64(_mm512_setzero_si512(), a.0[0]), splat(15));
    let mut t = a.0;
    for j in 0..5 {
        t[j] = _mm512_madd52lo_epu64(t[j], k, p[j]);
        if j < 4 {
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], k, p[j]);
        }
    }
    let t = normalize(t).0;
    let low4 = splat(15);
    // Shifts right by 4 across the limbs: limb j takes the next limb's low 4 bits on top.
    F8(core::array::from_fn(|j| {
        let high = match t.get(j + 1) {
            Some(next) => _mm512_slli_epi64::<48>(_mm512_and_si512(*next, low4)),
            None => _mm512_setzero_si512(),
        };
        _mm512_or_si512(_mm512_srli_epi64::<4>(t[j]), high)
    }))
}

/// `a·b·2⁻²⁶⁰ mod p`, below `2p` when the bounds of `a` and `b` multiply to at most `35p²`
/// (module documentation).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn mul(a: &F8, b: &F8) -> F8 {
    let z = _mm512_setzero_si512();
    let p = splat5(&P);
    let pinv = splat(PINV);
    let mut t = [z; 6];
    for i in 0..5 {
        let bi = b.0[i];
        for j in 0..5 {
            t[j] = _mm512_madd52lo_epu64(t[j], a.0[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.0[j], bi);
        }
        // m = t₀·(−p⁻¹) mod 2⁵² (the instruction reads t₀'s low 52 bits), so that adding
        // m·p clears t₀'s low 52 bits.
        let m = _mm512_madd52lo_epu64(z, t[0], pinv);
        for j in 0..5 {
            t[j] = _mm512_madd52lo_epu64(t[j], m, p[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p[j]);
        }
        let carry = _mm512_srli_epi64::<52>(t[0]);
        t = [_mm512_add_epi64(t[1], carry), t[2], t[3], t[4], t[5], z];
    }
    normalize([t[0], t[1], t[2], t[3], t[4]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::test_values::edge_values;
    use crate::Fq;
    use ark_ff::{BigInt, Field, UniformRand};
    use rand::{rngs::StdRng, SeedableRng};

    fn load(v: &[Fq; 8]) -> [[u64; 8]; 4] {
        let mut w = [[0u64; 8]; 4];
        for (lane, x) in v.iter().enumerate() {
            for k in 0..4 {
                w[k][lane] = x.0 .0[k];
            }
        }
        w
    }

    fn unload(w: &[[u64; 8]; 4]) -> [Fq; 8] {
        core::array::from_fn(|lane| {
            Fq::new_unchecked(BigInt([w[0][lane], w[1][lane], w[2][lane], w[3][lane]]))
        })
    }

    #[target_feature(enable = "avx512f,avx512ifma")]
    fn check(a: &[Fq; 8], b: &[Fq; 8]) {
        let inv16 = Fq::from(16u64).inverse().unwrap_or_default();
        let (x, y) = (F8::from_words(&load(a)), F8::from_words(&load(b)));
        let got = unload(&reduce(&mul(&x, &y)).to_words());
        let sum = unload(&reduce(&add(&x, &y)).to_words());
        let diff = unload(&reduce(&sub(&x, &y, &P)).to_words());
        let sixteenth = unload(&reduce(&div16(&x)).to_words());
        let five = mul(&times5(&x), &y);
        let five = unload(&reduce(&five).to_words());
        for lane in 0..8 {
            let (u, v) = (a[lane], b[lane]);
            assert_eq!(got[lane], u * v * inv16, "{u} * {v}");
            assert_eq!(sum[lane], u + v, "{u} + {v}");
            assert_eq!(diff[lane], u - v, "{u} - {v}");
            assert_eq!(sixteenth[lane], u * inv16, "{u} / 16");
            assert_eq!(five[lane], u * v * Fq::from(5u64) * inv16, "5 {u} {v}");
        }
    }

    /// Lazy bounds: products of inputs up to 4p and 8p (32 p²) still come out below 2p.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn check_lazy_bound(a: &[Fq; 8]) {
        let x = F8::from_words(&load(a));
        // Largest representatives: p − 1 + 3p and p − 1 + 7p... as sums of reduced values.
        let big4 = add(&add(&x, &F8::constant(&P2)), &F8::constant(&P));
        let big8 = add(&big4, &F8::constant(&P4));
        // An input between p and 2p (a lazily reduced value) divides by 16 as well.
        let inv16 = Fq::from(16u64).inverse().unwrap_or_default();
        let lazy = add(&x, &F8::constant(&P));
        let d = unload(&reduce(&div16(&lazy)).to_words());
        for lane in 0..8 {
            assert_eq!(d[lane], a[lane] * inv16, "({} + p) / 16", a[lane]);
        }
        let r = mul(&big4, &big8);
        let w = r.to_words();
        let p = MODULUS;
        let p2 = modulus_times(2);
        for lane in 0..8 {
            let v = [w[0][lane], w[1][lane], w[2][lane], w[3][lane]];
            // v < 2p: compare from the top word.
            assert!(
                (0..4)
                    .rev()
                    .map(|k| v[k].cmp(&p2[k]))
                    .find(|o| o.is_ne())
                    .is_some_and(|o| o.is_lt()),
                "{v:?} not below 2p"
            );
            let got = Fq::new_unchecked(BigInt(v));
            let got = if BigInt(v) >= BigInt(p) {
                Fq::new_unchecked(BigInt(v)) - Fq::new_unchecked(BigInt(p))
            } else {
                got
            };
            assert_eq!(got, a[lane] * a[lane] * inv16);
        }
    }

    #[test]
    #[cfg_attr(
        not(build_host_has_ifma),
        ignore = "the build machine has no AVX-512 IFMA: the 8-lane path is not tested"
    )]
    fn lanes_match_arkworks() {
        let Some(_ifma) = Ifma::detect() else {
            eprintln!("no AVX-512 IFMA on this processor: the 8-lane field path is not tested");
            return;
        };
        let edges = edge_values();
        let mut rng = StdRng::seed_from_u64(0x1f3a);
        let mut pick = |i: usize| -> [Fq; 8] {
            core::array::from_fn(|lane| {
                edges
                    .get((i * 8 + lane) % (edges.len() + 3))
                    .copied()
                    .unwrap_or_else(|| Fq::rand(&mut rng))
            })
        };
        for i in 0..200 {
            let (a, b) = (pick(i), pick(i + 7));
            // SAFETY: the features were detected above.
            unsafe {
                check(&a, &b);
                check_lazy_bound(&a);
            }
        }
        for _ in 0..2000 {
            let a: [Fq; 8] = core::array::from_fn(|_| Fq::rand(&mut rng));
            let b: [Fq; 8] = core::array::from_fn(|_| Fq::rand(&mut rng));
            // SAFETY: as above.
            unsafe { check(&a, &b) };
        }
    }
}
