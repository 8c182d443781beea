//! `fverkle replay --genesis GENESIS.json --layout L [--datadir DIR] [--chain C] [--mode M] BLOCKS...`
//! or `fverkle replay --eest FILE [--test NAME] [--mode M]`, or
//! `fverkle replay --diffs FILE... --genesis GENESIS.json --layout L [--witness-sizes]` ([`crate::diffs`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, Result};

use crate::args::LayoutArg;
use crate::datadir::{block_meta, init_genesis, open_state_with, GenesisSpec, Mode};
use crate::export::ExportReader;
use crate::outcome::Outcome;
use crate::pipeline::ReadAhead;
use crate::progress::Progress;
use crate::replayer::{BlockReport, Replayer, Step};
use crate::rules::Chain;
use crate::state::State;

/// Arguments of `fverkle replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where the state lives (created when missing; a second run resumes after its last
    /// block). Without it the state is kept in memory for this run only.
    #[arg(long, conflicts_with = "eest")]
    datadir: Option<PathBuf>,
    /// Memory for the datadir's caches, in MiB: half for the tree's node cache (after each
    /// block the nodes beyond it are dropped, read back when reached), half for RocksDB's
    /// block cache and memtables. Default: the built-in budgets (single tree: 500,000 nodes
    /// within 384 MiB; sharded tree: 4,000,000 nodes; RocksDB: 64 MiB block cache and up to
    /// 768 MiB of memtables).
    #[arg(long, value_name = "MIB", requires = "datadir", value_parser = clap::value_parser!(u32).range(1..))]
    cache_mb: Option<u32>,
    /// The genesis file (geth genesis with `alloc`, or a bare alloc; plain, gzip or zstd).
    #[arg(long, required_unless_present = "eest", conflicts_with = "eest")]
    genesis: Option<PathBuf>,
    /// Account layout of the chain.
    #[arg(
        long,
        value_enum,
        required_unless_present = "eest",
        conflicts_with = "eest"
    )]
    layout: Option<LayoutArg>,
    /// Named rules of a chain (see README, "Chain rules").
    #[arg(long, value_enum, default_value = "none", conflicts_with = "eest")]
    chain: Chain,
    /// Which tree holds the state.
    #[arg(long, value_enum, default_value = "single")]
    mode: Mode,
    /// Exported block files: `{"blocks": [...]}`, a JSON array of blocks, JSON Lines of
    /// blocks, JSON-RPC `eth_getBlockByNumber` responses (one, a batch, or one per line), or
    /// beacon-API block dumps; any of them gzip or zstd compressed; `-` reads stdin.
    #[arg(
        required_unless_present_any = ["eest", "diffs"],
        conflicts_with_all = ["eest", "diffs"]
    )]
    blocks: Vec<PathBuf>,
    /// Account-level state diffs (geth's `prestateTracer` with `diffMode`, one block per
    /// line; see README, "State diffs"), plain, gzip or zstd, instead of block exports:
    /// each block's changes become tree writes; one report per block.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "eest")]
    diffs: Vec<PathBuf>,
    /// With `--diffs`: prove each block's written keys against the state before it and
    /// report the witness's size.
    #[arg(long, requires = "diffs")]
    witness_sizes: bool,
    /// An execution-spec-tests blockchain-test file (a map of test names to fixtures, or one
    /// fixture; plain, gzip or zstd): replay each test from its `pre` in memory; one result
    /// per test.
    #[arg(long, value_name = "FILE")]
    eest: Option<PathBuf>,
    /// With `--mode fractional`: write each block's fractional proof (`spec/FRACTIONAL.md`:
    /// the block's keys and writes against the state before it, verifiable against the
    /// parent's state root or coordinator root) to `DIR/block-<number>.frac`, named in the
    /// block's report.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["eest", "diffs"])]
    proofs: Option<PathBuf>,
    /// With `--eest`: replay only the test of this name.
    #[arg(long, value_name = "NAME", requires = "eest")]
    test: Option<String>,
}

/// How [`replay_into`] reports.
#[derive(Clone, Copy, Debug)]
pub struct Reporting<'a> {
    /// JSON Lines instead of text.
    pub json: bool,
    /// One report per block (else only the summary is returned).
    pub per_block: bool,
    /// Where each block's fractional proof is written (`--proofs`).
    pub proofs: Option<&'a Path>,
}

