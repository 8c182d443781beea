use super::*;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn generator_map_to_field() {
    let got = crate::fr_to_le_bytes(&Element::generator().map_to_scalar_field());
    assert_eq!(
        hex::encode(got),
        "d1e7de2aaea9603d5bc6c208d319596376556ecd8336671ba7670c2139772d14"
    );
}

#[test]
fn identity_encodes_to_zero_and_back() {
    assert_eq!(Element::identity().to_bytes(), [0u8; 32]);
    assert_eq!(
        Element::from_bytes(&[0u8; 32]).unwrap(),
        Element::identity()
    );
    assert_eq!(Element::identity().map_to_scalar_field(), Fr::zero());
}

#[test]
fn two_torsion_is_identity() {
    let t2 = EdwardsAffine::new_unchecked(Fq::zero(), -Fq::one());
    let g = Element::generator();
    let shifted = Element(g.0 + EdwardsProjective::from(t2));
    assert_eq!(shifted, g);
    assert_eq!(shifted.to_bytes(), g.to_bytes());
    assert_eq!(shifted.map_to_scalar_field(), g.map_to_scalar_field());
}

#[test]
fn decoding_rejects_with_each_variant() {
    assert_eq!(
        Element::from_bytes(&[0u8; 31]),
        Err(DecodeError::WrongLength { got: 31 })
    );
    let mut p_plus_1 = h("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000002");
    assert_eq!(
        Element::from_bytes(&p_plus_1),
        Err(DecodeError::NotCanonical)
    );
    p_plus_1[0] = 0xff;
    assert_eq!(
        Element::from_bytes(&p_plus_1),
        Err(DecodeError::NotCanonical)
    );
    let bad = h("120faa1df94d5d831bbb69fc44816e25afd27288a333299ac3c94518fd0e016f");
    assert_eq!(Element::from_bytes(&bad), Err(DecodeError::NotInSubgroup));
}

/// The decoder before the fast square root: inverse, Tonelli–Shanks, Legendre symbol.
fn old_from_bytes(arr: &[u8; 32]) -> Result<Element, DecodeError> {
    let x = fq_from_be_bytes_canonical(arr).ok_or(DecodeError::NotCanonical)?;
    let x2 = x.square();
    let num = Fq::one() - BandersnatchConfig::COEFF_A * x2;
    let den = Fq::one() - BandersnatchConfig::COEFF_D * x2;
    let y = den
        .inverse()
        .and_then(|i| (num * i).sqrt())
        .ok_or(DecodeError::NotOnCurve)?;
    let y = if is_positive(&y) { y } else { -y };
    if !num.legendre().is_qr() {
        return Err(DecodeError::NotInSubgroup);
    }
    Ok(Element(EdwardsAffine::new_unchecked(x, y).into()))
}

fn same(a: &Result<Element, DecodeError>, b: &Result<Element, DecodeError>) -> bool {
    match (a, b) {
        (Ok(p), Ok(q)) => p.0.x == q.0.x && p.0.y == q.0.y,
        (Err(e), Err(f)) => e == f,
        _ => false,
    }
}

#[test]
fn fast_decoder_matches_old_path() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(11);
    let g = Element::generator();
    let mut encodings: Vec<[u8; 32]> = (0..1500)
        .map(|_| (g * <Fr as ark_ff::UniformRand>::rand(&mut rng)).to_bytes())
        .collect();
    // Random strings: mostly off-curve, some not in the subgroup, some non-canonical.
    for i in 0..3000 {
        let mut b: [u8; 32] = rng.gen();
        if i % 3 != 0 {
            b[0] &= 0x3f;
        }
        encodings.push(b);
    }
    for small in 0..64u8 {
        let mut b = [0u8; 32];
        b[31] = small;
        encodings.push(b);
    }
    // The encoding of -1 and of p-1 (x = -1).
    encodings.push(fq_to_be_bytes(&-Fq::one()));
    let mut kinds = std::collections::HashMap::new();
    for e in &encodings {
        let new = Element::from_bytes(e);
        let old = old_from_bytes(e);
        assert!(same(&new, &old), "{}: {new:?} vs {old:?}", hex::encode(e));
        *kinds.entry(format!("{:?}", new.map(|_| ()))).or_insert(0) += 1;
    }
    // Every outcome class was exercised.
    assert_eq!(kinds.len(), 4, "{kinds:?}");
    // The batch decoder agrees, and reports the first bad index.
    let good = &encodings[..1500];
    let batch = Element::batch_from_bytes(good).unwrap();
    for (e, p) in good.iter().zip(&batch) {
        assert!(same(&Ok(*p), &Element::from_bytes(e)));
    }
    let first_bad = encodings
        .iter()
        .position(|e| Element::from_bytes(e).is_err())
        .unwrap();
    assert_eq!(
        Element::batch_from_bytes(&encodings).map(|_| ()),
        Err((
            first_bad,
            Element::from_bytes(&encodings[first_bad]).unwrap_err()
        ))
    );
    assert_eq!(Element::batch_from_bytes(&[]), Ok(Vec::new()));
}

