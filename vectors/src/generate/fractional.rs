//! Generated fractional proofs (`spec/FRACTIONAL.md`): valid ones proven by
//! `fractional::ShardedTree::prove_fractional` from seeded sharded trees at both shard
//! depths, and negative ones made by mutating them, each naming the rule broken.

use fractional::{KeyOp, ShardConfig, ShardDepth, ShardedTree};
use serde_json::{json, Value};
use witness::fractional::{verify_fractional_bytes, Anchor, OwnedFractionalProof};

use super::case::{
    bm, gen_err, invalid, key, suite_file, valid, ByteMutation, Key, Stem, SuiteFile, Value32,
};
use super::crypto::P_BE;
use super::rng::Rng;
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::{fractional_value, Kind};

/// The seeded state and the stems the scenarios refer to.
struct World {
    /// Writes of the first block (the "stale" state) and of the second.
    blocks: [Vec<(Key, Option<Value32>)>; 2],
    /// Random stems, each alone under its first byte (and first two bytes).
    lone: Vec<Stem>,
    /// Two stems sharing their first two bytes, diverging at byte 2.
    pair: [Stem; 2],
    /// A stem sharing the pair's first two bytes and neither's third.
    pair_absent: Stem,
    /// A stem sharing `lone[1]`'s first two bytes only.
    beside_lone: Stem,
    /// A stem under a first byte no stem of the tree has.
    empty_shard: Stem,
}

impl World {
    fn new() -> World {
        let mut rng = Rng::new(0x0007_0002);
        let mut lone: Vec<Stem> = Vec::new();
        while lone.len() < 24 {
            let s = rng.bytes::<31>();
            if lone.iter().all(|o| o[0] != s[0]) {
                lone.push(s);
            }
        }
        let free = |taken: &[Stem], rng: &mut Rng| loop {
            let s = rng.bytes::<31>();
            if taken.iter().all(|o| o[0] != s[0]) {
                return s;
            }
        };
        let p = free(&lone, &mut rng);
        let mut p2 = rng.bytes::<31>();
        p2[..2].copy_from_slice(&p[..2]);
        if p2[2] == p[2] {
            p2[2] ^= 0x80;
        }
        let mut pair = [p, p2];
        pair.sort_unstable();
        let mut pair_absent = rng.bytes::<31>();
        pair_absent[..2].copy_from_slice(&p[..2]);
        while pair_absent[2] == pair[0][2] || pair_absent[2] == pair[1][2] {
            pair_absent[2] = pair_absent[2].wrapping_add(1);
        }
        let mut beside_lone = rng.bytes::<31>();
        beside_lone[..2].copy_from_slice(&lone[1][..2]);
        if beside_lone[2] == lone[1][2] {
            beside_lone[2] ^= 0x01;
        }
        let mut taken = lone.clone();
        taken.extend(pair);
        let empty_shard = free(&taken, &mut rng);

        let mut first = Vec::new();
        // lone[0] holds both halves: suffixes 0..=3, 64, 130 and 200.
        for s in [0u8, 1, 2, 3, 64, 130, 200] {
            first.push((key(&lone[0], s), Some(rng.bytes::<32>())));
        }
        for stem in lone[1..].iter().chain(&pair) {
            first.push((key(stem, 0), Some(rng.bytes::<32>())));
            first.push((
                key(stem, 128 + rng.below(128) as u8),
                Some(rng.bytes::<32>()),
            ));
        }
        // The second block changes values of a few stems, so their shards' commitments of
        // the first block are stale afterwards.
        let second: Vec<(Key, Option<Value32>)> = [&lone[0], &lone[2], &pair[0]]
            .iter()
            .map(|stem| (key(stem, 0), Some(rng.bytes::<32>())))
            .collect();
        World {
            blocks: [first, second],
            lone,
            pair,
            pair_absent,
            beside_lone,
            empty_shard,
        }
    }

