//! `fverkle demo [--kaustinen6]`: the README's main job on an embedded default that needs no
//! files. Generates a deterministic synthetic chain with witnesses from our prover, replays
//! it (verifying every witness and root) into temporary datadirs, proves keys against the
//! final state and verifies that proof, and prints the summary with timings. With `--tree
//! eip7864|eip8297`, the same synthetic chain on a binary tree, replayed in memory, and a
//! binary witness of sample keys proved and verified.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use verkle::keys::{TreeKey, Value};

use chain::datadir::open_state;
use chain::genesis::GenesisSpec;
use chain::hexarg::to_hex;
use chain::rules::Chain;
use chain::state::{Mode, State};
use chain::synth::SynthConfig;
use verkle::keys::Layout;

use crate::args::{HashArg, Kind, TreeArg};
use crate::cmd::gen::{generate, generate_binary};
use crate::cmd::replay::{replay_binary, replay_into, Reporting};
use crate::outcome::Outcome;

/// Arguments of `fverkle demo`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Replay the real Kaustinen6 blocks 1..200 from `../shared/vectors/` (or
    /// `$FVERKLE_VECTORS`) instead of a synthetic chain.
    #[arg(long)]
    kaustinen6: bool,
    /// Accounts in the synthetic genesis.
    #[arg(long, default_value_t = 100_000)]
    accounts: u64,
    /// Synthetic blocks.
    #[arg(long, default_value_t = 32)]
    blocks: u64,
    /// Keys written per synthetic block.
    #[arg(long, default_value_t = 2_000)]
    updates: usize,
    /// Seed of the synthetic chain.
    #[arg(long, default_value_t = 6800)]
    seed: u64,
    /// Keep the generated files and datadirs here instead of a temporary directory.
    #[arg(long)]
    workdir: Option<PathBuf>,
    /// The tree: Verkle (replayed into datadirs, single and sharded), or a binary tree (the
    /// same synthetic chain proven with binary witnesses, replayed in memory).
    #[arg(long, value_enum, default_value = "verkle")]
    tree: TreeArg,
    /// The binary tree's hash (EIP-7864: sha256, the default, or blake3; EIP-8297: blake3).
    #[arg(long, value_enum)]
    hash: Option<HashArg>,
}

