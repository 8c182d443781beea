//! Generated cases for IPA proofs and multiproofs: proven from seeded polynomials, then
//! mutated, each mutation breaking one rule.

use banderwagon::{DecodeError, Element, Fr};
use ipa::{Committer, IpaProof, MultiProof, ProverQuery, Transcript};
use serde_json::{json, Value};

use super::case::{fr_hex, invalid, suite_file, valid, SuiteFile};
use super::crypto::{first_x_failing_with, scalars_json, P_BE};
use super::rng::Rng;
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::Kind;

fn mutate_word(bytes: &[u8], word: usize, with: &[u8; 32]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if let Some(w) = out.get_mut(32 * word..32 * (word + 1)) {
        w.copy_from_slice(with);
    }
    out
}

fn swap_words(bytes: &[u8], i: usize, j: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[32 * i..32 * (i + 1)].copy_from_slice(&bytes[32 * j..32 * (j + 1)]);
    out[32 * j..32 * (j + 1)].copy_from_slice(&bytes[32 * i..32 * (i + 1)]);
    out
}

fn increment_le(word: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&word[..32]);
    for b in out.iter_mut() {
        let (v, carry) = b.overflowing_add(1);
        *b = v;
        if !carry {
            break;
        }
    }
    out
}

pub(super) fn ipa() -> Result<SuiteFile, VectorError> {
    let mut rng = Rng::new(0x0005_0001);
    let committer = Committer::eip6800();
    let reference: Vec<Fr> = (0..256u64).map(|i| Fr::from(i % 32 + 1)).collect();
    let setups: Vec<(&str, &str, Vec<Fr>, Fr, &str)> = vec![
        ("reference_out_of_domain", "poly[i] = i mod 32 + 1 at z = 2101, label \"test\" (the go-ipa/rust-verkle consistency vector)", reference, Fr::from(2101u64), "test"),
        ("random_in_domain", "random polynomial at in-domain z = 13, label \"ipa\"", (0..256).map(|_| rng.scalar()).collect(), Fr::from(13u64), "ipa"),
        ("random_out_of_domain", "random polynomial at a random z, label \"vt\"", (0..256).map(|_| rng.scalar()).collect(), rng.scalar(), "vt"),
    ];
    let mut cases = Vec::new();
    let mut first: Option<(Value, Vec<u8>)> = None;
    for (name, description, poly, z, label) in setups {
        let c = committer.commit(&poly);
        let mut t = Transcript::new(label.as_bytes());
        let (proof, y) = IpaProof::prove(committer, &mut t, c, poly.clone(), &z);
        let state = t.challenge_scalar(b"state");
        let bytes = proof.to_bytes().to_vec();
        let input = json!({
            "commitment": hex0x(&c.to_bytes()), "z": fr_hex(&z), "y": fr_hex(&y),
            "proof": hex0x(&bytes), "transcript_label": label,
        });
        if first.is_none() {
            first = Some((input.clone(), bytes.clone()));
        }
        let mut with_poly = input;
        with_poly["poly"] = scalars_json(&poly);
        cases.push(valid(
            name,
            description,
            with_poly,
            json!({"transcript_challenge_state": fr_hex(&state)}),
        ));
    }
    let Some((base, bytes)) = first else {
        return Err(VectorError::Generator("no IPA base case".into()));
    };
    let g = Element::generator().to_bytes();
    let with = |key: &str, v: Value| {
        let mut i = base.clone();
        i[key] = v;
        i
    };
    let y_plus_one = {
        let y = crate::at::parse_hex(base["y"].as_str().unwrap_or_default())
            .map_err(VectorError::Generator)?;
        hex0x(&increment_le(&y))
    };
    let not_on_curve = first_x_failing_with(&DecodeError::NotOnCurve)?;
    let a_plus_one = [&bytes[..512], &increment_le(&bytes[512..])[..]].concat();
    let muts: Vec<(&str, &str, Value, &str)> = vec![
        (
            "wrong_y",
            "y + 1",
            with("y", json!(y_plus_one)),
            "proof.rejected",
        ),
        (
            "wrong_z",
            "z = 2102",
            with("z", json!(fr_hex(&Fr::from(2102u64)))),
            "proof.rejected",
        ),
        (
            "wrong_label",
            "transcript label \"tesu\"",
            with("transcript_label", json!("tesu")),
            "proof.rejected",
        ),
        (
            "wrong_commitment",
            "commitment replaced by G",
            with("commitment", json!(hex0x(&g))),
            "proof.rejected",
        ),
        (
            "l0_replaced",
            "L_0 replaced by G (a valid point)",
            with("proof", json!(hex0x(&mutate_word(&bytes, 0, &g)))),
            "proof.rejected",
        ),
        (
            "l_r_swapped",
            "L_0 and R_0 swapped",
            with("proof", json!(hex0x(&swap_words(&bytes, 0, 8)))),
            "proof.rejected",
        ),
        (
            "a_plus_one",
            "final scalar a + 1",
            with("proof", json!(hex0x(&a_plus_one))),
            "proof.rejected",
        ),
        (
            "a_not_canonical",
            "final scalar 2^256 - 1 (>= r)",
            with("proof", json!(hex0x(&mutate_word(&bytes, 16, &[0xff; 32])))),
            "proof.scalar",
        ),
        (
            "l2_x_equals_p",
            "L_2 with x = p",
            with("proof", json!(hex0x(&mutate_word(&bytes, 2, &P_BE)))),
            "proof.point",
        ),
        (
            "r7_not_on_curve",
            "R_7 not on the curve",
            with(
                "proof",
                json!(hex0x(&mutate_word(&bytes, 15, &not_on_curve))),
            ),
            "proof.point",
        ),
        (
            "truncated",
            "543 bytes",
            with("proof", json!(hex0x(&bytes[..543]))),
            "proof.length",
        ),
        (
            "extended",
            "545 bytes",
            with("proof", json!(hex0x(&[&bytes[..], &[0]].concat()))),
            "proof.length",
        ),
    ];
    for (name, description, input, rule) in muts {
        cases.push(invalid(
            name,
            &format!("reference_out_of_domain with {description}"),
            input,
            rule,
        ));
    }
    suite_file(
        "ipa.json",
        Kind::Ipa,
        "IPA opening proofs (544 bytes: L_0..L_7, R_0..R_7, a little-endian) of a committed polynomial in evaluation form at z; verified with the given transcript label",
        cases,
    )
}

