//! Body of the `fractional_edits` fuzz target, also run by this crate's tests: structural
//! edits of honest fractional proofs (wire v2, deletions included) by a hostile prover who
//! then proves the multiproof again over the edited proof's openings wherever they are all
//! true (`verkle::fuzz::prover`; the transcript covers every byte of the proof, so without
//! that every edit fails the multiproof), verified under both anchors, the canonical
//! EIP-6800 root and the coordinator root. Whatever verifies must make only true claims
//! (`witness::fuzz::oracle`), its post-state roots included, which are checked against the
//! roots of the true sharded tree after the edited writes.
//!
//! The input's first byte picks one of the honest proofs ([`HONEST_PROOFS`], its value
//! modulo 3) and whether the prover proves again (bit 7 clear); every further choice picks
//! an edit and its arguments ([`FRACTIONAL_EDITS`] says what each does).

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use bytes::Bytes;
use verkle::fuzz::choices::Choices;
use verkle::fuzz::prover::Polys;
use verkle::fuzz::state;
use verkle::Tree;
use witness::fractional::{
    verify_fractional_bytes, Anchor, FractionalProof, OwnedFractionalProof, OwnedFractionalSuffix,
};
use witness::fuzz::openings::fractional_openings;
use witness::fuzz::oracle::{Checked, Roots, Truth, Writes};
use witness::keys::{TreeKey, Value};

use crate::{KeyOp, ShardConfig, ShardedTree};

/// The honest proofs an input starts from: reads, writes and deletions with the coordinator
/// path; the same without it (lean, state-root anchor only); a block that deletes the lone
/// leaf of a shard and every key of a stem beside others (the collapse rules).
pub const HONEST_PROOFS: usize = 3;

/// The edits, in the order the choices number them.
pub const FRACTIONAL_EDITS: [&str; 19] = [
    "drop a stem",
    "duplicate a stem",
    "swap two stems",
    "change a suffix",
    "flip a current value's presence",
    "flip a deletion bit",
    "change a new value (none, another, the current one)",
    "flip a bit of a current value",
    "swap two commitments",
    "replace a commitment (another one, the identity, the root)",
    "edit the internal witnesses (flip, drop, duplicate, insert, swap)",
    "edit the coordinator siblings (flip, drop, duplicate, swap, no path, empty path)",
    "edit the other stems (drop, duplicate, insert a proven stem)",
    "change an extension byte (status or depth)",
    "drop or add a suffix",
    "flip a bit of a stem",
    "set the shard depth to 2",
    "replace the root by a commitment",
    "flip a bit of the multiproof",
];

/// What became of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The edited proof does not encode (a count past its field).
    Unencodable,
    /// Rejected under both anchors.
    Rejected,
    /// Verified under at least one anchor, and every claim is true.
    Accepted(Checked),
}

struct Honest {
    proof: OwnedFractionalProof,
    truth: Truth,
}

struct World {
    state: BTreeMap<TreeKey, Value>,
    canonical: [u8; 32],
    coordinator: [u8; 32],
    proofs: Vec<Honest>,
    polys: Polys,
}

fn sharded(
    state: &BTreeMap<TreeKey, Value>,
    writes: &Writes,
) -> Result<ShardedTree, crate::FractionalError> {
    let mut tree = ShardedTree::in_memory(ShardConfig::default());
    let all: Vec<(TreeKey, Option<Value>)> = state.iter().map(|(k, v)| (*k, Some(*v))).collect();
    tree.apply(&all)?;
    if !writes.is_empty() {
        tree.apply(writes)?;
    }
    Ok(tree)
}

/// The blocks of [`HONEST_PROOFS`], with whether each carries the coordinator path.
fn blocks() -> Vec<(Vec<(TreeKey, KeyOp)>, bool)> {
    let value = |i: u64| verkle::fuzz::choices::bytes32(7000 + i);
    let mut a = Vec::new();
    for (i, k) in state::stem_keys(0).into_iter().enumerate() {
        a.push((
            k,
            if i % 2 == 0 {
                KeyOp::Read
            } else {
                KeyOp::Set(value(i as u64))
            },
        ));
    }
    for k in state::stem_keys(2) {
        a.push((k, KeyOp::Delete));
    }
    if let Some(k) = state::stem_keys(3).get(1) {
        a.push((*k, KeyOp::Delete));
    }
    for (i, k) in state::absent_keys().into_iter().enumerate() {
        let op = match i % 3 {
            0 => KeyOp::Read,
            1 => KeyOp::Set(value(100 + i as u64)),
            _ => KeyOp::Delete,
        };
        a.push((k, op));
    }
    let mut c = Vec::new();
    let n = state::stems().len();
    for k in state::stem_keys(n - 1) {
        c.push((k, KeyOp::Delete));
    }
    for k in state::stem_keys(5) {
        c.push((k, KeyOp::Delete));
    }
    if let Some(k) = state::stem_keys(6).first() {
        c.push((*k, KeyOp::Set(value(200))));
    }
    vec![(a.clone(), true), (a, false), (c, true)]
}

