//! Verifying a fractional proof against an anchor (`spec/FRACTIONAL.md` §5).
//!
//! The proof carries a standard witness, so the standard verifier does the work: canonical
//! form, the proven tree's shape, the points, the openings and the multiproof
//! (`crate::verify::prepare_parts`). This module adds what is fractional: the internal
//! witnesses' openings (§4.3), the shard commitments read off the proven tree (§4.2), the
//! coordinator path, the anchor, and the transcript that binds them (§4.4).

use crate::prelude::*;

use banderwagon::Fr;
use bytes::Bytes;
use ipa::{Crs, Opening, Transcript};
use sha2::{Digest, Sha256};

use super::result::{Anchor, VerifiedFractional};
use super::shard::{fold_with, shard_of};
use super::verify_error::FractionalVerifyError;
use super::wire::FractionalProof;
use crate::canonical::check_canonical_parts;
use crate::verify::shape::{Draft, Shape};
use crate::verify::{prepare_parts, NodePath, VerifyError};

/// The Fiat–Shamir transcript label of a fractional proof's multiproof.
pub const TRANSCRIPT_LABEL: &[u8] = b"fverkle-fractional-v2";

/// The transcript of a fractional proof's multiproof, before its first opening (§4.4):
/// labelled [`TRANSCRIPT_LABEL`], then `SHA-256(body)`, `body` being every byte of the
/// encoded proof before the multiproof — so no byte of the proof can change without
/// changing every challenge.
pub fn start_transcript(body: &[u8]) -> Transcript {
    let mut t = Transcript::new(TRANSCRIPT_LABEL);
    let digest: [u8; 32] = Sha256::digest(body).into();
    t.append_message(b"proof", &digest);
    t
}

/// What the anchor check leaves for the result: the touched shards with their commitments,
/// and the folded coordinator root when the path is carried.
type Bound = (Vec<(u16, [u8; 32])>, Option<[u8; 32]>);

/// Decodes `bytes` and verifies the proof against `anchor`.
pub fn verify_fractional_bytes(
    bytes: Bytes,
    anchor: &Anchor,
) -> Result<VerifiedFractional, FractionalVerifyError> {
    let proof = FractionalProof::from_bytes(bytes)?;
    verify_fractional(&proof, anchor)
}

/// Verifies a decoded fractional proof against `anchor`: the canonical state root a header
/// carries, or the coordinator root of the sharded tree. Every absence in an accepted
/// proof is bound, under either anchor (`spec/FRACTIONAL.md` §5.2).
pub fn verify_fractional(
    proof: &FractionalProof,
    anchor: &Anchor,
) -> Result<VerifiedFractional, FractionalVerifyError> {
    use FractionalVerifyError as E;
    let state_diff = proof.state_diff();
    let verkle_proof = proof.verkle_proof();
    check_canonical_parts(state_diff, &verkle_proof).map_err(VerifyError::NotCanonical)?;
    let depth = proof.depth();
    let mut bound: Option<Bound> = None;
    let (witness, check) = prepare_parts(
        proof.state_root(),
        state_diff,
        &verkle_proof,
        |shape: &Shape, _fields: &[Fr], openings: &mut Vec<Opening>| {
            add_internal_witnesses(shape, openings, proof.internal_witnesses())?;
            let shards = shard_commitments(shape, depth, proof)?;
            let coordinator = if proof.carries_coordinator_path() {
                Some(fold(depth, &shards, proof)?)
            } else {
                None
            };
            match (anchor, coordinator) {
                (Anchor::StateRoot(root), _) if root != proof.state_root() => {
                    return Err(E::StateRootMismatch {
                        proof: *proof.state_root(),
                        anchor: *root,
                    })
                }
                (Anchor::CoordinatorRoot(_), None) => return Err(E::NoCoordinatorPath),
                (Anchor::CoordinatorRoot(root), Some(computed)) if *root != computed => {
                    return Err(E::CoordinatorRootMismatch {
                        computed,
                        anchor: *root,
                    })
                }
                _ => {}
            }
            let transcript = start_transcript(proof.body());
            bound = Some((shards, coordinator));
            Ok(transcript)
        },
    )?;
    if !check.holds(Crs::eip6800()) {
        return Err(VerifyError::ProofRejected.into());
    }
    let (shards, coordinator_root) = bound.ok_or(VerifyError::ProofRejected)?;
    let mut witness = witness;
    for &i in proof.deleted_diffs() {
        // One key per diff, in the same order (`prepare_parts`).
        let key = witness
            .keys
            .get_mut(i as usize)
            .expect("every deleted diff index is below the proof's diff count");
        key.deleted = true;
    }
    // Every internal node but the root is proven internal now, so every absence is bound
    // (§5.2); the standard verifier's own accounting must agree.
    debug_assert_eq!(witness.unbound_absences(), 0);
    Ok(VerifiedFractional {
        depth,
        state_root: *proof.state_root(),
        coordinator_root,
        siblings: proof.siblings().copied().collect(),
        shards,
        witness,
    })
}