#[test]
fn uncompressed_decoder_checks() {
    let g = Element::generator() * Fr::from(12345u64);
    let (x, y) = g.to_affine_coordinates();
    let (x, y) = if is_positive(&y) { (x, y) } else { (-x, -y) };
    let xb = fq_to_be_bytes(&x);
    assert_eq!(
        Element::from_uncompressed_be(&xb, &fq_to_be_bytes(&y)),
        Ok(g)
    );
    assert_eq!(
        Element::from_uncompressed_be(&xb, &fq_to_be_bytes(&-y)),
        Err(DecodeError::NotCanonicalY)
    );
}

/// The encoders match arkworks' normalisation on many points, in and across chunks.
#[test]
fn encodings_match_arkworks_affine() {
    use ark_ff::UniformRand;
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    let g = Element::generator();
    let mut pts: Vec<Element> = (0..2500).map(|_| g * Fr::rand(&mut rng)).collect();
    pts[5] = Element::identity();
    pts[1500] = Element::identity();
    let want: Vec<[u8; 32]> = pts
        .iter()
        .map(|p| {
            let a = p.0.into_affine();
            let x = if is_positive(&a.y) { a.x } else { -a.x };
            fq_to_be_bytes(&x)
        })
        .collect();
    assert_eq!(Element::batch_to_bytes(&pts), want);
    for (p, w) in pts.iter().zip(&want).take(50) {
        assert_eq!(p.to_bytes(), *w);
    }
    assert!(Element::batch_to_bytes(&[]).is_empty());
}

#[test]
fn batch_versions_agree() {
    let g = Element::generator();
    let pts: Vec<Element> = (1..20u64)
        .map(|i| g * Fr::from(i))
        .chain([Element::identity()])
        .collect();
    let single: Vec<Fr> = pts.iter().map(|p| p.map_to_scalar_field()).collect();
    assert_eq!(Element::batch_map_to_scalar_field(&pts), single);
    let enc: Vec<[u8; 32]> = pts.iter().map(|p| p.to_bytes()).collect();
    assert_eq!(Element::batch_to_bytes(&pts), enc);
}

/// The definition: the 32 little-endian bytes of `v`, reduced mod r.
fn fq_to_fr_by_bytes(v: &Fq) -> Fr {
    Fr::from_le_bytes_mod_order(&v.into_bigint().to_bytes_le())
}

#[test]
fn fq_to_fr_reduces_like_the_bytes() {
    let r = Fr::MODULUS;
    let mut edges: Vec<Fq> = vec![Fq::zero(), Fq::one(), -Fq::one(), -Fq::from(2u64)];
    for k in 1..=4u64 {
        // k·r − 1, k·r and k·r + 1 (all below p).
        let kr = Fq::from(k) * Fq::from_bigint(r).unwrap();
        edges.extend([kr - Fq::one(), kr, kr + Fq::one()]);
    }
    let mut x = Fq::from(0x9e37_79b9_7f4a_7c15u64);
    for _ in 0..20_000 {
        x = x.square() + Fq::from(7u64);
        edges.push(x);
    }
    for v in &edges {
        assert_eq!(fq_to_fr(v), fq_to_fr_by_bytes(v), "{v}");
    }
}

/// Additions and subtractions give arkworks' coordinates exactly, on the selected
/// backend (whichever it is on this processor).
#[test]
fn additions_match_arkworks_coordinates() {
    let g = Element::generator();
    let pts: Vec<Element> = (1..60u64)
        .map(|i| g * Fr::from(i * 0x1f2e_3d4c_5b6a + 3))
        .chain([Element::identity()])
        .collect();
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let sum = a + b;
        let (x, y) = (a.0 + b.0, a.0 - b.0);
        assert_eq!((sum.0.x, sum.0.y, sum.0.t, sum.0.z), (x.x, x.y, x.t, x.z));
        let diff = a - b;
        assert_eq!(
            (diff.0.x, diff.0.y, diff.0.t, diff.0.z),
            (y.x, y.y, y.t, y.z)
        );
        let mut acc = a;
        acc += b;
        acc -= b;
        let mut want = a.0;
        want += b.0;
        want -= b.0;
        assert_eq!(
            (acc.0.x, acc.0.y, acc.0.t, acc.0.z),
            (want.x, want.y, want.t, want.z)
        );
    }
}

