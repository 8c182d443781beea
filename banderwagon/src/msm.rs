//! Variable-base multi-scalar multiplication (bucket method, Pippenger).
//!
//! Thin layer over arkworks' `VariableBaseMSM`, which is a signed-digit bucket method and
//! splits the work across rayon threads when the `parallel` feature is on.

use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ed_on_bls12_381_bandersnatch::{EdwardsAffine, EdwardsProjective};

use crate::{Element, Fr};

/// Below this many terms a product-by-product sum beats the bucket method's set-up.
const NAIVE_THRESHOLD: usize = 16;

/// `Σ scalars[i]·points[i]`, variable time (inputs are public in every use here).
///
/// Extra points or scalars beyond the shorter slice are ignored.
pub fn multi_scalar_mul(points: &[Element], scalars: &[Fr]) -> Element {
    let n = points.len().min(scalars.len());
    if n < NAIVE_THRESHOLD {
        return points[..n]
            .iter()
            .zip(&scalars[..n])
            .map(|(p, s)| *p * *s)
            .sum();
    }
    let proj: Vec<EdwardsProjective> = points[..n].iter().map(|p| p.0).collect();
    let affine = EdwardsProjective::normalize_batch(&proj);
    vartime_multi_scalar_mul_affine(&affine, &scalars[..n])
}

/// `Σ scalars[i]·bases[i]` over bases already in affine form (for example a CRS).
///
/// The bucket method (arkworks' signed-window Pippenger), split across rayon threads by
/// window when the `parallel` feature is on.
pub fn vartime_multi_scalar_mul_affine(bases: &[EdwardsAffine], scalars: &[Fr]) -> Element {
    let n = bases.len().min(scalars.len());
    if n < NAIVE_THRESHOLD {
        return bases[..n]
            .iter()
            .zip(&scalars[..n])
            .map(|(b, s)| Element(EdwardsProjective::from(*b) * s))
            .sum();
    }
    Element(EdwardsProjective::msm_unchecked(&bases[..n], &scalars[..n]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::UniformRand;

    #[test]
    fn msm_matches_naive() {
        let mut rng = rand::thread_rng();
        for n in [0usize, 1, 3, 17, 300] {
            let pts: Vec<Element> = (0..n)
                .map(|_| Element::generator() * Fr::rand(&mut rng))
                .collect();
            let sc: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let naive: Element = pts.iter().zip(&sc).map(|(p, s)| *p * *s).sum();
            assert_eq!(multi_scalar_mul(&pts, &sc), naive, "n = {n}");
        }
    }
}
