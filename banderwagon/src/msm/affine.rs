//! The bucket method with its buckets in affine coordinates on the Montgomery model of
//! Bandersnatch, one field inversion per batch of bucket additions (Montgomery's trick).
//!
//! Twisted Edwards affine addition needs two divisions; the Montgomery model's needs one.
//! With `A = 2(a + d)/(a − d)` and `B = 4/(a − d)` the Edwards point `(x, y)` is the point
//! `u = (1 + y)/(1 − y)`, `v = u/x` of `B·v² = u³ + A·u² + u`; scaled to `U = u/B`,
//! `V = v/B` the curve is `V² = U³ + A'·U² + B'·U` with `A' = A/B`, `B' = 1/B²`, whose
//! chord addition is `λ = (V₂ − V₁)/(U₂ − U₁)`, `U₃ = λ² − A' − U₁ − U₂`,
//! `V₃ = λ·(U₁ − U₃) − V₁` and tangent `λ = (3U₁² + 2A'·U₁ + B')/(2V₁)`. The map is a group
//! isomorphism between the points a Banderwagon element can be (the prime-order subgroup
//! and its coset by `(0, −1)`, order `2r` with `r` odd): the Edwards identity is the point at
//! infinity and `(0, −1)` is `(0, 0)`. The map's other exceptional points (`u = −1` and the
//! other roots of `u² + A·u + 1`, the Edwards model's points at infinity) have order 4 or 2
//! and are not among them; `y = ±1` with `x ≠ 0` is not on the curve at all.
//!
//! A window gathers up to [`BATCH`] additions into distinct buckets, takes the product of
//! their denominators, inverts it once and walks back: three multiplications per addition
//! for its share of the inversion and three for the addition itself, against eight for an
//! addition of a prepared point to an extended projective bucket. A point whose bucket is
//! already in the batch waits in a short queue for the next batch; when the queue is full
//! (many points in one bucket: repeated points, equal scalars) it is added to a projective
//! bucket beside the affine one instead, so no input makes a window slower than a fixed
//! multiple of the projective method. The window sum then maps the buckets back to extended
//! projective Edwards points (no inversion) and takes the running sum there.

use crate::prelude::*;

use ark_ec::twisted_edwards::TECurveConfig;
use ark_ed_on_bls12_381_bandersnatch::{BandersnatchConfig, EdwardsProjective};
use ark_ff::{AdditiveGroup, Field, One, Zero};

use crate::field::FieldMul;
use crate::once::Once;
use crate::prepared::add_projective;
use crate::Fq;

/// Most additions per batch: the inversion (about as costly as seventy multiplications)
/// then costs a quarter multiplication per addition.
const MAX_BATCH: usize = 256;

/// Additions per batch for a window of `buckets` buckets: a quarter of them, so that few
/// points find their bucket busy, at most [`MAX_BATCH`]. At most as many points wait in the
/// queue as a quarter of a batch.
pub(crate) fn batch_len(buckets: usize) -> usize {
    (buckets / 4).clamp(1, MAX_BATCH)
}

/// The scaled Montgomery model's constants.
pub(crate) struct Model {
    /// `A' = A/B`.
    a: Fq,
    /// `B' = 1/B²`.
    b: Fq,
    /// `B`, to map back to Edwards.
    scale: Fq,
    /// `1/B`, to map from Edwards.
    inv_scale: Fq,
}

/// The constants, computed on first use.
pub(crate) fn model() -> &'static Model {
    static MODEL: Once<Model> = Once::new();
    MODEL.get_or_init(|| {
        let (a, d) = (BandersnatchConfig::COEFF_A, BandersnatchConfig::COEFF_D);
        // a ≠ d for every twisted Edwards curve, and B = 4/(a − d) ≠ 0.
        let inv_a_minus_d = (a - d).inverse().unwrap_or_default();
        let scale = inv_a_minus_d.double().double();
        let inv_scale = scale.inverse().unwrap_or_default();
        Model {
            a: (a + d).double() * inv_a_minus_d * inv_scale,
            b: inv_scale.square(),
            scale,
            inv_scale,
        }
    })
}

/// A finite point `(U, V)` of the scaled Montgomery model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MontPoint {
    u: Fq,
    v: Fq,
}

impl MontPoint {
    #[inline(always)]
    fn signed(&self, negative: bool) -> MontPoint {
        if negative {
            MontPoint {
                u: self.u,
                v: -self.v,
            }
        } else {
            *self
        }
    }
}

