//! Persistence through the `NodeStore` trait: reopen, lazy loading, canonical records,
//! typed errors for corrupt records.

use std::collections::BTreeMap;

use genesis::parse_leaf_csv;
use verkle::keys::{TreeKey, Value};
use verkle::store::{MemoryStore, NodeBatch, NodePath, NodeStore};
use verkle::{Tree, TreeConfig, TreeError};

use crate::common::{read_text, tree_of};

fn devnet6() -> Vec<(TreeKey, Value)> {
    parse_leaf_csv(&read_text("genesis/gen-devnet-6.csv"), "gen-devnet-6.csv").unwrap()
}

fn records(s: &MemoryStore) -> BTreeMap<NodePath, Vec<u8>> {
    s.records().map(|(p, v)| (*p, v.clone())).collect()
}

#[test]
fn persist_reopen_mutate_matches_fresh_tree() {
    let leaves = devnet6();
    let mut t = tree_of(&leaves);
    let root = t.root_bytes();
    t.persist().unwrap();
    let store = t.into_store();
    assert!(store.len() > leaves.len() / 10);

    // Reopen: only the root is read.
    let mut t = Tree::open(store).unwrap();
    assert_eq!(t.stats().nodes_in_memory, 1);
    assert_eq!(t.root_bytes(), root);
    for (k, v) in leaves.iter().step_by(97) {
        assert_eq!(t.get(k).unwrap(), Some(*v));
    }
    assert_eq!(t.stats().nodes_in_memory, 1, "reads do not cache");

    // Mutate a lazily loaded tree: updates, new stems, whole stems deleted (collapses).
    let mut model: BTreeMap<TreeKey, Value> = leaves.iter().copied().collect();
    let stems: Vec<[u8; 31]> = {
        let mut s: Vec<[u8; 31]> = leaves
            .iter()
            .map(|(k, _)| k[..31].try_into().unwrap())
            .collect();
        s.dedup();
        s
    };
    let mut writes: Vec<(TreeKey, Option<Value>)> = Vec::new();
    for stem in stems.iter().step_by(5) {
        for (k, _) in model.range(key(stem, 0)..=key(stem, 255)) {
            writes.push((*k, None));
        }
    }
    for (i, (k, _)) in leaves.iter().enumerate().step_by(13) {
        writes.push((*k, Some([i as u8; 32])));
    }
    for i in 0..40u8 {
        let mut k = leaves[usize::from(i) * 7].0;
        k[20] ^= 0x55; // a new stem sharing a 20-byte prefix with an existing one
        writes.push((k, Some([i; 32])));
    }
    for (k, v) in &writes {
        match v {
            Some(v) => model.insert(*k, *v),
            None => model.remove(k),
        };
    }
    t.apply(writes).unwrap();
    let final_leaves: Vec<(TreeKey, Value)> = model.iter().map(|(k, v)| (*k, *v)).collect();
    let mut fresh = tree_of(&final_leaves);
    assert_eq!(t.root_bytes(), fresh.root_bytes());
    assert!(t.stats().nodes_loaded > 0);

    // Persist again: the store equals the one a fresh tree of the final set writes.
    t.persist().unwrap();
    fresh.persist().unwrap();
    let got = records(t.store());
    let want = records(fresh.store());
    assert_eq!(got.len(), want.len(), "record count");
    assert!(got == want, "stored records differ from a fresh tree's");

    // And it reopens at the same root.
    let root = t.root_bytes();
    let mut again = Tree::open(t.into_store()).unwrap();
    assert_eq!(again.root_bytes(), root);
}

fn key(stem: &[u8; 31], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = suffix;
    k
}

#[test]
fn empty_store_opens_empty_tree() {
    let mut t = Tree::open(MemoryStore::new()).unwrap();
    assert_eq!(t.root_bytes(), [0u8; 32]);
    // A tree emptied by deletes persists an empty root.
    let mut t = tree_of(&[([1u8; 32], [2u8; 32])]);
    t.persist().unwrap();
    t.delete(&[1u8; 32]).unwrap();
    t.persist().unwrap();
    assert_eq!(t.store().len(), 1);
    let mut t = Tree::open(t.into_store()).unwrap();
    assert_eq!(t.root_bytes(), [0u8; 32]);
}