    /// The sharded tree after the first `blocks` blocks.
    fn tree(&self, depth: ShardDepth, blocks: usize) -> Result<ShardedTree, VectorError> {
        let mut t = ShardedTree::in_memory(ShardConfig {
            depth,
            ..ShardConfig::default()
        });
        for b in self.blocks.iter().take(blocks) {
            t.apply(b).map_err(gen_err)?;
        }
        Ok(t)
    }
}

/// A proven scenario.
struct Proven {
    name: &'static str,
    description: &'static str,
    proof: OwnedFractionalProof,
    state_root: [u8; 32],
    coordinator_root: [u8; 32],
}

/// A key read (`None`) or written.
type Access = (Key, Option<Value32>);

fn prove(
    tree: &mut ShardedTree,
    name: &'static str,
    description: &'static str,
    keys: &[Access],
    coordinator_path: bool,
) -> Result<Proven, VectorError> {
    let ops: Vec<(Key, KeyOp)> = keys
        .iter()
        .map(|(k, v)| (*k, v.map_or(KeyOp::Read, KeyOp::Set)))
        .collect();
    prove_ops(tree, name, description, &ops, coordinator_path)
}

/// [`prove`] for reads, writes and deletions.
fn prove_ops(
    tree: &mut ShardedTree,
    name: &'static str,
    description: &'static str,
    ops: &[(Key, KeyOp)],
    coordinator_path: bool,
) -> Result<Proven, VectorError> {
    let proof = tree
        .prove_fractional_ops(ops, coordinator_path)
        .map_err(gen_err)?;
    Ok(Proven {
        name,
        description,
        proof,
        state_root: tree.canonical_root(),
        coordinator_root: tree.coordinator_root(),
    })
}

fn reads(keys: &[Key]) -> Vec<Access> {
    keys.iter().map(|k| (*k, None)).collect()
}

