//! EIP-6800 leaf math: the scalars a leaf commits to (`spec/WIRE.md` §13).
//!
//! A leaf commits to `1, stem, map_to_scalar_field(C1), map_to_scalar_field(C2)`; its suffix
//! trees `C1`/`C2` commit to each value as two halves at `2(s mod 128)` and `2(s mod 128)+1`.
//! One copy for the verifier, the post-state root, the fractional verifier and the tree
//! (`verkle`), so the prover and the verifier cannot drift apart. Straight-line limb
//! arithmetic: no byte vectors, no generic big-integer reduction.

use banderwagon::arith::{One, PrimeField, Zero};
use banderwagon::Fr;

use crate::preset::STEM_LEN;

/// The scalar whose little-endian 64-bit limbs are `limbs`, when it is below r (always, for
/// the values built here: at most 2^248). One Montgomery multiplication, no byte buffers.
fn fr_from_limbs(limbs: [u64; 4]) -> Option<Fr> {
    let mut int = <Fr as PrimeField>::BigInt::from(0u64);
    for (dst, src) in int.as_mut().iter_mut().zip(limbs) {
        *dst = src;
    }
    Fr::from_bigint(int)
}

/// Little-endian 64-bit word `i` of `bytes`, zero-padded past the end.
fn le_word(bytes: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(chunk) = bytes.chunks(8).nth(i) {
        if let Some(dst) = w.get_mut(..chunk.len()) {
            dst.copy_from_slice(chunk);
        }
    }
    u64::from_le_bytes(w)
}

/// `(low + 2^128, high)` for a present value, `(0, 0)` for an absent one (`spec/WIRE.md` §13).
///
/// Both halves are below 2^129 < r, so each is a canonical scalar read straight from its
/// limbs (the 2^128 "value present" marker is limb 2's low bit).
pub fn value_halves(value: Option<&[u8; 32]>) -> (Fr, Fr) {
    match value {
        None => (Fr::zero(), Fr::zero()),
        Some(v) => {
            let low = [le_word(v, 0), le_word(v, 1), 1, 0];
            let high = [le_word(v, 2), le_word(v, 3), 0, 0];
            (
                fr_from_limbs(low).expect("below 2^129 < r"),
                fr_from_limbs(high).expect("below 2^128 < r"),
            )
        }
    }
}

/// The stem as a 31-byte little-endian integer (the leaf's value at z = 1): below 2^248 < r,
/// so read straight from its limbs.
pub fn stem_field(stem: &[u8; STEM_LEN]) -> Fr {
    let limbs = [
        le_word(stem, 0),
        le_word(stem, 1),
        le_word(stem, 2),
        le_word(stem, 3),
    ];
    fr_from_limbs(limbs).expect("below 2^248 < r")
}

/// Whether a node opened at `point` to `value` cannot be a leaf: a leaf's polynomial
/// `[1, stem, mtf(C1), mtf(C2), 0, …]` is 1 at index 0 and 0 at every index ≥ 4, so any other
/// value there proves the node internal (`spec/WIRE.md` §6.6, `spec/FRACTIONAL.md` §4.3).
pub fn rules_out_leaf(point: u8, value: &Fr) -> bool {
    (point == 0 && !value.is_one()) || (point >= 4 && !value.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;
    use banderwagon::arith::One;
    use banderwagon::fr_from_le_bytes_mod_order;
    use rand::{Rng, SeedableRng};

    /// [`value_halves`] of a present value by byte-wise reduction: the definition.
    fn value_halves_bytewise(v: &[u8; 32]) -> (Fr, Fr) {
        let (low, high) = v.split_at(16);
        let mut marked = [0u8; 17];
        marked[..16].copy_from_slice(low);
        marked[16] = 1;
        (
            fr_from_le_bytes_mod_order(&marked),
            fr_from_le_bytes_mod_order(high),
        )
    }

    #[test]
    fn limb_conversions_match_byte_reduction() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut values: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32], [0x80; 32]];
        for i in 0..32 {
            let mut v = [0u8; 32];
            v[i] = 1;
            values.push(v);
            let mut w = [0xffu8; 32];
            w[i] = 0;
            values.push(w);
        }
        values.extend((0..2000).map(|_| rng.gen::<[u8; 32]>()));
        for v in &values {
            assert_eq!(value_halves(Some(v)), value_halves_bytewise(v), "{v:02x?}");
            let stem: [u8; STEM_LEN] = v[..STEM_LEN].try_into().unwrap();
            assert_eq!(
                stem_field(&stem),
                fr_from_le_bytes_mod_order(&stem),
                "{stem:02x?}"
            );
        }
    }

    #[test]
    fn value_halves_mark_presence() {
        let (lo, hi) = value_halves(None);
        assert!(lo.is_zero() && hi.is_zero());
        let (lo, hi) = value_halves(Some(&[0; 32]));
        assert_eq!(lo, Fr::from(u128::MAX) + Fr::one());
        assert!(hi.is_zero());
        let mut v = [0u8; 32];
        v[0] = 5;
        v[16] = 7;
        let (lo, hi) = value_halves(Some(&v));
        assert_eq!(lo, Fr::from(u128::MAX) + Fr::from(6u64));
        assert_eq!(hi, Fr::from(7u64));
    }
}
