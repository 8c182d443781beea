//! Stateless verification of an execution witness against a pre-state root
//! (`spec/WIRE.md` §6).
//!
//! The verifier rebuilds, from the state diff and the extension statuses alone, the part of
//! the pre-state tree the proof covers — internal nodes, leaves, empty slots and suffix
//! trees, each at its path — assigns `commitments_by_path` to those nodes in path order,
//! derives the set of openings `(path, z) → y`, and checks the multiproof over them with the
//! transcript label `"vt"`. The root is the commitment at the empty path, so a wrong
//! pre-state root makes the multiproof fail.
//!
//! Work is linear in the witness: the tree is a map keyed by path (at most 33 entries per
//! stem). Every point — the root, each commitment, the proof's `D`, `L_i` and `R_i` — is
//! decompressed once, all in one parallel pass (while the shape is rebuilt and the openings
//! planned on another core: an opening whose value is a commitment's field only records
//! which one, filled in after decoding); the commitments are mapped to the scalar field in
//! batches; the public node list is built on one core while the other checks the proof; the
//! transcript takes the commitments' bytes from the witness rather than re-encoding the
//! points; and the multiproof is checked over the decoded commitments by index, with no
//! per-opening copy of a point (`ipa::MultiProof::verify_openings`).

use crate::prelude::*;

mod error;
mod openings;
mod points;
mod proven;
pub(crate) mod shape;

use ipa::{Crs, Opening, Transcript};

use crate::canonical::check_canonical;
use crate::execution_witness::ExecutionWitness;
use crate::view::{StateDiff, VerkleProof};

pub use error::VerifyError;
use openings::plan_openings;
#[cfg(feature = "test-support")]
pub use points::decompressed_points;
use points::{decode_points, DecodedPoints, PROOF_POINTS};
pub use proven::{
    ExtensionStatus, NodeKind, NodePath, ProvenKey, ProvenNode, ProvenStem, VerifiedWitness,
};
use shape::{path_of, proven_keys, rebuild_shape, Shape};

/// The Fiat–Shamir transcript label of execution-witness multiproofs (go-verkle `"vt"`).
const TRANSCRIPT_LABEL: &[u8] = b"vt";

/// Verifies `witness` against the pre-state root (a compressed root commitment) and returns
/// the proven pre-state.
///
/// Checks, in order: the structural canonical form ([`check_canonical`]); that the depths
/// and extension statuses describe one tree, that `other_stems` holds exactly the stems of
/// the absent-other leaves (in path order, each at its leaf's path) and that
/// `commitments_by_path` holds exactly one commitment per proven node; that the root, every
/// commitment and the proof decode (canonical points in the subgroup, final scalar < r); and
/// finally the multiproof over the openings, in `(path, z)` order, with transcript `"vt"`.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let witness = witness::ExecutionWitness::from_json_str(&std::fs::read_to_string("block.json")?)?;
/// let pre_state_root = [0u8; 32]; // the parent block's state root
/// let proven = witness::verify(&pre_state_root, &witness)?;
/// for key in proven.keys() {
///     println!("{:02x?} = {:02x?}", key.key(), key.current_value);
/// }
/// let post_state_root = proven.post_state_root()?;
/// # let _ = post_state_root;
/// # Ok(())
/// # }
/// ```
pub fn verify(
    pre_state_root: &[u8; 32],
    witness: &ExecutionWitness,
) -> Result<VerifiedWitness, VerifyError> {
    let (proven, check) = prepare(pre_state_root, witness)?;
    if check.holds(Crs::eip6800()) {
        Ok(proven)
    } else {
        Err(VerifyError::ProofRejected)
    }
}

