//! Multiproofs: many openings `(C_i, z_i, y_i)` in one 576-byte proof (`spec/WIRE.md` §15.3).
//!
//! Transcript: `"multiproof"`, then `C`, `z`, `y` per query; `r`; `D = [g]` with
//! `g = Σ rⁱ·(f_i − y_i)/(X − z_i)`; `t`; `E = [h]` with `h = Σ rⁱ·f_i/(t − z_i)`; then an
//! IPA for `h − g` at `t` against `E − D`.

use crate::prelude::*;

use alloc::collections::BTreeMap;
use core::borrow::Borrow;

use ark_ff::{batch_inversion, Field, One, Zero};
use banderwagon::{fr_to_le_bytes, Element, Fr};

use crate::committer::Committer;
use crate::crs::Crs;
use crate::error::{ProofDecodeError, ProofVerifyError};
use crate::ipa_proof::{IpaCheck, IpaProof, IPA_PROOF_LEN};
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

    /// Verifies the openings; `Err(ProofVerifyError::ProofRejected)` when they do not hold.
    ///
    /// Openings of one commitment are gathered by its encoding, then checked by
    /// [`MultiProof::verify_openings`].
    pub fn verify(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        queries: &[VerifierQuery],
    ) -> Result<(), ProofVerifyError> {
        let encoded = encode_commitments(queries.iter().map(|q| q.commitment));
        let mut slot: BTreeMap<&[u8; 32], u32> = BTreeMap::new();
        let mut commitments: Vec<Element> = Vec::new();
        let mut encodings: Vec<&[u8; 32]> = Vec::new();
        let mut openings: Vec<Opening> = Vec::with_capacity(queries.len());
        for (q, c) in queries.iter().zip(&encoded) {
            let commitment = *slot.entry(c).or_insert_with(|| {
                commitments.push(q.commitment);
                encodings.push(c);
                // At most one commitment per query, and a slice holds fewer than 2^32
                // 64-byte queries on any machine this runs on.
                u32::try_from(commitments.len() - 1).expect("fewer than 2^32 queries")
            });
            openings.push(Opening {
                commitment,
                point: q.point,
                result: q.result,
            });
        }
        self.verify_openings(crs, transcript, &commitments, &encodings, &openings)
    }

    /// Verifies `openings` of `commitments`, each commitment given once with its 32-byte
    /// encoding (`encodings[i]` encodes `commitments[i]`; a witness verifier holds them as
    /// they arrived) and referred to by index; the transcript gets each opening's encoded
    /// commitment, point and value in the order of `openings`.
    ///
    /// The statement and transcript of `spec/WIRE.md` §15.3:
    /// `E = Σ_j (Σ_{i opens j} rⁱ/(t − z_i))·C_j`, `g₂(t) = Σ_i rⁱ·y_i/(t − z_i)`, then the
    /// IPA of `E − D` at `t` to `g₂(t)`. When `openings` lists each commitment's openings
    /// together in ascending commitment order (as a witness does) and there are many, the
    /// per-commitment sums run on two threads; any other order is summed on one.
    pub fn verify_openings<E: Borrow<[u8; 32]> + Sync>(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        commitments: &[Element],
        encodings: &[E],
        openings: &[Opening],
    ) -> Result<(), ProofVerifyError> {
        let check = self.check_openings(crs, transcript, commitments, encodings, openings)?;
        if check.holds(crs) {
            Ok(())
        } else {
            Err(ProofVerifyError::ProofRejected)
        }
    }

    /// [`MultiProof::verify_openings`] up to the last step: runs the transcript and returns
    /// the relation that decides the proof ([`IpaCheck`]) instead of checking it, so that
    /// many proofs can be checked with one multi-scalar multiplication
    /// ([`IpaCheck::all_hold`]). The same errors as `verify_openings` except that a false
    /// proof is only found by the check.
    pub fn check_openings<E: Borrow<[u8; 32]> + Sync>(
        &self,
        crs: &Crs,
        transcript: &mut Transcript,
        commitments: &[Element],
        encodings: &[E],
        openings: &[Opening],
    ) -> Result<IpaCheck, ProofVerifyError> {
        if openings.is_empty() {
            return Err(ProofVerifyError::NoQueries);
        }
        if encodings.len() != commitments.len() {
            return Err(ProofVerifyError::CommitmentEncodings {
                commitments: commitments.len(),
                encodings: encodings.len(),
            });
        }
        if let Some((opening, o)) = openings
            .iter()
            .enumerate()
            .find(|(_, o)| o.commitment as usize >= commitments.len())
        {
            return Err(ProofVerifyError::CommitmentIndex {
                opening,
                index: o.commitment,
                commitments: commitments.len(),
            });
        }
        transcript.domain_sep(b"multiproof");
        append_openings(transcript, openings, encodings);
        let r = transcript.challenge_scalar(b"r");
        transcript.append_point(b"D", &self.d);
        let t = transcript.challenge_scalar(b"t");
        let inv = inv_t_minus_domain(&t);
        // The IPA's Lagrange basis at t does not depend on E: computed beside the scalars.
        let basis = || PrecomputedWeights::get().lagrange_at(&t);
        let helpers = || helper_scalars(openings, commitments.len(), &r, &inv);
        #[cfg(feature = "parallel")]
        let ((scalars, g2_t), b) = rayon::join(helpers, basis);
        #[cfg(not(feature = "parallel"))]
        let ((scalars, g2_t), b) = (helpers(), basis());
        let e = banderwagon::vartime_multi_scalar_mul(commitments, &scalars);
        transcript.append_point(b"E", &e);
        self.ipa
            .check_with_basis(crs, transcript, e - self.d, &t, &b, &g2_t)
            .ok_or(ProofVerifyError::ProofRejected)
    }
}

