//! Every point of the witness decompressed once, in parallel, and mapped to the scalar
//! field in batches.

use crate::prelude::*;

#[cfg(feature = "test-support")]
use core::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use banderwagon::arith::Zero;
use banderwagon::{fr_from_le_bytes_canonical, DecodeError, Element, Fr};
use ipa::{MultiProof, ProofDecodeError, IPA_ROUNDS};

use crate::view::{Points, VerkleProof};

use super::error::*;

/// The decompressed points of a witness.
pub(super) struct DecodedPoints {
    /// The proof's [`PROOF_POINTS`] points, the root, then `commitments_by_path` in order.
    pub(super) elements: Vec<Element>,
    /// `map_to_scalar_field` of each of `elements`.
    pub(super) fields: Vec<Fr>,
    /// The multiproof `D ‖ L ‖ R ‖ a`.
    pub(super) multiproof: MultiProof,
}

/// Number of points in a multiproof: `D`, then `L_0..L_7`, then `R_0..R_7`.
pub(super) const PROOF_POINTS: usize = 1 + 2 * IPA_ROUNDS;

/// Decompresses (with the subgroup check) every point of the witness — the proof's `D`,
/// `L_i`, `R_i`, the root and `commitments_by_path` — and maps each to the scalar field, in
/// one pass of parallel chunks (one field inversion per chunk).
///
/// Errors are those a sequential decoder meets first: the proof (`d`, `cl`, `cr`, then the
/// final scalar), then the root, then the first bad commitment.
pub(super) fn decode_points(
    pre_state_root: &[u8; 32],
    commitments: Points<'_>,
    proof: &VerkleProof<'_>,
) -> Result<DecodedPoints, VerifyError> {
    let ipa_proof = proof.ipa_proof();
    let mut encodings: Vec<&[u8; 32]> = Vec::with_capacity(PROOF_POINTS + 1 + commitments.len());
    encodings.push(proof.d());
    encodings.extend(ipa_proof.cl);
    encodings.extend(ipa_proof.cr);
    encodings.push(pre_state_root);
    encodings.extend(commitments.iter());
    let (elements, fields, first_error) = decode_and_map(&encodings);

    let tree_error = match first_error {
        Some((index, source)) if index < PROOF_POINTS => {
            return Err(VerifyError::from_proof_decode(ProofDecodeError::BadPoint {
                index,
                source,
            }))
        }
        Some((index, source)) => Some(match index - PROOF_POINTS {
            0 => VerifyError::BadRoot(source),
            i => VerifyError::BadPoint {
                index: i - 1,
                source,
            },
        }),
        None => None,
    };
    let a = fr_from_le_bytes_canonical(ipa_proof.final_evaluation)
        .map_err(|_| VerifyError::from_proof_decode(ProofDecodeError::BadScalar))?;
    if let Some(e) = tree_error {
        return Err(e);
    }
    let mut points = [Element::identity(); PROOF_POINTS];
    for (slot, p) in points.iter_mut().zip(&elements) {
        *slot = *p;
    }
    let [d, lr @ ..] = points;
    let mut l = [Element::identity(); IPA_ROUNDS];
    let mut r = [Element::identity(); IPA_ROUNDS];
    l.copy_from_slice(&lr[..IPA_ROUNDS]);
    r.copy_from_slice(&lr[IPA_ROUNDS..]);
    let multiproof = MultiProof {
        d,
        ipa: ipa::IpaProof { l, r, a },
    };
    Ok(DecodedPoints {
        elements,
        fields,
        multiproof,
    })
}

/// Points [`verify`] has decompressed in this process (see [`decompressed_points`]).
#[cfg(feature = "test-support")]
static DECOMPRESSED: AtomicUsize = AtomicUsize::new(0);

/// How many points [`verify`] has decompressed in this process since it started: a probe
/// for tests that check a malformed witness is refused before any point work. One relaxed
/// atomic addition per chunk of points, counted only with the `test-support` feature.
#[cfg(feature = "test-support")]
pub fn decompressed_points() -> usize {
    DECOMPRESSED.load(AtomicOrdering::Relaxed)
}

/// A decode failure: the index of the encoding and the decoder's reason.
pub(super) type FirstError = Option<(usize, DecodeError)>;

/// Decodes `encodings` into `elements` (the identity where decoding fails) and maps them to
/// the scalar field into `fields`; returns the first failure (its index within the chunk).
pub(super) fn decode_chunk(
    encodings: &[&[u8; 32]],
    elements: &mut [Element],
    fields: &mut [Fr],
) -> FirstError {
    #[cfg(feature = "test-support")]
    DECOMPRESSED.fetch_add(encodings.len(), AtomicOrdering::Relaxed);
    let first = Element::decode_into(encodings, elements);
    Element::batch_map_to_scalar_field_into(elements, fields);
    first
}

/// Points per rayon task: enough tasks that the last ones to finish leave little idle time
/// on the other cores (about 16 per thread: a witness's points cost about the same to
/// decode), but at least [`MIN_DECODE_CHUNK`] so a task's start and its one field inversion
/// stay small next to its square roots, and at most [`MAX_DECODE_CHUNK`].
#[cfg(feature = "parallel")]
pub(super) fn decode_chunk_len(points: usize) -> usize {
    let tasks = 16 * rayon::current_num_threads().max(1);
    points
        .div_ceil(tasks)
        .clamp(MIN_DECODE_CHUNK, MAX_DECODE_CHUNK)
}

/// Fewest points a decoding task takes: a decompression (a square root and a Legendre
/// symbol, about ten microseconds) and its share of the chunk's field inversion dwarf
/// starting a task (about a microsecond), so small chunks keep both cores evenly busy even
/// for the 21 points of a one-stem witness; 4 keeps the one inversion per chunk (about a
/// microsecond) under a tenth of the chunk's work.
#[cfg(feature = "parallel")]
pub(super) const MIN_DECODE_CHUNK: usize = 4;

/// Most points a decoding task takes: 64 (well under a millisecond of work) bounds the
/// time one core can still be busy after the other has run out of tasks.
#[cfg(feature = "parallel")]
pub(super) const MAX_DECODE_CHUNK: usize = 64;

/// Every encoding decoded and mapped to the scalar field, in parallel chunks when there are
/// at least two chunks' worth; the first failure (by index), if any.
pub(super) fn decode_and_map(encodings: &[&[u8; 32]]) -> (Vec<Element>, Vec<Fr>, FirstError) {
    let mut elements = vec![Element::identity(); encodings.len()];
    let mut fields = vec![Fr::zero(); encodings.len()];
    #[cfg(feature = "parallel")]
    {
        let chunk = decode_chunk_len(encodings.len());
        if encodings.len() >= 2 * chunk {
            use rayon::prelude::*;
            // One rayon job per chunk (`with_max_len(1)`): rayon's adaptive splitting would
            // otherwise hand out runs of several chunks that an idle core cannot steal from.
            let first = encodings
                .par_chunks(chunk)
                .zip(elements.par_chunks_mut(chunk))
                .zip(fields.par_chunks_mut(chunk))
                .enumerate()
                .with_max_len(1)
                .filter_map(|(c, ((enc, els), fs))| {
                    decode_chunk(enc, els, fs).map(|(i, e)| (c * chunk + i, e))
                })
                .min_by_key(|&(i, _)| i);
            return (elements, fields, first);
        }
    }
    let first = decode_chunk(encodings, &mut elements, &mut fields);
    (elements, fields, first)
}
