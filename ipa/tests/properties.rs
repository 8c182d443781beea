//! Property tests: proofs fail when anything they bind changes; decoders never panic.

#![allow(clippy::unwrap_used)]

use std::sync::OnceLock;

use banderwagon::{arith::UniformRand, Element, Fr};
use ipa::{Committer, Crs, IpaProof, MultiProof, ProverQuery, Transcript, VerifierQuery};
use proptest::prelude::*;
use rand::{rngs::StdRng, SeedableRng};

struct Fixture {
    poly: Vec<Fr>,
    comm: Element,
    z: Fr,
    y: Fr,
    ipa: Vec<u8>,
    multi: Vec<u8>,
    point: u8,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = StdRng::seed_from_u64(7);
        let committer = Committer::eip6800();
        let poly: Vec<Fr> = (0..256).map(|_| Fr::rand(&mut rng)).collect();
        let comm = committer.commit(&poly);
        let z = Fr::rand(&mut rng);
        let (proof, y) = IpaProof::prove(
            committer,
            &mut Transcript::new(b"ipa"),
            comm,
            poly.clone(),
            &z,
        );
        let point = 42u8;
        let q = ProverQuery {
            commitment: comm,
            poly: &poly,
            point,
            result: poly[point as usize],
        };
        let multi = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &[q])
            .to_bytes()
            .to_vec();
        Fixture {
            ipa: proof.to_bytes().to_vec(),
            poly: poly.clone(),
            comm,
            z,
            y,
            multi,
            point,
        }
    })
}

fn ipa_ok(bytes: &[u8], comm: Element, z: &Fr, y: &Fr) -> bool {
    match IpaProof::from_bytes(bytes) {
        Ok(p) => p.verify(Crs::eip6800(), &mut Transcript::new(b"ipa"), comm, z, y),
        Err(_) => false,
    }
}

fn multi_ok(bytes: &[u8], q: VerifierQuery) -> bool {
    match MultiProof::from_bytes(bytes) {
        Ok(p) => p
            .verify(Crs::eip6800(), &mut Transcript::new(b"vt"), &[q])
            .is_ok(),
        Err(_) => false,
    }
}

#[test]
fn fixture_proofs_verify() {
    let f = fixture();
    assert!(ipa_ok(&f.ipa, f.comm, &f.z, &f.y));
    let q = VerifierQuery {
        commitment: f.comm,
        point: f.point,
        result: f.poly[f.point as usize],
    };
    assert!(multi_ok(&f.multi, q));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ipa_fails_when_any_proof_bit_flips(bit in 0usize..(544 * 8)) {
        let f = fixture();
        let mut b = f.ipa.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(!ipa_ok(&b, f.comm, &f.z, &f.y));
    }

    #[test]
    fn ipa_fails_when_c_z_or_y_changes(which in 0u8..3, bit in 0usize..256) {
        let f = fixture();
        let (mut comm, mut z, mut y) = (f.comm, f.z, f.y);
        match which {
            0 => {
                let mut enc = comm.to_bytes();
                enc[bit / 8] ^= 1 << (bit % 8);
                match Element::from_bytes(&enc) {
                    Ok(c) => comm = c,
                    Err(_) => return Ok(()), // not a point: a verifier never gets that far
                }
            }
            1 => z += Fr::from(1u64 << (bit % 64)),
            _ => y += Fr::from(1u64 << (bit % 64)),
        }
        prop_assert!(!ipa_ok(&f.ipa, comm, &z, &y));
    }

    #[test]
    fn multiproof_fails_when_any_bit_flips(bit in 0usize..(576 * 8)) {
        let f = fixture();
        let mut b = f.multi.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        let q = VerifierQuery { commitment: f.comm, point: f.point, result: f.poly[f.point as usize] };
        prop_assert!(!multi_ok(&b, q));
    }

    #[test]
    fn multiproof_fails_for_another_point_or_value(p in any::<u8>(), dy in 1u64..) {
        let f = fixture();
        let good = f.poly[f.point as usize];
        if p != f.point {
            let q = VerifierQuery { commitment: f.comm, point: p, result: good };
            prop_assert!(!multi_ok(&f.multi, q));
        }
        let q = VerifierQuery { commitment: f.comm, point: f.point, result: good + Fr::from(dy) };
        prop_assert!(!multi_ok(&f.multi, q));
    }

    #[test]
    fn proof_decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = IpaProof::from_bytes(&bytes);
        let _ = MultiProof::from_bytes(&bytes);
    }
}

/// Batched products equal single ones, across the two tables (generators 0..5 have the
/// wide-window table) and around the eight lanes of the AVX-512 path.
#[test]
fn batched_products_match_single_ones() {
    let committer = Committer::eip6800();
    let mut rng = StdRng::seed_from_u64(0xba7c);
    let mut terms: Vec<(usize, Fr)> = Vec::new();
    // Runs alternating between the tables, of lengths 1..=13, plus Q-less edge indices.
    let mut g = 0usize;
    for run in 1..=13usize {
        for _ in 0..run {
            let s = match terms.len() % 5 {
                0 => Fr::from(0u64),
                1 => -Fr::from(1u64),
                _ => Fr::rand(&mut rng),
            };
            terms.push((g % 256, s));
        }
        g = if run % 2 == 0 { run % 5 } else { 5 + 19 * run };
    }
    terms.push((255, Fr::rand(&mut rng)));
    terms.push((0, Fr::rand(&mut rng)));
    let want: Vec<Element> = terms
        .iter()
        .map(|(i, s)| committer.scalar_mul(*i, s))
        .collect();
    for n in [0, 1, 8, 9, terms.len()] {
        let mut out = vec![Element::identity(); n];
        committer.scalar_mul_many(terms.iter().map(|(i, s)| (*i, s)), &mut out);
        assert_eq!(out, want[..n], "first {n} terms");
    }
    // Fewer terms than outputs: the rest is left alone.
    let g0 = committer.scalar_mul(0, &Fr::from(1u64));
    let mut out = vec![g0; 10];
    committer.scalar_mul_many(terms[..4].iter().map(|(i, s)| (*i, s)), &mut out);
    assert_eq!(out[..4], want[..4]);
    assert!(out[4..].iter().all(|e| *e == g0));
}
