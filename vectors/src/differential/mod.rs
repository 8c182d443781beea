//! The differential run: seeded mutants of witnesses and fractional proofs, each answered
//! by this implementation in-process and by another one (the Python reference of
//! `spec/reference/`) through the `--impl` protocol's persistent mode; every difference in
//! verdict, rule or reported value is written out as a one-case suite file.
//!
//! Seeds: the suite's `witness_valid`, `witness_invalid`, `fractional_valid` and
//! `fractional_invalid` cases, and the small blocks of the public Kaustinen6 witness chain.
//! Mutants (`mutants.rs`): each a pure function of the run's seed and the mutant's number,
//! so `N` and `SEED` reproduce a run.
//!
//! Three mutants in ten are binary-tree witnesses (`binary.rs`, `binary_mutants.rs`,
//! `spec/BINARY.md`), drawn from the suite's `binary_witness` cases or from a small tree
//! built for the mutant, whose truth is the tree itself: a binary mutant both accept must
//! claim the tree's pre-values and absences and the root of the tree after its writes.
//!
//! The oracle (`oracle.rs`): a mutant both accept, drawn from a seed that verifies (every
//! valid suite case and chain block), is verified again and held to what the seed proves
//! (`witness::fuzz::oracle`): the same root, only nodes and current values the seed proves
//! (or absences under nodes it proves empty or held by another stem), and post-state
//! roots that are the seed's when the writes are, and differ from them when not. A false
//! claim is a difference, written out and failing the run like a disagreement.

mod answer;
mod binary;
mod binary_mutants;
mod binary_wire;
mod mutants;
mod oracle;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::at::Loc;
use crate::error::VectorError;
use crate::external::{ask_persistent, Adapter, ImplConfig};
use crate::schema::{FORMAT, VERSION};
use crate::upstream::read_json;

pub use answer::answer;
pub use mutants::Mutant;
use mutants::Seed;
#[cfg(test)]
use mutants::SeedInput;
use oracle::Oracle;

/// The Kaustinen6 blocks used as seeds are those whose SSZ witness is at most this long
/// (most of the chain; the few large blocks would dominate the reference's run time).
pub const MAX_CHAIN_WITNESS: usize = 8 * 1024;

/// What to run.
#[derive(Debug, Clone)]
pub struct DifferentialConfig {
    /// Number of mutants.
    pub mutants: u64,
    /// The run's seed.
    pub seed: u64,
    /// Our suite's directory (`vectors/suite`).
    pub suite_dir: PathBuf,
    /// The Kaustinen6 witness chain (`chain/kaustinen6_witness_chain_0001-0200.json` of the
    /// shared vectors), or none to use the suite's cases alone.
    pub chain_file: Option<PathBuf>,
    /// The other implementation, run in persistent mode.
    pub reference: ImplConfig,
    /// Where a difference's case file is written (created when needed).
    pub out_dir: PathBuf,
}

/// One mutant on which the two implementations disagree.
#[derive(Debug, Clone)]
pub struct Difference {
    /// The mutant.
    pub mutant: Mutant,
    /// What differs.
    pub reason: String,
    /// This implementation's answer.
    pub ours: Value,
    /// The other implementation's answer (or why none came).
    pub theirs: Value,
    /// The one-case suite file written for it.
    pub file: PathBuf,
}

/// The counts of one kind of request (`witness`, `fractional_proof`, `binary_witness`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindCounts {
    /// Mutants answered by both.
    pub mutants: u64,
    /// Mutants both accepted with the same values.
    pub accepted: u64,
    /// Accepted mutants held to their seed's truth and found true.
    pub checked: u64,
    /// Of those, the ones whose post-state roots were checked too.
    pub post_state: u64,
    /// Mutants both rejected for the same rule.
    pub rejected: u64,
    /// Mutants neither could read.
    pub unreadable: u64,
    /// Disagreements and false claims.
    pub differences: u64,
}

