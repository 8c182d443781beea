//! `fverkle gen --blocks N --updates M --accounts K --seed S --out FILE [--tree T [--hash H]]`:
//! a synthetic block export (JSON Lines, one block per line) and its genesis, with witnesses
//! from our prover: Verkle execution witnesses, or binary witnesses (`--tree eip7864|eip8297`,
//! `chain::binary::export`) of the same account-level blocks. `--state-dir` keeps either tree in
//! a temporary RocksDB datadir instead of memory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use chain::binary::memory::in_memory;
use chain::binary::rocks::RocksBinaryState;
use chain::binary::{BinaryKind, BinaryState};
use chain::datadir::open_state;
use chain::hexarg::to_hex;
use chain::state::{MemoryState, Mode, State};
use chain::synth::binary::{write_binary_chain, BinaryGenerated};
use chain::synth::{write_chain, Format, Generated, SynthConfig};

use crate::args::{HashArg, Kind, LayoutArg, TreeArg};
use crate::outcome::Outcome;
use crate::progress::Progress;

/// Arguments of `fverkle gen`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Blocks to generate.
    #[arg(long)]
    blocks: u64,
    /// Keys written per block (at least: one transaction's writes are never split).
    #[arg(long)]
    updates: usize,
    /// Accounts in the genesis (about one in a thousand is a contract with code and storage).
    #[arg(long)]
    accounts: u64,
    /// Seed: the same arguments give the same files, byte for byte.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Account layout.
    #[arg(long, value_enum, default_value = "eip6800")]
    layout: LayoutArg,
    /// The block export to write (JSON Lines).
    #[arg(long)]
    out: PathBuf,
    /// Where to write the genesis (default: the export's path with `.genesis.json` added).
    #[arg(long)]
    genesis_out: Option<PathBuf>,
    /// Keep the generator's tree in a RocksDB datadir (a fresh directory inside this one,
    /// removed at the end) instead of memory: memory stays bounded by the node cache, for
    /// states of millions of keys. Slower. The files written are the same.
    #[arg(long)]
    state_dir: Option<PathBuf>,
    /// Prove every block with every absence bound (`spec/WIRE.md` §6.6): a few more reads
    /// per witness; without it the witnesses are what geth's prover writes.
    #[arg(long)]
    bind_absences: bool,
    /// What `--out` holds: the block export (witnesses), or the same chain's account-level
    /// state diffs as geth's `prestateTracer` in diff mode writes them, one block per line
    /// (`fverkle replay --diffs` reads them).
    #[arg(long, value_enum, default_value = "export")]
    format: GenFormat,
    /// The tree the blocks are proven with: the Verkle tree (execution witnesses), or a
    /// binary tree (a binary export: `binaryWitness` per block, see README). The genesis
    /// document and the account-level blocks are the same for every tree.
    #[arg(long, value_enum, default_value = "verkle")]
    tree: TreeArg,
    /// The binary tree's hash (EIP-7864: sha256, the default, or blake3; EIP-8297: blake3).
    #[arg(long, value_enum)]
    hash: Option<HashArg>,
}

/// What `fverkle gen` writes to `--out`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenFormat {
    /// Blocks with their execution witnesses (JSON Lines).
    Export,
    /// `{"number", "traces"}` per block: `debug_traceBlockByNumber` with the
    /// `prestateTracer` in diff mode (JSON Lines).
    PrestateDiff,
}

/// The default genesis path beside an export.
pub fn genesis_path_for(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".genesis.json");
    PathBuf::from(s)
}

impl From<GenFormat> for Format {
    fn from(f: GenFormat) -> Format {
        match f {
            GenFormat::Export => Format::Export,
            GenFormat::PrestateDiff => Format::PrestateDiff,
        }
    }
}

/// Generates `config` into `out` (and its genesis into `genesis_out`), the tree in memory.
pub fn generate(config: SynthConfig, out: &Path, genesis_out: &Path) -> Result<Generated> {
    generate_with(config, out, genesis_out, None, GenFormat::Export)
}

/// [`generate`], the tree in a fresh datadir inside `state_dir` when given.
pub fn generate_with(
    config: SynthConfig,
    out: &Path,
    genesis_out: &Path,
    state_dir: Option<&Path>,
    format: GenFormat,
) -> Result<Generated> {
    let (state, _keep): (Box<dyn State>, Option<tempfile::TempDir>) = match state_dir {
        None => (Box::new(MemoryState::new()), None),
        Some(dir) => {
            let tmp = temporary_datadir(dir)?;
            let state = open_state(Some(tmp.path()), Mode::Single)?;
            (state, Some(tmp))
        }
    };
    // The bar starts with the first block, after the genesis.
    let mut progress: Option<Progress> = None;
    let generated = write_chain(config, out, genesis_out, state, format.into(), &mut |b| {
        progress
            .get_or_insert_with(|| Progress::new("gen", Some(config.blocks)))
            .inc(|| format!("block {} ({} writes)", b.number, b.writes))
    })?;
    if let Some(p) = progress {
        p.finish();
    }
    Ok(generated)
}

/// Generates `config` on the binary tree `kind` into `out` (and its genesis into
/// `genesis_out`), the tree in memory.
pub fn generate_binary(
    config: SynthConfig,
    kind: BinaryKind,
    out: &Path,
    genesis_out: &Path,
) -> Result<BinaryGenerated> {
    generate_binary_with(config, kind, out, genesis_out, None)
}

