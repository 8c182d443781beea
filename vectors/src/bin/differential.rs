//! `differential [N] [SEED] [--suite DIR] [--chain FILE] [--reference CMD] [--out DIR]`:
//! N seeded mutants (default 300, seed 1) of the suite's witness and fractional cases, of
//! the small Kaustinen6 blocks, and (three in ten) of binary-tree witnesses (the suite's
//! `binary_witness` cases and small trees built for the mutant), answered by this
//! implementation and by the Python reference
//! (`spec/reference/adapter.py`, persistent mode); every difference is written to the
//! output directory as a one-case suite file.
//!
//! Exit codes: 0 the implementations agree on every mutant, 1 a difference, 2 a usage or
//! input error. Defaults: `--suite vectors/suite`, `--chain` under `$FVERKLE_VECTORS` (or
//! `../shared/vectors`), `--reference 'python3 spec/reference/adapter.py'`, `--out
//! target/differential`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use vectors::differential::{run_differential, DifferentialConfig};
use vectors::ImplConfig;

const CHAIN: &str = "chain/kaustinen6_witness_chain_0001-0200.json";

fn usage(why: &str) -> ExitCode {
    eprintln!("differential: {why}");
    eprintln!(
        "usage: differential [N] [SEED] [--suite DIR] [--chain FILE|none] [--reference CMD] [--out DIR]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let vectors_dir = std::env::var_os("FVERKLE_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/vectors"));
    let mut config = DifferentialConfig {
        mutants: 300,
        seed: 1,
        suite_dir: PathBuf::from("vectors/suite"),
        chain_file: Some(vectors_dir.join(CHAIN)),
        reference: ImplConfig {
            command: "python3 spec/reference/adapter.py".into(),
            persistent: true,
            timeout: Duration::from_secs(120),
        },
        out_dir: PathBuf::from("target/differential"),
    };
    let mut positional = 0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let set = match a.as_str() {
            "--suite" => value("--suite").map(|v| config.suite_dir = v.into()),
            "--chain" => value("--chain").map(|v| {
                config.chain_file = (v != "none").then(|| v.into());
            }),
            "--reference" => value("--reference").map(|v| config.reference.command = v),
            "--out" => value("--out").map(|v| config.out_dir = v.into()),
            n if !n.starts_with('-') && positional < 2 => {
                positional += 1;
                match (positional, n.parse::<u64>()) {
                    (1, Ok(v)) => {
                        config.mutants = v;
                        Ok(())
                    }
                    (_, Ok(v)) => {
                        config.seed = v;
                        Ok(())
                    }
                    (_, Err(e)) => Err(format!("`{n}`: {e}")),
                }
            }
            other => Err(format!("unexpected argument `{other}`")),
        };
        if let Err(why) = set {
            return usage(&why);
        }
    }
    if let Some(chain) = &config.chain_file {
        if !chain.is_file() {
            return usage(&format!(
                "the Kaustinen6 chain is missing at {}; set FVERKLE_VECTORS or pass --chain none",
                chain.display()
            ));
        }
    }
    // Case files of an earlier run would be mistaken for this one's.
    if let Ok(entries) = std::fs::read_dir(&config.out_dir) {
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "json") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    println!(
        "differential: {} mutants from seed {} against `{}`; differences go to {}",
        config.mutants,
        config.seed,
        config.reference.command,
        config.out_dir.display()
    );
    let report = match run_differential(&config, |d| {
        println!(
            "DIFFERENCE {}: {}\n  mutant: {}\n  case file: {}",
            d.mutant.name,
            d.reason,
            d.mutant.description,
            d.file.display()
        );
    }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("differential: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "differential: {} seeds ({} chain blocks, {} binary cases), {} mutants: {} accepted, {} rejected, {} unreadable by both, {} differences, {:.1} s",
        report.seeds,
        report.chain_seeds,
        report.binary_seeds,
        report.mutants,
        report.accepted,
        report.rejected,
        report.unreadable,
        report.differences.len(),
        report.elapsed.as_secs_f64()
    );
    let kinds: Vec<String> = report
        .by_kind
        .iter()
        .map(|(kind, c)| {
            let name = match *kind {
                "witness" => "Verkle witness",
                "fractional_proof" => "fractional",
                "binary_witness" => "binary",
                other => other,
            };
            format!(
                "{name} {} ({} accepted, {} checked, {} with post-state roots; {} rejected, {} unreadable, {} differences)",
                c.mutants, c.accepted, c.checked, c.post_state, c.rejected, c.unreadable, c.differences
            )
        })
        .collect();
    println!("by kind: {}", kinds.join("; "));
    let rules: Vec<String> = report
        .by_rule
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    println!("rejected by rule: {}", rules.join(", "));
    println!(
        "oracle: {} accepted mutants held to their seed's truth ({} with post-state roots, {} unbound-absence keys reported), {} of unverifiable seeds unchecked",
        report.oracle_checked,
        report.oracle_post_state,
        report.oracle_unbound_keys,
        report.oracle_unchecked
    );
    if report.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        for d in &report.differences {
            println!("differs: {} ({})", d.mutant.name, d.file.display());
        }
        ExitCode::from(1)
    }
}
