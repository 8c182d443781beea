//! Mutation testing of the verifier over the real Kaustinen6 witnesses: seeded mutants of
//! every block's witness are decoded, verified against the block's `parentStateRoot` and, when
//! accepted, turned into a post-state root; each must be rejected or say only true things.
//!
//! # The mutants
//!
//! Each mutant is a pure function of its seed (its number, `0..N`): the seed picks a block
//! (blocks with few openings more often, since the mutants that reach the multiproof check
//! cost its time: about a millisecond for a one-stem block, tens for a hundred stems) and one
//! of four families (`mutate.rs`):
//! - **ssz**: byte-level changes of the SSZ encoding — bit flips, byte sets, truncations,
//!   extensions, copies and swaps of 32-byte words, offsets set to boundary values (0, 1, the
//!   container's and the buffer's length −1/+0/+1, `u32::MAX`, ±1, ±4), union selectors;
//! - **structural**: changes of the owned witness — values, suffixes, stems (before and past
//!   the stem's depth), extension statuses, other stems, commitments (real points from other
//!   witnesses, the identity, swaps, removals, duplicates), `d`/`cl`/`cr`, the final scalar
//!   (r, r ± 1, 2^256 − 1), suffix diffs and stems added or removed, sometimes stacked;
//! - **json**: one hex digit of a string value of the JSON text changed to another value;
//! - **root**: the unchanged witness against another pre-state root (one bit flipped, or
//!   a neighbouring block's root).
//!
//! # The oracle
//!
//! The original witness is geth's and verifies, so what it proves is the truth
//! ([`witness::fuzz::oracle::Truth`]): the pre-state value of each of its keys, and every
//! node it proves — an empty slot (every stem under it is absent), a leaf holding a stem
//! (every other stem under it is absent), internal nodes and their commitments. A mutant
//! passes when it is rejected (any `Err`, from decoding or from `verify`), or when `verify`
//! accepts it and every claim it then makes is true (`Truth::check_witness`): its pre-state
//! root is the block's parent root as a point; every proven node is one the original proves
//! the same way; every bound key's current value is the one the original proves or implies;
//! and its post-state root is the original's exactly when its writes are — the block's
//! `stateRoot`, except at block 1, whose witness omits four writes (`verify.rs`). The truth
//! checks post-state roots of mutants with unbound writes too (`Truth::with_unbound_post`),
//! and a key proven through an unbound absence the original does not prove is a false claim
//! here.
//!
//! An `Err` from `post_state_root()` on an accepted witness, a panic anywhere, or a broken
//! claim fails the test, naming the mutant's seed, block, family, kind and change.
//!
//! # Running it
//!
//! `cargo test --release -p witness --test witness mutants -- --nocapture` runs
//! [`DEFAULT_MUTANTS`] mutants and prints a summary line. `FVERKLE_MUTANTS=N` runs seeds
//! `0..N` (`scripts/mutants.sh N`), and from `FIRST` on with `FVERKLE_MUTANTS_FIRST=FIRST`
//! (`scripts/mutants.sh N FIRST`, to extend a campaign); `FVERKLE_MUTANT_SEED=S` runs seed
//! `S` alone and prints it; `FVERKLE_MUTANT_THREADS=T` sets the threads (default: two per
//! core).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use bytes::Bytes;
use witness::fuzz::oracle::{Checked, Fact, FalseClaim, NodeFact, Roots, Truth};
use witness::{owned::OwnedExecutionWitness, verify, ExecutionWitness, NodeKind, VerifyError};

use crate::common::{read_json, CHAIN_FILE};
use crate::mutate::{
    json_digit_positions, json_mutant, ssz_layout, ssz_mutant, structural_mutant, Donors, Rng,
    SszLayout,
};

/// Mutants of a default run.
pub const DEFAULT_MUTANTS: usize = 50_000;

/// The block whose witness omits writes of the block (see `verify.rs`).
const BLOCK_OMITTING_WRITES: u64 = 1;

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