/// A multiproof case: name, description, label, polynomials, openings as (poly index, z).
type MultiproofSetup = (
    &'static str,
    &'static str,
    &'static str,
    Vec<Vec<Fr>>,
    Vec<(usize, u8)>,
);

pub(super) fn multiproof() -> Result<SuiteFile, VectorError> {
    let mut rng = Rng::new(0x0006_0001);
    let committer = Committer::eip6800();
    let a: Vec<Fr> = (0..256u64).map(|i| Fr::from(i % 32 + 1)).collect();
    let b: Vec<Fr> = a.iter().rev().copied().collect();
    let randoms: Vec<Vec<Fr>> = (0..3)
        .map(|_| (0..256).map(|_| rng.scalar()).collect())
        .collect();
    // (name, description, label, polys, queries as (poly index, z))
    let setups: Vec<MultiproofSetup> = vec![
        ("reference_two_polys", "poly_a[i] = i mod 32 + 1 and its reverse, both at z = 0, label \"test\" (the go-ipa/rust-verkle consistency vector)", "test", vec![a, b], vec![(0, 0), (1, 0)]),
        ("one_opening", "one random polynomial at z = 200, label \"vt\"", "vt", vec![randoms[0].clone()], vec![(0, 200)]),
        ("shared_commitments_and_points", "three polynomials, 7 openings: one commitment at several z, several commitments at one z, one opening twice", "vt", randoms.clone(), vec![(0, 0), (0, 1), (0, 255), (1, 1), (2, 1), (2, 77), (0, 1)]),
    ];
    let mut cases = Vec::new();
    let mut base: Option<(Value, Vec<u8>)> = None;
    for (name, description, label, polys, qs) in setups {
        let comms: Vec<Element> = polys.iter().map(|p| committer.commit(p)).collect();
        let pq: Vec<ProverQuery<'_>> = qs
            .iter()
            .map(|&(i, z)| ProverQuery {
                commitment: comms[i],
                poly: &polys[i],
                point: z,
                result: polys[i][usize::from(z)],
            })
            .collect();
        let mut t = Transcript::new(label.as_bytes());
        let proof = MultiProof::prove(committer, &mut t, &pq);
        let state = t.challenge_scalar(b"state");
        let bytes = proof.to_bytes().to_vec();
        let queries: Vec<Value> = pq
            .iter()
            .map(|q| json!({"commitment": hex0x(&q.commitment.to_bytes()), "z": q.point, "y": fr_hex(&q.result)}))
            .collect();
        let input = json!({"queries": queries, "proof": hex0x(&bytes), "transcript_label": label});
        if name == "shared_commitments_and_points" {
            base = Some((input.clone(), bytes.clone()));
        }
        let mut with_polys = input;
        if let Some(items) = with_polys["queries"].as_array_mut() {
            for (item, (i, _)) in items.iter_mut().zip(&qs) {
                item["poly"] = json!(i);
            }
        }
        with_polys["polys"] = Value::Array(polys.iter().map(|p| scalars_json(p)).collect());
        cases.push(valid(
            name,
            description,
            with_polys,
            json!({"transcript_challenge_state": fr_hex(&state)}),
        ));
    }
    let Some((base, bytes)) = base else {
        return Err(VectorError::Generator("no multiproof base case".into()));
    };
    let with_queries = |f: &dyn Fn(&mut Vec<Value>)| {
        let mut i = base.clone();
        if let Some(items) = i["queries"].as_array_mut() {
            f(items);
        }
        i
    };
    let with_proof = |p: Vec<u8>| {
        let mut i = base.clone();
        i["proof"] = json!(hex0x(&p));
        i
    };
    let g = Element::generator().to_bytes();
    let other_y = fr_hex(&rng.scalar());
    let muts: Vec<(&str, &str, Value, &str)> = vec![
        (
            "wrong_y",
            "the third opening's y replaced",
            with_queries(&|q| q[2]["y"] = Value::from(other_y.as_str())),
            "proof.rejected",
        ),
        (
            "wrong_z",
            "the sixth opening at z = 78 instead of 77",
            with_queries(&|q| q[5]["z"] = json!(78)),
            "proof.rejected",
        ),
        (
            "openings_reordered",
            "the first two openings swapped (the transcript order matters)",
            with_queries(&|q| q.swap(0, 1)),
            "proof.rejected",
        ),
        (
            "opening_dropped",
            "the last opening removed",
            with_queries(&|q| {
                q.pop();
            }),
            "proof.rejected",
        ),
        (
            "no_openings",
            "every opening removed",
            with_queries(&|q| q.clear()),
            "proof.no_openings",
        ),
        (
            "d_replaced",
            "D replaced by G",
            with_proof(mutate_word(&bytes, 0, &g)),
            "proof.rejected",
        ),
        (
            "d_x_equals_p",
            "D with x = p",
            with_proof(mutate_word(&bytes, 0, &P_BE)),
            "proof.point",
        ),
        (
            "a_not_canonical",
            "final scalar 2^256 - 1",
            with_proof(mutate_word(&bytes, 17, &[0xff; 32])),
            "proof.scalar",
        ),
        (
            "truncated",
            "575 bytes",
            with_proof(bytes[..575].to_vec()),
            "proof.length",
        ),
    ];
    for (name, description, input, rule) in muts {
        cases.push(invalid(
            name,
            &format!("shared_commitments_and_points with {description}"),
            input,
            rule,
        ));
    }
    suite_file(
        "multiproof.json",
        Kind::Multiproof,
        "Multiproofs (576 bytes: D, then the IPA proof) over openings (commitment, z in 0..255, y), in the order given, with the given transcript label",
        cases,
    )
}
