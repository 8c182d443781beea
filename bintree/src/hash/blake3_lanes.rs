//! BLAKE3 of two independent short messages at once on AVX2: one message in each 128-bit half
//! of the 256-bit registers.
//!
//! A BLAKE3 compression held as four rows of four words (the row form) is a chain of
//! dependent additions, XORs, rotations and shuffles: a lone message on SSE4.1 waits on that
//! chain and leaves most of the vector units idle. Every instruction the row form uses acts on
//! each 128-bit half of an AVX2 register on its own, so the same instruction stream on 256-bit
//! registers compresses two messages for about the cost of one. The compression is the BLAKE3
//! paper's §2.2 (the state's first two rows the chaining value, the third the IV's first half,
//! the fourth the counter, block length and flags; seven rounds of column and diagonal G
//! steps, the message words permuted between rounds); a message of at most one chunk is one or
//! two blocks here, flagged `CHUNK_START` on the first, `CHUNK_END | ROOT` on the last.
//!
//! With `sha_ni`, the crate's only `unsafe` code: the unaligned 16-byte loads of the blocks and
//! stores of the digests, each from or to 16 bytes of an array, and the call of the
//! `#[target_feature]` function after the run-time check that the processor has AVX2.

use core::arch::x86_64::*;

/// Whether this processor has AVX2 (checked once by the standard library, then an atomic
/// load).
#[inline]
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// Longest message this path hashes: two blocks.
pub(super) const MAX_LEN: usize = 128;

const IV: [u32; 8] = [
    0x6A09_E667,
    0xBB67_AE85,
    0x3C6E_F372,
    0xA54F_F53A,
    0x510E_527F,
    0x9B05_688C,
    0x1F83_D9AB,
    0x5BE0_CD19,
];

const CHUNK_START: u32 = 1;
const CHUNK_END: u32 = 2;
const ROOT: u32 = 8;

/// The digests of two messages of 65 to [`MAX_LEN`] bytes each (two blocks each), as
/// `blake3::hash` gives them: the messages are the first `lengths` bytes of `a` and `b`, whose
/// other bytes are zero.
pub(super) fn hash_two_block_pair(
    a: &[u8; MAX_LEN],
    b: &[u8; MAX_LEN],
    lengths: [usize; 2],
) -> Option<([u8; 32], [u8; 32])> {
    if !lengths.iter().all(|len| (65..=MAX_LEN).contains(len)) {
        return None;
    }
    // The second block's length: 1..=64, so the cast cannot truncate.
    let last = lengths.map(|len| (len - 64) as u32);
    // SAFETY: `available()` was checked by the caller before it chose this path (see
    // `super::Blake3::hash_two`), and `two_blocks_avx2` enables only AVX2.
    Some(unsafe { two_blocks_avx2(a, b, last) })
}

#[target_feature(enable = "avx2")]
fn two_blocks_avx2(a: &[u8; MAX_LEN], b: &[u8; MAX_LEN], last: [u32; 2]) -> ([u8; 32], [u8; 32]) {
    let (iv_low, iv_high) = (iv_half(0), iv_half(1));
    let first = _mm256_setr_epi32(0, 0, 64, CHUNK_START as i32, 0, 0, 64, CHUNK_START as i32);
    let (cv_low, cv_high) = compress(iv_low, iv_high, first, block(a, b, 0));
    let end = (CHUNK_END | ROOT) as i32;
    let second = _mm256_setr_epi32(0, 0, last[0] as i32, end, 0, 0, last[1] as i32, end);
    let (low, high) = compress(cv_low, cv_high, second, block(a, b, 1));
    // `low` holds words 0..4 of each message (a's in its low half), `high` words 4..8; the
    // words are little-endian, as the processor stores them.
    let mut out = [[0u8; 32]; 2];
    let halves = [
        (_mm256_castsi256_si128(low), _mm256_castsi256_si128(high)),
        (
            _mm256_extracti128_si256::<1>(low),
            _mm256_extracti128_si256::<1>(high),
        ),
    ];
    for (out, (words_low, words_high)) in out.iter_mut().zip(halves) {
        let (first, second) = out.split_at_mut(16);
        // SAFETY: `first` and `second` are 16 bytes each: one unaligned 16-byte store each.
        unsafe {
            _mm_storeu_si128(first.as_mut_ptr().cast(), words_low);
            _mm_storeu_si128(second.as_mut_ptr().cast(), words_high);
        }
    }
    (out[0], out[1])
}

