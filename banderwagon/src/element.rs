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
/// without an inversion (see `sqrt.rs`); a second one gives the Legendre symbol of `u`.
fn decode_x(x: &Fq) -> Result<Fq, DecodeError> {
    let x2 = x.square();
    let u = Fq::one() - BandersnatchConfig::COEFF_A * x2;
    let v = Fq::one() - BandersnatchConfig::COEFF_D * x2;
    let y = crate::sqrt::sqrt_ratio(&u, &v).ok_or(DecodeError::NotOnCurve)?;
    if !crate::sqrt::is_nonzero_square(&u) {
        return Err(DecodeError::NotInSubgroup);
    }
    Ok(if is_positive(&y) { y } else { -y })
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
            const CHUNK: usize = 16;
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
        encodings
            .iter()
            .enumerate()
            .map(|(i, e)| Self::decode_array(e).map_err(|err| (offset + i, err)))
            .collect()
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

    /// Wraps an arkworks point. The caller guarantees it lies in the prime-order subgroup
    /// (up to the 2-torsion point), e.g. because it was computed from subgroup points.
    pub fn from_projective_unchecked(p: EdwardsProjective) -> Element {
        Element(p)
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
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    #[test]
    fn generator_map_to_field() {
        let got = crate::fr_to_le_bytes(&Element::generator().map_to_scalar_field());
        assert_eq!(
            hex::encode(got),
            "d1e7de2aaea9603d5bc6c208d319596376556ecd8336671ba7670c2139772d14"
        );
    }

    #[test]
    fn identity_encodes_to_zero_and_back() {
        assert_eq!(Element::identity().to_bytes(), [0u8; 32]);
        assert_eq!(
            Element::from_bytes(&[0u8; 32]).unwrap(),
            Element::identity()
        );
        assert_eq!(Element::identity().map_to_scalar_field(), Fr::zero());
    }

    #[test]
    fn two_torsion_is_identity() {
        let t2 = EdwardsAffine::new_unchecked(Fq::zero(), -Fq::one());
        let g = Element::generator();
        let shifted = Element(g.0 + EdwardsProjective::from(t2));
        assert_eq!(shifted, g);
        assert_eq!(shifted.to_bytes(), g.to_bytes());
        assert_eq!(shifted.map_to_scalar_field(), g.map_to_scalar_field());
    }

    #[test]
    fn decoding_rejects_with_each_variant() {
        assert_eq!(
            Element::from_bytes(&[0u8; 31]),
            Err(DecodeError::WrongLength { got: 31 })
        );
        let mut p_plus_1 = h("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000002");
        assert_eq!(
            Element::from_bytes(&p_plus_1),
            Err(DecodeError::NotCanonical)
        );
        p_plus_1[0] = 0xff;
        assert_eq!(
            Element::from_bytes(&p_plus_1),
            Err(DecodeError::NotCanonical)
        );
        let bad = h("120faa1df94d5d831bbb69fc44816e25afd27288a333299ac3c94518fd0e016f");
        assert_eq!(Element::from_bytes(&bad), Err(DecodeError::NotInSubgroup));
    }

    /// The decoder before the fast square root: inverse, Tonelli–Shanks, Legendre symbol.
    fn old_from_bytes(arr: &[u8; 32]) -> Result<Element, DecodeError> {
        let x = fq_from_be_bytes_canonical(arr).ok_or(DecodeError::NotCanonical)?;
        let x2 = x.square();
        let num = Fq::one() - BandersnatchConfig::COEFF_A * x2;
        let den = Fq::one() - BandersnatchConfig::COEFF_D * x2;
        let y = den
            .inverse()
            .and_then(|i| (num * i).sqrt())
            .ok_or(DecodeError::NotOnCurve)?;
        let y = if is_positive(&y) { y } else { -y };
        if !num.legendre().is_qr() {
            return Err(DecodeError::NotInSubgroup);
        }
        Ok(Element(EdwardsAffine::new_unchecked(x, y).into()))
    }

    fn same(a: &Result<Element, DecodeError>, b: &Result<Element, DecodeError>) -> bool {
        match (a, b) {
            (Ok(p), Ok(q)) => p.0.x == q.0.x && p.0.y == q.0.y,
            (Err(e), Err(f)) => e == f,
            _ => false,
        }
    }

    #[test]
    fn fast_decoder_matches_old_path() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(11);
        let g = Element::generator();
        let mut encodings: Vec<[u8; 32]> = (0..1500)
            .map(|_| (g * <Fr as ark_ff::UniformRand>::rand(&mut rng)).to_bytes())
            .collect();
        // Random strings: mostly off-curve, some not in the subgroup, some non-canonical.
        for i in 0..3000 {
            let mut b: [u8; 32] = rng.gen();
            if i % 3 != 0 {
                b[0] &= 0x3f;
            }
            encodings.push(b);
        }
        for small in 0..64u8 {
            let mut b = [0u8; 32];
            b[31] = small;
            encodings.push(b);
        }
        // The encoding of -1 and of p-1 (x = -1).
        encodings.push(fq_to_be_bytes(&-Fq::one()));
        let mut kinds = std::collections::HashMap::new();
        for e in &encodings {
            let new = Element::from_bytes(e);
            let old = old_from_bytes(e);
            assert!(same(&new, &old), "{}: {new:?} vs {old:?}", hex::encode(e));
            *kinds.entry(format!("{:?}", new.map(|_| ()))).or_insert(0) += 1;
        }
        // Every outcome class was exercised.
        assert_eq!(kinds.len(), 4, "{kinds:?}");
        // The batch decoder agrees, and reports the first bad index.
        let good = &encodings[..1500];
        let batch = Element::batch_from_bytes(good).unwrap();
        for (e, p) in good.iter().zip(&batch) {
            assert!(same(&Ok(*p), &Element::from_bytes(e)));
        }
        let first_bad = encodings
            .iter()
            .position(|e| Element::from_bytes(e).is_err())
            .unwrap();
        assert_eq!(
            Element::batch_from_bytes(&encodings).map(|_| ()),
            Err((
                first_bad,
                Element::from_bytes(&encodings[first_bad]).unwrap_err()
            ))
        );
        assert_eq!(Element::batch_from_bytes(&[]), Ok(Vec::new()));
    }

    #[test]
    fn uncompressed_decoder_checks() {
        let g = Element::generator() * Fr::from(12345u64);
        let (x, y) = g.to_affine_coordinates();
        let (x, y) = if is_positive(&y) { (x, y) } else { (-x, -y) };
        let xb = fq_to_be_bytes(&x);
        assert_eq!(
            Element::from_uncompressed_be(&xb, &fq_to_be_bytes(&y)),
            Ok(g)
        );
        assert_eq!(
            Element::from_uncompressed_be(&xb, &fq_to_be_bytes(&-y)),
            Err(DecodeError::NotCanonicalY)
        );
    }

    /// The encoders match arkworks' normalisation on many points, in and across chunks.
    #[test]
    fn encodings_match_arkworks_affine() {
        use ark_ff::UniformRand;
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(21);
        let g = Element::generator();
        let mut pts: Vec<Element> = (0..2500).map(|_| g * Fr::rand(&mut rng)).collect();
        pts[5] = Element::identity();
        pts[1500] = Element::identity();
        let want: Vec<[u8; 32]> = pts
            .iter()
            .map(|p| {
                let a = p.0.into_affine();
                let x = if is_positive(&a.y) { a.x } else { -a.x };
                fq_to_be_bytes(&x)
            })
            .collect();
        assert_eq!(Element::batch_to_bytes(&pts), want);
        for (p, w) in pts.iter().zip(&want).take(50) {
            assert_eq!(p.to_bytes(), *w);
        }
        assert!(Element::batch_to_bytes(&[]).is_empty());
    }

    #[test]
    fn batch_versions_agree() {
        let g = Element::generator();
        let pts: Vec<Element> = (1..20u64)
            .map(|i| g * Fr::from(i))
            .chain([Element::identity()])
            .collect();
        let single: Vec<Fr> = pts.iter().map(|p| p.map_to_scalar_field()).collect();
        assert_eq!(Element::batch_map_to_scalar_field(&pts), single);
        let enc: Vec<[u8; 32]> = pts.iter().map(|p| p.to_bytes()).collect();
        assert_eq!(Element::batch_to_bytes(&pts), enc);
    }

    /// The definition: the 32 little-endian bytes of `v`, reduced mod r.
    fn fq_to_fr_by_bytes(v: &Fq) -> Fr {
        Fr::from_le_bytes_mod_order(&v.into_bigint().to_bytes_le())
    }

    #[test]
    fn fq_to_fr_reduces_like_the_bytes() {
        let r = Fr::MODULUS;
        let mut edges: Vec<Fq> = vec![Fq::zero(), Fq::one(), -Fq::one(), -Fq::from(2u64)];
        for k in 1..=4u64 {
            // k·r − 1, k·r and k·r + 1 (all below p).
            let kr = Fq::from(k) * Fq::from_bigint(r).unwrap();
            edges.extend([kr - Fq::one(), kr, kr + Fq::one()]);
        }
        let mut x = Fq::from(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..20_000 {
            x = x.square() + Fq::from(7u64);
            edges.push(x);
        }
        for v in &edges {
            assert_eq!(fq_to_fr(v), fq_to_fr_by_bytes(v), "{v}");
        }
    }

    /// Additions and subtractions give arkworks' coordinates exactly, on the selected
    /// backend (whichever it is on this processor).
    #[test]
    fn additions_match_arkworks_coordinates() {
        let g = Element::generator();
        let pts: Vec<Element> = (1..60u64)
            .map(|i| g * Fr::from(i * 0x1f2e_3d4c_5b6a + 3))
            .chain([Element::identity()])
            .collect();
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let sum = a + b;
            let (x, y) = (a.0 + b.0, a.0 - b.0);
            assert_eq!((sum.0.x, sum.0.y, sum.0.t, sum.0.z), (x.x, x.y, x.t, x.z));
            let diff = a - b;
            assert_eq!(
                (diff.0.x, diff.0.y, diff.0.t, diff.0.z),
                (y.x, y.y, y.t, y.z)
            );
            let mut acc = a;
            acc += b;
            acc -= b;
            let mut want = a.0;
            want += b.0;
            want -= b.0;
            assert_eq!(
                (acc.0.x, acc.0.y, acc.0.t, acc.0.z),
                (want.x, want.y, want.t, want.z)
            );
        }
    }

    /// The batched map to field gives the definition's scalars, under both field backends,
    /// the identity included.
    #[test]
    fn batch_map_to_field_matches_the_definition() {
        let g = Element::generator();
        let mut pts: Vec<Element> = (1..300u64)
            .map(|i| g * Fr::from(i * 0x1234_5678_9abc + 17))
            .collect();
        pts.insert(100, Element::identity());
        let want: Vec<Fr> = pts
            .iter()
            .map(|p| {
                let (x, y) = p.to_affine_coordinates();
                fq_to_fr_by_bytes(&(x * y.inverse().unwrap()))
            })
            .collect();
        let run = |m, els: &[Element]| {
            let mut out = vec![Fr::from(7u64); els.len()];
            batch_mtf(m, els, &mut out);
            out
        };
        assert_eq!(run(crate::field::Portable, &pts), want);
        #[cfg(all(target_arch = "x86_64", feature = "asm"))]
        match crate::field::Adx::detect() {
            Some(adx) => {
                let mut out = vec![Fr::from(7u64); pts.len()];
                batch_mtf(adx, &pts, &mut out);
                assert_eq!(out, want);
            }
            None => eprintln!("no BMI2/ADX on this processor: the assembly path was not tested"),
        }
        assert!(run(crate::field::Portable, &[]).is_empty());
        assert_eq!(Element::batch_map_to_scalar_field(&pts), want);
        // Chunked and parallel: lengths around the chunk size and its multiples.
        let many: Vec<Element> = (0..3 * MTF_CHUNK + 5)
            .map(|i| pts[i % pts.len()] + g * Fr::from(i as u64))
            .collect();
        let one_by_one: Vec<Fr> = many.iter().map(Element::map_to_scalar_field).collect();
        for n in [
            0,
            1,
            MTF_CHUNK - 1,
            MTF_CHUNK,
            2 * MTF_CHUNK,
            2 * MTF_CHUNK + 1,
            many.len(),
        ] {
            assert_eq!(
                Element::par_batch_map_to_scalar_field(&many[..n]),
                one_by_one[..n],
                "n = {n}"
            );
        }
    }
}