/// One opening for [`MultiProof::verify_openings`]: the commitment at index `commitment`
/// evaluates to `result` at the domain point `point`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Index of the commitment among those given to the verifier.
    pub commitment: u32,
    /// The domain point `z`.
    pub point: u8,
    /// The claimed value `y = f(z)`.
    pub result: Fr,
}

/// Bytes one opening adds to the transcript: three one-byte labels and three 32-byte values.
const OPENING_TRANSCRIPT_BYTES: usize = 3 * (1 + 32);

/// Openings whose transcript messages are gathered before one hash update.
const TRANSCRIPT_BLOCK: usize = 512;

/// Appends every opening's `C`, `z`, `y`, in order, in blocks of whole openings: one hash
/// update per block instead of one per message (SHA-256 streams, so the state is the same
/// as appending each message on its own). Indices are in range (checked by the caller).
fn append_openings<E: Borrow<[u8; 32]>>(
    transcript: &mut Transcript,
    openings: &[Opening],
    encodings: &[E],
) {
    let mut block = Vec::with_capacity(TRANSCRIPT_BLOCK * OPENING_TRANSCRIPT_BYTES);
    for chunk in openings.chunks(TRANSCRIPT_BLOCK) {
        block.clear();
        for o in chunk {
            block.push(b'C');
            block.extend_from_slice(encodings[o.commitment as usize].borrow());
            block.push(b'z');
            block.extend_from_slice(&point_le_bytes(o.point));
            block.push(b'y');
            block.extend_from_slice(&fr_to_le_bytes(&o.result));
        }
        // A domain separator is a bare state update: the block is a run of messages.
        transcript.domain_sep(&block);
    }
}

/// `base^e` by square-and-multiply.
fn pow(base: &Fr, mut e: u64) -> Fr {
    let mut acc = Fr::one();
    let mut b = *base;
    while e > 0 {
        if e & 1 == 1 {
            acc *= b;
        }
        b.square_in_place();
        e >>= 1;
    }
    acc
}

/// Adds `rⁱ/(t − z_i)` of openings `first..first + openings.len()` to the scalars of their
/// commitments (`scalars[0]` is commitment `base`; every opening's commitment is in
/// `base..base + scalars.len()`) and returns `Σ rⁱ·y_i/(t − z_i)`.
fn sum_helpers(
    openings: &[Opening],
    first: usize,
    base: usize,
    r: &Fr,
    inv: &[Fr],
    scalars: &mut [Fr],
) -> Fr {
    let mut rp = pow(r, first as u64);
    let mut g2 = Acc::default();
    for o in openings {
        let helper = rp * inv[usize::from(o.point)];
        g2.add_product(&helper, &o.result);
        scalars[o.commitment as usize - base] += helper;
        rp *= r;
    }
    g2.reduce()
}

/// Fewest openings worth a second task for [`helper_scalars`].
#[cfg(feature = "parallel")]
const PARALLEL_HELPERS: usize = 4096;

/// The scalar of every commitment, `Σ_{i opens it} rⁱ/(t − z_i)`, and
/// `Σ_i rⁱ·y_i/(t − z_i)`. Every opening's commitment is below `commitments`.
fn helper_scalars(openings: &[Opening], commitments: usize, r: &Fr, inv: &[Fr]) -> (Vec<Fr>, Fr) {
    let mut scalars = vec![Fr::zero(); commitments];
    #[cfg(feature = "parallel")]
    if openings.len() >= PARALLEL_HELPERS
        && rayon::current_num_threads() > 1
        && openings
            .windows(2)
            .all(|w| w[0].commitment <= w[1].commitment)
    {
        // Split in two where the commitment changes: each half owns its commitments.
        let mut mid = openings.len() / 2;
        while mid < openings.len() && openings[mid].commitment == openings[mid - 1].commitment {
            mid += 1;
        }
        let split = openings
            .get(mid)
            .map_or(commitments, |o| o.commitment as usize);
        let (first_ops, second_ops) = openings.split_at(mid);
        let (first_sc, second_sc) = scalars.split_at_mut(split);
        let (a, b) = rayon::join(
            || sum_helpers(first_ops, 0, 0, r, inv, first_sc),
            || sum_helpers(second_ops, mid, split, r, inv, second_sc),
        );
        return (scalars, a + b);
    }
    let g2 = sum_helpers(openings, 0, 0, r, inv, &mut scalars);
    (scalars, g2)
}

#[cfg(test)]
mod tests;
