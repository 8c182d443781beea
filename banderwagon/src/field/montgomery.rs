//! Montgomery multiplication in `Fq`: the interface every backend implements ([`FieldMul`])
//! and the constants derived from the modulus that the backends (and the binary GCD of
//! `crate::inverse`) share.

use ark_ff::PrimeField;

use crate::Fq;

/// Montgomery multiplication and squaring in `Fq`, bit-identical to arkworks'.
pub(crate) trait FieldMul: Copy {
    /// `a·b`.
    fn mul(self, a: &Fq, b: &Fq) -> Fq;
    /// `a²`.
    fn square(self, a: &Fq) -> Fq;
}

/// `p`, the modulus of `Fq`, as four little-endian 64-bit words.
pub(crate) const MODULUS: [u64; 4] = <Fq as PrimeField>::MODULUS.0;

/// `−p⁻¹ mod 2⁶⁴`, the Montgomery reduction factor of one 64-bit word (narrower limbs take
/// its low bits: `−p⁻¹ mod 2ᵏ` is `NEG_P_INV mod 2ᵏ`).
#[cfg_attr(
    not(any(
        test,
        target_arch = "wasm32",
        all(target_arch = "x86_64", feature = "asm")
    )),
    allow(dead_code)
)]
pub(crate) const NEG_P_INV: u64 = neg_inverse_mod_2_64(MODULUS[0]);

/// `−x⁻¹ mod 2⁶⁴` for odd `x`, by Newton's iteration (each step doubles the correct bits).
pub(crate) const fn neg_inverse_mod_2_64(x: u64) -> u64 {
    let mut inv = 1u64;
    let mut i = 0;
    while i < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}

/// `k·p` as five little-endian 64-bit words, for small `k`.
#[cfg_attr(
    not(any(test, all(target_arch = "x86_64", feature = "asm"))),
    allow(dead_code)
)]
pub(crate) const fn modulus_times(k: u64) -> [u64; 5] {
    let mut out = [0u64; 5];
    let mut carry = 0u128;
    let mut i = 0;
    while i < 4 {
        let v = MODULUS[i] as u128 * k as u128 + carry;
        out[i] = v as u64;
        carry = v >> 64;
        i += 1;
    }
    out[4] = carry as u64;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neg_inverse_times_p_is_minus_one() {
        assert_eq!(MODULUS[0].wrapping_mul(NEG_P_INV), u64::MAX);
        let r0 = <crate::Fr as PrimeField>::MODULUS.0[0];
        assert_eq!(r0.wrapping_mul(neg_inverse_mod_2_64(r0)), u64::MAX);
    }

    #[test]
    fn multiples_of_the_modulus() {
        assert_eq!(
            modulus_times(1),
            [MODULUS[0], MODULUS[1], MODULUS[2], MODULUS[3], 0]
        );
        let two = modulus_times(2);
        // p < 2²⁵⁵, so 2p still fits four words.
        assert_eq!(two[4], 0);
        assert_eq!(two[0], MODULUS[0].wrapping_mul(2));
    }
}