/// One block of the chain with everything its mutants need.
struct Block {
    number: u64,
    parent_root: [u8; 32],
    witness: ExecutionWitness,
    owned: OwnedExecutionWitness,
    ssz: Vec<u8>,
    layout: SszLayout,
    json: String,
    json_digits: Vec<usize>,
    truth: Truth,
    /// Multiproof openings of the original (the cost of a mutant that reaches the check).
    openings: usize,
}

struct Corpus {
    blocks: Vec<Block>,
    /// Running sums of the blocks' weights.
    cumulative: Vec<u64>,
    donors: Donors,
}

/// The chain's blocks, verified and prepared once per test binary.
fn corpus() -> &'static Corpus {
    static CELL: OnceLock<Corpus> = OnceLock::new();
    CELL.get_or_init(|| {
        let doc = read_json(CHAIN_FILE);
        let raw = doc["blocks"].as_array().expect("chain: blocks array");
        assert_eq!(raw.len(), 200, "{CHAIN_FILE}: block count");
        let mut blocks = Vec::new();
        let mut donors = Donors::default();
        for b in raw {
            let number = b["blockNumber"].as_u64().expect("blockNumber");
            let root = |k: &str| hex32(b[k].as_str().unwrap_or_else(|| panic!("{k}")));
            let (parent_root, state_root) = (root("parentStateRoot"), root("stateRoot"));
            let value = &b["executionWitness"];
            let witness = ExecutionWitness::from_json_value(value)
                .unwrap_or_else(|e| panic!("{CHAIN_FILE} block {number}: {e}"));
            let v = verify(&parent_root, &witness)
                .unwrap_or_else(|e| panic!("block {number} does not verify: {e}"));
            let truth = Truth::of_witness(&v)
                .unwrap_or_else(|e| panic!("block {number}: the original's post-state root: {e}"))
                .with_unbound_post();
            let post_root = truth.post_roots().canonical;
            if number == BLOCK_OMITTING_WRITES {
                assert_ne!(post_root, state_root, "block {number}");
            } else {
                assert_eq!(post_root, state_root, "block {number}: post-state root");
            }
            let owned = witness.to_owned_witness();
            for s in &owned.state_diff {
                donors.stems.push(s.stem);
                for d in &s.suffix_diffs {
                    donors.values.extend(d.current_value);
                    donors.values.extend(d.new_value);
                }
            }
            donors.stems.extend(&owned.verkle_proof.other_stems);
            donors
                .points
                .extend(&owned.verkle_proof.commitments_by_path);
            donors.points.push(owned.verkle_proof.d);
            let json = serde_json::to_string(value).expect("JSON text");
            blocks.push(Block {
                number,
                parent_root,
                ssz: witness.as_ssz().to_vec(),
                layout: ssz_layout(&owned),
                json_digits: json_digit_positions(&json),
                json,
                owned,
                witness,
                truth,
                openings: v.opening_count(),
            });
        }
        // A block's weight is inversely proportional to the cost of a proof check on it
        // (a fixed part, about 32 openings' worth, plus its openings).
        let mut total = 0u64;
        let cumulative = blocks
            .iter()
            .map(|b| {
                total += 1_000_000 / (32 + b.openings as u64);
                total
            })
            .collect();
        Corpus {
            blocks,
            cumulative,
            donors,
        }
    })
}

/// The mutant families, in the order of the summary.
const FAMILIES: [&str; 4] = ["ssz", "structural", "json", "root"];

/// What a mutant is: drawn from its seed alone.
struct Mutant {
    block: usize,
    family: &'static str,
    kind: &'static str,
    description: String,
    input: Input,
}

enum Input {
    Ssz(Vec<u8>),
    Owned(Box<OwnedExecutionWitness>),
    Json(String),
    Root([u8; 32]),
}

