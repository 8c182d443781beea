//! Every rule a witness breaks, each evaluated on its own rather than in the verifier's order
//! (`vectors/README.md`, "One rule per case").
//!
//! The verifier stops at the first broken rule; this audit evaluates each rule of
//! `spec/WIRE.md` §5 and §6.1 by itself, so a negative case can be shown to break only the
//! rules it names. Rules are grouped in stages, and a stage is evaluated only where the
//! stages it presupposes define their input:
//!
//! 1. canonical form (§5): every rule, always;
//! 2. the proven tree (§6.1 steps 2–6): only when there is one status byte per stem, each a
//!    known status at a depth ≥ 1 (otherwise no tree is described); the counts, other stems
//!    and identity rules only when the stems build a tree without conflict;
//! 3. decoding (W-DECODE-1): every point and the scalar, always, each by itself;
//! 4. the multiproof (`proof.rejected`): only when no other rule is broken, by the verifier.

use std::collections::{BTreeMap, BTreeSet};

use banderwagon::{fr_from_le_bytes_canonical, Element};
use witness::owned::OwnedExecutionWitness;

use super::case::gen_err;
use crate::error::VectorError;
use crate::schema::verify_rule;

const ABSENT_OTHER: u8 = 1;
const PRESENT: u8 = 2;

/// The rules of §5 (W-CANON), each evaluated on its own.
fn canonical(w: &OwnedExecutionWitness, broken: &mut BTreeSet<&'static str>) {
    let sd = &w.state_diff;
    let ext = &w.verkle_proof.depth_extension_present;
    if ext.len() != sd.len() {
        broken.insert("canonical.extension_status_count");
    }
    if sd.windows(2).any(|p| p[0].stem >= p[1].stem) {
        broken.insert("canonical.stems_ascending");
    }
    if ext.iter().any(|b| b & 7 > PRESENT) {
        broken.insert("canonical.extension_status");
    }
    if ext.iter().any(|b| b >> 3 == 0) {
        broken.insert("canonical.depth_zero");
    }
    let mut absent_other_paths = BTreeSet::new();
    for (i, s) in sd.iter().enumerate() {
        if s.suffix_diffs
            .windows(2)
            .any(|p| p[0].suffix >= p[1].suffix)
        {
            broken.insert("canonical.suffixes_ascending");
        }
        // A stem without a status byte is judged by the status rules above only.
        let Some(&byte) = ext.get(i) else { continue };
        let (status, depth) = (byte & 7, usize::from(byte >> 3).min(31));
        if status < PRESENT && s.suffix_diffs.iter().any(|d| d.current_value.is_some()) {
            broken.insert("canonical.absent_current_value");
        }
        if status == ABSENT_OTHER {
            absent_other_paths.insert(s.stem[..depth].to_vec());
        }
    }
    let others = &w.verkle_proof.other_stems;
    if others.windows(2).any(|p| p[0] >= p[1]) {
        broken.insert("canonical.other_stems_ascending");
    }
    let used = |o: &[u8; 31]| (1..=31).any(|n| absent_other_paths.contains(&o[..n]));
    if others.iter().any(|o| !used(o)) {
        broken.insert("canonical.other_stem_unused");
    }
}

/// A node of the proven tree (§6.2), as far as the structure rules need it.
#[derive(Debug, PartialEq, Eq)]
enum Node {
    Internal,
    Empty,
    /// A leaf, with whether a present stem holds it.
    Leaf {
        present: bool,
    },
    Suffix,
}