#[rustfmt::skip]
fn scenarios(w: &World) -> Result<(Vec<Proven>, Proven), VectorError> {
    let mut t1 = w.tree(ShardDepth::One, 2)?;
    let mut t2 = w.tree(ShardDepth::Two, 2)?;
    let l = &w.lone;
    let many: Vec<Key> = l
        .iter()
        .take(12)
        .map(|s| key(s, 0))
        .chain([
            key(&w.pair[0], 0),
            key(&w.pair[1], 0),
            key(&w.pair_absent, 9),
            key(&w.beside_lone, 0),
            key(&w.empty_shard, 0),
            key(&l[0], 130),
            key(&l[0], 131),
        ])
        .collect();
    // Updates, an insert into an empty shard, into a one-stem shard and beside the pair.
    let writes: Vec<Access> = vec![
        (key(&l[0], 0), Some([0x11; 32])),
        (key(&l[0], 131), Some([0x12; 32])),
        (key(&l[4], 7), None),
        (key(&w.empty_shard, 3), Some([0x13; 32])),
        (key(&w.beside_lone, 4), Some([0x14; 32])),
        (key(&w.pair_absent, 200), Some([0x15; 32])),
    ];
    // Deletions: one of lone[0]'s values (its leaf stays), every value of lone[5] (its
    // shard empties), every value of pair[0] (pair[1] rises to the shard top; the proof
    // reads under it), with an insert into the empty shard.
    let mut deletes: Vec<(Key, KeyOp)> = vec![
        (key(&l[0], 1), KeyOp::Delete),
        (key(&w.empty_shard, 3), KeyOp::Set([0x16; 32])),
    ];
    for (k, _) in w.blocks[0].iter().filter(|(k, _)| k[..31] == l[5] || k[..31] == w.pair[0]) {
        deletes.push((*k, KeyOp::Delete));
    }
    let mut proven = vec![
        prove(&mut t1, "one_key", "one present key, the only stem of its shard (the shard top is its leaf)", &reads(&[key(&l[3], 0)]), true)?,
        prove(&mut t1, "one_key_lean", "one present key, without the coordinator path (verifies against the state root only)", &reads(&[key(&l[3], 0)]), false)?,
        prove(&mut t1, "both_halves", "present keys in C1 and C2 of one stem and an absent suffix", &reads(&[key(&l[0], 0), key(&l[0], 5), key(&l[0], 200)]), true)?,
        prove(&mut t1, "pair_below_top", "two present stems of one shard sharing two bytes (internal nodes below the shard top) and an absent-empty stem beside them", &reads(&[key(&w.pair[0], 0), key(&w.pair[1], 0), key(&w.pair_absent, 7)]), true)?,
        prove(&mut t1, "absent_needs_witness", "an absent-empty stem under the pair's internal node, opened only at its empty slot: the node takes an internal witness", &reads(&[key(&w.pair_absent, 7)]), true)?,
        prove(&mut t1, "absent_empty_shard", "a key whose shard is empty (the root's slot opened to 0, the identity under the coordinator)", &reads(&[key(&w.empty_shard, 1)]), true)?,
        prove(&mut t1, "absent_other", "a key whose stem ends at another stem's leaf (the shard top)", &reads(&[key(&w.beside_lone, 4)]), true)?,
        prove(&mut t1, "many_shards", "19 keys over 15 shards: present, absent-empty, absent-other and an empty shard", &reads(&many), true)?,
        prove(&mut t1, "writes", "updates and inserts (into an empty shard, beside a one-stem shard's leaf, beside the pair) with both post-state roots", &writes, true)?,
        prove(&mut t2, "depth2_one_key", "shard depth 2: one present key (its leaf hangs at depth 1, above the shard prefix)", &reads(&[key(&l[3], 0)]), true)?,
        prove(&mut t2, "depth2_pair", "shard depth 2: the pair's shard holds two stems and an absent-empty stem", &reads(&[key(&w.pair[0], 0), key(&w.pair[1], 0), key(&w.pair_absent, 7)]), true)?,
        prove(&mut t2, "depth2_many_shards", "shard depth 2: the keys of many_shards", &reads(&many), true)?,
        prove(&mut t2, "depth2_writes", "shard depth 2: the writes of writes", &writes, true)?,
    ];
    proven.push(prove_ops(&mut t1, "deletes", "deletions that leave a leaf, empty a one-stem shard, and empty one stem of the pair so the other rises to the shard top (with the read under it that decides it), and an insert", &deletes, true)?);
    proven.push(prove_ops(&mut t2, "depth2_deletes", "shard depth 2: the deletions of deletes", &deletes, true)?);
    // The post-state roots a verifier computes from the writing and deleting proofs are the
    // sharded tree's after applying the same writes and deletions.
    let applied_writes: Vec<Access> = writes.iter().filter(|(_, v)| v.is_some()).copied().collect();
    let applied_deletes: Vec<Access> = deletes.iter().map(|(k, op)| (*k, match op { KeyOp::Set(v) => Some(*v), _ => None })).collect();
    for (depth, name, applied) in [
        (ShardDepth::One, "writes", &applied_writes),
        (ShardDepth::Two, "depth2_writes", &applied_writes),
        (ShardDepth::One, "deletes", &applied_deletes),
        (ShardDepth::Two, "depth2_deletes", &applied_deletes),
    ] {
        let p = proven.iter().find(|p| p.name == name).ok_or_else(|| VectorError::Generator(format!("no scenario {name}")))?;
        let bytes = p.proof.to_bytes().map_err(gen_err)?;
        let v = verify_fractional_bytes(bytes::Bytes::from(bytes), &Anchor::StateRoot(p.state_root)).map_err(gen_err)?;
        let (state, coordinator) = v.post_roots().map_err(gen_err)?;
        let mut after = w.tree(depth, 2)?;
        after.apply(applied).map_err(gen_err)?;
        if state != after.canonical_root() || coordinator != Some(after.coordinator_root()) {
            return Err(VectorError::Generator(format!("{name}: the proof's post-state roots are not the tree's after its writes and deletions")));
        }
        if name.ends_with("deletes") && v.keys().iter().filter(|k| k.deleted).count() < 3 {
            return Err(VectorError::Generator(format!("{name}: fewer deletions than asked")));
        }
    }
    if proven.iter().find(|p| p.name == "absent_needs_witness").is_none_or(|p| p.proof.internal_witnesses.is_empty()) {
        return Err(VectorError::Generator("absent_needs_witness carries no internal witness".into()));
    }
    // The same keys proven against the state before the second block.
    let mut stale_tree = w.tree(ShardDepth::One, 1)?;
    let stale = prove(&mut stale_tree, "stale", "the keys of many_shards proven before the last block", &reads(&many), true)?;
    Ok((proven, stale))
}

