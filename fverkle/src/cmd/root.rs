//! `fverkle root [--tree verkle|eip8297|eip7864] [--hash sha256|blake3] --csv FILE...`: apply
//! `key,value` files in order to one tree, print the root after each.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use bintree::{eip7864, eip8297, Blake3, Sha256, TreeHash};

use crate::args::{HashArg, Kind, TreeArg};
use crate::leaf_csv::{parse_rows, CsvError, KeyRule, Row};
use crate::outcome::Outcome;
use chain::hexarg::to_hex;

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

/// A tree the rows of a file are written to, in order.
pub trait RowTree {
    /// Parses `text` (the file `name`) and applies its rows; returns how many.
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize>;
    /// The root after every file applied so far.
    fn root(&mut self) -> [u8; 32];
}

impl RowTree for verkle::Tree {
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize> {
        let rows: Vec<Row<[u8; 32]>> = parse_rows(text, name, KeyRule::Verkle, None)?;
        let count = rows.len();
        self.apply(rows.into_iter().map(|r| (r.key, r.value)))
            .with_context(|| format!("{name}: applying leaves"))?;
        Ok(count)
    }

    fn root(&mut self) -> [u8; 32] {
        self.root_bytes()
    }
}

/// EIP-8297 rows one at a time, so that a key that is not prefix-free with a present key is
/// reported at its line; the root is rehashed once per file.
impl<H: TreeHash> RowTree for eip8297::Tree<H> {
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize> {
        let rule = KeyRule::Range {
            max: eip8297::MAX_KEY_LENGTH,
        };
        let rows: Vec<Row<Vec<u8>>> = parse_rows(text, name, rule, None)?;
        for row in &rows {
            // A zero value is stored as a present leaf (tree-level write, as the trie vectors).
            let written = match &row.value {
                Some(value) => self.insert(&row.key, value),
                None => self.remove(&row.key).map(drop),
            };
            written.map_err(|reason| CsvError::Tree {
                source_name: name.to_owned(),
                line: row.line,
                reason,
            })?;
        }
        Ok(rows.len())
    }

    fn root(&mut self) -> [u8; 32] {
        eip8297::Tree::root(self)
    }
}

impl<H: TreeHash> RowTree for eip7864::Tree<H> {
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize> {
        let rows: Vec<Row<[u8; 32]>> = parse_rows(text, name, KeyRule::Fixed32, Some("EIP-7864"))?;
        // `parse_rows` rejected every `delete`: each row has a value.
        self.apply(rows.iter().filter_map(|r| r.value.map(|v| (r.key, v))))
            .with_context(|| format!("{name}: applying leaves"))?;
        Ok(rows.len())
    }

    fn root(&mut self) -> [u8; 32] {
        eip7864::Tree::root(self)
    }
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
