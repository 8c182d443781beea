//! `fverkle prove --datadir DIR KEYS_FILE [--fractional [--lean]] [--format json|ssz]`: a
//! witness (or a fractional proof) for keys against the datadir's current state, carrying
//! the new values given as `KEY,VALUE` lines (and, in a fractional proof, the deletions
//! given as `KEY,delete`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use fractional::KeyOp;
use verkle::keys::{TreeKey, Value};

use chain::datadir::open_state;
use chain::hexarg::{parse_root, to_hex};
use chain::state::{meta, Mode};

use crate::outcome::Outcome;

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
    /// The datadir a replay or `genesis --datadir` wrote.
    #[arg(long)]
    datadir: PathBuf,
    /// A file of tree keys, one 32-byte hex key per line, `KEY,VALUE` for a key the block
    /// writes (its new value goes into the proof), or with --fractional `KEY,delete` for a
    /// key the block deletes; `#` comments and blank lines allowed; `-` reads stdin.
    keys: PathBuf,
    /// Prove from a fractional (sharded) datadir, writing a fractional proof (its wire form,
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
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
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

/// Runs the subcommand.
pub fn run(args: &Args, _json: bool, out: &mut impl Write) -> Result<Outcome> {
    let name = args.keys.display().to_string();
    let text = if args.keys.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading stdin")?
    } else {
        std::fs::read_to_string(&args.keys).with_context(|| format!("{name}: cannot read"))?
    };
    let keys = parse_keys(&text, &name, args.fractional)?;
    if !args.datadir.is_dir() {
        bail!("{}: no such datadir", args.datadir.display());
    }
    let mode = if args.fractional {
        Mode::Fractional
    } else {
        Mode::Single
    };
    let mut state = open_state(Some(&args.datadir), mode)?;
    let dd = args.datadir.display();
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
        match args.format {
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
        match args.format {
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