/// The rules of §6.1 steps 2–6 (W-STRUCT), each evaluated on its own where a tree exists.
fn structure(w: &OwnedExecutionWitness, broken: &mut BTreeSet<&'static str>) {
    let sd = &w.state_diff;
    let ext = &w.verkle_proof.depth_extension_present;
    if sd.is_empty() {
        broken.insert("structure.no_keys");
    }
    if sd.iter().any(|s| s.suffix_diffs.is_empty()) {
        broken.insert("structure.empty_stem");
    }
    let described = ext.len() == sd.len() && ext.iter().all(|b| b & 7 <= PRESENT && b >> 3 != 0);
    if !described {
        return;
    }
    let mut nodes: BTreeMap<Vec<u8>, Node> = BTreeMap::new();
    nodes.insert(Vec::new(), Node::Internal);
    let mut conflict = false;
    for (s, &byte) in sd.iter().zip(ext) {
        let (status, depth) = (byte & 7, usize::from(byte >> 3).min(31));
        for d in 0..depth {
            let node = nodes.entry(s.stem[..d].to_vec()).or_insert(Node::Internal);
            conflict |= *node != Node::Internal;
        }
        let path = s.stem[..depth].to_vec();
        let wanted = match status {
            0 => Node::Empty,
            ABSENT_OTHER => Node::Leaf { present: false },
            _ => Node::Leaf { present: true },
        };
        match (nodes.get_mut(&path), wanted) {
            (None, wanted) => {
                nodes.insert(path.clone(), wanted);
            }
            (Some(Node::Leaf { present }), Node::Leaf { present: new }) => {
                if *present && new {
                    // Two present stems on one leaf: their suffix trees share paths too,
                    // which is the same fault, not a conflict of its own.
                    broken.insert("structure.shared_leaf");
                    continue;
                }
                *present |= new;
            }
            (Some(found), wanted) => conflict |= *found != wanted,
        }
        if status == PRESENT {
            for half in [0u8, 1] {
                if s.suffix_diffs.iter().any(|d| d.suffix / 128 == half) {
                    let mut sp = path.clone();
                    sp.push(2 + half);
                    conflict |= nodes.insert(sp, Node::Suffix).is_some();
                }
            }
        }
    }
    if conflict {
        broken.insert("structure.path_conflict");
    }
    if conflict || broken.contains("structure.shared_leaf") {
        return;
    }
    let committed: Vec<(&Vec<u8>, &Node)> = nodes
        .iter()
        .filter(|(p, n)| !p.is_empty() && **n != Node::Empty)
        .collect();
    let commitments = &w.verkle_proof.commitments_by_path;
    if committed.len() != commitments.len() {
        broken.insert("structure.commitment_count");
    } else {
        let identity = committed
            .iter()
            .zip(commitments)
            .any(|((_, n), c)| matches!(n, Node::Internal | Node::Leaf { .. }) && *c == [0u8; 32]);
        if identity {
            broken.insert("structure.identity_commitment");
        }
    }
    let waiting: Vec<&Vec<u8>> = nodes
        .iter()
        .filter(|(_, n)| **n == Node::Leaf { present: false })
        .map(|(p, _)| p)
        .collect();
    let others = &w.verkle_proof.other_stems;
    if waiting.len() != others.len() {
        broken.insert("structure.other_stem_count");
        return;
    }
    for (path, other) in waiting.iter().zip(others) {
        if !other.starts_with(path) {
            broken.insert("structure.other_stem_off_path");
        }
        if sd.iter().any(|s| s.stem == *other) {
            broken.insert("structure.other_stem_in_state_diff");
        }
    }
}

/// W-DECODE-1: every point and the scalar, each by itself.
fn decoding(w: &OwnedExecutionWitness, root: &[u8; 32], broken: &mut BTreeSet<&'static str>) {
    let p = &w.verkle_proof;
    let bad = |b: &[u8; 32]| Element::from_bytes(b).is_err();
    if bad(&p.d) || p.ipa_proof.cl.iter().chain(&p.ipa_proof.cr).any(bad) {
        broken.insert("proof.point");
    }
    if fr_from_le_bytes_canonical(&p.ipa_proof.final_evaluation).is_err() {
        broken.insert("proof.scalar");
    }
    if bad(root) {
        broken.insert("decode.root");
    }
    if p.commitments_by_path.iter().any(bad) {
        broken.insert("decode.commitment");
    }
}

