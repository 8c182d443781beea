//! Shards (`spec/FRACTIONAL.md` §1): which shard a stem routes to, and the coordinator root
//! folded from the touched shards' commitments and the siblings.

use crate::prelude::*;

use super::coordinator::{fold_multiproof, leaf_hash, MerkleProofError};
use super::verify_error::FractionalVerifyError;
use crate::preset::STEM_LEN;

/// The shard a stem routes to at shard depth `d` (§1).
pub fn shard_of(depth: u8, stem: &[u8; STEM_LEN]) -> u16 {
    if depth == 1 {
        u16::from(stem[0])
    } else {
        u16::from_be_bytes([stem[0], stem[1]])
    }
}

/// Folds the leaves of `shards` with the siblings `sibling(k)` (`given` of them) over
/// `8·depth` levels.
pub(super) fn fold_with<'a>(
    depth: u8,
    shards: &[(u16, [u8; 32])],
    sibling: impl FnMut(usize) -> Option<&'a [u8; 32]>,
    given: usize,
) -> Result<[u8; 32], FractionalVerifyError> {
    let leaves: Vec<(u32, [u8; 32])> = shards
        .iter()
        .map(|(i, c)| (u32::from(*i), leaf_hash(*i, c)))
        .collect();
    let (root, used) =
        fold_multiproof(8 * depth, &leaves, sibling).map_err(FractionalVerifyError::Siblings)?;
    if used != given {
        return Err(FractionalVerifyError::Siblings(
            MerkleProofError::TooManySiblings { got: given, used },
        ));
    }
    Ok(root)
}