#[test]
fn corrupt_records_are_typed_errors() {
    let mut t = tree_of(&[([1u8; 32], [2u8; 32]), ([3u8; 32], [4u8; 32])]);
    t.persist().unwrap();
    let mut store = t.into_store();
    let leaf_path = NodePath::new(&[1]).unwrap();
    store
        .write(NodeBatch {
            puts: vec![(leaf_path, vec![2, 0, 0])],
            deletes: vec![],
            meta: vec![],
        })
        .unwrap();
    let t = Tree::open(store).unwrap();
    match t.get(&[1u8; 32]) {
        Err(TreeError::CorruptNode { path, .. }) => assert_eq!(path, leaf_path),
        other => panic!("expected CorruptNode, got {other:?}"),
    }
    // The other subtree still reads.
    assert_eq!(t.get(&[3u8; 32]).unwrap(), Some([4u8; 32]));

    // A missing child record.
    let mut store = t.into_store();
    store
        .write(NodeBatch {
            puts: vec![],
            deletes: vec![leaf_path],
            meta: vec![],
        })
        .unwrap();
    let mut t = Tree::open(store).unwrap();
    assert!(matches!(
        t.insert(&[1u8; 32], [9u8; 32]),
        Err(TreeError::MissingNode { path }) if path == leaf_path
    ));

    // A root record that is a leaf.
    let mut store = MemoryStore::new();
    let mut one = tree_of(&[([1u8; 32], [2u8; 32])]);
    one.persist().unwrap();
    let leaf = one.store().get(&leaf_path).unwrap().unwrap();
    store
        .write(NodeBatch {
            puts: vec![(NodePath::root(), leaf)],
            deletes: vec![],
            meta: vec![],
        })
        .unwrap();
    assert!(matches!(
        Tree::open(store),
        Err(TreeError::Inconsistent { .. })
    ));
}

fn hashed_key(i: u32) -> TreeKey {
    use sha2::{Digest, Sha256};
    Sha256::digest(i.to_be_bytes()).into()
}

#[test]
fn bounded_cache_stays_within_budget_and_keeps_roots() {
    let budget = 1_500;
    bounded_cache_run(TreeConfig::nodes(budget), 5 * budget, |t| {
        t.stats().nodes_in_memory <= budget
    });
}

/// The same with a byte budget (about 1,000 leaves' worth): the cache's bytes stay within
/// it after every persist, whatever the nodes' sizes.
#[test]
fn byte_budget_stays_within_budget_and_keeps_roots() {
    let bytes = 1_000_000;
    let config = TreeConfig {
        cache_nodes: usize::MAX,
        cache_bytes: bytes,
    };
    bounded_cache_run(config, 4_000, |t| t.cache_bytes() <= bytes);
}

/// Sixteen blocks of inserts, updates and deletes of evicted keys on a tree bounded by
/// `config` beside an unbounded one: the same roots and values, `within(tree)` after each
/// persist, and nodes evicted and read back (the full tree holding over `full_at_least`).
fn bounded_cache_run(config: TreeConfig, full_at_least: usize, within: impl Fn(&Tree) -> bool) {
    let mut bounded = Tree::open_with(MemoryStore::new(), config).unwrap();
    let mut full = Tree::new();
    let mut model: BTreeMap<TreeKey, Value> = BTreeMap::new();
    for b in 0..16u32 {
        let mut writes: Vec<(TreeKey, Option<Value>)> = (0..600u32)
            .map(|i| {
                let k = hashed_key(b * 600 + i);
                (k, Some(k))
            })
            .collect();
        if b > 0 {
            // Touch evicted leaves: updates and deletes of the previous blocks' keys.
            for i in 0..80u32 {
                writes.push((hashed_key((b - 1) * 600 + i * 7), Some([b as u8; 32])));
                writes.push((hashed_key(i * 3 + b), None));
            }
        }
        for (k, v) in &writes {
            match v {
                Some(v) => model.insert(*k, *v),
                None => model.remove(k),
            };
        }
        bounded.apply(writes.clone()).unwrap();
        full.apply(writes).unwrap();
        bounded.persist().unwrap();
        assert!(
            within(&bounded),
            "block {b}: {:?}, {} bytes",
            bounded.stats(),
            bounded.cache_bytes()
        );
        assert_eq!(bounded.root_bytes(), full.root_bytes(), "block {b}");
    }
    let stats = bounded.stats();
    assert!(
        stats.nodes_evicted > 0 && stats.nodes_loaded > 0,
        "{stats:?}"
    );
    assert!(full.stats().nodes_in_memory > full_at_least);
    for (k, v) in model.iter().step_by(17) {
        assert_eq!(bounded.get(k).unwrap(), Some(*v));
    }
    // The evicted tree reopens at the same root.
    let root = bounded.root_bytes();
    let mut again = Tree::open(bounded.into_store()).unwrap();
    assert_eq!(again.root_bytes(), root);
}

