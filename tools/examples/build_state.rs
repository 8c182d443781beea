//! Builds an on-disk state of N keys in batches and reports time and peak memory.
//!
//! ```text
//! cargo run --release -p tools --example build_state -- --keys 1000000 --datadir DIR \
//!     [--batch 100000] [--cache-nodes N | --cache-mb M]
//! ```
//!
//! `--cache-mb M` is `fverkle replay --cache-mb`: M MiB for the node cache and RocksDB
//! together (`RocksConfig::split_budget`); `--cache-nodes N`: N nodes, RocksDB's defaults.
//!
//! ```text
//! ```
//!
//! Keys are rust-verkle's initial keys, `SHA-256(u32_be(i) ‖ 28 zero bytes ‖ "seed")`, value =
//! key. Each batch is applied, committed and written as one RocksDB write batch at height =
//! batch number, then the node cache is trimmed to its budget. Peak RSS is the kernel's
//! high-water mark (`VmHWM` in `/proc/self/status`, what `getrusage` reports as `ru_maxrss`).
#![allow(clippy::unwrap_used)]

use std::time::Instant;

/// The `fverkle` binary's allocator, so that the memory figures are the binary's.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use verkle::store::{RocksConfig, RocksStore};
use verkle::{Tree, TreeConfig};

#[path = "../../verkle/benches/support/keys.rs"]
mod keys;
use keys::{initial_key, STATE_KEYS_META};

/// `VmRSS` and `VmHWM` in MiB (Linux).
fn rss_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn usage() -> ! {
    eprintln!(
        "usage: build_state --keys N --datadir DIR [--batch N] [--cache-nodes N | --cache-mb M]"
    );
    std::process::exit(2)
}

fn main() {
    let mut keys: u32 = 1_000_000;
    let mut batch: u32 = 100_000;
    let mut config = TreeConfig::default();
    let mut rocks = RocksConfig::default();
    let mut datadir: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--keys" => keys = value().parse().unwrap_or_else(|_| usage()),
            "--batch" => batch = value().parse().unwrap_or_else(|_| usage()),
            "--cache-nodes" => {
                config = TreeConfig::nodes(value().parse().unwrap_or_else(|_| usage()))
            }
            "--cache-mb" => {
                let mb: usize = value().parse().unwrap_or_else(|_| usage());
                (config, rocks) = RocksConfig::split_budget(mb << 20);
            }
            "--datadir" => datadir = Some(value()),
            _ => usage(),
        }
    }
    let Some(datadir) = datadir else { usage() };
    let batch = batch.max(1);
    let store = RocksStore::open_with(&datadir, &rocks).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut tree = Tree::open_with(store, config).unwrap();
    if tree.height().is_some() {
        eprintln!("{datadir} already holds a state; give an empty directory");
        std::process::exit(1);
    }
    let start = Instant::now();
    let mut done = 0u32;
    let mut height = 0u64;
    while done < keys {
        let end = keys.min(done.saturating_add(batch));
        let t = Instant::now();
        tree.apply((done..end).map(|i| {
            let k = initial_key(i);
            (k, Some(k))
        }))
        .unwrap();
        height += 1;
        tree.persist_with(height, &[(STATE_KEYS_META, &end.to_be_bytes())])
            .unwrap();
        done = end;
        let (rss, hwm) = rss_mib();
        let s = tree.stats();
        println!(
            "{{\"keys\":{done},\"batch_ms\":{},\"nodes_in_memory\":{},\"cache_mib\":{:.0},\"nodes_loaded\":{},\"rss_mib\":{rss:.0},\"peak_rss_mib\":{hwm:.0}}}",
            t.elapsed().as_millis(),
            s.nodes_in_memory,
            tree.cache_bytes() as f64 / (1 << 20) as f64,
            s.nodes_loaded,
        );
    }
    let root = tree.root_bytes();
    eprintln!("RocksDB: {:?}", tree.store().memory());
    let (_, hwm) = rss_mib();
    println!(
        "{{\"keys\":{keys},\"root\":\"0x{}\",\"total_s\":{:.1},\"peak_rss_mib\":{hwm:.0},\"cache_nodes\":{},\"cache_bytes\":{}}}",
        hex::encode(root),
        start.elapsed().as_secs_f64(),
        config.cache_nodes,
        config.cache_bytes,
    );
}
