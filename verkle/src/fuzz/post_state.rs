//! Body of the `post_state` fuzz target: a standard witness whose suffix diffs a hostile
//! prover edits (new values, current values, suffix diffs added and removed) and whose
//! multiproof it then proves again over the openings the edited witness makes the verifier
//! check, where they are all true (`prover`), verified against the honest pre-state root;
//! whatever verifies must prove true current values and a post-state root equal to the root
//! the true tree has after the edited writes.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use witness::fuzz::openings::{witness_openings, CheckedOpening};
use witness::fuzz::oracle::{Checked, Roots, Truth, Writes};
use witness::keys::{TreeKey, Value};
use witness::owned::{OwnedExecutionWitness, OwnedSuffixStateDiff};

use super::choices::Choices;
use super::prover::{set_multiproof, Polys};
use super::state;
use crate::Tree;

/// What became of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The edited witness does not encode (a list past its SSZ bound).
    Unencodable,
    /// Decoding or verification rejected it.
    Rejected,
    /// It verified and every claim is true.
    Accepted(Checked),
}

/// The honest witness, its pre-state root and its truth.
struct Honest {
    root: [u8; 32],
    witness: OwnedExecutionWitness,
    truth: Truth,
    state: BTreeMap<TreeKey, Value>,
    /// The openings the honest witness makes the verifier check.
    openings: Vec<CheckedOpening>,
    polys: Polys,
}

/// The keys of the honest block: reads and writes of present keys (one write of a key's
/// own value), reads and writes of absent keys of every kind.
fn block() -> Vec<(TreeKey, Option<Value>)> {
    let mut keys = Vec::new();
    for (i, k) in state::stem_keys(0).into_iter().enumerate() {
        keys.push((k, (i % 2 == 1).then(|| super::choices::bytes32(i as u64))));
    }
    for k in state::stem_keys(1).into_iter().take(2) {
        keys.push((k, None));
    }
    let st = state::state();
    if let Some(k) = state::stem_keys(4).first() {
        keys.push((*k, st.get(k).copied()));
    }
    if let Some(k) = state::stem_keys(7).get(3) {
        keys.push((*k, Some([7u8; 32])));
    }
    for (i, k) in state::absent_keys().into_iter().enumerate() {
        keys.push((
            k,
            (i % 2 == 0).then(|| super::choices::bytes32(50 + i as u64)),
        ));
    }
    keys
}

fn tree_of(state: &BTreeMap<TreeKey, Value>, writes: &Writes) -> Result<Tree, crate::TreeError> {
    let mut tree = Tree::new();
    tree.apply(state.iter().map(|(k, v)| (*k, Some(*v))))?;
    tree.apply(writes.iter().copied())?;
    Ok(tree)
}

fn honest() -> &'static Honest {
    static CELL: OnceLock<Honest> = OnceLock::new();
    CELL.get_or_init(|| {
        let state = state::state();
        let mut tree = tree_of(&state, &Vec::new()).expect("the honest tree builds");
        let root = tree.root_bytes();
        let (witness, _) = tree.prove_bound(&block()).expect("the honest witness");
        let w = witness.to_witness().expect("the honest witness encodes");
        let v = witness::verify(&root, &w).expect("the honest witness verifies");
        assert_eq!(
            v.unbound_absences(),
            0,
            "the honest witness binds every absence"
        );
        let truth = Truth::of_witness(&v)
            .expect("the honest post-state root")
            .with_state(state.clone());
        let (openings, _) = witness_openings(&root, &w).expect("the honest openings");
        let mut keys: Vec<TreeKey> = state.keys().copied().collect();
        keys.extend(block().iter().map(|(k, _)| *k));
        let polys = Polys::of_tree(&mut tree, &keys).expect("the honest tree's nodes");
        Honest {
            root,
            witness,
            truth,
            state,
            openings,
            polys,
        }
    })
}

/// The root of the true tree after `writes`, remembered for the writes seen last.
fn true_root(h: &Honest, writes: &Writes) -> Option<Roots> {
    static CACHE: Mutex<BTreeMap<Writes, [u8; 32]>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = cache.get(writes) {
        return Some(Roots {
            canonical: *r,
            coordinator: None,
        });
    }
    let root = tree_of(&h.state, writes).ok()?.root_bytes();
    if cache.len() >= 4096 {
        cache.clear();
    }
    cache.insert(writes.clone(), root);
    Some(Roots {
        canonical: root,
        coordinator: None,
    })
}

/// A suffix diff of `w` chosen by `c`: `(stem index, diff index)`.
fn pick(c: &mut Choices, w: &OwnedExecutionWitness) -> Option<(usize, usize)> {
    let i = c.below(w.state_diff.len());
    let n = w.state_diff.get(i)?.suffix_diffs.len();
    (n > 0).then(|| (i, c.below(n)))
}

