//! The differential runner on a handful of mutants (Verkle witnesses, fractional proofs and
//! binary-tree witnesses): this implementation and the Python reference
//! (`spec/reference/adapter.py`) agree on each, and a reference that answers otherwise is
//! reported, case by case.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::Duration;

use vectors::differential::{run_differential, DifferentialConfig};
use vectors::ImplConfig;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn chain_file() -> PathBuf {
    let dir = match std::env::var_os("FVERKLE_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => crate_dir().join("../../shared/vectors"),
    };
    let file = dir.join("chain/kaustinen6_witness_chain_0001-0200.json");
    assert!(
        file.is_file(),
        "Kaustinen6 chain missing at {}; set FVERKLE_VECTORS",
        file.display()
    );
    file
}

fn config(mutants: u64, command: String, out: &str) -> DifferentialConfig {
    DifferentialConfig {
        mutants,
        seed: 1,
        suite_dir: crate_dir().join("suite"),
        chain_file: Some(chain_file()),
        reference: ImplConfig {
            command,
            persistent: true,
            timeout: Duration::from_secs(120),
        },
        out_dir: std::env::temp_dir().join(format!("fverkle-{out}-{}", std::process::id())),
    }
}

#[test]
fn rust_and_the_python_reference_agree_on_mutants() {
    let adapter = crate_dir().join("../spec/reference/adapter.py");
    let c = config(
        24,
        format!("python3 '{}'", adapter.display()),
        "differential-agree",
    );
    let report = run_differential(&c, |d| panic!("{}: {}", d.mutant.name, d.reason)).unwrap();
    assert_eq!(report.mutants, 24);
    assert!(report.differences.is_empty());
    assert_eq!(report.accepted + report.rejected + report.unreadable, 24);
    assert!(report.rejected > 0, "{report:?}");
    assert!(
        report.seeds > 150,
        "suite cases and chain blocks: {}",
        report.seeds
    );
    assert!(report.binary_seeds > 40, "{report:?}");
    let binary = report.by_kind["binary_witness"];
    assert_eq!(
        binary.mutants, 8,
        "mutants 0, 3, 6, 10, 13, 16, 20, 23 of seed 1: {report:?}"
    );
    assert_eq!(binary.differences, 0);
    let total: u64 = report.by_kind.values().map(|c| c.mutants).sum();
    assert_eq!(total, 24);
}

#[test]
fn binary_mutants_agree_and_accepted_ones_are_true() {
    // Mutants 1, 4, 7, … of seed 0 are the binary ones: 60 of 200.
    let adapter = crate_dir().join("../spec/reference/adapter.py");
    let mut c = config(
        200,
        format!("python3 '{}'", adapter.display()),
        "differential-binary",
    );
    c.seed = 0;
    let report = run_differential(&c, |d| panic!("{}: {}", d.mutant.name, d.reason)).unwrap();
    let binary = report.by_kind["binary_witness"];
    assert_eq!(binary.mutants, 60);
    assert!(binary.rejected > 0 && binary.accepted > 0, "{binary:?}");
    // Every accepted binary mutant has a truth (its tree or the suite's valid cases).
    assert_eq!(binary.checked, binary.accepted, "{binary:?}");
    assert!(binary.post_state > 0, "{binary:?}");
    let bw_rules = report
        .by_rule
        .keys()
        .filter(|r| r.starts_with("bw."))
        .count();
    assert!(bw_rules >= 5, "{:?}", report.by_rule);
}

#[test]
fn a_reference_answering_otherwise_is_reported_per_case() {
    // Accepts everything, with no values: differs from every answer of ours.
    let fake = r#"while read -r line; do echo '{"verdict": "valid", "value": {}}'; done"#;
    let c = config(5, fake.into(), "differential-fake");
    let mut seen = Vec::new();
    let report = run_differential(&c, |d| seen.push(d.mutant.name.clone())).unwrap();
    assert_eq!(report.mutants, 5);
    assert_eq!(report.differences.len(), 5);
    assert_eq!(seen.len(), 5);
    for d in &report.differences {
        let text = std::fs::read_to_string(&d.file).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["cases"][0]["name"], d.mutant.name.as_str());
        assert_eq!(doc["cases"][0]["input"], d.mutant.input);
    }
    let _ = std::fs::remove_dir_all(&c.out_dir);
}
