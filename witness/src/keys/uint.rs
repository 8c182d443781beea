//! `U256`: the 256-bit unsigned integers of tree positions, balances and storage slots.
//!
//! Only what the key derivation and the account layouts need: byte conversions, checked
//! addition and multiplication by a small factor, shifts, and parsing of decimal and `0x`
//! hexadecimal strings (genesis files use both). Every operation that could overflow is
//! checked; nothing wraps silently.

use core::cmp::Ordering;
use core::fmt;

/// A 256-bit unsigned integer (four little-endian 64-bit limbs).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct U256([u64; 4]);

/// Why a string is not a 256-bit unsigned integer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseU256Error {
    /// The string (after an optional `0x`) has no digits.
    #[error("no digits")]
    Empty,
    /// A character that is not a digit of the base.
    #[error("invalid digit {found:?} at position {position}")]
    InvalidDigit {
        /// Byte offset of the character in the string.
        position: usize,
        /// The character found.
        found: char,
    },
    /// The number is at least 2^256.
    #[error("number does not fit in 256 bits")]
    Overflow,
}

impl U256 {
    /// Zero.
    pub const ZERO: U256 = U256([0; 4]);
    /// 2^256 − 1.
    pub const MAX: U256 = U256([u64::MAX; 4]);

    /// From four 64-bit limbs, least significant first.
    pub const fn from_limbs(limbs: [u64; 4]) -> U256 {
        U256(limbs)
    }

    /// A 64-bit value.
    pub const fn from_u64(v: u64) -> U256 {
        U256([v, 0, 0, 0])
    }

    /// `2^n` for `n < 256`; `None` otherwise.
    pub const fn pow2(n: u32) -> Option<U256> {
        if n >= 256 {
            return None;
        }
        let mut limbs = [0u64; 4];
        limbs[(n / 64) as usize] = 1u64 << (n % 64);
        Some(U256(limbs))
    }

    /// Reads 32 big-endian bytes.
    pub fn from_be_bytes(bytes: &[u8; 32]) -> U256 {
        let mut limbs = [0u64; 4];
        for (i, limb) in limbs.iter_mut().enumerate() {
            let start = 32 - 8 * (i + 1);
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[start..start + 8]);
            *limb = u64::from_be_bytes(w);
        }
        U256(limbs)
    }

    /// Reads up to 32 big-endian bytes (shorter input is a smaller number); `None` if longer.
    pub fn from_be_slice(bytes: &[u8]) -> Option<U256> {
        if bytes.len() > 32 {
            return None;
        }
        let mut full = [0u8; 32];
        full[32 - bytes.len()..].copy_from_slice(bytes);
        Some(U256::from_be_bytes(&full))
    }

    /// The 32 big-endian bytes.
    pub fn to_be_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, limb) in self.0.iter().enumerate() {
            let start = 32 - 8 * (i + 1);
            out[start..start + 8].copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    /// Reads 32 little-endian bytes.
    pub fn from_le_bytes(bytes: &[u8; 32]) -> U256 {
        let mut be = *bytes;
        be.reverse();
        U256::from_be_bytes(&be)
    }

    /// The 32 little-endian bytes (the form `get_tree_key` takes a tree index in).
    pub fn to_le_bytes(&self) -> [u8; 32] {
        let mut out = self.to_be_bytes();
        out.reverse();
        out
    }

    /// `self + rhs`, or `None` on overflow.
    pub fn checked_add(&self, rhs: &U256) -> Option<U256> {
        let mut out = [0u64; 4];
        let mut carry = false;
        for i in 0..4 {
            let (s1, c1) = self.0[i].overflowing_add(rhs.0[i]);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            out[i] = s2;
            carry = c1 || c2;
        }
        (!carry).then_some(U256(out))
    }

    /// `self · m`, or `None` on overflow.
    pub fn checked_mul_u64(&self, m: u64) -> Option<U256> {
        let mut out = [0u64; 4];
        let mut carry: u128 = 0;
        for i in 0..4 {
            let p = u128::from(self.0[i]) * u128::from(m) + carry;
            out[i] = p as u64;
            carry = p >> 64;
        }
        (carry == 0).then_some(U256(out))
    }

    /// `self >> bits`; zero when `bits >= 256`.
    pub fn shr(&self, bits: u32) -> U256 {
        if bits >= 256 {
            return U256::ZERO;
        }
        let limb_shift = (bits / 64) as usize;
        let bit_shift = bits % 64;
        let mut out = [0u64; 4];
        for i in 0..4 - limb_shift {
            let lo = self.0[i + limb_shift] >> bit_shift;
            let hi = if bit_shift > 0 && i + limb_shift + 1 < 4 {
                self.0[i + limb_shift + 1] << (64 - bit_shift)
            } else {
                0
            };
            out[i] = lo | hi;
        }
        U256(out)
    }

    /// The least significant byte (`self mod 256`).
    pub fn low_u8(&self) -> u8 {
        self.0[0] as u8
    }

    /// The value as `u64` if it fits.
    pub fn to_u64(&self) -> Option<u64> {
        (self.0[1] == 0 && self.0[2] == 0 && self.0[3] == 0).then_some(self.0[0])
    }

    /// The number of significant bits (0 for zero).
    pub fn bit_len(&self) -> u32 {
        for i in (0..4).rev() {
            if self.0[i] != 0 {
                return 64 * i as u32 + (64 - self.0[i].leading_zeros());
            }
        }
        0
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }

    /// Parses digits in `radix` (10 or 16); `offset` is added to reported positions.
    fn parse_radix(digits: &str, radix: u32, offset: usize) -> Result<U256, ParseU256Error> {
        if digits.is_empty() {
            return Err(ParseU256Error::Empty);
        }
        let mut acc = U256::ZERO;
        for (i, ch) in digits.char_indices() {
            let d = ch.to_digit(radix).ok_or(ParseU256Error::InvalidDigit {
                position: offset + i,
                found: ch,
            })?;
            acc = acc
                .checked_mul_u64(u64::from(radix))
                .and_then(|a| a.checked_add(&U256::from_u64(u64::from(d))))
                .ok_or(ParseU256Error::Overflow)?;
        }
        Ok(acc)
    }

    /// Parses a decimal string (digits only).
    pub fn from_dec_str(s: &str) -> Result<U256, ParseU256Error> {
        U256::parse_radix(s, 10, 0)
    }

    /// Parses `0x`/`0X`-prefixed hexadecimal, or decimal without a prefix (the two forms geth
    /// accepts for genesis balances and nonces).
    pub fn parse(s: &str) -> Result<U256, ParseU256Error> {
        match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(hex) => U256::parse_radix(hex, 16, 2),
            None => U256::from_dec_str(s),
        }
    }
}

