//! The binary-tree part of the differential run (`spec/BINARY.md`): seeds, their truth, and
//! the oracle an accepted binary mutant is held to.
//!
//! Seeds: the suite's `binary_witness` cases, and for each mutant drawn from a tree, a
//! small random tree built here with `bintree` (EIP-7864 with SHA-256 or BLAKE3, EIP-8297
//! with BLAKE3: stems or keys sharing long prefixes, reads of present and absent keys, sets,
//! new stems and keys, EIP-8297 deletes, some of whole clusters so that branches collapse)
//! and the honest witness its prover writes.
//!
//! Truth: for a tree, the tree itself: a mutant that verifies must claim the tree's value
//! (or absence) for every key and the root of the tree after its claimed writes. For a suite
//! case, the claims of the suite's valid cases on the same tree, hash and root: a mutant
//! that verifies must claim their pre-value for every key they name, and their post-state
//! root when its keys and writes are one valid case's.

use std::collections::BTreeMap;
use std::path::Path;

use bintree::witness::{Claim, Write, WriteRef};
use bintree::{Blake3, Sha256, TreeHash};
use serde_json::Value;

use crate::at::{hex0x, parse_hex, Loc};
use crate::error::VectorError;
use crate::upstream::read_json;

use super::binary_mutants::{mutate, request, BinaryDonors, BinaryInput, CONFIGS};
use super::binary_wire::{read, Layout};
use super::mutants::{Mutant, Rng};

/// The share of binary mutants: mutant `i` of the run seeded `s` is binary when
/// `(i + s) mod 10` is one of these (three in ten).
const BINARY_SLOTS: [u64; 3] = [1, 4, 7];

/// Whether mutant `index` of the run seeded `seed` is a binary one.
pub(crate) fn is_binary(seed: u64, index: u64) -> bool {
    BINARY_SLOTS.contains(&(index.wrapping_add(seed) % 10))
}

/// A claim of a verified binary witness, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OwnedClaim {
    pub(crate) key: Vec<u8>,
    pub(crate) pre: Option<[u8; 32]>,
    pub(crate) write: Write,
}

fn owned<'a>(claims: impl Iterator<Item = Claim<'a>>) -> Vec<OwnedClaim> {
    claims
        .map(|c| OwnedClaim {
            key: c.key.to_vec(),
            pre: c.pre.copied(),
            write: match c.write {
                WriteRef::Unchanged => Write::Unchanged,
                WriteRef::Set(v) => Write::Set(*v),
                WriteRef::Delete => Write::Delete,
            },
        })
        .collect()
}

/// Verifies a binary witness of `tree` hashed with `hash` here: its claims and post-state
/// root, or the rule it breaks.
pub(crate) fn verify(
    tree: &str,
    hash: &str,
    bytes: &[u8],
    root: &[u8; 32],
) -> Result<(Vec<OwnedClaim>, [u8; 32]), &'static str> {
    fn e7864<H: TreeHash>(
        b: &[u8],
        r: &[u8; 32],
    ) -> Result<(Vec<OwnedClaim>, [u8; 32]), &'static str> {
        let (w, v) = bintree::eip7864::witness::verify::<H>(b, r).map_err(|e| e.name())?;
        Ok((owned(w.claims()), v.post_root))
    }
    match (tree, hash) {
        ("eip8297", "blake3") => {
            let (w, v) =
                bintree::eip8297::witness::verify::<Blake3>(bytes, root).map_err(|e| e.name())?;
            Ok((owned(w.claims()), v.post_root))
        }
        ("eip7864", "sha256") => e7864::<Sha256>(bytes, root),
        ("eip7864", "blake3") => e7864::<Blake3>(bytes, root),
        _ => Err("no binary witness for this tree and hash"),
    }
}

