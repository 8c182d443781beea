//! The binary datadir beside the in-memory tree: a 1M-key EIP-7864 (SHA-256) state of 250k
//! random stems × 4 values, written in blocks of 100k keys, then 10 blocks of 10k updates to
//! random keys of it, each applied, hashed and (in the datadir) persisted. Prints each update
//! block's time (in the datadir, its phases) and the mean; run one process per variant for its
//! peak RSS (`/usr/bin/time -v`).
//!
//! ```text
//! cargo run --release -p chain --example binary_datadir -- [datadir|memory] [NODES]
//! ```
//!
//! `NODES` is the datadir's node budget (default: `BinaryConfig::default()`, 262,144 nodes).

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bintree::witness::Write;
use bintree::{eip7864, Sha256};
use chain::binary::rocks::{BinaryConfig, RocksBinaryState};
use chain::binary::{BinaryKind, BinaryState};
use chain::synth::Rng;

/// Where the state lives.
enum Store {
    Memory(eip7864::Tree<Sha256>),
    Datadir(Box<RocksBinaryState>),
}

impl Store {
    /// Applies a block, hashes it and, in the datadir, persists it at `height`; returns the
    /// root and the time taken (the report, printed after, is not in it).
    fn block(
        &mut self,
        height: u64,
        writes: &[(Vec<u8>, Write)],
        report: bool,
    ) -> Result<([u8; 32], Duration)> {
        let start = Instant::now();
        match self {
            Store::Memory(tree) => {
                tree.apply(writes.iter().filter_map(|(k, w)| match w {
                    Write::Set(v) => Some((k, *v)),
                    _ => None,
                }))?;
                let root = tree.root();
                Ok((root, start.elapsed()))
            }
            Store::Datadir(state) => {
                state.apply(writes)?;
                let applied = start.elapsed();
                let root = state.root()?;
                let hashed = start.elapsed();
                state.persist(height, &[])?;
                let took = start.elapsed();
                if report {
                    println!(
                        "  apply (loads included) {applied:?}, root {:?}, persist {:?}, {} nodes kept",
                        hashed - applied,
                        took - hashed,
                        state.loaded_nodes()
                    );
                }
                Ok((root, took))
            }
        }
    }
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let variant = args.next().unwrap_or_else(|| "datadir".into());
    let budget: Option<usize> = match args.next() {
        Some(n) => Some(n.parse().context("NODES: a node count")?),
        None => None,
    };
    let dir = tempfile::tempdir()?;
    let mut store = match variant.as_str() {
        "memory" => Store::Memory(eip7864::Tree::new()),
        "datadir" => {
            let mut config = BinaryConfig::default();
            if let Some(n) = budget {
                config.cache_nodes = n;
            }
            Store::Datadir(Box::new(RocksBinaryState::open_with(
                dir.path(),
                BinaryKind::Eip7864Sha256,
                config,
            )?))
        }
        other => bail!("{other}: expected datadir or memory"),
    };
    let mut rng = Rng(1_000_000);
    let stems: Vec<[u8; 32]> = (0..250_000).map(|_| rng.bytes32()).collect();
    let key = |stem: &[u8; 32], sub: u8| {
        let mut k = stem.to_vec();
        k[31] = sub;
        k
    };
    let all: Vec<(Vec<u8>, Write)> = stems
        .iter()
        .flat_map(|stem| [0u8, 1, 64, 65].map(|sub| (key(stem, sub), Write::Set([sub; 32]))))
        .collect();
    let start = Instant::now();
    for (i, chunk) in all.chunks(100_000).enumerate() {
        store.block(i as u64, chunk, false)?;
    }
    println!("{variant}: built 1M keys in {:?}", start.elapsed());
    let mut times = Vec::new();
    for height in 10..20 {
        let writes: Vec<(Vec<u8>, Write)> = (0..10_000)
            .map(|_| {
                let stem = &stems[rng.below(stems.len())];
                let sub = [0u8, 1, 64, 65][rng.below(4)];
                (key(stem, sub), Write::Set(rng.bytes32()))
            })
            .collect();
        let (root, took) = store.block(height, &writes, true)?;
        times.push(took);
        println!("block {height}: {took:?}, root {}", hex::encode(&root[..4]));
    }
    let total: Duration = times.iter().sum();
    times.sort();
    println!(
        "{variant}: mean per block {:?}, median {:?}",
        total / 10,
        times[times.len() / 2]
    );
    Ok(())
}
