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

/// Proves `n` openings of `polys` random polynomials, each polynomial's openings
/// together (as in a witness), with the last commitment slot repeating polynomial 0 (a
/// commitment listed at two nodes). Returns the proof, the commitments, their
/// encodings and the openings.
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
    let slots: Vec<usize> = (0..polys).chain([0]).collect();
    let comms: Vec<Element> = slots
        .iter()
        .map(|&k| committer.commit(&values[k]))
        .collect();
    let mut per_slot = vec![0usize; slots.len()];
    for _ in 0..n {
        per_slot[rng.gen_range(0..slots.len())] += 1;
    }
    let mut openings = Vec::new();
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

/// The index form accepts what the query form accepts, on both sides of the parallel
/// threshold and in any opening order, and rejects a changed value, point, commitment,
/// encoding or label; malformed indices and counts are typed errors.
#[test]
fn index_form_agrees_with_query_form() {
    let crs = Crs::eip6800();
    let check = |proof: &MultiProof, label: &[u8], c: &[Element], e: &[[u8; 32]], o: &[Opening]| {
        proof.verify_openings(crs, &mut Transcript::new(label), c, e, o)
    };
    for (n, polys, seed) in [(1, 1, 1u64), (37, 5, 2), (5000, 700, 3)] {
        let (proof, comms, enc, openings) = case(n, polys, seed);
        check(&proof, b"vt", &comms, &enc, &openings).unwrap();
        let refs: Vec<&[u8; 32]> = enc.iter().collect();
        proof
            .verify_openings(crs, &mut Transcript::new(b"vt"), &comms, &refs, &openings)
            .unwrap();
        let queries: Vec<VerifierQuery> = openings
            .iter()
            .map(|o| VerifierQuery {
                commitment: comms[o.commitment as usize],
                point: o.point,
                result: o.result,
            })
            .collect();
        proof
            .verify(crs, &mut Transcript::new(b"vt"), &queries)
            .unwrap();

        let last = openings.len() - 1;
        let mut bad = openings.clone();
        bad[last].result += Fr::one();
        assert_eq!(
            check(&proof, b"vt", &comms, &enc, &bad),
            Err(ProofVerifyError::ProofRejected)
        );
        let mut bad = openings.clone();
        bad[0].point = bad[0].point.wrapping_add(1);
        assert_eq!(
            check(&proof, b"vt", &comms, &enc, &bad),
            Err(ProofVerifyError::ProofRejected)
        );
        let mut bad_comms = comms.clone();
        bad_comms[openings[0].commitment as usize] += Element::generator();
        assert_eq!(
            check(&proof, b"vt", &bad_comms, &enc, &openings),
            Err(ProofVerifyError::ProofRejected)
        );
        let mut bad_enc = enc.clone();
        bad_enc[openings[last].commitment as usize] = Element::generator().to_bytes();
        assert_eq!(
            check(&proof, b"vt", &comms, &bad_enc, &openings),
            Err(ProofVerifyError::ProofRejected)
        );
        assert_eq!(
            check(&proof, b"vT", &comms, &enc, &openings),
            Err(ProofVerifyError::ProofRejected)
        );
        assert_eq!(
            check(&proof, b"vt", &comms, &enc, &[]),
            Err(ProofVerifyError::NoQueries)
        );
        assert_eq!(
            check(&proof, b"vt", &comms, &enc[1..], &openings),
            Err(ProofVerifyError::CommitmentEncodings {
                commitments: comms.len(),
                encodings: comms.len() - 1
            })
        );
        let mut bad = openings.clone();
        bad[last].commitment = comms.len() as u32;
        assert_eq!(
            check(&proof, b"vt", &comms, &enc, &bad),
            Err(ProofVerifyError::CommitmentIndex {
                opening: last,
                index: comms.len() as u32,
                commitments: comms.len()
            })
        );
    }
}

/// Openings out of commitment order (the proof is made for that order) are summed on
/// one thread and still verify, past the parallel threshold too.
#[test]
fn openings_in_any_commitment_order_verify() {
    let committer = Committer::eip6800();
    let mut rng = StdRng::seed_from_u64(9);
    let values: Vec<Vec<Fr>> = (0..40)
        .map(|_| (0..DOMAIN_SIZE).map(|_| Fr::rand(&mut rng)).collect())
        .collect();
    let comms: Vec<Element> = values.iter().map(|v| committer.commit(v)).collect();
    let openings: Vec<Opening> = (0..5000)
        .map(|i| {
            // Commitments interleaved: 0, 39, 1, 38, … — never sorted.
            let k = if i % 2 == 0 {
                (i / 2) % 40
            } else {
                39 - (i / 2) % 40
            };
            let z: u8 = rng.gen();
            Opening {
                commitment: k as u32,
                point: z,
                result: values[k][usize::from(z)],
            }
        })
        .collect();
    let queries: Vec<ProverQuery> = openings
        .iter()
        .map(|o| ProverQuery {
            commitment: comms[o.commitment as usize],
            poly: &values[o.commitment as usize],
            point: o.point,
            result: o.result,
        })
        .collect();
    let proof = MultiProof::prove(committer, &mut Transcript::new(b"any"), &queries);
    let enc = Element::batch_to_bytes(&comms);
    proof
        .verify_openings(
            Crs::eip6800(),
            &mut Transcript::new(b"any"),
            &comms,
            &enc,
            &openings,
        )
        .unwrap();
    let mut bad = openings.clone();
    bad[4999].result += Fr::one();
    assert!(proof
        .verify_openings(
            Crs::eip6800(),
            &mut Transcript::new(b"any"),
            &comms,
            &enc,
            &bad
        )
        .is_err());
}
