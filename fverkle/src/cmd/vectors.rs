//! `fverkle vectors gen OUT_DIR` writes our deterministic conformance suite;
//! `fverkle vectors check PATH...` checks every file under the paths (our suite and the
//! upstream data in its original formats) and exits 1 if any fails;
//! `fverkle vectors check --impl 'COMMAND' PATH...` runs every case of the suite files
//! through another implementation instead and exits 1 on any difference.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use vectors::{CaseOutcome, ImplConfig, Status};

use crate::outcome::Outcome;

/// Arguments of `fverkle vectors`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Write the suite (fixed seeds, byte-identical on every run) into OUT_DIR.
    Gen {
        /// Output directory (created if missing).
        out_dir: PathBuf,
    },
    /// Check every file under each PATH: our suite and upstream vectors; with --impl,
    /// check another implementation against every case of the suite files.
    Check {
        /// Files or directories (walked recursively).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The implementation under test, run with `sh -c`: one JSON case on stdin, one JSON
        /// answer on stdout (protocol: vectors/README.md, "Checking another implementation").
        #[arg(long = "impl", value_name = "COMMAND")]
        implementation: Option<String>,
        /// With --impl: start COMMAND once and exchange one JSON line per case.
        #[arg(long, requires = "implementation")]
        persistent: bool,
        /// With --impl: longest wait for one answer, in seconds.
        #[arg(
            long,
            value_name = "SECS",
            default_value_t = 300,
            requires = "implementation"
        )]
        timeout: u64,
    },
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    match &args.action {
        Action::Gen { out_dir } => {
            let written = vectors::write_suite(out_dir)
                .with_context(|| format!("writing the suite to {}", out_dir.display()))?;
            for path in written {
                if json {
                    writeln!(
                        out,
                        "{}",
                        serde_json::json!({"written": path.display().to_string()})
                    )?;
                } else {
                    writeln!(out, "wrote {}", path.display())?;
                }
            }
            Ok(Outcome::Ok)
        }
        Action::Check {
            paths,
            implementation: Some(command),
            persistent,
            timeout,
        } => {
            let config = ImplConfig {
                command: command.clone(),
                persistent: *persistent,
                timeout: Duration::from_secs(*timeout),
            };
            check_impl(paths, &config, json, out)
        }
        Action::Check {
            paths,
            implementation: None,
            ..
        } => {
            let report = vectors::check_paths(paths)?;
            for f in &report.files {
                let path = f.path.display().to_string();
                if json {
                    let (status, detail, checks) = match &f.status {
                        Status::Passed { checks } => ("passed", None, Some(*checks)),
                        Status::Skipped { reason } => ("skipped", Some(reason.to_string()), None),
                        Status::Failed { error } => ("failed", Some(error.clone()), None),
                        _ => ("unknown", None, None),
                    };
                    let line = serde_json::json!({"path": path, "format": f.format.to_string(),
                        "status": status, "checks": checks, "detail": detail});
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "{:<18} {path}: {}", f.format.to_string(), f.status)?;
                }
            }
            let summary = format!(
                "{} files: {} skipped; {} passed, {} failed",
                report.files.len(),
                report.skipped(),
                report.passed(),
                report.failed()
            );
            if json {
                let line = serde_json::json!({"files": report.files.len(), "passed": report.passed(),
                    "failed": report.failed(), "skipped": report.skipped()});
                writeln!(out, "{line}")?;
            } else {
                writeln!(out, "{summary}")?;
            }
            Ok(if report.failed() > 0 {
                Outcome::Invalid
            } else {
                Outcome::Ok
            })
        }
    }
}

/// `vectors check --impl`: one line per case, then the summary; exit 1 on any difference.
fn check_impl(
    paths: &[PathBuf],
    config: &ImplConfig,
    json: bool,
    out: &mut impl Write,
) -> Result<Outcome> {
    let mut write_error = None;
    let report = vectors::check_impl(paths, config, |case| {
        let path = case.file.display().to_string();
        let (status, detail) = match &case.outcome {
            CaseOutcome::Passed => ("ok", None),
            CaseOutcome::Differs(why) => ("DIFFERS", Some(why.as_str())),
            CaseOutcome::Unsupported => ("unsupported", None),
        };
        let line = if json {
            serde_json::json!({"path": path, "kind": case.kind, "case": case.name,
                "status": status.to_lowercase(), "detail": detail})
            .to_string()
        } else {
            match detail {
                Some(d) => format!("{status:<11} {path} {}: {d}", case.name),
                None => format!("{status:<11} {path} {}", case.name),
            }
        };
        if let Err(e) = writeln!(out, "{line}") {
            write_error.get_or_insert(e);
        }
    })
    .context("checking the implementation")?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    for (path, reason) in &report.skipped {
        if json {
            writeln!(
                out,
                "{}",
                serde_json::json!({"path": path.display().to_string(), "status": "skipped",
                    "detail": reason})
            )?;
        } else {
            writeln!(out, "{:<11} {}: {reason}", "skipped", path.display())?;
        }
    }
    if report.cases.is_empty() {
        anyhow::bail!("no suite case under the paths given");
    }
    if json {
        let line = serde_json::json!({"cases": report.cases.len(), "passed": report.passed(),
            "differ": report.differ(), "unsupported": report.unsupported(),
            "skipped_files": report.skipped.len()});
        writeln!(out, "{line}")?;
    } else {
        writeln!(
            out,
            "{} cases: {} passed, {} differ, {} unsupported ({} files skipped)",
            report.cases.len(),
            report.passed(),
            report.differ(),
            report.unsupported(),
            report.skipped.len()
        )?;
    }
    Ok(if report.differ() > 0 {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}