/// A case being mutated: the proof, and whether it is checked against the coordinator root
/// (else the state root) and which root.
struct Case {
    proof: OwnedFractionalProof,
    coordinator: bool,
    root: [u8; 32],
}

type Mutation = Box<dyn Fn(&mut Case)>;

fn m(f: impl Fn(&mut Case) + 'static) -> Mutation {
    Box::new(f)
}

/// Both anchors of a scenario: `false` = the state root.
const STATE: bool = false;
const COORD: bool = true;

type Named<T> = (
    &'static str,
    &'static str,
    bool,
    &'static str,
    &'static str,
    T,
);

#[rustfmt::skip]
fn mutations(stale: ([u8; 32], [u8; 32])) -> Vec<Named<Mutation>> {
    let (stale_state, stale_coordinator) = stale;
    vec![
        ("no_keys", "one_key", STATE, "the stems removed", "fractional.no_keys",
            m(|c| c.proof.stems.clear())),
        ("stems_not_ascending", "pair_below_top", STATE, "the first two stems swapped", "canonical.stems_ascending",
            m(|c| c.proof.stems.swap(0, 1))),
        ("suffixes_not_ascending", "both_halves", COORD, "the suffix diffs reversed", "canonical.suffixes_ascending",
            m(|c| c.proof.stems[0].suffixes.reverse())),
        ("extension_status_3", "one_key", STATE, "extension status 3", "canonical.extension_status",
            m(|c| { let e = &mut c.proof.stems[0].ext; *e = (*e & !7) | 3; })),
        ("depth_zero", "one_key", COORD, "a stem's depth 0", "canonical.depth_zero",
            m(|c| c.proof.stems[0].ext &= 7)),
        ("absent_stem_with_value", "absent_other", STATE, "a current value on the absent stem's key", "canonical.absent_current_value",
            m(|c| c.proof.stems[0].suffixes[0].current_value = Some([1; 32]))),
        ("other_stem_repeated", "absent_other", COORD, "the other stem listed twice", "canonical.other_stems_ascending",
            m(|c| { let s = c.proof.other_stems[0]; c.proof.other_stems.push(s); })),
        ("other_stem_missing", "absent_other", STATE, "other_stems emptied", "structure.other_stem_count",
            m(|c| c.proof.other_stems.clear())),
        ("leaf_on_an_internal_node", "pair_below_top", STATE, "the first stem's depth 2 instead of 3: its leaf where the pair needs an internal node", "structure.path_conflict",
            m(|c| { let e = &mut c.proof.stems[0].ext; *e = (2 << 3) | (*e & 7); })),
        ("commitment_missing", "both_halves", STATE, "the last commitment removed", "structure.commitment_count",
            m(|c| { c.proof.commitments.pop(); })),
        ("commitment_extra", "pair_below_top", COORD, "a commitment appended", "structure.commitment_count",
            m(|c| { let x = c.proof.commitments[0]; c.proof.commitments.push(x); })),
        ("commitment_identity", "pair_below_top", STATE, "the shard top's commitment replaced by the identity", "structure.identity_commitment",
            m(|c| c.proof.commitments[0] = [0; 32])),
        ("commitment_not_a_point", "both_halves", STATE, "commitments[0] with x = p", "decode.commitment",
            m(|c| c.proof.commitments[0] = P_BE)),
        ("root_not_a_point", "one_key", COORD, "the state root with x = p", "decode.root",
            m(|c| c.proof.root = P_BE)),
        ("multiproof_d_not_a_point", "one_key", STATE, "the multiproof's D with x = p", "proof.point",
            m(|c| c.proof.multiproof[..32].copy_from_slice(&P_BE))),
        ("multiproof_scalar_not_canonical", "one_key", STATE, "the multiproof's final scalar 2^256 - 1 (>= r)", "proof.scalar",
            m(|c| c.proof.multiproof[544..].copy_from_slice(&[0xff; 32]))),
        ("internal_witness_missing", "absent_needs_witness", STATE, "the internal witness removed", "fractional.internal_witness_count",
            m(|c| { c.proof.internal_witnesses.pop(); })),
        ("internal_witness_extra", "one_key", COORD, "an internal witness no node needs", "fractional.internal_witness_count",
            m(|c| c.proof.internal_witnesses.push([2; 32]))),
        ("internal_witness_one", "absent_needs_witness", COORD, "the internal witness 1", "fractional.internal_witness",
            m(|c| { let mut one = [0u8; 32]; one[0] = 1; c.proof.internal_witnesses[0] = one; })),
        ("internal_witness_not_canonical", "absent_needs_witness", STATE, "the internal witness 2^256 - 1 (>= r)", "fractional.internal_witness_scalar",
            m(|c| c.proof.internal_witnesses[0] = [0xff; 32])),
        ("internal_witness_altered", "absent_needs_witness", COORD, "one byte of the internal witness changed", "proof.rejected",
            m(|c| c.proof.internal_witnesses[0][5] ^= 1)),
        ("wrong_current_value", "both_halves", STATE, "one byte of a current value changed", "proof.rejected",
            m(|c| { if let Some(v) = c.proof.stems[0].suffixes[0].current_value.as_mut() { v[0] ^= 1; } })),
        ("present_value_claimed_absent", "one_key", COORD, "the present key's value replaced by absence", "proof.rejected",
            m(|c| c.proof.stems[0].suffixes[0].current_value = None)),
        ("new_value_altered", "writes", STATE, "one byte of a new value changed (no opening covers it; the transcript does)", "proof.rejected",
            m(|c| { if let Some(v) = c.proof.stems[0].suffixes[0].new_value.as_mut() { v[0] ^= 1; } })),
        ("deletion_flag_cleared", "deletes", STATE, "a deleted key's presence bit 2 cleared (no opening covers it; the transcript does)", "proof.rejected",
            m(|c| { if let Some(d) = c.proof.stems.iter_mut().flat_map(|s| s.suffixes.iter_mut()).find(|d| d.deleted) { d.deleted = false; } })),
        ("deletion_flag_added", "both_halves", COORD, "a present key read by the proof marked deleted (the transcript binds the presence byte)", "proof.rejected",
            m(|c| { if let Some(d) = c.proof.stems.iter_mut().flat_map(|s| s.suffixes.iter_mut()).find(|d| !d.deleted && d.new_value.is_none() && d.current_value.is_some()) { d.deleted = true; } })),
        ("deletion_with_new_value", "deletes", STATE, "a deleted key given a new value too (presence bits 1 and 2)", "fractional.presence",
            m(|c| { if let Some(d) = c.proof.stems.iter_mut().flat_map(|s| s.suffixes.iter_mut()).find(|d| d.deleted) { d.new_value = Some([7; 32]); } })),
        ("deletion_of_absent_value", "deletes", COORD, "a deleted key's current value removed (presence bit 2 without bit 0)", "fractional.presence",
            m(|c| { if let Some(d) = c.proof.stems.iter_mut().flat_map(|s| s.suffixes.iter_mut()).find(|d| d.deleted) { d.current_value = None; } })),
        ("commitments_swapped", "pair_below_top", STATE, "the first two commitments swapped", "proof.rejected",
            m(|c| c.proof.commitments.swap(0, 1))),
        ("sibling_altered_state_anchor", "one_key", STATE, "one byte of the first coordinator sibling changed, checked against the state root", "proof.rejected",
            m(|c| if let Some(s) = c.proof.siblings.as_mut() { s[0][0] ^= 1; })),
        ("sibling_altered", "one_key", COORD, "one byte of the first coordinator sibling changed", "fractional.coordinator_root",
            m(|c| if let Some(s) = c.proof.siblings.as_mut() { s[0][0] ^= 1; })),
        ("siblings_swapped", "many_shards", COORD, "the first two coordinator siblings swapped", "fractional.coordinator_root",
            m(|c| if let Some(s) = c.proof.siblings.as_mut() { s.swap(0, 1); })),
        ("sibling_missing", "one_key", STATE, "the last coordinator sibling removed", "fractional.siblings",
            m(|c| if let Some(s) = c.proof.siblings.as_mut() { s.pop(); })),
        ("sibling_extra", "many_shards", COORD, "a coordinator sibling appended", "fractional.siblings",
            m(|c| if let Some(s) = c.proof.siblings.as_mut() { let x = s[0]; s.push(x); })),
        ("another_state_root", "one_key", STATE, "checked against another state root", "fractional.state_root",
            m(|c| c.root[0] ^= 1)),
        ("lean_against_coordinator", "one_key_lean", COORD, "a proof without the coordinator path checked against a coordinator root", "fractional.no_coordinator_path",
            m(|_| {})),
        ("older_state_against_state_root", "stale", STATE, "checked against the state root after the last block", "fractional.state_root",
            m(move |c| c.root = stale_state)),
        ("older_state_against_coordinator", "stale", COORD, "checked against the coordinator root after the last block", "fractional.coordinator_root",
            m(move |c| c.root = stale_coordinator)),
    ]
}

