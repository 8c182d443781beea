//! A fuzzer input read as a sequence of choices, for the structure-aware targets: each
//! edit of an honest proof takes its kind and its arguments from the next bytes.

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
        let seed = self.byte();
        let mut out = [0u8; 32];
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(seed);
        for chunk in out.chunks_mut(8) {
            x = mix(x);
            chunk.copy_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// One bit of `v` flipped, chosen by the next byte.
    pub fn flip<const N: usize>(&mut self, v: &mut [u8; N]) {
        let bit = self.below(N * 8);
        if let Some(b) = v.get_mut(bit / 8) {
            *b ^= 1 << (bit % 8);
        }
    }
}

/// SplitMix64's output function: the deterministic values of the honest trees.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// 32 deterministic bytes from `seed`.
pub fn bytes32(seed: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut x = seed;
    for chunk in out.chunks_mut(8) {
        x = mix(x);
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    out
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
        assert_ne!(Choices::new(&[1]).value(), Choices::new(&[2]).value());
    }
}
