use super::*;
use ark_ff::{One, UniformRand, Zero};

#[test]
fn digits_recompose() {
    let mut rng = rand::thread_rng();
    for w in [2u32, 5, 8, 12, 16] {
        let nw = (253 + w as usize) / w as usize;
        let mut d = Vec::new();
        let half = Fr::from_bigint(Fr::MODULUS_MINUS_ONE_DIV_TWO).unwrap_or_default();
        for s in [
            Fr::zero(),
            Fr::one(),
            -Fr::one(),
            half,
            half + Fr::one(),
            -Fr::from(u128::MAX),
            Fr::rand(&mut rng),
            -Fr::rand(&mut rng),
        ] {
            signed_digits(&s, w, nw, &mut d);
            let mut acc = Fr::zero();
            let radix = Fr::from(1u64 << w);
            for &x in d.iter().rev() {
                acc = acc * radix
                    + if x < 0 {
                        -Fr::from((-x) as u64)
                    } else {
                        Fr::from(x as u64)
                    };
            }
            assert_eq!(acc, s, "w={w}");
        }
    }
}

#[test]
fn small_negative_scalars_have_few_digits() {
    let mut rng = rand::thread_rng();
    let w = 8u32;
    let nw = (253 + w as usize) / w as usize;
    let (mut neg, mut pos) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let v: u128 = rand::Rng::gen(&mut rng);
        signed_digits(&-Fr::from(v), w, nw, &mut neg);
        signed_digits(&Fr::from(v), w, nw, &mut pos);
        let negated: Vec<i32> = pos.iter().map(|d| -d).collect();
        assert_eq!(neg, negated);
        assert!(neg[17..].iter().all(|d| *d == 0), "{neg:?}");
    }
}

#[test]
fn u128_digits_recompose() {
    let mut rng = rand::thread_rng();
    let mut values = vec![0u128, 1, u128::MAX, u128::MAX - 1, 1 << 127, (1 << 127) - 1];
    values.extend((0..200).map(|_| rand::Rng::gen::<u128>(&mut rng)));
    for w in [2u32, 5, 8, 13, 16] {
        let nw = (253 + w as usize) / w as usize;
        let mut d = Vec::new();
        let mut from_fr = Vec::new();
        for &v in &values {
            signed_digits_u128(v, w, nw, &mut d);
            signed_digits(&Fr::from(v), w, nw, &mut from_fr);
            // The same digits, without the trailing zeros.
            assert!(d.len() <= nw);
            assert_eq!(d[..], from_fr[..d.len()], "w={w} v={v}");
            assert!(from_fr[d.len()..].iter().all(|x| *x == 0));
        }
    }
}

#[test]
fn lookups_match_scalar_mul() {
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..3)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    let t = FixedBaseTable::new(&bases, 13);
    let mut l = Lookups::default();
    assert!(l.is_empty());
    let start = Element::generator() * Fr::rand(&mut rng);
    let a = Fr::rand(&mut rng);
    let b: u128 = rand::Rng::gen(&mut rng);
    t.lookup(0, &a, &mut l);
    t.lookup_u128(2, b, &mut l);
    t.lookup_u128(1, 0, &mut l);
    assert!(!l.is_empty());
    let mut acc = start;
    t.add_lookups(&mut acc, &l);
    assert_eq!(acc, start + bases[0] * a + bases[2] * Fr::from(b));
    l.clear();
    assert_eq!(l.len(), 0);
    t.lookup_u128(1, u128::MAX, &mut l);
    let mut acc = Element::identity();
    t.add_lookups(&mut acc, &l);
    assert_eq!(acc, bases[1] * Fr::from(u128::MAX));
}

/// The assembly and portable backends give identical coordinates for the same lookups.
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
#[test]
#[cfg_attr(
    not(build_host_has_adx),
    ignore = "the build machine has no BMI2/ADX: the assembly path is not tested"
)]
fn backends_agree() {
    let Some(adx) = crate::field::Adx::detect() else {
        return;
    };
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..3)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    let t = FixedBaseTable::new(&bases, 9);
    let mut l = Lookups::default();
    for i in 0..3 {
        t.lookup(i, &Fr::rand(&mut rng), &mut l);
        t.lookup(i, &-Fr::rand(&mut rng), &mut l);
        t.lookup_u128(i, rand::Rng::gen(&mut rng), &mut l);
    }
    let start = Element::generator() * Fr::rand(&mut rng);
    let (mut a, mut b) = (start, start);
    t.add_entries(adx, &mut a, &l.entries);
    t.add_entries(crate::field::Portable, &mut b, &l.entries);
    assert_eq!((a.0.x, a.0.y, a.0.t, a.0.z), (b.0.x, b.0.y, b.0.t, b.0.z));
}

