//! Generated fractional proofs (`spec/FRACTIONAL.md`): valid ones proven by
//! `fractional::ShardedTree::prove_fractional` from seeded sharded trees at both shard
//! depths, and negative ones made by mutating them, each naming the rule broken.

use fractional::{ShardConfig, ShardDepth, ShardedTree};
use serde_json::{json, Value};
use witness::fractional::{verify_fractional_bytes, OwnedFractionalProof};

use super::crypto::P_BE;
use super::{
    bm, gen_err, invalid, key, suite_file, valid, ByteMutation, Key, Rng, Stem, SuiteFile, Value32,
};
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::Kind;

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
    root: [u8; 32],
}

fn prove(
    tree: &mut ShardedTree,
    name: &'static str,
    description: &'static str,
    keys: &[Key],
) -> Result<Proven, VectorError> {
    let proof = tree.prove_fractional(keys).map_err(gen_err)?;
    Ok(Proven {
        name,
        description,
        proof,
        root: tree.coordinator_root(),
    })
}

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
    let proven = vec![
        prove(&mut t1, "one_key", "one present key, the only stem of its shard (the shard top is its leaf)", &[key(&l[3], 0)])?,
        prove(&mut t1, "both_halves", "present keys in C1 and C2 of one stem and an absent suffix", &[key(&l[0], 0), key(&l[0], 5), key(&l[0], 200)])?,
        prove(&mut t1, "pair_below_top", "two present stems of one shard sharing two bytes (internal nodes below the shard top) and an absent-empty stem beside them", &[key(&w.pair[0], 0), key(&w.pair[1], 0), key(&w.pair_absent, 7)])?,
        prove(&mut t1, "absent_empty_shard", "a key whose shard is empty (identity commitment, no opening)", &[key(&w.empty_shard, 1)])?,
        prove(&mut t1, "absent_other", "a key whose stem ends at another stem's leaf (the shard top)", &[key(&w.beside_lone, 4)])?,
        prove(&mut t1, "many_shards", "19 keys over 15 shards: present, absent-empty, absent-other and an empty shard", &many)?,
        prove(&mut t2, "depth2_one_key", "shard depth 2: one present key", &[key(&l[3], 0)])?,
        prove(&mut t2, "depth2_pair", "shard depth 2: the pair's shard holds two stems and an absent-empty stem", &[key(&w.pair[0], 0), key(&w.pair[1], 0), key(&w.pair_absent, 7)])?,
        prove(&mut t2, "depth2_many_shards", "shard depth 2: the keys of many_shards", &many)?,
    ];
    // The same keys proven against the state before the second block.
    let mut stale_tree = w.tree(ShardDepth::One, 1)?;
    let stale = prove(
        &mut stale_tree,
        "stale",
        "the keys of many_shards proven before the last block",
        &many,
    )?;
    Ok((proven, stale))
}

/// A mutation of a valid scenario's proof (and coordinator root).
type Mutation = super::Mutation<OwnedFractionalProof>;

fn m(f: impl Fn(&mut OwnedFractionalProof, &mut [u8; 32]) + 'static) -> Mutation {
    super::m(f)
}

/// Moves the first stem of the first entry holding two or more stems (but the first) to
/// the end of the entry before it: the global stem order is unchanged, and that entry now
/// lists one stem of the next shard beside its own.
fn move_stem_to_previous_entry(p: &mut OwnedFractionalProof) {
    let Some(i) = (1..p.shards.len()).find(|&i| p.shards[i].stems.len() >= 2) else {
        return;
    };
    let s = p.shards[i].stems.remove(0);
    p.shards[i - 1].stems.push(s);
}

type Named<T> = (&'static str, &'static str, &'static str, &'static str, T);