/// Verifies many witnesses, each against its pre-state root, and returns one result per
/// witness in order: the same results as [`verify`] on each.
///
/// Every check up to the multiproof's last step runs per witness; the last steps (one
/// multi-scalar multiplication each) are combined into one with transcript-derived weights
/// ([`ipa::IpaCheck::all_hold`]), which saves most of the fixed cost of a small witness — a
/// light client syncing a range of blocks. If the combined check fails, each witness's is
/// checked on its own, so a rejection still names the witness.
pub fn verify_batch(
    items: &[(&[u8; 32], &ExecutionWitness)],
) -> Vec<Result<VerifiedWitness, VerifyError>> {
    let crs = Crs::eip6800();
    let mut results = Vec::with_capacity(items.len());
    let mut checks = Vec::with_capacity(items.len());
    let mut checked = Vec::with_capacity(items.len());
    for (root, witness) in items {
        match prepare(root, witness) {
            Ok((proven, check)) => {
                checked.push(results.len());
                checks.push(check);
                results.push(Ok(proven));
            }
            Err(e) => results.push(Err(e)),
        }
    }
    if !ipa::IpaCheck::all_hold(crs, &checks) {
        for (i, check) in checked.iter().zip(&checks) {
            if !check.holds(crs) {
                if let Some(r) = results.get_mut(*i) {
                    *r = Err(VerifyError::ProofRejected);
                }
            }
        }
    }
    results
}

/// Everything [`verify`] does except the multiproof's last step, which it returns: the
/// proven pre-state if that check holds, and the check.
fn prepare(
    pre_state_root: &[u8; 32],
    witness: &ExecutionWitness,
) -> Result<(VerifiedWitness, ipa::IpaCheck), VerifyError> {
    check_canonical(witness)?;
    prepare_parts(
        pre_state_root,
        witness.state_diff(),
        &witness.verkle_proof(),
        |_, _, _| Ok(Transcript::new(TRANSCRIPT_LABEL)),
    )
}

/// The checks of [`verify`] after the canonical form, over the views of a witness wherever
/// its bytes are laid out, up to the multiproof's last step. `transcript` runs once the
/// openings are planned and their values known (`fields`: each proven node's field, the
/// root first, in path order of the non-empty nodes): it may add openings (keeping them in
/// commitment order) and returns the transcript the multiproof is checked with.
pub(crate) fn prepare_parts<E: From<VerifyError>>(
    pre_state_root: &[u8; 32],
    state_diff: StateDiff<'_>,
    proof: &VerkleProof<'_>,
    transcript: impl FnOnce(&Shape, &[banderwagon::Fr], &mut Vec<Opening>) -> Result<Transcript, E>,
) -> Result<(VerifiedWitness, ipa::IpaCheck), E> {
    if state_diff.is_empty() {
        return Err(VerifyError::NoKeys.into());
    }
    let commitments = proof.commitments_by_path();
    // Cheap structural checks come before any point work: the shape (one map entry per
    // proven node, bounded by the commitment count), the commitment count, and the rule
    // that no internal node or leaf is the identity all read bytes only, so a witness with
    // millions of well-formed points but the wrong shape is refused without decompressing
    // one. Then the openings' plan (serial) runs beside the decoding (parallel).
    let (mut stems, shape) = rebuild_shape(state_diff, proof)?;
    shape.check_identities(commitments)?;
    let (plan, decoded) = join(
        || plan_openings(&shape.nodes, state_diff),
        || decode_points(pre_state_root, commitments, proof),
    );
    let DecodedPoints {
        elements,
        fields,
        multiproof,
    } = decoded?;
    let mut encoded: Vec<&[u8; 32]> = Vec::with_capacity(1 + commitments.len());
    encoded.push(pre_state_root);
    encoded.extend(commitments.iter());

    let tree_elements = elements
        .get(PROOF_POINTS..)
        .expect("decode_points returns the proof's points first");
    let tree_fields = fields
        .get(PROOF_POINTS..)
        .expect("decode_points maps every point it returns");
    shape.check_count(tree_elements.len())?;
    let mut openings = plan.fill(tree_fields);
    let mut transcript = transcript(&shape, tree_fields, &mut openings)?;
    // The proven node list is only output: it is built on one core while the other checks
    // the proof (the check first, so it starts at once; the list waits to be taken).
    let (proven, nodes) = join(
        || {
            multiproof
                .check_openings(
                    Crs::eip6800(),
                    &mut transcript,
                    tree_elements,
                    &encoded,
                    &openings,
                )
                .ok()
        },
        || shape.into_nodes(tree_elements, tree_fields),
    );
    let check = proven.ok_or(VerifyError::ProofRejected)?;
    let mut nodes = nodes;
    mark_proven_internal(&mut nodes, &openings);

    for s in stems.iter_mut() {
        match s.status {
            ExtensionStatus::AbsentOther => {
                let path = s.path();
                s.leaf_stem = find_node(&nodes, &path).and_then(|n| n.leaf_stem);
            }
            ExtensionStatus::AbsentEmpty => s.bound = absence_is_bound(&nodes, s),
            ExtensionStatus::Present => {}
        }
    }
    let mut keys = proven_keys(state_diff);
    for k in keys.iter_mut() {
        k.bound = stems.get(k.stem_index).is_none_or(|s| s.bound);
    }
    Ok((
        VerifiedWitness {
            pre_state_root: *pre_state_root,
            nodes,
            stems,
            keys,
            openings: openings.len(),
        },
        check,
    ))
}

