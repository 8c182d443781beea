//! Precomputed points in extended-affine form `(x, y, d·x·y)` and the mixed addition that
//! uses them.
//!
//! Adding such a point to an extended projective point (Hisil–Wong–Carter–Dawson 2008,
//! `madd-2008-hwcd` with `d·T2` stored) costs 8 field multiplications instead of the 10 of
//! arkworks' mixed addition from plain affine `(x, y)`.

use ark_ec::twisted_edwards::TECurveConfig;
use ark_ec::CurveGroup;
use ark_ed_on_bls12_381_bandersnatch::{BandersnatchConfig, EdwardsProjective};
use ark_ff::{AdditiveGroup, Zero};

use crate::field::FieldMul;
use crate::Fq;

/// An affine point with `d·x·y` precomputed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PreparedPoint {
    pub(crate) x: Fq,
    pub(crate) y: Fq,
    pub(crate) dt: Fq,
}

/// `a·v` for the curve coefficient `a = −5`.
#[inline(always)]
fn mul_by_a(v: Fq) -> Fq {
    -(v.double().double() + v)
}

impl PreparedPoint {
    /// Normalises many projective points with one field inversion.
    pub(crate) fn batch_from_projective(points: &[EdwardsProjective]) -> Vec<PreparedPoint> {
        EdwardsProjective::normalize_batch(points)
            .into_iter()
            .map(|a| PreparedPoint {
                x: a.x,
                y: a.y,
                dt: BandersnatchConfig::COEFF_D * a.x * a.y,
            })
            .collect()
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
    acc.t = m.mul(&e, &h);
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

    /// The assembly backend gives the same coordinates as the portable one.
    #[cfg(target_arch = "x86_64")]
    #[test]
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