/// The root of the tree holding `entries`, computed from scratch.
fn root_of(
    config: (&str, &str),
    entries: &BTreeMap<Vec<u8>, [u8; 32]>,
) -> Result<[u8; 32], String> {
    fn e7864<H: TreeHash>(entries: &BTreeMap<Vec<u8>, [u8; 32]>) -> Result<[u8; 32], String> {
        let mut t = bintree::eip7864::Tree::<H>::new();
        t.apply(entries.iter().map(|(k, v)| (k.as_slice(), *v)))
            .map_err(|e| e.to_string())?;
        Ok(t.root())
    }
    match config {
        ("eip8297", _) => {
            let list: Vec<(&[u8], [u8; 32])> =
                entries.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
            bintree::eip8297::root_of_entries::<Blake3>(&list).map_err(|e| e.to_string())
        }
        (_, "sha256") => e7864::<Sha256>(entries),
        _ => e7864::<Blake3>(entries),
    }
}

/// What a binary seed proves.
#[derive(Debug, Clone)]
pub(crate) enum BinaryTruth {
    /// The whole tree the witness was proved from.
    Tree {
        config: (&'static str, &'static str),
        root: [u8; 32],
        entries: BTreeMap<Vec<u8>, [u8; 32]>,
        /// The honest witness's request input: it must verify.
        honest: Value,
    },
    /// The suite's valid cases on one tree, hash and root.
    Claims {
        config: (&'static str, &'static str),
        root: [u8; 32],
        /// Each key a valid case names, with its pre-value.
        pre: BTreeMap<Vec<u8>, Option<[u8; 32]>>,
        /// Each valid case's keys and writes, with its post-state root.
        blocks: Vec<(Writes, [u8; 32])>,
    },
}

/// What the binary oracle checked of an accepted mutant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BinaryChecked {
    /// Whether its post-state root was checked too.
    pub(crate) post_state: bool,
}