/// The batched map to field gives the definition's scalars, under both field backends,
/// the identity included.
#[test]
fn batch_map_to_field_matches_the_definition() {
    let g = Element::generator();
    let mut pts: Vec<Element> = (1..300u64)
        .map(|i| g * Fr::from(i * 0x1234_5678_9abc + 17))
        .collect();
    pts.insert(100, Element::identity());
    let want: Vec<Fr> = pts
        .iter()
        .map(|p| {
            let (x, y) = p.to_affine_coordinates();
            fq_to_fr_by_bytes(&(x * y.inverse().unwrap()))
        })
        .collect();
    let run = |m, els: &[Element]| {
        let mut out = vec![Fr::from(7u64); els.len()];
        batch_mtf(m, els, &mut out);
        out
    };
    assert_eq!(run(crate::field::Portable, &pts), want);
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    match crate::field::Adx::detect() {
        Some(adx) => {
            let mut out = vec![Fr::from(7u64); pts.len()];
            batch_mtf(adx, &pts, &mut out);
            assert_eq!(out, want);
        }
        None => eprintln!("no BMI2/ADX on this processor: the assembly path was not tested"),
    }
    assert!(run(crate::field::Portable, &[]).is_empty());
    assert_eq!(Element::batch_map_to_scalar_field(&pts), want);
    // Chunked and parallel: lengths around the chunk size and its multiples.
    let many: Vec<Element> = (0..3 * MTF_CHUNK + 5)
        .map(|i| pts[i % pts.len()] + g * Fr::from(i as u64))
        .collect();
    let one_by_one: Vec<Fr> = many.iter().map(Element::map_to_scalar_field).collect();
    for n in [
        0,
        1,
        MTF_CHUNK - 1,
        MTF_CHUNK,
        2 * MTF_CHUNK,
        2 * MTF_CHUNK + 1,
        many.len(),
    ] {
        assert_eq!(
            Element::par_batch_map_to_scalar_field(&many[..n]),
            one_by_one[..n],
            "n = {n}"
        );
    }
}

/// The batch decoder (eight square roots at a time on the IFMA lanes where the processor has
/// them) gives the same elements and the same first error as decoding one by one, for every
/// length up to 40 and a bad encoding of each kind at every position.
#[test]
fn batch_decoding_agrees_with_one_by_one_at_every_position() {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(0xdec0);
    let g = Element::generator();
    let good: Vec<[u8; 32]> = (0..40)
        .map(|_| (g * <Fr as ark_ff::UniformRand>::rand(&mut rng)).to_bytes())
        .collect();
    // One bad encoding of each kind: non-canonical, off the curve, outside the subgroup.
    let mut bad: std::collections::BTreeMap<String, [u8; 32]> = Default::default();
    bad.insert("NotCanonical".into(), [0xff; 32]);
    while bad.len() < 3 {
        let mut b: [u8; 32] = rng.gen();
        b[0] &= 0x3f;
        if let Err(e) = Element::from_bytes(&b) {
            bad.entry(format!("{e:?}")).or_insert(b);
        }
    }
    let one_by_one = |encs: &[[u8; 32]]| -> Result<Vec<Element>, (usize, DecodeError)> {
        encs.iter()
            .enumerate()
            .map(|(i, e)| Element::from_bytes(e).map_err(|err| (i, err)))
            .collect()
    };
    let check = |encs: &[[u8; 32]]| {
        let (got, want) = (Element::batch_from_bytes(encs), one_by_one(encs));
        match (&got, &want) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(b) {
                    assert!(same(&Ok(*x), &Ok(*y)), "{} encodings", encs.len());
                }
            }
            _ => assert_eq!(
                got.map(|_| ()),
                want.map(|_| ()),
                "{} encodings",
                encs.len()
            ),
        }
    };
    // Both paths: the lanes (where the processor has them) and the scalar one. The switch is
    // global; other tests running meanwhile get the same results on either path.
    for lanes in [true, false] {
        crate::use_lanes(lanes);
        check_all(&good, &bad, &check);
    }
    crate::use_lanes(true);
}

/// `check` on every prefix of `good`, with each `bad` encoding at every position.
fn check_all(
    good: &[[u8; 32]],
    bad: &std::collections::BTreeMap<String, [u8; 32]>,
    check: &dyn Fn(&[[u8; 32]]),
) {
    for len in 0..=good.len() {
        check(&good[..len]);
        for b in bad.values() {
            for at in 0..len {
                let mut encs = good[..len].to_vec();
                encs[at] = *b;
                check(&encs);
                // A second bad one after it: the first is still the one reported.
                if at + 3 < len {
                    encs[at + 3] = [0xff; 32];
                    check(&encs);
                }
            }
        }
    }
    // The identity (x = 0) inside a batch.
    let mut encs = good[..17].to_vec();
    encs[9] = [0u8; 32];
    check(&encs);
}
