//! The fverkle vector format (`vectors/README.md`): one JSON schema across kinds, and the
//! rule names negative cases are labelled with.
//!
//! ```text
//! { "format": "fverkle-vectors", "version": 1, "kind": "<kind>", "description": "…",
//!   "cases": [ { "name": "…", "description": "…", "input": {…},
//!                "valid": true,  "output": {…} }
//!            | { "name": "…", "description": "…", "input": {…},
//!                "valid": false, "rule": "<rule id>", "rules"?: ["<rule id>", …] } ] }
//! ```
//!
//! `rules`, when present, lists every rule the case breaks (each evaluated on its own),
//! `rule` among them; a rejection for any of them agrees with the case.

use banderwagon::DecodeError;
use ipa::ProofDecodeError;
use serde_json::{json, Map, Value};
use witness::fractional::{FractionalDecodeError, FractionalVerifyError, VerifiedFractional};
use witness::{CanonicalError, SszError, VerifiedWitness, VerifyError};

/// The `format` field of every file of our suite.
pub const FORMAT: &str = "fverkle-vectors";

/// The `version` field this crate writes and reads.
pub const VERSION: u64 = 1;

/// What a file's cases test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// 32-byte compressed Banderwagon points: decode, re-encode, map to the scalar field.
    PointCodec,
    /// Pedersen vector commitment of 256 scalars over the EIP-6800 CRS.
    Commitment,
    /// EIP-6800 `get_tree_key(address, tree_index, sub_index)`.
    TreeKey,
    /// The root commitment after a sequence of inserts and deletes.
    TreeRoot,
    /// One IPA opening proof (544 bytes).
    Ipa,
    /// A multiproof (576 bytes) over a list of openings.
    Multiproof,
    /// An execution witness against a pre-state root: valid (with its post-state root) or
    /// invalid (with the rule it breaks).
    Witness,
    /// A fractional proof against a coordinator root (`spec/FRACTIONAL.md`): valid (with the
    /// keys, shards and opening count it proves) or invalid (with the rule it breaks).
    FractionalProof,
    /// The root of a binary state tree (EIP-8297 or EIP-7864, `spec/BINARY.md`) after each of
    /// a sequence of inserts and deletes.
    BinaryTreeRoot,
    /// A binary witness (`spec/BINARY.md`) against a pre-state root: valid (with each key's
    /// claim and the post-state root) or invalid (with the `bw.` rule it breaks).
    BinaryWitness,
}

impl Kind {
    /// Every kind, in file order.
    pub const ALL: [Kind; 10] = [
        Kind::PointCodec,
        Kind::Commitment,
        Kind::TreeKey,
        Kind::TreeRoot,
        Kind::Ipa,
        Kind::Multiproof,
        Kind::Witness,
        Kind::FractionalProof,
        Kind::BinaryTreeRoot,
        Kind::BinaryWitness,
    ];