fn field<'a>(input: &'a Value, name: &str) -> Result<&'a str, String> {
    input
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{name}` missing"))
}

impl BinaryTruth {
    fn config(&self) -> (&'static str, &'static str) {
        match self {
            BinaryTruth::Tree { config, .. } | BinaryTruth::Claims { config, .. } => *config,
        }
    }

    fn root(&self) -> [u8; 32] {
        match self {
            BinaryTruth::Tree { root, .. } | BinaryTruth::Claims { root, .. } => *root,
        }
    }

    /// Whether `input` is the honest witness of a tree (which must verify).
    pub(crate) fn is_honest(&self, input: &Value) -> bool {
        matches!(self, BinaryTruth::Tree { honest, .. } if honest == input)
    }

    /// Holds the accepted mutant `input` to this truth.
    ///
    /// # Errors
    /// The first false claim, said in words (or the mutant's failure to verify again).
    pub(crate) fn check(&self, input: &Value) -> Result<BinaryChecked, String> {
        let again = |what: String| format!("accepted, yet does not verify again: {what}");
        let (tree, hash) = (
            field(input, "tree").map_err(again)?,
            field(input, "hash").map_err(again)?,
        );
        let hex = |name: &str| {
            field(input, name)
                .and_then(parse_hex)
                .map_err(|e| again(format!("`{name}`: {e}")))
        };
        let root: [u8; 32] = hex("pre_state_root")?
            .try_into()
            .map_err(|_| again("`pre_state_root` is not 32 bytes".into()))?;
        let bytes = hex("witness")?;
        let config = self.config();
        if (tree, hash) != config {
            return Err(format!(
                "false claim: accepted as {tree}/{hash}, the seed is {}/{}",
                config.0, config.1
            ));
        }
        if root != self.root() {
            return Err(format!(
                "false claim: accepted against pre-state root {}, the seed's is {}",
                hex0x(&root),
                hex0x(&self.root())
            ));
        }
        let (claims, post) = verify(tree, hash, &bytes, &root).map_err(|r| again(r.into()))?;
        let show = |v: Option<[u8; 32]>| v.map_or("absence".to_owned(), |v| hex0x(&v));
        match self {
            BinaryTruth::Tree { entries, .. } => {
                let mut after = entries.clone();
                for c in &claims {
                    let real = entries.get(&c.key).copied();
                    if c.pre != real {
                        return Err(format!(
                            "false claim: key {} has pre-value {}, the tree holds {}",
                            hex0x(&c.key),
                            show(c.pre),
                            show(real)
                        ));
                    }
                    match c.write {
                        Write::Unchanged => {}
                        Write::Set(v) => {
                            after.insert(c.key.clone(), v);
                        }
                        Write::Delete => {
                            after.remove(&c.key);
                        }
                    }
                }
                let want = root_of(config, &after)?;
                if post != want {
                    return Err(format!(
                        "false claim: post-state root {}, the tree after the claimed writes has {}",
                        hex0x(&post),
                        hex0x(&want)
                    ));
                }
                Ok(BinaryChecked { post_state: true })
            }
            BinaryTruth::Claims { pre, blocks, .. } => {
                for c in &claims {
                    if let Some(&real) = pre.get(&c.key) {
                        if c.pre != real {
                            return Err(format!(
                                "false claim: key {} has pre-value {}, the suite's valid cases prove {}",
                                hex0x(&c.key),
                                show(c.pre),
                                show(real)
                            ));
                        }
                    }
                }
                let writes: Writes = claims.iter().map(|c| (c.key.clone(), c.write)).collect();
                match blocks.iter().find(|(w, _)| *w == writes) {
                    Some((_, want)) if *want != post => Err(format!(
                        "false claim: post-state root {}, the valid case with the same writes has {}",
                        hex0x(&post),
                        hex0x(want)
                    )),
                    Some(_) => Ok(BinaryChecked { post_state: true }),
                    None => Ok(BinaryChecked { post_state: false }),
                }
            }
        }
    }
}

/// One suite case as a seed.
struct SuiteSeed {
    name: String,
    input: BinaryInput,
    /// Index of its truth in [`BinarySeeds::truths`], when a valid case shares its root.
    truth: Option<usize>,
}

/// The binary seeds of a run: the suite's cases, their truths and the donors.
pub(crate) struct BinarySeeds {
    cases: Vec<SuiteSeed>,
    truths: Vec<BinaryTruth>,
    donors: BinaryDonors,
}

impl BinarySeeds {
    /// The number of suite cases.
    pub(crate) fn len(&self) -> usize {
        self.cases.len()
    }
}

fn config_of(tree: &str, hash: &str) -> Option<(&'static str, &'static str)> {
    CONFIGS.iter().copied().find(|c| *c == (tree, hash))
}

/// Reads the suite's `binary_witness_valid.json` and `binary_witness_invalid.json`.
pub(crate) fn load(suite_dir: &Path) -> Result<BinarySeeds, VectorError> {
    let mut cases = Vec::new();
    let mut truths: Vec<BinaryTruth> = Vec::new();
    let mut donors = BinaryDonors::default();
    for file in ["binary_witness_valid.json", "binary_witness_invalid.json"] {
        let path = suite_dir.join(file);
        let doc = read_json(&path)?;
        let doc = Loc::root(&doc, path.display().to_string());
        for case in doc.get("cases")?.items()? {
            let name = case.get("name")?.str()?.to_owned();
            let input = case.get("input")?;
            let (tree, hash) = (input.get("tree")?, input.get("hash")?);
            let Some(config) = config_of(tree.str()?, hash.str()?) else {
                return Err(VectorError::field(
                    &tree.at,
                    "no binary witness for this tree and hash",
                ));
            };
            let root = input.get("pre_state_root")?.hex_n::<32>()?;
            let witness = input.get("witness")?.hex()?;
            let layout = if config.0 == "eip8297" {
                Layout::Eip8297
            } else {
                Layout::Eip7864
            };
            if let Some(s) = read(layout, &witness) {
                donors.add(&s);
            }
            donors.hashes.push(root);
            let verified = verify(config.0, config.1, &witness, &root).ok();
            if let Some((_, post)) = &verified {
                donors.hashes.push(*post);
            }
            let at = truths
                .iter()
                .position(|t| t.config() == config && t.root() == root);
            let truth = match (verified.clone(), at) {
                (Some((claims, post)), at) => {
                    let i = at.unwrap_or_else(|| {
                        truths.push(BinaryTruth::Claims {
                            config,
                            root,
                            pre: BTreeMap::new(),
                            blocks: Vec::new(),
                        });
                        truths.len() - 1
                    });
                    if let Some(BinaryTruth::Claims { pre, blocks, .. }) = truths.get_mut(i) {
                        for c in &claims {
                            pre.insert(c.key.clone(), c.pre);
                        }
                        blocks.push((claims.into_iter().map(|c| (c.key, c.write)).collect(), post));
                    }
                    Some(i)
                }
                (None, at) => at,
            };
            cases.push(SuiteSeed {
                name,
                input: BinaryInput {
                    tree: config.0,
                    hash: config.1,
                    pre_state_root: root,
                    witness,
                    post_state_root: verified.map(|(_, p)| p),
                },
                truth,
            });
        }
    }
    // An invalid case read before the valid case of its root gets its truth now.
    for c in &mut cases {
        if c.truth.is_none() {
            let config = (c.input.tree, c.input.hash);
            c.truth = truths
                .iter()
                .position(|t| t.config() == config && t.root() == c.input.pre_state_root);
        }
    }
    Ok(BinarySeeds {
        cases,
        truths,
        donors,
    })
}

/// Mutant `index` of the run seeded `seed` (a binary one, [`is_binary`]): drawn from a suite
/// case (two in five) or from a tree built for it, with the truth it is held to.
pub(crate) fn draw(seeds: &BinarySeeds, seed: u64, index: u64) -> (Mutant, Option<BinaryTruth>) {
    let mut rng = Rng::new(
        seed.rotate_left(17) ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03) ^ 0x6269_6e61_7279,
    );
    let (source, seed_index, input, truth, donors) = match rng.below(5) {
        0 | 1 if !seeds.cases.is_empty() => {
            let i = rng.below(seeds.cases.len());
            let c = &seeds.cases[i];
            let truth = c.truth.and_then(|t| seeds.truths.get(t)).cloned();
            (c.name.clone(), i, c.input.clone(), truth, None)
        }
        _ => {
            let (input, truth, donors) = tree_seed(&mut rng, seeds);
            let source = format!("tree_{}_{}", input.tree, input.hash);
            (source, usize::MAX, input, Some(truth), Some(donors))
        }
    };
    let donors = donors.as_ref().unwrap_or(&seeds.donors);
    let (family, kind, description, value) = mutate(&mut rng, &input, donors);
    let mutant = Mutant {
        name: format!("m{index:05}_{source}_{family}_{kind}"),
        description: format!("{source}: {family}/{kind}: {description}"),
        kind: "binary_witness",
        input: value,
        seed: seed_index,
    };
    (mutant, truth)
}

/// A tree built for one mutant, its honest witness and the tree as truth; the donors are
/// the tree's keys and values, the witness's items and the suite's.
fn tree_seed(rng: &mut Rng, seeds: &BinarySeeds) -> (BinaryInput, BinaryTruth, BinaryDonors) {
    let config = match rng.below(4) {
        0 => CONFIGS[0],
        1 => CONFIGS[1],
        _ => CONFIGS[2],
    };
    // A tree whose prover fails (it should not) is retried with the next draw.
    for _ in 0..8 {
        let (entries, writes) = match config.0 {
            "eip8297" => random_8297(rng),
            _ => random_7864(rng),
        };
        let built = match config {
            ("eip8297", _) => prove_8297(&entries, &writes),
            (_, "sha256") => prove_7864::<Sha256>(&entries, &writes),
            _ => prove_7864::<Blake3>(&entries, &writes),
        };
        let Some((root, witness)) = built else {
            continue;
        };
        let post = verify(config.0, config.1, &witness, &root)
            .ok()
            .map(|(_, p)| p);
        let input = BinaryInput {
            tree: config.0,
            hash: config.1,
            pre_state_root: root,
            witness,
            post_state_root: post,
        };
        let mut donors = BinaryDonors {
            values: entries.values().copied().collect(),
            keys: entries.keys().cloned().collect(),
            hashes: vec![root],
            others_7864: seeds.donors.others_7864.clone(),
            others_8297: seeds.donors.others_8297.clone(),
            anchors: seeds.donors.anchors.clone(),
        };
        donors.hashes.extend(post);
        let layout = if config.0 == "eip8297" {
            Layout::Eip8297
        } else {
            Layout::Eip7864
        };
        if let Some(s) = read(layout, &input.witness) {
            donors.add(&s);
        }
        for _ in 0..4 {
            donors.hashes.extend(rng.pick(&seeds.donors.hashes));
            donors.values.extend(rng.pick(&seeds.donors.values));
        }
        let honest = request(config.0, config.1, &root, &input.witness);
        let truth = BinaryTruth::Tree {
            config,
            root,
            entries,
            honest,
        };
        return (input, truth, donors);
    }
    // Unreachable in practice: the empty tree with no keys.
    let entries = BTreeMap::new();
    let witness = match config.0 {
        "eip8297" => prove_8297(&entries, &[]),
        _ => prove_7864::<Sha256>(&entries, &[]),
    }
    .map(|(_, w)| w)
    .unwrap_or_default();
    let input = BinaryInput {
        tree: config.0,
        hash: config.1,
        pre_state_root: [0; 32],
        witness: witness.clone(),
        post_state_root: Some([0; 32]),
    };
    let honest = request(config.0, config.1, &[0; 32], &witness);
    let truth = BinaryTruth::Tree {
        config,
        root: [0; 32],
        entries,
        honest,
    };
    (input, truth, seeds.donors.clone())
}

type Entries = BTreeMap<Vec<u8>, [u8; 32]>;
type Writes = Vec<(Vec<u8>, Write)>;

fn prove_7864<H: TreeHash>(
    entries: &Entries,
    writes: &[(Vec<u8>, Write)],
) -> Option<([u8; 32], Vec<u8>)> {
    let mut t = bintree::eip7864::Tree::<H>::new();
    t.apply(entries.iter().map(|(k, v)| (k.as_slice(), *v)))
        .ok()?;
    let root = t.root();
    Some((root, t.witness(writes).ok()?))
}

fn prove_8297(entries: &Entries, writes: &[(Vec<u8>, Write)]) -> Option<([u8; 32], Vec<u8>)> {
    let mut t = bintree::eip8297::Tree::<Blake3>::new();
    for (k, v) in entries {
        t.insert(k, v).ok()?;
    }
    let root = t.root();
    Some((root, t.witness(writes).ok()?))
}

/// A bit deep in a key of `bits` bits (where neighbours part), or anywhere.
fn some_bit(rng: &mut Rng, bits: usize) -> usize {
    if rng.chance(1, 2) {
        bits - 1 - rng.below(bits.min(48))
    } else {
        rng.below(bits)
    }
}

fn flip(key: &mut [u8], at: usize) {
    if let Some(b) = key.get_mut(at / 8) {
        *b ^= 0x80 >> (at % 8);
    }
}

/// A write for a key holding `pre`: mostly a read or a new value, sometimes the same value
/// (written as unchanged by the prover).
fn some_write(rng: &mut Rng, pre: Option<[u8; 32]>) -> Write {
    match rng.below(10) {
        0..=4 => Write::Unchanged,
        5..=8 => Write::Set(rng.bytes()),
        _ => Write::Set(pre.unwrap_or_else(|| rng.bytes())),
    }
}

/// How many keys a witness proves: none now and then, else one to ten.
fn key_count(rng: &mut Rng) -> usize {
    if rng.chance(1, 20) {
        0
    } else {
        1 + rng.below(10)
    }
}

/// An EIP-7864 tree of stems near a few bases (an empty tree one time in ten), and the
/// keys of a block: present keys, absent keys in present stems, new stems beside present
/// ones (divergent), anywhere (empty subtrees), or beside each other.
fn random_7864(rng: &mut Rng) -> (Entries, Writes) {
    const SUBS: [u8; 8] = [0, 1, 2, 3, 64, 65, 128, 255];
    let mut entries = Entries::new();
    if !rng.chance(1, 10) {
        let bases: Vec<[u8; 31]> = (0..1 + rng.below(3)).map(|_| rng.bytes()).collect();
        for _ in 0..1 + rng.below(10) {
            let mut stem = rng.pick(&bases).copied().unwrap_or_default();
            if rng.chance(2, 3) {
                let at = some_bit(rng, 248);
                flip(&mut stem, at);
            }
            for _ in 0..1 + rng.below(3) {
                let mut key = stem.to_vec();
                key.push(if rng.chance(3, 4) {
                    SUBS[rng.below(SUBS.len())]
                } else {
                    rng.byte()
                });
                entries.insert(key, rng.bytes());
            }
        }
    }
    let present: Vec<Vec<u8>> = entries.keys().cloned().collect();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for _ in 0..key_count(rng) {
        let near = rng.pick(&present).cloned();
        let key = match (rng.below(5), near) {
            (0, Some(k)) => k,
            (1, Some(mut k)) => {
                k[31] = rng.byte();
                k
            }
            (2, Some(mut k)) => {
                let at = some_bit(rng, 248);
                flip(&mut k, at);
                k
            }
            (3, _) | (_, None) => rng.bytes::<32>().to_vec(),
            _ => match keys.last().cloned() {
                Some(mut k) => {
                    let at = some_bit(rng, 248);
                    flip(&mut k, at);
                    k
                }
                None => rng.bytes::<32>().to_vec(),
            },
        };
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let writes = keys
        .into_iter()
        .map(|k| {
            let w = some_write(rng, entries.get(&k).copied());
            (k, w)
        })
        .collect();
    (entries, writes)
}

/// Whether `key` is a prefix of one of `keys` or one of them of it (or equal).
fn clashes<'a>(key: &[u8], mut keys: impl Iterator<Item = &'a Vec<u8>>) -> bool {
    keys.any(|k| k.starts_with(key) || key.starts_with(k))
}

/// An EIP-8297 tree of keys (34 bytes mostly, some 66, a few of any length up to 66) in
/// clusters near a few bases, and a block: reads, sets and deletes of present keys (a whole
/// cluster deleted one time in three, so that branches collapse), and absent keys beside
/// present ones or anywhere.
fn random_8297(rng: &mut Rng) -> (Entries, Writes) {
    let mut entries = Entries::new();
    let mut cluster: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
    if !rng.chance(1, 12) {
        let bases: Vec<Vec<u8>> = (0..1 + rng.below(3))
            .map(|_| {
                let len = match rng.below(10) {
                    0..=6 => 34,
                    7 | 8 => 66,
                    _ => 1 + rng.below(66),
                };
                (0..len).map(|_| rng.byte()).collect()
            })
            .collect();
        for _ in 0..2 + rng.below(12) {
            let b = rng.below(bases.len());
            let mut key = bases[b].clone();
            if rng.chance(4, 5) {
                let at = some_bit(rng, 8 * key.len());
                flip(&mut key, at);
            }
            if !clashes(&key, entries.keys()) {
                cluster.insert(key.clone(), b);
                entries.insert(key, rng.bytes());
            }
        }
    }
    let present: Vec<Vec<u8>> = entries.keys().cloned().collect();
    let mut writes: Writes = Vec::new();
    if rng.chance(1, 3) {
        if let Some(k) = rng.pick(&present) {
            let b = cluster.get(k).copied();
            let keep = rng.chance(1, 2);
            let mut all: Vec<&Vec<u8>> = present
                .iter()
                .filter(|p| cluster.get(*p).copied() == b)
                .collect();
            if keep && all.len() > 1 {
                all.pop();
            }
            writes.extend(all.into_iter().map(|k| (k.clone(), Write::Delete)));
        }
    }
    for _ in 0..key_count(rng) {
        let near = rng.pick(&present).cloned();
        let key = match (rng.below(5), near) {
            (0 | 1, Some(k)) => k,
            (2, Some(mut k)) => {
                let at = some_bit(rng, 8 * k.len());
                flip(&mut k, at);
                k
            }
            (3, Some(mut k)) if k.len() < 66 => {
                k.push(rng.byte());
                k
            }
            _ => (0..34).map(|_| rng.byte()).collect(),
        };
        let in_tree = entries.contains_key(&key);
        let clash = if in_tree {
            writes.iter().any(|(k, _)| *k == key)
        } else {
            clashes(&key, entries.keys()) || clashes(&key, writes.iter().map(|(k, _)| k))
        };
        if clash {
            continue;
        }
        let w = if in_tree && rng.chance(1, 4) {
            Write::Delete
        } else {
            some_write(rng, entries.get(&key).copied())
        };
        writes.push((key, w));
    }
    (entries, writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_of_binary_mutants_is_three_in_ten() {
        for seed in [0, 1, 7] {
            let n = (0..1000).filter(|&i| is_binary(seed, i)).count();
            assert_eq!(n, 300);
        }
    }

    #[test]
    fn honest_tree_witnesses_verify_and_are_true() {
        let seeds = BinarySeeds {
            cases: Vec::new(),
            truths: Vec::new(),
            donors: BinaryDonors::default(),
        };
        let (mut deletes, mut anchors) = (0, 0);
        for i in 0..60 {
            let mut rng = Rng::new(i);
            let (input, truth, _) = tree_seed(&mut rng, &seeds);
            let request = input.with_witness(&input.witness);
            assert!(truth.is_honest(&request));
            let checked = truth.check(&request).expect("an honest witness is true");
            assert!(checked.post_state);
            if input.tree == "eip8297" {
                let (claims, _) = verify(
                    input.tree,
                    input.hash,
                    &input.witness,
                    &input.pre_state_root,
                )
                .expect("verifies");
                deletes += claims.iter().filter(|c| c.write == Write::Delete).count();
            } else if let Some(s) = read(Layout::Eip7864, &input.witness) {
                anchors += s.anchors.len();
            }
        }
        assert!(deletes > 0, "the trees' blocks delete keys");
        assert!(anchors > 0, "the EIP-7864 trees' witnesses carry anchors");
    }

    #[test]
    fn a_false_claim_against_the_tree_is_caught() {
        let seeds = BinarySeeds {
            cases: Vec::new(),
            truths: Vec::new(),
            donors: BinaryDonors::default(),
        };
        // The first tree seed whose witness proves a key.
        let (input, config, root, mut entries, c) = (0..100)
            .find_map(|i| {
                let (input, truth, _) = tree_seed(&mut Rng::new(i), &seeds);
                let BinaryTruth::Tree {
                    config,
                    root,
                    entries,
                    ..
                } = truth
                else {
                    return None;
                };
                let (claims, _) =
                    verify(input.tree, input.hash, &input.witness, &root).expect("verifies");
                let c = claims.into_iter().next()?;
                Some((input, config, root, entries, c))
            })
            .expect("a tree whose witness proves a key");
        // The same witness held to a tree where one of its keys holds another value.
        entries.insert(c.key.clone(), [0xee; 32]);
        let lie = BinaryTruth::Tree {
            config,
            root,
            entries,
            honest: Value::Null,
        };
        let why = lie
            .check(&input.with_witness(&input.witness))
            .expect_err("a false pre-value");
        assert!(why.starts_with("false claim: key"), "{why}");
        // Against another root, the honest witness is a false claim.
        let mut other = input.clone();
        other.pre_state_root[0] ^= 1;
        let why = BinaryTruth::Claims {
            config,
            root,
            pre: BTreeMap::new(),
            blocks: Vec::new(),
        }
        .check(&other.with_witness(&other.witness))
        .expect_err("another root");
        assert!(why.contains("pre-state root"), "{why}");
    }
}