fn world() -> &'static World {
    static CELL: OnceLock<World> = OnceLock::new();
    CELL.get_or_init(|| {
        let state = state::state();
        let mut tree = sharded(&state, &Vec::new()).expect("the honest tree builds");
        let (canonical, coordinator) = (tree.canonical_root(), tree.coordinator_root());
        let proofs = blocks()
            .into_iter()
            .map(|(ops, coordinator_path)| {
                let proof = tree
                    .prove_fractional_ops(&ops, coordinator_path)
                    .expect("the honest proof");
                let bytes = proof.to_bytes().expect("the honest proof encodes");
                let v = verify_fractional_bytes(Bytes::from(bytes), &Anchor::StateRoot(canonical))
                    .expect("the honest proof verifies");
                let truth = Truth::of_fractional(&v)
                    .expect("the honest post-state roots")
                    .with_state(state.clone())
                    .with_coordinator_root(coordinator);
                Honest { proof, truth }
            })
            .collect();
        // The single tree over the same state has the same nodes (depth 1).
        let mut single = Tree::new();
        single
            .apply(state.iter().map(|(k, v)| (*k, Some(*v))))
            .expect("the single tree builds");
        assert_eq!(
            single.root_bytes(),
            canonical,
            "sharded and single roots agree"
        );
        let mut keys: Vec<TreeKey> = state.keys().copied().collect();
        keys.extend(state::absent_keys());
        let polys = Polys::of_tree(&mut single, &keys).expect("the tree's nodes");
        World {
            state,
            canonical,
            coordinator,
            proofs,
            polys,
        }
    })
}

/// The roots of the true sharded tree after `writes`, remembered for the writes seen last.
fn true_roots(w: &World, writes: &Writes) -> Option<Roots> {
    static CACHE: Mutex<BTreeMap<Writes, Roots>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = cache.get(writes) {
        return Some(*r);
    }
    let tree = sharded(&w.state, writes).ok()?;
    let roots = Roots {
        canonical: tree.canonical_root(),
        coordinator: Some(tree.coordinator_root()),
    };
    if cache.len() >= 4096 {
        cache.clear();
    }
    cache.insert(writes.clone(), roots);
    Some(roots)
}

/// A list edit: flip a bit of, drop, duplicate or swap an item, or insert `fresh`.
fn list_edit<const N: usize>(c: &mut Choices, list: &mut Vec<[u8; N]>, fresh: [u8; N]) {
    let n = list.len();
    let i = c.below(n);
    match (c.below(5), n) {
        (_, 0) | (4, _) => list.insert(c.below(n + 1), fresh),
        (0, _) => {
            if let Some(x) = list.get_mut(i) {
                c.flip(x);
            }
        }
        (1, _) => {
            list.remove(i);
        }
        (2, _) => list.insert(i, list[i]),
        _ => list.swap(i, c.below(n)),
    }
}

/// A suffix of `p` chosen by `c`: `(stem index, suffix index)`.
fn pick(c: &mut Choices, p: &OwnedFractionalProof) -> Option<(usize, usize)> {
    let i = c.below(p.stems.len());
    let n = p.stems.get(i)?.suffixes.len();
    (n > 0).then(|| (i, c.below(n)))
}