/// One edit of the state diff, chosen by `c`.
fn edit(c: &mut Choices, w: &mut OwnedExecutionWitness, state: &BTreeMap<TreeKey, Value>) {
    let op = c.below(8);
    if op == 4 {
        // A suffix diff added, in order or not, with a true, false or missing current value.
        let i = c.below(w.state_diff.len());
        let Some(sd) = w.state_diff.get_mut(i) else {
            return;
        };
        let suffix = c.byte();
        let mut k = [0u8; 32];
        k[..31].copy_from_slice(&sd.stem);
        k[31] = suffix;
        let current = match c.below(3) {
            0 => state.get(&k).copied(),
            1 => None,
            _ => Some(c.value()),
        };
        let new_value = c.flag().then(|| c.value());
        let at = if c.flag() {
            sd.suffix_diffs.partition_point(|d| d.suffix < suffix)
        } else {
            c.below(sd.suffix_diffs.len() + 1)
        };
        sd.suffix_diffs.insert(
            at,
            OwnedSuffixStateDiff {
                suffix,
                current_value: current,
                new_value,
            },
        );
        return;
    }
    let Some((i, j)) = pick(c, w) else {
        return;
    };
    if op == 6 {
        // Two diffs swap their new values.
        let Some((i2, j2)) = pick(c, w) else {
            return;
        };
        let a = w.state_diff[i].suffix_diffs[j].new_value;
        let b = w.state_diff[i2].suffix_diffs[j2].new_value;
        w.state_diff[i].suffix_diffs[j].new_value = b;
        w.state_diff[i2].suffix_diffs[j2].new_value = a;
        return;
    }
    let sd = &mut w.state_diff[i].suffix_diffs;
    if op == 5 {
        sd.remove(j);
        return;
    }
    let d = &mut sd[j];
    match op {
        0 => d.new_value = None,
        1 => {
            d.new_value = Some(match d.new_value {
                Some(mut v) if c.flag() => {
                    c.flip(&mut v);
                    v
                }
                _ => c.value(),
            })
        }
        2 => d.new_value = d.current_value,
        3 => {
            d.current_value = match (c.below(3), d.current_value) {
                (0, _) => None,
                (1, Some(mut v)) => {
                    c.flip(&mut v);
                    Some(v)
                }
                _ => Some(c.value()),
            }
        }
        _ => d.suffix = d.suffix.wrapping_add(1 + c.byte() % 4),
    }
}

/// Proves `w`'s multiproof again when the openings it makes the verifier check are not the
/// honest ones and are all true; otherwise leaves it as it is.
fn reprove(h: &Honest, w: &mut OwnedExecutionWitness) {
    let Ok(encoded) = w.to_witness() else {
        return;
    };
    let Ok((openings, transcript)) = witness_openings(&h.root, &encoded) else {
        return;
    };
    if openings == h.openings {
        return;
    }
    if let Some(proof) = h.polys.prove(&openings, transcript) {
        set_multiproof(w, &proof);
    }
}

/// Applies the edits `data` chooses (up to 16) to the honest witness, proves its multiproof
/// again where a prover could, verifies the result against the honest pre-state root and,
/// when it verifies, holds it to the truth.
///
/// # Panics
/// When an accepted witness makes a false claim (a current value, a node or its post-state
/// root), or when the honest witness cannot be built (a bug of the prover).
pub fn post_state(data: &[u8]) -> Outcome {
    let h = honest();
    let mut c = Choices::new(data);
    let mut w = h.witness.clone();
    for _ in 0..16 {
        if c.is_exhausted() {
            break;
        }
        edit(&mut c, &mut w, &h.state);
    }
    reprove(h, &mut w);
    let Ok(witness) = w.to_witness() else {
        return Outcome::Unencodable;
    };
    let Ok(v) = witness::verify(&h.root, &witness) else {
        return Outcome::Rejected;
    };
    let mut true_post = |writes: &Writes| true_root(h, writes);
    match h.truth.check_witness(&v, Some(&mut true_post)) {
        Ok(checked) => Outcome::Accepted(checked),
        Err(claim) => panic!("an accepted witness makes a false claim: {claim}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::corpus;

    #[test]
    fn the_honest_witness_is_accepted_with_its_own_post_state_root() {
        let Outcome::Accepted(c) = post_state(&[]) else {
            panic!("the honest witness is rejected");
        };
        assert!(c.post_state && c.same_writes);
    }

    #[test]
    fn a_changed_new_value_is_accepted_with_the_true_tree_root() {
        // op 1 (a new value), diff 0 of stem 0, a fresh value.
        let Outcome::Accepted(c) = post_state(&[1, 0, 0, 0, 9]) else {
            panic!("a changed new value is rejected");
        };
        assert!(c.post_state && !c.same_writes);
    }

    #[test]
    fn a_false_current_value_is_rejected() {
        // op 3 (a current value), diff 0 of stem 0, set to a fresh value.
        assert_eq!(post_state(&[3, 0, 0, 2, 5]), Outcome::Rejected);
    }

    #[test]
    fn a_true_suffix_diff_added_is_proven_again_and_accepted() {
        // op 4 (a suffix diff added) to the stem `state::stems()[1]`, of which the block
        // reads suffixes 0 and 1: suffix 64 (held, not read), its true current value, no
        // new value, in order.
        let stem = state::stems()[1];
        let i = honest()
            .witness
            .state_diff
            .iter()
            .position(|s| s.stem == stem)
            .expect("the block names the stem");
        let Outcome::Accepted(c) = post_state(&[4, i as u8, 64, 0, 0, 1]) else {
            panic!("a true suffix diff added is rejected");
        };
        assert!(c.post_state && c.same_writes, "{c:?}");
    }

    #[test]
    fn the_committed_corpus_and_seeded_inputs_keep_every_claim_true() {
        let mut accepted = 0;
        let inputs = corpus::inputs("post_state", 64);
        for input in &inputs {
            if let Outcome::Accepted(_) = post_state(input) {
                accepted += 1;
            }
        }
        assert!(accepted > 0, "no input of {} was accepted", inputs.len());
    }
}