/// The result of a run.
#[derive(Debug, Clone, Default)]
pub struct DifferentialReport {
    /// Seeds the mutants were drawn from (binary trees built for a mutant not counted).
    pub seeds: usize,
    /// How many of them are blocks of the Kaustinen6 chain.
    pub chain_seeds: usize,
    /// Mutants answered by both.
    pub mutants: u64,
    /// Mutants both accepted with the same values.
    pub accepted: u64,
    /// Mutants both rejected for the same rule.
    pub rejected: u64,
    /// Mutants neither could read (both answered `error`).
    pub unreadable: u64,
    /// The agreed rejections, by rule.
    pub by_rule: BTreeMap<String, u64>,
    /// Accepted mutants held to their seed's truth and found true.
    pub oracle_checked: u64,
    /// Of those, the ones whose post-state roots were checked too (no unbound writes).
    pub oracle_post_state: u64,
    /// Keys of checked mutants proven absent through an unbound absence that the truth
    /// contradicts or cannot judge (reported by the verifier, not false claims).
    pub oracle_unbound_keys: u64,
    /// Accepted mutants of seeds that do not verify (no truth to hold them to).
    pub oracle_unchecked: u64,
    /// How many of the seeds are the suite's binary witness cases.
    pub binary_seeds: usize,
    /// The counts per request kind.
    pub by_kind: BTreeMap<&'static str, KindCounts>,
    /// Every disagreement, and every false claim of an accepted mutant.
    pub differences: Vec<Difference>,
    /// Wall-clock time of the whole run.
    pub elapsed: Duration,
}

/// Compares two answers: `None` when they agree (same verdict; the same rule for a
/// rejection; the same value fields, every one, for an acceptance; two `error` answers agree
/// whatever their details), otherwise what differs.
pub fn compare_answers(ours: &Value, theirs: &Value) -> Option<String> {
    let verdict = |a: &Value| a.get("verdict").and_then(Value::as_str).map(str::to_owned);
    let (v_ours, v_theirs) = (verdict(ours), verdict(theirs));
    if v_ours != v_theirs {
        let detail = |a: &Value| match a.get("rule").or_else(|| a.get("detail")) {
            Some(d) => format!(" ({})", d.as_str().unwrap_or_default()),
            None => String::new(),
        };
        return Some(format!(
            "verdict: ours {}{}, reference {}{}",
            v_ours.as_deref().unwrap_or("(none)"),
            detail(ours),
            v_theirs.as_deref().unwrap_or("(none)"),
            detail(theirs)
        ));
    }
    match v_ours.as_deref() {
        Some("invalid") if ours.get("rule") != theirs.get("rule") => Some(format!(
            "rule: ours {}, reference {}",
            ours.get("rule").unwrap_or(&Value::Null),
            theirs.get("rule").unwrap_or(&Value::Null)
        )),
        Some("valid") => {
            let empty = serde_json::Map::new();
            let fields = |a: &Value| {
                a.get("value")
                    .and_then(Value::as_object)
                    .unwrap_or(&empty)
                    .clone()
            };
            let (a, b) = (fields(ours), fields(theirs));
            let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
            names.sort();
            names.dedup();
            names.into_iter().find_map(|k| {
                let (x, y) = (a.get(k), b.get(k));
                (x != y).then(|| {
                    let show = |v: Option<&Value>| v.map_or("(missing)".to_owned(), cut);
                    format!("value.{k}: ours {}, reference {}", show(x), show(y))
                })
            })
        }
        _ => None,
    }
}

