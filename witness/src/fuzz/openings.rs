//! The openings a verifier checks, for a hostile prover in the fuzz targets: a prover who
//! holds the whole tree edits a proof's structure, then proves the multiproof again over
//! whatever openings the edited proof makes the verifier check. It can do so exactly when
//! every one of them is a true evaluation of a polynomial it knows; the verifier must then
//! draw only true claims from the edited structure.
//!
//! The openings are those of the verifier itself (`crate::verify::prepare_parts`, stopped
//! before the multiproof's last step); for a fractional proof the internal witnesses'
//! openings are placed by the fractional verifier's own step (`spec/FRACTIONAL.md` §4.3).

use crate::prelude::*;

use banderwagon::Fr;
use ipa::{Opening, Transcript};

use crate::fractional::{
    add_internal_witnesses, start_transcript, FractionalProof, FractionalVerifyError,
};
use crate::verify::shape::Shape;
use crate::verify::{prepare_parts, VerifyError};
use crate::ExecutionWitness;

/// The standard witness's Fiat–Shamir label (EIP-6800's `"vt"`).
const WITNESS_TRANSCRIPT_LABEL: &[u8] = b"vt";

/// One opening the verifier checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckedOpening {
    /// The commitment opened, as the proof encodes it (the root first).
    pub commitment: [u8; 32],
    /// The domain point `z`.
    pub point: u8,
    /// The claimed value `y`.
    pub result: Fr,
}

/// Resolves commitment indices (the root 0, then `commitments_by_path`) to encodings.
fn resolve(
    root: &[u8; 32],
    commitments: &crate::view::Points<'_>,
    openings: &[Opening],
) -> Option<Vec<CheckedOpening>> {
    openings
        .iter()
        .map(|o| {
            let commitment = match o.commitment {
                0 => *root,
                k => *commitments.get(usize::try_from(k).ok()? - 1)?,
            };
            Some(CheckedOpening {
                commitment,
                point: o.point,
                result: o.result,
            })
        })
        .collect()
}

/// The openings `crate::verify` checks for `w` against `root`, in the verifier's order, and
/// the transcript a prover starts from.
///
/// # Errors
/// Whatever the verifier rejects before the multiproof's last step.
pub fn witness_openings(
    root: &[u8; 32],
    w: &ExecutionWitness,
) -> Result<(Vec<CheckedOpening>, Transcript), VerifyError> {
    crate::canonical::check_canonical(w)?;
    let proof = w.verkle_proof();
    let mut seen: Vec<Opening> = Vec::new();
    prepare_parts(root, w.state_diff(), &proof, |_, _, openings| {
        seen.clone_from(openings);
        Ok::<_, VerifyError>(Transcript::new(WITNESS_TRANSCRIPT_LABEL))
    })?;
    let out =
        resolve(root, &proof.commitments_by_path(), &seen).ok_or(VerifyError::ProofRejected)?;
    Ok((out, Transcript::new(WITNESS_TRANSCRIPT_LABEL)))
}

/// The openings `crate::fractional::verify_fractional` checks for `proof` (the internal
/// witnesses' included), in the verifier's order, and the transcript a prover starts from.
///
/// # Errors
/// Whatever the verifier rejects before the multiproof's last step and the anchor.
pub fn fractional_openings(
    proof: &FractionalProof,
) -> Result<(Vec<CheckedOpening>, Transcript), FractionalVerifyError> {
    let state_diff = proof.state_diff();
    let verkle_proof = proof.verkle_proof();
    crate::canonical::check_canonical_parts(state_diff, &verkle_proof)
        .map_err(VerifyError::NotCanonical)?;
    let mut seen: Vec<Opening> = Vec::new();
    prepare_parts(
        proof.state_root(),
        state_diff,
        &verkle_proof,
        |shape: &Shape, _fields: &[Fr], openings: &mut Vec<Opening>| {
            add_internal_witnesses(shape, openings, proof.internal_witnesses())?;
            seen.clone_from(openings);
            Ok::<_, FractionalVerifyError>(start_transcript(proof.body()))
        },
    )?;
    let out = resolve(
        proof.state_root(),
        &verkle_proof.commitments_by_path(),
        &seen,
    )
    .ok_or(VerifyError::ProofRejected)?;
    Ok((out, start_transcript(proof.body())))
}
