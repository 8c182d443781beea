//! Precomputed points in extended-affine form `(x, y, d·x·y)` and the mixed addition that
//! uses them.
//!
//! Adding such a point to an extended projective point (Hisil–Wong–Carter–Dawson 2008,
//! `madd-2008-hwcd` with `d·T2` stored) costs 8 field multiplications instead of the 10 of
//! arkworks' mixed addition from plain affine `(x, y)`.

use crate::prelude::*;

use ark_ec::twisted_edwards::TECurveConfig;
use ark_ed_on_bls12_381_bandersnatch::{BandersnatchConfig, EdwardsProjective};
use ark_ff::{AdditiveGroup, One, Zero};

use crate::field::{with_field_mul, FieldMul};
use crate::Fq;

/// An affine point with `d·x·y` precomputed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PreparedPoint {
    pub(crate) x: Fq,
    pub(crate) y: Fq,
    pub(crate) dt: Fq,
}

/// Calls `emit(i, x, y)` with the affine coordinates of each `points[i]`, last point
/// first: prefix products of the `z`s, one inversion, then per point `1/z`, `x` and `y`
/// (5 multiplications). A point with `z = 0` (never a valid one) gets `(0, 0)`, as
/// arkworks' `normalize_batch` gives.
#[inline(always)]
pub(crate) fn batch_affine<M: FieldMul>(
    m: M,
    points: &[EdwardsProjective],
    mut emit: impl FnMut(usize, Fq, Fq),
) {
    let mut prefix = Vec::with_capacity(points.len());
    let mut acc = Fq::one();
    for p in points {
        prefix.push(acc);
        if !p.z.is_zero() {
            acc = m.mul(&acc, &p.z);
        }
    }
    // `acc` is a product of non-zero values.
    let mut inv = crate::inverse::fq_inverse(&acc).unwrap_or_default();
    for (i, (p, before)) in points.iter().zip(&prefix).enumerate().rev() {
        if p.z.is_zero() {
            emit(i, Fq::zero(), Fq::zero());
            continue;
        }
        let z_inv = m.mul(&inv, before);
        inv = m.mul(&inv, &p.z);
        emit(i, m.mul(&p.x, &z_inv), m.mul(&p.y, &z_inv));
    }
}

/// Appends the prepared forms of `points` to `out` ([`batch_affine`], then `d·x·y`).
fn batch_prepare<M: FieldMul>(m: M, points: &[EdwardsProjective], out: &mut Vec<PreparedPoint>) {
    let zero = PreparedPoint {
        x: Fq::zero(),
        y: Fq::zero(),
        dt: Fq::zero(),
    };
    let start = out.len();
    out.resize(start + points.len(), zero);
    let slots = &mut out[start..];
    batch_affine(m, points, |i, x, y| {
        if let Some(o) = slots.get_mut(i) {
            *o = PreparedPoint {
                x,
                y,
                dt: m.mul(&m.mul(&BandersnatchConfig::COEFF_D, &x), &y),
            };
        }
    });
}

/// `a·v` for the curve coefficient `a = −5`.
#[inline(always)]
fn mul_by_a(v: Fq) -> Fq {
    -(v.double().double() + v)
}

impl PreparedPoint {
    /// Normalises many projective points with one field inversion (Montgomery's trick),
    /// on the calling thread.
    pub(crate) fn batch_from_projective(points: &[EdwardsProjective]) -> Vec<PreparedPoint> {
        let mut out = Vec::with_capacity(points.len());
        with_field_mul!(|m| batch_prepare(m, points, &mut out));
        out
    }

    /// [`PreparedPoint::batch_from_projective`] split into chunks normalised in parallel
    /// (rayon) with the `parallel` feature; for large inputs outside table builds.
    pub(crate) fn batch_from_projective_par(points: &[EdwardsProjective]) -> Vec<PreparedPoint> {
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            const CHUNK: usize = 2048;
            if points.len() > CHUNK {
                let parts: Vec<Vec<PreparedPoint>> = points
                    .par_chunks(CHUNK)
                    .map(PreparedPoint::batch_from_projective)
                    .collect();
                return parts.into_iter().flatten().collect();
            }
        }
        Self::batch_from_projective(points)
    }

    /// `-self`.
    #[cfg(test)]
    pub(crate) fn neg(&self) -> PreparedPoint {
        PreparedPoint {
            x: -self.x,
            y: self.y,
            dt: -self.dt,
        }
    }
}

/// `acc += p` (8 multiplications).
#[inline(always)]
pub(crate) fn add_prepared<M: FieldMul>(m: M, acc: &mut EdwardsProjective, p: &PreparedPoint) {
    let a = m.mul(&acc.x, &p.x);
    let b = m.mul(&acc.y, &p.y);
    let c = m.mul(&acc.t, &p.dt);
    let d = acc.z;
    let e = m.mul(&(acc.x + acc.y), &(p.x + p.y)) - a - b;
    finish(m, acc, d, c, e, b - mul_by_a(a));
}

