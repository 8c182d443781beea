//! CPU time (user + system, from `/proc/self/stat`) of applying 10k-update blocks to the
//! bench states (`benches/fractional.rs` builds them): `apply_cpu <sharded|single> <dir>
//! <keys> [blocks] [warm-up blocks] [--pread] [--memtable-mib=N]`. For A/B comparisons on a
//! loaded machine, where wall-clock is noisy. The first `warm-up blocks` (default 0) fill the
//! node cache and are left out of the figures.
//!
//! Each run writes its blocks into the state, and the next run starts with the flushes and
//! compactions those blocks left pending: back-to-back runs alternate between fast and slow
//! by 20–35 %, whatever the binary. Compare variants on fresh copies of one saved state, one
//! copy per run, with enough blocks (40) for flushes and compactions to happen inside the
//! run.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use sha2::{Digest, Sha256};
use verkle::store::{RocksConfig, RocksStore};
use verkle::{Tree, TreeConfig};

fn initial_key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

fn block(round: u64, n: u32) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    let r = round as u32;
    (0..10_000u32)
        .map(|i| {
            let j = (r.wrapping_mul(10_000).wrapping_add(i)).wrapping_mul(97) % n;
            let mut v = initial_key(j);
            v[..8].copy_from_slice(&round.to_be_bytes());
            (initial_key(j), Some(v))
        })
        .collect()
}

/// The numeric fields after the name of a `/proc/.../stat` file (the state is field 3, so
/// field `n` is at `n − 3`; a non-numeric field reads as 0).
fn stat_fields(path: &std::path::Path) -> Option<Vec<u64>> {
    let s = std::fs::read_to_string(path).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    Some(rest.split(' ').map(|f| f.parse().unwrap_or(0)).collect())
}

/// Minor page faults of the process so far.
fn minor_faults() -> u64 {
    stat_fields("/proc/self/stat".as_ref()).unwrap()[10 - 3]
}

/// User + system CPU time of the process so far, in clock ticks (1/100 s).
fn cpu_ticks() -> u64 {
    let f = stat_fields("/proc/self/stat".as_ref()).unwrap();
    f[14 - 3] + f[15 - 3]
}

fn main() {
    field_env::field_backend_from_env();
    let all: Vec<String> = std::env::args().collect();
    let args: Vec<String> = all
        .iter()
        .filter(|a| !a.starts_with("--"))
        .cloned()
        .collect();
    let mode = args.get(1).expect("mode").clone();
    let dir = std::path::PathBuf::from(args.get(2).expect("dir"));
    let n: u32 = args.get(3).expect("keys").parse().unwrap();
    let blocks: u64 = args.get(4).map_or(3, |b| b.parse().unwrap());
    let warm: u64 = args.get(5).map_or(0, |b| b.parse().unwrap());
    let cache = 200_000;
    // As the bench opens them (`--pread`: without memory-mapped reads).
    let mut rocks = RocksConfig {
        mmap_reads: !all.iter().any(|a| a == "--pread"),
        ..RocksConfig::default()
    };
    if let Some(m) = all.iter().find_map(|a| a.strip_prefix("--memtable-mib=")) {
        rocks.write_buffer_bytes = m.parse::<usize>().unwrap() << 20;
    }
    let mut spent = 0u64;
    let mut faults = 0u64;
    if mode == "sharded" {
        let config = fractional::ShardConfig {
            cache_nodes: cache,
            ..fractional::ShardConfig::default()
        };
        let mut t =
            fractional::ShardedTree::open_with(&dir.join("sharded"), config, &rocks).unwrap();
        // Sums of the report's phases (wall, µs) and of the persists.
        let mut phases = [0u64; 5];
        for _ in 0..warm {
            let h = t.height().unwrap_or(0) + 1;
            t.apply(&block(h, n)).unwrap();
            t.persist(h, &[]).unwrap();
        }
        for _ in 0..blocks {
            let h = t.height().unwrap_or(0) + 1;
            let w = block(h, n);
            let c = cpu_ticks();
            let f = minor_faults();
            let r = t.apply(&w).unwrap();
            spent += cpu_ticks() - c;
            faults += minor_faults() - f;
            eprintln!("{r:?}");
            let p = std::time::Instant::now();
            t.persist(h, &[]).unwrap();
            let persist_us = p.elapsed().as_micros() as u64;
            for (s, v) in phases.iter_mut().zip([
                r.partition_us,
                r.update_us,
                r.commit_us,
                r.canonical_us + r.coordinator_us,
                persist_us,
            ]) {
                *s += v;
            }
        }
        let ms = |us: u64| us as f64 / 1e3 / blocks as f64;
        println!(
            "sharded wall per block: apply {:.1} ms (partition {:.1}, update {:.1}, commit {:.1}, roots {:.1}), persist {:.1} ms",
            ms(phases[0] + phases[1] + phases[2] + phases[3]),
            ms(phases[0]),
            ms(phases[1]),
            ms(phases[2]),
            ms(phases[3]),
            ms(phases[4])
        );
    } else {
        let mut t = Tree::open_with(
            RocksStore::open_with(dir.join("single"), &rocks).unwrap(),
            TreeConfig::nodes(cache),
        )
        .unwrap();
        for _ in 0..warm {
            let h = t.height().unwrap_or(0) + 1;
            t.apply(block(h, n)).unwrap();
            t.commit();
            t.persist_with(h, &[]).unwrap();
        }
        let mut wall = std::time::Duration::ZERO;
        for _ in 0..blocks {
            let h = t.height().unwrap_or(0) + 1;
            let w = block(h, n);
            let c = cpu_ticks();
            let s = std::time::Instant::now();
            t.apply(w).unwrap();
            t.commit();
            wall += s.elapsed();
            spent += cpu_ticks() - c;
            t.persist_with(h, &[]).unwrap();
        }
        println!(
            "single wall per block: apply+commit {:.1} ms",
            wall.as_secs_f64() * 1e3 / blocks as f64
        );
    }
    println!(
        "{mode}: {blocks} blocks, {} ms CPU per block, {} minor page faults per apply",
        spent * 10 / blocks,
        faults / blocks
    );
    println!(
        "CPU per thread name over the whole run (ms): {}",
        thread_cpu()
    );
}

/// User + system CPU of the process's threads, summed by thread name, in ms.
fn thread_cpu() -> String {
    let mut by_name: std::collections::BTreeMap<String, u64> = Default::default();
    for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let (Ok(name), Some(f)) = (
            std::fs::read_to_string(t.path().join("comm")),
            stat_fields(&t.path().join("stat")),
        ) else {
            continue;
        };
        let name: String = name
            .trim_end()
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .into();
        *by_name.entry(name).or_default() += (f[14 - 3] + f[15 - 3]) * 10;
    }
    by_name
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
