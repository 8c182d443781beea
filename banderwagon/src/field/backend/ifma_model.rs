//! A portable model of the 8-lane AVX-512 IFMA arithmetic (`ifma.rs`), one lane at a time.
//!
//! Each function here does, on one lane's five 52-bit limbs, exactly what its namesake in
//! `ifma.rs` does on eight: `vpmadd52luq`/`vpmadd52huq` are modelled with a 128-bit product
//! of the operands' low 52 bits, vector adds and subtracts wrap at 64 bits, the carry is an
//! arithmetic shift. The 52-bit limbs of the constants are split here again rather than
//! taken from `ifma.rs`; the words they are split from (`k·p`, `−p⁻¹`) are the shared ones
//! of `field::montgomery`.
//!
//! The model runs on every machine, so the lane algorithms (Montgomery multiplication with
//! `R' = 2²⁶⁰`, lazy reduction and its bounds, `div16`, the conditional subtraction) are
//! checked against arkworks everywhere; where the processor has IFMA, the hardware functions
//! are checked against the model limb for limb, so a difference between the two (an
//! intrinsic misused, a shift off by one) shows even where the final values would agree.
#![allow(unsafe_code)]

use ark_ff::{BigInt, BigInteger, Field, UniformRand};
use rand::{rngs::StdRng, SeedableRng};

use crate::field::montgomery::{modulus_times, MODULUS, NEG_P_INV};
use crate::field::test_values::edge_values;
use crate::Fq;

const MASK: u64 = (1 << 52) - 1;

/// One lane: five 52-bit limbs, little-endian (the top limb holds the rest).
type Lane = [u64; 5];

fn madd52lo(acc: u64, a: u64, b: u64) -> u64 {
    let product = u128::from(a & MASK) * u128::from(b & MASK);
    acc.wrapping_add(product as u64 & MASK)
}

fn madd52hi(acc: u64, a: u64, b: u64) -> u64 {
    let product = u128::from(a & MASK) * u128::from(b & MASK);
    acc.wrapping_add((product >> 52) as u64)
}

/// `k·p` in 52-bit limbs.
fn modulus_limbs(k: u64) -> Lane {
    from_wide(&modulus_times(k))
}

/// Limbs of a number below 2²⁶⁰ given as 64-bit words.
fn from_wide(w: &[u64; 5]) -> Lane {
    [
        w[0] & MASK,
        ((w[0] >> 52) | (w[1] << 12)) & MASK,
        ((w[1] >> 40) | (w[2] << 24)) & MASK,
        ((w[2] >> 28) | (w[3] << 36)) & MASK,
        (w[3] >> 16) | (w[4] << 48),
    ]
}

/// The lane of an arkworks Montgomery word, loaded unchanged (`F8::from_words`).
fn load(x: &Fq) -> Lane {
    let w = x.0 .0;
    from_wide(&[w[0], w[1], w[2], w[3], 0])
}

/// The number a lane holds, as a big integer (limbs normalised, value below 2²⁶⁰).
fn value(l: &Lane) -> [u64; 5] {
    let mut out = [0u64; 5];
    for (j, &limb) in l.iter().enumerate() {
        let bit = 52 * j;
        let (word, shift) = (bit / 64, bit % 64);
        out[word] |= limb << shift;
        if shift > 12 && word + 1 < 5 {
            out[word + 1] |= limb >> (64 - shift);
        }
    }
    out
}

/// The lane's value as an `Fq` (Montgomery word taken as is, after reducing mod p).
fn unload(l: &Lane) -> Fq {
    let v = value(l);
    assert_eq!(v[4], 0, "value above 2^256: {v:?}");
    let mut x = BigInt([v[0], v[1], v[2], v[3]]);
    let p = BigInt(MODULUS);
    while x >= p {
        x.sub_with_borrow(&p);
    }
    Fq::new_unchecked(x)
}

fn normalize(mut t: Lane) -> Lane {
    for j in 0..4 {
        let carry = ((t[j] as i64) >> 52) as u64;
        t[j] &= MASK;
        t[j + 1] = t[j + 1].wrapping_add(carry);
    }
    t
}

fn add(a: &Lane, b: &Lane) -> Lane {
    normalize(core::array::from_fn(|j| a[j].wrapping_add(b[j])))
}