/// `acc −= p` (8 multiplications).
#[inline(always)]
pub(crate) fn sub_prepared<M: FieldMul>(m: M, acc: &mut EdwardsProjective, p: &PreparedPoint) {
    // −p = (−x, y, −d·x·y): the products with x and d·x·y change sign.
    let a = m.mul(&acc.x, &p.x);
    let b = m.mul(&acc.y, &p.y);
    let c = m.mul(&acc.t, &p.dt);
    let d = acc.z;
    // e = X·y − Y·x = (X + Y)(y − x) + X·x − Y·y.
    let e = m.mul(&(acc.x + acc.y), &(p.y - p.x)) + a - b;
    finish(m, acc, d, -c, e, b + mul_by_a(a));
}

/// The four output products of the HWCD addition, from `D = Z`, `C`, `E` and `H`.
#[inline(always)]
fn finish<M: FieldMul>(m: M, acc: &mut EdwardsProjective, d: Fq, c: Fq, e: Fq, h: Fq) {
    let f = d - c;
    let g = d + c;
    acc.x = m.mul(&e, &f);
    acc.y = m.mul(&g, &h);
    acc.t = m.mul(&e, &h);
    acc.z = m.mul(&f, &g);
}

/// `sign·p` as an extended projective point (`z = 1`; one multiplication, for `t = x·y`):
/// what adding `sign·p` to the identity gives, without the addition's eight.
#[inline(always)]
pub(crate) fn from_signed<M: FieldMul>(
    m: M,
    p: &PreparedPoint,
    negative: bool,
) -> EdwardsProjective {
    let t = m.mul(&p.x, &p.y);
    let (x, t) = if negative { (-p.x, -t) } else { (p.x, t) };
    EdwardsProjective::new_unchecked(x, p.y, t, Fq::one())
}

/// `acc += sign·p` for a signed digit's sign.
#[inline(always)]
pub(crate) fn add_signed<M: FieldMul>(
    m: M,
    acc: &mut EdwardsProjective,
    p: &PreparedPoint,
    negative: bool,
) {
    if negative {
        sub_prepared(m, acc, p)
    } else {
        add_prepared(m, acc, p)
    }
}

/// `acc += q` for extended projective points: the unified HWCD addition
/// (`add-2008-hwcd`, 10 multiplications), the same formula and order of operations as
/// arkworks' `AddAssign`, so the output coordinates are identical.
#[inline(always)]
pub(crate) fn add_projective<M: FieldMul>(
    m: M,
    acc: &mut EdwardsProjective,
    q: &EdwardsProjective,
) {
    let a = m.mul(&acc.x, &q.x);
    let b = m.mul(&acc.y, &q.y);
    let c = m.mul(&m.mul(&acc.t, &BandersnatchConfig::COEFF_D), &q.t);
    let d = m.mul(&acc.z, &q.z);
    let e = m.mul(&(acc.x + acc.y), &(q.x + q.y)) - a - b;
    finish(m, acc, d, c, e, b - mul_by_a(a));
}

/// `acc = 2·acc` (`dbl-2008-hwcd`: 4 squarings, 4 multiplications), as arkworks doubles.
#[inline(always)]
pub(crate) fn double_projective<M: FieldMul>(m: M, acc: &mut EdwardsProjective) {
    double_with::<M, true>(m, acc);
}

/// `acc = 2·acc` in `x`, `y`, `z` only (4 squarings, 3 multiplications): `t` is left
/// stale, for a doubling whose result is only doubled again (the doubling never reads `t`).
#[inline(always)]
pub(crate) fn double_projective_xyz<M: FieldMul>(m: M, acc: &mut EdwardsProjective) {
    double_with::<M, false>(m, acc);
}

#[inline(always)]
fn double_with<M: FieldMul, const T: bool>(m: M, acc: &mut EdwardsProjective) {
    let a = m.square(&acc.x);
    let b = m.square(&acc.y);
    let c = m.square(&acc.z).double();
    let d = mul_by_a(a);
    let e = m.square(&(acc.x + acc.y)) - a - b;
    let g = d + b;
    let f = g - c;
    let h = d - b;
    acc.x = m.mul(&e, &f);
    acc.y = m.mul(&g, &h);
    if T {
        acc.t = m.mul(&e, &h);
    }
    acc.z = m.mul(&f, &g);
}