#[rustfmt::skip]
fn byte_mutations() -> Vec<Named<ByteMutation>> {
    // `one_key`: header (35) + stem count (2) + status byte (1) + stem (31) + suffix count
    // (1) + suffix (1) puts its presence byte at 71.
    vec![
        ("version_1", "one_key", STATE, "the version byte 1 (version 1 is not read)", "fractional.version", bm(|b| b[0] = 1)),
        ("depth_3", "one_key", STATE, "the shard depth byte 3", "fractional.depth", bm(|b| b[1] = 3)),
        ("flags_2", "one_key", COORD, "the flags byte 3 (bit 1 set)", "fractional.flags", bm(|b| b[2] = 3)),
        ("presence_4", "one_key", STATE, "the presence byte (71) set to 4", "fractional.presence", bm(|b| b[71] = 4)),
        ("truncated", "one_key", STATE, "the last byte removed", "fractional.truncated", bm(|b| { b.pop(); })),
        ("header_only", "one_key", STATE, "only the 35-byte header", "fractional.truncated", bm(|b| b.truncate(35))),
        ("huge_stem_count", "one_key", STATE, "the stem count (bytes 35..37) 65535", "fractional.truncated", bm(|b| { b[35] = 0xff; b[36] = 0xff; })),
        ("trailing_byte", "one_key", COORD, "one byte appended", "fractional.trailing_bytes", bm(|b| b.push(0))),
    ]
}

