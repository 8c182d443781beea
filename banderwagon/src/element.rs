//! Banderwagon elements, their canonical 32-byte encoding and map-to-scalar-field.

use crate::prelude::*;

use ark_ec::twisted_edwards::TECurveConfig;
use ark_ec::{AdditiveGroup, CurveGroup, PrimeGroup};
use ark_ed_on_bls12_381_bandersnatch::{BandersnatchConfig, EdwardsAffine, EdwardsProjective};
use ark_ff::{BigInteger, Field, One, PrimeField, Zero};
use core::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use crate::field::{with_field_mul, FieldMul};
use crate::prepared::{add_projective, batch_affine};
use crate::{Fq, Fr};

/// Why 32 bytes are not the encoding of a Banderwagon element.
///
/// Each check of the decoder has its own variant, in the order the checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The encoding is not 32 bytes long.
    #[error("point encoding must be 32 bytes, got {got}")]
    WrongLength {
        /// The length received.
        got: usize,
    },
    /// The big-endian x coordinate is not below the field modulus p.
    #[error("point x coordinate is not canonical (x >= p)")]
    NotCanonical,
    /// No point of the curve has this x coordinate.
    #[error("point is not on the Bandersnatch curve")]
    NotOnCurve,
    /// The point is on the curve but not in the prime-order subgroup (1 - a·x² is not a square).
    #[error("point is not in the prime-order subgroup")]
    NotInSubgroup,
    /// An uncompressed `(x, y)` pair whose y is not the lexicographically larger root.
    #[error("uncompressed point does not carry the canonical (larger) y")]
    NotCanonicalY,
}

/// An element of the Banderwagon group.
///
/// Internally a Bandersnatch point in extended projective coordinates; two points that
/// differ by the 2-torsion point `(0, -1)` are the same element.
#[derive(Clone, Copy, Debug)]
pub struct Element(pub(crate) EdwardsProjective);

impl PartialEq for Element {
    /// `x1·y2 == x2·y1`: equality in the quotient group.
    fn eq(&self, other: &Self) -> bool {
        self.0.x * other.0.y == other.0.x * self.0.y
    }
}
impl Eq for Element {}

impl Default for Element {
    fn default() -> Self {
        Self::identity()
    }
}

/// `y` is "positive" when it is the lexicographically larger of `y` and `-y`.
fn is_positive(y: &Fq) -> bool {
    y.into_bigint() > (-*y).into_bigint()
}

fn fq_to_be_bytes(x: &Fq) -> [u8; 32] {
    let le = x.into_bigint().to_bytes_le();
    let mut out = [0u8; 32];
    for (o, b) in out.iter_mut().zip(le.iter().rev()) {
        *o = *b;
    }
    out
}

fn fq_from_be_bytes_canonical(bytes: &[u8; 32]) -> Option<Fq> {
    let mut limbs = [0u64; 4];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[32 - 8 * (i + 1)..32 - 8 * i]);
        *limb = u64::from_be_bytes(w);
    }
    Fq::from_bigint(ark_ff::BigInt::new(limbs))
}

/// The positive y with `(x, y)` on the curve, and whether `1 − a·x²` is a non-zero square
/// (the subgroup check), computed only when the point is on the curve.
///
/// `y² = u/v` with `u = 1 − a·x²`, `v = 1 − d·x²`: one exponentiation gives `√(u/v)`
/// without an inversion (see `sqrt/mod.rs`), and a binary GCD the Legendre symbol of `u`.
/// ([`Element::decode_into`] shares the divisions of a group of points instead.)
fn decode_x(x: &Fq) -> Result<Fq, DecodeError> {
    let (u, v) = curve_uv(x);
    positive_y(&u, crate::sqrt::sqrt_ratio(&u, &v))
}

/// `(u, v) = (1 − a·x², 1 − d·x²)`: the curve point with this `x` has `y² = u/v`.
fn curve_uv(x: &Fq) -> (Fq, Fq) {
    let x2 = x.square();
    (
        Fq::one() - BandersnatchConfig::COEFF_A * x2,
        Fq::one() - BandersnatchConfig::COEFF_D * x2,
    )
}

