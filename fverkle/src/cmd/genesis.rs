//! `fverkle genesis --layout legacy|eip6800 GENESIS.json`: print the genesis state root.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use verkle::Tree;

use chain::hexarg::to_hex;

use crate::args::{ChainArg, LayoutArg};
use crate::outcome::Outcome;

/// Arguments of `fverkle genesis`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Account layout of the chain.
    #[arg(long, value_enum)]
    layout: LayoutArg,
    /// A geth genesis file (with `alloc`) or a bare alloc object.
    genesis: PathBuf,
    /// Write the genesis state here (height 0), for `replay` and `prove` to continue from.
    #[arg(long)]
    datadir: Option<PathBuf>,
    /// Memory for the datadir's caches, in MiB: half for the tree's node cache, half for
    /// RocksDB (see `replay --cache-mb`).
    #[arg(long, value_name = "MIB", requires = "datadir", value_parser = clap::value_parser!(u32).range(1..))]
    cache_mb: Option<u32>,
    /// The chain rule set recorded in the datadir (see `replay --chain`).
    #[arg(long, value_enum, default_value = "none", requires = "datadir")]
    chain: ChainArg,
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    if let Some(dir) = &args.datadir {
        return run_datadir(args, dir, json, out);
    }
    let name = args.genesis.display().to_string();
    let t = Instant::now();
    // Plain, gzip or zstd.
    let file = chain::input::open(&args.genesis)?;
    // Streamed a batch of accounts at a time: the file is never held whole (the tree is,
    // in memory; `--datadir` bounds that too).
    let mut tree = Tree::new();
    let counts = genesis::stream_genesis_leaves(
        file,
        args.layout.into(),
        &name,
        genesis::STREAM_BATCH_ACCOUNTS,
        |leaves: Vec<(verkle::keys::TreeKey, verkle::keys::Value)>| -> Result<()> {
            tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
                .with_context(|| format!("{name}: building the genesis tree"))
        },
    )?;
    let count = counts.leaves;
    let root = tree.root_bytes();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if json {
        let line =
            serde_json::json!({"file": name, "leaves": count, "root": to_hex(&root), "ms": ms});
        writeln!(out, "{line}")?;
    } else {
        writeln!(out, "{}", to_hex(&root))?;
    }
    Ok(Outcome::Ok)
}

/// `--datadir`: writes the genesis state (or checks the one already there).
fn run_datadir(
    args: &Args,
    dir: &std::path::Path,
    json: bool,
    out: &mut impl Write,
) -> Result<Outcome> {
    use chain::datadir::open_state_with;
    use chain::genesis::{init_genesis, GenesisSpec};
    use chain::state::Mode;
    let cache_mb = args.cache_mb.map(|mb| mb as usize);
    let mut state = open_state_with(Some(dir), Mode::Single, cache_mb)?;
    let spec = GenesisSpec {
        path: args.genesis.clone(),
        layout: args.layout.into(),
        chain: args.chain.into(),
        mode: Mode::Single,
    };
    let g = init_genesis(state.as_mut(), &spec, &dir.display().to_string())?;
    if json {
        let line = serde_json::json!({
            "file": args.genesis.display().to_string(),
            "datadir": dir.display().to_string(),
            "leaves": g.leaves,
            "written": g.written,
            "height": state.height(),
            "root": to_hex(&g.root),
            "ms": g.ms,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(out, "{}", to_hex(&g.root))?;
    }
    Ok(Outcome::Ok)
}
