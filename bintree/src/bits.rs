//! Bit strings read from byte strings, most significant bit first (both EIPs' `bytes_to_bits`).

use crate::prelude::*;

/// Bit `i` of `bytes` (bit 0 is the top bit of byte 0).
#[inline]
pub(crate) fn bit(bytes: &[u8], i: usize) -> u8 {
    (bytes[i / 8] >> (7 - i % 8)) & 1
}

/// Sets bit `i` of `bytes` to `value` (0 or 1).
#[inline]
pub(crate) fn set_bit(bytes: &mut [u8], i: usize, value: u8) {
    let mask = 0x80 >> (i % 8);
    bytes[i / 8] = (bytes[i / 8] & !mask) | (mask * value);
}

/// The first bit index in `from..limit` where `a` and `b` differ, or `limit` if they agree on
/// all of it. Both must hold at least `limit` bits.
#[inline]
pub(crate) fn first_difference(a: &[u8], b: &[u8], from: usize, limit: usize) -> usize {
    if from >= limit {
        return limit;
    }
    let mut byte = from / 8;
    // Bits of the first byte before `from` are not compared.
    let mut mask = 0xffu8 >> (from % 8);
    let last = (limit - 1) / 8;
    while byte <= last {
        let diff = (a[byte] ^ b[byte]) & mask;
        if diff != 0 {
            return core::cmp::min(byte * 8 + diff.leading_zeros() as usize, limit);
        }
        mask = 0xff;
        byte += 1;
    }
    limit
}

/// EIP-8297 `encode_bit_prefix` of bits `start..end` of `path`: the bit count as two bytes
/// big-endian, then the bits packed most significant first and zero-padded to a byte.
/// `end - start` is below 2^16 because keys are at most 8192 bytes.
pub(crate) fn encode_bit_prefix(path: &[u8], start: usize, end: usize, out: &mut Vec<u8>) {
    let len = end - start;
    out.clear();
    out.extend_from_slice(&(len as u16).to_be_bytes());
    let bytes = len.div_ceil(8);
    let shift = start % 8;
    let first = start / 8;
    for k in 0..bytes {
        let hi = path[first + k] << shift;
        let lo = if shift == 0 {
            0
        } else {
            path.get(first + k + 1).map_or(0, |b| b >> (8 - shift))
        };
        out.push(hi | lo);
    }
    // Zero the bits past `end`.
    if !len.is_multiple_of(8) {
        if let Some(last) = out.last_mut() {
            *last &= 0xffu8 << (8 - len % 8);
        }
    }
}

/// The positions of `keys` in key order (bytes compared one by one, a key before the longer
/// keys it starts), several writes of one key together with the last of them first, so that a
/// batch keeps the first of each run. Each key is sorted by its first eight bytes as one
/// number, its whole bytes compared only where those are equal (the same key, or keys that
/// share eight bytes): a batch of hash-derived keys sorts without a byte-by-byte comparison.
pub(crate) fn key_order<K: AsRef<[u8]>>(keys: &[K]) -> Vec<usize> {
    let head = |key: &[u8]| {
        let mut bytes = [0u8; 8];
        let n = key.len().min(8);
        bytes[..n].copy_from_slice(&key[..n]);
        u64::from_be_bytes(bytes)
    };
    // The first eight bytes zero-padded as a number: a smaller number is a smaller key (the
    // first byte that differs is a byte of both, or the padding of the key that ends first).
    let mut order: Vec<(u64, &[u8], core::cmp::Reverse<usize>)> = keys
        .iter()
        .enumerate()
        .map(|(at, key)| (head(key.as_ref()), key.as_ref(), core::cmp::Reverse(at)))
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, _, at)| at.0).collect()
}

/// The positions of the writes a batch keeps, in key order: of several writes of one key, the
/// last ([`key_order`], each run of one key cut to its first).
pub(crate) fn last_writes<K: AsRef<[u8]>>(keys: &[K]) -> Vec<usize> {
    let mut kept: Vec<usize> = Vec::with_capacity(keys.len());
    let mut previous: Option<&[u8]> = None;
    for at in key_order(keys) {
        let key = keys.get(at).map(AsRef::as_ref);
        if key != previous {
            kept.push(at);
            previous = key;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_and_prefixes() {
        let a = [0b1010_0000u8, 0xff];
        let b = [0b1011_0000u8, 0xff];
        assert_eq!(first_difference(&a, &b, 0, 16), 3);
        assert_eq!(first_difference(&a, &b, 4, 16), 16);
        assert_eq!(first_difference(&a, &b, 0, 2), 2);
        let mut out = Vec::new();
        encode_bit_prefix(&[0b1011_0110, 0b1100_0000], 2, 11, &mut out);
        assert_eq!(out, [0, 9, 0b1101_1011, 0b0000_0000]);
        encode_bit_prefix(&[0xff], 3, 3, &mut out);
        assert_eq!(out, [0, 0]);
        assert_eq!(bit(&a, 2), 1);
    }

    /// The order of byte strings, last write of a key first, for keys that share their first
    /// eight bytes, keys shorter than eight bytes, a key and its extensions, empty keys.
    #[test]
    fn key_order_is_byte_order_with_the_last_write_first() {
        let keys: Vec<Vec<u8>> = vec![
            vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
            vec![1, 2, 3, 4, 5, 6, 7, 8],
            vec![1, 2],
            vec![1, 2, 0],
            vec![],
            vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
            vec![0xff; 3],
            vec![1, 2, 3, 4, 5, 6, 7, 8, 0],
            vec![1, 2],
            vec![1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ];
        let mut expected: Vec<usize> = (0..keys.len()).collect();
        expected.sort_by(|&a, &b| keys[a].cmp(&keys[b]).then(b.cmp(&a)));
        assert_eq!(key_order(&keys), expected);
        assert_eq!(&expected[..3], &[4, 9, 8]);
        assert_eq!(key_order::<[u8; 0]>(&[]), Vec::<usize>::new());
    }

    /// One position per key, its last write, in key order.
    #[test]
    fn last_writes_keep_the_last_of_each_key() {
        let keys: [&[u8]; 6] = [&[2], &[1], &[2], &[1, 0], &[1], &[2]];
        assert_eq!(last_writes(&keys), [4, 3, 5]);
    }
}
