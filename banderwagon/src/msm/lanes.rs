//! The bucket method's windows eight at a time with AVX-512 IFMA (x86-64 only).
//!
//! Lane `l` of a group runs window `8·g + l` of [`crate::msm`]'s signed-digit bucket method:
//! every point is added, in all eight lanes at once, into the bucket its digit names in that
//! lane's window (the point broadcast, negated in the lanes whose digit is negative), then
//! each lane's `Σ_k k·B_k` is taken by the usual running sum. A lane's buckets live in its
//! own array in limb-sliced form; an addition gathers the eight lanes' buckets, adds, and
//! scatters them back. Bucket 0 of each lane takes the additions of zero digits (and of the
//! windows past the last), so every step is a full eight-lane addition with no masks.
//!
//! The numbers follow `fixed_base/lanes.rs`: points enter as arkworks' Montgomery words,
//! each bucket carries its own common factor, and the running sum's full additions are
//! homogeneous, so the window sums leave as arkworks points with other projective
//! coordinates. In the full addition `C = T₁·T₂·d` takes the constant `d·2²⁶⁰` so that it
//! carries the same `2⁻²⁶⁰` as `A`, `B` and `D`; its bounds are those of
//! `fixed_base/lanes.rs` with both operands below `2p` (`E·F`, `G·H`, `E·H`, `F·G` at most
//! `24p²`).
//!
//! # Safety
//!
//! The `#[target_feature]` functions are reached only from [`window_sums`], which takes the
//! [`Ifma`] token proving the features were detected.
#![allow(unsafe_code)]

use core::arch::x86_64::{__m512i, _mm512_loadu_si512, _mm512_storeu_si512};

use ark_ec::twisted_edwards::TECurveConfig;
use ark_ed_on_bls12_381_bandersnatch::{BandersnatchConfig, EdwardsProjective};

use crate::field::backend::ifma::{add, limbs52, mul, reduce, sub, times5, Ifma, F8, LANES, P2};
use crate::fixed_base::lanes::{add_entries, signed, unload, P8, Q8};
use crate::prepared::PreparedPoint;
use crate::Fq;

/// One lane's bucket: `x, y, z, t`, five 52-bit limbs each.
type Bucket = [u64; 20];

/// The identity `(0 : 1 : 1 : 0)`.
const IDENTITY: Bucket = {
    let mut b = [0u64; 20];
    b[5] = 1;
    b[10] = 1;
    b
};

/// Window sums of the signed-digit bucket method for windows `8·group ..` (at most eight,
/// fewer in the last group): `out[l] = Σ_i digits[i·nw + 8·group + l]·points[i]` for the
/// lanes that have a window. Digits are at most `2^(c−1)` in size, as `signed_digits` gives.
pub(crate) fn window_sums(
    _proof: Ifma,
    points: &[PreparedPoint],
    digits: &[i32],
    c: u32,
    nw: usize,
    group: usize,
) -> [EdwardsProjective; LANES] {
    // SAFETY: `_proof` exists only if AVX-512F and AVX-512 IFMA were detected.
    unsafe { run(points, digits, c, nw, group) }
}

#[target_feature(enable = "avx512f,avx512ifma")]
fn run(
    points: &[PreparedPoint],
    digits: &[i32],
    c: u32,
    nw: usize,
    group: usize,
) -> [EdwardsProjective; LANES] {
    let per_lane = (1usize << (c - 1)) + 1;
    let mut buckets = vec![IDENTITY; LANES * per_lane];
    let first = group * LANES;
    let width = nw.saturating_sub(first).min(LANES);
    for (i, p) in points.iter().enumerate() {
        let row = &digits[i * nw + first..i * nw + first + width];
        // A lane without a window, or with a zero digit, adds into its own bucket 0.
        let mut slots: [usize; LANES] = core::array::from_fn(|lane| lane * per_lane);
        let (mut negative, mut any) = (0u8, false);
        for (lane, &d) in row.iter().enumerate() {
            slots[lane] += d.unsigned_abs() as usize;
            negative |= u8::from(d < 0) << lane;
            any |= d != 0;
        }
        if !any {
            continue;
        }
        let q = broadcast(p, negative);
        let mut acc = gather(&buckets, &slots);
        add_entries(&mut acc, &q, 0xff);
        scatter(&mut buckets, &slots, &acc);
    }
    let d = d_scaled();
    let (mut running, mut total) = (
        gather(&[IDENTITY], &[0; LANES]),
        gather(&[IDENTITY], &[0; LANES]),
    );
    for k in (1..per_lane).rev() {
        let slots: [usize; LANES] = core::array::from_fn(|lane| lane * per_lane + k);
        let b = gather(&buckets, &slots);
        add_full(&mut running, &b, &d);
        add_full(&mut total, &running, &d);
    }
    unload(&total)
}