fn draw(corpus: &Corpus, seed: u64) -> Mutant {
    let mut rng = Rng::new(seed);
    let blocks = &corpus.blocks;
    // Every block gets one of the first mutants, then blocks are drawn by weight.
    let block = if (seed as usize) < blocks.len() {
        seed as usize % blocks.len()
    } else {
        rng.weighted(&corpus.cumulative)
    };
    let b = &blocks[block];
    let (family, kind, description, input) = match rng.below(100) {
        0..=44 => {
            let m = ssz_mutant(&mut rng, &b.ssz, &b.layout);
            ("ssz", m.kind, m.description, Input::Ssz(m.value))
        }
        45..=79 => {
            let m = structural_mutant(&mut rng, &b.owned, &corpus.donors);
            (
                "structural",
                m.kind,
                m.description,
                Input::Owned(Box::new(m.value)),
            )
        }
        80..=95 => {
            let m = json_mutant(&mut rng, &b.json, &b.json_digits);
            ("json", m.kind, m.description, Input::Json(m.value))
        }
        _ => {
            let (root, what) = if rng.chance(1, 2) {
                let mut r = b.parent_root;
                let at = rng.below(32);
                let bit = rng.below(8);
                r[at] ^= 1 << bit;
                (r, format!("bit {bit} of byte {at} flipped"))
            } else {
                let other = (block + 1 + rng.below(blocks.len() - 1)) % blocks.len();
                (
                    blocks[other].parent_root,
                    format!("block {}'s parent root", blocks[other].number),
                )
            };
            let kind = if what.starts_with("bit") {
                "bit_flip"
            } else {
                "other_block"
            };
            (
                "root",
                kind,
                format!("pre-state root: {what}"),
                Input::Root(root),
            )
        }
    };
    Mutant {
        block,
        family,
        kind,
        description,
        input,
    }
}

/// How a mutant ended.
enum Verdict {
    /// Rejected; the label says by what (`decode`, or the `VerifyError` variant).
    Rejected(String),
    /// Accepted, and every claim is true; whether its writes are unbound.
    True { unbound_writes: bool },
    /// Accepted with a false claim.
    False(String),
}

fn judge(corpus: &Corpus, m: &Mutant) -> Verdict {
    let b = &corpus.blocks[m.block];
    let mut root = b.parent_root;
    let decoded = match &m.input {
        Input::Ssz(bytes) => {
            ExecutionWitness::from_ssz(Bytes::from(bytes.clone())).map_err(|e| e.to_string())
        }
        Input::Owned(w) => w.to_witness().map_err(|e| e.to_string()),
        Input::Json(text) => ExecutionWitness::from_json_str(text).map_err(|e| e.to_string()),
        Input::Root(r) => {
            root = *r;
            Ok(b.witness.clone())
        }
    };
    let Ok(w) = decoded else {
        return Verdict::Rejected("decode".into());
    };
    match verify(&root, &w) {
        Err(e) => Verdict::Rejected(variant_name(&e)),
        Ok(v) => match b.truth.check_witness(&v, None) {
            // A key the original's nodes do not prove, even through an unbound absence, is a
            // claim the truth cannot back.
            Ok(Checked { unbound_keys, .. }) if unbound_keys > 0 => Verdict::False(format!(
                "proves {unbound_keys} keys through unbound absences the original does not prove"
            )),
            Ok(_) => Verdict::True {
                unbound_writes: v.unbound_writes() > 0,
            },
            Err(claim) => Verdict::False(claim.to_string()),
        },
    }
}

/// The name of a `VerifyError` variant (its `Debug` form up to the first bracket).
fn variant_name(e: &VerifyError) -> String {
    let d = format!("{e:?}");
    d.split(['(', ' ', '{']).next().unwrap_or("?").to_string()
}

