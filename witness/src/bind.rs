//! What a prover adds to a witness so that every absence in it is bound (`spec/WIRE.md` §6.6).
//!
//! An absence is unbound when some internal node on its path is opened only where a leaf's
//! polynomial could give the same values. Opening that node at index 0 settles it: the
//! value there is the field of child 0 (0 when the slot is empty), which is never 1 for a
//! real child but with negligible probability, while a leaf's value at 0 is always 1. The
//! key `path ‖ 0 ‖ 0 … 0` with suffix 0 is read through child 0 whatever the tree holds
//! there (an existing stem, an other stem's leaf, or an empty slot), and every node below
//! the unproven one on its path is opened at index 0 as well, so the key's own path is
//! bound too.

use crate::prelude::*;

use crate::preset::STEM_LEN;
use crate::verify::{ExtensionStatus, VerifiedWitness};

impl VerifiedWitness {
    /// The keys a prover adds (as reads) to make every absence of this witness bound: for
    /// each internal node on an unbound absence's path that is not
    /// [proven internal](crate::ProvenNode::proven_internal), the key `path ‖ 0 … 0` (stem
    /// padded with zero bytes, suffix 0). Ascending, without duplicates and without keys
    /// the witness already proves. Empty when every absence is bound.
    ///
    /// Proving the original keys plus these against the same state gives an ordinary
    /// EIP-6800 witness whose absences are all bound.
    pub fn binding_keys(&self) -> Vec<[u8; 32]> {
        let mut out: Vec<[u8; 32]> = Vec::new();
        for s in self.stems().iter().filter(|s| !s.bound) {
            if s.status != ExtensionStatus::AbsentEmpty {
                continue;
            }
            for d in 1..usize::from(s.depth) {
                let Some(prefix) = s.stem.get(..d) else { break };
                if self.node(prefix).is_some_and(|n| n.proven_internal) {
                    continue;
                }
                let mut key = [0u8; 32];
                if let Some(dst) = key.get_mut(..d) {
                    dst.copy_from_slice(prefix);
                }
                debug_assert!(d < STEM_LEN);
                if self.current_value(&key).is_none() {
                    out.push(key);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Why [`prove_bound`] could not give a witness with every absence bound.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BindError<E> {
    /// The prover failed.
    #[error("proving: {0}")]
    Prove(E),
    /// The prover's witness could not be laid out as SSZ.
    #[error("laying out the proven witness: {0}")]
    Ssz(#[from] crate::SszError),
    /// The prover's witness does not verify against the root it was given: the root is not
    /// the prover's state root, or the prover is wrong.
    #[error("the proven witness does not verify against the given root: {0}")]
    Verify(#[from] crate::VerifyError),
    /// After adding the binding keys some absence is still unbound: a child's field at
    /// index 0 was 1, which happens with negligible probability.
    #[error("{0} absences still unbound after adding the binding keys")]
    StillUnbound(usize),
}

/// Proves `keys` (with the new values a block writes) through `prove`, a prover over the
/// state whose root is `root`, and makes every absence bound: verifies the result, and when
/// it has unbound absences proves once more with [`VerifiedWitness::binding_keys`] added
/// as reads (no new value). Returns the witness and the number of keys added (0: the
/// witness is the plain prover's, byte for byte).
pub fn prove_bound<E>(
    root: &[u8; 32],
    keys: &[([u8; 32], Option<[u8; 32]>)],
    mut prove: impl FnMut(
        &[([u8; 32], Option<[u8; 32]>)],
    ) -> Result<crate::owned::OwnedExecutionWitness, E>,
) -> Result<(crate::owned::OwnedExecutionWitness, usize), BindError<E>> {
    let first = prove(keys).map_err(BindError::Prove)?;
    let proven = crate::verify(root, &first.to_witness()?)?;
    let extra = proven.binding_keys();
    if extra.is_empty() {
        return Ok((first, 0));
    }
    let mut all = keys.to_vec();
    // Binding keys are reads; none is a key of the block (binding_keys leaves those out).
    all.extend(extra.iter().map(|k| (*k, None)));
    let second = prove(&all).map_err(BindError::Prove)?;
    let proven = crate::verify(root, &second.to_witness()?)?;
    match proven.unbound_absences() {
        0 => Ok((second, extra.len())),
        n => Err(BindError::StillUnbound(n)),
    }
}