/// Writes the Montgomery images of `points` (none the identity) to `out`, with one field
/// inversion: `U = (Z + Y)·X·w/B`, `V = (Z + Y)·Z·w/B` for `w = 1/((Z − Y)·X)`. `false`
/// if some point has `x ≠ 0` and `y = 1`, which no point of the group has (the caller then
/// takes the projective method).
pub(crate) fn to_model<M: FieldMul>(
    m: M,
    md: &Model,
    points: &[EdwardsProjective],
    out: &mut [MontPoint],
) -> bool {
    let mut prefix = Vec::with_capacity(points.len());
    let mut acc = Fq::one();
    for p in points {
        prefix.push(acc);
        if !p.x.is_zero() {
            let den = m.mul(&(p.z - p.y), &p.x);
            if den.is_zero() {
                return false;
            }
            acc = m.mul(&acc, &den);
        }
    }
    let mut inv = crate::inverse::fq_inverse(&acc).unwrap_or_default();
    for ((p, before), slot) in points.iter().zip(&prefix).zip(out.iter_mut()).rev() {
        if p.x.is_zero() {
            // (0, −1): the Montgomery point (0, 0).
            *slot = MontPoint::default();
            continue;
        }
        let w = m.mul(&inv, before);
        inv = m.mul(&inv, &m.mul(&(p.z - p.y), &p.x));
        let q = m.mul(&m.mul(&(p.z + p.y), &w), &md.inv_scale);
        *slot = MontPoint {
            u: m.mul(&q, &p.x),
            v: m.mul(&q, &p.z),
        };
    }
    true
}

/// The extended projective Edwards point of `p`: `x = U/V`, `y = (B·U − 1)/(B·U + 1)` as
/// `(U·(s + 1) : V·(s − 1) : V·(s + 1) : U·(s − 1))` with `s = B·U`; `(0, 0)` is `(0, −1)`.
#[inline]
pub(crate) fn to_edwards<M: FieldMul>(m: M, md: &Model, p: &MontPoint) -> EdwardsProjective {
    if p.v.is_zero() {
        return EdwardsProjective::new_unchecked(Fq::zero(), -Fq::one(), Fq::zero(), Fq::one());
    }
    let s = m.mul(&md.scale, &p.u);
    let (plus, minus) = (s + Fq::one(), s - Fq::one());
    EdwardsProjective::new_unchecked(
        m.mul(&p.u, &plus),
        m.mul(&p.v, &minus),
        m.mul(&p.u, &minus),
        m.mul(&p.v, &plus),
    )
}

/// One pending addition: `point` into bucket `bucket`.
#[derive(Clone, Copy)]
struct Op {
    bucket: u32,
    point: MontPoint,
}

/// The buckets of one window and the batch being gathered.
struct Window<'a, M: FieldMul> {
    m: M,
    md: &'a Model,
    /// `buckets[k − 1]` is bucket `k` when `full[k − 1]`, else the bucket is at infinity.
    buckets: Vec<MontPoint>,
    full: Vec<bool>,
    /// Whether the bucket has an addition in `pending`.
    busy: Vec<bool>,
    pending: Vec<Op>,
    /// The batch's length (see [`batch_len`]) and the queue's.
    batch: usize,
    queue_len: usize,
    queue: Vec<Op>,
    /// Projective buckets for the additions that found the queue full, made on first use.
    overflow: Vec<EdwardsProjective>,
    /// Denominators and prefix products of the batch.
    dens: Vec<Fq>,
    prefix: Vec<Fq>,
}

impl<'a, M: FieldMul> Window<'a, M> {
    fn new(m: M, md: &'a Model, buckets: usize) -> Self {
        let batch = batch_len(buckets);
        let queue_len = batch.div_ceil(4);
        Window {
            batch,
            queue_len,
            m,
            md,
            buckets: vec![MontPoint::default(); buckets],
            full: vec![false; buckets],
            busy: vec![false; buckets],
            pending: Vec::with_capacity(batch),
            queue: Vec::with_capacity(queue_len),
            overflow: Vec::new(),
            dens: Vec::with_capacity(batch),
            prefix: Vec::with_capacity(batch),
        }
    }

    /// Adds `op.point` to its bucket: at once into an empty bucket, else into the batch, or
    /// (its bucket busy) into the queue, or (the queue full, or `queue_ok` false) into the
    /// projective bucket.
    #[inline]
    fn insert(&mut self, op: Op, queue_ok: bool) {
        let k = op.bucket as usize;
        if self.busy[k] {
            if queue_ok && self.queue.len() < self.queue_len {
                self.queue.push(op);
            } else {
                self.add_overflow(op);
            }
        } else if !self.full[k] {
            self.buckets[k] = op.point;
            self.full[k] = true;
        } else {
            self.busy[k] = true;
            self.pending.push(op);
        }
    }

    #[cold]
    fn add_overflow(&mut self, op: Op) {
        if self.overflow.is_empty() {
            self.overflow = vec![EdwardsProjective::zero(); self.buckets.len()];
        }
        let p = to_edwards(self.m, self.md, &op.point);
        add_projective(self.m, &mut self.overflow[op.bucket as usize], &p);
    }

