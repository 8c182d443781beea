//! The binary datadir beside the in-memory tree: a 1M-key state of 250k random stems × 4
//! values, written in blocks of 100k keys, then 10 blocks of 10k updates to random keys of it,
//! each applied, hashed and (in the datadir) persisted. Prints each update block's time (in the
//! datadir, its phases) and the mean; run one process per variant for its peak RSS
//! (`/usr/bin/time -v`).
//!
//! ```text
//! cargo run --release -p chain --example binary_datadir -- [datadir|memory] [NODES] [eip7864|eip8297]
//! ```
//!
//! `NODES` is the datadir's node budget (default: `BinaryConfig::default()`, 262,144 nodes; `-`
//! keeps the default when a tree follows). The tree is EIP-7864 over SHA-256 by default, a key
//! being `stem[..31] ‖ sub-index`; `eip8297` takes the same stems as account addresses and their
//! header keys (`0x00 ‖ BLAKE3(stem) ‖ sub-index`, 34 bytes, as the synthetic chain embeds
//! accounts), and makes every tenth update a deletion (of a key present or already deleted; a
//! later update of a deleted key inserts it again). Sub-indices 0, 1, 64 and 65: basic data,
//! code hash and storage slots 0 and 1.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bintree::witness::Write;
use bintree::{eip7864, eip8297, Blake3, Sha256};
use chain::binary::rocks::{BinaryConfig, RocksBinaryState};
use chain::binary::{BinaryKind, BinaryState};
use chain::synth::Rng;

/// Where the state lives.
enum Store {
    Memory7864(eip7864::Tree<Sha256>),
    Memory8297(eip8297::Tree<Blake3>),
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
            Store::Memory7864(tree) => {
                tree.apply(writes.iter().filter_map(|(k, w)| match w {
                    Write::Set(v) => Some((k, *v)),
                    _ => None,
                }))?;
                let root = tree.root();
                Ok((root, start.elapsed()))
            }
            Store::Memory8297(tree) => {
                tree.apply(writes.iter().filter_map(|(k, w)| match w {
                    Write::Set(v) => Some((k, Some(*v))),
                    Write::Delete => Some((k, None)),
                    Write::Unchanged => None,
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
    let budget: Option<usize> = match args.next().as_deref() {
        None | Some("-") => None,
        Some(n) => Some(n.parse().context("NODES: a node count or -")?),
    };
    let kind = match args.next().as_deref() {
        None | Some("eip7864") => BinaryKind::Eip7864Sha256,
        Some("eip8297") => BinaryKind::Eip8297,
        Some(other) => bail!("{other}: expected eip7864 or eip8297"),
    };
    let eip8297 = kind == BinaryKind::Eip8297;
    let dir = tempfile::tempdir()?;
    let mut store = match (variant.as_str(), eip8297) {
        ("memory", false) => Store::Memory7864(eip7864::Tree::new()),
        ("memory", true) => Store::Memory8297(eip8297::Tree::new()),
        ("datadir", _) => {
            let mut config = BinaryConfig::default();
            if let Some(n) = budget {
                config.cache_nodes = n;
            }
            Store::Datadir(Box::new(RocksBinaryState::open_with(
                dir.path(),
                kind,
                config,
            )?))
        }
        (other, _) => bail!("{other}: expected datadir or memory"),
    };
    let mut rng = Rng(1_000_000);
    let stems: Vec<[u8; 32]> = (0..250_000).map(|_| rng.bytes32()).collect();
    let key = |stem: &[u8; 32], sub: u8| {
        if eip8297 {
            return eip8297::keys::header_key::<Blake3>(stem, sub).to_vec();
        }
        let mut k = stem.to_vec();
        k[31] = sub;
        k
    };
    // EIP-8297 values are never zero (a zero value is a deletion in the embedding).
    let value = |sub: u8| if eip8297 { [sub | 0x80; 32] } else { [sub; 32] };
    let all: Vec<(Vec<u8>, Write)> = stems
        .iter()
        .flat_map(|stem| [0u8, 1, 64, 65].map(|sub| (key(stem, sub), Write::Set(value(sub)))))
        .collect();
    let start = Instant::now();
    for (i, chunk) in all.chunks(100_000).enumerate() {
        store.block(i as u64, chunk, false)?;
    }
    println!(
        "{variant} {}: built 1M keys in {:?}",
        kind.tree(),
        start.elapsed()
    );
    let mut times = Vec::new();
    for height in 10..20 {
        let writes: Vec<(Vec<u8>, Write)> = (0..10_000)
            .map(|i| {
                let stem = &stems[rng.below(stems.len())];
                let sub = [0u8, 1, 64, 65][rng.below(4)];
                let write = if eip8297 && i % 10 == 9 {
                    Write::Delete
                } else {
                    Write::Set(rng.bytes32())
                };
                (key(stem, sub), write)
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
