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