/// The rest of [`decode_x`] once `root = √(u/v)` is known (`None`: off the curve): the
/// subgroup check on `u`, then the positive root.
fn positive_y(u: &Fq, root: Option<Fq>) -> Result<Fq, DecodeError> {
    let y = root.ok_or(DecodeError::NotOnCurve)?;
    if !crate::sqrt::is_nonzero_square(u) {
        return Err(DecodeError::NotInSubgroup);
    }
    Ok(if is_positive(&y) { y } else { -y })
}

/// Points per group of the portable [`Element::decode_into`]: one field inversion each.
const DECODE_GROUP: usize = 32;

/// [`Element::decode_into`] in groups of `G` encodings: `roots(u, v, ys)` sets each
/// `ys[i]` to `√(u[i]/v[i])` (either root) or `None`, as [`crate::sqrt::sqrt_ratio`]
/// does; a short group's missing entries and a non-canonical x take x = 0 and are not used.
fn decode_groups<const G: usize>(
    encodings: &[&[u8; 32]],
    out: &mut [Element],
    mut roots: impl FnMut(&[Fq; G], &[Fq; G], &mut [Option<Fq>; G]),
) -> Option<(usize, DecodeError)> {
    let mut first = None;
    for (g, (group, slots)) in encodings.chunks(G).zip(out.chunks_mut(G)).enumerate() {
        let xs: [Option<Fq>; G] =
            core::array::from_fn(|i| group.get(i).and_then(|e| fq_from_be_bytes_canonical(e)));
        let uv: [(Fq, Fq); G] = core::array::from_fn(|i| curve_uv(&xs[i].unwrap_or_default()));
        let u: [Fq; G] = core::array::from_fn(|i| uv[i].0);
        let v: [Fq; G] = core::array::from_fn(|i| uv[i].1);
        let mut ys = [None; G];
        roots(&u, &v, &mut ys);
        for (i, slot) in slots.iter_mut().enumerate() {
            let decoded = xs[i].ok_or(DecodeError::NotCanonical).and_then(|x| {
                let y = positive_y(&u[i], ys[i])?;
                Ok(Element(EdwardsAffine::new_unchecked(x, y).into()))
            });
            match decoded {
                Ok(p) => *slot = p,
                Err(err) => {
                    *slot = Element::identity();
                    first = first.or(Some((g * G + i, err)));
                }
            }
        }
    }
    first
}

/// Subgroup check for Banderwagon: `1 - a·x²` must be a non-zero square.
fn in_subgroup(x: &Fq) -> bool {
    let v = Fq::one() - BandersnatchConfig::COEFF_A * x.square();
    crate::sqrt::is_nonzero_square(&v)
}

impl Element {
    /// The neutral element.
    pub fn identity() -> Self {
        Element(EdwardsProjective::zero())
    }

    /// The group generator (arkworks' Bandersnatch generator; `Q` of the IPA).
    pub fn generator() -> Self {
        Element(EdwardsProjective::generator())
    }

    /// Whether this is the neutral element (`x == 0`).
    pub fn is_identity(&self) -> bool {
        self.0.x.is_zero()
    }

    /// The canonical 32-byte encoding: big-endian x, negated when y is not positive.
    pub fn to_bytes(&self) -> [u8; 32] {
        match crate::inverse::fq_inverse(&self.0.z) {
            Some(z_inv) => Self::xy_to_bytes(&(self.0.x * z_inv), &(self.0.y * z_inv)),
            None => Self::xy_to_bytes(&Fq::zero(), &Fq::zero()),
        }
    }

    fn xy_to_bytes(x: &Fq, y: &Fq) -> [u8; 32] {
        let x = if is_positive(y) { *x } else { -*x };
        fq_to_be_bytes(&x)
    }