/// Runs a replay of `blocks` onto `state`, printing reports to `out`; shared with `demo`.
pub fn replay_into(
    state: &mut dyn State,
    spec: &GenesisSpec,
    where_: &str,
    blocks: &[PathBuf],
    out: &mut dyn Write,
    how: Reporting<'_>,
) -> Result<(Outcome, serde_json::Value, String)> {
    let Reporting {
        json,
        per_block,
        proofs,
    } = how;
    let genesis = init_genesis(state, spec, where_)?;
    // Rates count the blocks only; the genesis import is reported on its own.
    let start = Instant::now();
    if json && per_block && genesis.written {
        let line = serde_json::json!({
            "genesis": spec.path.display().to_string(),
            "leaves": genesis.leaves,
            "root": crate::hexarg::to_hex(&genesis.root),
            "ms": genesis.ms,
        });
        writeln!(out, "{line}")?;
    }
    let meta = block_meta(spec, &genesis.root);
    let mut replayer = Replayer::new(state, spec.chain, spec.layout.into(), meta)?;
    if let Some(dir) = proofs {
        replayer.write_proofs(dir)?;
    }
    let mut progress = Progress::new("replay", None);
    let mut outcome = Outcome::Ok;
    // Prints a report: an applied block's with `per_block` (and counts it), a mismatch
    // always.
    let mut report = |progress: &mut Progress, r: &BlockReport, applied: bool| -> Result<()> {
        if per_block || !applied {
            progress.suspend(|| -> std::io::Result<()> {
                if json {
                    writeln!(out, "{}", r.to_json())
                } else {
                    writeln!(out, "{}", r.to_line())
                }
            })?;
        }
        if applied {
            progress.inc(|| format!("block {}", r.number));
        }
        Ok(())
    };
    // A block is reported once it is in the store: a datadir writes a block's batch while
    // the next block is applied, and the next block's persist (or the end) waits for it.
    // So a report is held until the next block has persisted, the run has ended, or a
    // mismatch or an error stops it.
    let mut held: Option<BlockReport> = None;
    // Decoding and witness verification run one block ahead, on another thread.
    let (height, root) = replayer.position();
    for prepared in ReadAhead::spawn(ExportReader::new(blocks), height, root)? {
        let step = prepared
            .and_then(|(block, ahead)| replayer.block_verified_ahead(&block, ahead.as_ref()));
        match step {
            Ok(Step::Skipped) => {}
            Ok(Step::Applied(r)) => {
                if let Some(prev) = held.replace(r) {
                    report(&mut progress, &prev, true)?;
                }
            }
            Ok(Step::Mismatch(r)) => {
                replayer.sync()?;
                if let Some(prev) = held.take() {
                    report(&mut progress, &prev, true)?;
                }
                report(&mut progress, &r, false)?;
                outcome = Outcome::Invalid;
                break;
            }
            Err(e) => {
                if let Some(prev) = held.take() {
                    if replayer.sync().is_ok() {
                        report(&mut progress, &prev, true)?;
                    }
                }
                return Err(e);
            }
        }
    }
    replayer.finish()?;
    if let Some(prev) = held.take() {
        report(&mut progress, &prev, true)?;
    }
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    let mut summary = replayer.summary_json(secs);
    summary["genesis_ms"] = serde_json::json!(genesis.ms);
    let mut line = replayer.summary_line(secs);
    if genesis.written {
        line.push_str(&format!(
            " (after a genesis of {} leaves in {:.1} s)",
            genesis.leaves,
            genesis.ms / 1e3
        ));
    }
    Ok((outcome, summary, line))
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    if let Some(file) = &args.eest {
        return crate::eest::run(file, args.test.as_deref(), args.mode, json, out);
    }
    let (Some(genesis), Some(layout)) = (&args.genesis, args.layout) else {
        return Err(anyhow!(
            "--genesis and --layout are required without --eest"
        ));
    };
    if args.proofs.is_some() && args.mode != Mode::Fractional {
        return Err(anyhow!(
            "--proofs writes fractional proofs: it needs --mode fractional"
        ));
    }
    let cache_mb = args.cache_mb.map(|mb| mb as usize);
    let mut state = open_state_with(args.datadir.as_deref(), args.mode, cache_mb)?;
    let where_ = args
        .datadir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|| "memory".to_string());
    let spec = GenesisSpec {
        path: genesis.clone(),
        layout,
        chain: args.chain,
        mode: args.mode,
    };
    if !args.diffs.is_empty() {
        let run = crate::diffs::DiffRun {
            files: &args.diffs,
            spec: &spec,
            where_: &where_,
            witness_sizes: args.witness_sizes,
            json,
        };
        return crate::diffs::run(state.as_mut(), &run, out);
    }
    let (outcome, summary, line) = replay_into(
        state.as_mut(),
        &spec,
        &where_,
        &args.blocks,
        out,
        Reporting {
            json,
            per_block: true,
            proofs: args.proofs.as_deref(),
        },
    )?;
    if json {
        writeln!(out, "{summary}")?;
    } else {
        writeln!(out, "{line}")?;
    }
    Ok(outcome)
}