/// The shared vectors directory: `$FVERKLE_VECTORS`, `../shared/vectors` from the current
/// directory, or beside the source checkout this binary was built from.
fn vectors_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FVERKLE_VECTORS") {
        return Some(PathBuf::from(p));
    }
    [
        PathBuf::from("../shared/vectors"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// Prints one line of the demo (text, or a JSON object with `step`).
fn say(
    out: &mut dyn Write,
    json: bool,
    step: &str,
    v: serde_json::Value,
    text: String,
) -> Result<()> {
    if json {
        let mut v = v;
        v["step"] = serde_json::json!(step);
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{text}")?;
    }
    Ok(())
}

/// The `compare` step's failure: `who` reached different roots.
fn roots_differ(out: &mut dyn Write, json: bool, who: &str) -> Result<()> {
    say(
        out,
        json,
        "compare",
        serde_json::json!({"ok": false}),
        format!("  {who} reached different roots"),
    )
}

/// What one mode's replay left: its verdict, final root and state.
struct ModeRun {
    outcome: Outcome,
    root: Option<[u8; 32]>,
    state: Box<dyn State>,
}

/// Replays `blocks` into a fresh state in `spec.mode`.
fn replay_mode(
    spec: &GenesisSpec,
    datadir: Option<&Path>,
    blocks: &[PathBuf],
    json: bool,
    out: &mut dyn Write,
) -> Result<ModeRun> {
    let mut state = open_state(datadir, spec.mode)?;
    let where_ = datadir
        .map(|d| d.display().to_string())
        .unwrap_or_else(|| "memory".into());
    let (outcome, summary, line) = replay_into(
        state.as_mut(),
        spec,
        &where_,
        blocks,
        out,
        Reporting {
            json,
            per_block: false,
            proofs: None,
        },
    )?;
    let root = summary["root"]
        .as_str()
        .and_then(|s| chain::hexarg::parse_root(s).ok());
    let mut summary = summary;
    summary["mode"] = serde_json::json!(spec.mode.name());
    say(
        out,
        json,
        "replay",
        summary,
        format!("  {} mode: {line}", spec.mode.name()),
    )?;
    Ok(ModeRun {
        outcome,
        root,
        state,
    })
}

/// Proves `keys` against the state and verifies the witness statelessly.
fn prove_and_verify(
    mode: Mode,
    state: &mut dyn State,
    keys: &[TreeKey],
    json: bool,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let root = state.root();
    let entries: Vec<(TreeKey, Option<Value>)> = keys.iter().map(|k| (*k, None)).collect();
    let t = Instant::now();
    let owned = state.prove(&entries)?;
    let prove_ms = t.elapsed().as_secs_f64() * 1e3;
    let w = owned.to_witness().context("encoding the witness")?;
    let bytes = w.as_ssz().len();
    let t = Instant::now();
    let ok = witness::verify(&root, &w).is_ok();
    let verify_ms = t.elapsed().as_secs_f64() * 1e3;
    say(
        out,
        json,
        "prove",
        serde_json::json!({"mode": mode.name(), "keys": keys.len(), "witness_bytes": bytes, "prove_ms": prove_ms,
            "verify_ms": verify_ms, "ok": ok, "root": to_hex(&root)}),
        format!(
            "  {} mode: proof of {} keys against the final root ({bytes} B SSZ): prove {prove_ms:.0} ms, verify {verify_ms:.0} ms: {}",
            mode.name(),
            keys.len(),
            if ok { "valid" } else { "INVALID" }
        ),
    )?;
    let mut all_ok = ok;
    if let Some(coordinator_root) = state.coordinator_root() {
        let t = Instant::now();
        let reads: Vec<(TreeKey, fractional::KeyOp)> =
            keys.iter().map(|k| (*k, fractional::KeyOp::Read)).collect();
        let Some(proof) = state.prove_fractional(&reads, true)? else {
            bail!("the sharded state gave no fractional proof");
        };
        let prove_ms = t.elapsed().as_secs_f64() * 1e3;
        let bytes = proof.to_bytes()?;
        let len = bytes.len();
        let t = Instant::now();
        let verdict = witness::fractional::verify_fractional_bytes(
            bytes::Bytes::from(bytes),
            &witness::fractional::Anchor::CoordinatorRoot(coordinator_root),
        );
        let verify_ms = t.elapsed().as_secs_f64() * 1e3;
        let shards = verdict.as_ref().map(|v| v.shards().len()).unwrap_or(0);
        let fok = verdict.is_ok();
        all_ok &= fok;
        say(
            out,
            json,
            "prove fractional",
            serde_json::json!({"mode": mode.name(), "keys": keys.len(), "proof_bytes": len, "shards": shards, "prove_ms": prove_ms,
                "verify_ms": verify_ms, "ok": fok, "coordinator_root": to_hex(&coordinator_root),
                "error": verdict.err().map(|e| e.to_string())}),
            format!(
                "  {} mode: fractional proof of {} keys over {shards} shards ({len} B) against the coordinator root {}: prove {prove_ms:.0} ms, verify {verify_ms:.0} ms: {}",
                mode.name(),
                keys.len(),
                to_hex(&coordinator_root),
                if fok { "valid" } else { "INVALID" }
            ),
        )?;
    }
    Ok(if all_ok {
        Outcome::Ok
    } else {
        Outcome::Invalid
    })
}

/// `demo --tree eip7864|eip8297` in `work`: gen, replay, a witness of sample keys.
fn run_binary(
    args: &Args,
    kind: Kind,
    work: &Path,
    json: bool,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let start = Instant::now();
    if args.kaustinen6 {
        bail!(
            "--kaustinen6 is a Verkle chain: drop --tree {}",
            kind.tree()
        );
    }
    let config = SynthConfig {
        accounts: args.accounts,
        blocks: args.blocks,
        updates: args.updates,
        seed: args.seed,
        layout: Layout::Eip6800,
        bind_absences: false,
    };
    let export = work.join(format!("blocks-{}-{}.jsonl", kind.tree(), kind.hash()));
    let genesis = work.join("genesis.json");
    let t = Instant::now();
    let g = generate_binary(config, kind.binary(), &export, &genesis)?;
    let secs = t.elapsed().as_secs_f64();
    say(
        out,
        json,
        "gen",
        serde_json::json!({"tree": kind.tree(), "hash": kind.hash(), "accounts": args.accounts,
            "blocks": args.blocks, "keys_written": g.written, "genesis_seconds": g.genesis_s,
            "seconds": secs, "root": to_hex(&g.root)}),
        format!(
            "fverkle demo: synthetic chain of {} accounts, {} blocks, {} keys written (seed {}) on {}/{}; generated and proven in {secs:.1} s (genesis {:.1} s)",
            args.accounts, args.blocks, g.written, args.seed, kind.tree(), kind.hash(), g.genesis_s
        ),
    )?;
    let mut run = replay_binary(kind.binary(), &genesis, None, &[export], out, json, false)?;
    let mut summary = run.summary.clone();
    summary["tree"] = serde_json::json!(kind.tree());
    say(
        out,
        json,
        "replay",
        summary,
        format!("  in memory: {}", run.line),
    )?;
    let mut outcome = run.outcome;
    let root = run.state.root()?;
    if outcome == Outcome::Ok && root != g.root {
        outcome = Outcome::Invalid;
        roots_differ(out, json, "the replay and the generator")?;
    }
    if outcome == Outcome::Ok {
        let reads: Vec<(Vec<u8>, bintree::witness::Write)> = g
            .sample_keys
            .iter()
            .map(|k| (k.clone(), bintree::witness::Write::Unchanged))
            .collect();
        let t = Instant::now();
        let bytes = run.state.witness(&reads)?;
        let prove_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let verdict = chain::binary::replay::verify_witness(kind.binary(), &bytes, &root);
        let verify_ms = t.elapsed().as_secs_f64() * 1e3;
        let ok = verdict
            .as_ref()
            .is_ok_and(|(n, v)| *n == reads.len() && v.post_root == root);
        if !ok {
            outcome = Outcome::Invalid;
        }
        say(
            out,
            json,
            "prove",
            serde_json::json!({"tree": kind.tree(), "hash": kind.hash(), "keys": reads.len(),
                "witness_bytes": bytes.len(), "prove_ms": prove_ms, "verify_ms": verify_ms,
                "ok": ok, "root": to_hex(&root), "error": verdict.err().map(|e| e.to_string())}),
            format!(
                "  binary witness of {} keys against the final root ({} B): prove {prove_ms:.1} ms, verify {verify_ms:.1} ms: {}",
                reads.len(),
                bytes.len(),
                if ok { "valid" } else { "INVALID" }
            ),
        )?;
    }
    finish(out, json, outcome, start)
}

/// The demo's last line: its verdict and time since `start`; returns `outcome`.
fn finish(out: &mut dyn Write, json: bool, outcome: Outcome, start: Instant) -> Result<Outcome> {
    let secs = start.elapsed().as_secs_f64();
    say(
        out,
        json,
        "summary",
        serde_json::json!({"ok": outcome == Outcome::Ok, "seconds": secs}),
        format!(
            "fverkle demo: {} in {secs:.1} s",
            if outcome == Outcome::Ok {
                "every witness and root verified"
            } else {
                "MISMATCH"
            }
        ),
    )?;
    Ok(outcome)
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let start = Instant::now();
    let kind = Kind::of(args.tree, args.hash)?;
    let tmp;
    let work: PathBuf = match &args.workdir {
        Some(d) => {
            std::fs::create_dir_all(d)
                .with_context(|| format!("{}: cannot create", d.display()))?;
            d.clone()
        }
        None => {
            tmp = tempfile::Builder::new()
                .prefix("fverkle-demo-")
                .tempdir()
                .context("creating a temporary directory")?;
            tmp.path().to_path_buf()
        }
    };
    if let Some(kind) = kind {
        return run_binary(args, kind, &work, json, out);
    }
    let (genesis, blocks, layout, chain, keys): (
        PathBuf,
        Vec<PathBuf>,
        Layout,
        Chain,
        Vec<TreeKey>,
    ) = if args.kaustinen6 {
        let Some(v) = vectors_dir() else {
            bail!("../shared/vectors: not found (set FVERKLE_VECTORS); --kaustinen6 needs the Kaustinen6 chain vectors");
        };
        let genesis = v.join("genesis/devnet6_genesis.json");
        let chain = v.join("chain/kaustinen6_witness_chain_0001-0200.json");
        for p in [&genesis, &chain] {
            if !p.is_file() {
                bail!("{}: missing; --kaustinen6 reads it in place", p.display());
            }
        }
        say(
            out,
            json,
            "kaustinen6",
            serde_json::json!({"genesis": genesis.display().to_string(), "blocks": chain.display().to_string()}),
            format!(
                "fverkle demo: Kaustinen6 blocks 1..200 from {}",
                chain.display()
            ),
        )?;
        // The EIP-2935 history account's header (written since block 1) and an absent key.
        let history = verkle::keys::AccountKeys::new(&verkle::keys::address32(
            &chain::forks::HISTORY_ACCOUNT,
        ));
        let mut keys: Vec<TreeKey> = (0..4).map(|s| history.header_key(s)).collect();
        keys.push([0x42; 32]);
        (
            genesis,
            vec![chain],
            Layout::Legacy,
            Chain::Kaustinen6,
            keys,
        )
    } else {
        let config = SynthConfig {
            accounts: args.accounts,
            blocks: args.blocks,
            updates: args.updates,
            seed: args.seed,
            layout: Layout::Eip6800,
            bind_absences: false,
        };
        let export = work.join("blocks.jsonl");
        let genesis = work.join("genesis.json");
        let t = Instant::now();
        let g = generate(config, &export, &genesis)?;
        let (root, written, genesis_s) = (g.root, g.written, g.genesis_s);
        let secs = t.elapsed().as_secs_f64();
        say(
                out,
                json,
                "gen",
                serde_json::json!({"accounts": args.accounts, "blocks": args.blocks, "keys_written": written,
                    "genesis_seconds": genesis_s, "seconds": secs, "root": to_hex(&root)}),
                format!(
                    "fverkle demo: synthetic chain of {} accounts, {} blocks, {written} keys written (seed {}); generated and proven in {secs:.1} s (genesis {genesis_s:.1} s)",
                    args.accounts, args.blocks, args.seed
                ),
            )?;
        let keys = g.sample_keys;
        (genesis, vec![export], Layout::Eip6800, Chain::None, keys)
    };

    let mut outcome = Outcome::Ok;
    let mut runs: Vec<(Mode, ModeRun)> = Vec::new();
    for mode in [Mode::Single, Mode::Fractional] {
        let spec = GenesisSpec {
            path: genesis.clone(),
            layout,
            chain,
            mode,
        };
        let datadir = work.join(format!("datadir-{}", mode.name()));
        let dd = Some(datadir.as_path());
        let run = replay_mode(&spec, dd, &blocks, json, out)?;
        if run.outcome != Outcome::Ok {
            outcome = run.outcome;
        }
        runs.push((mode, run));
    }
    if let [(_, a), (_, b)] = runs.as_slice() {
        if a.root != b.root {
            outcome = Outcome::Invalid;
            roots_differ(out, json, "the two modes")?;
        }
    }
    if outcome == Outcome::Ok {
        for (mode, run) in runs.iter_mut() {
            if prove_and_verify(*mode, run.state.as_mut(), &keys, json, out)? != Outcome::Ok {
                outcome = Outcome::Invalid;
            }
        }
    }
    finish(out, json, outcome, start)
}