/// The curve's `d` as a lane number whose product with `v` is `v·d` (`d·2²⁶⁰ mod p`, i.e.
/// the Montgomery words of `16·d`).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn d_scaled() -> F8 {
    let w = (BandersnatchConfig::COEFF_D * Fq::from(16u64)).0 .0;
    F8::constant(&limbs52([w[0], w[1], w[2], w[3], 0]))
}

/// `p` in all eight lanes, negated (`p − v`, at most `p`) in the lanes of `negative`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn broadcast(p: &PreparedPoint, negative: u8) -> Q8 {
    let lane = |v: &Fq| {
        let w = v.0 .0;
        F8::constant(&limbs52([w[0], w[1], w[2], w[3], 0]))
    };
    signed(lane(&p.x), lane(&p.y), lane(&p.dt), negative)
}

/// The eight buckets `buckets[slots[l]]`, lane `l` from the `l`-th.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn gather(buckets: &[Bucket], slots: &[usize; LANES]) -> P8 {
    let mut sliced = [[0u64; LANES]; 20];
    for (lane, &s) in slots.iter().enumerate() {
        for (word, v) in sliced.iter_mut().zip(&buckets[s]) {
            word[lane] = *v;
        }
    }
    // SAFETY: each row is 64 readable bytes; unaligned loads are allowed.
    let v: [__m512i; 20] =
        core::array::from_fn(|r| unsafe { _mm512_loadu_si512(sliced[r].as_ptr().cast()) });
    let f = |k: usize| {
        F8([
            v[5 * k],
            v[5 * k + 1],
            v[5 * k + 2],
            v[5 * k + 3],
            v[5 * k + 4],
        ])
    };
    P8 {
        x: f(0),
        y: f(1),
        z: f(2),
        t: f(3),
    }
}

/// Writes lane `l` of `acc` to `buckets[slots[l]]`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn scatter(buckets: &mut [Bucket], slots: &[usize; LANES], acc: &P8) {
    let mut sliced = [[0u64; LANES]; 20];
    for (k, coord) in [&acc.x, &acc.y, &acc.z, &acc.t].into_iter().enumerate() {
        for (j, limb) in coord.0.iter().enumerate() {
            // SAFETY: each row is 64 writable bytes; unaligned stores are allowed.
            unsafe { _mm512_storeu_si512(sliced[5 * k + j].as_mut_ptr().cast(), *limb) };
        }
    }
    for (lane, &s) in slots.iter().enumerate() {
        for (v, word) in buckets[s].iter_mut().zip(&sliced) {
            *v = word[lane];
        }
    }
}

/// `acc += q` for two eight-lane points (HWCD extended addition with `a = −5`; `d` from
/// [`d_scaled`]); both below `2p` in every coordinate, the result too.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn add_full(acc: &mut P8, q: &P8, d: &F8) {
    let a = reduce(&mul(&acc.x, &q.x));
    let b = reduce(&mul(&acc.y, &q.y));
    let c = mul(&mul(&acc.t, &q.t), d);
    let dd = mul(&acc.z, &q.z);
    let m = mul(&add(&acc.x, &acc.y), &add(&q.x, &q.y));
    let e = sub(&m, &add(&a, &b), &P2);
    let f = sub(&dd, &c, &P2);
    let g = add(&dd, &c);
    let h = add(&b, &times5(&a));
    acc.x = mul(&e, &f);
    acc.y = mul(&g, &h);
    acc.t = mul(&e, &h);
    acc.z = mul(&f, &g);
}
