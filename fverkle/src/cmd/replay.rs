//! `fverkle replay --genesis GENESIS.json --layout L [--datadir DIR] [--chain C] [--mode M] BLOCKS...`
//! or `fverkle replay --eest FILE [--test NAME] [--mode M]`, or
//! `fverkle replay --diffs FILE... --genesis GENESIS.json --layout L [--witness-sizes]`
//! (`chain::import::diffs`), or
//! `fverkle replay --tree eip7864|eip8297 [--hash H] --genesis GENESIS.json [--datadir DIR]
//! BLOCKS...` (a binary export, `chain::binary`, replayed in memory or in a binary datadir), or
//! `fverkle replay --tree eip7864 [--hash H] --carry BLOCKS...` (a Verkle export carried into an
//! EIP-7864 tree, `chain::binary::carry`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use chain::datadir::open_state_with;
use chain::genesis::{init_genesis, GenesisOutcome, GenesisSpec};
use chain::hexarg::to_hex;
use chain::import::{diffs, eest};
use chain::replayer::{BlockReport, Ended, Replayer};
use chain::state::{Mode, State};

use chain::binary::carry::carry_export;
use chain::binary::genesis::init_binary_genesis;
use chain::binary::memory::in_memory;
use chain::binary::replay::{BinaryBlockReport, BinaryReplayer};
use chain::binary::rocks::RocksBinaryState;
use chain::binary::{BinaryKind, BinaryState};

use crate::args::{ChainArg, HashArg, Kind, LayoutArg, ModeArg, TreeArg};
use crate::outcome::Outcome;
use crate::progress::Progress;

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
    #[arg(long, required_unless_present_any = ["eest", "carry"], conflicts_with_all = ["eest", "carry"])]
    genesis: Option<PathBuf>,
    /// Account layout of the chain (a Verkle replay).
    #[arg(
        long,
        value_enum,
        required_unless_present_any = ["eest", "tree", "carry"],
        conflicts_with_all = ["eest", "carry"]
    )]
    layout: Option<LayoutArg>,
    /// The tree the export was proven with: Verkle (execution witnesses), or a binary tree
    /// (a binary export of `fverkle gen --tree`, replayed in memory; `--layout` unused).
    #[arg(long, value_enum, default_value = "verkle", conflicts_with = "eest")]
    tree: TreeArg,
    /// The binary tree's hash (EIP-7864: sha256, the default, or blake3; EIP-8297: blake3).
    #[arg(long, value_enum)]
    hash: Option<HashArg>,
    /// Named rules of a chain (see README, "Chain rules").
    #[arg(long, value_enum, default_value = "none", conflicts_with = "eest")]
    chain: ChainArg,
    /// Which tree holds the state.
    #[arg(long, value_enum, default_value = "single")]
    mode: ModeArg,
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
    /// With `--tree eip7864`: the blocks are a Verkle export (Kaustinen6, a `gen` export), its
    /// 32-byte tree keys carried over as they are into an EIP-7864 tree that holds the state
    /// the witnesses reveal (each key's pre-value where a block first touches it); each block
    /// is proven with a binary witness, verified, and its post-state root checked. One report
    /// per block with both witnesses' sizes; no genesis (see README, "Binary trees").
    #[arg(long, conflicts_with_all = ["eest", "diffs", "datadir", "proofs"])]
    carry: bool,
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

/// A block's report as the replay prints it: Verkle's and the binary trees'.
trait BlockLine {
    fn ok(&self) -> bool;
    fn number(&self) -> u64;
    fn json(&self) -> serde_json::Value;
    fn line(&self) -> String;
}

/// Implements [`BlockLine`] for report types with `ok` and `number` fields and
/// `to_json`/`to_line` methods.
macro_rules! block_line {
    ($($report:ty),+) => {$(
        impl BlockLine for $report {
            fn ok(&self) -> bool {
                self.ok
            }
            fn number(&self) -> u64 {
                self.number
            }
            fn json(&self) -> serde_json::Value {
                self.to_json()
            }
            fn line(&self) -> String {
                self.to_line()
            }
        }
    )+};
}

