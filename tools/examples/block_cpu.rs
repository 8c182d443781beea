//! CPU time and per-phase wall time of 10k-update blocks on an on-disk state, in the shape
//! of the `block 10k updates on 1M keys (rocksdb)` bench (same keys, same values):
//!
//! ```text
//! cargo run --release -p tools --example block_cpu -- DIR [blocks] [--compact] \
//!     [--block-cache MB | --cache-mb MB]
//! ```
//!
//! Without `--cache-mb` the node cache holds 200,000 nodes and RocksDB has its defaults;
//! `--cache-mb MB` splits MB MiB between them as `fverkle replay --cache-mb` does
//! (`RocksConfig::split_budget`). The last line gives the peak RSS (`VmHWM`).
//!
//! With `--compact` the database is first compacted (rewritten with the current RocksDB
//! options) and flushed, outside the measurement.
//!
//! The first block (cold caches) is reported apart. CPU time is user + system of the whole
//! process (all threads, RocksDB's included) from `/proc/self/stat`, in clock ticks of
//! 10 ms, so it stays meaningful on a loaded machine where wall time does not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

/// The `fverkle` binary's allocator, so that the memory figures are the binary's.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use verkle::store::{RocksConfig, RocksStore};
use verkle::{Tree, TreeConfig};

#[path = "../../verkle/benches/support/keys.rs"]
mod keys;
use keys::{cpu_ticks, state_keys, update_block};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).expect("usage: block_cpu DIR [blocks]");
    let blocks: u32 = args
        .get(2)
        .filter(|a| !a.starts_with("--"))
        .map_or(6, |b| b.parse().unwrap());
    let mut config = RocksConfig::default();
    if let Some(i) = args.iter().position(|a| a == "--block-cache") {
        let mb: usize = args.get(i + 1).expect("--block-cache MB").parse().unwrap();
        config.block_cache_bytes = mb << 20;
    }
    let mut tree_config = TreeConfig::nodes(200_000);
    if let Some(i) = args.iter().position(|a| a == "--cache-mb") {
        let mb: usize = args.get(i + 1).expect("--cache-mb MB").parse().unwrap();
        (tree_config, config) = RocksConfig::split_budget(mb << 20);
    }
    let store = RocksStore::open_with(dir, &config).unwrap();
    if args.iter().any(|a| a == "--compact") {
        let t = Instant::now();
        store.flush().unwrap();
        store.compact().unwrap();
        println!("compacted in {:?}", t.elapsed());
    }
    let mut tree = Tree::open_with(store, tree_config).unwrap();
    let mut height = tree.height().unwrap_or(0);
    let keys = state_keys(tree.store(), 1_000_000);
    // (cpu ticks, apply, commit, persist) of the warm blocks, ms.
    let mut warm = (0u64, 0f64, 0f64, 0f64);
    for b in 0..blocks {
        let round = height as u32 + 1;
        let writes = update_block(round, keys);
        height += 1;
        let loads0 = tree.stats().nodes_loaded;
        let c0 = cpu_ticks();
        let t0 = Instant::now();
        tree.apply(writes).unwrap();
        let t1 = Instant::now();
        tree.commit();
        let t2 = Instant::now();
        tree.persist_with(height, &[]).unwrap();
        let t3 = Instant::now();
        let cpu = cpu_ticks() - c0;
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        let (apply, commit, persist) = (ms(t0, t1), ms(t1, t2), ms(t2, t3));
        let stats = tree.stats();
        println!(
            "block {b}: cpu {} ms, wall {:.0} ms (apply {apply:.0}, commit {commit:.0}, persist {persist:.0}), {} nodes read, {} cached ({} MiB)",
            cpu * 10,
            ms(t0, t3),
            stats.nodes_loaded - loads0,
            stats.nodes_in_memory,
            tree.cache_bytes() >> 20
        );
        if b > 0 {
            warm.0 += cpu;
            warm.1 += apply;
            warm.2 += commit;
            warm.3 += persist;
        }
    }
    if blocks > 1 {
        let n = f64::from(blocks - 1);
        println!(
            "warm blocks: cpu {:.0} ms, apply {:.0} ms, commit {:.0} ms, persist {:.0} ms per block",
            warm.0 as f64 * 10.0 / n,
            warm.1 / n,
            warm.2 / n,
            warm.3 / n
        );
    }
    println!("RocksDB: {:?}", tree.store().memory());
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .unwrap_or("VmHWM: ?");
    println!("peak RSS {}", hwm.trim_start_matches("VmHWM:").trim());
}