fn cut(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// The seeds, in groups the mutants are drawn from evenly: suite witnesses, suite
/// fractional proofs, chain witnesses.
fn load_seeds(config: &DifferentialConfig) -> Result<(Vec<Seed>, Vec<Vec<usize>>), VectorError> {
    let mut seeds = Vec::new();
    let mut groups = vec![Vec::new(), Vec::new(), Vec::new()];
    for (file, group) in [
        ("witness_valid.json", 0),
        ("witness_invalid.json", 0),
        ("fractional_valid.json", 1),
        ("fractional_invalid.json", 1),
    ] {
        let path = config.suite_dir.join(file);
        let doc = read_json(&path)?;
        let doc = Loc::root(&doc, path.display().to_string());
        for case in doc.get("cases")?.items()? {
            let name = case.get("name")?.str()?.to_owned();
            let input = case.get("input")?;
            let seed = if group == 0 {
                let root = input.get("pre_state_root")?.hex_n::<32>()?;
                let ssz = match (input.opt("ssz"), input.opt("json")) {
                    (Some(s), _) => s.hex()?,
                    (None, Some(j)) => match witness::ExecutionWitness::from_json_value(j.value) {
                        Ok(w) => w.as_ssz().to_vec(),
                        Err(_) => continue,
                    },
                    (None, None) => continue,
                };
                Seed::witness(name, root, ssz)
            } else {
                let root = input.get("root")?.hex_n::<32>()?;
                let proof = input.get("proof")?.hex()?;
                let anchor = input.get("anchor")?.str()?.to_owned();
                Seed::fractional(name, anchor, root, proof)
            };
            groups[group].push(seeds.len());
            seeds.push(seed);
        }
    }
    if let Some(path) = &config.chain_file {
        let doc = read_json(path)?;
        let doc = Loc::root(&doc, path.display().to_string());
        for b in doc.get("blocks")?.items()? {
            let number = b
                .value
                .get("blockNumber")
                .map(|n| n.to_string())
                .unwrap_or_default();
            let root = b.get("parentStateRoot")?.hex_n::<32>()?;
            let w = witness::ExecutionWitness::from_json_value(b.get("executionWitness")?.value)
                .map_err(|e| VectorError::field(&b.at, e.to_string()))?;
            if w.as_ssz().len() <= MAX_CHAIN_WITNESS {
                groups[2].push(seeds.len());
                let name = format!("kaustinen6_{}", number.trim_matches('"'));
                seeds.push(Seed::witness(name, root, w.as_ssz().to_vec()));
            }
        }
    }
    Ok((seeds, groups))
}

/// The one-case suite file of a difference: the mutant as the case's input, this
/// implementation's answer as its expectation, and both answers in the file's description.
fn case_file(m: &Mutant, ours: &Value, theirs: &Value, reason: &str) -> Value {
    let mut case = json!({"name": m.name, "description": m.description, "input": m.input});
    match ours.get("verdict").and_then(Value::as_str) {
        Some("valid") => {
            case["valid"] = json!(true);
            case["output"] = ours.get("value").cloned().unwrap_or(Value::Null);
        }
        Some("invalid") => {
            case["valid"] = json!(false);
            case["rule"] = ours.get("rule").cloned().unwrap_or(Value::Null);
        }
        _ => {}
    }
    json!({
        "format": FORMAT,
        "version": VERSION,
        "kind": m.kind,
        "description": format!(
            "A differential mutant on which the implementations disagree ({reason}); \
             ours: {}; reference: {}", cut(ours), cut(theirs)),
        "cases": [case],
    })
}

fn write_case(dir: &Path, m: &Mutant, doc: &Value) -> Result<PathBuf, VectorError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| VectorError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(format!("{}.json", m.name));
    let text = serde_json::to_string_pretty(doc).unwrap_or_default();
    std::fs::write(&path, text + "\n").map_err(io(&path))?;
    Ok(path)
}

/// Answers one mutant on both sides; `theirs` is asked with `ask`. When both accept it,
/// it is held to `truth` (its seed's, if the seed verifies); the honest witness of a binary
/// tree must be accepted.
fn judge_mutant(
    m: Mutant,
    truth: Option<Oracle<'_>>,
    ask: &mut impl FnMut(&Value) -> Result<Result<Value, String>, VectorError>,
    out_dir: &Path,
    report: &mut DifferentialReport,
) -> Result<(), VectorError> {
    let request = json!({"kind": m.kind, "name": m.name, "input": m.input});
    let ours = answer(m.kind, &m.input);
    let theirs = match ask(&request)? {
        Ok(a) => a,
        Err(why) => json!({"verdict": "no answer", "detail": why}),
    };
    report.mutants += 1;
    let counts = report.by_kind.entry(m.kind).or_default();
    counts.mutants += 1;
    let verdict = ours.get("verdict").and_then(Value::as_str);
    let disagreement = compare_answers(&ours, &theirs);
    let false_claim = match (disagreement.is_none() && verdict == Some("valid"), truth) {
        (false, Some(Oracle::Binary(t))) if disagreement.is_none() && t.is_honest(&m.input) => {
            Some("oracle: the honest witness of its tree is not accepted".to_owned())
        }
        (false, _) => None,
        (true, None) => {
            report.oracle_unchecked += 1;
            None
        }
        (true, Some(Oracle::Verkle(t))) => match oracle::check(&m, t) {
            Ok(c) => {
                report.oracle_checked += 1;
                report.oracle_post_state += u64::from(c.post_state);
                report.oracle_unbound_keys += c.unbound_keys as u64;
                counts.checked += 1;
                counts.post_state += u64::from(c.post_state);
                None
            }
            Err(reason) => Some(format!("oracle: {reason}")),
        },
        (true, Some(Oracle::Binary(t))) => match t.check(&m.input) {
            Ok(c) => {
                report.oracle_checked += 1;
                report.oracle_post_state += u64::from(c.post_state);
                counts.checked += 1;
                counts.post_state += u64::from(c.post_state);
                None
            }
            Err(reason) => Some(format!("oracle: {reason}")),
        },
    };
    match disagreement.or(false_claim) {
        None => match verdict {
            Some("valid") => {
                report.accepted += 1;
                counts.accepted += 1;
            }
            Some("invalid") => {
                report.rejected += 1;
                counts.rejected += 1;
                let rule = ours.get("rule").and_then(Value::as_str).unwrap_or("");
                *report.by_rule.entry(rule.to_owned()).or_default() += 1;
            }
            _ => {
                report.unreadable += 1;
                counts.unreadable += 1;
            }
        },
        Some(reason) => {
            counts.differences += 1;
            let doc = case_file(&m, &ours, &theirs, &reason);
            let file = write_case(out_dir, &m, &doc)?;
            report.differences.push(Difference {
                mutant: m,
                reason,
                ours,
                theirs,
                file,
            });
        }
    }
    Ok(())
}

