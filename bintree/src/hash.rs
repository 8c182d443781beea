//! The tree's hash function, chosen once as a type parameter.
//!
//! Both EIPs leave the hash open. EIP-8297's reference implementation and the older EIP-7864
//! text use BLAKE3; go-ethereum's EIP-7864 tree uses SHA-256. A tree is generic over
//! [`TreeHash`], so the choice is made once at the type and never branches in the hot loop.

/// A 32-byte hash of a message given in parts (the parts are hashed as their concatenation).
pub trait TreeHash: Send + Sync + 'static {
    /// A short name for messages and benchmarks (`"blake3"`, `"sha256"`).
    const NAME: &'static str;

    /// The digest of the concatenation of `parts`.
    fn hash(parts: &[&[u8]]) -> [u8; 32];

    /// The digests of independent 64-byte messages (two hashes, or a stem and a hash):
    /// `out[i] = hash(&[&messages[i]])` for each `i` below both lengths. A hash that can work
    /// on several messages at once (SHA-256 on SHA-NI: two interleaved) does so here; the
    /// default hashes them one by one.
    #[inline]
    fn hash64_many(messages: &[[u8; 64]], out: &mut [[u8; 32]]) {
        one_by_one::<Self, 64>(messages, out);
    }

    /// The digests of independent 32-byte messages (values), as [`TreeHash::hash64_many`].
    #[inline]
    fn hash32_many(messages: &[[u8; 32]], out: &mut [[u8; 32]]) {
        one_by_one::<Self, 32>(messages, out);
    }

    /// The digests of two independent messages given in parts, `[hash(a), hash(b)]`. A hash
    /// that can work on two messages at once (BLAKE3 on AVX2, two messages of two blocks
    /// each) does so here; the default hashes them one after the other.
    #[inline]
    fn hash_two(a: &[&[u8]], b: &[&[u8]]) -> [[u8; 32]; 2] {
        [Self::hash(a), Self::hash(b)]
    }
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod sha_ni;

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod blake3_lanes;

/// Longest message [`Blake3`] gathers on the stack before hashing it in one call.
const SHORT_MESSAGE: usize = 128;

/// BLAKE3 with its default 32-byte output (EIP-8297's reference hash).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blake3;

impl TreeHash for Blake3 {
    const NAME: &'static str = "blake3";

    #[inline]
    fn hash(parts: &[&[u8]]) -> [u8; 32] {
        // A node's message (a leaf's 67 bytes, a branch's 66 and up) fits one 1 KiB chunk:
        // gathered on the stack and hashed in one call, it skips the incremental hasher's
        // buffering between parts.
        let Some((message, len)) = gather(parts) else {
            let mut hasher = blake3::Hasher::new();
            for part in parts {
                hasher.update(part);
            }
            return *hasher.finalize().as_bytes();
        };
        *blake3::hash(&message[..len]).as_bytes()
    }

    #[inline]
    fn hash_two(a: &[&[u8]], b: &[&[u8]]) -> [[u8; 32]; 2] {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if blake3_lanes::available() {
            if let (Some((ma, la)), Some((mb, lb))) = (gather(a), gather(b)) {
                if let Some((ha, hb)) = blake3_lanes::hash_two_block_pair(&ma, &mb, [la, lb]) {
                    return [ha, hb];
                }
            }
        }
        [Self::hash(a), Self::hash(b)]
    }
}

/// The concatenation of `parts` on the stack and its length, if it fits [`SHORT_MESSAGE`].
#[inline]
fn gather(parts: &[&[u8]]) -> Option<([u8; SHORT_MESSAGE], usize)> {
    let mut message = [0u8; SHORT_MESSAGE];
    let mut len = 0;
    for part in parts {
        message
            .get_mut(len..len + part.len())?
            .copy_from_slice(part);
        len += part.len();
    }
    Some((message, len))
}

/// SHA-256 (go-ethereum's hash for its EIP-7864 tree).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sha256;

impl TreeHash for Sha256 {
    const NAME: &'static str = "sha256";

    #[inline]
    fn hash(parts: &[&[u8]]) -> [u8; 32] {
        // A node's message (a value's 32 bytes, two hashes' 64, a stem's 64) fits two blocks
        // with its padding: gathered and padded on the stack, it is compressed in one call,
        // without the incremental hasher's buffering and finalization.
        let mut message = [0u8; 2 * SHA256_BLOCK];
        let mut len = 0;
        for part in parts {
            match message.get_mut(len..len + part.len()) {
                Some(to) if len + part.len() <= SHA256_SHORT => to.copy_from_slice(part),
                _ => return sha256_incremental(parts),
            }
            len += part.len();
        }
        sha256_padded(message, len)
    }

