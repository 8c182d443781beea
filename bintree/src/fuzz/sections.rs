//! Reading a witness's sections for editing: a cursor that hands out the next bytes, or
//! nothing when too few remain, so that any bytes, however their counts lie, are read without
//! a panic and without allocating more than they hold.

use std::vec::Vec;

/// A cursor over witness bytes.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    /// The next `count` items of `N` bytes.
    pub(crate) fn chunks<const N: usize>(&mut self, count: usize) -> Option<Vec<[u8; N]>> {
        let s = self.take(count.checked_mul(N)?)?;
        Some(
            s.chunks_exact(N)
                .filter_map(|c| c.try_into().ok())
                .collect(),
        )
    }

    /// The bytes not read yet.
    pub(crate) fn peek(&self) -> &'a [u8] {
        self.bytes.get(self.at..).unwrap_or(&[])
    }

    /// The next little-endian u32, as a count.
    pub(crate) fn count(&mut self) -> Option<usize> {
        let b = self.take(4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    /// Whether every byte was read.
    pub(crate) fn is_done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// Appends `n` as a little-endian u32 (saturated).
pub(crate) fn put_count(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Inserts `item` at `at`, or at the end when `at` is past it.
pub(crate) fn insert_at<T>(v: &mut Vec<T>, at: usize, item: T) {
    let at = at.min(v.len());
    v.insert(at, item);
}

/// Removes the item at `at`, if there is one.
pub(crate) fn remove_at<T>(v: &mut Vec<T>, at: usize) -> Option<T> {
    (at < v.len()).then(|| v.remove(at))
}
