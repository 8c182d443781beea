//! Conversions between [`Fr`] and the 32-byte little-endian form used on the wire.

use ark_ff::{BigInteger, PrimeField};

use crate::Fr;

/// Why 32 bytes are not a canonical scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScalarDecodeError {
    /// The byte string was not 32 bytes long.
    #[error("scalar must be 32 bytes, got {got}")]
    WrongLength {
        /// The length received.
        got: usize,
    },
    /// The integer is not below the group order r.
    #[error("scalar is not reduced: value >= r")]
    NotReduced,
}

/// Reads 32 little-endian bytes as an integer and reduces it modulo r.
pub fn fr_from_le_bytes_mod_order(bytes: &[u8]) -> Fr {
    Fr::from_le_bytes_mod_order(bytes)
}

/// Reads a canonical 32-byte little-endian scalar, rejecting values `>= r`.
pub fn fr_from_le_bytes_canonical(bytes: &[u8]) -> Result<Fr, ScalarDecodeError> {
    let arr: &[u8; 32] = bytes
        .try_into()
        .map_err(|_| ScalarDecodeError::WrongLength { got: bytes.len() })?;
    let mut limbs = [0u64; 4];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&arr[8 * i..8 * i + 8]);
        *limb = u64::from_le_bytes(w);
    }
    Fr::from_bigint(ark_ff::BigInt::new(limbs)).ok_or(ScalarDecodeError::NotReduced)
}

/// The canonical 32-byte little-endian encoding of a scalar.
pub fn fr_to_le_bytes(s: &Fr) -> [u8; 32] {
    let bytes = s.into_bigint().to_bytes_le();
    let mut out = [0u8; 32];
    out.copy_from_slice(&bytes[..32]);
    out
}

/// A scalar from a 128-bit integer.
pub fn fr_from_u128(v: u128) -> Fr {
    Fr::from(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{One, Zero};

    #[test]
    fn le_round_trip_and_rejection() {
        let minus_one = -Fr::one();
        let bytes = fr_to_le_bytes(&minus_one);
        assert_eq!(fr_from_le_bytes_canonical(&bytes).unwrap(), minus_one);
        // r itself is not canonical.
        let r = hex::decode("1cfb69d4ca675f520cce760202687600ff8f87007419047174fd06b52876e7e1")
            .unwrap();
        let mut r_le = r.clone();
        r_le.reverse();
        assert_eq!(
            fr_from_le_bytes_canonical(&r_le),
            Err(ScalarDecodeError::NotReduced)
        );
        assert_eq!(fr_from_le_bytes_mod_order(&r_le), Fr::zero());
        assert_eq!(
            fr_from_le_bytes_canonical(&[0u8; 31]),
            Err(ScalarDecodeError::WrongLength { got: 31 })
        );
    }
}