block_line!(BlockReport, BinaryBlockReport);

/// Prints a block's report (every block's with `per_block`, a failed block's always) and
/// counts an applied block on the progress bar.
fn print_block(
    out: &mut dyn Write,
    json: bool,
    per_block: bool,
    progress: &mut Progress,
    r: &impl BlockLine,
) -> std::io::Result<()> {
    if per_block || !r.ok() {
        progress.suspend(|| {
            if json {
                writeln!(out, "{}", r.json())
            } else {
                writeln!(out, "{}", r.line())
            }
        })?;
    }
    if r.ok() {
        progress.inc(|| format!("block {}", r.number()));
    }
    Ok(())
}

/// With `--json` and per-block reports, the line of a genesis this run wrote.
fn genesis_line(out: &mut dyn Write, spec: &GenesisSpec, genesis: &GenesisOutcome) -> Result<()> {
    let line = serde_json::json!({
        "genesis": spec.path.display().to_string(),
        "leaves": genesis.leaves,
        "root": to_hex(&genesis.root),
        "ms": genesis.ms,
    });
    writeln!(out, "{line}")?;
    Ok(())
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
        genesis_line(out, spec, &genesis)?;
    }
    let mut replayer = Replayer::after_genesis(state, spec, &genesis.root)?;
    if let Some(dir) = proofs {
        replayer.write_proofs(dir)?;
    }
    let mut progress = Progress::new("replay", None);
    let ended = replayer.replay_export(blocks, &mut |r| {
        print_block(out, json, per_block, &mut progress, r)
    })?;
    progress.finish();
    let outcome = match ended {
        Ended::Matched => Outcome::Ok,
        Ended::Mismatch => Outcome::Invalid,
    };
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

/// What a binary replay left: its verdict, summary (JSON and line) and state.
pub struct BinaryRun {
    /// Whether every block matched.
    pub outcome: Outcome,
    /// The summary object.
    pub summary: serde_json::Value,
    /// The summary line.
    pub line: String,
    /// The state after the replay.
    pub state: Box<dyn BinaryState>,
}

/// Replays the binary export `blocks` on `kind` from `genesis`, in memory or in the datadir
/// `datadir` (its genesis written when it is new; a datadir that holds blocks resumes after
/// them, the blocks up to its height skipped), printing reports to `out`; shared with `demo`.
pub fn replay_binary(
    kind: BinaryKind,
    genesis: &Path,
    datadir: Option<&Path>,
    blocks: &[PathBuf],
    out: &mut dyn Write,
    json: bool,
    per_block: bool,
) -> Result<BinaryRun> {
    let mut state: Box<dyn BinaryState> = match datadir {
        None => in_memory(kind),
        Some(dir) => Box::new(
            RocksBinaryState::open(dir, kind)
                .with_context(|| format!("{}: opening the binary datadir", dir.display()))?,
        ),
    };
    let resumed = state.height();
    let g = match resumed {
        Some(h) => {
            let root = state.root()?;
            tracing::info!(
                "{}: resuming at block {h} (root {}); the genesis file is not read again",
                datadir.map(|d| d.display().to_string()).unwrap_or_default(),
                to_hex(&root)
            );
            None
        }
        None => Some(init_binary_genesis(state.as_mut(), genesis)?),
    };
    if let (true, true, Some(g)) = (json, per_block, &g) {
        let line = serde_json::json!({
            "genesis": genesis.display().to_string(),
            "tree": kind.tree(),
            "hash": kind.hash(),
            "accounts": g.accounts,
            "entries": g.entries,
            "root": to_hex(&g.root),
            "ms": g.ms,
        });
        writeln!(out, "{line}")?;
    }
    let start = Instant::now();
    let mut replayer = BinaryReplayer::new(state.as_mut());
    let mut progress = Progress::new("replay", None);
    let ended = replayer.replay_export(blocks, &mut |r| {
        Ok(print_block(out, json, per_block, &mut progress, r)?)
    })?;
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    let mut summary = replayer.summary_json(secs);
    let line = match &g {
        Some(g) => {
            summary["genesis_ms"] = serde_json::json!(g.ms);
            format!(
                "{} (after a genesis of {} entries in {:.1} s)",
                replayer.summary_line(secs),
                g.entries,
                g.ms / 1e3
            )
        }
        None => format!(
            "{} (resumed after block {})",
            replayer.summary_line(secs),
            resumed.unwrap_or_default()
        ),
    };
    let outcome = match ended {
        Ended::Matched => Outcome::Ok,
        Ended::Mismatch => Outcome::Invalid,
    };
    Ok(BinaryRun {
        outcome,
        summary,
        line,
        state,
    })
}