/// Whether an extended point is the identity (`x = 0`, as in the quotient group).
#[inline(always)]
pub(crate) fn is_zero_x(p: &EdwardsProjective) -> bool {
    p.x.is_zero()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Portable;
    use ark_ec::PrimeGroup;
    use ark_ff::UniformRand;
    use rand::SeedableRng;

    fn random_points(seed: u64) -> Vec<EdwardsProjective> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let g = EdwardsProjective::generator();
        (0..8)
            .map(|_| g * ark_ed_on_bls12_381_bandersnatch::Fr::rand(&mut rng))
            .chain([EdwardsProjective::zero(), g])
            .collect()
    }

    fn check_formulas<M: FieldMul>(m: M) {
        let pts = random_points(7);
        let prepared = PreparedPoint::batch_from_projective(&pts);
        let mut acc = EdwardsProjective::generator().double();
        let mut expect = acc;
        for (p, q) in pts.iter().zip(&prepared) {
            add_prepared(m, &mut acc, q);
            expect += p;
            assert_eq!(acc, expect);
            sub_prepared(m, &mut acc, &q.neg());
            expect += p;
            assert_eq!(acc, expect);
            add_signed(m, &mut acc, q, true);
            expect -= p;
            assert_eq!(acc, expect);
            // The projective formulas reproduce arkworks' coordinates exactly.
            let mut sum = acc;
            add_projective(m, &mut sum, p);
            let want = acc + p;
            assert_eq!(
                (sum.x, sum.y, sum.t, sum.z),
                (want.x, want.y, want.t, want.z)
            );
            let mut dbl = acc;
            double_projective(m, &mut dbl);
            let want = acc.double();
            assert_eq!(
                (dbl.x, dbl.y, dbl.t, dbl.z),
                (want.x, want.y, want.t, want.z)
            );
            // A doubling without `t` then a full one: the coordinates of two full ones.
            let mut quad = acc;
            double_projective_xyz(m, &mut quad);
            assert_eq!((quad.x, quad.y, quad.z), (want.x, want.y, want.z));
            double_projective(m, &mut quad);
            let want = want.double();
            assert_eq!(
                (quad.x, quad.y, quad.t, quad.z),
                (want.x, want.y, want.t, want.z)
            );
        }
        let mut zero = EdwardsProjective::zero();
        double_projective(m, &mut zero);
        assert!(is_zero_x(&zero));
        assert!(!is_zero_x(&acc));
    }

    #[test]
    fn prepared_addition_matches_arkworks() {
        check_formulas(Portable);
    }

    #[test]
    fn prepared_addition_matches_arkworks_on_29_bit_limbs() {
        check_formulas(crate::field::Limb29);
    }

    #[test]
    fn batch_preparation_matches_arkworks() {
        use ark_ec::CurveGroup;
        let mut pts = random_points(9);
        // Non-trivial z: sums of points.
        for i in 1..pts.len() {
            let prev = pts[i - 1];
            pts[i] += prev;
        }
        pts.push(EdwardsProjective::new_unchecked(
            Fq::one(),
            Fq::one(),
            Fq::one(),
            Fq::zero(),
        ));
        let many: Vec<EdwardsProjective> = (0..5000).map(|i| pts[i % pts.len()]).collect();
        let want: Vec<PreparedPoint> = EdwardsProjective::normalize_batch(&many)
            .into_iter()
            .map(|a| PreparedPoint {
                x: a.x,
                y: a.y,
                dt: BandersnatchConfig::COEFF_D * a.x * a.y,
            })
            .collect();
        assert_eq!(PreparedPoint::batch_from_projective(&many), want);
        assert_eq!(PreparedPoint::batch_from_projective_par(&many), want);
        assert_eq!(PreparedPoint::batch_from_projective(&many[..7]), want[..7]);
        assert!(PreparedPoint::batch_from_projective(&[]).is_empty());
        let mut out = Vec::new();
        batch_prepare(Portable, &many[..50], &mut out);
        batch_prepare(Portable, &many[50..100], &mut out);
        assert_eq!(out, want[..100]);
        #[cfg(all(target_arch = "x86_64", feature = "asm"))]
        if let Some(adx) = crate::field::Adx::detect() {
            let mut out = Vec::new();
            batch_prepare(adx, &many, &mut out);
            assert_eq!(out, want);
        }
    }

    /// The assembly backend gives the same coordinates as the portable one.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    #[test]
    #[cfg_attr(
        not(build_host_has_adx),
        ignore = "the build machine has no BMI2/ADX: the assembly path is not tested"
    )]
    fn backends_agree() {
        let Some(adx) = crate::field::Adx::detect() else {
            return;
        };
        check_formulas(adx);
        let pts = random_points(8);
        let prepared = PreparedPoint::batch_from_projective(&pts);
        let (mut a, mut b) = (pts[0], pts[0]);
        for (i, (p, q)) in pts.iter().zip(&prepared).enumerate() {
            add_signed(adx, &mut a, q, i % 3 == 0);
            add_signed(Portable, &mut b, q, i % 3 == 0);
            add_projective(adx, &mut a, p);
            add_projective(Portable, &mut b, p);
            double_projective(adx, &mut a);
            double_projective(Portable, &mut b);
            assert_eq!((a.x, a.y, a.t, a.z), (b.x, b.y, b.t, b.z));
        }
    }
}
