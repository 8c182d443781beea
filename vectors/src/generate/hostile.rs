//! The hostile-prover constructions of `spec/WIRE.md` §6.6, built by `witness::hostile`:
//! the identity standing for an internal node or a leaf (rejected by the rule
//! `structure.identity_commitment`), and witnesses the format cannot reject, whose valid
//! cases carry what the verifier reports of them — the bound flag of every key, the count of
//! unbound absences and writes, and the canonical post-state root beside the one computed
//! from the witness.

use serde_json::{json, Value};
use witness::hostile::{self, Hostile};
use witness::owned::OwnedExecutionWitness;

use super::case::{gen_err, invalid, valid};
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::witness_keys;

fn witness_json(w: &OwnedExecutionWitness) -> Result<Value, VectorError> {
    Ok(w.to_witness().map_err(gen_err)?.to_json_value())
}

/// The valid constructions, each with the bound/unbound facts the verifier reports.
pub(super) fn valid_cases() -> Result<Vec<Value>, VectorError> {
    let cases: [(&str, &str, Hostile); 5] = [
        ("identity_internal_node_honest",
            "the empty tree (root = identity) and a write to a stem absent-empty at depth 1: the honest witness of identity_as_internal_node's write, bound (no internal node below the root on its path)",
            hostile::identity_internal_node_honest()),
        ("leaf_posing_as_internal_depth_2",
            "§6.6 construction 2: a stem whose leaf sits at depth 1 (its suffix 0 holding a value) claimed absent-empty at depth 2, its leaf's commitment standing for the internal node at depth 1, opened at index 5 (>= 4) to 0, and suffix 0 written. The format cannot reject it: the key is reported unbound, and the post-state root computed from the witness is not the canonical one",
            hostile::leaf_posing_as_internal(2)),
        ("leaf_posing_as_internal_depth_3",
            "§6.6 construction 2, suffix-tree variant: the leaf at depth 1 opened at index 2 as an internal node, its C1 standing for the internal node at depth 2, opened at an index where C1 is 0; the stem claimed absent-empty at depth 3 and suffix 0 written. Reported unbound; the computed post-state root is not the canonical one",
            hostile::leaf_posing_as_internal(3)),
        ("absence_under_internal_bound",
            "a stem absent-empty at depth 2 below a real internal node that a read of a sibling stem opens at index 0x30 (>= 4) to a non-zero value: proven internal, so the absence is bound",
            hostile::absence_under_internal(true)),
        ("absence_under_internal_unbound",
            "the same true absence with the internal node opened only at the empty slot 0x07, to 0, as a leaf would be: accepted, reported unbound (nothing written, so the post-state root is still canonical)",
            hostile::absence_under_internal(false)),
    ];
    let mut out = Vec::with_capacity(cases.len());
    for (name, description, h) in cases {
        let w = h.witness.to_witness().map_err(gen_err)?;
        let v = witness::verify(&h.pre_state_root, &w).map_err(gen_err)?;
        let post = v.post_state_root().map_err(gen_err)?;
        // The constructions behave as §6.6 says, or the generator is wrong.
        let differs = post != h.canonical_post_state_root;
        if differs != (v.unbound_writes() > 0) {
            return Err(VectorError::Generator(format!(
                "{name}: {} unbound writes but the post-state root {} the canonical one",
                v.unbound_writes(),
                if differs { "differs from" } else { "equals" }
            )));
        }
        let keys = witness_keys(&v);
        out.push(valid(
            name,
            description,
            json!({
                "pre_state_root": hex0x(&h.pre_state_root),
                "json": witness_json(&h.witness)?,
                "ssz": hex0x(&h.witness.to_ssz().map_err(gen_err)?),
            }),
            json!({
                "post_state_root": hex0x(&post),
                "canonical_post_state_root": hex0x(&h.canonical_post_state_root),
                "openings": v.opening_count(),
                "unbound_absences": v.unbound_absences(),
                "unbound_writes": v.unbound_writes(),
                "keys": keys,
            }),
        ));
    }
    Ok(out)
}

/// The identity as an internal node and as a leaf: true multiproofs, rejected by §6.1 step 6.
pub(super) fn invalid_cases() -> Result<Vec<Value>, VectorError> {
    let as_internal = hostile::identity_internal_node();
    // The same witness with the stem claimed absent-other at depth 1: the identity now
    // stands for the leaf of an other stem (the stem with its last byte changed).
    let mut as_leaf = as_internal.clone();
    as_leaf.witness.verkle_proof.depth_extension_present = vec![(1 << 3) | 1];
    let mut other = as_leaf
        .witness
        .state_diff
        .first()
        .map(|d| d.stem)
        .ok_or_else(|| VectorError::Generator("identity_internal_node has no stem".into()))?;
    other[30] ^= 1;
    as_leaf.witness.verkle_proof.other_stems = vec![other];
    let cases = [
        ("identity_as_internal_node",
            "§6.6 construction 1: the empty tree (root = identity) and a stem claimed absent-empty at depth 2, with the identity as the internal node at depth 1; the openings (root, stem[0], 0) and (identity, stem[1], 0) are true, and a write under it would build a one-child internal node",
            as_internal),
        ("identity_as_leaf",
            "identity_as_internal_node with the stem claimed absent-other at depth 1: the identity stands for the leaf of the other stem (the stem with its last byte changed)",
            as_leaf),
    ];
    let mut out = Vec::with_capacity(cases.len());
    for (name, description, h) in cases {
        out.push(invalid(
            name,
            description,
            json!({"pre_state_root": hex0x(&h.pre_state_root), "json": witness_json(&h.witness)?}),
            "structure.identity_commitment",
        ));
    }
    Ok(out)
}