/// `--tree eip7864|eip8297`: a binary export replayed in memory.
fn run_binary(args: &Args, kind: Kind, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let refuse = |flag: &str, why: &str| Err(anyhow!("{flag} with --tree {}: {why}", kind.tree()));
    if args.cache_mb.is_some() {
        return refuse(
            "--cache-mb",
            "a binary datadir keeps its node budget (262,144 nodes) and RocksDB's defaults",
        );
    }
    if !args.diffs.is_empty() {
        return refuse(
            "--diffs",
            "state diffs are replayed into the Verkle tree only",
        );
    }
    if args.proofs.is_some() || args.mode != ModeArg::Single {
        return refuse("--mode/--proofs", "the sharded tree is Verkle's");
    }
    if args.chain != ChainArg::None {
        return refuse("--chain", "chain rules are Verkle chains'");
    }
    let Some(genesis) = &args.genesis else {
        return Err(anyhow!("--genesis is required"));
    };
    let run = replay_binary(
        kind.binary(),
        genesis,
        args.datadir.as_deref(),
        &args.blocks,
        out,
        json,
        true,
    )?;
    if json {
        writeln!(out, "{}", run.summary)?;
    } else {
        writeln!(out, "{}", run.line)?;
    }
    Ok(run.outcome)
}

/// `--tree eip7864 --carry`: a Verkle export carried into an EIP-7864 tree.
fn run_carry(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let kind = match Kind::of(args.tree, args.hash)? {
        Some(k @ (Kind::Eip7864Sha256 | Kind::Eip7864Blake3)) => k,
        _ => {
            return Err(anyhow!(
                "--carry takes a Verkle export into an EIP-7864 tree: add --tree eip7864 \
                 (EIP-8297 keys are not 32-byte Verkle keys)"
            ))
        }
    };
    if args.chain != ChainArg::None || args.mode != ModeArg::Single {
        return Err(anyhow!(
            "--carry: --chain and --mode are a Verkle replay's (the carried state is only what the witnesses reveal)"
        ));
    }
    let mut progress = Progress::new("carry", None);
    let summary = carry_export(&args.blocks, kind.binary(), &mut |b| {
        progress.suspend(|| {
            if json {
                writeln!(out, "{}", b.to_json())
            } else {
                writeln!(
                    out,
                    "block {}: ok {} ({} read, {} written; Verkle witness {} B, proof {} B; binary witness {} B, proof {} B; decode {:.1} µs, verify {:.1} µs, post-state {:.1} µs)",
                    b.number,
                    to_hex(&b.post_root),
                    b.keys_read,
                    b.keys_written,
                    b.verkle_witness_bytes,
                    b.verkle_proof_bytes,
                    b.binary_witness_bytes,
                    b.binary_proof_bytes,
                    b.decode_ns as f64 / 1e3,
                    b.verify_ns as f64 / 1e3,
                    b.post_state_ns as f64 / 1e3,
                )
            }
        })?;
        progress.inc(|| format!("block {}", b.number));
        Ok(())
    })?;
    progress.finish();
    if json {
        writeln!(out, "{}", summary.to_json())?;
    } else {
        let c = &summary.columns;
        writeln!(
            out,
            "carried {} blocks into an EIP-7864 tree ({}): Verkle tree keys as they are, the starting state what the witnesses reveal ({} keys, {} present; root {}); final root {}; witnesses: Verkle {} B, binary {} B; binary proofs {} B against Verkle's {} B",
            summary.blocks,
            kind.hash(),
            summary.revealed.keys,
            summary.revealed.present,
            to_hex(&summary.genesis_root),
            to_hex(&summary.final_root),
            c.verkle_witness_bytes.total(),
            c.binary_witness_bytes.total(),
            c.binary_proof_bytes.total(),
            c.verkle_proof_bytes.total(),
        )?;
    }
    Ok(Outcome::Ok)
}