/// Half `h` of the IV (words `4h..4h + 4`) in both halves of a register.
#[target_feature(enable = "avx2")]
#[inline]
fn iv_half(h: usize) -> __m256i {
    let w = |i: usize| IV[4 * h + i] as i32;
    _mm256_setr_epi32(w(0), w(1), w(2), w(3), w(0), w(1), w(2), w(3))
}

/// Block `k` (0 or 1) of both messages as four vectors of four words, `a`'s in the low half
/// and `b`'s in the high half of each: words 0..4, 4..8, 8..12, 12..16.
#[target_feature(enable = "avx2")]
#[inline]
fn block(a: &[u8; MAX_LEN], b: &[u8; MAX_LEN], k: usize) -> [__m256; 4] {
    let (a, b) = (&a[64 * k..64 * k + 64], &b[64 * k..64 * k + 64]);
    core::array::from_fn(|q| {
        let (x, y) = (&a[16 * q..16 * q + 16], &b[16 * q..16 * q + 16]);
        // SAFETY: `x` and `y` are 16 bytes each: one unaligned 16-byte load each.
        let (x, y) = unsafe {
            (
                _mm_loadu_si128(x.as_ptr().cast()),
                _mm_loadu_si128(y.as_ptr().cast()),
            )
        };
        _mm256_castsi256_ps(_mm256_set_m128i(y, x))
    })
}

/// One compression of both messages' block `[q0, q1, q2, q3]` (from [`block`]), from the
/// chaining values `cv_low` (words 0..4 of each) and `cv_high`
/// (words 4..8) and the fourth row `row3` (counter, block length, flags); returns the new
/// chaining values the same way.
#[target_feature(enable = "avx2")]
#[inline]
fn compress(
    cv_low: __m256i,
    cv_high: __m256i,
    row3: __m256i,
    [q0, q1, q2, q3]: [__m256; 4],
) -> (__m256i, __m256i) {
    let iv_low = iv_half(0);
    let (mut r0, mut r1, mut r2, mut r3) = (cv_low, cv_high, iv_low, row3);
    // The round's message words in the order G takes them: `m0` the even words of the
    // columns (0, 2, 4, 6), `m1` their odd words, `m2` and `m3` the diagonals' (8..16).
    let mut m0 = _mm256_shuffle_ps::<0b10_00_10_00>(q0, q1);
    let mut m1 = _mm256_shuffle_ps::<0b11_01_11_01>(q0, q1);
    let mut m2 = _mm256_shuffle_ps::<0b10_00_10_00>(q2, q3);
    let mut m3 = _mm256_shuffle_ps::<0b11_01_11_01>(q2, q3);
    for round in 0..7 {
        // Columns: G(0,4,8,12) with words 0,1; G(1,5,9,13) with 2,3; and so on.
        let (x, y) = (_mm256_castps_si256(m0), _mm256_castps_si256(m1));
        g(&mut r0, &mut r1, &mut r2, &mut r3, x, y);
        // Diagonals: rows turned so that G(0,5,10,15), G(1,6,11,12), G(2,7,8,13) and
        // G(3,4,9,14) line up as columns.
        r1 = _mm256_shuffle_epi32::<0x39>(r1);
        r2 = _mm256_shuffle_epi32::<0x4E>(r2);
        r3 = _mm256_shuffle_epi32::<0x93>(r3);
        let (x, y) = (_mm256_castps_si256(m2), _mm256_castps_si256(m3));
        g(&mut r0, &mut r1, &mut r2, &mut r3, x, y);
        r1 = _mm256_shuffle_epi32::<0x93>(r1);
        r2 = _mm256_shuffle_epi32::<0x4E>(r2);
        r3 = _mm256_shuffle_epi32::<0x39>(r3);
        if round < 6 {
            (m0, m1, m2, m3) = permute(m0, m1, m2, m3);
        }
    }
    (_mm256_xor_si256(r0, r2), _mm256_xor_si256(r1, r3))
}