/// Counts of one run.
#[derive(Default)]
struct Stats {
    /// (family, kind) → mutants.
    by_kind: BTreeMap<(&'static str, &'static str), usize>,
    /// Rejections by stage.
    rejected: BTreeMap<String, usize>,
    /// family → accepted with true claims.
    accepted_true: BTreeMap<&'static str, usize>,
    /// Accepted mutants with unbound writes (their post-state roots checked all the same).
    unbound_writes: usize,
    /// Failures: (seed, message).
    failures: Vec<(u64, String)>,
    panics: usize,
    false_claims: usize,
    /// family → nanoseconds spent (drawing, decoding, verifying, judging).
    nanos: BTreeMap<&'static str, u128>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        for (k, n) in other.by_kind {
            *self.by_kind.entry(k).or_default() += n;
        }
        for (k, n) in other.rejected {
            *self.rejected.entry(k).or_default() += n;
        }
        for (k, n) in other.accepted_true {
            *self.accepted_true.entry(k).or_default() += n;
        }
        self.unbound_writes += other.unbound_writes;
        self.failures.extend(other.failures);
        self.panics += other.panics;
        self.false_claims += other.false_claims;
        for (k, n) in other.nanos {
            *self.nanos.entry(k).or_default() += n;
        }
    }

    fn total(&self) -> usize {
        self.by_kind.values().sum()
    }

    fn family(&self, family: &str) -> usize {
        self.by_kind
            .iter()
            .filter(|((f, _), _)| *f == family)
            .map(|(_, n)| n)
            .sum()
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic payload)".into())
}

/// Runs one seed, recording it in `stats`.
fn run_seed(corpus: &Corpus, seed: u64, stats: &mut Stats) {
    let start = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let m = draw(corpus, seed);
        let verdict = judge(corpus, &m);
        (m, verdict)
    }));
    let (m, verdict) = match outcome {
        Ok(r) => r,
        Err(p) => {
            // Redraw outside the guard to name it (drawing is deterministic).
            let named = catch_unwind(AssertUnwindSafe(|| draw(corpus, seed)));
            let name = match named {
                Ok(m) => format!(
                    "block {}: {}/{}: {}",
                    corpus.blocks[m.block].number, m.family, m.kind, m.description
                ),
                Err(_) => "drawing the mutant panicked".into(),
            };
            stats.panics += 1;
            stats
                .failures
                .push((seed, format!("{name}: PANIC: {}", panic_message(&*p))));
            return;
        }
    };
    *stats.by_kind.entry((m.family, m.kind)).or_default() += 1;
    *stats.nanos.entry(m.family).or_default() += start.elapsed().as_nanos();
    match verdict {
        Verdict::Rejected(by) => *stats.rejected.entry(by).or_default() += 1,
        Verdict::True { unbound_writes } => {
            *stats.accepted_true.entry(m.family).or_default() += 1;
            stats.unbound_writes += usize::from(unbound_writes);
        }
        Verdict::False(why) => {
            stats.false_claims += 1;
            stats.failures.push((
                seed,
                format!(
                    "block {}: {}/{}: {}: FALSE CLAIM: {why}",
                    corpus.blocks[m.block].number, m.family, m.kind, m.description
                ),
            ));
        }
    }
}

/// Runs seeds `first..first + n` on `threads` threads.
fn run(corpus: &'static Corpus, first: usize, n: usize, threads: usize) -> Stats {
    const CHUNK: usize = 64;
    let next = AtomicUsize::new(0);
    let merged = Mutex::new(Stats::default());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut stats = Stats::default();
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= n {
                        break;
                    }
                    for seed in start..(start + CHUNK).min(n) {
                        run_seed(corpus, (first + seed) as u64, &mut stats);
                    }
                }
                merged.lock().unwrap().merge(stats);
            });
        }
    });
    merged.into_inner().unwrap()
}

fn env_usize(name: &str) -> Option<usize> {
    let v = std::env::var(name).ok()?;
    let v = v.replace(['_', ','], "");
    Some(
        v.parse()
            .unwrap_or_else(|e| panic!("{name}={v:?} is not a count: {e}")),
    )
}

