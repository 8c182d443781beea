//! The inner-product argument over the 256-point Lagrange basis (`spec/WIRE.md` §15.2).
//!
//! Statement: `C = <a, G>` and `y = <a, b>` where `b_i = L_i(z)`. Eight halving rounds;
//! the proof is `L[8] ‖ R[8] ‖ a` (544 bytes). The verifier folds every round into one
//! multi-scalar multiplication.

use crate::prelude::*;

use ark_ff::{batch_inversion, One, Zero};
use banderwagon::{fr_from_le_bytes_canonical, fr_to_le_bytes, Element, Fr};

use crate::committer::Committer;
use crate::crs::Crs;
use crate::error::ProofDecodeError;
use crate::lagrange::{inner_product, PrecomputedWeights};
use crate::transcript::Transcript;

/// Number of halving rounds for a 256-wide vector.
pub const IPA_ROUNDS: usize = 8;
/// Encoded size of an [`IpaProof`].
pub const IPA_PROOF_LEN: usize = (2 * IPA_ROUNDS + 1) * 32;

/// An inner-product argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IpaProof {
    /// Left cross terms, one per round.
    pub l: [Element; IPA_ROUNDS],
    /// Right cross terms, one per round.
    pub r: [Element; IPA_ROUNDS],
    /// The final folded scalar.
    pub a: Fr,
}

impl IpaProof {
    /// `L0..L7 ‖ R0..R7` compressed, then `a` little-endian.
    pub fn to_bytes(&self) -> [u8; IPA_PROOF_LEN] {
        let mut out = [0u8; IPA_PROOF_LEN];
        let pts: Vec<Element> = self.l.iter().chain(self.r.iter()).copied().collect();
        for (i, b) in Element::batch_to_bytes(&pts).iter().enumerate() {
            out[32 * i..32 * i + 32].copy_from_slice(b);
        }
        out[IPA_PROOF_LEN - 32..].copy_from_slice(&fr_to_le_bytes(&self.a));
        out
    }

    /// Decodes 544 bytes; rejects bad points and a final scalar `>= r`.
    pub fn from_bytes(bytes: &[u8]) -> Result<IpaProof, ProofDecodeError> {
        if bytes.len() != IPA_PROOF_LEN {
            return Err(ProofDecodeError::WrongLength {
                expected: IPA_PROOF_LEN,
                got: bytes.len(),
            });
        }
        let mut pts = [Element::identity(); 2 * IPA_ROUNDS];
        for (i, (p, chunk)) in pts.iter_mut().zip(bytes.chunks_exact(32)).enumerate() {
            *p = Element::from_bytes(chunk)
                .map_err(|source| ProofDecodeError::BadPoint { index: i, source })?;
        }
        let a = fr_from_le_bytes_canonical(&bytes[IPA_PROOF_LEN - 32..])
            .map_err(|_| ProofDecodeError::BadScalar)?;
        let mut l = [Element::identity(); IPA_ROUNDS];
        let mut r = [Element::identity(); IPA_ROUNDS];
        l.copy_from_slice(&pts[..IPA_ROUNDS]);
        r.copy_from_slice(&pts[IPA_ROUNDS..]);
        Ok(IpaProof { l, r, a })
    }

