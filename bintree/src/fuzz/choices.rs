//! A fuzzer input read as a sequence of choices: which tree, which scenario, and each edit of
//! the honest witness with its arguments, taken from the next bytes.

/// Bytes consumed one choice at a time; once they run out every choice is 0, so any input,
/// the empty one included, is a valid sequence of choices.
#[derive(Clone, Debug)]
pub struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Choices<'a> {
    /// Choices read from `data`.
    pub fn new(data: &'a [u8]) -> Choices<'a> {
        Choices { data, at: 0 }
    }

    /// Whether every byte has been consumed.
    pub fn is_exhausted(&self) -> bool {
        self.at >= self.data.len()
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        b
    }

    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A number in `0..n` from one byte (two when `n` exceeds 256); 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let raw = if n > 256 {
            usize::from(u16::from_le_bytes([self.byte(), self.byte()]))
        } else {
            usize::from(self.byte())
        };
        raw % n
    }

    /// True when the next byte's low bit is set.
    pub fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// A random-looking 32-byte value: the next byte seeds it, so that one input byte
    /// chooses among 256 distinct values.
    pub fn value(&mut self) -> [u8; 32] {
        let mut rng = super::rng::Rng::new(0x6a09_e667_f3bc_c908 ^ u64::from(self.byte()));
        rng.bytes()
    }

    /// One bit of `v` flipped, chosen by the next byte (two for long slices); nothing for
    /// an empty slice.
    pub fn flip(&mut self, v: &mut [u8]) {
        let bit = self.below(v.len() * 8);
        if let Some(b) = v.get_mut(bit / 8) {
            *b ^= 0x80 >> (bit % 8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_past_the_end_are_zero_and_in_range() {
        let mut c = Choices::new(&[7, 255, 3]);
        assert_eq!(c.below(5), 2);
        assert_eq!(
            c.below(300),
            usize::from(u16::from_le_bytes([255, 3])) % 300
        );
        assert!(c.is_exhausted());
        assert_eq!(c.byte(), 0);
        assert_eq!(c.below(9), 0);
        assert_eq!(c.u32(), 0);
        assert_ne!(Choices::new(&[1]).value(), Choices::new(&[2]).value());
        let mut v = [0u8; 2];
        Choices::new(&[9]).flip(&mut v);
        assert_eq!(v, [0, 0x40]);
    }
}