/// Terms for the batch tests: every base with 0, ±1, ±2⁸, half the order, small and
/// random scalars of either sign, in a shuffled-looking order.
fn batch_terms(bases: usize, rng: &mut impl rand::Rng) -> Vec<(usize, Fr)> {
    let half = Fr::from_bigint(Fr::MODULUS_MINUS_ONE_DIV_TWO).unwrap_or_default();
    let mut scalars = vec![
        Fr::zero(),
        Fr::one(),
        -Fr::one(),
        Fr::from(256u64),
        -Fr::from(256u64),
        half,
        half + Fr::one(),
        Fr::from(u128::MAX),
        -Fr::from(12345u64),
    ];
    scalars.extend((0..30).map(|_| Fr::rand(rng)));
    scalars
        .iter()
        .enumerate()
        .map(|(i, s)| ((i * 7) % bases, *s))
        .collect()
}

/// Checks `out` against plain scalar multiplication, as group elements and through
/// further arithmetic (addition, doubling) on their extended coordinates.
fn check_batch(bases: &[Element], terms: &[(usize, Fr)], out: &[Element]) {
    assert_eq!(out.len(), terms.len());
    for ((i, s), got) in terms.iter().zip(out) {
        let want = bases[*i] * *s;
        assert_eq!(*got, want, "base {i}, scalar {s}");
        assert_eq!(got.to_bytes(), want.to_bytes());
        assert_eq!(*got + bases[0], want + bases[0]);
        assert_eq!(*got + *got, want + want);
        let mut acc = bases[1];
        acc += *got;
        assert_eq!(acc, bases[1] + want);
    }
}

#[test]
fn many_products_match_scalar_mul() {
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..5)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    for w in [8u32, 13] {
        let t = FixedBaseTable::new(&bases, w);
        let terms = batch_terms(bases.len(), &mut rng);
        // Lengths around the eight lanes.
        for n in [0usize, 1, 7, 8, 9, 16, 17, terms.len()] {
            let mut out = vec![Element::identity(); n];
            t.mul_many(terms[..n].iter().map(|(i, s)| (*i, s)), &mut out);
            check_batch(&bases, &terms[..n], &out);
        }
        // Fewer terms than outputs: the rest is left alone.
        let marker = bases[4];
        let mut out = vec![marker; 12];
        t.mul_many(terms[..3].iter().map(|(i, s)| (*i, s)), &mut out);
        check_batch(&bases, &terms[..3], &out[..3]);
        assert!(out[3..].iter().all(|e| *e == marker));
        // More terms than outputs: only the first ones.
        let mut out = vec![marker; 5];
        t.mul_many(terms.iter().map(|(i, s)| (*i, s)), &mut out);
        check_batch(&bases, &terms[..5], &out);
        let far = std::panic::catch_unwind(|| {
            let one = Fr::one();
            t.mul_many([(0, &one), (5, &one)], &mut [Element::identity(); 2]);
        });
        assert!(far.is_err(), "base index 5 of 5 must panic");
        // The one-at-a-time path (processors without AVX-512 IFMA), whatever this
        // processor has.
        let mut out = vec![Element::identity(); terms.len()];
        t.mul_each(terms.iter().map(|(i, s)| (*i, s)), &mut out);
        check_batch(&bases, &terms, &out);
        let mut out = vec![marker; 4];
        t.mul_each(terms.iter().map(|(i, s)| (*i, s)), &mut out);
        check_batch(&bases, &terms[..4], &out);
    }
}

/// The 8-lane path itself (whatever the process-wide choice), when the processor has it.
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
#[test]
#[cfg_attr(
    not(build_host_has_ifma),
    ignore = "the build machine has no AVX-512 IFMA: the 8-lane path is not tested"
)]
fn lanes_match_scalar_mul() {
    let Some(ifma) = crate::field::ifma::Ifma::detect() else {
        eprintln!("no AVX-512 IFMA on this processor: the 8-lane path is not tested");
        return;
    };
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..5)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    for w in [8u32, 9, 13] {
        let t = FixedBaseTable::new(&bases, w);
        let terms = batch_terms(bases.len(), &mut rng);
        let mut out = vec![Element::identity(); terms.len()];
        t.mul_lanes(ifma, terms.iter().map(|(i, s)| (*i, s)), &mut out);
        check_batch(&bases, &terms, &out);
        // All eight lanes on one base, with zero digits in different windows.
        let same: Vec<(usize, Fr)> = (0..8u64)
            .map(|k| (3, Fr::from(1u64 << (8 * k)) + Fr::from(k)))
            .collect();
        let mut out = vec![Element::identity(); 8];
        t.mul_lanes(ifma, same.iter().map(|(i, s)| (*i, s)), &mut out);
        check_batch(&bases, &same, &out);
    }
}