impl Ord for U256 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for U256 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for U256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "U256(0x{})", hex::encode(self.to_be_bytes()))
    }
}

impl From<u64> for U256 {
    fn from(v: u64) -> Self {
        U256::from_u64(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_decimal_and_hex() {
        assert_eq!(U256::parse("0").unwrap(), U256::ZERO);
        assert_eq!(U256::parse("0x00").unwrap(), U256::ZERO);
        assert_eq!(U256::parse("1000").unwrap(), U256::from_u64(1000));
        assert_eq!(
            U256::parse("0x3635c9adc5dea00000").unwrap(),
            U256::parse("1000000000000000000000").unwrap()
        );
        let max_dec =
            "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(U256::parse(max_dec).unwrap(), U256::MAX);
        assert_eq!(
            U256::parse(&format!("0x{}", "f".repeat(64))).unwrap(),
            U256::MAX
        );
        // 2^256 overflows, in both bases.
        assert_eq!(
            U256::parse(
                "115792089237316195423570985008687907853269984665640564039457584007913129639936"
            ),
            Err(ParseU256Error::Overflow)
        );
        assert_eq!(
            U256::parse(&format!("0x1{}", "0".repeat(64))),
            Err(ParseU256Error::Overflow)
        );
        assert_eq!(U256::parse("0x"), Err(ParseU256Error::Empty));
        assert_eq!(U256::parse(""), Err(ParseU256Error::Empty));
        assert_eq!(
            U256::parse("12a"),
            Err(ParseU256Error::InvalidDigit {
                position: 2,
                found: 'a'
            })
        );
        assert_eq!(
            U256::parse("0x1g"),
            Err(ParseU256Error::InvalidDigit {
                position: 3,
                found: 'g'
            })
        );
    }

    #[test]
    fn bytes_shift_and_order() {
        let mut be = [0u8; 32];
        for (i, b) in be.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        let v = U256::from_be_bytes(&be);
        assert_eq!(v.to_be_bytes(), be);
        let mut le = be;
        le.reverse();
        assert_eq!(v.to_le_bytes(), le);
        assert_eq!(U256::from_le_bytes(&le), v);
        // Shifting by 8 drops the last byte.
        let mut shifted = [0u8; 32];
        shifted[1..].copy_from_slice(&be[..31]);
        assert_eq!(v.shr(8).to_be_bytes(), shifted);
        assert_eq!(v.shr(0), v);
        assert_eq!(v.shr(256), U256::ZERO);
        assert_eq!(U256::MAX.shr(255), U256::from_u64(1));
        assert_eq!(U256::MAX.shr(64).bit_len(), 192);
        assert_eq!(v.low_u8(), 32);
        assert!(U256::pow2(255).unwrap() > U256::pow2(254).unwrap());
        assert!(U256::from_u64(u64::MAX) < U256::pow2(64).unwrap());
        assert_eq!(U256::pow2(256), None);
        assert_eq!(U256::MAX.checked_add(&U256::from_u64(1)), None);
        assert_eq!(U256::pow2(255).unwrap().checked_mul_u64(2), None);
        assert_eq!(U256::from_be_slice(&[1, 0]), Some(U256::from_u64(256)));
        assert_eq!(U256::from_be_slice(&[0; 33]), None);
    }
}