fn anchor(coordinator: bool, root: [u8; 32]) -> Anchor {
    if coordinator {
        Anchor::CoordinatorRoot(root)
    } else {
        Anchor::StateRoot(root)
    }
}

fn input(coordinator: bool, root: &[u8; 32], bytes: &[u8]) -> Value {
    json!({
        "anchor": if coordinator { "coordinator_root" } else { "state_root" },
        "root": hex0x(root),
        "proof": hex0x(bytes),
    })
}

/// The expected output of a valid case.
fn expected(coordinator: bool, root: &[u8; 32], bytes: &[u8]) -> Result<Value, VectorError> {
    let v = verify_fractional_bytes(
        bytes::Bytes::copy_from_slice(bytes),
        &anchor(coordinator, *root),
    )
    .map_err(gen_err)?;
    fractional_value(&v).map_err(gen_err)
}

pub(super) fn fractional_files() -> Result<Vec<SuiteFile>, VectorError> {
    let world = World::new();
    let (proven, stale) = scenarios(&world)?;
    let mut valid_cases = Vec::new();
    for p in &proven {
        let bytes = p.proof.to_bytes().map_err(gen_err)?;
        let anchors: &[bool] = if p.proof.siblings.is_some() {
            &[STATE, COORD]
        } else {
            &[STATE]
        };
        for &coordinator in anchors {
            let root = if coordinator {
                p.coordinator_root
            } else {
                p.state_root
            };
            let suffix = if coordinator {
                "coordinator_root"
            } else {
                "state_root"
            };
            valid_cases.push(valid(
                &format!("{}_{suffix}", p.name),
                &format!(
                    "{}; checked against the {}",
                    p.description,
                    suffix.replace('_', " ")
                ),
                input(coordinator, &root, &bytes),
                expected(coordinator, &root, &bytes)?,
            ));
        }
    }
    let base = |name: &str| {
        proven
            .iter()
            .chain(std::iter::once(&stale))
            .find(|p| p.name == name)
            .ok_or_else(|| VectorError::Generator(format!("no scenario {name}")))
    };
    let current = base("many_shards")?;
    let mut invalid_cases = Vec::new();
    for (name, from, coordinator, description, rule, mutate) in
        mutations((current.state_root, current.coordinator_root))
    {
        let p = base(from)?;
        let mut case = Case {
            proof: p.proof.clone(),
            coordinator,
            root: if coordinator {
                p.coordinator_root
            } else {
                p.state_root
            },
        };
        mutate(&mut case);
        let bytes = case.proof.to_bytes().map_err(gen_err)?;
        invalid_cases.push(invalid(
            name,
            &format!("{from} with {description}"),
            input(case.coordinator, &case.root, &bytes),
            rule,
        ));
    }
    for (name, from, coordinator, description, rule, mutate) in byte_mutations() {
        let p = base(from)?;
        let mut bytes = p.proof.to_bytes().map_err(gen_err)?;
        mutate(&mut bytes);
        let root = if coordinator {
            p.coordinator_root
        } else {
            p.state_root
        };
        invalid_cases.push(invalid(
            name,
            &format!("{from} with {description}"),
            input(coordinator, &root, &bytes),
            rule,
        ));
    }
    Ok(vec![
        suite_file(
            "fractional_valid.json",
            Kind::FractionalProof,
            "Fractional proofs (wire version 2, spec/FRACTIONAL.md §4) from seeded sharded trees at shard depths 1 and 2, each checked against the anchor it names (the canonical state root, or the coordinator root): each proves exactly these keys' current values (null = proven absent) and new values (null = not written) in these shards with this many IPA openings, and gives both post-state roots. The multiproof's transcript is new(\"fverkle-fractional-v2\") then append(\"proof\", SHA-256 of every byte before the multiproof)",
            valid_cases,
        )?,
        suite_file(
            "fractional_invalid.json",
            Kind::FractionalProof,
            "Valid proofs of fractional_valid.json, each mutated (or checked against another root) to break one rule; a verifier rejects each for that rule, in the order of spec/FRACTIONAL.md §5",
            invalid_cases,
        )?,
    ])
}