/// The node at `path` in a path-ordered node list.
fn find_node<'a>(nodes: &'a [ProvenNode], path: &NodePath) -> Option<&'a ProvenNode> {
    nodes
        .binary_search_by(|n| n.path.cmp(path))
        .ok()
        .and_then(|i| nodes.get(i))
}

/// Sets [`ProvenNode::proven_internal`] on every internal node that the openings prove
/// internal: opened at an index `z ≥ 4` to a non-zero value, or at `z = 0` to a value other
/// than 1 — values no leaf polynomial `[1, stem, mtf(C1), mtf(C2), 0, …]` takes. The root is
/// internal by definition.
fn mark_proven_internal(nodes: &mut [ProvenNode], openings: &[Opening]) {
    // Commitment `k` is the `k`-th node that is not an empty slot (the root is 0).
    let mut proven = vec![false; nodes.len()];
    for o in openings {
        if crate::leaf::rules_out_leaf(o.point, &o.result) {
            // The multiproof check refused any opening of a commitment it was not given,
            // and it was given one per node that is not an empty slot.
            *proven
                .get_mut(o.commitment as usize)
                .expect("an opened commitment is a proven node's") = true;
        }
    }
    let mut next = 0usize;
    for n in nodes.iter_mut() {
        if n.kind == NodeKind::Empty {
            continue;
        }
        let k = next;
        next += 1;
        n.proven_internal = n.kind == NodeKind::Internal
            && (n.path.is_empty() || proven.get(k).copied().expect("one slot per node"));
    }
}

/// Whether the absence of the absent-empty stem `s` is bound: every internal node on its
/// path below the root (depths `1..depth`) is proven internal ([`mark_proven_internal`]).
///
/// Then each of them is the real node at its path (its commitment is fixed by its parent's
/// opening, and a node that is not a leaf is internal), so the empty slot is really empty.
/// Otherwise a leaf could pose as one of them: its polynomial is zero at every index ≥ 4,
/// so "opened to 0 at `stem[d]`" is true of it (`spec/WIRE.md`, "What a verified witness
/// proves").
fn absence_is_bound(nodes: &[ProvenNode], s: &ProvenStem) -> bool {
    (1..usize::from(s.depth)).all(|d| {
        path_of(&s.stem, d)
            .and_then(|p| find_node(nodes, &p))
            .is_some_and(|n| n.proven_internal)
    })
}

/// `(a(), b())`, on two rayon tasks when the `parallel` feature is on.
fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        let ra = a();
        (ra, b())
    }
}

#[cfg(test)]
mod tests {
    use super::shape::ChildSet;
    use super::*;

    #[test]
    fn node_path_orders_bytewise_and_walks() {
        let root = NodePath::ROOT;
        let a = root.child(3).unwrap();
        let ab = a.child(0).unwrap();
        let b = root.child(4).unwrap();
        assert!(root < a && a < ab && ab < b);
        assert_eq!(ab.parent(), Some((a, 0)));
        assert_eq!(a.parent(), Some((root, 3)));
        assert_eq!(root.parent(), None);
        assert_eq!(NodePath::new(&[3, 0]), Some(ab));
        assert_eq!(NodePath::new(&[0; 33]), None);
        let full = NodePath::new(&[7; 32]).unwrap();
        assert_eq!(full.child(1), None);
        assert_eq!(format!("{ab}"), "0x0300");
    }

    #[test]
    fn child_set_iterates_ascending() {
        let mut s = ChildSet::default();
        for i in [255, 0, 64, 63, 64] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 63, 64, 255]);
        assert_eq!(s.len(), 4);
    }
}
