//! Carries a Verkle chain export into an EIP-7864 binary tree and prints, as JSON Lines, one
//! record per block (Verkle and binary witness sizes, the binary witness's decode, verify and
//! post-state times, hashes) and the summary (totals and medians).
//!
//! ```text
//! cargo run --release -p chain --example carry_kaustinen -- [--hash sha256|blake3] [FILE...]
//! ```
//!
//! Without a file it reads the Kaustinen6 export, blocks 1..200, from `$FVERKLE_VECTORS/chain`
//! (default `../shared/vectors/chain` beside the workspace). The tree keys are Verkle's keys
//! carried over as they are, and the starting state is only what the witnesses reveal
//! (`chain::binary::carry`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use chain::binary::carry::carry_export;
use chain::binary::BinaryKind;

fn default_export() -> PathBuf {
    let dir = match std::env::var_os("FVERKLE_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    };
    dir.join("chain/kaustinen6_witness_chain_0001-0200.json")
}

/// Writes one line; a closed pipe ends the output quietly.
fn line(out: &mut impl std::io::Write, text: &str) -> Result<bool> {
    match writeln!(out, "{text}") {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e).context("stdout"),
    }
}

fn main() -> Result<()> {
    let mut hash = None;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--hash" => hash = Some(args.next().context("--hash needs sha256 or blake3")?),
            "-h" | "--help" => {
                println!("carry_kaustinen [--hash sha256|blake3] [FILE...]");
                return Ok(());
            }
            _ => files.push(PathBuf::from(arg)),
        }
    }
    let Some(kind) = BinaryKind::from_names("eip7864", hash.as_deref()) else {
        bail!("--hash: expected sha256 or blake3");
    };
    if files.is_empty() {
        let path = default_export();
        if !path.exists() {
            bail!(
                "the Kaustinen6 export is missing at {}; set FVERKLE_VECTORS or name a file",
                path.display()
            );
        }
        files.push(path);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut open = true;
    let summary = carry_export(&files, kind, &mut |block| {
        if open {
            open = line(&mut out, &block.to_json().to_string())?;
        }
        Ok(())
    })?;
    if open {
        line(&mut out, &summary.to_json().to_string())?;
    }
    Ok(())
}