fn summary(stats: &Stats, seconds: f64, threads: usize) -> String {
    let mut out = format!(
        "mutants: {} in {seconds:.1} s on {threads} threads ({:.0}/s)",
        stats.total(),
        stats.total() as f64 / seconds
    );
    for family in FAMILIES {
        let kinds: Vec<String> = stats
            .by_kind
            .iter()
            .filter(|((f, _), _)| *f == family)
            .map(|((_, k), n)| format!("{k} {n}"))
            .collect();
        let n = stats.family(family);
        let ms = stats.nanos.get(family).copied().unwrap_or(0) as f64 / 1e6;
        out += &format!(
            "; {family} {n} ({}; {:.2} ms each)",
            kinds.join(", "),
            ms / n.max(1) as f64
        );
    }
    let rejected: usize = stats.rejected.values().sum();
    let by: Vec<String> = stats
        .rejected
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let accepted: usize = stats.accepted_true.values().sum();
    let acc: Vec<String> = stats
        .accepted_true
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    out += &format!(
        "; rejected {rejected} ({}); accepted-true {accepted} ({}; with unbound writes {}); false claims {}; panics {}",
        by.join(", "),
        acc.join(", "),
        stats.unbound_writes,
        stats.false_claims,
        stats.panics
    );
    out
}

#[test]
fn mutants_are_rejected_or_true() {
    let corpus = corpus();
    if let Some(seed) = env_usize("FVERKLE_MUTANT_SEED") {
        let m = draw(corpus, seed as u64);
        println!(
            "seed {seed}: block {}: {}/{}: {}",
            corpus.blocks[m.block].number, m.family, m.kind, m.description
        );
        let mut stats = Stats::default();
        run_seed(corpus, seed as u64, &mut stats);
        println!("{}", summary(&stats, 1.0, 1));
        assert!(stats.failures.is_empty(), "{:?}", stats.failures);
        return;
    }
    let n = env_usize("FVERKLE_MUTANTS").unwrap_or(DEFAULT_MUTANTS);
    let first = env_usize("FVERKLE_MUTANTS_FIRST").unwrap_or(0);
    // Two threads per core: `verify` hands its parallel parts to rayon's pool and waits, so
    // one thread per core would leave the cores idle while each thread decodes and judges.
    let threads = env_usize("FVERKLE_MUTANT_THREADS")
        .unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    let start = Instant::now();
    let mut stats = run(corpus, first, n, threads);
    let seconds = start.elapsed().as_secs_f64();
    println!("{}", summary(&stats, seconds, threads));
    stats.failures.sort();
    for (seed, f) in stats.failures.iter().take(50) {
        println!("FAIL seed {seed}: {f}");
    }
    assert!(
        stats.failures.is_empty(),
        "{} of {} mutants failed ({} false claims, {} panics); first: seed {} {}\n(rerun one with FVERKLE_MUTANT_SEED=<seed>)",
        stats.failures.len(),
        stats.total(),
        stats.false_claims,
        stats.panics,
        stats.failures[0].0,
        stats.failures[0].1
    );
    assert_eq!(stats.total(), n, "every seed ran");
    // The run exercised every family, and the oracle on both sides: rejections at several
    // stages, and accepted mutants whose claims it checked.
    for family in FAMILIES {
        assert!(
            stats.family(family) * 50 >= n,
            "{family}: {} mutants",
            stats.family(family)
        );
    }
    if n >= 10_000 {
        for stage in ["decode", "NotCanonical", "ProofRejected"] {
            assert!(
                stats.rejected.get(stage).copied().unwrap_or(0) > 0,
                "no mutant rejected by {stage}"
            );
        }
        for family in ["structural", "json"] {
            assert!(
                stats.accepted_true.get(family).copied().unwrap_or(0) > 0,
                "no {family} mutant accepted: the claim checks never ran"
            );
        }
    }
}

