//! `fverkle prove (--datadir DIR | --csv STATE.csv...) KEYS_FILE [--fractional [--lean]]
//! [--format json|ssz]`: a witness (or a fractional proof) for keys against a datadir's current
//! state or a state given as `key,value` files, carrying the new values given as `KEY,VALUE`
//! lines (and, in a fractional proof, the deletions given as `KEY,delete`); with
//! `--tree eip7864|eip8297 --csv STATE.csv... KEYS_FILE`, a binary witness
//! (`binary_witness.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use fractional::KeyOp;
use verkle::keys::{TreeKey, Value};

use chain::datadir::open_state;
use chain::hexarg::{parse_root, to_hex};
use chain::state::{meta, Mode, State};

use super::binary_witness::{self, ProveOutput};
use crate::args::{HashArg, Kind, TreeArg};
use crate::outcome::Outcome;
use chain::rows::csv::{parse_rows, KeyRule, Row};

/// Output format of the witness.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// go-verkle JSON.
    Json,
    /// Consensus-spec SSZ bytes.
    Ssz,
}

/// Arguments of `fverkle prove`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tree the state is written to. A binary tree (EIP-7864, EIP-8297) takes its state
    /// from --csv or from a binary datadir (`replay --tree T --datadir DIR`) and writes its
    /// binary witness's bytes (`spec/BINARY.md`); the keys file may then hold `KEY,delete`
    /// for EIP-8297.
    #[arg(long, value_enum, default_value = "verkle")]
    tree: TreeArg,
    /// A binary tree's hash, as for `fverkle root`.
    #[arg(long, value_enum)]
    hash: Option<HashArg>,
    /// The datadir a replay or `genesis --datadir` wrote (with --tree eip7864|eip8297: the
    /// binary datadir `replay --tree T --datadir` wrote).
    #[arg(long, conflicts_with = "csv", required_unless_present = "csv")]
    datadir: Option<PathBuf>,
    /// The state as `tree_key,value` CSV files (as `root` reads them; a value of `delete`
    /// deletes), applied in order to a tree in memory, proved at block 0. The keys file may
    /// follow them: `--csv STATE.csv... KEYS_FILE`.
    #[arg(long = "csv", num_args = 1.., value_name = "STATE_CSV")]
    csv: Vec<PathBuf>,
    /// A file of tree keys, one 32-byte hex key per line, `KEY,VALUE` for a key the block
    /// writes (its new value goes into the proof), or with --fractional `KEY,delete` for a
    /// key the block deletes; `#` comments and blank lines allowed; `-` reads stdin.
    #[arg(required_unless_present = "csv")]
    keys: Option<PathBuf>,
    /// Prove from a fractional (sharded) state, writing a fractional proof (its wire form,
    /// `spec/FRACTIONAL.md` §4; in JSON as hex beside the state root and the coordinator
    /// root). It verifies against either root.
    #[arg(long)]
    fractional: bool,
    /// With --fractional: leave the coordinator path out (the proof then verifies against
    /// the state root only, and is 2 + 32·S bytes smaller).
    #[arg(long, requires = "fractional")]
    lean: bool,
    /// Make every absence in the witness bound (`spec/WIRE.md` §6.6): add, as reads, the
    /// keys whose paths prove the internal nodes above each absence internal. The result is
    /// an ordinary EIP-6800 witness, a little larger; without the flag the witness is
    /// byte-identical to geth's for the same keys.
    #[arg(long, conflicts_with = "fractional")]
    bind_absences: bool,
    /// Output format of a Verkle witness [default: json]; a binary witness is written as its
    /// bytes.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the witness here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Parses a keys file: one 32-byte hex key per line, `KEY,VALUE` with the value the block
/// writes to it, or — when `deletes` — `KEY,delete`.
pub fn parse_keys(text: &str, name: &str, deletes: bool) -> Result<Vec<(TreeKey, KeyOp)>> {
    let mut keys = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("{name}: line {}", i + 1);
        let (key, value) = match line.split_once(',') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (line, None),
        };
        let k = parse_root(key).map_err(|e| anyhow::anyhow!("{}: key: {e}", at()))?;
        let op = match value {
            None => KeyOp::Read,
            Some(v) if v.eq_ignore_ascii_case("delete") => {
                if !deletes {
                    bail!(
                        "{}: `KEY,delete` needs --fractional (an EIP-6800 witness carries no \
                         deletion)",
                        at()
                    );
                }
                KeyOp::Delete
            }
            Some(v) => {
                KeyOp::Set(parse_root(v).map_err(|e| anyhow::anyhow!("{}: value: {e}", at()))?)
            }
        };
        keys.push((k, op));
    }
    if keys.is_empty() {
        bail!("{name}: no keys");
    }
    Ok(keys)
}

/// The state files and the keys file: with `--csv` and no keys file after the other
/// arguments, the last path after `--csv` is the keys file.
fn inputs(args: &Args) -> Result<(&[PathBuf], &Path)> {
    if let Some(keys) = &args.keys {
        return Ok((&args.csv, keys));
    }
    match args.csv.split_last() {
        Some((keys, csv)) if !csv.is_empty() => Ok((csv, keys)),
        _ => bail!(
            "--csv: give the state files, then the keys file (`--csv STATE.csv... KEYS_FILE`)"
        ),
    }
}