    /// Runs the batch, then offers the queued points again (`queue_ok`: may they queue
    /// again).
    fn flush(&mut self, queue_ok: bool) {
        self.run_batch();
        let mut waiting = core::mem::take(&mut self.queue);
        for op in waiting.drain(..) {
            self.insert(op, queue_ok);
        }
        // Keep the allocation: the queue is empty again unless ops went back into it.
        if self.queue.is_empty() {
            self.queue = waiting;
        }
    }

    /// Every pending addition with one inversion. `B + P` is by the chord when `U` differs,
    /// by the tangent when `B = P` (with `V ≠ 0`), and the point at infinity when
    /// `B = −P` (which includes `(0, 0) + (0, 0)`).
    fn run_batch(&mut self) {
        let m = self.m;
        self.dens.clear();
        self.prefix.clear();
        let mut acc = Fq::one();
        for op in &self.pending {
            let b = &self.buckets[op.bucket as usize];
            let den = if b.u != op.point.u {
                op.point.u - b.u
            } else if (b.v + op.point.v).is_zero() {
                Fq::one()
            } else {
                b.v.double()
            };
            self.prefix.push(acc);
            self.dens.push(den);
            acc = m.mul(&acc, &den);
        }
        // A product of non-zero denominators.
        let mut inv = crate::inverse::fq_inverse(&acc).unwrap_or_default();
        let md = self.md;
        for ((op, den), before) in self.pending.iter().zip(&self.dens).zip(&self.prefix).rev() {
            let k = op.bucket as usize;
            self.busy[k] = false;
            let b = self.buckets[k];
            let p = op.point;
            let den_inv = m.mul(&inv, before);
            inv = m.mul(&inv, den);
            let lambda = if b.u != p.u {
                m.mul(&(p.v - b.v), &den_inv)
            } else if (b.v + p.v).is_zero() {
                self.full[k] = false;
                continue;
            } else {
                // 3U² + 2A'·U + B'.
                let u2 = m.square(&b.u);
                let num = u2.double() + u2 + m.mul(&md.a, &b.u).double() + md.b;
                m.mul(&num, &den_inv)
            };
            let u3 = m.square(&lambda) - md.a - b.u - p.u;
            let v3 = m.mul(&lambda, &(b.u - u3)) - b.v;
            self.buckets[k] = MontPoint { u: u3, v: v3 };
        }
        self.pending.clear();
    }

    /// Ends the window: every addition done, the buckets as extended projective points.
    fn finish(mut self) -> Vec<EdwardsProjective> {
        self.flush(false);
        self.run_batch();
        let (m, md) = (self.m, self.md);
        let mut out: Vec<EdwardsProjective> = self
            .buckets
            .iter()
            .zip(&self.full)
            .map(|(b, full)| {
                if *full {
                    to_edwards(m, md, b)
                } else {
                    EdwardsProjective::zero()
                }
            })
            .collect();
        for (o, extra) in out.iter_mut().zip(&self.overflow) {
            if !extra.x.is_zero() {
                add_projective(m, o, extra);
            }
        }
        out
    }
}

/// The buckets of window `j` of the bucket method over Montgomery points (each point into
/// the bucket of its digit, by batched affine additions), as extended projective points:
/// `buckets[k − 1]` is bucket `k`.
pub(crate) fn window_buckets<M: FieldMul>(
    m: M,
    md: &Model,
    points: &[MontPoint],
    digits: &[i32],
    c: u32,
    nw: usize,
    j: usize,
) -> Vec<EdwardsProjective> {
    let mut w = Window::new(m, md, 1 << (c - 1));
    for (i, p) in points.iter().enumerate() {
        let d = digits[i * nw + j];
        if d == 0 {
            continue;
        }
        let op = Op {
            bucket: d.unsigned_abs() - 1,
            point: p.signed(d < 0),
        };
        w.insert(op, true);
        if w.pending.len() == w.batch {
            w.flush(true);
        }
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Portable;
    use crate::{Element, Fr};
    use ark_ff::UniformRand;
    use rand::{rngs::StdRng, SeedableRng};

    /// Edwards → Montgomery → Edwards is the identity on points, (0, −1) included, and the
    /// images lie on the scaled Montgomery curve.
    #[test]
    fn round_trip() {
        let md = model();
        let mut rng = StdRng::seed_from_u64(3);
        let mut pts: Vec<EdwardsProjective> = (0..50)
            .map(|_| (Element::generator() * Fr::rand(&mut rng)).0)
            .collect();
        let two_torsion =
            EdwardsProjective::new_unchecked(Fq::zero(), -Fq::one(), Fq::zero(), Fq::one());
        pts.push(two_torsion);
        pts.push(pts[0] + two_torsion);
        let mut out = vec![MontPoint::default(); pts.len()];
        assert!(to_model(Portable, md, &pts, &mut out));
        for (p, q) in pts.iter().zip(&out) {
            let lhs = q.v.square();
            let rhs = q.u * q.u.square() + md.a * q.u.square() + md.b * q.u;
            assert_eq!(lhs, rhs);
            assert_eq!(to_edwards(Portable, md, q), *p);
        }
    }
}
