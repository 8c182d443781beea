//! Generated execution witnesses: valid ones proven by `verkle::Tree::prove_with_new_values`
//! from a seeded tree, and negative ones made by mutating them, each naming the rule broken;
//! then the hostile constructions of [`super::hostile`].

use std::collections::BTreeMap;

use serde_json::{json, Value};
use verkle::Tree;
use witness::owned::OwnedExecutionWitness;

use super::audit::audit_witness_cases;
use super::case::{
    bm, gen_err, invalid, key, suite_file, valid, ByteMutation, Key, Stem, SuiteFile, Value32,
};
use super::crypto::{first_x_failing_with, P_BE};
use super::rng::Rng;
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::Kind;

fn with_byte(stem: &Stem, at: usize, xor: u8) -> Stem {
    let mut s = *stem;
    s[at] ^= xor;
    s
}

/// The seeded pre-state and the stems the scenarios refer to.
struct World {
    leaves: BTreeMap<Key, Value32>,
    /// Random stems; `random[0]` holds suffixes below 128 only.
    random: Vec<Stem>,
    /// Two stems sharing 30 bytes.
    deep: [Stem; 2],
    /// Two stems sharing 3 bytes.
    mid: [Stem; 2],
    /// A stem whose first byte no stem of the tree has.
    empty_first_byte: Stem,
    rng: Rng,
}

impl World {
    fn new() -> World {
        let mut rng = Rng::new(0x0007_0001);
        let random: Vec<Stem> = (0..20).map(|_| rng.bytes::<31>()).collect();
        let d = rng.bytes::<31>();
        let deep = [d, with_byte(&d, 30, 0x01)];
        let m = rng.bytes::<31>();
        let mut m2 = m;
        m2[3..].copy_from_slice(&rng.bytes::<31>()[3..]);
        if m2[3] == m[3] {
            m2[3] ^= 0x80;
        }
        let mut leaves = BTreeMap::new();
        for &s in [0u8, 1, 2, 3, 64].iter() {
            leaves.insert(key(&random[0], s), rng.bytes::<32>());
        }
        let others: Vec<Stem> = random[1..]
            .iter()
            .chain(&deep)
            .chain(&[m, m2])
            .copied()
            .collect();
        for stem in &others {
            leaves.insert(key(stem, 0), rng.bytes::<32>());
            leaves.insert(key(stem, 128 + rng.below(128) as u8), rng.bytes::<32>());
            for _ in 0..rng.below(4) {
                leaves.insert(key(stem, rng.below(256) as u8), rng.bytes::<32>());
            }
        }
        let used: Vec<u8> = leaves.keys().map(|k| k[0]).collect();
        let first = (0..=255u8).find(|b| !used.contains(b)).unwrap_or(0);
        let mut empty_first_byte = rng.bytes::<31>();
        empty_first_byte[0] = first;
        World {
            leaves,
            random,
            deep,
            mid: [m, m2],
            empty_first_byte,
            rng,
        }
    }

    fn tree(&self, writes: &[(Key, Option<Value32>)]) -> Result<Tree, VectorError> {
        let mut t = Tree::new();
        t.apply(self.leaves.iter().map(|(k, v)| (*k, Some(*v))))
            .map_err(gen_err)?;
        t.apply(writes.iter().filter_map(|(k, v)| v.map(|v| (*k, Some(v)))))
            .map_err(gen_err)?;
        Ok(t)
    }

    /// An existing suffix of `stem` (the smallest, or the smallest ≥ 128 if `high`).
    fn existing(&self, stem: &Stem, high: bool) -> u8 {
        self.leaves
            .keys()
            .filter(|k| k[..31] == stem[..] && (k[31] >= 128) == high)
            .map(|k| k[31])
            .next()
            .unwrap_or(0)
    }
}

/// A proven scenario: the witness, its pre-state root and post-state root.
struct Proven {
    name: &'static str,
    description: &'static str,
    witness: OwnedExecutionWitness,
    pre: [u8; 32],
    post: [u8; 32],
}