/// `--eest FILE [--test NAME]`: one result per test, exit 1 when any fails.
fn run_eest(args: &Args, file: &Path, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let fixtures = eest::load(file, args.test.as_deref())?;
    let mut outcome = Outcome::Ok;
    let (mut passed, mut failed) = (0usize, 0usize);
    for f in &fixtures {
        let r = eest::replay(f, args.mode.into())?;
        if r.ok {
            passed += 1;
        } else {
            failed += 1;
            outcome = Outcome::Invalid;
        }
        if json {
            writeln!(out, "{}", r.to_json())?;
        } else {
            writeln!(out, "{}", r.to_line())?;
        }
    }
    if !json {
        writeln!(out, "{}: {passed} passed, {failed} failed", file.display())?;
    }
    Ok(outcome)
}

/// `--diffs FILE...`: one cost report per block, then the totals.
fn run_diffs(
    args: &Args,
    state: &mut dyn State,
    spec: &GenesisSpec,
    where_: &str,
    json: bool,
    out: &mut impl Write,
) -> Result<Outcome> {
    diffs::check_spec(spec)?;
    let genesis = init_genesis(state, spec, where_)?;
    let start = Instant::now();
    if json && genesis.written {
        genesis_line(out, spec, &genesis)?;
    }
    let mut progress = Progress::new("replay --diffs", None);
    let totals = diffs::replay(
        state,
        spec,
        &genesis.root,
        &args.diffs,
        args.witness_sizes,
        &mut |r| {
            progress.suspend(|| {
                if json {
                    writeln!(out, "{}", r.to_json())
                } else {
                    writeln!(out, "{}", r.to_line())
                }
            })?;
            progress.inc(|| format!("block {}", r.number));
            Ok(())
        },
    )?;
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    if json {
        writeln!(out, "{}", totals.to_json(secs))?;
    } else {
        writeln!(out, "{}", totals.to_line(secs))?;
    }
    Ok(Outcome::Ok)
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    if let Some(file) = &args.eest {
        return run_eest(args, file, json, out);
    }
    if args.carry {
        return run_carry(args, json, out);
    }
    if let Some(kind) = Kind::of(args.tree, args.hash)? {
        return run_binary(args, kind, json, out);
    }
    let (Some(genesis), Some(layout)) = (&args.genesis, args.layout) else {
        return Err(anyhow!(
            "--genesis and --layout are required without --eest"
        ));
    };
    let mode: Mode = args.mode.into();
    if args.proofs.is_some() && mode != Mode::Fractional {
        return Err(anyhow!(
            "--proofs writes fractional proofs: it needs --mode fractional"
        ));
    }
    let cache_mb = args.cache_mb.map(|mb| mb as usize);
    let mut state = open_state_with(args.datadir.as_deref(), mode, cache_mb)?;
    let where_ = args
        .datadir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|| "memory".to_string());
    let spec = GenesisSpec {
        path: genesis.clone(),
        layout: layout.into(),
        chain: args.chain.into(),
        mode,
    };
    if !args.diffs.is_empty() {
        return run_diffs(args, state.as_mut(), &spec, &where_, json, out);
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