/// One edit of `p`, chosen by `c`.
fn edit(c: &mut Choices, p: &mut OwnedFractionalProof) {
    let op = c.below(FRACTIONAL_EDITS.len());
    let n = p.stems.len();
    match op {
        0..=2 | 13 | 15 if n > 0 => {
            let i = c.below(n);
            match op {
                0 => {
                    p.stems.remove(i);
                }
                1 => {
                    let s = p.stems[i].clone();
                    p.stems.insert(i, s);
                }
                2 => p.stems.swap(i, c.below(n)),
                13 => {
                    let e = &mut p.stems[i].ext;
                    *e = match c.below(3) {
                        0 => (*e & !7) | (((*e & 7) + 1 + c.byte() % 2) % 3),
                        1 => e.wrapping_add(8),
                        _ => e.wrapping_sub(8),
                    }
                }
                _ => c.flip(&mut p.stems[i].stem),
            }
        }
        3..=7 => {
            let Some((i, j)) = pick(c, p) else {
                return;
            };
            let x = &mut p.stems[i].suffixes[j];
            match op {
                3 => x.suffix = x.suffix.wrapping_add(1 + c.byte() % 4),
                4 => {
                    x.current_value = match x.current_value {
                        Some(_) => None,
                        None => Some(c.value()),
                    }
                }
                5 => x.deleted = !x.deleted,
                6 => {
                    x.new_value = match c.below(3) {
                        0 => None,
                        1 => Some(c.value()),
                        _ => x.current_value,
                    }
                }
                _ => {
                    if let Some(v) = x.current_value.as_mut() {
                        c.flip(v);
                    }
                }
            }
        }
        8 | 9 => {
            let m = p.commitments.len();
            if m == 0 {
                return;
            }
            let i = c.below(m);
            if op == 8 {
                p.commitments.swap(i, c.below(m));
            } else {
                p.commitments[i] = match c.below(3) {
                    0 => p.commitments[c.below(m)],
                    1 => [0u8; 32],
                    _ => p.root,
                };
            }
        }
        10 => {
            let mut fresh = c.value();
            fresh[31] &= 0x0f;
            list_edit(c, &mut p.internal_witnesses, fresh);
        }
        11 => match (c.below(6), p.siblings.as_mut()) {
            (0, _) => p.siblings = None,
            (1, _) => p.siblings = Some(Vec::new()),
            (_, Some(s)) => {
                let fresh = c.value();
                list_edit(c, s, fresh);
            }
            (_, None) => {}
        },
        12 => {
            let fresh = match p.stems.get(c.below(n)) {
                Some(s) => s.stem,
                None => [0u8; 31],
            };
            list_edit(c, &mut p.other_stems, fresh);
        }
        14 => {
            let i = c.below(n);
            let Some(st) = p.stems.get_mut(i) else {
                return;
            };
            if c.flag() && !st.suffixes.is_empty() {
                let j = c.below(st.suffixes.len());
                st.suffixes.remove(j);
            } else {
                let suffix = c.byte();
                let at = st.suffixes.partition_point(|x| x.suffix < suffix);
                let current_value = c.flag().then(|| c.value());
                let new_value = c.flag().then(|| c.value());
                st.suffixes.insert(
                    at,
                    OwnedFractionalSuffix {
                        suffix,
                        current_value,
                        new_value,
                        deleted: false,
                    },
                );
            }
        }
        16 => p.depth = 2,
        17 => {
            if let Some(x) = p.commitments.get(c.below(p.commitments.len())) {
                p.root = *x;
            }
        }
        18 => {
            let at = c.below(p.multiproof.len());
            if let Some(b) = p.multiproof.get_mut(at) {
                *b ^= 1 << (c.byte() % 8);
            }
        }
        _ => {}
    }
}

/// Proves `p`'s multiproof again when the openings it makes the verifier check are all
/// true; otherwise leaves it as it is.
fn reprove(w: &World, p: &mut OwnedFractionalProof) {
    let Ok(bytes) = p.to_bytes() else {
        return;
    };
    let Ok(decoded) = FractionalProof::from_bytes(Bytes::from(bytes)) else {
        return;
    };
    let Ok((openings, transcript)) = fractional_openings(&decoded) else {
        return;
    };
    if let Some(proof) = w.polys.prove(&openings, transcript) {
        p.multiproof = proof.to_bytes();
    }
}