fn sub(a: &Lane, b: &Lane, kp: &Lane) -> Lane {
    normalize(core::array::from_fn(|j| {
        a[j].wrapping_add(kp[j]).wrapping_sub(b[j])
    }))
}

fn times5(a: &Lane) -> Lane {
    normalize(core::array::from_fn(|j| (a[j] << 2).wrapping_add(a[j])))
}

fn reduce(a: &Lane) -> Lane {
    let p = modulus_limbs(1);
    let s = normalize(core::array::from_fn(|j| a[j].wrapping_sub(p[j])));
    if (s[4] as i64) < 0 {
        *a
    } else {
        s
    }
}

fn div16(a: &Lane) -> Lane {
    let p = modulus_limbs(1);
    let k = 0u64.wrapping_sub(a[0]) & 15;
    let mut t = *a;
    for j in 0..5 {
        t[j] = madd52lo(t[j], k, p[j]);
        if j < 4 {
            t[j + 1] = madd52hi(t[j + 1], k, p[j]);
        }
    }
    let t = normalize(t);
    core::array::from_fn(|j| {
        let high = t.get(j + 1).map_or(0, |next| (next & 15) << 48);
        (t[j] >> 4) | high
    })
}

/// `−p⁻¹ mod 2⁵²`.
fn pinv() -> u64 {
    NEG_P_INV & MASK
}

fn mul(a: &Lane, b: &Lane) -> Lane {
    let p = modulus_limbs(1);
    let pinv = pinv();
    let mut t = [0u64; 6];
    for &bi in b {
        for j in 0..5 {
            t[j] = madd52lo(t[j], a[j], bi);
            t[j + 1] = madd52hi(t[j + 1], a[j], bi);
        }
        let m = madd52lo(0, t[0], pinv);
        for j in 0..5 {
            t[j] = madd52lo(t[j], m, p[j]);
            t[j + 1] = madd52hi(t[j + 1], m, p[j]);
        }
        let carry = t[0] >> 52;
        t = [t[1].wrapping_add(carry), t[2], t[3], t[4], t[5], 0];
    }
    normalize([t[0], t[1], t[2], t[3], t[4]])
}

fn below(l: &Lane, bound: &Lane) -> bool {
    let (v, b) = (value(l), value(bound));
    (0..5)
        .rev()
        .map(|k| v[k].cmp(&b[k]))
        .find(|o| o.is_ne())
        .is_some_and(|o| o.is_lt())
}

/// Inputs: the edge values and random ones.
fn inputs() -> Vec<Fq> {
    let mut rng = StdRng::seed_from_u64(0x1f3b);
    let mut v = edge_values();
    v.extend((0..3000).map(|_| Fq::rand(&mut rng)));
    v
}

#[test]
fn the_model_computes_what_arkworks_does() {
    let inv16 = Fq::from(16u64).inverse().expect("16 is invertible");
    let (p, p2, p4) = (modulus_limbs(1), modulus_limbs(2), modulus_limbs(4));
    let xs = inputs();
    for (i, u) in xs.iter().enumerate() {
        let v = xs[(i * 7 + 3) % xs.len()];
        let (a, b) = (load(u), load(&v));
        assert_eq!(unload(&reduce(&mul(&a, &b))), *u * v * inv16, "{u} * {v}");
        assert_eq!(unload(&reduce(&add(&a, &b))), *u + v, "{u} + {v}");
        assert_eq!(unload(&reduce(&sub(&a, &b, &p))), *u - v, "{u} - {v}");
        assert_eq!(unload(&reduce(&div16(&a))), *u * inv16, "{u} / 16");
        let five = mul(&times5(&a), &b);
        assert_eq!(unload(&reduce(&five)), *u * v * Fq::from(5u64) * inv16);
        // Lazy bounds: inputs below 4p and 8p (32p² ≤ 35p²) multiply to below 2p, and a
        // value between p and 2p divides by 16 to below 2p.
        let big4 = add(&add(&a, &p2), &p);
        let big8 = add(&big4, &p4);
        let r = mul(&big4, &big8);
        assert!(below(&r, &p2), "{u}: product of lazy inputs not below 2p");
        assert_eq!(unload(&r), *u * u * inv16);
        let lazy = add(&a, &p);
        let d = div16(&lazy);
        assert!(below(&d, &p2));
        assert_eq!(unload(&d), *u * inv16);
        // `reduce` keeps values below p and brings values in [p, 2p) below p.
        assert!(below(&reduce(&a), &p));
        assert!(below(&reduce(&lazy), &p));
    }
}