#[rustfmt::skip]
fn mutations(stale_commitment: [u8; 32], stale_shard: u16, current_root: [u8; 32]) -> Vec<Named<Mutation>> {
    vec![
        ("no_shards", "one_key", "the shard list emptied", "fractional.no_shards",
            m(|p, _| p.shards.clear())),
        ("shard_out_of_range", "one_key", "the shard index 256 at depth 1", "fractional.shard_out_of_range",
            m(|p, _| p.shards[0].index = 256)),
        ("duplicate_shard", "one_key", "the shard entry listed twice", "fractional.duplicate_shard",
            m(|p, _| { let e = p.shards[0].clone(); p.shards.push(e); })),
        ("shards_not_ascending", "many_shards", "the first two shard entries swapped", "fractional.shards_ascending",
            m(|p, _| p.shards.swap(0, 1))),
        ("empty_shard_entry", "pair_below_top", "the shard entry's stems removed", "fractional.empty_shard_entry",
            m(|p, _| p.shards[0].stems.clear())),
        ("stems_not_ascending", "pair_below_top", "the shard's first two stems swapped", "fractional.stems_ascending",
            m(|p, _| p.shards[0].stems.swap(0, 1))),
        ("stem_repeated", "pair_below_top", "the first stem listed twice", "fractional.stems_ascending",
            m(|p, _| { let s = p.shards[0].stems[0].clone(); p.shards[0].stems.insert(0, s); })),
        ("stem_without_suffixes", "one_key", "the stem's suffix diffs removed", "fractional.empty_stem",
            m(|p, _| p.shards[0].stems[0].suffixes.clear())),
        ("suffixes_not_ascending", "both_halves", "the suffix diffs reversed", "fractional.suffixes_ascending",
            m(|p, _| p.shards[0].stems[0].suffixes.reverse())),
        ("other_stem_repeated", "absent_other", "the other stem listed twice", "fractional.other_stems_ascending",
            m(|p, _| { let s = p.other_stems[0]; p.other_stems.push(s); })),
        ("shard_under_another_index", "one_key", "the entry's index changed to the next shard: another shard's proof under this index", "fractional.shard_index_mismatch",
            m(|p, _| p.shards[0].index ^= 1)),
        ("key_routed_to_wrong_shard", "many_shards", "the first stem of the pair's shard entry moved to the end of the entry before it", "fractional.key_wrong_shard",
            m(|p, _| move_stem_to_previous_entry(p))),
        ("extension_status_3", "one_key", "extension status 3", "fractional.extension",
            m(|p, _| { let e = &mut p.shards[0].stems[0].ext; *e = (*e & !7) | 3; })),
        ("depth_above_shard_top", "depth2_one_key", "a stem's depth 1 at shard depth 2", "fractional.extension",
            m(|p, _| { let e = &mut p.shards[0].stems[0].ext; *e = (1 << 3) | (*e & 7); })),
        ("empty_shard_with_commitment", "absent_empty_shard", "the empty shard's identity commitment replaced by the generator", "fractional.empty_shard_mismatch",
            m(|p, _| p.shards[0].commitment = banderwagon::Element::generator().to_bytes())),
        ("absent_stem_with_value", "absent_other", "a current value on the absent stem's key", "fractional.absent_value",
            m(|p, _| p.shards[0].stems[0].suffixes[0].current_value = Some([1; 32]))),
        ("leaf_on_an_internal_node", "pair_below_top", "the first stem's depth 2 instead of 3: its leaf where the pair needs an internal node", "fractional.path_conflict",
            m(|p, _| { let e = &mut p.shards[0].stems[0].ext; *e = (2 << 3) | (*e & 7); })),
        ("other_stem_missing", "absent_other", "other_stems emptied", "fractional.other_stem_count",
            m(|p, _| p.other_stems.clear())),
        ("other_stem_off_path", "absent_other", "the other stem's first byte changed", "fractional.other_stem",
            m(|p, _| p.other_stems[0][0] ^= 0x01)),
        ("commitment_missing", "both_halves", "the last commitment removed", "fractional.commitment_count",
            m(|p, _| { p.commitments.pop(); })),
        ("commitment_extra", "pair_below_top", "a commitment appended", "fractional.commitment_count",
            m(|p, _| { let c = p.commitments[0]; p.commitments.push(c); })),
        ("commitment_not_a_point", "both_halves", "commitments[0] with x = p", "fractional.point",
            m(|p, _| p.commitments[0] = P_BE)),
        ("shard_commitment_not_a_point", "one_key", "the shard commitment with x = p", "fractional.point",
            m(|p, _| p.shards[0].commitment = P_BE)),
        ("multiproof_d_not_a_point", "one_key", "the multiproof's D with x = p", "fractional.point",
            m(|p, _| p.multiproof[..32].copy_from_slice(&P_BE))),
        ("multiproof_scalar_not_canonical", "one_key", "the multiproof's final scalar 2^256 - 1 (>= r)", "fractional.multiproof_encoding",
            m(|p, _| p.multiproof[544..].copy_from_slice(&[0xff; 32]))),
        ("multiproof_without_openings", "absent_empty_shard", "a non-zero multiproof in a proof without openings", "fractional.multiproof_encoding",
            m(|p, _| p.multiproof[575] = 1)),
        ("wrong_current_value", "both_halves", "one byte of a current value changed", "fractional.openings_rejected",
            m(|p, _| { if let Some(v) = p.shards[0].stems[0].suffixes[0].current_value.as_mut() { v[0] ^= 1; } })),
        ("present_value_claimed_absent", "one_key", "the present key's value replaced by absence", "fractional.openings_rejected",
            m(|p, _| p.shards[0].stems[0].suffixes[0].current_value = None)),
        ("commitments_swapped", "pair_below_top", "the first two commitments swapped", "fractional.openings_rejected",
            m(|p, _| p.commitments.swap(0, 1))),
        ("stale_shard_commitment", "many_shards", "one shard's commitment replaced by its value before the last block", "fractional.openings_rejected",
            m(move |p, _| { for s in p.shards.iter_mut() { if s.index == stale_shard { s.commitment = stale_commitment; } } })),
        ("sibling_missing", "one_key", "the last coordinator sibling removed", "fractional.siblings",
            m(|p, _| { p.siblings.pop(); })),
        ("sibling_extra", "many_shards", "a coordinator sibling appended", "fractional.siblings",
            m(|p, _| { let s = p.siblings[0]; p.siblings.push(s); })),
        ("sibling_altered", "one_key", "one byte of the first coordinator sibling changed", "fractional.coordinator_root",
            m(|p, _| p.siblings[0][0] ^= 1)),
        ("siblings_swapped", "many_shards", "the first two coordinator siblings swapped", "fractional.coordinator_root",
            m(|p, _| p.siblings.swap(0, 1))),
        ("proof_of_an_older_state", "stale", "checked against the coordinator root after the last block", "fractional.coordinator_root",
            m(move |_, root| *root = current_root)),
    ]
}