/// Whether one node's openings prove it internal: a value other than 1 at index 0, or other
/// than 0 at an index ≥ 4 — values no leaf polynomial takes (§4.3).
fn proves_internal(openings: &[Opening]) -> bool {
    openings
        .iter()
        .any(|o| crate::leaf::rules_out_leaf(o.point, &o.result))
}

/// F-INTERNAL: gives each internal node but the root that its openings do not prove
/// internal the next witness, as an opening at index 0 before its others. `openings` are
/// each node's together, in commitment order (commitment `k` is the `k`-th non-empty node
/// in path order, the root 0).
pub(crate) fn add_internal_witnesses(
    shape: &Shape,
    openings: &mut Vec<Opening>,
    witnesses: &[Fr],
) -> Result<(), FractionalVerifyError> {
    let mut out: Vec<Opening> = Vec::with_capacity(openings.len() + witnesses.len());
    let mut rest: &[Opening] = openings;
    let mut used = 0usize;
    let mut k = 0u32;
    for (path, draft) in &shape.nodes {
        if matches!(draft, Draft::Empty) {
            continue;
        }
        let own = rest.iter().take_while(|o| o.commitment == k).count();
        let (mine, after) = rest.split_at(own);
        rest = after;
        if matches!(draft, Draft::Internal { .. }) && !path.is_empty() && !proves_internal(mine) {
            let w = witnesses
                .get(used)
                .ok_or(FractionalVerifyError::InternalWitnessCount {
                    expected: used + 1,
                    got: witnesses.len(),
                })?;
            used += 1;
            out.push(Opening {
                commitment: k,
                point: 0,
                result: *w,
            });
        }
        out.extend_from_slice(mine);
        k += 1;
    }
    if used != witnesses.len() {
        return Err(FractionalVerifyError::InternalWitnessCount {
            expected: used,
            got: witnesses.len(),
        });
    }
    out.extend_from_slice(rest);
    *openings = out;
    Ok(())
}

/// A node of the shape and the 32 bytes of its commitment in the proof.
#[derive(Clone, Copy)]
struct Found<'a> {
    draft: &'a Draft,
    encoding: &'a [u8; 32],
}

/// §4.2: each touched shard's `compress(C_i)`, read off the proven tree, ascending.
fn shard_commitments(
    shape: &Shape,
    depth: u8,
    proof: &FractionalProof,
) -> Result<Vec<(u16, [u8; 32])>, FractionalVerifyError> {
    let commitments = proof.verkle_proof().commitments_by_path();
    // Commitment index of each node (the root 0, empty slots none), in path order.
    let mut index: Vec<Option<usize>> = Vec::with_capacity(shape.nodes.len());
    let mut next = 0usize;
    for (_, d) in &shape.nodes {
        if matches!(d, Draft::Empty) {
            index.push(None);
        } else {
            index.push(Some(next));
            next += 1;
        }
    }
    let find = |bytes: &[u8]| -> Option<Found<'_>> {
        let path = NodePath::new(bytes)?;
        let i = shape.nodes.binary_search_by(|(p, _)| p.cmp(&path)).ok()?;
        let (_, draft) = shape.nodes.get(i)?;
        let encoding = match index.get(i).copied().flatten() {
            None => &IDENTITY,
            Some(0) => proof.state_root(),
            Some(k) => commitments.get(k - 1)?,
        };
        Some(Found { draft, encoding })
    };
    let mut out: Vec<(u16, [u8; 32])> = Vec::new();
    for s in proof.state_diff().iter() {
        let shard = shard_of(depth, s.stem);
        if out.last().is_some_and(|(i, _)| *i == shard) {
            continue;
        }
        let missing = FractionalVerifyError::ShardTopMissing { shard };
        let prefix = &s.stem[..usize::from(depth)];
        let top = find(&prefix[..1]).ok_or(missing.clone())?;
        let c = match (top.draft, depth) {
            (Draft::Empty, _) => IDENTITY,
            (Draft::Leaf { stem, .. }, 2) => {
                if stem.is_some_and(|st| st[..2] == *prefix) {
                    *top.encoding
                } else {
                    IDENTITY
                }
            }
            (Draft::Internal { .. }, 2) => {
                let below = find(prefix).ok_or(missing)?;
                *below.encoding
            }
            _ => *top.encoding,
        };
        out.push((shard, c));
    }
    Ok(out)
}

/// The compressed identity.
const IDENTITY: [u8; 32] = [0u8; 32];

/// F-COORD: the coordinator root folded from the touched shards and the siblings.
fn fold(
    depth: u8,
    shards: &[(u16, [u8; 32])],
    proof: &FractionalProof,
) -> Result<[u8; 32], FractionalVerifyError> {
    fold_with(depth, shards, |k| proof.sibling(k), proof.siblings().len())
}
