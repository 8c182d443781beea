//! The EIP-6800 Pedersen hash and `get_tree_key` (spec-facts §2 "Keys").
//!
//! `pedersen_hash(inp) = LE32(map_to_scalar_field(Σ ints_i·G_i))` with
//! `ints = [2 + 256·len(inp)] ‖ LE_u128 chunks of inp`. For the 64 bytes of a tree key only
//! G0..G4 are used; the first term is a constant and the address half is shared by every
//! key of one account, so [`AddressHasher`] precomputes both.

use std::sync::OnceLock;

use banderwagon::{fr_to_le_bytes, Element, Fr};

use crate::committer::Committer;

/// Longest input of [`pedersen_hash`]: 255 chunks of 16 bytes.
pub const MAX_PEDERSEN_INPUT: usize = 255 * 16;

fn chunk(bytes: &[u8]) -> Fr {
    let mut w = [0u8; 16];
    w[..bytes.len()].copy_from_slice(bytes);
    Fr::from(u128::from_le_bytes(w))
}

/// The Pedersen hash of up to [`MAX_PEDERSEN_INPUT`] bytes, or `None` if longer.
pub fn pedersen_hash(committer: &Committer, input: &[u8]) -> Option<[u8; 32]> {
    if input.len() > MAX_PEDERSEN_INPUT {
        return None;
    }
    let mut terms = Vec::with_capacity(1 + input.len().div_ceil(16));
    terms.push((0usize, Fr::from(2 + 256 * input.len() as u64)));
    for (i, c) in input.chunks(16).enumerate() {
        terms.push((i + 1, chunk(c)));
    }
    let p = committer.commit_sparse(&terms);
    Some(fr_to_le_bytes(&p.map_to_scalar_field()))
}

/// `16386·G0`: the constant first term of every 64-byte hash.
fn header_term(committer: &Committer) -> Element {
    static T: OnceLock<Element> = OnceLock::new();
    *T.get_or_init(|| committer.scalar_mul(0, &Fr::from(2u64 + 256 * 64)))
}

/// The Pedersen hash of 64 bytes (`hash64`).
pub fn hash64(committer: &Committer, input: &[u8; 64]) -> [u8; 32] {
    let mut acc = header_term(committer);
    let terms: Vec<(usize, Fr)> = input
        .chunks(16)
        .enumerate()
        .map(|(i, c)| (i + 1, chunk(c)))
        .collect();
    acc += committer.commit_sparse(&terms);
    fr_to_le_bytes(&acc.map_to_scalar_field())
}

/// `get_tree_key(address32, tree_index, sub_index)`: the first 31 bytes of
/// `pedersen_hash(address32 ‖ LE32(tree_index))` followed by `sub_index`.
/// `tree_index` is the 256-bit index in little-endian bytes.
pub fn get_tree_key(
    committer: &Committer,
    address: &[u8; 32],
    tree_index: &[u8; 32],
    sub_index: u8,
) -> [u8; 32] {
    AddressHasher::new(committer, address).tree_key(tree_index, sub_index)
}

/// Tree keys of one account: the address half of the hash computed once.
#[derive(Clone, Debug)]
pub struct AddressHasher<'c> {
    committer: &'c Committer,
    partial: Element,
}

impl<'c> AddressHasher<'c> {
    /// Precomputes `16386·G0 + addr_lo·G1 + addr_hi·G2`.
    pub fn new(committer: &'c Committer, address: &[u8; 32]) -> Self {
        let mut partial = header_term(committer);
        partial +=
            committer.commit_sparse(&[(1, chunk(&address[..16])), (2, chunk(&address[16..]))]);
        AddressHasher { committer, partial }
    }

    /// The stem (31 bytes) for `tree_index` (little-endian 256-bit).
    pub fn stem(&self, tree_index: &[u8; 32]) -> [u8; 31] {
        let mut acc = self.partial;
        let lo = chunk(&tree_index[..16]);
        let hi = chunk(&tree_index[16..]);
        acc += self.committer.commit_sparse(&[(3, lo), (4, hi)]);
        let h = fr_to_le_bytes(&acc.map_to_scalar_field());
        let mut stem = [0u8; 31];
        stem.copy_from_slice(&h[..31]);
        stem
    }

    /// The full 32-byte tree key.
    pub fn tree_key(&self, tree_index: &[u8; 32], sub_index: u8) -> [u8; 32] {
        let mut key = [0u8; 32];
        key[..31].copy_from_slice(&self.stem(tree_index));
        key[31] = sub_index;
        key
    }
}