fn prove(
    world: &World,
    name: &'static str,
    description: &'static str,
    keys: Vec<(Key, Option<Value32>)>,
) -> Result<Proven, VectorError> {
    let mut pre_tree = world.tree(&[])?;
    let pre = pre_tree.root_bytes();
    let witness = pre_tree.prove_with_new_values(&keys).map_err(gen_err)?;
    let post = world.tree(&keys)?.root_bytes();
    Ok(Proven {
        name,
        description,
        witness,
        pre,
        post,
    })
}

fn scenarios(world: &mut World) -> Result<Vec<Proven>, VectorError> {
    let r = world.random.clone();
    let low_only = r[0];
    let other_a = with_byte(&r[2], 30, 0x01);
    let other_b = with_byte(&r[2], 29, 0x01);
    let other_c = with_byte(&r[3], 30, 0x01);
    let [d1, d2] = world.deep;
    let [m1, m2] = world.mid;
    let m3 = with_byte(&m1, 3, 0x40);
    let e = world.empty_first_byte;
    let e2 = with_byte(&e, 30, 0x02);
    let chain = with_byte(&r[5], 30, 0x01);
    let mut v = || world.rng.bytes::<32>();
    let (v1, v2, v3, v4, v5, v6, v7) = (v(), v(), v(), v(), v(), v(), v());
    let r1_low = world.existing(&r[1], false);
    let r1_high = world.existing(&r[1], true);
    let r4_low = world.existing(&r[4], false);
    let mut out = vec![
        prove(world, "present_one_key", "one present key", vec![(key(&low_only, 1), None)])?,
        prove(world, "present_both_halves", "keys of both halves of a present stem, and an absent suffix of it", vec![
            (key(&r[1], r1_low), None), (key(&r[1], r1_high), None), (key(&r[1], 127), None)])?,
        prove(world, "empty_suffix_tree", "a present key and an absent suffix >= 128 of a stem with no suffix >= 128: C2 is listed as the identity", vec![
            (key(&low_only, 1), None), (key(&low_only, 130), None)])?,
        prove(world, "absent_empty", "two keys of a stem whose slot at depth 1 is empty", vec![(key(&e, 0), None), (key(&e, 5), None)])?,
        prove(world, "absent_other", "two keys of a stem ending at another stem's leaf", vec![(key(&other_a, 0), None), (key(&other_a, 129), None)])?,
        prove(world, "absent_other_shared_leaf", "two absent stems ending at the same leaf: one other stem", vec![
            (key(&other_a, 3), None), (key(&other_b, 3), None)])?,
        prove(world, "absent_other_beside_present", "an absent stem ending at the leaf of a present stem of the witness: no other stem", vec![
            (key(&r[2], 0), None), (key(&other_a, 0), None)])?,
        prove(world, "absent_other_two_leaves", "absent stems at two different leaves: two other stems, sorted", vec![
            (key(&other_a, 1), None), (key(&other_c, 1), None)])?,
        prove(world, "deep_path", "two present stems sharing 30 bytes: 30 internal nodes", vec![(key(&d1, 0), None), (key(&d2, 0), None)])?,
        prove(world, "shared_prefix_and_absent", "two stems sharing 3 bytes and an absent stem branching at byte 3", vec![
            (key(&m1, 0), None), (key(&m2, 0), None), (key(&m3, 0), None)])?,
        prove(world, "block_with_writes", "reads and writes: updates, a new suffix, new stems in an empty slot and at another stem's leaf", vec![
            (key(&r[4], r4_low), Some(v1)), (key(&r[4], 77), Some(v2)), (key(&r[6], 0), None),
            (key(&e, 1), Some(v3)), (key(&e2, 200), Some(v4)), (key(&other_a, 9), Some(v5)), (key(&d1, 0), Some(v6))])?,
        prove(world, "new_stem_below_a_leaf", "a write to an absent stem sharing 30 bytes with the leaf at its path: the post-state adds a chain of internal nodes", vec![
            (key(&chain, 4), Some(v7))])?,
    ];
    // Every stem once, about half written.
    let mut all = Vec::new();
    let stems: Vec<Stem> = r
        .iter()
        .chain(&[d1, d2, m1, m2, m3, e, other_a, other_c])
        .copied()
        .collect();
    for (i, s) in stems.iter().enumerate() {
        let new = (i % 2 == 0).then(|| world.rng.bytes::<32>());
        all.push((key(s, 0), new));
        all.push((key(s, 255), None));
    }
    out.push(prove(world, "many_stems", "two keys on each of 28 stems (present, absent-empty, absent-other), every other stem written", all)?);
    Ok(out)
}

