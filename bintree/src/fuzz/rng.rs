//! SplitMix64: a small deterministic generator for the honest trees and blocks of the fuzz
//! bodies and of the tests.

/// SplitMix64 over a 64-bit state.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// `N` bytes, one draw each.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = self.next_u64() as u8;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_draws_and_below_stays_in_range() {
        let (mut a, mut b) = (Rng::new(9), Rng::new(9));
        assert_eq!(a.bytes::<32>(), b.bytes::<32>());
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
        for n in 1..50 {
            assert!(a.below(n) < n);
        }
        assert_eq!(a.below(0), 0);
    }
}
