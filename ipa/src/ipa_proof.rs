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
        self.check_with_basis(crs, transcript, commitment, z, b, y)
            .is_some_and(|check| check.holds(crs))
    }

    /// Runs the verifier's transcript and returns the one relation among points that
    /// decides the proof ([`IpaCheck`]), without the multi-scalar multiplication that
    /// checks it; `None` when the CRS or `b` has the wrong length.
    pub fn check_with_basis(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        commitment: Element,
        z: &Fr,
        b: &[Fr],
        y: &Fr,
    ) -> Option<IpaCheck> {
        let width = crs.len();
        if width != 1 << IPA_ROUNDS || b.len() != width {
            return None;
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
        // C + y·w·Q + Σ x_k·L_k + x_k⁻¹·R_k − a·Σ s_i·G_i − a·b_final·w·Q = 0.
        let mut fixed: Vec<Fr> = s.iter().map(|si| -(self.a * si)).collect();
        fixed.push(w * (*y - self.a * b_final));
        let mut var_points = Vec::with_capacity(2 * IPA_ROUNDS);
        var_points.extend_from_slice(&self.l);
        var_points.extend_from_slice(&self.r);
        let mut var_scalars = xs;
        var_scalars.extend_from_slice(&x_invs);
        // Everything the relation depends on: the transcript (which has absorbed C, z, y, L
        // and R) and the final scalar `a`, which it has not.
        let binding = transcript.clone().challenge_scalar(b"binding") + self.a * w;
        Some(IpaCheck {
            fixed,
            var_points,
            var_scalars,
            commitment,
            binding,
        })
    }
}

/// The relation that decides one inner-product argument once its transcript has run:
/// `commitment + Σ fixed_i·B_i + Σ var_scalars_k·var_points_k = 0` over the 257 CRS bases
/// `B = G_0..G_255, Q`. [`IpaCheck::holds`] checks one; [`IpaCheck::all_hold`] checks many
/// with one multi-scalar multiplication (`spec/WIRE.md`, batch verification).
#[derive(Clone, Debug)]
pub struct IpaCheck {
    fixed: Vec<Fr>,
    var_points: Vec<Element>,
    var_scalars: Vec<Fr>,
    commitment: Element,
    binding: Fr,
}

impl IpaCheck {
    /// Whether the relation holds: the fixed bases from the CRS's precomputed table (a
    /// plain MSM on a process's first verification), `L` and `R` by Straus, in parallel.
    pub fn holds(&self, crs: &Crs) -> bool {
        let Some(table) = crs.msm_table_after_first_use() else {
            let mut points = crs.g.clone();
            points.push(crs.q);
            points.extend_from_slice(&self.var_points);
            let mut scalars = self.fixed.clone();
            scalars.extend_from_slice(&self.var_scalars);
            return (banderwagon::vartime_multi_scalar_mul(&points, &scalars) + self.commitment)
                .is_identity();
        };
        #[cfg(feature = "parallel")]
        let (fixed_sum, var_sum) = rayon::join(
            || table.msm(&self.fixed),
            || banderwagon::vartime_straus(&self.var_points, &self.var_scalars),
        );
        #[cfg(not(feature = "parallel"))]
        let (fixed_sum, var_sum) = (
            table.msm(&self.fixed),
            banderwagon::vartime_straus(&self.var_points, &self.var_scalars),
        );
        (fixed_sum + var_sum + self.commitment).is_identity()
    }