    /// Proves `<a, b(z)> = y` for the commitment `commitment = <a, G>`; returns the proof
    /// and `y`. `a` must have the CRS width (256).
    pub fn prove(
        committer: &Committer,
        transcript: &mut Transcript,
        commitment: Element,
        a: Vec<Fr>,
        z: &Fr,
    ) -> (IpaProof, Fr) {
        let width = committer.width();
        let mut a = a;
        a.resize(width, Fr::zero());
        let mut b = PrecomputedWeights::get().lagrange_at(z);
        let y = inner_product(&a, &b);
        transcript.domain_sep(b"ipa");
        transcript.append_point(b"C", &commitment);
        transcript.append_scalar(b"input point", z);
        transcript.append_scalar(b"output point", &y);
        let w = transcript.challenge_scalar(b"w");

        let mut l = [Element::identity(); IPA_ROUNDS];
        let mut r = [Element::identity(); IPA_ROUNDS];
        // G^(k)[i] = Σ_u coef[u]·G[u·n + i]: the folded generators as combinations of the CRS.
        let mut coef = vec![Fr::one()];
        let mut n = width;
        for round in 0..IPA_ROUNDS {
            let m = n / 2;
            let (a_l, a_r) = a.split_at(m);
            let (b_l, b_r) = b.split_at(m);
            let z_l = inner_product(a_r, b_l);
            let z_r = inner_product(a_l, b_r);
            let cross = |src: &[Fr], offset: usize, zq: Fr| -> Element {
                let mut s = vec![Fr::zero(); width + 1];
                for (u, c) in coef.iter().enumerate() {
                    for (i, v) in src.iter().enumerate() {
                        s[u * n + offset + i] = *v * c;
                    }
                }
                s[width] = zq * w;
                committer.commit_with_q(&s)
            };
            #[cfg(feature = "parallel")]
            let (lk, rk) = rayon::join(|| cross(a_r, 0, z_l), || cross(a_l, m, z_r));
            #[cfg(not(feature = "parallel"))]
            let (lk, rk) = (cross(a_r, 0, z_l), cross(a_l, m, z_r));
            transcript.append_point(b"L", &lk);
            transcript.append_point(b"R", &rk);
            l[round] = lk;
            r[round] = rk;
            let x = transcript.challenge_scalar(b"x");
            let x_inv = banderwagon::fr_inverse(&x).unwrap_or_else(Fr::zero);
            let new_a: Vec<Fr> = a_l.iter().zip(a_r).map(|(al, ar)| *al + x * ar).collect();
            let new_b: Vec<Fr> = b_l
                .iter()
                .zip(b_r)
                .map(|(bl, br)| *bl + x_inv * br)
                .collect();
            a = new_a;
            b = new_b;
            coef = coef.iter().flat_map(|c| [*c, *c * x_inv]).collect();
            n = m;
        }
        (IpaProof { l, r, a: a[0] }, y)
    }

    /// Checks the argument for `commitment`, evaluation point `z` and claimed value `y`.
    pub fn verify(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        commitment: Element,
        z: &Fr,
        y: &Fr,
    ) -> bool {
        let b = PrecomputedWeights::get().lagrange_at(z);
        self.verify_with_basis(crs, transcript, commitment, z, &b, y)
    }