    /// Encodes many elements with one field inversion (per chunk of 1024, in parallel with
    /// the `parallel` feature).
    pub fn batch_to_bytes(elements: &[Element]) -> Vec<[u8; 32]> {
        const CHUNK: usize = 1024;
        let encode = |chunk: &[Element]| -> Vec<[u8; 32]> {
            let proj: Vec<EdwardsProjective> = chunk.iter().map(|e| e.0).collect();
            let mut out = vec![[0u8; 32]; chunk.len()];
            with_field_mul!(|m| batch_affine(m, &proj, |i, x, y| {
                if let Some(o) = out.get_mut(i) {
                    *o = Self::xy_to_bytes(&x, &y);
                }
            }));
            out
        };
        #[cfg(feature = "parallel")]
        if elements.len() > CHUNK {
            use rayon::prelude::*;
            let parts: Vec<Vec<[u8; 32]>> = elements.par_chunks(CHUNK).map(encode).collect();
            return parts.into_iter().flatten().collect();
        }
        elements.chunks(CHUNK).flat_map(encode).collect()
    }

    /// Decodes a canonical 32-byte encoding, with the subgroup check.
    ///
    /// Total: every byte string gives either an element or a [`DecodeError`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Element, DecodeError> {
        let arr: &[u8; 32] = bytes
            .try_into()
            .map_err(|_| DecodeError::WrongLength { got: bytes.len() })?;
        Self::decode_array(arr)
    }

    fn decode_array(arr: &[u8; 32]) -> Result<Element, DecodeError> {
        let x = fq_from_be_bytes_canonical(arr).ok_or(DecodeError::NotCanonical)?;
        let y = decode_x(&x)?;
        Ok(Element(EdwardsAffine::new_unchecked(x, y).into()))
    }

    /// Decodes many canonical encodings ([`Element::from_bytes`] each, in parallel with
    /// the `parallel` feature). On failure, the index of the first bad encoding and why.
    pub fn batch_from_bytes(encodings: &[[u8; 32]]) -> Result<Vec<Element>, (usize, DecodeError)> {
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            // Four groups of the portable decoder per job.
            const CHUNK: usize = 4 * DECODE_GROUP;
            if encodings.len() > CHUNK {
                let chunks: Vec<Result<Vec<Element>, (usize, DecodeError)>> = encodings
                    .par_chunks(CHUNK)
                    .enumerate()
                    .map(|(c, chunk)| Self::decode_seq(chunk, c * CHUNK))
                    .collect();
                let mut out = Vec::with_capacity(encodings.len());
                for chunk in chunks {
                    out.extend(chunk?);
                }
                return Ok(out);
            }
        }
        Self::decode_seq(encodings, 0)
    }

    fn decode_seq(
        encodings: &[[u8; 32]],
        offset: usize,
    ) -> Result<Vec<Element>, (usize, DecodeError)> {
        let refs: Vec<&[u8; 32]> = encodings.iter().collect();
        let mut out = vec![Element::identity(); encodings.len()];
        match Self::decode_into(&refs, &mut out) {
            None => Ok(out),
            Some((i, err)) => Err((offset + i, err)),
        }
    }

    /// Decodes every encoding into `out` (the identity where one fails; pairs beyond the
    /// shorter slice are left alone) and returns the first failure, its index and why: what
    /// [`Element::from_bytes`] gives for each. The square roots of a group of points share
    /// one field inversion and run two at a time, or eight at a time where the processor
    /// has AVX-512 IFMA.
    pub fn decode_into(
        encodings: &[&[u8; 32]],
        out: &mut [Element],
    ) -> Option<(usize, DecodeError)> {
        let n = encodings.len().min(out.len());
        let (encodings, out) = (&encodings[..n], &mut out[..n]);
        #[cfg(all(target_arch = "x86_64", feature = "asm"))]
        if let Some(ifma) = crate::field::lanes() {
            return decode_groups(encodings, out, |u, v, ys| {
                *ys = crate::sqrt::lanes::sqrt_ratio8(ifma, u, v);
            });
        }
        decode_groups::<DECODE_GROUP>(encodings, out, |u, v, ys| {
            crate::sqrt::sqrt_ratio_many(u, v, ys);
        })
    }

    /// Decodes an uncompressed pair of big-endian coordinates, as go-ipa's untrusted
    /// `SetBytesUncompressed` does: y must equal the positive root for x.
    pub fn from_uncompressed_be(x_be: &[u8; 32], y_be: &[u8; 32]) -> Result<Element, DecodeError> {
        let x = fq_from_be_bytes_canonical(x_be).ok_or(DecodeError::NotCanonical)?;
        let y_given = fq_from_be_bytes_canonical(y_be).ok_or(DecodeError::NotCanonical)?;
        // The old order of checks: on-curve, canonical y, then subgroup.
        let x2 = x.square();
        let u = Fq::one() - BandersnatchConfig::COEFF_A * x2;
        let v = Fq::one() - BandersnatchConfig::COEFF_D * x2;
        let y = crate::sqrt::sqrt_ratio(&u, &v).ok_or(DecodeError::NotOnCurve)?;
        let y = if is_positive(&y) { y } else { -y };
        if y != y_given {
            return Err(DecodeError::NotCanonicalY);
        }
        if !crate::sqrt::is_nonzero_square(&u) {
            return Err(DecodeError::NotInSubgroup);
        }
        Ok(Element(EdwardsAffine::new_unchecked(x, y).into()))
    }

    /// Builds an element from affine Bandersnatch coordinates if the point is on the curve
    /// and in the subgroup (used for try-and-increment and tests).
    pub fn from_affine_coordinates(x: Fq, y: Fq) -> Option<Element> {
        let p = EdwardsAffine::new_unchecked(x, y);
        if !p.is_on_curve() || !in_subgroup(&x) {
            return None;
        }
        Some(Element(p.into()))
    }

    /// Affine `(x, y)` of one representative of this element.
    pub fn to_affine_coordinates(&self) -> (Fq, Fq) {
        let a = self.0.into_affine();
        (a.x, a.y)
    }

    /// `map_to_scalar_field` (EIP-6800 `group_to_scalar_field`): `x/y` as 32 little-endian
    /// bytes reduced mod r; the identity maps to 0.
    pub fn map_to_scalar_field(&self) -> Fr {
        match crate::inverse::fq_inverse(&self.0.y) {
            Some(inv) => fq_to_fr(&(self.0.x * inv)),
            None => Fr::zero(),
        }
    }

    /// [`Element::map_to_scalar_field`] for many elements with one field inversion, on this
    /// thread.
    pub fn batch_map_to_scalar_field(elements: &[Element]) -> Vec<Fr> {
        let mut out = vec![Fr::zero(); elements.len()];
        Element::batch_map_to_scalar_field_into(elements, &mut out);
        out
    }

    /// [`Element::batch_map_to_scalar_field`] writing `out[i]` for each `elements[i]`
    /// (`out` is as long as `elements`; extra slots on either side are left alone).
    pub fn batch_map_to_scalar_field_into(elements: &[Element], out: &mut [Fr]) {
        with_field_mul!(|m| batch_mtf(m, elements, out))
    }

    /// [`Element::batch_map_to_scalar_field`] in chunks of [`MTF_CHUNK`] elements (one field
    /// inversion each), the chunks on rayon threads when there are at least two and the
    /// `parallel` feature is on.
    pub fn par_batch_map_to_scalar_field(elements: &[Element]) -> Vec<Fr> {
        let mut out = vec![Fr::zero(); elements.len()];
        #[cfg(feature = "parallel")]
        if elements.len() >= 2 * MTF_CHUNK {
            use rayon::prelude::*;
            elements
                .par_chunks(MTF_CHUNK)
                .zip(out.par_chunks_mut(MTF_CHUNK))
                .for_each(|(els, fs)| Element::batch_map_to_scalar_field_into(els, fs));
            return out;
        }
        Element::batch_map_to_scalar_field_into(elements, &mut out);
        out
    }

    /// `2·self`.
    pub fn double(&self) -> Element {
        Element(self.0.double())
    }

    /// The underlying arkworks point (one representative of the class).
    pub fn as_projective(&self) -> &EdwardsProjective {
        &self.0
    }

    internal_fn! {
        /// Wraps an arkworks point. The caller guarantees it lies in the prime-order subgroup
        /// (up to the 2-torsion point), e.g. because it was computed from subgroup points.
        fn from_projective_unchecked(p: EdwardsProjective) -> Element {
            Element(p)
        }
    }
}

