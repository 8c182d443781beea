//! The differential run's seeds (suite cases and real witnesses) and their mutants, each a
//! pure function of the run's seed and the mutant's number.
//!
//! Witness mutants reuse the mutators of the `witness` crate's mutation tests
//! (`witness/tests/witness/mutate.rs`, compiled in here): bytes of the SSZ encoding aimed at
//! its offsets and union selectors, structural changes to the owned witness (stems,
//! suffixes, values, extension statuses, other stems, commitments, proof points) and hex
//! digits of the JSON text. Fractional mutants change bytes of the wire form or fields of
//! the owned proof (stems, suffixes, presence and deletion bits, extension statuses, other
//! stems, commitments, internal witnesses, coordinator siblings, the root, the anchor).

use serde_json::{json, Value};
use witness::fractional::{verify_fractional, Anchor, FractionalProof, OwnedFractionalProof};
use witness::fuzz::oracle::Truth;
use witness::{ExecutionWitness, OwnedExecutionWitness};

use crate::at::hex0x;

#[path = "../../../witness/tests/witness/mutate.rs"]
#[allow(clippy::unwrap_used, dead_code, missing_docs)]
mod mutate;

pub(crate) use mutate::Rng;
use mutate::{
    json_digit_positions, json_mutant, ssz_layout, ssz_mutant, structural_mutant, Donors, SszLayout,
};

/// A witness seed: its root and its forms.
pub(crate) struct WitnessSeed {
    pub(crate) pre_state_root: [u8; 32],
    pub(crate) ssz: Vec<u8>,
    /// The decoded witness, its SSZ layout and its JSON text (go-verkle's writer), when the
    /// SSZ decodes.
    decoded: Option<(OwnedExecutionWitness, SszLayout, String, Vec<usize>)>,
}

/// A fractional seed: its anchor, root and wire form.
pub(crate) struct FractionalSeed {
    anchor: String,
    root: [u8; 32],
    proof: Vec<u8>,
    owned: Option<OwnedFractionalProof>,
}

/// What a seed is.
pub(crate) enum SeedInput {
    Witness(Box<WitnessSeed>),
    Fractional(Box<FractionalSeed>),
}

/// One input to mutate, named after where it came from.
pub(crate) struct Seed {
    pub(crate) name: String,
    pub(crate) input: SeedInput,
    /// What the seed proves, when it verifies: the oracle its accepted mutants are held to.
    pub(crate) truth: Option<Truth>,
}

impl Seed {
    /// A witness seed from its pre-state root and SSZ bytes.
    pub(crate) fn witness(name: String, pre_state_root: [u8; 32], ssz: Vec<u8>) -> Seed {
        let witness = ExecutionWitness::from_ssz(bytes::Bytes::from(ssz.clone())).ok();
        let truth = witness
            .as_ref()
            .and_then(|w| witness::verify(&pre_state_root, w).ok())
            .and_then(|v| Truth::of_witness(&v).ok());
        let decoded = witness.map(|w| {
            let owned = w.to_owned_witness();
            let layout = ssz_layout(&owned);
            let text = w.to_json_value().to_string();
            let digits = json_digit_positions(&text);
            (owned, layout, text, digits)
        });
        Seed {
            name,
            truth,
            input: SeedInput::Witness(Box::new(WitnessSeed {
                pre_state_root,
                ssz,
                decoded,
            })),
        }
    }

    /// A fractional seed from its anchor name, root and wire form.
    pub(crate) fn fractional(name: String, anchor: String, root: [u8; 32], proof: Vec<u8>) -> Seed {
        let decoded = FractionalProof::from_bytes(bytes::Bytes::from(proof.clone())).ok();
        let truth = decoded.as_ref().and_then(|p| {
            let anchor = match anchor.as_str() {
                "state_root" => Anchor::StateRoot(root),
                "coordinator_root" => Anchor::CoordinatorRoot(root),
                _ => return None,
            };
            let v = verify_fractional(p, &anchor).ok()?;
            Truth::of_fractional(&v).ok()
        });
        let owned = decoded.map(|p| p.to_owned_proof());
        Seed {
            name,
            truth,
            input: SeedInput::Fractional(Box::new(FractionalSeed {
                anchor,
                root,
                proof,
                owned,
            })),
        }
    }
}

