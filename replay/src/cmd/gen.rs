//! `fverkle gen --blocks N --updates M --accounts K --seed S --out FILE`: a synthetic block
//! export (JSON Lines, one block per line) and its genesis, with witnesses from our prover.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::args::LayoutArg;
use crate::datadir::{open_state, Mode};
use crate::export::block_json;
use crate::hexarg::to_hex;
use crate::outcome::Outcome;
use crate::progress::Progress;
use crate::state::{MemoryState, State};
use crate::synth::{Synth, SynthConfig};

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

/// What [`generate`] wrote.
pub struct Generated {
    /// The root after the last block.
    pub root: [u8; 32],
    /// Keys written, all blocks.
    pub written: u64,
    /// Seconds spent on the genesis.
    pub genesis_s: f64,
    /// Keys to prove against the final state (present and absent ones).
    pub sample_keys: Vec<verkle::keys::TreeKey>,
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
    let t = Instant::now();
    let (state, _keep): (Box<dyn State>, Option<tempfile::TempDir>) = match state_dir {
        None => (Box::new(MemoryState::new()), None),
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create", dir.display()))?;
            let tmp = tempfile::Builder::new()
                .prefix("fverkle-gen-state-")
                .tempdir_in(dir)
                .with_context(|| format!("{}: cannot create a directory in it", dir.display()))?;
            let state = open_state(Some(tmp.path()), Mode::Single)?;
            (state, Some(tmp))
        }
    };
    let mut synth = Synth::genesis_to_file(config, genesis_out, state)?;
    if format == GenFormat::PrestateDiff {
        synth.record_diffs();
    }
    let genesis_s = t.elapsed().as_secs_f64();
    tracing::info!(
        "{}: genesis of {} accounts, root {} ({genesis_s:.1} s)",
        genesis_out.display(),
        config.accounts,
        to_hex(&synth.root())
    );
    let name = out.display().to_string();
    let file = File::create(out).with_context(|| format!("{name}: cannot create"))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut progress = Progress::new("gen", Some(config.blocks));
    let mut written = 0u64;
    while synth.remaining() > 0 {
        let b = synth.next_block()?;
        written += b.writes as u64;
        let line = match format {
            GenFormat::Export => {
                block_json(b.number, &b.parent_state_root, &b.state_root, &b.witness)
            }
            GenFormat::PrestateDiff => serde_json::json!({"number": b.number, "traces": b.traces}),
        };
        serde_json::to_writer(&mut w, &line).with_context(|| format!("{name}: cannot write"))?;
        w.write_all(b"\n")
            .with_context(|| format!("{name}: cannot write"))?;
        progress.inc(|| format!("block {} ({} writes)", b.number, b.writes));
    }
    progress.finish();
    w.flush().with_context(|| format!("{name}: cannot write"))?;
    Ok(Generated {
        root: synth.root(),
        written,
        genesis_s,
        sample_keys: synth.sample_keys(64),
    })
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let t = Instant::now();
    let genesis_out = args
        .genesis_out
        .clone()
        .unwrap_or_else(|| genesis_path_for(&args.out));
    let config = SynthConfig {
        accounts: args.accounts,
        blocks: args.blocks,
        updates: args.updates,
        seed: args.seed,
        layout: args.layout.into(),
        bind_absences: args.bind_absences,
    };
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
    let secs = t.elapsed().as_secs_f64();
    if json {
        let line = serde_json::json!({
            "out": args.out.display().to_string(),
            "genesis": genesis_out.display().to_string(),
            "layout": args.layout.name(),
            "blocks": args.blocks,
            "keys_written": written,
            "root": to_hex(&root),
            "genesis_seconds": genesis_s,
            "seconds": secs,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(
            out,
            "wrote {} blocks ({written} keys written) to {} and the genesis to {} in {secs:.1} s; final root {}",
            args.blocks,
            args.out.display(),
            genesis_out.display(),
            to_hex(&root)
        )?;
        let diffs = if args.format == GenFormat::PrestateDiff {
            "--diffs "
        } else {
            ""
        };
        writeln!(
            out,
            "replay it: fverkle replay --genesis {} --layout {} {diffs}{}",
            genesis_out.display(),
            args.layout.name(),
            args.out.display()
        )?;
    }
    Ok(Outcome::Ok)
}
