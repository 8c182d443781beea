//! SHA-256 of two independent messages at once on the x86 SHA extensions (SHA-NI).
//!
//! One SHA-256 block is 64 rounds in a chain: each `sha256rnds2` (two rounds) waits for the
//! one before it, so a lone message leaves the unit idle between them (on AMD Zen 3 a round
//! pair has a latency of 4 cycles and a throughput of one every 2). Two messages' rounds
//! interleaved fill those gaps. The compression itself is FIPS 180-4 §6.2.2 with the state
//! held as the instructions want it (`ABEF`, `CDGH`).
//!
//! With `blake3_lanes`, the crate's only `unsafe` code: the unaligned 16-byte loads and
//! stores, each from or to an array of the right size, and the call of the `#[target_feature]`
//! function after the run-time check that the processor has the features it enables.

use core::arch::x86_64::*;

/// Whether this processor has SHA-NI and the SSE levels the compression uses (checked once by
/// the standard library, then an atomic load).
#[inline]
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("sha")
        && std::is_x86_feature_detected!("sse4.1")
        && std::is_x86_feature_detected!("ssse3")
}

/// FIPS 180-4 §4.2.2: the round constants.
const K: [u32; 64] = [
    0x428a_2f98,
    0x7137_4491,
    0xb5c0_fbcf,
    0xe9b5_dba5,
    0x3956_c25b,
    0x59f1_11f1,
    0x923f_82a4,
    0xab1c_5ed5,
    0xd807_aa98,
    0x1283_5b01,
    0x2431_85be,
    0x550c_7dc3,
    0x72be_5d74,
    0x80de_b1fe,
    0x9bdc_06a7,
    0xc19b_f174,
    0xe49b_69c1,
    0xefbe_4786,
    0x0fc1_9dc6,
    0x240c_a1cc,
    0x2de9_2c6f,
    0x4a74_84aa,
    0x5cb0_a9dc,
    0x76f9_88da,
    0x983e_5152,
    0xa831_c66d,
    0xb003_27c8,
    0xbf59_7fc7,
    0xc6e0_0bf3,
    0xd5a7_9147,
    0x06ca_6351,
    0x1429_2967,
    0x27b7_0a85,
    0x2e1b_2138,
    0x4d2c_6dfc,
    0x5338_0d13,
    0x650a_7354,
    0x766a_0abb,
    0x81c2_c92e,
    0x9272_2c85,
    0xa2bf_e8a1,
    0xa81a_664b,
    0xc24b_8b70,
    0xc76c_51a3,
    0xd192_e819,
    0xd699_0624,
    0xf40e_3585,
    0x106a_a070,
    0x19a4_c116,
    0x1e37_6c08,
    0x2748_774c,
    0x34b0_bcb5,
    0x391c_0cb3,
    0x4ed8_aa4a,
    0x5b9c_ca4f,
    0x682e_6ff3,
    0x748f_82ee,
    0x78a5_636f,
    0x84c8_7814,
    0x8cc7_0208,
    0x90be_fffa,
    0xa450_6ceb,
    0xbef9_a3f7,
    0xc671_78f2,
];

/// The message schedule plus round constants (`W[t] + K[t]`) of the block that pads a 64-byte
/// message: `0x80`, zeros, and the bit length 512. The same for every 64-byte message, so
/// computed once at compile time.
const PAD64_WK: [u32; 64] = pad64_schedule();

const fn pad64_schedule() -> [u32; 64] {
    let mut w = [0u32; 64];
    w[0] = 0x8000_0000;
    w[15] = 512;
    let mut t = 16;
    while t < 64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16]
            .wrapping_add(s0)
            .wrapping_add(w[t - 7])
            .wrapping_add(s1);
        t += 1;
    }
    let mut t = 0;
    while t < 64 {
        w[t] = w[t].wrapping_add(K[t]);
        t += 1;
    }
    w
}

/// SHA-256 of two 64-byte messages (two blocks each: the message, then the padding block).
pub(super) fn digest64_pair(iv: [u32; 8], a: &[u8; 64], b: &[u8; 64]) -> ([u8; 32], [u8; 32]) {
    // SAFETY: `available()` was checked by the caller before it chose this path (see
    // `super::Sha256::hash64_many`), and the target features enabled on `pair64` are those it
    // checks.
    unsafe { pair64(iv, a, b) }
}

/// SHA-256 of two messages of at most 55 bytes given padded to one block each (`super` pads
/// them).
pub(super) fn digest_block_pair(iv: [u32; 8], a: &[u8; 64], b: &[u8; 64]) -> ([u8; 32], [u8; 32]) {
    // SAFETY: as in `digest64_pair`.
    unsafe { pair_block(iv, a, b) }
}

#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn pair64(iv: [u32; 8], a: &[u8; 64], b: &[u8; 64]) -> ([u8; 32], [u8; 32]) {
    let (mut a0, mut a1) = initial(iv);
    let (mut b0, mut b1) = (a0, a1);
    compress_pair(&mut a0, &mut a1, &mut b0, &mut b1, a, b);
    pad_pair(&mut a0, &mut a1, &mut b0, &mut b1);
    (digest(a0, a1), digest(b0, b1))
}

#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn pair_block(iv: [u32; 8], a: &[u8; 64], b: &[u8; 64]) -> ([u8; 32], [u8; 32]) {
    let (mut a0, mut a1) = initial(iv);
    let (mut b0, mut b1) = (a0, a1);
    compress_pair(&mut a0, &mut a1, &mut b0, &mut b1, a, b);
    (digest(a0, a1), digest(b0, b1))
}