/// Elements per inversion in [`Element::par_batch_map_to_scalar_field`]: large enough that
/// the inversion (≈ 250 multiplications) is a small share of a chunk, small enough that a
/// few thousand elements still split across the threads.
pub const MTF_CHUNK: usize = 256;

/// `x/y` of every element, reduced into the scalar field, with one field inversion
/// (Montgomery's trick), into `out[i]`; an element with `y = 0` (never a valid one) maps
/// to 0.
fn batch_mtf<M: FieldMul>(m: M, elements: &[Element], out: &mut [Fr]) {
    let n = elements.len().min(out.len());
    let (elements, out) = (&elements[..n], &mut out[..n]);
    let mut prefix = Vec::with_capacity(n);
    let mut acc = Fq::one();
    for e in elements {
        prefix.push(acc);
        if !e.0.y.is_zero() {
            acc = m.mul(&acc, &e.0.y);
        }
    }
    // `acc` is a product of non-zero values, so it has an inverse.
    let mut inv = crate::inverse::fq_inverse(&acc).expect("a product of non-zero values");
    for ((e, before), o) in elements.iter().zip(&prefix).zip(out.iter_mut()).rev() {
        if e.0.y.is_zero() {
            *o = Fr::zero();
            continue;
        }
        let y_inv = m.mul(&inv, before);
        inv = m.mul(&inv, &e.0.y);
        *o = fq_to_fr(&m.mul(&e.0.x, &y_inv));
    }
}