/// The datadir's state, its height and its name, after checking that it holds a state in
/// `mode`.
fn datadir_state(dir: &Path, mode: Mode) -> Result<(Box<dyn State>, u64, String)> {
    if !dir.is_dir() {
        bail!("{}: no such datadir", dir.display());
    }
    let state = open_state(Some(dir), mode)?;
    let dd = dir.display();
    let Some(height) = state.height() else {
        bail!("{dd}: empty datadir (no genesis written)");
    };
    if let Some(m) = state.meta(meta::MODE)? {
        if m != mode.name().as_bytes() {
            bail!(
                "{dd}: field {}: the datadir holds a {} tree, not {}",
                String::from_utf8_lossy(meta::MODE),
                String::from_utf8_lossy(&m),
                mode.name()
            );
        }
    }
    Ok((state, height, dd.to_string()))
}

/// A state in memory (in `mode`) with the CSV files' rows applied in order, at block 0, and
/// its name (the files').
fn csv_state(files: &[PathBuf], mode: Mode) -> Result<(Box<dyn State>, u64, String)> {
    let mut state = open_state(None, mode)?;
    let mut names = Vec::with_capacity(files.len());
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
        let rows: Vec<Row<TreeKey>> = parse_rows(&text, &name, KeyRule::Verkle, None)?;
        let writes: Vec<(TreeKey, Option<Value>)> =
            rows.into_iter().map(|r| (r.key, r.value)).collect();
        state
            .apply(&writes)
            .with_context(|| format!("{name}: applying leaves"))?;
        names.push(name);
    }
    Ok((state, 0, names.join(", ")))
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let kind = Kind::of(args.tree, args.hash)?;
    if let Some(k) = kind {
        let tree = k.tree();
        if args.fractional || args.bind_absences {
            bail!("--fractional and --bind-absences are for Verkle witnesses, not --tree {tree}");
        }
        if args.format.is_some() {
            bail!("--format: a --tree {tree} witness is written as its bytes (spec/BINARY.md)");
        }
    }
    let (csv, keys_path) = inputs(args)?;
    let name = keys_path.display().to_string();
    let text = if keys_path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading stdin")?
    } else {
        std::fs::read_to_string(keys_path).with_context(|| format!("{name}: cannot read"))?
    };
    if let Some(k) = kind {
        let to = ProveOutput {
            out: args.out.as_deref(),
            json,
        };
        let source = match &args.datadir {
            Some(dir) => binary_witness::Source::Datadir(dir),
            None => binary_witness::Source::Csv(csv),
        };
        return binary_witness::prove(k, source, &text, &name, &to, out);
    }
    let keys = parse_keys(&text, &name, args.fractional)?;
    let format = args.format.unwrap_or(Format::Json);
    let mode = if args.fractional {
        Mode::Fractional
    } else {
        Mode::Single
    };
    let (mut state, height, dd) = match &args.datadir {
        Some(dir) => datadir_state(dir, mode)?,
        None => csv_state(csv, mode)?,
    };
    let root = state.root();
    let bytes = if args.fractional {
        // A fractional proof against the coordinator root (spec/FRACTIONAL.md).
        let coordinator = state
            .coordinator_root()
            .ok_or_else(|| anyhow::anyhow!("{dd}: not a sharded state"))?;
        let proof = state
            .prove_fractional(&keys, !args.lean)?
            .ok_or_else(|| anyhow::anyhow!("{dd}: not a sharded state"))?
            .to_bytes()?;
        match format {
            Format::Ssz => proof,
            Format::Json => {
                let v = serde_json::json!({
                    "blockNumber": height,
                    "stateRoot": to_hex(&root),
                    "coordinatorRoot": to_hex(&coordinator),
                    "fractionalProof": to_hex(&proof),
                });
                format!("{v}\n").into_bytes()
            }
        }
    } else {
        let entries: Vec<(TreeKey, Option<Value>)> = keys
            .iter()
            .map(|(k, op)| match op {
                KeyOp::Set(v) => (*k, Some(*v)),
                KeyOp::Read | KeyOp::Delete => (*k, None),
            })
            .collect();
        let entries = &entries;
        let what = || format!("{dd}: proving {} keys at block {height}", keys.len());
        let owned = if args.bind_absences {
            let (owned, added) = witness::prove_bound(&root, entries, |k| state.prove(k))
                .map_err(|e| anyhow::anyhow!("{e:#}"))
                .with_context(what)?;
            tracing::info!("{dd}: {added} keys added to bind every absence");
            owned
        } else {
            state.prove(entries).with_context(what)?
        };
        match format {
            Format::Ssz => owned.to_ssz().context("encoding the witness as SSZ")?,
            Format::Json => {
                let w = owned.to_witness().context("encoding the witness")?;
                let v = serde_json::json!({
                    "blockNumber": height,
                    "stateRoot": to_hex(&root),
                    "executionWitness": w.to_json_value(),
                });
                format!("{v}\n").into_bytes()
            }
        }
    };
    match &args.out {
        Some(p) => {
            std::fs::write(p, &bytes).with_context(|| format!("{}: cannot write", p.display()))?
        }
        None => out.write_all(&bytes)?,
    }
    tracing::info!(
        "{dd}: proved {} keys at block {height} against root {}",
        keys.len(),
        to_hex(&root)
    );
    Ok(Outcome::Ok)
}