/// The initial hash value `iv` (FIPS 180-4 §5.3.3) as (`ABEF`, `CDGH`).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn initial(iv: [u32; 8]) -> (__m128i, __m128i) {
    let [a, b, c, d, e, f, g, h] = iv;
    // `_mm_set_epi32` takes the highest lane first.
    (
        _mm_set_epi32(a as i32, b as i32, e as i32, f as i32),
        _mm_set_epi32(c as i32, d as i32, g as i32, h as i32),
    )
}

/// The digest of a state held as (`ABEF`, `CDGH`): the words big-endian in order A..H.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn digest(abef: __m128i, cdgh: __m128i) -> [u8; 32] {
    let words = [
        _mm_extract_epi32::<3>(abef),
        _mm_extract_epi32::<2>(abef),
        _mm_extract_epi32::<3>(cdgh),
        _mm_extract_epi32::<2>(cdgh),
        _mm_extract_epi32::<1>(abef),
        _mm_extract_epi32::<0>(abef),
        _mm_extract_epi32::<1>(cdgh),
        _mm_extract_epi32::<0>(cdgh),
    ];
    let mut out = [0u8; 32];
    for (to, word) in out.chunks_exact_mut(4).zip(words) {
        to.copy_from_slice(&(word as u32).to_be_bytes());
    }
    out
}

/// Loads four big-endian message words.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn load_be(bytes: &[u8; 16]) -> __m128i {
    let swap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    // SAFETY: `bytes` is 16 readable bytes; the load is unaligned.
    let raw = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    _mm_shuffle_epi8(raw, swap)
}

/// Loads four words of `W[t] + K[t]` precomputed.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn load_words(words: &[u32; 4]) -> __m128i {
    // SAFETY: `words` is 16 readable bytes; the load is unaligned.
    unsafe { _mm_loadu_si128(words.as_ptr().cast()) }
}

/// Four rounds on both states, given each one's `W[t..t+4] + K[t..t+4]`.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn rounds4(
    a0: &mut __m128i,
    a1: &mut __m128i,
    b0: &mut __m128i,
    b1: &mut __m128i,
    wa: __m128i,
    wb: __m128i,
) {
    *a1 = _mm_sha256rnds2_epu32(*a1, *a0, wa);
    *b1 = _mm_sha256rnds2_epu32(*b1, *b0, wb);
    *a0 = _mm_sha256rnds2_epu32(*a0, *a1, _mm_shuffle_epi32::<0x0e>(wa));
    *b0 = _mm_sha256rnds2_epu32(*b0, *b1, _mm_shuffle_epi32::<0x0e>(wb));
}

/// The next four schedule words from the last sixteen (`w[0]` oldest): FIPS 180-4 §6.2.2
/// step 1, `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]`.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn schedule(w: &[__m128i; 4]) -> __m128i {
    let next = _mm_sha256msg1_epu32(w[0], w[1]);
    let next = _mm_add_epi32(next, _mm_alignr_epi8::<4>(w[3], w[2]));
    _mm_sha256msg2_epu32(next, w[3])
}

/// A block's sixteen message words, big-endian, four to a vector.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn block_words(block: &[u8; 64]) -> [__m128i; 4] {
    let mut quarters = [[0u8; 16]; 4];
    for (quarter, bytes) in quarters.iter_mut().zip(block.chunks_exact(16)) {
        quarter.copy_from_slice(bytes);
    }
    [
        load_be(&quarters[0]),
        load_be(&quarters[1]),
        load_be(&quarters[2]),
        load_be(&quarters[3]),
    ]
}

/// One block of each message compressed into its state (the two interleaved).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn compress_pair(
    a0: &mut __m128i,
    a1: &mut __m128i,
    b0: &mut __m128i,
    b1: &mut __m128i,
    a: &[u8; 64],
    b: &[u8; 64],
) {
    let (sa0, sa1, sb0, sb1) = (*a0, *a1, *b0, *b1);
    let (mut wa, mut wb) = (block_words(a), block_words(b));
    for group in 0..16 {
        if group >= 4 {
            let (na, nb) = (schedule(&wa), schedule(&wb));
            wa = [wa[1], wa[2], wa[3], na];
            wb = [wb[1], wb[2], wb[3], nb];
        }
        let slot = if group >= 4 { 3 } else { group };
        let mut k = [0u32; 4];
        k.copy_from_slice(&K[4 * group..4 * group + 4]);
        let k = load_words(&k);
        let (xa, xb) = (_mm_add_epi32(wa[slot], k), _mm_add_epi32(wb[slot], k));
        rounds4(a0, a1, b0, b1, xa, xb);
    }
    *a0 = _mm_add_epi32(*a0, sa0);
    *a1 = _mm_add_epi32(*a1, sa1);
    *b0 = _mm_add_epi32(*b0, sb0);
    *b1 = _mm_add_epi32(*b1, sb1);
}

/// The padding block of a 64-byte message compressed into both states: its schedule is the
/// same for every such message ([`PAD64_WK`]).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn pad_pair(a0: &mut __m128i, a1: &mut __m128i, b0: &mut __m128i, b1: &mut __m128i) {
    let (sa0, sa1, sb0, sb1) = (*a0, *a1, *b0, *b1);
    for group in 0..16 {
        let mut w = [0u32; 4];
        w.copy_from_slice(&PAD64_WK[4 * group..4 * group + 4]);
        let w = load_words(&w);
        rounds4(a0, a1, b0, b1, w, w);
    }
    *a0 = _mm_add_epi32(*a0, sa0);
    *a1 = _mm_add_epi32(*a1, sa1);
    *b0 = _mm_add_epi32(*b0, sb0);
    *b1 = _mm_add_epi32(*b1, sb1);
}