    /// The `kind` string.
    pub fn name(self) -> &'static str {
        match self {
            Kind::PointCodec => "point_codec",
            Kind::Commitment => "commitment",
            Kind::TreeKey => "tree_key",
            Kind::TreeRoot => "tree_root",
            Kind::Ipa => "ipa",
            Kind::Multiproof => "multiproof",
            Kind::Witness => "witness",
            Kind::FractionalProof => "fractional_proof",
            Kind::BinaryTreeRoot => "binary_tree_root",
            Kind::BinaryWitness => "binary_witness",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A rule a negative case breaks: its id (the `rule` field), where `spec/WIRE.md` states it,
/// and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The `rule` field.
    pub id: &'static str,
    /// Section of `spec/WIRE.md`, of `spec/FRACTIONAL.md` when it starts with `F`, of
    /// `spec/BINARY.md` when it starts with `B`.
    pub section: &'static str,
    /// The rule in one line.
    pub summary: &'static str,
}

/// Every rule a negative case may name.
pub const RULES: &[Rule] = &[
    Rule {
        id: "point.length",
        section: "0.1",
        summary: "a point encoding is exactly 32 bytes",
    },
    Rule {
        id: "point.x_not_canonical",
        section: "0.1",
        summary: "the encoded x is below the base-field modulus p",
    },
    Rule {
        id: "point.not_on_curve",
        section: "0.1",
        summary: "x is the x-coordinate of a Bandersnatch point",
    },
    Rule {
        id: "point.not_in_subgroup",
        section: "0.1",
        summary: "the point is in the prime-order subgroup",
    },
    Rule {
        id: "proof.length",
        section: "0.3",
        summary: "an IPA proof is 544 bytes, a multiproof 576",
    },
    Rule {
        id: "proof.point",
        section: "0.3",
        summary: "D, L_i and R_i decode as points (rules point.*)",
    },
    Rule {
        id: "proof.scalar",
        section: "0.2",
        summary: "the final scalar a is canonical (< r)",
    },
    Rule {
        id: "proof.no_openings",
        section: "6.3",
        summary: "a multiproof proves at least one opening",
    },
    Rule {
        id: "proof.rejected",
        section: "6.3",
        summary: "the proof opens the commitments to the claimed values",
    },
    Rule {
        id: "ssz.truncated",
        section: "2.6",
        summary: "every fixed part fits in its enclosing range",
    },
    Rule {
        id: "ssz.offset",
        section: "2.6",
        summary: "offsets are canonical: first = fixed size, non-decreasing, in range",
    },
    Rule {
        id: "ssz.list_length",
        section: "2.6",
        summary: "a fixed-size list is a whole number of elements within its limit",
    },
    Rule {
        id: "ssz.union",
        section: "2.2",
        summary: "an Optional is selector 0 (1 byte) or selector 1 and 32 bytes",
    },
    Rule {
        id: "canonical.stems_ascending",
        section: "6",
        summary: "state_diff stems strictly ascending",
    },
    Rule {
        id: "canonical.suffixes_ascending",
        section: "6",
        summary: "suffixes strictly ascending within a stem",
    },
    Rule {
        id: "canonical.extension_status_count",
        section: "6",
        summary: "one depth_extension_present byte per stem",
    },
    Rule {
        id: "canonical.extension_status",
        section: "6",
        summary: "extension status is 0, 1 or 2",
    },
    Rule {
        id: "canonical.depth_zero",
        section: "6",
        summary: "depth is at least 1",
    },
    Rule {
        id: "canonical.absent_current_value",
        section: "6",
        summary: "an absent stem has no current value",
    },
    Rule {
        id: "canonical.other_stems_ascending",
        section: "6",
        summary: "other_stems strictly ascending (sorted, no duplicates)",
    },
    Rule {
        id: "canonical.other_stem_unused",
        section: "6",
        summary: "every other stem is on the path of an absent-other stem",
    },
    Rule {
        id: "structure.no_keys",
        section: "6.1",
        summary: "the state diff holds at least one stem",
    },
    Rule {
        id: "structure.empty_stem",
        section: "6.1",
        summary: "every stem holds at least one suffix diff",
    },
    Rule {
        id: "structure.path_conflict",
        section: "6.2",
        summary: "depths and statuses describe one tree",
    },
    Rule {
        id: "structure.shared_leaf",
        section: "6.2",
        summary: "two present stems never share a leaf",
    },
    Rule {
        id: "structure.other_stem_count",
        section: "6.1",
        summary: "exactly one other stem per absent-other leaf no present stem holds",
    },
    Rule {
        id: "structure.other_stem_off_path",
        section: "6.1",
        summary: "each other stem starts with the path of the leaf it is assigned to",
    },
    Rule {
        id: "structure.other_stem_in_state_diff",
        section: "6.1",
        summary: "an other stem is not a stem of the state diff",
    },
    Rule {
        id: "structure.commitment_count",
        section: "6.1",
        summary: "one commitment per proven non-root, non-empty node",
    },
    Rule {
        id: "structure.identity_commitment",
        section: "6.1",
        summary: "no commitment standing for an internal node or a leaf is the identity",
    },
    Rule {
        id: "decode.root",
        section: "6.1",
        summary: "the pre-state root decodes as a point",
    },
    Rule {
        id: "decode.commitment",
        section: "6.1",
        summary: "every commitments_by_path entry decodes as a point",
    },
    Rule {
        id: "fractional.truncated",
        section: "F4.1",
        summary: "every field and counted list fits in the bytes left",
    },
    Rule {
        id: "fractional.trailing_bytes",
        section: "F4.1",
        summary: "no bytes follow the multiproof",
    },
    Rule {
        id: "fractional.version",
        section: "F4.1",
        summary: "the version byte is 2 (version 1 is not read)",
    },
    Rule {
        id: "fractional.depth",
        section: "F4.1",
        summary: "the shard depth is 1 or 2",
    },
    Rule {
        id: "fractional.flags",
        section: "F4.1",
        summary: "only flag bit 0 (coordinator path carried) may be set",
    },
    Rule {
        id: "fractional.no_keys",
        section: "F4.1",
        summary: "the proof lists at least one stem",
    },
    Rule {
        id: "fractional.presence",
        section: "F4.1",
        summary: "a presence byte has only bits 0 (current value) and 1 (new value)",
    },
    Rule {
        id: "fractional.internal_witness_scalar",
        section: "F4.1",
        summary: "every internal witness is a canonical scalar (< r)",
    },
    Rule {
        id: "fractional.internal_witness",
        section: "F4.1",
        summary: "no internal witness is 1 (the value every leaf has at index 0)",
    },
    Rule {
        id: "fractional.internal_witness_count",
        section: "F5",
        summary: "one internal witness per internal node the paths do not prove internal",
    },
    Rule {
        id: "fractional.siblings",
        section: "F5",
        summary: "the coordinator path has exactly the siblings its leaves need",
    },
    Rule {
        id: "fractional.state_root",
        section: "F5",
        summary: "under a state-root anchor, the proof's root is the anchor",
    },
    Rule {
        id: "fractional.no_coordinator_path",
        section: "F5",
        summary: "under a coordinator-root anchor, the proof carries the coordinator path",
    },
    Rule {
        id: "fractional.coordinator_root",
        section: "F5",
        summary:
            "under a coordinator-root anchor, the shard commitments and siblings fold to the anchor",
    },
    Rule {
        id: "bw.length.truncated",
        section: "B2",
        summary: "a section runs past the end of the input",
    },
    Rule {
        id: "bw.length.trailing",
        section: "B2",
        summary: "no bytes after the last section",
    },
    Rule {
        id: "bw.limit",
        section: "B2",
        summary: "every count is within its limit, checked before any section is read",
    },
    Rule {
        id: "bw.version",
        section: "B2",
        summary: "the version byte is 3",
    },
    Rule {
        id: "bw.tree",
        section: "B2",
        summary: "the tree byte is the verifier's tree",
    },
    Rule {
        id: "bw.hash",
        section: "B2",
        summary: "the hash byte is the verifier's hash",
    },
    Rule {
        id: "bw.keys.order",
        section: "B3",
        summary: "keys strictly increasing (sorted, no duplicate)",
    },
    Rule {
        id: "bw.keys.zero_stem",
        section: "B3",
        summary: "EIP-7864: no key has the all-zero stem",
    },
    Rule {
        id: "bw.keys.length",
        section: "B7",
        summary: "EIP-8297: every key (and other leaf record's key) is 1 to 66 bytes",
    },
    Rule {
        id: "bw.keys.prefix",
        section: "B7",
        summary: "EIP-8297: no key is a proper prefix of the next, nor of a key the post-state \
                  tree places beside it",
    },
    Rule {
        id: "bw.keys.flags",
        section: "B2.1",
        summary: "no unknown flag bit; delete only in EIP-8297, with a pre-value, without a set",
    },
    Rule {
        id: "bw.keys.noop",
        section: "B2.1",
        summary: "a set never writes the key's pre-value",
    },
    Rule {
        id: "bw.end.kind",
        section: "B3",
        summary: "an end record's kind is EMPTY, PRESENT or DIVERGENT (EIP-8297: EMPTY, \
                  PRESENT, AT_LEAF or AT_BRANCH); an other record's tag is leaf or branch",
    },
    Rule {
        id: "bw.end.depth",
        section: "B4",
        summary: "a path ends at most at depth 248 (EIP-8297: 528 branches), exactly where its \
                  end node is; every branches entry is used",
    },
    Rule {
        id: "bw.end.group",
        section: "B4",
        summary: "the kinds of the paths meeting at one end node describe one node",
    },
    Rule {
        id: "bw.end.absent_value",
        section: "B4",
        summary: "no pre-value under a path that ends empty or at another stem, leaf or branch",
    },
    Rule {
        id: "bw.end.present_absent",
        section: "B8",
        summary: "EIP-8297: a key whose path ends at its own leaf carries its pre-value",
    },
    Rule {
        id: "bw.other.prefix",
        section: "B4",
        summary: "an other stem or leaf agrees with the path above its node",
    },
    Rule {
        id: "bw.other.touched",
        section: "B4",
        summary: "an other stem or leaf is not a touched stem or key",
    },
    Rule {
        id: "bw.other.empty",
        section: "B4",
        summary: "a present stem's recomputed subtree root is not ZERO",
    },
    Rule {
        id: "bw.anchor.depth",
        section: "B4",
        summary: "EIP-7864: an anchor's depth is at most 248 and below the side it anchors",
    },
    Rule {
        id: "bw.anchor.prefix",
        section: "B4",
        summary: "EIP-7864: an anchor's stem lies below the side it anchors (agrees with the \
                  path above it, and takes the untouched side)",
    },
    Rule {
        id: "bw.path.empty_internal",
        section: "B4",
        summary: "no internal node on a touched path hashes to ZERO",
    },
    Rule {
        id: "bw.branch.prefix",
        section: "B8",
        summary: "EIP-8297: a branch prefix is at most 528 bits with zero padding, and the keys \
                  passing the branch share it",
    },
    Rule {
        id: "bw.collapse",
        section: "B8",
        summary: "EIP-8297: a delete that empties a branch side comes with the survivor's \
                  record, beside the deleted path on the other side",
    },
    Rule {
        id: "bw.hash.zero",
        section: "B2.3",
        summary: "no sent hash (nor an other branch record's child) is ZERO",
    },
    Rule {
        id: "bw.bitmap.padding",
        section: "B2.3",
        summary: "the bitmap bits past the last slot are zero",
    },
    Rule {
        id: "bw.count.hashes",
        section: "B2.3",
        summary: "hash_count is at most sibling_count and equals the bitmap's 1 bits \
                  (EIP-8297: equals sibling_count)",
    },
    Rule {
        id: "bw.count.siblings",
        section: "B4",
        summary: "the walk uses exactly sibling_count slots",
    },
    Rule {
        id: "bw.count.others",
        section: "B4",
        summary: "the walk uses exactly other_count other records",
    },
    Rule {
        id: "bw.count.anchors",
        section: "B4",
        summary: "EIP-7864: the walk uses exactly anchor_count anchors (one per EMPTY end whose \
                  sibling lies off every touched path)",
    },
    Rule {
        id: "bw.root",
        section: "B4",
        summary: "the recomputed pre-state root is the expected one",
    },
];

/// The rule a point decoding error breaks.
pub fn point_rule(e: &DecodeError) -> &'static str {
    match e {
        DecodeError::WrongLength { .. } => "point.length",
        DecodeError::NotCanonical => "point.x_not_canonical",
        DecodeError::NotOnCurve => "point.not_on_curve",
        DecodeError::NotInSubgroup => "point.not_in_subgroup",
        // Uncompressed input only; never produced by `Element::from_bytes`.
        _ => "point.x_not_canonical",
    }
}

