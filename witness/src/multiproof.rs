//! The multiproof check of an execution witness, shaped for the witness's openings.
//!
//! Verifies the same statement, with the same Fiat–Shamir transcript, as
//! [`ipa::MultiProof::verify`] (verkle-facts §4.2), but takes the openings as
//! `(commitment index, z, y)` over the witness's already decoded commitments instead of one
//! [`ipa::VerifierQuery`] (a copy of the point) per opening:
//!
//! - no per-opening copy of a commitment and no grouping map: a witness lists every opening
//!   of one node next to the others, so each commitment's scalar `Σ rⁱ/(t − z_i)` is summed
//!   in place, indexed by commitment;
//! - the transcript is fed in blocks of whole openings (`"C" ‖ C ‖ "z" ‖ z ‖ "y" ‖ y`), one
//!   hash update per block instead of six per opening; SHA-256 streams, so the state is
//!   the same as appending each message on its own;
//! - the scalars are summed on both cores, in ranges of openings split where the commitment
//!   changes, and the IPA's Lagrange basis at `t` is computed beside them.
//!
//! `E = Σ scalar_j·C_j` over the commitments as given: a commitment listed at two nodes
//! appears twice with its two partial scalars, which sums to the same point as grouping.

use banderwagon::arith::{batch_inversion, Field, One, PrimeField, Zero};
use banderwagon::{multi_scalar_mul, Element, Fr};
use ipa::lagrange::PrecomputedWeights;
use ipa::{Crs, MultiProof, Transcript};

/// Size of the evaluation domain (`z` ranges over `0..256`).
const DOMAIN_SIZE: usize = 256;

/// Bytes one opening adds to the transcript: three one-byte labels and three 32-byte values.
const OPENING_TRANSCRIPT_BYTES: usize = 3 * (1 + 32);

/// Openings whose transcript bytes are gathered before one hash update.
const TRANSCRIPT_BLOCK: usize = 512;

/// One opening: the commitment at `commitment` (an index into the decoded commitments)
/// evaluates to `result` at the domain point `point`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Opening {
    /// Index of the commitment (0 is the root).
    pub(crate) commitment: u32,
    /// The domain point `z`.
    pub(crate) point: u8,
    /// The claimed value `y`.
    pub(crate) result: Fr,
}

/// Little-endian canonical bytes of a scalar (no heap buffer).
fn fr_le_bytes(s: &Fr) -> [u8; 32] {
    let int = s.into_bigint();
    let mut out = [0u8; 32];
    for (dst, limb) in out.chunks_exact_mut(8).zip(int.as_ref()) {
        dst.copy_from_slice(&limb.to_le_bytes());
    }
    out
}

/// Appends every opening's `C`, `z`, `y` to the transcript, in order.
fn append_openings(transcript: &mut Transcript, openings: &[Opening], encodings: &[&[u8; 32]]) {
    let mut block = Vec::with_capacity(TRANSCRIPT_BLOCK * OPENING_TRANSCRIPT_BYTES);
    for chunk in openings.chunks(TRANSCRIPT_BLOCK) {
        block.clear();
        for o in chunk {
            let c = encodings
                .get(o.commitment as usize)
                .copied()
                .unwrap_or(&[0u8; 32]);
            block.push(b'C');
            block.extend_from_slice(c);
            block.push(b'z');
            let mut z = [0u8; 32];
            z[0] = o.point;
            block.extend_from_slice(&z);
            block.push(b'y');
            block.extend_from_slice(&fr_le_bytes(&o.result));
        }
        // A domain separator is a bare state update: the block is a run of messages.
        transcript.domain_sep(&block);
    }
}

