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

/// Swaps the items at `a` and `b` (each taken modulo the length), if there are any.
pub(crate) fn swap_at<T>(v: &mut [T], a: usize, b: usize) {
    if !v.is_empty() {
        let n = v.len();
        v.swap(a % n, b % n);
    }
}

/// A key's flags byte changed from `old` to `new` in the values section it governs: the key's
/// values start at `v` (its pre-value when bit 0 is set, then its new value when bit 1 is);
/// a value the new flags add is drawn by `draw`, the new value's first.
pub(crate) fn reflag(
    values: &mut Vec<[u8; 32]>,
    v: usize,
    old: u8,
    new: u8,
    mut draw: impl FnMut(&[[u8; 32]]) -> [u8; 32],
) {
    let set_at = v + usize::from(old & 1);
    if old & 2 != 0 && new & 2 == 0 {
        remove_at(values, set_at);
    } else if old & 2 == 0 && new & 2 != 0 {
        let x = draw(values);
        insert_at(values, set_at, x);
    }
    if old & 1 != 0 && new & 1 == 0 {
        remove_at(values, v);
    } else if old & 1 == 0 && new & 1 != 0 {
        let x = draw(values);
        insert_at(values, v, x);
    }
}

/// A value chosen by `c`: the key's true value (`truth`; a fresh one when it has none),
/// another of the witness's `values`, or a fresh one.
pub(crate) fn value_choice(
    c: &mut crate::fuzz::choices::Choices,
    values: &[[u8; 32]],
    truth: Option<[u8; 32]>,
) -> [u8; 32] {
    match c.below(3) {
        0 => truth.unwrap_or_else(|| c.value()),
        1 => values
            .get(c.below(values.len()))
            .copied()
            .unwrap_or_else(|| c.value()),
        _ => c.value(),
    }
}