/// Real values for the structural mutants, gathered from every seed.
pub(crate) fn donors(seeds: &[Seed]) -> Donors {
    let mut d = Donors::default();
    for s in seeds {
        match &s.input {
            SeedInput::Witness(w) => {
                if let Some((o, ..)) = &w.decoded {
                    for sd in &o.state_diff {
                        d.stems.push(sd.stem);
                        for x in &sd.suffix_diffs {
                            d.values.extend(x.current_value);
                            d.values.extend(x.new_value);
                        }
                    }
                    d.stems.extend(&o.verkle_proof.other_stems);
                    d.points.extend(&o.verkle_proof.commitments_by_path);
                    d.points.push(o.verkle_proof.d);
                }
            }
            SeedInput::Fractional(f) => {
                if let Some(o) = &f.owned {
                    d.points.push(o.root);
                    d.points.extend(&o.commitments);
                    d.stems.extend(&o.other_stems);
                    for st in &o.stems {
                        d.stems.push(st.stem);
                        for x in &st.suffixes {
                            d.values.extend(x.current_value);
                            d.values.extend(x.new_value);
                        }
                    }
                }
            }
        }
    }
    d
}

/// One mutant: a request both implementations answer.
#[derive(Debug, Clone)]
pub struct Mutant {
    /// Unique in the run: number, seed, family and kind.
    pub name: String,
    /// What was changed, and where.
    pub description: String,
    /// The request's kind: `witness`, `fractional_proof` or `binary_witness`.
    pub kind: &'static str,
    /// The request's input.
    pub input: Value,
    /// Index of the seed it was drawn from: in the run's seed list, or for a binary mutant
    /// in the suite's binary cases (`usize::MAX` for a tree built for the mutant).
    pub seed: usize,
}

