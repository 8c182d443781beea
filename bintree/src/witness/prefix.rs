//! EIP-8297 branch prefixes as owned bit strings, for the post-state walk: cut from a key,
//! joined on a collapse, hashed with `encode_bit_prefix`.

use crate::bits::bit;
use crate::prelude::*;

/// A bit string, packed most significant bit first, the bits past `len` zero.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Prefix {
    bytes: Vec<u8>,
    len: usize,
}

impl Prefix {
    /// Bits `from..to` of `key`.
    pub(crate) fn of_key(key: &[u8], from: usize, to: usize) -> Self {
        let mut p = Prefix::default();
        for i in from..to {
            p.push(bit(key, i));
        }
        p
    }

    /// `len` bits packed in `bytes` (the bits past `len` are ignored).
    pub(crate) fn of_packed(bytes: &[u8], len: usize) -> Self {
        Prefix::of_key(bytes, 0, len)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bit `i` (`i < len`).
    pub(crate) fn get(&self, i: usize) -> u8 {
        bit(&self.bytes, i)
    }

    pub(crate) fn push(&mut self, b: u8) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if b != 0 {
            if let Some(last) = self.bytes.last_mut() {
                *last |= 0x80 >> (self.len % 8);
            }
        }
        self.len += 1;
    }

    /// Appends `other`.
    pub(crate) fn append(&mut self, other: &Prefix) {
        for i in 0..other.len {
            self.push(other.get(i));
        }
    }

    /// The bits from `from` on.
    pub(crate) fn tail(&self, from: usize) -> Prefix {
        let mut p = Prefix::default();
        for i in from..self.len {
            p.push(self.get(i));
        }
        p
    }

    /// `encode_bit_prefix`: the bit count as two bytes big-endian, then the packed bits.
    pub(crate) fn encoded_len(&self) -> [u8; 2] {
        (self.len as u16).to_be_bytes()
    }

    /// The packed bits.
    pub(crate) fn packed(&self) -> &[u8] {
        &self.bytes
    }
}