/// Runs `config.mutants` mutants through both implementations, calling `on_difference` as
/// each difference is found. Only unreadable seeds, an unwritable output directory or a
/// reference that cannot be started is an `Err`; every disagreement is in the report.
pub fn run_differential(
    config: &DifferentialConfig,
    mut on_difference: impl FnMut(&Difference),
) -> Result<DifferentialReport, VectorError> {
    let started = Instant::now();
    let (seeds, groups) = load_seeds(config)?;
    let donors = mutants::donors(&seeds);
    let binary_seeds = binary::load(&config.suite_dir)?;
    let mut report = DifferentialReport {
        seeds: seeds.len() + binary_seeds.len(),
        chain_seeds: groups.get(2).map_or(0, Vec::len),
        binary_seeds: binary_seeds.len(),
        ..DifferentialReport::default()
    };
    let mut adapter: Option<Adapter> = None;
    let mut ask = |request: &Value| ask_persistent(&mut adapter, &config.reference, request);
    for index in 0..config.mutants {
        let before = report.differences.len();
        if binary::is_binary(config.seed, index) {
            let (m, truth) = binary::draw(&binary_seeds, config.seed, index);
            let truth = truth.as_ref().map(Oracle::Binary);
            judge_mutant(m, truth, &mut ask, &config.out_dir, &mut report)?;
        } else {
            let Some(m) = mutants::draw(&seeds, &groups, &donors, config.seed, index) else {
                break;
            };
            let truth = seeds.get(m.seed).and_then(|s| s.truth.as_ref());
            judge_mutant(
                m,
                truth.map(Oracle::Verkle),
                &mut ask,
                &config.out_dir,
                &mut report,
            )?;
        }
        if let Some(d) = report.differences.get(before) {
            on_difference(d);
        }
    }
    if let Some(a) = adapter {
        a.finish();
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::at::hex0x;

    #[test]
    fn answers_agree_only_on_everything() {
        let a = json!({"verdict": "valid", "value": {"openings": 3, "post_state_root": "0x01"}});
        assert_eq!(compare_answers(&a, &a.clone()), None);
        let b = json!({"verdict": "valid", "value": {"openings": 3, "post_state_root": "0x02"}});
        assert!(compare_answers(&a, &b).is_some_and(|r| r.starts_with("value.post_state_root")));
        let missing = json!({"verdict": "valid", "value": {"openings": 3}});
        assert!(compare_answers(&a, &missing).is_some());
        let r1 = json!({"verdict": "invalid", "rule": "proof.rejected"});
        let r2 = json!({"verdict": "invalid", "rule": "decode.root"});
        assert!(compare_answers(&r1, &r2).is_some_and(|r| r.starts_with("rule")));
        assert!(compare_answers(&a, &r1).is_some_and(|r| r.starts_with("verdict")));
        let e1 = json!({"verdict": "error", "detail": "x"});
        let e2 = json!({"verdict": "error", "detail": "y"});
        assert_eq!(compare_answers(&e1, &e2), None);
    }

    #[test]
    fn a_different_answer_is_written_out_as_a_case() {
        let dir = std::env::temp_dir().join(format!("fverkle-differential-{}", std::process::id()));
        let m = Mutant {
            name: "m00000_test".into(),
            description: "a test mutant".into(),
            kind: "fractional_proof",
            input: json!({"anchor": "state_root", "root": hex0x(&[0u8; 32]), "proof": "0x00"}),
            seed: 0,
        };
        let mut report = DifferentialReport::default();
        // The reference's answer is injected: it accepts what we reject.
        let mut fake = |_: &Value| Ok(Ok(json!({"verdict": "valid", "value": {}})));
        judge_mutant(m, None, &mut fake, &dir, &mut report).expect("judged");
        assert_eq!(report.mutants, 1);
        assert_eq!(report.differences.len(), 1);
        let d = &report.differences[0];
        assert!(
            d.reason.starts_with("verdict: ours invalid"),
            "{}",
            d.reason
        );
        let doc = read_json(&d.file).expect("case file");
        assert_eq!(doc["kind"], "fractional_proof");
        assert_eq!(doc["cases"][0]["name"], "m00000_test");
        assert_eq!(doc["cases"][0]["valid"], false);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_binary_difference_is_a_suite_case_this_implementation_passes() {
        let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("suite");
        let seeds = binary::load(&suite).expect("the suite's binary cases");
        assert!(seeds.len() > 40, "{}", seeds.len());
        let dir = std::env::temp_dir().join(format!("fverkle-binary-{}", std::process::id()));
        let mut report = DifferentialReport::default();
        // The reference is injected: it rejects every binary witness for a rule of its own.
        let mut other = |_: &Value| Ok(Ok(json!({"verdict": "invalid", "rule": "bw.other"})));
        let mut names = BTreeMap::new();
        for index in (0..40).filter(|&i| binary::is_binary(1, i)) {
            let (m, truth) = binary::draw(&seeds, 1, index);
            *names.entry(m.name.clone()).or_insert(0) += 1;
            judge_mutant(
                m,
                truth.as_ref().map(Oracle::Binary),
                &mut other,
                &dir,
                &mut report,
            )
            .expect("judged");
        }
        assert_eq!(report.mutants, 12);
        assert_eq!(names.len(), 12, "names are unique");
        assert_eq!(report.by_kind["binary_witness"].differences, 12);
        for d in &report.differences {
            let doc = read_json(&d.file).expect("case file");
            assert_eq!(doc["kind"], "binary_witness");
            assert_eq!(doc["cases"][0]["input"], d.mutant.input);
            // Written with our answer as its expectation, the file passes our checker.
            if d.ours["verdict"] != "error" {
                crate::check_suite_document(&doc, &d.mutant.name)
                    .unwrap_or_else(|e| panic!("{}: {e}", d.mutant.name));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_accepted_mutant_making_a_false_claim_is_a_difference() {
        // Two valid witnesses of the suite with different roots: the second, accepted by
        // both sides (the reference is this implementation), is held to the first's truth
        // and claims another pre-state root.
        let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("suite");
        let config = DifferentialConfig {
            mutants: 0,
            seed: 1,
            suite_dir: suite,
            chain_file: None,
            reference: ImplConfig {
                command: String::new(),
                persistent: true,
                timeout: Duration::from_secs(1),
            },
            out_dir: std::env::temp_dir(),
        };
        let (seeds, groups) = load_seeds(&config).expect("the suite's seeds");
        let with_truth: Vec<&Seed> = groups[0]
            .iter()
            .filter_map(|&i| seeds.get(i))
            .filter(|s| s.truth.is_some())
            .collect();
        let first = with_truth.first().expect("a valid witness case");
        let SeedInput::Witness(a) = &first.input else {
            panic!("a witness seed");
        };
        let other = with_truth
            .iter()
            .find_map(|s| match &s.input {
                SeedInput::Witness(b) if b.pre_state_root != a.pre_state_root => Some(b),
                _ => None,
            })
            .expect("a valid witness case with another root");
        let m = Mutant {
            name: "m00000_oracle".into(),
            description: "another case's witness".into(),
            kind: "witness",
            input: json!({"pre_state_root": hex0x(&other.pre_state_root), "ssz": hex0x(&other.ssz)}),
            seed: 0,
        };
        let dir = std::env::temp_dir().join(format!("fverkle-oracle-{}", std::process::id()));
        let mut report = DifferentialReport::default();
        let mut same = |r: &Value| Ok(Ok(answer("witness", &r["input"])));
        judge_mutant(
            m.clone(),
            first.truth.as_ref().map(Oracle::Verkle),
            &mut same,
            &dir,
            &mut report,
        )
        .expect("judged");
        assert_eq!(report.differences.len(), 1, "{report:?}");
        let reason = &report.differences[0].reason;
        assert!(
            reason.starts_with("oracle: false claim: accepted against pre-state root"),
            "{reason}"
        );
        // Held to its own truth, the same mutant is true.
        let own = with_truth
            .iter()
            .find(|s| matches!(&s.input, SeedInput::Witness(b) if b.pre_state_root == other.pre_state_root && b.ssz == other.ssz))
            .and_then(|s| s.truth.as_ref());
        let mut report = DifferentialReport::default();
        judge_mutant(m, own.map(Oracle::Verkle), &mut same, &dir, &mut report).expect("judged");
        assert!(report.differences.is_empty(), "{report:?}");
        assert_eq!(report.oracle_checked, 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
