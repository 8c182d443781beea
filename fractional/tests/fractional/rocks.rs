//! The RocksDB-backed sharded tree: persist, reopen, keep going; roots equal the in-memory
//! tree's after every block.

use std::path::PathBuf;

use fractional::{ShardConfig, ShardDepth, ShardedTree};
use verkle::keys::TreeKey;

use crate::props::{key, stem_from};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fverkle-frac-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn block(n: u8) -> Vec<(TreeKey, Option<[u8; 32]>)> {
    (0..24u8)
        .filter(|s| !(s + n).is_multiple_of(3))
        .map(|s| {
            let v = (s % 5 != n % 5).then_some([s ^ n; 32]);
            (key(stem_from(s), n % 4), v)
        })
        .collect()
}

fn persist_reopen(depth: ShardDepth) {
    let dir = temp_dir(&format!("rocks-{depth:?}"));
    let config = ShardConfig {
        depth,
        ..ShardConfig::default()
    };
    let mut memory = ShardedTree::in_memory(config);
    let mut disk = ShardedTree::open(&dir, config).unwrap();
    assert_eq!(disk.height(), None);
    for n in 0..6u8 {
        let w = block(n);
        memory.apply(&w).unwrap();
        disk.apply(&w).unwrap();
        disk.persist(u64::from(n), &[(b"chain", b"test")]).unwrap();
        if n % 2 == 1 {
            drop(disk);
            disk = ShardedTree::open(&dir, config).unwrap();
            assert_eq!(disk.height(), Some(u64::from(n)));
        }
        assert_eq!(disk.canonical_root(), memory.canonical_root(), "block {n}");
        assert_eq!(
            disk.coordinator_root(),
            memory.coordinator_root(),
            "block {n}"
        );
        for (k, _) in &w {
            assert_eq!(disk.get(k).unwrap(), memory.get(k).unwrap());
        }
    }
    assert_eq!(disk.meta(b"chain").unwrap(), Some(b"test".to_vec()));
    let keys: Vec<TreeKey> = block(2).iter().map(|(k, _)| *k).collect();
    assert_eq!(
        disk.prove(&keys).unwrap().to_ssz().unwrap(),
        memory.prove(&keys).unwrap().to_ssz().unwrap()
    );
    drop(disk);
    let other = ShardConfig {
        depth: match depth {
            ShardDepth::One => ShardDepth::Two,
            ShardDepth::Two => ShardDepth::One,
        },
        ..config
    };
    assert!(matches!(
        ShardedTree::open(&dir, other),
        Err(fractional::FractionalError::DepthMismatch { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn persist_and_reopen_depth_1() {
    persist_reopen(ShardDepth::One);
}

#[test]
fn persist_and_reopen_depth_2() {
    persist_reopen(ShardDepth::Two);
}

/// Many blocks of many keys into a store-backed tree with a small budget: after every
/// persist the shards together hold at most `cache_nodes` nodes, and the roots still equal
/// the in-memory tree's (evicted nodes are read back when a block reaches them).
#[test]
fn node_cache_stays_within_budget() {
    let config = ShardConfig {
        depth: ShardDepth::One,
        cache_nodes: 256 * 4,
        cache_bytes: usize::MAX,
    };
    assert_eq!(config.shard_cache_nodes(), 4);
    bounded_run("budget", config, |t| t.cached_nodes() <= config.cache_nodes);
}

#[test]
fn byte_budget_stays_within_budget() {
    let config = ShardConfig {
        depth: ShardDepth::One,
        cache_nodes: usize::MAX,
        cache_bytes: 256 * 4_000,
    };
    assert_eq!(config.shard_cache_bytes(), 4_000);
    bounded_run("bytes", config, |t| t.cached_bytes() <= config.cache_bytes);
}

/// Twelve blocks into a store-backed tree bounded by `config` beside one in memory:
/// `within(tree)` after every persist, the same roots, values and proofs.
fn bounded_run(name: &str, config: ShardConfig, within: impl Fn(&ShardedTree) -> bool) {
    let dir = temp_dir(name);
    let mut memory = ShardedTree::in_memory(config);
    let mut disk = ShardedTree::open(&dir, config).unwrap();
    let key_of = |i: u32| -> TreeKey {
        let mut k = [0u8; 32];
        for (j, b) in k.iter_mut().enumerate() {
            *b = (i.wrapping_mul(2_654_435_761).rotate_left(j as u32 % 32) >> (j % 4 * 8)) as u8;
        }
        k
    };
    let mut peak_unpersisted = 0;
    for n in 0..12u32 {
        let w: Vec<(TreeKey, Option<[u8; 32]>)> = (0..400u32)
            .map(|i| (key_of(i * 7 + n * 131), Some([n as u8 + 1; 32])))
            .collect();
        memory.apply(&w).unwrap();
        disk.apply(&w).unwrap();
        peak_unpersisted = peak_unpersisted.max(disk.cached_nodes());
        disk.persist(u64::from(n), &[]).unwrap();
        assert!(
            within(&disk),
            "block {n}: {} nodes, {} bytes cached, budget {config:?}",
            disk.cached_nodes(),
            disk.cached_bytes()
        );
        assert_eq!(disk.canonical_root(), memory.canonical_root(), "block {n}");
        assert_eq!(disk.coordinator_root(), memory.coordinator_root());
    }
    // The blocks did load more than the budget between persists: eviction did something.
    assert!(peak_unpersisted > 256 * 4, "{peak_unpersisted}");
    for i in (0..400u32).step_by(37) {
        let k = key_of(i * 7);
        assert_eq!(disk.get(&k).unwrap(), memory.get(&k).unwrap());
    }
    let keys: Vec<TreeKey> = (0..50u32).map(|i| key_of(i * 7)).collect();
    assert_eq!(
        disk.prove(&keys).unwrap().to_ssz().unwrap(),
        memory.prove(&keys).unwrap().to_ssz().unwrap()
    );
    drop(disk);
    let _ = std::fs::remove_dir_all(&dir);
}