/// The SSZ layout `mutate.rs` aims at agrees with the encoder on every block: same length,
/// every offset within its container, every union selector 0 or 1 and the proof where the
/// top-level offset says.
#[test]
fn mutants_ssz_layout_agrees_with_the_encoding() {
    for b in &corpus().blocks {
        let l = &b.layout;
        assert_eq!(l.len, b.ssz.len(), "block {}", b.number);
        assert!(l.offsets.len() >= 5 + 3 * b.owned.state_diff.len());
        for f in &l.offsets {
            let v = u32::from_le_bytes(b.ssz[f.at..f.at + 4].try_into().unwrap()) as usize;
            assert!(
                v <= f.container_len,
                "block {}: {} = {v} > {}",
                b.number,
                f.name,
                f.container_len
            );
        }
        for (at, name) in &l.selectors {
            assert!(
                b.ssz[*at] <= 1,
                "block {}: {name} = {}",
                b.number,
                b.ssz[*at]
            );
        }
        let proof_at = u32::from_le_bytes(b.ssz[4..8].try_into().unwrap()) as usize;
        assert_eq!(proof_at, l.proof_at, "block {}", b.number);
        // Each suffix diff's current-value selector says what the owned witness says.
        let mut sel = l.selectors.iter();
        for s in &b.owned.state_diff {
            for d in &s.suffix_diffs {
                let (cur, new) = (sel.next().unwrap(), sel.next().unwrap());
                assert_eq!(
                    b.ssz[cur.0],
                    u8::from(d.current_value.is_some()),
                    "{}",
                    cur.1
                );
                assert_eq!(b.ssz[new.0], u8::from(d.new_value.is_some()), "{}", new.1);
            }
        }
    }
}

/// The oracle can fail: a truth with one changed fact makes the original's own claims
/// false, and each of the four checks is reached.
#[test]
fn mutants_oracle_flags_false_claims() {
    let corpus = corpus();
    // A block with bound present values, bound absent keys and writes.
    let (b, v) = corpus
        .blocks
        .iter()
        .map(|b| (b, verify(&b.parent_root, &b.witness).unwrap()))
        .find(|(_, v)| {
            let keys = v.keys();
            keys.iter().any(|k| k.bound && k.current_value.is_some())
                && keys.iter().any(|k| k.bound && k.current_value.is_none())
                && keys
                    .iter()
                    .any(|k| k.new_value.is_some_and(|n| Some(n) != k.current_value))
        })
        .expect("a block with present and absent keys and writes");
    let fresh = || Truth::of_witness(&v).unwrap().with_unbound_post();
    let check = |t: Truth| t.check_witness(&v, None);
    assert_eq!(check(fresh()).map(|c| c.post_state), Ok(true));

    let mut root = b.parent_root;
    root[0] ^= 1;
    assert!(matches!(
        check(fresh().with_fact(Fact::PreRoot(root))).map_err(|e| *e),
        Err(FalseClaim::Root { which: "pre-state", expected, .. }) if expected == root
    ));

    let node = v.nodes().last().unwrap();
    let path = node.path.as_bytes().to_vec();
    let mut fact = NodeFact {
        kind: node.kind,
        commitment: node.commitment.to_bytes(),
        leaf_stem: node.leaf_stem,
    };
    fact.commitment[0] ^= 1;
    let e = *check(fresh().with_fact(Fact::Node(path.clone(), Some(fact)))).unwrap_err();
    assert!(
        matches!(&e, FalseClaim::Node { path: p, expected: Some(f), .. } if *p == path && *f == fact),
        "{e}"
    );
    assert!(
        e.to_string().contains(&format!("0x{}", hex::encode(&path))),
        "{e}"
    );
    let e = *check(fresh().with_fact(Fact::Node(path.clone(), None))).unwrap_err();
    assert!(
        matches!(&e, FalseClaim::Node { path: p, expected: None, .. } if *p == path),
        "{e}"
    );

    let present = v
        .keys()
        .iter()
        .find(|k| k.bound && k.current_value.is_some())
        .unwrap();
    let mut value = present.current_value.unwrap();
    value[31] ^= 1;
    let e = *check(fresh().with_fact(Fact::PreValue(present.key(), Some(value)))).unwrap_err();
    assert!(
        matches!(&e, FalseClaim::Value { key, expected: Some(Some(x)), .. } if *key == present.key() && *x == value),
        "{e}"
    );
    assert!(e.to_string().contains(&hex::encode(present.key())), "{e}");
    let absent = v
        .keys()
        .iter()
        .find(|k| k.bound && k.current_value.is_none())
        .unwrap();
    let e = *check(fresh().with_fact(Fact::PreValue(absent.key(), Some([7; 32])))).unwrap_err();
    assert!(
        matches!(
            &e,
            FalseClaim::Value {
                got: None,
                expected: Some(Some([7, ..])),
                ..
            }
        ),
        "{e}"
    );

    let mut post = fresh().post_roots();
    post.canonical[5] ^= 1;
    let e = *check(fresh().with_fact(Fact::PostRoots(post))).unwrap_err();
    assert!(
        matches!(&e, FalseClaim::PostRoot { expected: Some(Roots { canonical, .. }), same_writes: true, .. } if *canonical == post.canonical),
        "{e}"
    );
    let e = *check(fresh().with_fact(Fact::Writes(Vec::new()))).unwrap_err();
    assert!(
        matches!(
            &e,
            FalseClaim::PostRoot {
                expected: None,
                same_writes: false,
                ..
            }
        ),
        "{e}"
    );

    // Knowledge of absence: a stem under a proven empty slot is absent; a stem that no
    // proven node leads to is unknown.
    let mut empty_slots = 0;
    for blk in &corpus.blocks {
        let v = verify(&blk.parent_root, &blk.witness).unwrap();
        for n in v.nodes() {
            if n.kind == NodeKind::Empty {
                let p = n.path.as_bytes();
                let mut key = [0xabu8; 32];
                key[..p.len()].copy_from_slice(p);
                assert_eq!(
                    blk.truth.known_pre(&key),
                    Some(None),
                    "block {}",
                    blk.number
                );
                empty_slots += 1;
            }
        }
    }
    assert!(empty_slots > 0, "no proven empty slot in the chain");
    let t = fresh();
    let unproven = (0..=255u8)
        .find(|i| !v.nodes().iter().any(|n| n.path.as_bytes() == [*i]))
        .expect("a root child the witness does not prove");
    assert_eq!(t.known_pre(&[unproven; 32]), None);
}