/// The hardware against the model. Safety: the `#[target_feature]` functions run only after
/// the test checked that the processor has AVX-512F and AVX-512 IFMA.
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
mod hardware {
    use std::arch::x86_64::{__m512i, _mm512_loadu_si512, _mm512_storeu_si512};

    use super::*;
    use crate::field::backend::ifma::{self, Ifma, F8};

    /// The eight lanes' limbs of an `F8`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn lanes(x: &F8) -> [Lane; 8] {
        let mut limbs = [[0u64; 8]; 5];
        for (out, v) in limbs.iter_mut().zip(x.0) {
            // SAFETY: `out` is 64 writable bytes; unaligned stores are allowed.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast::<__m512i>(), v) };
        }
        core::array::from_fn(|lane| core::array::from_fn(|j| limbs[j][lane]))
    }

    /// An `F8` holding exactly these limbs.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn from_lanes(l: &[Lane; 8]) -> F8 {
        F8(core::array::from_fn(|j| {
            let words: [u64; 8] = core::array::from_fn(|lane| l[lane][j]);
            // SAFETY: `words` is 64 readable bytes; unaligned loads are allowed.
            unsafe { _mm512_loadu_si512(words.as_ptr().cast::<__m512i>()) }
        }))
    }

    #[target_feature(enable = "avx512f,avx512ifma")]
    fn compare(a: &[Lane; 8], b: &[Lane; 8]) {
        let (p, p2) = (modulus_limbs(1), modulus_limbs(2));
        let (x, y) = (from_lanes(a), from_lanes(b));
        let checks: [(&str, F8, [Lane; 8]); 7] = [
            (
                "mul",
                ifma::mul(&x, &y),
                core::array::from_fn(|i| mul(&a[i], &b[i])),
            ),
            (
                "add",
                ifma::add(&x, &y),
                core::array::from_fn(|i| add(&a[i], &b[i])),
            ),
            (
                "sub",
                ifma::sub(&x, &y, &ifma::P2),
                core::array::from_fn(|i| sub(&a[i], &b[i], &p2)),
            ),
            (
                "times5",
                ifma::times5(&x),
                core::array::from_fn(|i| times5(&a[i])),
            ),
            (
                "div16",
                ifma::div16(&x),
                core::array::from_fn(|i| div16(&a[i])),
            ),
            (
                "reduce",
                ifma::reduce(&x),
                core::array::from_fn(|i| reduce(&a[i])),
            ),
            (
                "select",
                ifma::select(0b1010_0110, &x, &y),
                core::array::from_fn(|i| {
                    if 0b1010_0110u8 >> i & 1 == 1 {
                        a[i]
                    } else {
                        b[i]
                    }
                }),
            ),
        ];
        for (name, got, want) in checks {
            assert_eq!(lanes(&got), want, "{name}: hardware and model differ");
        }
        assert_eq!(ifma::P, p, "the modulus' limbs");
    }

    #[test]
    #[cfg_attr(
        not(build_host_has_ifma),
        ignore = "the build machine has no AVX-512 IFMA: the hardware lanes are not compared with the model"
    )]
    fn the_hardware_lanes_compute_what_the_model_does() {
        let ifma_token: Option<Ifma> = Ifma::detect();
        assert!(ifma_token.is_some(), "the build machine reported IFMA");
        let (p, p2) = (modulus_limbs(1), modulus_limbs(2));
        let xs = inputs();
        // Reduced values, and lazily reduced ones in [p, 2p) (inside every bound of `ifma`).
        let lane = |i: usize| -> Lane {
            let l = load(&xs[i % xs.len()]);
            if i.is_multiple_of(3) {
                add(&l, &p)
            } else {
                l
            }
        };
        for i in 0..xs.len() {
            let a: [Lane; 8] = core::array::from_fn(|k| lane(i * 8 + k));
            let b: [Lane; 8] = core::array::from_fn(|k| lane(i * 5 + 3 * k + 1));
            // `sub` needs b < 2p: the lanes are below 2p.
            assert!(b.iter().all(|l| below(l, &p2)));
            // SAFETY: IFMA was detected above.
            unsafe { compare(&a, &b) };
        }
    }
}
