//! `fverkle root [--tree verkle|eip8297|eip7864] [--hash sha256|blake3] --csv FILE...`: apply
//! `key,value` files in order to one tree, print the root after each.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use bintree::{eip7864, eip8297, Blake3, Sha256};

use crate::args::{HashArg, Kind, TreeArg};
use crate::outcome::Outcome;
use chain::hexarg::to_hex;
use chain::rows::RowTree;

/// Arguments of `fverkle root`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tree the files are written to.
    #[arg(long, value_enum, default_value = "verkle")]
    tree: TreeArg,
    /// A binary tree's hash: EIP-7864 hashes with SHA-256 unless `blake3` (the EIP text's
    /// pseudo-code); EIP-8297 with BLAKE3 only.
    #[arg(long, value_enum)]
    hash: Option<HashArg>,
    /// `key,value` CSV files (hex; 32-byte values, or `delete`; keys of 32 bytes, or for
    /// EIP-8297 of 1 to 8192 bytes), applied in order to one tree.
    #[arg(long = "csv", required = true, num_args = 1..)]
    csv: Vec<PathBuf>,
}

/// The empty tree the flags name.
fn new_tree(tree: TreeArg, hash: Option<HashArg>) -> Result<Box<dyn RowTree>> {
    Ok(match Kind::of(tree, hash)? {
        None => Box::new(verkle::Tree::new()),
        Some(Kind::Eip8297) => Box::new(eip8297::Tree::<Blake3>::new()),
        Some(Kind::Eip7864Sha256) => Box::new(eip7864::Tree::<Sha256>::new()),
        Some(Kind::Eip7864Blake3) => Box::new(eip7864::Tree::<Blake3>::new()),
    })
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let mut tree = new_tree(args.tree, args.hash)?;
    for path in &args.csv {
        let name = path.display().to_string();
        let t = Instant::now();
        let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
        let count = tree.apply_file(&text, &name)?;
        let root = tree.root();
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