#[test]
fn eviction_keeps_the_most_recently_used_nodes() {
    let budget = 300;
    let mut t = Tree::open_with(MemoryStore::new(), TreeConfig::nodes(budget)).unwrap();
    t.apply((0..2_000u32).map(|i| (hashed_key(i), Some([1; 32]))))
        .unwrap();
    t.persist().unwrap();
    assert!(t.stats().nodes_in_memory <= budget);
    // Twenty leaves below the breadth-first top are read back and changed...
    let hot: Vec<(TreeKey, Option<Value>)> = (0..20u32)
        .map(|i| (hashed_key(i * 97), Some([2; 32])))
        .collect();
    t.apply(hot.clone()).unwrap();
    let loaded = t.stats().nodes_loaded;
    assert!(loaded > 1, "the hot leaves were evicted: {:?}", t.stats());
    t.persist().unwrap();
    assert!(t.stats().nodes_in_memory <= budget);
    // ... and, used last, they stay cached: changing them again reads nothing.
    t.apply(hot.into_iter().map(|(k, _)| (k, Some([3; 32]))))
        .unwrap();
    assert_eq!(t.stats().nodes_loaded, loaded, "{:?}", t.stats());
    t.persist().unwrap();
    let mut full = Tree::new();
    full.apply((0..2_000u32).map(|i| (hashed_key(i), Some([1; 32]))))
        .unwrap();
    full.apply((0..20u32).map(|i| (hashed_key(i * 97), Some([3; 32]))))
        .unwrap();
    assert_eq!(t.root_bytes(), full.root_bytes());
}

#[test]
fn records_of_the_first_format_are_rejected() {
    let mut t = tree_of(&[([1u8; 32], [2u8; 32]), ([3u8; 32], [4u8; 32])]);
    t.persist().unwrap();
    let mut store = t.into_store();
    // A format-1 leaf record starts with tag 0x02.
    let leaf_path = NodePath::new(&[1]).unwrap();
    let mut old = store.get(&leaf_path).unwrap().unwrap();
    old[0] = 2;
    store
        .write(NodeBatch {
            puts: vec![(leaf_path, old)],
            deletes: vec![],
            meta: vec![],
        })
        .unwrap();
    let t = Tree::open(store).unwrap();
    match t.get(&[1u8; 32]) {
        Err(e @ TreeError::CorruptNode { .. }) => {
            assert!(e.to_string().contains("older fverkle"), "{e}")
        }
        other => panic!("expected CorruptNode, got {other:?}"),
    }
}

#[test]
fn eviction_keeps_internal_nodes_before_leaves() {
    // Scattered blocks: the internal levels are reached by every block, the leaves
    // rarely. After each persist, internal nodes fill at least half the budget (or all of
    // them are cached), whatever the recency of the leaves.
    let budget = 1_000;
    let mut t = Tree::open_with(MemoryStore::new(), TreeConfig::nodes(budget)).unwrap();
    let mut full = Tree::new();
    for b in 0..20u32 {
        let writes: Vec<(TreeKey, Option<Value>)> = (0..200u32)
            .map(|i| (hashed_key(b * 200 + i), Some([b as u8; 32])))
            .collect();
        t.apply(writes.clone()).unwrap();
        full.apply(writes).unwrap();
        t.persist().unwrap();
        let stats = t.stats();
        let internal = full.stats().internal_nodes_in_memory;
        assert!(stats.nodes_in_memory <= budget, "block {b}: {stats:?}");
        assert!(
            stats.internal_nodes_in_memory >= internal.min(budget / 2),
            "block {b}: {} of {internal} internal nodes cached",
            stats.internal_nodes_in_memory
        );
        assert_eq!(t.root_bytes(), full.root_bytes(), "block {b}");
    }
    // Later blocks over old keys read leaves only: no internal node is read back.
    let loaded = t.stats().nodes_loaded;
    let internal = full.stats().internal_nodes_in_memory;
    assert!(internal <= budget / 2, "{internal} internal nodes");
    let writes: Vec<(TreeKey, Option<Value>)> = (0..50u32)
        .map(|i| (hashed_key(i * 13), Some([99; 32])))
        .collect();
    let leaves_cached = t.stats().nodes_in_memory - t.stats().internal_nodes_in_memory;
    t.apply(writes.clone()).unwrap();
    full.apply(writes).unwrap();
    assert!(
        t.stats().nodes_loaded - loaded <= 50,
        "{} nodes read for 50 leaves ({leaves_cached} leaves cached)",
        t.stats().nodes_loaded - loaded
    );
    assert_eq!(t.root_bytes(), full.root_bytes());
}