/// The generator for mutant `index` of the run seeded `seed`.
fn rng_for(seed: u64, index: u64) -> Rng {
    Rng::new(seed.rotate_left(32) ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Mutant `index` of the run seeded `seed`: a seed drawn from one of the groups (each group
/// a list of indices into `seeds`), then one mutation of it.
pub(crate) fn draw(
    seeds: &[Seed],
    groups: &[Vec<usize>],
    donors: &Donors,
    seed: u64,
    index: u64,
) -> Option<Mutant> {
    let mut rng = rng_for(seed, index);
    let groups: Vec<&Vec<usize>> = groups.iter().filter(|g| !g.is_empty()).collect();
    let group = rng.pick(&groups)?;
    let seed_index = *rng.pick(group)?;
    let s = seeds.get(seed_index)?;
    let (family, kind, description, input) = match &s.input {
        SeedInput::Witness(w) => witness_mutant(&mut rng, w, donors),
        SeedInput::Fractional(f) => fractional_mutant(&mut rng, f, donors),
    };
    let case_kind = match s.input {
        SeedInput::Witness(_) => "witness",
        SeedInput::Fractional(_) => "fractional_proof",
    };
    Some(Mutant {
        name: format!("m{index:05}_{}_{family}_{kind}", s.name),
        description: format!("{}: {family}/{kind}: {description}", s.name),
        kind: case_kind,
        input,
        seed: seed_index,
    })
}

type Drawn = (&'static str, &'static str, String, Value);

fn witness_input(root: &[u8; 32], ssz: &[u8]) -> Value {
    json!({"pre_state_root": hex0x(root), "ssz": hex0x(ssz)})
}

fn witness_mutant(rng: &mut Rng, w: &WitnessSeed, donors: &Donors) -> Drawn {
    let root = &w.pre_state_root;
    let Some((owned, layout, text, digits)) = &w.decoded else {
        let (kind, d, b) = byte_mutant(rng, &w.ssz);
        return ("ssz", kind, d, witness_input(root, &b));
    };
    match rng.below(100) {
        0..=39 => {
            let m = ssz_mutant(rng, &w.ssz, layout);
            ("ssz", m.kind, m.description, witness_input(root, &m.value))
        }
        40..=74 => {
            let m = structural_mutant(rng, owned, donors);
            match m.value.to_ssz() {
                Ok(b) => ("structural", m.kind, m.description, witness_input(root, &b)),
                Err(e) => (
                    "none",
                    "unencodable",
                    format!(
                        "{} could not be encoded ({e}); the seed itself",
                        m.description
                    ),
                    witness_input(root, &w.ssz),
                ),
            }
        }
        75..=87 => {
            let m = json_mutant(rng, text, digits);
            let input = match serde_json::from_str::<Value>(&m.value) {
                Ok(j) => json!({"pre_state_root": hex0x(root), "json": j}),
                Err(_) => witness_input(root, &w.ssz),
            };
            ("json", m.kind, m.description, input)
        }
        88..=92 => {
            let (kind, d, j) = json_field_mutant(rng, text);
            (
                "json",
                kind,
                d,
                json!({"pre_state_root": hex0x(root), "json": j}),
            )
        }
        93..=96 => {
            let mut r = *root;
            let what = if rng.chance(1, 2) {
                let at = rng.below(32);
                r[at] ^= 1 << rng.below(8);
                format!("bit of byte {at} flipped")
            } else {
                r = rng.pick(&donors.points).copied().unwrap_or_default();
                "another point".to_owned()
            };
            ("root", "pre_state_root", what, witness_input(&r, &w.ssz))
        }
        _ => (
            "none",
            "seed",
            "the seed unchanged".to_owned(),
            witness_input(root, &w.ssz),
        ),
    }
}

/// A change to one field of the witness JSON: a string value nulled, shortened by one byte,
/// upper-cased, or its key removed.
fn json_field_mutant(rng: &mut Rng, text: &str) -> (&'static str, String, Value) {
    let mut v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let mut leaves = Vec::new();
    collect_leaves(&v, String::new(), &mut leaves);
    let Some(path) = rng.pick(&leaves).cloned() else {
        return ("json_field", "no field".into(), v);
    };
    let op = rng.below(4);
    let kind = ["null", "shorten", "uppercase", "remove"][op];
    if op == 3 {
        if let Some((parent, key)) = path.rsplit_once('/') {
            if let Some(Value::Object(o)) = v.pointer_mut(parent) {
                o.remove(key);
            }
        }
    } else if let Some(leaf) = v.pointer_mut(&path) {
        *leaf = match (op, leaf.as_str()) {
            (1, Some(s)) if s.len() >= 4 => Value::String(s[..s.len() - 2].to_owned()),
            (2, Some(s)) => Value::String(s.to_uppercase()),
            _ => Value::Null,
        };
    }
    ("json_field", format!("{path} {kind}"), v)
}

fn collect_leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                collect_leaves(x, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                collect_leaves(x, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// A byte-level mutant of any encoding: a bit flipped, a byte set, truncated, extended, or
/// a 32-byte window copied or swapped.
pub(crate) fn byte_mutant(rng: &mut Rng, bytes: &[u8]) -> (&'static str, String, Vec<u8>) {
    let mut b = bytes.to_vec();
    let n = b.len();
    if n == 0 {
        b.push(rng.byte());
        return ("extend", "one byte appended to an empty input".into(), b);
    }
    match rng.below(6) {
        0 => {
            let at = rng.below(n);
            let bit = rng.below(8);
            b[at] ^= 1 << bit;
            ("bit_flip", format!("bit {bit} of byte {at} flipped"), b)
        }
        1 => {
            let at = rng.below(n);
            let old = b[at];
            b[at] = [
                0,
                0xff,
                old.wrapping_add(1),
                old.wrapping_sub(1),
                rng.byte(),
            ][rng.below(5)];
            (
                "byte_set",
                format!("byte {at} set from {old:#04x} to {:#04x}", b[at]),
                b,
            )
        }
        2 => {
            let len = if rng.chance(1, 2) {
                n - 1 - rng.below(n.min(8))
            } else {
                rng.below(n)
            };
            b.truncate(len);
            ("truncate", format!("truncated to {len} of {n} bytes"), b)
        }
        3 => {
            let most = if rng.chance(1, 2) { 4 } else { 64 };
            let k = 1 + rng.below(most);
            let at = if rng.chance(1, 2) {
                n
            } else {
                rng.below(n + 1)
            };
            let extra: Vec<u8> = (0..k).map(|_| rng.byte()).collect();
            b.splice(at..at, extra);
            ("extend", format!("{k} bytes inserted at {at}"), b)
        }
        _ if n >= 64 => {
            let src = rng.below(n - 31);
            let dst = rng.below(n - 31);
            if rng.chance(1, 2) {
                b.copy_within(src..src + 32, dst);
                (
                    "word_copy",
                    format!("32 bytes copied from {src} to {dst}"),
                    b,
                )
            } else {
                for k in 0..32 {
                    b.swap(src + k, dst + k);
                }
                (
                    "word_swap",
                    format!("32 bytes at {src} and {dst} swapped"),
                    b,
                )
            }
        }
        _ => {
            let at = rng.below(n);
            b[at] ^= 1;
            ("bit_flip", format!("bit 0 of byte {at} flipped"), b)
        }
    }
}

fn fractional_input(anchor: &str, root: &[u8; 32], proof: &[u8]) -> Value {
    json!({"anchor": anchor, "root": hex0x(root), "proof": hex0x(proof)})
}

fn fractional_mutant(rng: &mut Rng, f: &FractionalSeed, donors: &Donors) -> Drawn {
    let (anchor, root) = (f.anchor.as_str(), &f.root);
    let choice = match &f.owned {
        Some(_) => rng.below(100),
        None => 0,
    };
    match (choice, &f.owned) {
        (40..=89, Some(owned)) => {
            let mut m = owned.clone();
            let (kind, description) = fractional_change(rng, &mut m, donors);
            match m.to_bytes() {
                Ok(b) => (
                    "structural",
                    kind,
                    description,
                    fractional_input(anchor, root, &b),
                ),
                Err(e) => (
                    "none",
                    "unencodable",
                    format!("{description} could not be encoded ({e}); the seed itself"),
                    fractional_input(anchor, root, &f.proof),
                ),
            }
        }
        (90..=95, _) => {
            let other = if anchor == "state_root" {
                "coordinator_root"
            } else {
                "state_root"
            };
            match rng.below(3) {
                0 => (
                    "anchor",
                    "anchor",
                    format!("anchor {anchor} -> {other}, same root"),
                    fractional_input(other, root, &f.proof),
                ),
                1 => {
                    let mut r = *root;
                    let at = rng.below(32);
                    r[at] ^= 1 << rng.below(8);
                    (
                        "anchor",
                        "root",
                        format!("a bit of root byte {at} flipped"),
                        fractional_input(anchor, &r, &f.proof),
                    )
                }
                _ => {
                    let r = rng.pick(&donors.points).copied().unwrap_or_default();
                    (
                        "anchor",
                        "root",
                        "root replaced by another point".into(),
                        fractional_input(anchor, &r, &f.proof),
                    )
                }
            }
        }
        (96..=99, _) => (
            "none",
            "seed",
            "the seed unchanged".into(),
            fractional_input(anchor, root, &f.proof),
        ),
        _ => {
            let (kind, d, b) = byte_mutant(rng, &f.proof);
            ("wire", kind, d, fractional_input(anchor, root, &b))
        }
    }
}

fn flip<const N: usize>(rng: &mut Rng, v: &mut [u8; N]) -> String {
    let at = rng.below(N);
    let bit = rng.below(8);
    v[at] ^= 1 << bit;
    format!("bit {bit} of byte {at} flipped")
}

/// Edits a list: one item changed, removed, duplicated, swapped with another, or a new one
/// inserted; returns what was done.
fn list_change<const N: usize>(
    rng: &mut Rng,
    list: &mut Vec<[u8; N]>,
    donor: impl FnOnce(&mut Rng) -> [u8; N],
) -> String {
    let n = list.len();
    let choice = if n == 0 { 4 } else { rng.below(5) };
    match choice {
        0 => {
            let i = rng.below(n);
            format!("[{i}]: {}", flip(rng, &mut list[i]))
        }
        1 => {
            let i = rng.below(n);
            list.remove(i);
            format!("[{i}] removed")
        }
        2 => {
            let i = rng.below(n);
            list.insert(i, list[i]);
            format!("[{i}] duplicated")
        }
        3 if n >= 2 => {
            let i = rng.below(n);
            let j = (i + 1 + rng.below(n - 1)) % n;
            list.swap(i, j);
            format!("[{i}] and [{j}] swapped")
        }
        _ => {
            let i = rng.below(n + 1);
            let v = donor(rng);
            list.insert(i, v);
            format!("[{i}] inserted")
        }
    }
}

/// The structural fractional mutant kinds, in the order [`fractional_change`] draws them.
const FRACTIONAL_KINDS: [&str; 13] = [
    "stem",
    "ext",
    "suffix",
    "current_value",
    "new_value",
    "presence",
    "other_stems",
    "commitments",
    "internal_witnesses",
    "siblings",
    "root",
    "depth",
    "multiproof",
];

fn fractional_change(
    rng: &mut Rng,
    m: &mut OwnedFractionalProof,
    donors: &Donors,
) -> (&'static str, String) {
    let n = m.stems.len();
    let k = rng.below(FRACTIONAL_KINDS.len());
    // The first six change a stem; a proof without one gets a multiproof change instead.
    let kind = if n == 0 && k < 6 {
        "multiproof"
    } else {
        FRACTIONAL_KINDS[k]
    };
    let d = match kind {
        "stem" | "ext" | "suffix" | "current_value" | "new_value" | "presence" => {
            let i = rng.below(n);
            let st = &mut m.stems[i];
            match kind {
                "stem" => format!("stems[{i}].stem: {}", flip(rng, &mut st.stem)),
                "ext" => {
                    let old = st.ext;
                    st.ext = match rng.below(4) {
                        0 => (old & !7) | (((old & 7) + 1 + rng.below(2) as u8) % 3),
                        1 => old.wrapping_add(8),
                        2 => old.wrapping_sub(8),
                        _ => rng.byte(),
                    };
                    format!("stems[{i}].ext {old:#04x} -> {:#04x}", st.ext)
                }
                _ => {
                    let j = rng.below(st.suffixes.len());
                    let Some(x) = st.suffixes.get_mut(j) else {
                        return (kind, format!("stems[{i}] has no suffix"));
                    };
                    let at = format!("stems[{i}].suffixes[{j}]");
                    match kind {
                        "suffix" => {
                            let old = x.suffix;
                            x.suffix = if rng.chance(1, 2) {
                                old.wrapping_add(1)
                            } else {
                                rng.byte()
                            };
                            format!("{at}.suffix {old} -> {}", x.suffix)
                        }
                        "current_value" | "new_value" => {
                            let slot = if kind == "current_value" {
                                &mut x.current_value
                            } else {
                                &mut x.new_value
                            };
                            match slot {
                                Some(v) if rng.chance(1, 2) => {
                                    format!("{at}.{kind}: {}", flip(rng, v))
                                }
                                Some(_) if rng.chance(1, 2) => {
                                    *slot = None;
                                    format!("{at}.{kind} removed")
                                }
                                _ => {
                                    *slot = Some(
                                        rng.pick(&donors.values)
                                            .copied()
                                            .unwrap_or_else(|| rng.bytes()),
                                    );
                                    format!("{at}.{kind} set to another value")
                                }
                            }
                        }
                        _ => {
                            x.deleted = !x.deleted;
                            format!("{at}.deleted -> {}", x.deleted)
                        }
                    }
                }
            }
        }
        "other_stems" => {
            let stems = &donors.stems;
            let c = list_change(rng, &mut m.other_stems, |r| {
                r.pick(stems).copied().unwrap_or_else(|| r.bytes())
            });
            format!("other_stems{c}")
        }
        "commitments" => {
            let points = &donors.points;
            let c = list_change(rng, &mut m.commitments, |r| {
                r.pick(points).copied().unwrap_or_default()
            });
            format!("commitments{c}")
        }
        "internal_witnesses" => {
            let c = list_change(rng, &mut m.internal_witnesses, |r| {
                let mut v = r.bytes::<32>();
                v[31] &= 0x0f;
                v
            });
            format!("internal_witnesses{c}")
        }
        "siblings" => match &mut m.siblings {
            Some(s) if rng.chance(4, 5) => {
                let c = list_change(rng, s, |r| r.bytes());
                format!("siblings{c}")
            }
            Some(_) => {
                m.siblings = None;
                "the coordinator path dropped".into()
            }
            None => {
                m.siblings = Some(Vec::new());
                "an empty coordinator path added".into()
            }
        },
        "root" => {
            m.root = rng.pick(&donors.points).copied().unwrap_or_default();
            "root replaced by another point".into()
        }
        "depth" => {
            let old = m.depth;
            m.depth = [1, 2, 0, 3][rng.below(4)];
            format!("depth {old} -> {}", m.depth)
        }
        _ => {
            let at = rng.below(m.multiproof.len());
            m.multiproof[at] ^= 1 << rng.below(8);
            format!("a bit of multiproof byte {at} flipped")
        }
    };
    (kind, d)
}