/// The rule an IPA or multiproof decoding error breaks.
pub fn proof_decode_rule(e: &ProofDecodeError) -> &'static str {
    match e {
        ProofDecodeError::WrongLength { .. } => "proof.length",
        ProofDecodeError::BadPoint { .. } => "proof.point",
        ProofDecodeError::BadScalar => "proof.scalar",
        _ => "proof.rejected",
    }
}

/// The rule an SSZ decoding error breaks.
pub fn ssz_rule(e: &SszError) -> &'static str {
    match e {
        SszError::Truncated { .. } => "ssz.truncated",
        SszError::OffsetMismatch { .. }
        | SszError::OffsetOutOfRange { .. }
        | SszError::BadListOffset { .. } => "ssz.offset",
        SszError::NotMultiple { .. } | SszError::TooMany { .. } => "ssz.list_length",
        SszError::BadSelector { .. } | SszError::UnionLength { .. } => "ssz.union",
        _ => "ssz.offset",
    }
}

/// The rule a witness verification error breaks.
pub fn verify_rule(e: &VerifyError) -> &'static str {
    match e {
        VerifyError::NotCanonical(c) => match c {
            CanonicalError::StemsNotAscending { .. } => "canonical.stems_ascending",
            CanonicalError::SuffixesNotAscending { .. } => "canonical.suffixes_ascending",
            CanonicalError::ExtensionStatusCount { .. } => "canonical.extension_status_count",
            CanonicalError::BadExtensionStatus { .. } => "canonical.extension_status",
            CanonicalError::BadDepth { .. } => "canonical.depth_zero",
            CanonicalError::OtherStemsNotAscending { .. } => "canonical.other_stems_ascending",
            CanonicalError::OtherStemUnused { .. } => "canonical.other_stem_unused",
            CanonicalError::AbsentStemHasCurrentValue { .. } => "canonical.absent_current_value",
            _ => "canonical.unknown",
        },
        VerifyError::NoKeys => "structure.no_keys",
        VerifyError::EmptyStem { .. } => "structure.empty_stem",
        VerifyError::PathConflict { .. } => "structure.path_conflict",
        VerifyError::SharedLeaf { .. } => "structure.shared_leaf",
        VerifyError::OtherStemCount { .. } => "structure.other_stem_count",
        VerifyError::OtherStemOffPath { .. } => "structure.other_stem_off_path",
        VerifyError::OtherStemInStateDiff { .. } => "structure.other_stem_in_state_diff",
        VerifyError::CommitmentCount { .. } => "structure.commitment_count",
        VerifyError::IdentityCommitment { .. } => "structure.identity_commitment",
        VerifyError::BadRoot(_) => "decode.root",
        VerifyError::BadPoint { .. } => "decode.commitment",
        VerifyError::BadProofPoint { .. } => "proof.point",
        VerifyError::BadScalar => "proof.scalar",
        VerifyError::BadProof(p) => proof_decode_rule(p),
        _ => "proof.rejected",
    }
}

