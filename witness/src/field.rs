//! Scalar-field values the verifier derives from the witness: commitments mapped to the
//! scalar field, values split into halves, stems read as integers.
//!
//! Everything here is straight-line field arithmetic on fixed-size limbs: no byte vectors,
//! no generic big-integer reduction, and one field inversion per batch of commitments.

use banderwagon::arith::{One, PrimeField, Zero};
use banderwagon::{fr_from_le_bytes_mod_order, Element, Fq, Fr};

use crate::preset::STEM_LEN;

/// The scalar whose little-endian 64-bit limbs are `limbs`, when it is below r (always, for
/// the values built here: at most 2^248). One Montgomery multiplication, no byte buffers.
fn fr_from_limbs(limbs: [u64; 4]) -> Option<Fr> {
    let mut int = <Fr as PrimeField>::BigInt::from(0u64);
    for (dst, src) in int.as_mut().iter_mut().zip(limbs) {
        *dst = src;
    }
    Fr::from_bigint(int)
}

/// Little-endian 64-bit word `i` of `bytes`, zero-padded past the end.
fn le_word(bytes: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(chunk) = bytes.chunks(8).nth(i) {
        if let Some(dst) = w.get_mut(..chunk.len()) {
            dst.copy_from_slice(chunk);
        }
    }
    u64::from_le_bytes(w)
}

/// `(low + 2^128, high)` for a present value, `(0, 0)` for an absent one (verkle-facts §3).
///
/// Both halves are below 2^129 < r, so each is a canonical scalar read straight from its
/// limbs (the 2^128 "value present" marker is limb 2's low bit).
pub(crate) fn value_halves(value: Option<&[u8; 32]>) -> (Fr, Fr) {
    match value {
        None => (Fr::zero(), Fr::zero()),
        Some(v) => {
            let low = [le_word(v, 0), le_word(v, 1), 1, 0];
            let high = [le_word(v, 2), le_word(v, 3), 0, 0];
            (
                fr_from_limbs(low).unwrap_or_else(|| value_halves_bytewise(v).0),
                fr_from_limbs(high).unwrap_or_else(|| value_halves_bytewise(v).1),
            )
        }
    }
}

/// [`value_halves`] of a present value by byte-wise reduction: the definition, which the
/// limb form never needs to fall back to.
fn value_halves_bytewise(v: &[u8; 32]) -> (Fr, Fr) {
    let (low, high) = v.split_at(16);
    let mut marked = [0u8; 17];
    marked[..16].copy_from_slice(low);
    marked[16] = 1;
    (
        fr_from_le_bytes_mod_order(&marked),
        fr_from_le_bytes_mod_order(high),
    )
}

/// The stem as a 31-byte little-endian integer (the leaf's value at z = 1): below 2^248 < r,
/// so read straight from its limbs.
pub(crate) fn stem_field(stem: &[u8; STEM_LEN]) -> Fr {
    let limbs = [
        le_word(stem, 0),
        le_word(stem, 1),
        le_word(stem, 2),
        le_word(stem, 3),
    ];
    fr_from_limbs(limbs).unwrap_or_else(|| fr_from_le_bytes_mod_order(stem))
}

/// 2^128 in the scalar field.
fn two_pow_128() -> Fr {
    fr_from_limbs([0, 0, 1, 0]).unwrap_or_else(|| Fr::from(u128::MAX) + Fr::one())
}

/// A base-field element's canonical integer reduced mod r: `lo + 2^128·hi` with both
/// 128-bit halves below r, so two limb reads, one multiplication and one addition.
fn fq_to_fr(v: &Fq, two_128: &Fr) -> Fr {
    let int = v.into_bigint();
    let limbs: &[u64] = int.as_ref();
    let limb = |i: usize| limbs.get(i).copied().unwrap_or(0);
    let lo = fr_from_limbs([limb(0), limb(1), 0, 0]).unwrap_or_default();
    let hi = fr_from_limbs([limb(2), limb(3), 0, 0]).unwrap_or_default();
    lo + hi * two_128
}