fn witness_json(w: &OwnedExecutionWitness) -> Result<Value, VectorError> {
    Ok(w.to_witness().map_err(gen_err)?.to_json_value())
}

fn ssz_hex(w: &OwnedExecutionWitness) -> Result<String, VectorError> {
    Ok(hex0x(&w.to_ssz().map_err(gen_err)?))
}

/// A mutation of a valid scenario's witness (and pre-state root).
type Mutation = super::case::Mutation<OwnedExecutionWitness>;

fn m(f: impl Fn(&mut OwnedExecutionWitness, &mut [u8; 32]) + 'static) -> Mutation {
    super::case::m(f)
}

fn le_increment(word: &mut [u8; 32]) {
    for b in word.iter_mut() {
        let (v, carry) = b.overflowing_add(1);
        *b = v;
        if !carry {
            break;
        }
    }
}

fn mutations(
    not_on_curve: [u8; 32],
    other_root: [u8; 32],
) -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Mutation,
)> {
    vec![
        ("stems_not_ascending", "many_stems", "the first two stems (and their status bytes) swapped", "canonical.stems_ascending",
            m(|w, _| { w.state_diff.swap(0, 1); w.verkle_proof.depth_extension_present.swap(0, 1); })),
        ("suffixes_not_ascending", "present_both_halves", "the suffix diffs of the stem reversed", "canonical.suffixes_ascending",
            m(|w, _| w.state_diff[0].suffix_diffs.reverse())),
        ("suffix_repeated", "present_both_halves", "the first suffix diff listed twice", "canonical.suffixes_ascending",
            m(|w, _| { let d = w.state_diff[0].suffix_diffs[0].clone(); w.state_diff[0].suffix_diffs.insert(0, d); })),
        ("status_byte_missing", "many_stems", "the last depth_extension_present byte removed", "canonical.extension_status_count",
            m(|w, _| { w.verkle_proof.depth_extension_present.pop(); })),
        ("status_byte_extra", "present_one_key", "a second status byte for one stem", "canonical.extension_status_count",
            m(|w, _| { let b = w.verkle_proof.depth_extension_present[0]; w.verkle_proof.depth_extension_present.push(b); })),
        ("extension_status_3", "present_one_key", "extension status 3", "canonical.extension_status",
            m(|w, _| w.verkle_proof.depth_extension_present[0] = (w.verkle_proof.depth_extension_present[0] & !7) | 3)),
        ("depth_zero", "present_one_key", "depth 0", "canonical.depth_zero",
            m(|w, _| w.verkle_proof.depth_extension_present[0] &= 7)),
        ("absent_stem_with_current_value", "absent_other", "a current value on a key of the absent stem", "canonical.absent_current_value",
            m(|w, _| w.state_diff[0].suffix_diffs[0].current_value = Some([1; 32]))),
        ("other_stems_not_ascending", "absent_other_two_leaves", "the two other stems swapped", "canonical.other_stems_ascending",
            m(|w, _| w.verkle_proof.other_stems.swap(0, 1))),
        ("other_stem_repeated", "absent_other", "the other stem listed twice", "canonical.other_stems_ascending",
            m(|w, _| { let s = w.verkle_proof.other_stems[0]; w.verkle_proof.other_stems.push(s); })),
        ("other_stem_unused", "absent_other", "an extra other stem 0xff…ff on no absent-other path", "canonical.other_stem_unused",
            m(|w, _| w.verkle_proof.other_stems.push([0xff; 31]))),
        ("no_keys", "present_one_key", "an empty state diff (and no status bytes or commitments)", "structure.no_keys",
            m(|w, _| { w.state_diff.clear(); w.verkle_proof.depth_extension_present.clear(); w.verkle_proof.commitments_by_path.clear(); })),
        ("stem_without_suffix_diffs", "present_both_halves", "the stem's suffix diffs removed, and with them its C1 and C2 (the last two commitments)", "structure.empty_stem",
            m(|w, _| { w.state_diff[0].suffix_diffs.clear(); w.verkle_proof.commitments_by_path.truncate(w.verkle_proof.commitments_by_path.len().saturating_sub(2)); })),
        ("leaf_on_an_internal_node", "deep_path", "the first stem's depth 30 instead of 31: its leaf where the other's path needs an internal node", "structure.path_conflict",
            m(|w, _| w.verkle_proof.depth_extension_present[0] = (30 << 3) | 2)),
        ("two_present_stems_one_leaf", "deep_path", "both stems present at depth 30 (one leaf path)", "structure.shared_leaf",
            m(|w, _| { w.verkle_proof.depth_extension_present[0] = (30 << 3) | 2; w.verkle_proof.depth_extension_present[1] = (30 << 3) | 2; })),
        ("other_stem_missing", "absent_other_two_leaves", "the second other stem removed", "structure.other_stem_count",
            m(|w, _| { w.verkle_proof.other_stems.pop(); })),
        ("other_stem_on_the_wrong_leaf", "absent_other_two_leaves", "the first other stem replaced by a stem on the second leaf's path (sorted before the second other stem, and no stem of the state diff)", "structure.other_stem_off_path",
            m(|w, _| {
                let second = w.verkle_proof.other_stems[1];
                let mut on_path = (1..=second[30]).map(|d| { let mut s = second; s[30] -= d; s });
                let free = on_path.find(|s| w.state_diff.iter().all(|d| d.stem != *s));
                if let Some(s) = free { w.verkle_proof.other_stems[0] = s; }
            })),
        ("other_stem_is_the_absent_stem", "absent_other", "the other stem replaced by the absent stem itself", "structure.other_stem_in_state_diff",
            m(|w, _| w.verkle_proof.other_stems[0] = w.state_diff[0].stem)),
        ("commitment_missing", "present_both_halves", "the last commitment removed", "structure.commitment_count",
            m(|w, _| { w.verkle_proof.commitments_by_path.pop(); })),
        ("commitment_extra", "present_both_halves", "a commitment appended", "structure.commitment_count",
            m(|w, _| { let c = w.verkle_proof.commitments_by_path[0]; w.verkle_proof.commitments_by_path.push(c); })),
        ("root_not_a_point", "present_one_key", "pre-state root with x = 2^256 - 1", "decode.root",
            m(|_, root| *root = [0xff; 32])),
        ("commitment_not_a_point", "present_both_halves", "commitments_by_path[0] with x = p", "decode.commitment",
            m(|w, _| w.verkle_proof.commitments_by_path[0] = P_BE)),
        ("commitment_not_on_curve", "present_both_halves", "the last commitment not on the curve", "decode.commitment",
            m(move |w, _| { if let Some(c) = w.verkle_proof.commitments_by_path.last_mut() { *c = not_on_curve; } })),
        ("d_not_a_point", "present_one_key", "d with x = p", "proof.point",
            m(|w, _| w.verkle_proof.d = P_BE)),
        ("cl3_not_on_curve", "present_one_key", "ipa_proof.cl[3] not on the curve", "proof.point",
            m(move |w, _| w.verkle_proof.ipa_proof.cl[3] = not_on_curve)),
        ("final_evaluation_not_canonical", "present_one_key", "final_evaluation = 2^256 - 1 (>= r)", "proof.scalar",
            m(|w, _| w.verkle_proof.ipa_proof.final_evaluation = [0xff; 32])),
        ("wrong_current_value", "present_both_halves", "one byte of a current value changed", "proof.rejected",
            m(|w, _| { if let Some(v) = w.state_diff[0].suffix_diffs[0].current_value.as_mut() { v[0] ^= 1; } })),
        ("present_value_claimed_absent", "present_one_key", "the present key's current value replaced by null", "proof.rejected",
            m(|w, _| w.state_diff[0].suffix_diffs[0].current_value = None)),
        ("absent_key_claimed_present", "empty_suffix_tree", "a value claimed for the absent suffix 130", "proof.rejected",
            m(|w, _| w.state_diff[0].suffix_diffs[1].current_value = Some([0; 32]))),
        ("stem_changed", "present_one_key", "the stem's last byte changed (still at the same leaf path)", "proof.rejected",
            m(|w, _| w.state_diff[0].stem[30] ^= 1)),
        ("status_present_to_absent_other", "present_one_key", "a present stem declared absent-other: its value dropped, its stem given as the other stem, its C1 commitment removed", "proof.rejected",
            m(|w, _| {
                let stem = w.state_diff[0].stem;
                w.state_diff[0].stem[30] ^= 1;
                w.state_diff[0].suffix_diffs[0].current_value = None;
                w.verkle_proof.depth_extension_present[0] = (w.verkle_proof.depth_extension_present[0] & !7) | 1;
                w.verkle_proof.other_stems = vec![stem];
                // An absent-other leaf lists no suffix tree: drop C1, the last path.
                w.verkle_proof.commitments_by_path.pop();
            })),
        ("other_stem_changed", "absent_other", "the other stem's last byte changed", "proof.rejected",
            m(|w, _| w.verkle_proof.other_stems[0][30] ^= 0x80)),
        ("commitments_swapped", "present_both_halves", "the first two commitments swapped", "proof.rejected",
            m(|w, _| w.verkle_proof.commitments_by_path.swap(0, 1))),
        ("d_replaced", "present_one_key", "d replaced by another valid point (a commitment of the proof)", "proof.rejected",
            m(|w, _| w.verkle_proof.d = w.verkle_proof.commitments_by_path[0])),
        ("cl_cr_swapped", "present_one_key", "ipa_proof.cl[0] and cr[0] swapped", "proof.rejected",
            m(|w, _| { let p = &mut w.verkle_proof.ipa_proof; std::mem::swap(&mut p.cl[0], &mut p.cr[0]); })),
        ("final_evaluation_plus_one", "present_one_key", "final_evaluation + 1", "proof.rejected",
            m(|w, _| le_increment(&mut w.verkle_proof.ipa_proof.final_evaluation))),
        ("wrong_pre_state_root", "many_stems", "checked against the root after block_with_writes (another tree)", "proof.rejected",
            m(move |_, root| *root = other_root)),
    ]
}