/// Reduces a base-field element into the scalar field (its canonical integer mod r, what
/// reducing its 32 little-endian bytes gives): `v < p < 5r`, so at most four subtractions.
fn fq_to_fr(v: &Fq) -> Fr {
    let mut n = v.into_bigint();
    let r = Fr::MODULUS;
    while n >= r {
        n.sub_with_borrow(&r);
    }
    Fr::from_bigint(n).expect("reduced below r")
}

// Additions use arkworks' formula on the selected field backend
// (`crate::prepared::add_projective`): the same output coordinates.
impl Add for Element {
    type Output = Element;
    fn add(mut self, rhs: Element) -> Element {
        self += rhs;
        self
    }
}
impl AddAssign for Element {
    fn add_assign(&mut self, rhs: Element) {
        with_field_mul!(|m| add_projective(m, &mut self.0, &rhs.0));
    }
}
impl Sub for Element {
    type Output = Element;
    fn sub(mut self, rhs: Element) -> Element {
        self -= rhs;
        self
    }
}
impl SubAssign for Element {
    fn sub_assign(&mut self, rhs: Element) {
        let neg = -rhs.0;
        with_field_mul!(|m| add_projective(m, &mut self.0, &neg));
    }
}
impl Neg for Element {
    type Output = Element;
    fn neg(self) -> Element {
        Element(-self.0)
    }
}
impl Mul<Fr> for Element {
    type Output = Element;
    fn mul(self, rhs: Fr) -> Element {
        Element(self.0 * rhs)
    }
}
impl Mul<&Fr> for &Element {
    type Output = Element;
    fn mul(self, rhs: &Fr) -> Element {
        Element(self.0 * rhs)
    }
}
impl core::iter::Sum for Element {
    fn sum<I: Iterator<Item = Element>>(iter: I) -> Element {
        iter.fold(Element::identity(), |a, b| a + b)
    }
}

#[cfg(test)]
mod tests;
