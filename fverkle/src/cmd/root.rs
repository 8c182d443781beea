//! `fverkle root --csv FILE...`: apply `tree_key,value` files in order, print the root after each.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use verkle::Tree;

use crate::outcome::Outcome;
use chain::hexarg::to_hex;

/// Arguments of `fverkle root`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// `tree_key,value` CSV files (32-byte hex each), applied in order to one tree.
    #[arg(long = "csv", required = true, num_args = 1..)]
    csv: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let mut tree = Tree::new();
    for path in &args.csv {
        let name = path.display().to_string();
        let t = Instant::now();
        let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
        let leaves = genesis::parse_leaf_csv(&text, &name)?;
        let count = leaves.len();
        tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
            .with_context(|| format!("{name}: applying leaves"))?;
        let root = tree.root_bytes();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if json {
            let line =
                serde_json::json!({"file": name, "leaves": count, "root": to_hex(&root), "ms": ms});
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{} {name} ({count} leaves, {ms:.1} ms)", to_hex(&root))?;
        }
    }
    Ok(Outcome::Ok)
}
