//! Multiproofs: many openings `(C_i, z_i, y_i)` in one 576-byte proof (verkle-facts §4.3).
//!
//! Transcript: `"multiproof"`, then `C`, `z`, `y` per query; `r`; `D = [g]` with
//! `g = Σ rⁱ·(f_i − y_i)/(X − z_i)`; `t`; `E = [h]` with `h = Σ rⁱ·f_i/(t − z_i)`; then an
//! IPA for `h − g` at `t` against `E − D`.

use std::collections::HashMap;

use ark_ff::{batch_inversion, Zero};
use banderwagon::{Element, Fr};

use crate::committer::Committer;
use crate::crs::Crs;
use crate::error::{ProofDecodeError, VerifyError};
use crate::ipa_proof::{IpaProof, IPA_PROOF_LEN};
use crate::lagrange::{PrecomputedWeights, DOMAIN_SIZE};
use crate::lazy::Acc;
use crate::transcript::Transcript;

/// Encoded size of a [`MultiProof`]: `D ‖ IPA`.
pub const MULTIPROOF_LEN: usize = 32 + IPA_PROOF_LEN;

/// One opening for the prover: the polynomial in evaluation form (256 values).
#[derive(Clone, Debug)]
pub struct ProverQuery<'a> {
    /// `[f]`.
    pub commitment: Element,
    /// `f` in evaluation form over the 256-point domain.
    pub poly: &'a [Fr],
    /// The domain point opened.
    pub point: u8,
    /// `f(point)`.
    pub result: Fr,
}

/// One opening for the verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifierQuery {
    /// `[f]`.
    pub commitment: Element,
    /// The domain point opened.
    pub point: u8,
    /// The claimed `f(point)`.
    pub result: Fr,
}

impl From<&ProverQuery<'_>> for VerifierQuery {
    /// The opening the verifier checks for a prover's query (the polynomial dropped).
    fn from(q: &ProverQuery<'_>) -> VerifierQuery {
        VerifierQuery {
            commitment: q.commitment,
            point: q.point,
            result: q.result,
        }
    }
}

/// A multiproof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiProof {
    /// `D = [g]`.
    pub d: Element,
    /// The IPA for `h − g` at `t`.
    pub ipa: IpaProof,
}

fn powers(r: &Fr, n: usize) -> Vec<Fr> {
    let mut out = Vec::with_capacity(n);
    let mut acc = Fr::from(1u64);
    for _ in 0..n {
        out.push(acc);
        acc *= r;
    }
    out
}

/// The transcript encoding of the domain point `z` as a scalar: `z` little-endian.
fn point_le_bytes(z: u8) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[0] = z;
    out
}

/// Appends every query's `C`, `z`, `y`.
fn append_queries<'a>(
    transcript: &mut Transcript,
    queries: impl Iterator<Item = (u8, &'a Fr)>,
    encoded: &[[u8; 32]],
) {
    for ((point, result), c) in queries.zip(encoded) {
        transcript.append_point_bytes(b"C", c);
        transcript.append_message(b"z", &point_le_bytes(point));
        transcript.append_scalar(b"y", result);
    }
}

/// [`Element::batch_to_bytes`], encoding a run of identical (bitwise) commitments once:
/// openings of one polynomial usually sit next to each other.
fn encode_commitments(comms: impl Iterator<Item = Element>) -> Vec<[u8; 32]> {
    let mut distinct: Vec<Element> = Vec::new();
    let mut which: Vec<usize> = Vec::new();
    for c in comms {
        let same = distinct.last().is_some_and(|p| {
            let (a, b) = (p.as_projective(), c.as_projective());
            a.x == b.x && a.y == b.y && a.z == b.z
        });
        if !same {
            distinct.push(c);
        }
        which.push(distinct.len() - 1);
    }
    let enc = Element::batch_to_bytes(&distinct);
    which.iter().filter_map(|i| enc.get(*i).copied()).collect()
}

/// `1/(t − k)` for every domain point `k`.
fn inv_t_minus_domain(t: &Fr) -> Vec<Fr> {
    let mut d: Vec<Fr> = (0..DOMAIN_SIZE as u64).map(|k| *t - Fr::from(k)).collect();
    batch_inversion(&mut d);
    d
}

impl MultiProof {
    /// `D ‖ L[8] ‖ R[8] ‖ a` (a little-endian).
    pub fn to_bytes(&self) -> [u8; MULTIPROOF_LEN] {
        let mut out = [0u8; MULTIPROOF_LEN];
        out[..32].copy_from_slice(&self.d.to_bytes());
        out[32..].copy_from_slice(&self.ipa.to_bytes());
        out
    }

