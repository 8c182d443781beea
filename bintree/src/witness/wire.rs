//! Reading the witness bytes: bounded slices with typed errors, the header, little-endian
//! counts, the sibling bitmap.

use super::{broken, Rule, WitnessError, HASH_SHA256, VERSION};

/// A cursor over the witness bytes that hands out sub-slices (views), never copies.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, offset: 0 }
    }

    /// Bytes read so far.
    pub(crate) fn position(&self) -> usize {
        self.offset
    }

    /// The next `count · size` bytes as one slice.
    pub(crate) fn take(
        &mut self,
        section: &'static str,
        count: usize,
        size: usize,
    ) -> Result<&'a [u8], WitnessError> {
        let available = self.bytes.len() - self.offset;
        let needed = count.checked_mul(size).ok_or(WitnessError::Truncated {
            section,
            offset: self.offset,
            needed: usize::MAX,
            available,
        })?;
        if needed > available {
            return Err(WitnessError::Truncated {
                section,
                offset: self.offset,
                needed,
                available,
            });
        }
        let slice = &self.bytes[self.offset..self.offset + needed];
        self.offset += needed;
        Ok(slice)
    }

    pub(crate) fn u8(&mut self, section: &'static str) -> Result<u8, WitnessError> {
        Ok(self.take(section, 1, 1)?[0])
    }

    /// A little-endian u32 count, checked against `max` before the caller reads anything.
    pub(crate) fn count(&mut self, field: &'static str, max: usize) -> Result<usize, WitnessError> {
        let b = self.take(field, 1, 4)?;
        let count = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if count as u64 > max as u64 {
            return Err(WitnessError::Limit {
                field,
                count: u64::from(count),
                max: max as u64,
            });
        }
        Ok(count as usize)
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(&self) -> Result<(), WitnessError> {
        if self.offset != self.bytes.len() {
            return Err(WitnessError::Trailing {
                offset: self.offset,
                extra: self.bytes.len() - self.offset,
            });
        }
        Ok(())
    }
}

/// Reads and checks the three header bytes: version, tree, hash.
pub(crate) fn header(reader: &mut Reader<'_>, tree: u8, hash: u8) -> Result<(), WitnessError> {
    if reader.u8("version")? != VERSION {
        return Err(broken(Rule::Version, "offset", 0));
    }
    if reader.u8("tree")? != tree {
        return Err(broken(Rule::TreeKind, "offset", 1));
    }
    let got = reader.u8("hash")?;
    if got != hash || !(HASH_SHA256..=super::HASH_BLAKE3).contains(&got) {
        return Err(broken(Rule::HashKind, "offset", 2));
    }
    Ok(())
}

/// Checks the bitmap of `slots` sibling bits: the padding bits are zero and the 1 bits are
/// `hashes` many.
pub(crate) fn check_bitmap(bitmap: &[u8], slots: usize, hashes: usize) -> Result<(), WitnessError> {
    if !slots.is_multiple_of(8) {
        if let Some(last) = bitmap.last() {
            if last & (0xffu8 >> (slots % 8)) != 0 {
                return Err(broken(Rule::BitmapPadding, "sibling", slots));
            }
        }
    }
    let ones: usize = bitmap.iter().map(|b| b.count_ones() as usize).sum();
    if ones != hashes {
        return Err(broken(Rule::HashCount, "hash", ones));
    }
    Ok(())
}

/// Checks that no 32-byte hash in `hashes` is zero.
pub(crate) fn check_hashes(hashes: &[u8]) -> Result<(), WitnessError> {
    for (i, h) in hashes.chunks_exact(32).enumerate() {
        if h.iter().all(|&b| b == 0) {
            return Err(broken(Rule::ZeroHash, "hash", i));
        }
    }
    Ok(())
}

/// The sibling stream: the bitmap says, slot by slot in canonical order, whether the sibling
/// is empty (0: 32 zero bytes) or the next hash (1).
pub(crate) struct Siblings<'a> {
    bitmap: &'a [u8],
    slots: usize,
    hashes: &'a [u8],
    slot: usize,
    hash: usize,
}

impl<'a> Siblings<'a> {
    pub(crate) fn new(bitmap: &'a [u8], slots: usize, hashes: &'a [u8]) -> Self {
        Siblings {
            bitmap,
            slots,
            hashes,
            slot: 0,
            hash: 0,
        }
    }

    /// The next sibling's hash.
    pub(crate) fn next(&mut self) -> Result<[u8; 32], WitnessError> {
        if self.slot >= self.slots {
            return Err(broken(Rule::SiblingCount, "sibling", self.slot));
        }
        let byte = self.bitmap.get(self.slot / 8).copied().unwrap_or(0);
        let bit = (byte >> (7 - self.slot % 8)) & 1;
        self.slot += 1;
        if bit == 0 {
            return Ok([0u8; 32]);
        }
        let start = self.hash * 32;
        let h =
            self.hashes
                .get(start..start + 32)
                .ok_or(broken(Rule::HashCount, "hash", self.hash))?;
        self.hash += 1;
        let mut out = [0u8; 32];
        out.copy_from_slice(h);
        Ok(out)
    }

    /// Fails unless every slot was used.
    pub(crate) fn finish(&self) -> Result<(), WitnessError> {
        if self.slot != self.slots {
            return Err(broken(Rule::SiblingCount, "sibling", self.slot));
        }
        Ok(())
    }
}

/// Appends sibling bits and hashes in canonical order (the prover's side of [`Siblings`]).
#[derive(Default)]
pub(crate) struct SiblingWriter {
    pub(crate) bitmap: alloc::vec::Vec<u8>,
    pub(crate) slots: usize,
    pub(crate) hashes: alloc::vec::Vec<u8>,
}

impl SiblingWriter {
    pub(crate) fn push(&mut self, hash: &[u8; 32]) {
        if self.slots.is_multiple_of(8) {
            self.bitmap.push(0);
        }
        if *hash != [0u8; 32] {
            if let Some(last) = self.bitmap.last_mut() {
                *last |= 0x80 >> (self.slots % 8);
            }
            self.hashes.extend_from_slice(hash);
        }
        self.slots += 1;
    }

    pub(crate) fn hash_count(&self) -> usize {
        self.hashes.len() / 32
    }
}

/// Appends a little-endian u32 count.
pub(crate) fn put_count(out: &mut alloc::vec::Vec<u8>, count: usize) {
    out.extend_from_slice(&(count as u32).to_le_bytes());
}

/// The first index in `lo..hi` where `left` is false; `left` holds on a prefix of the range
/// (the items share the bits above and are sorted).
pub(crate) fn partition(mut lo: usize, mut hi: usize, left: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if left(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