/// The next round's message vectors: word `i` of the next round is word `PERMUTATION[i]` of
/// this one, with `PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]`.
/// Writing `s` for this round's words, `m0 = [s0 s2 s4 s6]`, `m1 = [s1 s3 s5 s7]`,
/// `m2 = [s8 s10 s12 s14]`, `m3 = [s9 s11 s13 s15]`, and the next round's are
/// `[s2 s3 s7 s4]`, `[s6 s10 s0 s13]`, `[s1 s12 s9 s15]`, `[s11 s5 s14 s8]`.
#[target_feature(enable = "avx2")]
#[inline]
fn permute(m0: __m256, m1: __m256, m2: __m256, m3: __m256) -> (__m256, __m256, __m256, __m256) {
    // [s2 s4 s3 s7] turned to [s2 s3 s7 s4].
    let t = _mm256_shuffle_ps::<0b11_01_10_01>(m0, m1);
    let n0 = _mm256_permute_ps::<0b01_11_10_00>(t);
    // [s8 s10 s13 s14], then [s6 s0 s10 s13] turned to [s6 s10 s0 s13].
    let c = _mm256_blend_ps::<0b0100_0100>(m2, m3);
    let t = _mm256_shuffle_ps::<0b10_01_00_11>(m0, c);
    let n1 = _mm256_permute_ps::<0b11_01_10_00>(t);
    // [s1 s3 s12 s7], then [s1 s12 s9 s15].
    let x = _mm256_blend_ps::<0b0100_0100>(m1, m2);
    let n2 = _mm256_shuffle_ps::<0b11_00_10_00>(x, m3);
    // [s9 s11 s5 s15], then [s11 s5 s14 s8].
    let y = _mm256_blend_ps::<0b0100_0100>(m3, m1);
    let n3 = _mm256_shuffle_ps::<0b00_11_10_01>(y, m2);
    (n0, n1, n2, n3)
}

/// The G function on four columns at once.
#[target_feature(enable = "avx2")]
#[inline]
fn g(a: &mut __m256i, b: &mut __m256i, c: &mut __m256i, d: &mut __m256i, mx: __m256i, my: __m256i) {
    // Byte shuffles that rotate each 32-bit word right by 16 and by 8.
    let rot16 = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    let rot8 = _mm256_setr_epi8(
        1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8,
        13, 14, 15, 12,
    );
    *a = _mm256_add_epi32(_mm256_add_epi32(*a, *b), mx);
    *d = _mm256_shuffle_epi8(_mm256_xor_si256(*d, *a), rot16);
    *c = _mm256_add_epi32(*c, *d);
    let x = _mm256_xor_si256(*b, *c);
    *b = _mm256_or_si256(_mm256_srli_epi32::<12>(x), _mm256_slli_epi32::<20>(x));
    *a = _mm256_add_epi32(_mm256_add_epi32(*a, *b), my);
    *d = _mm256_shuffle_epi8(_mm256_xor_si256(*d, *a), rot8);
    *c = _mm256_add_epi32(*c, *d);
    let x = _mm256_xor_si256(*b, *c);
    *b = _mm256_or_si256(_mm256_srli_epi32::<7>(x), _mm256_slli_epi32::<25>(x));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn padded(message: &[u8]) -> [u8; MAX_LEN] {
        let mut out = [0u8; MAX_LEN];
        out[..message.len()].copy_from_slice(message);
        out
    }

    #[test]
    #[cfg_attr(
        not(build_host_has_avx2),
        ignore = "the build machine has no AVX2: the two-message BLAKE3 path is not tested"
    )]
    fn pairs_equal_the_blake3_crate_at_every_two_block_length() {
        assert!(
            available(),
            "the build machine has AVX2, this processor must too"
        );
        let data: Vec<u8> = (0..2 * MAX_LEN as u32)
            .map(|i| (i.wrapping_mul(0x9E37_79B1) >> 13) as u8)
            .collect();
        for la in 65..=MAX_LEN {
            for lb in [65, 66, 67, 97, 127, 128, la] {
                let (a, b) = (&data[..la], &data[MAX_LEN..MAX_LEN + lb]);
                let Some((ha, hb)) = hash_two_block_pair(&padded(a), &padded(b), [la, lb]) else {
                    panic!("lengths {la} and {lb} are two blocks each");
                };
                assert_eq!(ha, *blake3::hash(a).as_bytes(), "a: {la} bytes beside {lb}");
                assert_eq!(hb, *blake3::hash(b).as_bytes(), "b: {lb} bytes beside {la}");
            }
        }
        // One block, or more than two: not this path.
        for (la, lb) in [(64, 100), (100, 64), (0, 70), (129, 70), (70, 200)] {
            let (a, b) = (&data[..la.min(MAX_LEN)], &data[..lb.min(MAX_LEN)]);
            let pair = hash_two_block_pair(&padded(a), &padded(b), [la, lb]);
            assert!(pair.is_none(), "{la} and {lb}");
        }
    }
}