/// `map_to_scalar_field` of every element (`x/y` reduced mod r; the identity gives 0) with
/// one inversion for the whole slice, on this thread: Montgomery's trick over the `Y`
/// coordinates (`x/y = X/Y` in projective coordinates), then one product each.
///
/// Writes `out[i]` for each `elements[i]` (`out` as long as `elements`).
pub(crate) fn map_to_scalar_field_into(elements: &[Element], out: &mut [Fr]) {
    // prefix[i] = Y_0 ⋯ Y_{i-1} over the non-zero Y (a zero Y maps to 0, as in
    // `Element::map_to_scalar_field`).
    let mut prefix: Vec<Fq> = Vec::with_capacity(elements.len());
    let mut acc = Fq::one();
    for e in elements {
        prefix.push(acc);
        let y = e.as_projective().y;
        if !y.is_zero() {
            acc *= y;
        }
    }
    let mut inv = banderwagon::fq_inverse(&acc).unwrap_or_else(Fq::zero);
    let two_128 = two_pow_128();
    for ((e, before), slot) in elements.iter().zip(&prefix).zip(out.iter_mut()).rev() {
        let p = e.as_projective();
        if p.y.is_zero() {
            *slot = Fr::zero();
            continue;
        }
        // inv = 1 / (Y_0 ⋯ Y_i) here, so Y_i⁻¹ = inv · (Y_0 ⋯ Y_{i-1}).
        let y_inv = inv * before;
        inv *= p.y;
        *slot = fq_to_fr(&(p.x * y_inv), &two_128);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn limb_conversions_match_byte_reduction() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut values: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32], [0x80; 32]];
        for i in 0..32 {
            let mut v = [0u8; 32];
            v[i] = 1;
            values.push(v);
            let mut w = [0xffu8; 32];
            w[i] = 0;
            values.push(w);
        }
        values.extend((0..2000).map(|_| rng.gen::<[u8; 32]>()));
        for v in &values {
            assert_eq!(value_halves(Some(v)), value_halves_bytewise(v), "{v:02x?}");
            let stem: [u8; STEM_LEN] = v[..STEM_LEN].try_into().unwrap();
            assert_eq!(
                stem_field(&stem),
                fr_from_le_bytes_mod_order(&stem),
                "{stem:02x?}"
            );
        }
    }

    #[test]
    fn value_halves_mark_presence() {
        let (lo, hi) = value_halves(None);
        assert!(lo.is_zero() && hi.is_zero());
        let (lo, hi) = value_halves(Some(&[0; 32]));
        assert_eq!(lo, Fr::from(u128::MAX) + Fr::one());
        assert!(hi.is_zero());
        let mut v = [0u8; 32];
        v[0] = 5;
        v[16] = 7;
        let (lo, hi) = value_halves(Some(&v));
        assert_eq!(lo, Fr::from(u128::MAX) + Fr::from(6u64));
        assert_eq!(hi, Fr::from(7u64));
    }

    #[test]
    fn fq_to_fr_matches_byte_reduction() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let two_128 = two_pow_128();
        let mut xs = vec![Fq::zero(), Fq::one(), -Fq::one(), Fq::from(u128::MAX)];
        xs.extend((0..2000).map(|_| Fq::from_le_bytes_mod_order(&rng.gen::<[u8; 32]>())));
        for x in &xs {
            let mut bytes = [0u8; 32];
            for (i, w) in x.into_bigint().as_ref().iter().enumerate() {
                bytes[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
            }
            assert_eq!(fq_to_fr(x, &two_128), fr_from_le_bytes_mod_order(&bytes));
        }
    }

    #[test]
    fn serial_map_matches_element_map() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let g = Element::generator();
        let mut elements = vec![Element::identity(), g, Element::identity(), -g];
        let mut p = g.double();
        for _ in 0..300 {
            // Mix affine (z = 1) and projective representatives.
            p += g * Fr::from(rng.gen::<u64>());
            elements.push(p);
            elements.push(Element::from_bytes(&p.to_bytes()).unwrap());
        }
        let want: Vec<Fr> = elements.iter().map(Element::map_to_scalar_field).collect();
        let map = |els: &[Element]| {
            let mut out = vec![Fr::from(7u64); els.len()];
            map_to_scalar_field_into(els, &mut out);
            out
        };
        assert_eq!(map(&elements), want);
        assert_eq!(map(&elements[..1]), want[..1].to_vec());
        assert!(map(&[]).is_empty());
    }
}