    fn hash64_many(messages: &[[u8; 64]], out: &mut [[u8; 32]]) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if sha_ni::available() {
            let two = |a: &[u8; 64], b: &[u8; 64]| sha_ni::digest64_pair(SHA256_IV, a, b);
            return in_pairs::<Self, 64>(messages, out, two);
        }
        one_by_one::<Self, 64>(messages, out);
    }

    fn hash32_many(messages: &[[u8; 32]], out: &mut [[u8; 32]]) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if sha_ni::available() {
            // A 32-byte message and its padding: one block.
            let block = |message: &[u8; 32]| {
                let mut block = [0u8; SHA256_BLOCK];
                block[..32].copy_from_slice(message);
                block[32] = 0x80;
                block[SHA256_BLOCK - 8..].copy_from_slice(&256u64.to_be_bytes());
                block
            };
            let two = |a: &[u8; 32], b: &[u8; 32]| {
                sha_ni::digest_block_pair(SHA256_IV, &block(a), &block(b))
            };
            return in_pairs::<Self, 32>(messages, out, two);
        }
        one_by_one::<Self, 32>(messages, out);
    }
}

/// `out[i] = H::hash(&[&messages[i]])` for each `i` below both lengths.
fn one_by_one<H: TreeHash + ?Sized, const N: usize>(messages: &[[u8; N]], out: &mut [[u8; 32]]) {
    for (message, out) in messages.iter().zip(out) {
        *out = H::hash(&[message]);
    }
}

/// As [`one_by_one`], two messages at a time through `two`; an odd last one alone.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn in_pairs<H: TreeHash, const N: usize>(
    messages: &[[u8; N]],
    out: &mut [[u8; 32]],
    two: impl Fn(&[u8; N], &[u8; N]) -> ([u8; 32], [u8; 32]),
) {
    for (pair, to) in messages.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
        if let ([a, b], [x, y]) = (pair, to) {
            (*x, *y) = two(a, b);
        }
    }
    let done = messages.len().min(out.len()) & !1;
    if let (Some(last), Some(to)) = (messages.get(done), out.get_mut(done)) {
        *to = H::hash(&[last]);
    }
}

/// Bytes in a SHA-256 block.
const SHA256_BLOCK: usize = 64;

/// Longest message that fits two SHA-256 blocks with its padding (the `0x80` byte and the
/// 8-byte bit length).
const SHA256_SHORT: usize = 2 * SHA256_BLOCK - 9;