/// The rule a fractional proof's rejection breaks.
pub fn fractional_rule(e: &FractionalVerifyError) -> &'static str {
    use FractionalDecodeError as D;
    use FractionalVerifyError as V;
    match e {
        V::Decode(d) => match d {
            D::Truncated { .. } | D::TooLarge { .. } => "fractional.truncated",
            D::TrailingBytes { .. } => "fractional.trailing_bytes",
            D::BadVersion(_) => "fractional.version",
            D::BadDepth(_) => "fractional.depth",
            D::BadFlags(_) => "fractional.flags",
            D::NoKeys => "fractional.no_keys",
            D::BadPresence { .. } => "fractional.presence",
            D::InternalWitnessScalar { .. } => "fractional.internal_witness_scalar",
            D::InternalWitnessOne { .. } => "fractional.internal_witness",
            _ => "fractional.unknown",
        },
        V::Witness(w) => verify_rule(w),
        V::InternalWitnessCount { .. } => "fractional.internal_witness_count",
        V::Siblings(_) => "fractional.siblings",
        V::StateRootMismatch { .. } => "fractional.state_root",
        V::NoCoordinatorPath => "fractional.no_coordinator_path",
        V::CoordinatorRootMismatch { .. } => "fractional.coordinator_root",
        _ => "fractional.unknown",
    }
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// `value` with every object's keys in sorted order, whatever `serde_json`'s map type: the
/// files are byte-identical however the workspace's features unify.
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k, sorted(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The `keys` of a verified witness (`vectors/README.md`, kind `witness`): each key with its
/// proven current value and whether the proof binds it.
pub(crate) fn witness_keys(v: &VerifiedWitness) -> Value {
    v.keys()
        .iter()
        .map(|k| {
            json!({
                "key": crate::at::hex0x(&k.key()),
                "current_value": k.current_value.map(|c| crate::at::hex0x(&c)),
                "bound": k.bound,
            })
        })
        .collect()
}

/// The `value` of a verified fractional proof (`vectors/README.md`, kind `fractional`): its keys
/// with their values and deletion, the shards, the openings, both anchors and both post-state
/// roots. The generator writes it as a valid case's expectation; the differential runner
/// answers with it.
pub(crate) fn fractional_value(v: &VerifiedFractional) -> Result<Value, FractionalVerifyError> {
    let opt = |v: Option<&[u8; 32]>| v.map(|c| crate::at::hex0x(c));
    let keys: Vec<Value> = v
        .keys()
        .iter()
        .map(|k| {
            json!({
                "key": crate::at::hex0x(&k.key()),
                "current_value": opt(k.current_value.as_ref()),
                "new_value": opt(k.new_value.as_ref()),
                "deleted": k.deleted,
            })
        })
        .collect();
    let shards: Vec<Value> = v
        .shards()
        .iter()
        .map(|(i, c)| json!({"index": i, "commitment": crate::at::hex0x(c)}))
        .collect();
    let (post_state, post_coordinator) = v.post_roots()?;
    Ok(json!({
        "keys": keys,
        "shards": shards,
        "openings": v.opening_count(),
        "state_root": crate::at::hex0x(v.state_root()),
        "coordinator_root": opt(v.coordinator_root()),
        "post_state_root": crate::at::hex0x(&post_state),
        "post_coordinator_root": opt(post_coordinator.as_ref()),
    }))
}

/// The `value` of a verified binary witness of `tree` (`eip7864` or `eip8297`;
/// `vectors/README.md`, kind `binary_witness`): each
/// key with its pre-value (`null`: proven absent) and write (`null`: unchanged, a value, or
/// `"delete"`), and the post-state root; or the `bw.` rule the witness breaks. Written by the
/// generator, checked against by the suite's checker, answered by the differential runner.
pub fn binary_witness_value<H: bintree::TreeHash>(
    tree: &str,
    bytes: &[u8],
    pre_root: &[u8; 32],
) -> Result<Value, &'static str> {
    if tree == "eip8297" {
        let (witness, verified) =
            bintree::eip8297::witness::verify::<H>(bytes, pre_root).map_err(|e| e.name())?;
        return Ok(claims_value(witness.claims(), &verified.post_root));
    }
    let (witness, verified) =
        bintree::eip7864::witness::verify::<H>(bytes, pre_root).map_err(|e| e.name())?;
    Ok(claims_value(witness.claims(), &verified.post_root))
}