fn byte_mutations() -> Vec<(
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    ByteMutation,
)> {
    // `present_one_key` has one stem with one suffix diff: its current-value selector is at
    // 8 (container) + 4 (list offset) + 31 (stem) + 4 + 4 (offsets) + 1 (suffix) + 8 = 60.
    vec![
        (
            "union_selector_2",
            "present_one_key",
            "the current-value selector (byte 60) set to 2",
            "ssz.union",
            bm(|b| b[60] = 2),
        ),
        (
            "union_none_with_value",
            "present_one_key",
            "the current-value selector (byte 60) set to 0 with its 32 bytes kept",
            "ssz.union",
            bm(|b| b[60] = 0),
        ),
        (
            "first_offset_not_fixed_size",
            "present_one_key",
            "the first offset of the witness 9 instead of 8",
            "ssz.offset",
            bm(|b| b[0] = 9),
        ),
        (
            "offsets_decreasing",
            "present_one_key",
            "the verkle_proof offset (bytes 4..8) before the state_diff offset",
            "ssz.offset",
            bm(|b| b[4..8].copy_from_slice(&4u32.to_le_bytes())),
        ),
        (
            "trailing_byte",
            "present_both_halves",
            "one byte appended",
            "ssz.list_length",
            bm(|b| b.push(0)),
        ),
        (
            "truncated",
            "present_one_key",
            "only the first 7 bytes",
            "ssz.truncated",
            bm(|b| b.truncate(7)),
        ),
    ]
}

