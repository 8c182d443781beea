//! `fverkle`: verify Verkle execution witnesses against state roots and compute tree roots.
//!
//! Exit codes: 0 success or a valid verdict; 1 a verdict of invalid or a root mismatch;
//! 2 a usage, input or I/O error. Results go to stdout (`--json`: JSON Lines), logs to
//! stderr. A closed stdout (broken pipe) ends the run with 0.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod args;
mod cmd;
mod outcome;
mod progress;

use outcome::Outcome;

/// jemalloc on x86-64 Linux: a replay interleaves RocksDB's allocations (memtables, blocks,
/// write batches) with the tree's, and glibc's allocator keeps more of the freed memory
/// resident (`BENCHMARKS.md`, memory).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Stateless verifier with a fractional Verkle tree core.
#[derive(Parser, Debug)]
#[command(name = "fverkle", version, about, long_about = None)]
struct Cli {
    /// Print results as JSON Lines.
    #[arg(long, global = true)]
    json: bool,
    /// Log more (-v debug, -vv trace); logs (info by default) go to stderr.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Verify an execution witness against a pre-state root.
    Verify(cmd::verify::Args),
    /// Apply `key,value` CSV files in order to one tree (Verkle, EIP-8297 or EIP-7864);
    /// print the root after each.
    Root(cmd::root::Args),
    /// Print the state root of a genesis file; with `--datadir`, write that state.
    Genesis(cmd::genesis::Args),
    /// Replay exported blocks: verify each witness, check pre-values, apply, compare roots.
    Replay(cmd::replay::Args),
    /// Write a synthetic, mainnet-like block export (and its genesis) with our prover.
    Gen(cmd::gen::Args),
    /// Write a witness for keys against a datadir's current state or a state given as CSV files.
    Prove(cmd::prove::Args),
    /// The main job: generate a synthetic chain, replay it, prove and verify; print timings.
    Demo(cmd::demo::Args),
    /// Conformance vectors: `gen OUT_DIR` writes our suite, `check PATH...` checks files.
    Vectors(cmd::vectors::Args),
}

/// Whether logs are coloured: only on a terminal, and not when `NO_COLOR` is set to
/// anything but the empty string (<https://no-color.org>).
fn colour_logs() -> bool {
    use std::io::IsTerminal;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && std::io::stderr().is_terminal()
}

fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("FVERKLE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_logs())
        .with_target(false)
        .try_init();
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_logging(cli.verbose);
    // The field backend is chosen by the program, never read from the environment by the
    // libraries: these two switches force the portable paths (for comparisons and tests).
    let on = |name: &str| std::env::var_os(name).is_some_and(|v| v != "0");
    if on("FVERKLE_PORTABLE_FIELD") {
        banderwagon::use_portable_field(true);
    }
    if on("FVERKLE_NO_LANES") {
        banderwagon::use_lanes(false);
    }
    let mut out = std::io::stdout().lock();
    let result = match &cli.command {
        Command::Verify(args) => cmd::verify::run(args, cli.json, &mut out),
        Command::Root(args) => cmd::root::run(args, cli.json, &mut out),
        Command::Genesis(args) => cmd::genesis::run(args, cli.json, &mut out),
        Command::Replay(args) => cmd::replay::run(args, cli.json, &mut out),
        Command::Gen(args) => cmd::gen::run(args, cli.json, &mut out),
        Command::Prove(args) => cmd::prove::run(args, cli.json, &mut out),
        Command::Demo(args) => cmd::demo::run(args, cli.json, &mut out),
        Command::Vectors(args) => cmd::vectors::run(args, cli.json, &mut out),
    };
    let flushed = out.flush();
    match result {
        Ok(Outcome::Ok) => match flushed {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("fverkle: error: writing stdout: {e}");
                ExitCode::from(2)
            }
            _ => ExitCode::SUCCESS,
        },
        Ok(Outcome::Invalid) => ExitCode::from(1),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fverkle: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
