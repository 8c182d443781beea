//! A tree key: a 31-byte stem naming a leaf node, then a 1-byte suffix naming one of its
//! 256 values.

/// The 31-byte stem of a tree key: which leaf node.
pub type Stem = [u8; 31];
/// A 32-byte tree key: stem ‖ suffix.
pub type TreeKey = [u8; 32];
/// A 32-byte leaf value.
pub type Value = [u8; 32];

/// Bytes in a stem.
pub const STEM_LEN: usize = 31;

/// The stem of a key.
pub fn stem(key: &TreeKey) -> Stem {
    split_key(key).0
}

/// The suffix (last byte) of a key.
pub fn suffix(key: &TreeKey) -> u8 {
    key[31]
}

/// `(stem, suffix)`.
pub fn split_key(key: &TreeKey) -> (Stem, u8) {
    let mut s = [0u8; STEM_LEN];
    s.copy_from_slice(&key[..STEM_LEN]);
    (s, key[STEM_LEN])
}

/// `stem ‖ suffix`.
pub fn join_key(stem: &Stem, suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..STEM_LEN].copy_from_slice(stem);
    k[STEM_LEN] = suffix;
    k
}
