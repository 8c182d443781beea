//! `fverkle vectors gen OUT_DIR` writes our deterministic conformance suite;
//! `fverkle vectors check PATH...` checks every file under the paths (our suite and the
//! upstream data in its original formats) and exits 1 if any fails.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use vectors::Status;

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
    /// Check every file under each PATH: our suite and upstream vectors.
    Check {
        /// Files or directories (walked recursively).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
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
        Action::Check { paths } => {
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