/// Every rule `w` breaks against `root`, each evaluated on its own (stages in the module
/// documentation). Fails when the verifier rejects a witness the audit finds no fault with,
/// or rejects one for a rule the audit did not find: the audit and the verifier disagree.
pub(super) fn broken_rules(
    w: &OwnedExecutionWitness,
    root: &[u8; 32],
) -> Result<BTreeSet<&'static str>, VectorError> {
    let mut broken = BTreeSet::new();
    canonical(w, &mut broken);
    structure(w, &mut broken);
    decoding(w, root, &mut broken);
    let verdict = w.to_witness().map_err(gen_err).map(|v| {
        witness::verify(root, &v)
            .map(|_| ())
            .map_err(|e| verify_rule(&e))
    })?;
    match verdict {
        Err("proof.rejected") if broken.is_empty() => {
            broken.insert("proof.rejected");
        }
        Err(rule) if !broken.contains(rule) => {
            return Err(VectorError::Generator(format!(
                "the verifier rejects for {rule}, the audit finds {broken:?}"
            )));
        }
        Ok(()) if !broken.is_empty() => {
            return Err(VectorError::Generator(format!(
                "the verifier accepts a witness breaking {broken:?}"
            )));
        }
        _ => {}
    }
    Ok(broken)
}

/// The rules a `witness` case breaks, from its JSON input (`None` for an SSZ-only case,
/// whose rule is an SSZ decoding rule and leaves no witness to audit).
fn case_rules(case: &serde_json::Value) -> Result<Option<BTreeSet<&'static str>>, VectorError> {
    let name = case
        .get("name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("?");
    let input = case.get("input");
    let Some(json) = input.and_then(|i| i.get("json")) else {
        return Ok(None);
    };
    let root = crate::at::Loc::root(case, name)
        .get("input")?
        .get("pre_state_root")?
        .hex_n::<32>()?;
    let w = witness::ExecutionWitness::from_json_value(json)
        .map_err(|e| VectorError::Generator(format!("{name}: {e}")))?
        .to_owned_witness();
    broken_rules(&w, &root)
        .map(Some)
        .map_err(|e| VectorError::Generator(format!("{name}: {e}")))
}

/// Confirms that every valid case breaks no rule and that every invalid one breaks its
/// `rule` and nothing else but the rules its `rules` list names; with `label`, first sets
/// `rules` on each invalid case that breaks more than one rule (to every rule it breaks).
pub(crate) fn audit_witness_cases(
    cases: &mut [serde_json::Value],
    label: bool,
) -> Result<(), VectorError> {
    for case in cases.iter_mut() {
        let name = case["name"].as_str().unwrap_or("?").to_owned();
        let Some(broken) = case_rules(case)? else {
            continue;
        };
        if case["valid"].as_bool() == Some(true) {
            if !broken.is_empty() {
                return Err(VectorError::Generator(format!(
                    "{name}: a valid case breaks {broken:?}"
                )));
            }
            continue;
        }
        let rule = case["rule"].as_str().unwrap_or("").to_owned();
        let rule = rule.as_str();
        if !broken.contains(rule) {
            return Err(VectorError::Generator(format!(
                "{name}: labelled {rule}, breaks {broken:?}"
            )));
        }
        if label && broken.len() > 1 {
            case["rules"] = serde_json::json!(broken);
        }
        let listed: BTreeSet<&str> = std::iter::once(rule)
            .chain(
                case["rules"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.as_str()),
            )
            .collect();
        let unnamed: Vec<&&str> = broken.iter().filter(|r| !listed.contains(**r)).collect();
        if !unnamed.is_empty() {
            return Err(VectorError::Generator(format!(
                "{name}: breaks {unnamed:?} besides the rules it names ({listed:?})"
            )));
        }
    }
    Ok(())
}

/// Audits the cases of a `witness` suite document: every valid case breaks no rule, and
/// every invalid case its `rule` and no rule its `rules` list leaves out, each rule evaluated
/// on its own (`vectors/README.md`, "One rule per case").
pub fn audit_suite_document(doc: &serde_json::Value) -> Result<(), VectorError> {
    let mut cases = doc
        .get("cases")
        .and_then(serde_json::Value::as_array)
        .cloned()
        .ok_or_else(|| VectorError::Generator("no `cases` array".into()))?;
    audit_witness_cases(&mut cases, false)
}