/// Applies the edits `data` chooses (up to 16) to the honest proof its first byte picks,
/// verifies the result under the canonical-root anchor and under the coordinator-root
/// anchor and, where it verifies, holds it to the truth.
///
/// # Panics
/// When a verified proof makes a false claim (a root, a node, a current value, a
/// post-state root), or when the honest proofs cannot be built (a bug of the prover).
pub fn fractional_edits(data: &[u8]) -> Outcome {
    let w = world();
    let mut c = Choices::new(data);
    let first = c.byte();
    let Some(honest) = w.proofs.get(usize::from(first) % HONEST_PROOFS) else {
        return Outcome::Rejected;
    };
    let mut p = honest.proof.clone();
    for _ in 0..16 {
        if c.is_exhausted() {
            break;
        }
        edit(&mut c, &mut p);
    }
    if first & 0x80 == 0 {
        reprove(w, &mut p);
    }
    let Ok(bytes) = p.to_bytes() else {
        return Outcome::Unencodable;
    };
    let bytes = Bytes::from(bytes);
    let mut outcome = Outcome::Rejected;
    for anchor in [
        Anchor::StateRoot(w.canonical),
        Anchor::CoordinatorRoot(w.coordinator),
    ] {
        let Ok(v) = verify_fractional_bytes(bytes.clone(), &anchor) else {
            continue;
        };
        let mut true_post = |writes: &Writes| true_roots(w, writes);
        match honest
            .truth
            .check_fractional(&v, &anchor, Some(&mut true_post))
        {
            Ok(checked) => outcome = Outcome::Accepted(checked),
            Err(claim) => {
                panic!("a proof verified under {anchor:?} makes a false claim: {claim}")
            }
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use verkle::fuzz::corpus;

    #[test]
    fn every_honest_proof_is_accepted_with_its_own_post_state_roots() {
        for k in 0..HONEST_PROOFS as u8 {
            let Outcome::Accepted(c) = fractional_edits(&[k]) else {
                panic!("honest proof {k} is rejected");
            };
            assert!(c.post_state && c.same_writes, "honest proof {k}: {c:?}");
        }
    }

    #[test]
    fn a_new_value_edit_is_accepted_with_the_true_trees_roots() {
        // Proof 0; edit 6 (a new value) of stem 0, suffix 1; another value.
        let Outcome::Accepted(c) = fractional_edits(&[0, 6, 0, 1, 1, 42]) else {
            panic!("a changed new value is rejected");
        };
        assert!(c.post_state && !c.same_writes, "{c:?}");
    }

    #[test]
    fn a_flipped_current_value_is_rejected() {
        // Proof 0; edit 7 (a bit of a current value) of stem 1, suffix 0.
        assert_eq!(fractional_edits(&[0, 7, 1, 0, 3]), Outcome::Rejected);
    }

    #[test]
    fn without_proving_again_a_new_value_edit_fails_the_transcript() {
        assert_eq!(fractional_edits(&[0x80, 6, 0, 1, 1, 42]), Outcome::Rejected);
    }

    #[test]
    fn a_flipped_sibling_is_unproven_under_the_state_root_and_rejected_under_the_coordinator_root()
    {
        // Proof 0, proven again; edit 11 (the siblings): flip bit 0 of sibling 0. The
        // coordinator root it then reports under a state-root anchor is not a claim (§5.2).
        let Outcome::Accepted(c) = fractional_edits(&[87, 87, 65]) else {
            panic!("the state-root anchor rejects a proof whose siblings it does not bind");
        };
        assert!(c.post_state && c.same_writes, "{c:?}");
        let w = world();
        let mut p = w.proofs[0].proof.clone();
        if let Some(s) = p.siblings.as_mut().and_then(|s| s.first_mut()) {
            s[0] ^= 1;
        }
        reprove(w, &mut p);
        let bytes = Bytes::from(p.to_bytes().expect("encodes"));
        assert!(verify_fractional_bytes(bytes, &Anchor::CoordinatorRoot(w.coordinator)).is_err());
    }

    #[test]
    fn an_absent_stem_moved_to_another_empty_slot_is_a_true_claim() {
        // Proof 0, proven again; edit 15 (a bit of a stem) of stem 5 (absent under the
        // root's empty slot 0x55): bit 0 of byte 0, so the absence is claimed at slot
        // 0x54, which the honest proof does not open and which is empty too.
        let Outcome::Accepted(c) = fractional_edits(&[15, 15, 47]) else {
            panic!("a true absence at another empty slot is rejected");
        };
        assert!(c.post_state, "{c:?}");
    }

    #[test]
    fn the_committed_corpus_and_seeded_inputs_keep_every_claim_true() {
        let inputs = corpus::inputs("fractional_edits", 96);
        let accepted = inputs
            .iter()
            .filter(|i| matches!(fractional_edits(i), Outcome::Accepted(_)))
            .count();
        assert!(accepted > 0, "no input of {} was accepted", inputs.len());
    }
}
