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
        .filter(|s| (s + n) % 3 != 0)
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