/// The bodies of the `verify` and `fractional` fuzz targets on their seeds: every chain
/// block with its parent root verifies, and so do our suite's valid fractional proofs while
/// its invalid ones do not; byte-level mutants of the blocks go through without a panic.
#[test]
fn mutants_fuzz_bodies_run_on_the_seeds() {
    let corpus = corpus();
    for b in &corpus.blocks {
        let mut input = b.parent_root.to_vec();
        input.extend_from_slice(&b.ssz);
        assert_eq!(
            witness::fuzz::verify(&input),
            Some(()),
            "block {}",
            b.number
        );
        let mut rng = Rng::new(b.number);
        for _ in 0..4 {
            let m = ssz_mutant(&mut rng, &b.ssz, &b.layout);
            let mut input = b.parent_root.to_vec();
            input.extend_from_slice(&m.value);
            let _ = witness::fuzz::verify(&input);
        }
    }
    assert_eq!(witness::fuzz::verify(&[0u8; 31]), None);

    let suite = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/suite");
    let mut checked = [0usize; 2];
    for (file, valid) in [
        ("fractional_valid.json", true),
        ("fractional_invalid.json", false),
    ] {
        let path = suite.join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        for case in doc["cases"].as_array().unwrap() {
            let input = &case["input"];
            let unhex =
                |k: &str| hex::decode(input[k].as_str().unwrap().trim_start_matches("0x")).unwrap();
            let mut bytes = unhex("root");
            bytes.extend(unhex("proof"));
            let got = witness::fuzz::fractional(&bytes);
            assert_eq!(got.is_some(), valid, "{file}: {}", case["name"]);
            checked[usize::from(valid)] += 1;
        }
    }
    assert!(checked[0] > 0 && checked[1] > 0, "{checked:?}");
}