#[rustfmt::skip]
fn byte_mutations() -> Vec<Named<ByteMutation>> {
    // `one_key`: header (4) + index (2) + commitment (32) + stem count (2) + stem (31) +
    // extension byte (1) + suffix count (2) + suffix (1) puts its presence byte at 75.
    vec![
        ("version_2", "one_key", "the version byte 2", "fractional.version", bm(|b| b[0] = 2)),
        ("depth_3", "one_key", "the shard depth byte 3", "fractional.depth", bm(|b| b[1] = 3)),
        ("presence_2", "one_key", "the presence byte (75) set to 2", "fractional.presence", bm(|b| b[75] = 2)),
        ("truncated", "one_key", "the last byte removed", "fractional.truncated", bm(|b| { b.pop(); })),
        ("header_only", "one_key", "only the 4-byte header", "fractional.truncated", bm(|b| b.truncate(4))),
        ("huge_stem_count", "one_key", "the stem count (bytes 38..40) 65535", "fractional.truncated", bm(|b| { b[38] = 0xff; b[39] = 0xff; })),
        ("trailing_byte", "one_key", "one byte appended", "fractional.trailing_bytes", bm(|b| b.push(0))),
    ]
}

fn expected_keys(root: &[u8; 32], bytes: &[u8]) -> Result<(Value, usize), VectorError> {
    let v = verify_fractional_bytes(root, bytes::Bytes::copy_from_slice(bytes)).map_err(gen_err)?;
    let keys: Vec<Value> = v
        .keys()
        .iter()
        .map(|k| {
            json!({
                "key": hex0x(&k.key()),
                "current_value": k.current_value.as_ref().map(|c| hex0x(c)),
            })
        })
        .collect();
    let shards: Vec<u16> = v.shards().iter().map(|(i, _)| *i).collect();
    Ok((
        json!({"keys": keys, "shards": shards, "openings": v.opening_count()}),
        v.opening_count(),
    ))
}