/// `1/(t − k)` for every domain point `k` (`t` is never in the domain but with negligible
/// probability; a zero inverts to zero, which then rejects).
fn inv_t_minus_domain(t: &Fr) -> Vec<Fr> {
    let mut d: Vec<Fr> = (0..DOMAIN_SIZE as u64).map(|k| *t - Fr::from(k)).collect();
    batch_inversion(&mut d);
    d
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
/// commitments (`scalars[0]` is commitment `base`) and returns `Σ rⁱ·y_i/(t − z_i)`.
fn sum_helpers(
    openings: &[Opening],
    first: usize,
    base: usize,
    r: &Fr,
    inv: &[Fr],
    scalars: &mut [Fr],
) -> Fr {
    let mut rp = pow(r, first as u64);
    let mut g2 = Fr::zero();
    for o in openings {
        let helper = rp * inv.get(usize::from(o.point)).copied().unwrap_or_default();
        g2 += helper * o.result;
        if let Some(s) = (o.commitment as usize)
            .checked_sub(base)
            .and_then(|i| scalars.get_mut(i))
        {
            *s += helper;
        }
        rp *= r;
    }
    g2
}

/// Fewest openings worth a second task for [`helper_scalars`].
#[cfg(feature = "parallel")]
const PARALLEL_HELPERS: usize = 4096;

/// The scalar of every commitment, `Σ_{i opens it} rⁱ/(t − z_i)`, and
/// `Σ_i rⁱ·y_i/(t − z_i)`. `openings` lists each commitment's openings together, in
/// non-decreasing commitment order.
fn helper_scalars(openings: &[Opening], commitments: usize, r: &Fr, inv: &[Fr]) -> (Vec<Fr>, Fr) {
    debug_assert!(openings
        .windows(2)
        .all(|w| matches!(w, [a, b] if a.commitment <= b.commitment)));
    let mut scalars = vec![Fr::zero(); commitments];
    #[cfg(feature = "parallel")]
    if openings.len() >= PARALLEL_HELPERS && rayon::current_num_threads() > 1 {
        // Split in two where the commitment changes: each half owns its commitments.
        let mut mid = openings.len() / 2;
        let at = |i: usize| openings.get(i).map(|o| o.commitment as usize);
        while mid < openings.len() && at(mid) == at(mid - 1) {
            mid += 1;
        }
        let split = at(mid).unwrap_or(commitments).min(commitments);
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

/// Checks `proof` for `openings` of `commitments` (`encodings[i]` is the witness's encoding
/// of `commitments[i]`) with a transcript started as `label`: the statement and transcript
/// of [`ipa::MultiProof::verify`]. `openings` must list each commitment's openings together,
/// in non-decreasing commitment order (the order of a witness); no openings reject.
pub(crate) fn verify_openings(
    proof: &MultiProof,
    label: &[u8],
    commitments: &[Element],
    encodings: &[&[u8; 32]],
    openings: &[Opening],
) -> bool {
    if openings.is_empty() || commitments.len() != encodings.len() {
        return false;
    }
    let mut transcript = Transcript::new(label);
    transcript.domain_sep(b"multiproof");
    append_openings(&mut transcript, openings, encodings);
    let r = transcript.challenge_scalar(b"r");
    transcript.append_point(b"D", &proof.d);
    let t = transcript.challenge_scalar(b"t");
    let inv = inv_t_minus_domain(&t);
    // The IPA's Lagrange basis at t does not depend on E: computed beside the scalars.
    let basis = || PrecomputedWeights::get().lagrange_at(&t);
    let helpers = || helper_scalars(openings, commitments.len(), &r, &inv);
    #[cfg(feature = "parallel")]
    let ((scalars, g2_t), b) = rayon::join(helpers, basis);
    #[cfg(not(feature = "parallel"))]
    let ((scalars, g2_t), b) = (helpers(), basis());
    let e = multi_scalar_mul(commitments, &scalars);
    transcript.append_point(b"E", &e);
    proof
        .ipa
        .verify_with_basis(Crs::eip6800(), &mut transcript, e - proof.d, &t, &b, &g2_t)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use banderwagon::arith::UniformRand;
    use ipa::{Committer, ProverQuery, VerifierQuery};
    use rand::{rngs::StdRng, Rng, SeedableRng};

    #[test]
    fn le_bytes_match_banderwagon() {
        let mut rng = StdRng::seed_from_u64(5);
        let mut cases = vec![Fr::zero(), Fr::one(), -Fr::one()];
        cases.extend((0..200).map(|_| Fr::rand(&mut rng)));
        for s in cases {
            assert_eq!(fr_le_bytes(&s), banderwagon::fr_to_le_bytes(&s));
        }
    }

    #[test]
    fn pow_matches_repeated_products() {
        let mut rng = StdRng::seed_from_u64(6);
        let r = Fr::rand(&mut rng);
        let mut acc = Fr::one();
        for e in 0..300u64 {
            assert_eq!(pow(&r, e), acc);
            acc *= r;
        }
    }

    /// Proves `n` openings of `polys` polynomials (openings of one polynomial together, as
    /// in a witness, some polynomials repeated at two places) and returns the proof, the
    /// commitments, their encodings and the openings.
    fn case(
        n: usize,
        polys: usize,
        seed: u64,
    ) -> (MultiProof, Vec<Element>, Vec<[u8; 32]>, Vec<Opening>) {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(seed);
        let values: Vec<Vec<Fr>> = (0..polys)
            .map(|_| (0..DOMAIN_SIZE).map(|_| Fr::rand(&mut rng)).collect())
            .collect();
        // Commitment slot k holds polynomial k, except the last slot repeats polynomial 0.
        let slots: Vec<usize> = (0..polys).chain([0]).collect();
        let comms: Vec<Element> = slots
            .iter()
            .map(|&k| committer.commit(&values[k]))
            .collect();
        let mut openings = Vec::new();
        let mut per_slot = vec![0usize; slots.len()];
        for _ in 0..n {
            per_slot[rng.gen_range(0..slots.len())] += 1;
        }
        for (slot, &count) in per_slot.iter().enumerate() {
            for _ in 0..count {
                let z: u8 = rng.gen();
                openings.push(Opening {
                    commitment: slot as u32,
                    point: z,
                    result: values[slots[slot]][usize::from(z)],
                });
            }
        }
        let queries: Vec<ProverQuery> = openings
            .iter()
            .map(|o| ProverQuery {
                commitment: comms[o.commitment as usize],
                poly: &values[slots[o.commitment as usize]],
                point: o.point,
                result: o.result,
            })
            .collect();
        let proof = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &queries);
        let enc = Element::batch_to_bytes(&comms);
        (proof, comms, enc, openings)
    }

    /// Accepts exactly what `ipa::MultiProof::verify` accepts, on both sides of the
    /// parallel threshold, and rejects a changed value, point, commitment or label.
    #[test]
    fn agrees_with_ipa_multiproof_verify() {
        for (n, polys, seed) in [(1, 1, 1u64), (37, 5, 2), (5000, 700, 3)] {
            let (proof, comms, enc, openings) = case(n, polys, seed);
            let encodings: Vec<&[u8; 32]> = enc.iter().collect();
            assert!(verify_openings(
                &proof, b"vt", &comms, &encodings, &openings
            ));
            let queries: Vec<VerifierQuery> = openings
                .iter()
                .map(|o| VerifierQuery {
                    commitment: comms[o.commitment as usize],
                    point: o.point,
                    result: o.result,
                })
                .collect();
            proof
                .verify(Crs::eip6800(), &mut Transcript::new(b"vt"), &queries)
                .unwrap();

            let last = openings.len() - 1;
            let mut bad = openings.clone();
            bad[last].result += Fr::one();
            assert!(!verify_openings(&proof, b"vt", &comms, &encodings, &bad));
            let mut bad = openings.clone();
            bad[0].point = bad[0].point.wrapping_add(1);
            assert!(!verify_openings(&proof, b"vt", &comms, &encodings, &bad));
            let mut bad_comms = comms.clone();
            let opened = openings[0].commitment as usize;
            bad_comms[opened] += Element::generator();
            assert!(!verify_openings(
                &proof, b"vt", &bad_comms, &encodings, &openings
            ));
            assert!(!verify_openings(
                &proof, b"vT", &comms, &encodings, &openings
            ));
            assert!(!verify_openings(&proof, b"vt", &comms, &encodings, &[]));
        }
    }
}