    /// Decodes 576 bytes, rejecting wrong lengths, bad points and a final scalar `>= r`.
    /// Point indices in errors count `D` as 0.
    pub fn from_bytes(bytes: &[u8]) -> Result<MultiProof, ProofDecodeError> {
        if bytes.len() != MULTIPROOF_LEN {
            return Err(ProofDecodeError::WrongLength {
                expected: MULTIPROOF_LEN,
                got: bytes.len(),
            });
        }
        let d = Element::from_bytes(&bytes[..32])
            .map_err(|source| ProofDecodeError::BadPoint { index: 0, source })?;
        let ipa = IpaProof::from_bytes(&bytes[32..]).map_err(|e| match e {
            ProofDecodeError::BadPoint { index, source } => ProofDecodeError::BadPoint {
                index: index + 1,
                source,
            },
            other => other,
        })?;
        Ok(MultiProof { d, ipa })
    }

    /// Proves all `queries` in one proof.
    pub fn prove(
        committer: &Committer,
        transcript: &mut Transcript,
        queries: &[ProverQuery<'_>],
    ) -> MultiProof {
        transcript.domain_sep(b"multiproof");
        let encoded = encode_commitments(queries.iter().map(|q| q.commitment));
        append_queries(
            transcript,
            queries.iter().map(|q| (q.point, &q.result)),
            &encoded,
        );
        let r = transcript.challenge_scalar(b"r");
        let r_pows = powers(&r, queries.len());

        // Aggregate Σ rⁱ·f_i per opening point, so the division runs once per distinct z.
        // Openings of the same polynomial (same slice) at the same point first add their
        // powers of r, so a polynomial opened many times at one point costs one pass.
        let mut by_point: Vec<Vec<(usize, Fr)>> = vec![Vec::new(); DOMAIN_SIZE];
        {
            let mut order: Vec<usize> = (0..queries.len()).collect();
            let key = |i: &usize| {
                let q = &queries[*i];
                (q.point, q.poly.as_ptr() as usize, q.poly.len())
            };
            order.sort_unstable_by_key(key);
            let mut k = 0;
            while k < order.len() {
                let first = order[k];
                let mut coeff = Fr::zero();
                while k < order.len() && key(&order[k]) == key(&first) {
                    coeff += r_pows[order[k]];
                    k += 1;
                }
                by_point[queries[first].point as usize].push((first, coeff));
            }
        }
        // Σ coeff·f per point with one reduction per evaluation (lazy reduction), skipping
        // the zero evaluations that dominate a tree's sparse polynomials.
        let aggregate = |terms: &Vec<(usize, Fr)>| -> Option<Vec<Fr>> {
            if terms.is_empty() {
                return None;
            }
            let mut acc = vec![Acc::default(); DOMAIN_SIZE];
            for (i, coeff) in terms {
                for (a, f) in acc.iter_mut().zip(queries[*i].poly) {
                    if !f.is_zero() {
                        a.add_product(coeff, f);
                    }
                }
            }
            // A sum of non-zero integer products is non-zero: untouched slots stay zero.
            Some(
                acc.iter()
                    .map(|a| if a.is_zero() { Fr::zero() } else { a.reduce() })
                    .collect(),
            )
        };
        #[cfg(feature = "parallel")]
        let aggregated: Vec<Option<Vec<Fr>>> = {
            use rayon::prelude::*;
            by_point.par_iter().map(aggregate).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let aggregated: Vec<Option<Vec<Fr>>> = by_point.iter().map(aggregate).collect();

        let weights = PrecomputedWeights::get();
        let mut g = vec![Fr::zero(); DOMAIN_SIZE];
        for (z, agg) in aggregated.iter().enumerate() {
            if let Some(f) = agg {
                weights.divide_on_domain_into(z, f, &mut g);
            }
        }
        let d = committer.commit(&g);
        transcript.append_point(b"D", &d);
        let t = transcript.challenge_scalar(b"t");
        let inv = inv_t_minus_domain(&t);
        let mut h = vec![Fr::zero(); DOMAIN_SIZE];
        for (z, agg) in aggregated.iter().enumerate() {
            if let Some(f) = agg {
                let k = inv[z];
                for (hv, fv) in h.iter_mut().zip(f) {
                    *hv += k * fv;
                }
            }
        }
        let e = committer.commit(&h);
        transcript.append_point(b"E", &e);
        let h_minus_g: Vec<Fr> = h.iter().zip(&g).map(|(a, b)| *a - b).collect();
        let (ipa, _) = IpaProof::prove(committer, transcript, e - d, h_minus_g, &t);
        MultiProof { d, ipa }
    }

    /// Verifies the openings; `Err(VerifyError::ProofRejected)` when they do not hold.
    pub fn verify(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        queries: &[VerifierQuery],
    ) -> Result<(), VerifyError> {
        if queries.is_empty() {
            return Err(VerifyError::NoQueries);
        }
        let encoded = encode_commitments(queries.iter().map(|q| q.commitment));
        self.verify_encoded(crs, transcript, queries, &encoded)
    }

    /// [`MultiProof::verify`] when the caller already holds each commitment's 32-byte
    /// encoding (`encoded[i]` for `queries[i]`), as a witness verifier does.
    pub fn verify_encoded(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        queries: &[VerifierQuery],
        encoded: &[[u8; 32]],
    ) -> Result<(), VerifyError> {
        if queries.is_empty() {
            return Err(VerifyError::NoQueries);
        }
        if encoded.len() != queries.len() {
            return Err(VerifyError::EncodingCount {
                queries: queries.len(),
                encodings: encoded.len(),
            });
        }
        transcript.domain_sep(b"multiproof");
        append_queries(
            transcript,
            queries.iter().map(|q| (q.point, &q.result)),
            encoded,
        );
        let r = transcript.challenge_scalar(b"r");
        transcript.append_point(b"D", &self.d);
        let t = transcript.challenge_scalar(b"t");
        let inv = inv_t_minus_domain(&t);

        // helper_i = rⁱ/(t − z_i); E = Σ helper_i·C_i, grouped by distinct commitment.
        let mut g2_t = Fr::zero();
        let mut slot: HashMap<&[u8; 32], usize> = HashMap::new();
        let mut points: Vec<Element> = Vec::new();
        let mut scalars: Vec<Fr> = Vec::new();
        let mut rp = Fr::from(1u64);
        let mut g2_acc = Acc::default();
        let mut prev: Option<(&[u8; 32], usize)> = None;
        for (q, c) in queries.iter().zip(encoded) {
            let helper = rp * inv[q.point as usize];
            g2_acc.add_product(&helper, &q.result);
            // Openings of one commitment usually sit next to each other: skip the hash.
            let idx = match prev {
                Some((p, i)) if p == c => i,
                _ => *slot.entry(c).or_insert_with(|| {
                    points.push(q.commitment);
                    scalars.push(Fr::zero());
                    points.len() - 1
                }),
            };
            prev = Some((c, idx));
            if let Some(s) = scalars.get_mut(idx) {
                *s += helper;
            }
            rp *= r;
        }
        g2_t += g2_acc.reduce();
        let e = banderwagon::multi_scalar_mul(&points, &scalars);
        transcript.append_point(b"E", &e);
        if self.ipa.verify(crs, transcript, e - self.d, &t, &g2_t) {
            Ok(())
        } else {
            Err(VerifyError::ProofRejected)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ark_ff::UniformRand;
    use rand::{rngs::StdRng, Rng, SeedableRng};

    /// Sparse polynomials (most evaluations zero, some openings at zero slots), repeated
    /// (polynomial, point) pairs and many points: the lazy, zero-skipping aggregation
    /// must still give proofs that verify, and the same proof as dense aggregation would.
    #[test]
    fn sparse_and_repeated_openings_verify() {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(21);
        let polys: Vec<Vec<Fr>> = (0..40)
            .map(|k| {
                let mut p = vec![Fr::zero(); DOMAIN_SIZE];
                for s in 0..(k % 7 + 1) {
                    p[(k * 13 + s * 31) % DOMAIN_SIZE] = Fr::rand(&mut rng);
                }
                if k % 5 == 0 {
                    p = (0..DOMAIN_SIZE).map(|_| Fr::rand(&mut rng)).collect();
                }
                p
            })
            .collect();
        let comms = committer.batch_commit(&polys);
        let queries: Vec<ProverQuery> = (0..300)
            .map(|i| {
                let k = rng.gen_range(0..polys.len());
                let z: u8 = if i % 3 == 0 {
                    (k * 13 % 256) as u8
                } else {
                    rng.gen()
                };
                ProverQuery {
                    commitment: comms[k],
                    poly: &polys[k],
                    point: z,
                    result: polys[k][z as usize],
                }
            })
            .collect();
        let proof = MultiProof::prove(committer, &mut Transcript::new(b"t"), &queries);
        let vq: Vec<VerifierQuery> = queries.iter().map(VerifierQuery::from).collect();
        proof
            .verify(Crs::eip6800(), &mut Transcript::new(b"t"), &vq)
            .unwrap();
        let mut bad = vq.clone();
        bad[7].result += Fr::from(1u64);
        assert!(proof
            .verify(Crs::eip6800(), &mut Transcript::new(b"t"), &bad)
            .is_err());
    }
}