pub(super) fn fractional_files() -> Result<Vec<SuiteFile>, VectorError> {
    let world = World::new();
    let (proven, stale) = scenarios(&world)?;
    let mut valid_cases = Vec::new();
    for p in &proven {
        let bytes = p.proof.to_bytes().map_err(gen_err)?;
        let (output, _) = expected_keys(&p.root, &bytes)?;
        valid_cases.push(valid(
            p.name,
            p.description,
            json!({"coordinator_root": hex0x(&p.root), "proof": hex0x(&bytes)}),
            output,
        ));
    }
    let base = |name: &str| {
        proven
            .iter()
            .chain(std::iter::once(&stale))
            .find(|p| p.name == name)
            .ok_or_else(|| VectorError::Generator(format!("no scenario {name}")))
    };
    // A shard whose commitment the second block changed, as it was before.
    let many = base("many_shards")?;
    let (stale_shard, stale_commitment) = many
        .proof
        .shards
        .iter()
        .zip(&stale.proof.shards)
        .find(|(now, then)| now.index == then.index && now.commitment != then.commitment)
        .map(|(now, then)| (now.index, then.commitment))
        .ok_or_else(|| VectorError::Generator("no shard changed by the second block".into()))?;
    let mut invalid_cases = Vec::new();
    for (name, from, description, rule, mutate) in
        mutations(stale_commitment, stale_shard, many.root)
    {
        let p = base(from)?;
        let mut proof = p.proof.clone();
        let mut root = p.root;
        mutate(&mut proof, &mut root);
        invalid_cases.push(invalid(
            name,
            &format!("{from} with {description}"),
            json!({"coordinator_root": hex0x(&root), "proof": hex0x(&proof.to_bytes().map_err(gen_err)?)}),
            rule,
        ));
    }
    for (name, from, description, rule, mutate) in byte_mutations() {
        let p = base(from)?;
        let mut bytes = p.proof.to_bytes().map_err(gen_err)?;
        mutate(&mut bytes);
        invalid_cases.push(invalid(
            name,
            &format!("{from} with {description}"),
            json!({"coordinator_root": hex0x(&p.root), "proof": hex0x(&bytes)}),
            rule,
        ));
    }
    Ok(vec![
        suite_file(
            "fractional_valid.json",
            Kind::FractionalProof,
            "Fractional proofs from seeded sharded trees at shard depths 1 and 2 (spec/FRACTIONAL.md): each verifies against coordinator_root, proving exactly these keys' current values (null = proven absent) in these shards with this many IPA openings",
            valid_cases,
        )?,
        suite_file(
            "fractional_invalid.json",
            Kind::FractionalProof,
            "Valid proofs of fractional_valid.json, each mutated to break one rule; a verifier rejects each for that rule",
            invalid_cases,
        )?,
    ])
}