    /// Whether every relation holds, checked as one: `Σ_j ρ_j·relation_j = 0` with weights
    /// `ρ_j` drawn from a transcript over every check's binding (its verifier transcript and
    /// final scalar), so a prover fixes all proofs before the weights exist. A false
    /// relation passes only if the weighted sum of the nonzero points cancels, which for
    /// weights it cannot predict happens with probability about `1/r` (`spec/WIRE.md`).
    /// `true` for no checks. On `false`, [`IpaCheck::holds`] on each finds the false ones.
    pub fn all_hold(crs: &Crs, checks: &[IpaCheck]) -> bool {
        let Some(first) = checks.first() else {
            return true;
        };
        if checks.len() == 1 {
            return first.holds(crs);
        }
        let mut t = Transcript::new(b"fverkle batch ipa");
        for c in checks {
            t.append_scalar(b"b", &c.binding);
        }
        let weights: Vec<Fr> = checks.iter().map(|_| t.challenge_scalar(b"rho")).collect();
        let mut fixed = vec![Fr::zero(); crs.len() + 1];
        let vars: usize = checks.iter().map(|c| c.var_points.len() + 1).sum();
        let mut points = Vec::with_capacity(vars);
        let mut scalars = Vec::with_capacity(vars);
        for (c, rho) in checks.iter().zip(&weights) {
            for (acc, f) in fixed.iter_mut().zip(&c.fixed) {
                *acc += *rho * f;
            }
            points.extend_from_slice(&c.var_points);
            scalars.extend(c.var_scalars.iter().map(|s| *rho * s));
            points.push(c.commitment);
            scalars.push(*rho);
        }
        let table = crs.msm_table();
        #[cfg(feature = "parallel")]
        let (fixed_sum, var_sum) = rayon::join(
            || table.msm(&fixed),
            || banderwagon::vartime_multi_scalar_mul(&points, &scalars),
        );
        #[cfg(not(feature = "parallel"))]
        let (fixed_sum, var_sum) = (
            table.msm(&fixed),
            banderwagon::vartime_multi_scalar_mul(&points, &scalars),
        );
        (fixed_sum + var_sum).is_identity()
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

    /// Batches: valid proofs pass together; one false proof fails the batch and only it
    /// fails on its own; two false proofs whose errors cancel in an unweighted sum (claims
    /// about `C + P` and `C − P`) still fail, because the weights differ.
    #[test]
    fn batched_checks_hold_only_when_each_does() {
        let crs = Crs::eip6800();
        let committer = Committer::eip6800();
        let weights = PrecomputedWeights::get();
        let mut proofs = Vec::new();
        for k in 0..4u64 {
            let poly: Vec<Fr> = (0..256u64).map(|i| Fr::from(i * (k + 2) + k)).collect();
            let c = committer.commit(&poly);
            let z = Fr::from(300 + k);
            let (proof, y) = IpaProof::prove(committer, &mut Transcript::new(b"t"), c, poly, &z);
            proofs.push((proof, c, z, y));
        }
        let check = |(proof, c, z, y): &(IpaProof, Element, Fr, Fr), shift: Element| {
            proof
                .check_with_basis(
                    crs,
                    &mut Transcript::new(b"t"),
                    *c + shift,
                    z,
                    &weights.lagrange_at(z),
                    y,
                )
                .expect("widths match")
        };
        let zero = Element::identity();
        let valid: Vec<IpaCheck> = proofs.iter().map(|p| check(p, zero)).collect();
        assert!(valid.iter().all(|c| c.holds(crs)));
        assert!(IpaCheck::all_hold(crs, &valid));
        assert!(IpaCheck::all_hold(crs, &valid[..1]));
        assert!(IpaCheck::all_hold(crs, &[]));

        let p = Element::generator() * Fr::from(12345u64);
        let mut one_false = valid.clone();
        one_false[2] = check(&proofs[2], p);
        assert!(!one_false[2].holds(crs));
        assert!(!IpaCheck::all_hold(crs, &one_false));

        // One valid relation twice, its commitment moved by +P and by −P (same binding, so
        // nothing but the weights tells the two apart): each is false, and their residuals
        // P and −P cancel in an unweighted sum; the weighted sum is (ρ₁ − ρ₂)·P.
        let shifted = |by: Element| {
            let mut c = valid[1].clone();
            c.commitment += by;
            c
        };
        let cancelling = [shifted(p), shifted(-p)];
        assert!(!cancelling[0].holds(crs) && !cancelling[1].holds(crs));
        assert_eq!(
            cancelling[0].commitment + cancelling[1].commitment,
            valid[1].commitment + valid[1].commitment
        );
        assert!(!IpaCheck::all_hold(crs, &cancelling));
        let mut mixed = valid.clone();
        mixed.extend(cancelling);
        assert!(!IpaCheck::all_hold(crs, &mixed));
    }
}