    /// [`IpaProof::verify`] with the Lagrange basis at `z` already computed
    /// (`b = PrecomputedWeights::get().lagrange_at(z)`), for a caller that computes it while
    /// it does other work. A `b` of the wrong length rejects.
    pub fn verify_with_basis(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        commitment: Element,
        z: &Fr,
        b: &[Fr],
        y: &Fr,
    ) -> bool {
        let width = crs.len();
        if width != 1 << IPA_ROUNDS || b.len() != width {
            return false;
        }
        transcript.domain_sep(b"ipa");
        transcript.append_point(b"C", &commitment);
        transcript.append_scalar(b"input point", z);
        transcript.append_scalar(b"output point", y);
        let w = transcript.challenge_scalar(b"w");
        let encoded = {
            let pts: Vec<Element> = self.l.iter().chain(self.r.iter()).copied().collect();
            Element::batch_to_bytes(&pts)
        };
        let mut xs = Vec::with_capacity(IPA_ROUNDS);
        for k in 0..IPA_ROUNDS {
            transcript.append_point_bytes(b"L", &encoded[k]);
            transcript.append_point_bytes(b"R", &encoded[IPA_ROUNDS + k]);
            xs.push(transcript.challenge_scalar(b"x"));
        }
        let mut x_invs = xs.clone();
        batch_inversion(&mut x_invs);
        // s_i = Π_k x_k^{-bit_k(i)}, round 0 taking the top bit.
        let mut s = vec![Fr::one()];
        for xi in &x_invs {
            s = s.iter().flat_map(|v| [*v, *v * xi]).collect();
        }
        let b_final = inner_product(&s, b);
        // C + y·w·Q + Σ x_k·L_k + x_k⁻¹·R_k − a·Σ s_i·G_i − a·b_final·w·Q = 0: the fixed
        // bases (G, Q) from the CRS's precomputed table, L and R by Straus, in parallel.
        let mut fixed: Vec<Fr> = s.iter().map(|si| -(self.a * si)).collect();
        fixed.push(w * (*y - self.a * b_final));
        let mut var_pts = Vec::with_capacity(2 * IPA_ROUNDS);
        var_pts.extend_from_slice(&self.l);
        var_pts.extend_from_slice(&self.r);
        let mut var_scalars = xs;
        var_scalars.extend_from_slice(&x_invs);
        let Some(table) = crs.msm_table_after_first_use() else {
            // First verification in this process: one plain MSM over all 273 points.
            let mut points = crs.g.clone();
            points.push(crs.q);
            points.extend_from_slice(&var_pts);
            fixed.extend_from_slice(&var_scalars);
            return (banderwagon::multi_scalar_mul(&points, &fixed) + commitment).is_identity();
        };
        #[cfg(feature = "parallel")]
        let (fixed_sum, var_sum) = rayon::join(
            || table.msm(&fixed),
            || banderwagon::vartime_straus(&var_pts, &var_scalars),
        );
        #[cfg(not(feature = "parallel"))]
        let (fixed_sum, var_sum) = (
            table.msm(&fixed),
            banderwagon::vartime_straus(&var_pts, &var_scalars),
        );
        (fixed_sum + var_sum + commitment).is_identity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crs::{CRS_SIZE, PEDERSEN_SEED};

    /// The first verification on a fresh CRS runs the plain MSM, later ones the table:
    /// both accept the valid proof and reject a tampered one.
    #[test]
    fn verify_before_and_after_the_table_is_built() {
        let crs = Crs::generate(CRS_SIZE, PEDERSEN_SEED);
        let committer = Committer::eip6800();
        let poly: Vec<Fr> = (0..256u64).map(|i| Fr::from(i * i + 7)).collect();
        let c = committer.commit(&poly);
        let z = Fr::from(1000u64);
        let (proof, y) = IpaProof::prove(committer, &mut Transcript::new(b"t"), c, poly, &z);
        let mut bad = proof.clone();
        bad.a += Fr::one();
        for round in 0..3 {
            assert!(
                proof.verify(&crs, &mut Transcript::new(b"t"), c, &z, &y),
                "valid proof, round {round}"
            );
            assert!(
                !bad.verify(&crs, &mut Transcript::new(b"t"), c, &z, &y),
                "tampered proof, round {round}"
            );
        }
        assert!(crs.msm_table_after_first_use().is_some());
    }

    /// `verify_with_basis` with the basis at `z` agrees with `verify`; a basis at another
    /// point or of the wrong length rejects.
    #[test]
    fn verify_with_basis_agrees() {
        let crs = Crs::eip6800();
        let committer = Committer::eip6800();
        let poly: Vec<Fr> = (0..256u64).map(|i| Fr::from(3 * i + 1)).collect();
        let c = committer.commit(&poly);
        let z = Fr::from(4321u64);
        let (proof, y) = IpaProof::prove(committer, &mut Transcript::new(b"t"), c, poly, &z);
        let weights = PrecomputedWeights::get();
        let b = weights.lagrange_at(&z);
        assert!(proof.verify_with_basis(crs, &mut Transcript::new(b"t"), c, &z, &b, &y));
        let other = weights.lagrange_at(&(z + Fr::one()));
        assert!(!proof.verify_with_basis(crs, &mut Transcript::new(b"t"), c, &z, &other, &y));
        assert!(!proof.verify_with_basis(crs, &mut Transcript::new(b"t"), c, &z, &b[1..], &y));
        assert!(!proof.verify_with_basis(
            crs,
            &mut Transcript::new(b"t"),
            c,
            &z,
            &b,
            &(y + Fr::one())
        ));
    }
}
