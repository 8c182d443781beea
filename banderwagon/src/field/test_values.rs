//! Field values at the edges of the representations, shared by the backends' tests and the
//! algorithms built on them.

use ark_ff::{Field, One, PrimeField, Zero};

use crate::Fq;

/// Values at the edges of the Montgomery representation.
pub(crate) fn edge_values() -> Vec<Fq> {
    let mut v = vec![
        Fq::zero(),
        Fq::one(),
        -Fq::one(),
        -Fq::from(2u64),
        Fq::from(2u64),
        // R mod p as a value: the Montgomery word of R² mod p.
        Fq::from_bigint(Fq::R).unwrap_or_default(),
        Fq::from_bigint(Fq::R2).unwrap_or_default(),
        Fq::from_bigint(Fq::MODULUS_MINUS_ONE_DIV_TWO).unwrap_or_default(),
    ];
    // Raw words with all-ones limbs, top limbs near 2²⁵⁵ (kept below p), single bits.
    let p = Fq::MODULUS.0;
    for raw in [
        [u64::MAX, u64::MAX, u64::MAX, 0],
        [u64::MAX, u64::MAX, u64::MAX, p[3] - 1],
        [0, 0, 0, p[3] - 1],
        [p[0] - 1, p[1], p[2], p[3]],
        [p[0] - 2, p[1], p[2], p[3]],
        [1, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [0, 0, 0, 1 << 62],
        [u64::MAX, 0, u64::MAX, 0],
    ] {
        v.push(Fq::new_unchecked(ark_ff::BigInt(raw)));
    }
    for k in [63u64, 64, 128, 254] {
        let x = Fq::from(2u64).pow([k]);
        v.push(x);
        v.push(-x);
    }
    let squares: Vec<Fq> = v.iter().map(|x| x.square()).collect();
    v.extend(squares);
    v
}