pub(super) fn witness_files() -> Result<Vec<SuiteFile>, VectorError> {
    let mut world = World::new();
    let proven = scenarios(&mut world)?;
    let mut valid_cases = Vec::new();
    for p in &proven {
        let verified = p.witness.to_witness().map_err(gen_err)?;
        let v = witness::verify(&p.pre, &verified).map_err(gen_err)?;
        valid_cases.push(valid(
            p.name,
            p.description,
            json!({"pre_state_root": hex0x(&p.pre), "json": witness_json(&p.witness)?, "ssz": ssz_hex(&p.witness)?}),
            json!({
                "post_state_root": hex0x(&p.post),
                "openings": v.opening_count(),
                "unbound_absences": v.unbound_absences(),
                "unbound_writes": v.unbound_writes(),
            }),
        ));
    }
    valid_cases.extend(super::scenarios::valid_cases()?);
    valid_cases.extend(super::hostile::valid_cases()?);
    let base = |name: &str| {
        proven
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| VectorError::Generator(format!("no scenario {name}")))
    };
    let not_on_curve = first_x_failing_with(&banderwagon::DecodeError::NotOnCurve)?;
    let other_root = base("block_with_writes")?.post;
    let mut invalid_cases = Vec::new();
    for (name, from, description, rule, mutate) in mutations(not_on_curve, other_root) {
        let p = base(from)?;
        let mut w = p.witness.clone();
        let mut root = p.pre;
        mutate(&mut w, &mut root);
        invalid_cases.push(invalid(
            name,
            &format!("{from} with {description}"),
            json!({"pre_state_root": hex0x(&root), "json": witness_json(&w)?}),
            rule,
        ));
    }
    for (name, from, description, rule, mutate) in byte_mutations() {
        let p = base(from)?;
        let mut bytes = p.witness.to_ssz().map_err(gen_err)?;
        mutate(&mut bytes);
        invalid_cases.push(invalid(
            name,
            &format!("{from} with {description}"),
            json!({"pre_state_root": hex0x(&p.pre), "ssz": hex0x(&bytes)}),
            rule,
        ));
    }
    invalid_cases.extend(super::hostile::invalid_cases()?);
    audit_witness_cases(&mut valid_cases, false)?;
    audit_witness_cases(&mut invalid_cases, true)?;
    Ok(vec![
        suite_file(
            "witness_valid.json",
            Kind::Witness,
            "Execution witnesses proven from a seeded tree (spec/WIRE.md §6), then the hostile-prover constructions of §6.6 the format cannot reject: each verifies against pre_state_root with this many openings, with unbound_absences keys (unbound_writes of them written) proven absent through an unbound absence, and applying its new values gives post_state_root. Where given, keys lists every key with its proven value and bound flag, and canonical_post_state_root is the root a full node computes (equal to post_state_root when unbound_writes is 0). `json` and `ssz` are the same witness",
            valid_cases,
        )?,
        suite_file(
            "witness_invalid.json",
            Kind::Witness,
            "Valid witnesses of witness_valid.json, each mutated to break one rule, and the identity-commitment constructions of spec/WIRE.md §6.6; a verifier rejects each for that rule",
            invalid_cases,
        )?,
    ])
}
