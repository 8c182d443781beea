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
}

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
        let mut message = [0u8; SHORT_MESSAGE];
        let mut len = 0;
        for part in parts {
            let Some(to) = message.get_mut(len..len + part.len()) else {
                let mut hasher = blake3::Hasher::new();
                for part in parts {
                    hasher.update(part);
                }
                return *hasher.finalize().as_bytes();
            };
            to.copy_from_slice(part);
            len += part.len();
        }
        *blake3::hash(&message[..len]).as_bytes()
    }
}

/// SHA-256 (go-ethereum's hash for its EIP-7864 tree).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sha256;

impl TreeHash for Sha256 {
    const NAME: &'static str = "sha256";

    #[inline]
    fn hash(parts: &[&[u8]]) -> [u8; 32] {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        for part in parts {
            hasher.update(part);
        }
        hasher.finalize().into()
    }
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
}