/// The claims of a verified binary witness and its post-state root, as
/// [`binary_witness_value`] writes them.
fn claims_value<'a>(
    claims: impl Iterator<Item = bintree::witness::Claim<'a>>,
    post_root: &[u8; 32],
) -> Value {
    use bintree::witness::WriteRef;
    let keys: Vec<Value> = claims
        .map(|c| {
            let write = match c.write {
                WriteRef::Unchanged => Value::Null,
                WriteRef::Set(v) => json!(crate::at::hex0x(v)),
                WriteRef::Delete => json!("delete"),
            };
            json!({
                "key": crate::at::hex0x(c.key),
                "pre_value": c.pre.map(|v| crate::at::hex0x(v)),
                "write": write,
            })
        })
        .collect();
    json!({"keys": keys, "post_state_root": crate::at::hex0x(post_root)})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_rules_are_unique() {
        for k in Kind::ALL {
            assert_eq!(Kind::from_name(k.name()), Some(k));
        }
        assert_eq!(Kind::from_name("nope"), None);
        for (i, r) in RULES.iter().enumerate() {
            assert!(RULES[..i].iter().all(|o| o.id != r.id), "{} twice", r.id);
        }
        assert_eq!(rule("proof.rejected").map(|r| r.section), Some("6.3"));
    }
}
