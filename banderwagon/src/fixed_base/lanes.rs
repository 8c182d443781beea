//! Eight fixed-base products at once with AVX-512 IFMA (x86-64 only).
//!
//! Each lane runs the same signed-window sum as [`crate::FixedBaseTable::mul`]: one mixed
//! addition of a table entry per window, here for eight scalars (and bases) side by side,
//! on [`F8`] field arithmetic (about four times the throughput of the scalar assembly).
//!
//! # Coordinates and scale
//!
//! Table entries are arkworks' Montgomery words (`x·2²⁵⁶`), loaded unchanged, while [`mul`]
//! divides by `2²⁶⁰`. The accumulator is an extended projective point `(X : Y : Z : T)`;
//! its numbers carry a common unknown factor `s`, which projective coordinates allow. In
//! the addition, every product with a table coordinate carries `s/16`, so `Z` is divided
//! by 16 ([`div16`]) before it joins them; the four outputs then share one factor again.
//! The results are returned as arkworks points with that factor, i.e. the same group
//! elements with other projective coordinates.
//!
//! # Bounds
//!
//! With accumulator coordinates below `2p` and table coordinates at most `p` (a negated
//! entry is `p − x`), the addition keeps every Montgomery input pair's bounds at most
//! `35p²` (see `field::backend::ifma`): `A = X·x`, `B = Y·y` are reduced below `p`, so
//! `E = M + 2p − (A + B) < 4p`, `F = D + 2p − C < 4p`, `G = D + C < 4p`, `H = B + 5A < 6p`,
//! and the products `E·F`, `G·H`, `E·H`, `F·G` stay below `2p`.
//!
//! # Safety
//!
//! The `#[target_feature]` functions are reached only from [`products`], which takes the
//! [`Ifma`] token proving the features were detected.
#![allow(unsafe_code)]

use ark_ed_on_bls12_381_bandersnatch::EdwardsProjective;
use ark_ff::BigInt;

use crate::field::backend::ifma::{
    add, div16, mul, reduce, select, sub, times5, Ifma, F8, LANES, P, P2,
};
use crate::prepared::PreparedPoint;
use crate::{Element, Fq};

/// Eight extended projective points.
pub(crate) struct P8 {
    pub(crate) x: F8,
    pub(crate) y: F8,
    pub(crate) z: F8,
    pub(crate) t: F8,
}

/// Eight table entries, signs applied.
pub(crate) struct Q8 {
    pub(crate) x: F8,
    pub(crate) y: F8,
    pub(crate) dt: F8,
}

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn load(entries: &[&PreparedPoint; LANES], negative: u8) -> Q8 {
    let mut w = [[[0u64; LANES]; 4]; 3];
    for (lane, e) in entries.iter().enumerate() {
        for k in 0..4 {
            w[0][k][lane] = e.x.0 .0[k];
            w[1][k][lane] = e.y.0 .0[k];
            w[2][k][lane] = e.dt.0 .0[k];
        }
    }
    signed(
        F8::from_words(&w[0]),
        F8::from_words(&w[1]),
        F8::from_words(&w[2]),
        negative,
    )
}

/// The entries `(x, y, d·x·y)` (each below `p`), negated in the lanes of `negative`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn signed(x: F8, y: F8, dt: F8, negative: u8) -> Q8 {
    let zero = F8::zero();
    // −(x, y, d·x·y) = (−x, y, −d·x·y), with −v taken as p − v (at most p).
    Q8 {
        x: select(negative, &sub(&zero, &x, &P), &x),
        y,
        dt: select(negative, &sub(&zero, &dt, &P), &dt),
    }
}

/// `acc += q` in the lanes of `keep` (the mixed HWCD addition of `prepared.rs`).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn add_entries(acc: &mut P8, q: &Q8, keep: u8) {
    let a = reduce(&mul(&acc.x, &q.x));
    let b = reduce(&mul(&acc.y, &q.y));
    let c = mul(&acc.t, &q.dt);
    let m = mul(&add(&acc.x, &acc.y), &add(&q.x, &q.y));
    let e = sub(&m, &add(&a, &b), &P2);
    let d = div16(&acc.z);
    let f = sub(&d, &c, &P2);
    let g = add(&d, &c);
    // H = B − a·A with the curve's a = −5.
    let h = add(&b, &times5(&a));
    let x = mul(&e, &f);
    let y = mul(&g, &h);
    let t = mul(&e, &h);
    let z = mul(&f, &g);
    acc.x = select(keep, &x, &acc.x);
    acc.y = select(keep, &y, &acc.y);
    acc.t = select(keep, &t, &acc.t);
    acc.z = select(keep, &z, &acc.z);
}

/// One lane's table entry per window: `(position, negative)`, `None` for a zero digit.
pub(crate) type LaneSteps<'a> = &'a [Option<(usize, bool)>];

#[target_feature(enable = "avx512f,avx512ifma")]
fn run(points: &[PreparedPoint], steps: &[LaneSteps<'_>; LANES], out: &mut [Element]) {
    let zero = F8::zero();
    let one = F8::constant(&[1, 0, 0, 0, 0]);
    let mut acc = P8 {
        x: zero,
        y: one,
        z: one,
        t: zero,
    };
    let windows = steps.iter().map(|s| s.len()).max().unwrap_or(0);
    let Some(filler) = points.first() else {
        return;
    };
    for j in 0..windows {
        let (mut keep, mut negative) = (0u8, 0u8);
        let entries: [&PreparedPoint; LANES] =
            core::array::from_fn(|lane| match steps[lane].get(j).copied().flatten() {
                Some((pos, neg)) => {
                    keep |= 1 << lane;
                    negative |= u8::from(neg) << lane;
                    // Positions come from the table layout (see `products`).
                    &points[pos]
                }
                None => filler,
            });
        if keep == 0 {
            continue;
        }
        let q = load(&entries, negative);
        add_entries(&mut acc, &q, keep);
    }
    for (o, p) in out.iter_mut().zip(unload(&acc)) {
        *o = Element(p);
    }
}

/// The eight points of `acc` as arkworks points (coordinates below `2p` on entry, as every
/// product leaves them; the common factor of the lanes' numbers stays, see the module
/// documentation).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(crate) fn unload(acc: &P8) -> [EdwardsProjective; LANES] {
    let coords = [
        reduce(&acc.x).to_words(),
        reduce(&acc.y).to_words(),
        reduce(&acc.t).to_words(),
        reduce(&acc.z).to_words(),
    ];
    core::array::from_fn(|lane| {
        let [x, y, t, z] = coords
            .map(|w| Fq::new_unchecked(BigInt([w[0][lane], w[1][lane], w[2][lane], w[3][lane]])));
        EdwardsProjective::new_unchecked(x, y, t, z)
    })
}

/// Sums of table entries for up to eight lanes: `out[lane] = Σ_j ±points[steps[lane][j]]`
/// (the identity for a lane without steps). Callers derive the positions from the table
/// layout; a position outside `points` panics, as in [`crate::FixedBaseTable::mul`].
pub(crate) fn products(
    _proof: Ifma,
    points: &[PreparedPoint],
    steps: &[LaneSteps<'_>; LANES],
    out: &mut [Element],
) {
    // SAFETY: `_proof` exists only if AVX-512F and AVX-512 IFMA were detected.
    unsafe { run(points, steps, out) }
}