/// SHA-256's initial hash value.
const SHA256_IV: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// SHA-256 of the first `len` (at most [`SHA256_SHORT`]) bytes of `message`, whose other bytes
/// are zero: padded in place and compressed.
fn sha256_padded(mut message: [u8; 2 * SHA256_BLOCK], len: usize) -> [u8; 32] {
    type Block = sha2::digest::generic_array::GenericArray<u8, sha2::digest::consts::U64>;
    let blocks = if len + 9 <= SHA256_BLOCK { 1 } else { 2 };
    let end = blocks * SHA256_BLOCK;
    message[len] = 0x80;
    message[end - 8..end].copy_from_slice(&(8 * len as u64).to_be_bytes());
    let mut state = SHA256_IV;
    // Copied as slices (one `memcpy` each): `GenericArray::clone_from_slice` clones byte by
    // byte, which some builds (thin LTO) leave as a loop.
    let (first, second) = message.split_at(SHA256_BLOCK);
    let mut both = [Block::default(), Block::default()];
    both[0].copy_from_slice(first);
    both[1].copy_from_slice(second);
    sha2::compress256(&mut state, &both[..blocks]);
    let mut out = [0u8; 32];
    for (to, word) in out.chunks_exact_mut(4).zip(state) {
        to.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// SHA-256 of the concatenation of `parts` by the incremental hasher (messages past
/// [`SHA256_SHORT`] bytes).
fn sha256_incremental(parts: &[&[u8]]) -> [u8; 32] {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// Keccak-256, the hash of contract code (`code_hash`) whatever the tree's hash.
pub fn keccak256(data: &[u8]) -> [u8; 32] {
    use sha3::Digest;
    sha3::Keccak256::digest(data).into()
}

/// Keccak-256 of empty code: the code-hash leaf of an account without code.
pub const EMPTY_CODE_HASH: [u8; 32] = [
    0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03, 0xc0,
    0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_hash_as_their_concatenation() {
        assert_eq!(Blake3::hash(&[b"ab", b"c"]), Blake3::hash(&[b"abc"]));
        // Messages past the stack buffer, split at and across its end.
        let long: Vec<u8> = (0..300u16).map(|i| i as u8).collect();
        let whole = *blake3::hash(&long).as_bytes();
        for cut in [0, 1, 127, 128, 129, 200, 300] {
            let (a, b) = long.split_at(cut);
            assert_eq!(Blake3::hash(&[a, b]), whole, "cut at {cut}");
            assert_eq!(Blake3::hash(&[a, b, &[]]), whole, "cut at {cut}");
        }
        assert_eq!(Sha256::hash(&[b"a", b"", b"bc"]), Sha256::hash(&[b"abc"]));
        assert_eq!(keccak256(&[]), EMPTY_CODE_HASH);
    }

    #[test]
    fn sha256_equals_the_sha2_crate_at_every_length_and_cut() {
        use sha2::Digest;
        // Every length across the one-block, two-block and incremental paths, split at every
        // point into two parts and at two points into three.
        let long: Vec<u8> = (0..300u16).map(|i| (i * 7 + 3) as u8).collect();
        for len in 0..=200 {
            let message = &long[..len];
            let whole: [u8; 32] = sha2::Sha256::digest(message).into();
            assert_eq!(Sha256::hash(&[message]), whole, "length {len}");
            for cut in 0..=len {
                let (a, b) = message.split_at(cut);
                assert_eq!(Sha256::hash(&[a, b]), whole, "length {len} cut at {cut}");
                let third = (cut + len) / 2;
                let (b, c) = message[cut..].split_at(third - cut);
                assert_eq!(
                    Sha256::hash(&[a, b, c]),
                    whole,
                    "length {len} cuts {cut}, {third}"
                );
            }
        }
        // FIPS 180-4's two-block example.
        let abc = Sha256::hash(&[b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"]);
        assert_eq!(abc[..4], [0x24, 0x8d, 0x6a, 0x61]);
        assert_eq!(abc[28..], [0x19, 0xdb, 0x06, 0xc1]);
    }

    /// Two messages at once (two-block pairs on AVX2 where the processor has it) equal one
    /// at a time, in parts, at lengths on both sides of one block, two blocks and the stack
    /// buffer, the two lengths equal or not.
    #[test]
    fn two_messages_equal_one_at_a_time() {
        let data: Vec<u8> = (0..600u32).map(|i| (i * 13 + 5) as u8).collect();
        let lengths = [0, 1, 63, 64, 65, 66, 67, 100, 127, 128, 129, 200, 300];
        for la in lengths {
            for lb in lengths {
                let (a, b) = (&data[..la], &data[300..300 + lb]);
                let (a1, a2) = a.split_at(la / 3);
                let want = [Blake3::hash(&[a]), Blake3::hash(&[b])];
                assert_eq!(Blake3::hash_two(&[a1, a2], &[b]), want, "{la} and {lb}");
                assert_eq!(want[0], *blake3::hash(a).as_bytes(), "{la}");
                let want = [Sha256::hash(&[a]), Sha256::hash(&[b])];
                assert_eq!(Sha256::hash_two(&[a1, a2], &[b]), want, "{la} and {lb}");
            }
        }
    }

    /// The many-message paths (two interleaved on SHA-NI where the processor has it) equal one
    /// hash at a time, for every count (odd counts end with one message alone) and for
    /// messages that differ in every byte.
    #[test]
    fn many_messages_equal_one_at_a_time() {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        eprintln!("SHA-NI two-message path: {}", sha_ni::available());
        let m64: Vec<[u8; 64]> = (0..9u8)
            .map(|i| core::array::from_fn(|j| (j as u8).wrapping_mul(31) ^ i.wrapping_mul(97)))
            .collect();
        let m32: Vec<[u8; 32]> = m64
            .iter()
            .map(|m| core::array::from_fn(|j| m[j + 7]))
            .collect();
        for n in 0..=m64.len() {
            let mut out = vec![[0u8; 32]; n];
            Sha256::hash64_many(&m64[..n], &mut out);
            for (m, got) in m64.iter().zip(&out) {
                use sha2::Digest;
                let want: [u8; 32] = sha2::Sha256::digest(m).into();
                assert_eq!(*got, want, "{n} messages of 64 bytes");
            }
            Sha256::hash32_many(&m32[..n], &mut out);
            for (m, got) in m32.iter().zip(&out) {
                use sha2::Digest;
                let want: [u8; 32] = sha2::Sha256::digest(m).into();
                assert_eq!(*got, want, "{n} messages of 32 bytes");
            }
            Blake3::hash64_many(&m64[..n], &mut out);
            for (m, got) in m64.iter().zip(&out) {
                assert_eq!(*got, *blake3::hash(m).as_bytes(), "{n} BLAKE3 messages");
            }
        }
    }
}