/// [`generate_binary`], the tree in a fresh binary datadir inside `state_dir` when given.
pub fn generate_binary_with(
    config: SynthConfig,
    kind: BinaryKind,
    out: &Path,
    genesis_out: &Path,
    state_dir: Option<&Path>,
) -> Result<BinaryGenerated> {
    let (state, _keep): (Box<dyn BinaryState>, Option<tempfile::TempDir>) = match state_dir {
        None => (in_memory(kind), None),
        Some(dir) => {
            let tmp = temporary_datadir(dir)?;
            let state = RocksBinaryState::open(tmp.path(), kind)
                .with_context(|| format!("{}: opening the binary datadir", tmp.path().display()))?;
            (Box::new(state), Some(tmp))
        }
    };
    let mut progress: Option<Progress> = None;
    let generated = write_binary_chain(config, out, genesis_out, state, &mut |b| {
        progress
            .get_or_insert_with(|| Progress::new("gen", Some(config.blocks)))
            .inc(|| format!("block {} ({} writes)", b.number, b.writes))
    })?;
    if let Some(p) = progress {
        p.finish();
    }
    Ok(generated)
}

/// A fresh directory inside `dir` (created if needed) for the generator's datadir, removed
/// when the returned handle drops.
fn temporary_datadir(dir: &Path) -> Result<tempfile::TempDir> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    tempfile::Builder::new()
        .prefix("fverkle-gen-state-")
        .tempdir_in(dir)
        .with_context(|| format!("{}: cannot create a directory in it", dir.display()))
}

/// `gen --tree eip7864|eip8297`.
fn run_binary(
    args: &Args,
    kind: Kind,
    config: SynthConfig,
    genesis_out: &Path,
    json: bool,
    out: &mut impl Write,
) -> Result<Outcome> {
    let t = Instant::now();
    if args.format != GenFormat::Export {
        anyhow::bail!("--format prestate-diff: the account-level diffs are written for the Verkle chain only (drop --tree)");
    }
    let BinaryGenerated {
        root,
        written,
        genesis_s,
        ..
    } = generate_binary_with(
        config,
        kind.binary(),
        &args.out,
        genesis_out,
        args.state_dir.as_deref(),
    )?;
    let summary = Summary {
        args,
        genesis_out,
        written,
        root,
        genesis_s,
        secs: t.elapsed().as_secs_f64(),
    };
    let tree = serde_json::json!({"tree": kind.tree(), "hash": kind.hash()});
    let label = format!(" on {}/{}", kind.tree(), kind.hash());
    let replay = format!(
        "--tree {} --hash {} --genesis {} {}",
        kind.tree(),
        kind.hash(),
        genesis_out.display(),
        args.out.display()
    );
    summary.print(out, json, tree, &label, &replay)?;
    Ok(Outcome::Ok)
}

/// What a generation wrote, as its summary prints it.
struct Summary<'a> {
    args: &'a Args,
    genesis_out: &'a Path,
    written: u64,
    root: [u8; 32],
    genesis_s: f64,
    secs: f64,
}

impl Summary<'_> {
    /// One JSON object (with the tree's own `fields`), or a line (the tree named by `label`)
    /// and the replay command's arguments `replay`.
    fn print(
        &self,
        out: &mut impl Write,
        json: bool,
        fields: serde_json::Value,
        label: &str,
        replay: &str,
    ) -> Result<()> {
        let (args, genesis_out, written, secs) =
            (self.args, self.genesis_out, self.written, self.secs);
        if json {
            let mut line = serde_json::json!({
                "out": args.out.display().to_string(),
                "genesis": genesis_out.display().to_string(),
                "blocks": args.blocks,
                "keys_written": written,
                "root": to_hex(&self.root),
                "genesis_seconds": self.genesis_s,
                "seconds": secs,
            });
            if let (Some(line), serde_json::Value::Object(fields)) = (line.as_object_mut(), fields)
            {
                line.extend(fields);
            }
            writeln!(out, "{line}")?;
        } else {
            writeln!(
                out,
                "wrote {} blocks{label} ({written} keys written) to {} and the genesis to {} in {secs:.1} s; final root {}",
                args.blocks,
                args.out.display(),
                genesis_out.display(),
                to_hex(&self.root)
            )?;
            writeln!(out, "replay it: fverkle replay {replay}")?;
        }
        Ok(())
    }
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let t = Instant::now();
    let genesis_out = args
        .genesis_out
        .clone()
        .unwrap_or_else(|| genesis_path_for(&args.out));
    let kind = Kind::of(args.tree, args.hash)?;
    let config = SynthConfig {
        accounts: args.accounts,
        blocks: args.blocks,
        updates: args.updates,
        seed: args.seed,
        layout: args.layout.into(),
        bind_absences: args.bind_absences,
    };
    if let Some(kind) = kind {
        return run_binary(args, kind, config, &genesis_out, json, out);
    }
    let Generated {
        root,
        written,
        genesis_s,
        ..
    } = generate_with(
        config,
        &args.out,
        &genesis_out,
        args.state_dir.as_deref(),
        args.format,
    )?;
    let summary = Summary {
        args,
        genesis_out: &genesis_out,
        written,
        root,
        genesis_s,
        secs: t.elapsed().as_secs_f64(),
    };
    let diffs = if args.format == GenFormat::PrestateDiff {
        "--diffs "
    } else {
        ""
    };
    let replay = format!(
        "--genesis {} --layout {} {diffs}{}",
        genesis_out.display(),
        args.layout.name(),
        args.out.display()
    );
    let layout = serde_json::json!({"layout": args.layout.name()});
    summary.print(out, json, layout, "", &replay)?;
    Ok(Outcome::Ok)
}
