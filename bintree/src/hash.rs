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

/// BLAKE3 with its default 32-byte output (EIP-8297's reference hash).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blake3;

impl TreeHash for Blake3 {
    const NAME: &'static str = "blake3";

    #[inline]
    fn hash(parts: &[&[u8]]) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        for part in parts {
            hasher.update(part);
        }
        *hasher.finalize().as_bytes()
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
        assert_eq!(Sha256::hash(&[b"a", b"", b"bc"]), Sha256::hash(&[b"abc"]));
        assert_eq!(keccak256(&[]), EMPTY_CODE_HASH);
    }
}