#[test]
fn u128_table_matches_full_table() {
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..2)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    for w in [8u32, 13, 16] {
        let short = FixedBaseTable::with_scalar_bits(&bases, w, 128);
        assert_eq!(short.num_bases(), 2);
        assert_eq!(short.num_windows, (128 + w as usize) / w as usize);
        let mut values = vec![0u128, 1, u128::MAX, u128::MAX - 1, 1 << 127, (1 << 127) - 1];
        values.extend((0..20).map(|_| rand::Rng::gen::<u128>(&mut rng)));
        for &v in &values {
            let mut l = Lookups::default();
            short.lookup_u128(1, v, &mut l);
            let mut acc = Element::identity();
            short.add_lookups(&mut acc, &l);
            assert_eq!(acc, bases[1] * Fr::from(v), "w={w} v={v}");
        }
    }
    let t = FixedBaseTable::with_scalar_bits(&bases, 8, 40);
    let mut l = Lookups::default();
    t.lookup_u128(0, (1 << 40) - 1, &mut l);
    let mut acc = Element::identity();
    t.add_lookups(&mut acc, &l);
    assert_eq!(acc, bases[0] * Fr::from((1u64 << 40) - 1));
    let short = std::panic::catch_unwind(|| t.lookup_u128(0, 1 << 40, &mut Lookups::default()));
    assert!(short.is_err());
    assert!(std::panic::catch_unwind(|| t.mul(0, &Fr::one())).is_err());
}

#[test]
fn table_matches_scalar_mul() {
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..3)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    for w in [4u32, 8] {
        let t = FixedBaseTable::new(&bases, w);
        assert_eq!(t.num_bases(), 3);
        let sc: Vec<Fr> = (0..3).map(|_| Fr::rand(&mut rng)).collect();
        let expect: Element = bases.iter().zip(&sc).map(|(b, s)| *b * *s).sum();
        assert_eq!(t.msm(&sc), expect);
        assert_eq!(t.mul(1, &-Fr::one()), -bases[1]);
        // `mul` starts from its first entry (with either sign) instead of the identity.
        assert_eq!(t.mul(2, &Fr::zero()), Element::identity());
        assert_eq!(t.mul(2, &Fr::one()), bases[2]);
        for _ in 0..20 {
            let s = Fr::rand(&mut rng);
            for (i, b) in bases.iter().enumerate() {
                assert_eq!(t.mul(i, &s), *b * s, "w={w}");
                assert_eq!(t.mul(i, &-s), -(*b * s), "w={w}");
                // The point keeps its extended coordinate right for later additions.
                assert_eq!(t.mul(i, &s) + bases[0], *b * s + bases[0], "w={w}");
            }
        }
    }
}

/// Many accumulators at once (`add_lookups_many`), on the portable path and, when the
/// processor has it, the 8-lane path: the same group elements as one `add_lookups` each,
/// for batch sizes around the lane width, uneven lookup counts and empty lookups.
#[test]
fn add_lookups_many_matches_one_by_one() {
    let mut rng = rand::thread_rng();
    let bases: Vec<Element> = (0..4)
        .map(|_| Element::generator() * Fr::rand(&mut rng))
        .collect();
    let t = FixedBaseTable::with_scalar_bits(&bases, 13, 128);
    for n in [0usize, 1, 7, 8, 9, 17] {
        let lookups: Vec<Lookups> = (0..n)
            .map(|k| {
                let mut l = Lookups::default();
                for b in 0..(k % 5) {
                    let v = if k % 3 == 0 {
                        1u128 << (3 * b)
                    } else {
                        rand::Rng::gen(&mut rng)
                    };
                    t.lookup_u128(b % bases.len(), v, &mut l);
                }
                l
            })
            .collect();
        let starts: Vec<Element> = (0..n)
            .map(|_| Element::generator() * Fr::rand(&mut rng))
            .collect();
        let mut want = starts.clone();
        for (acc, l) in want.iter_mut().zip(&lookups) {
            t.add_lookups(acc, l);
        }
        // An extra accumulator without lookups stays as it was.
        let mut got = starts.clone();
        got.push(Element::generator());
        t.add_lookups_many(&mut got, &lookups);
        assert_eq!(got[..n], want[..], "{n} accumulators");
        assert_eq!(got[n], Element::generator());
        #[cfg(all(target_arch = "x86_64", feature = "asm"))]
        if let Some(ifma) = crate::field::ifma::Ifma::detect() {
            let mut got = starts.clone();
            t.add_lookups_lanes(ifma, &mut got, &lookups);
            assert_eq!(got, want, "{n} accumulators on the lanes");
        }
    }
}
