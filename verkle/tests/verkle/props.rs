//! Property: after any sequence of inserts, updates, deletes, commits, persists and reopens,
//! the root equals the root of a fresh tree built from the final key/value set.

use std::collections::BTreeMap;

use proptest::prelude::*;
use verkle::keys::{TreeKey, Value};
use verkle::store::MemoryStore;
use verkle::Tree;

use crate::common::tree_of;

/// Stems that share long prefixes: a base with a few bits flipped at chosen depths.
fn stem_from(bits: u8) -> [u8; 31] {
    let mut s = [0xabu8; 31];
    for (bit, pos) in [0usize, 1, 15, 29, 30].iter().enumerate() {
        if bits & (1 << bit) != 0 {
            s[*pos] ^= 1;
        }
    }
    s
}

const SUFFIXES: [u8; 5] = [0, 1, 127, 128, 255];

fn value_from(v: u8) -> Value {
    match v % 4 {
        0 => [0u8; 32], // zero is present, not absent
        1 => [v; 32],
        2 => {
            let mut x = [0u8; 32];
            x[31] = v; // only the high half
            x
        }
        _ => {
            let mut x = [0u8; 32];
            x[0] = v; // only the low half
            x
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Set(u8, u8, u8),
    Delete(u8, u8),
    DeleteStem(u8),
    Commit,
    PersistReopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..32, 0usize..5, any::<u8>()).prop_map(|(s, x, v)| Op::Set(s, SUFFIXES[x], v)),
        4 => (0u8..32, 0usize..5).prop_map(|(s, x)| Op::Delete(s, SUFFIXES[x])),
        1 => (0u8..32).prop_map(Op::DeleteStem),
        1 => Just(Op::Commit),
        1 => Just(Op::PersistReopen),
    ]
}

fn key(stem: &[u8; 31], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = suffix;
    k
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_order_gives_the_canonical_root(ops in prop::collection::vec(op(), 1..80)) {
        let mut tree: Tree<MemoryStore> = Tree::new();
        let mut model: BTreeMap<TreeKey, Value> = BTreeMap::new();
        for op in &ops {
            match *op {
                Op::Set(s, x, v) => {
                    let k = key(&stem_from(s), x);
                    tree.insert(&k, value_from(v)).unwrap();
                    model.insert(k, value_from(v));
                }
                Op::Delete(s, x) => {
                    let k = key(&stem_from(s), x);
                    tree.delete(&k).unwrap();
                    model.remove(&k);
                }
                Op::DeleteStem(s) => {
                    let stem = stem_from(s);
                    let writes: Vec<_> = SUFFIXES.iter().map(|x| (key(&stem, *x), None)).collect();
                    tree.apply(writes).unwrap();
                    for x in SUFFIXES {
                        model.remove(&key(&stem, x));
                    }
                }
                Op::Commit => {
                    tree.commit();
                }
                Op::PersistReopen => {
                    tree.persist().unwrap();
                    tree = Tree::open(tree.into_store()).unwrap();
                }
            }
        }
        let leaves: Vec<(TreeKey, Value)> = model.iter().map(|(k, v)| (*k, *v)).collect();
        let mut fresh = tree_of(&leaves);
        prop_assert_eq!(tree.root_bytes(), fresh.root_bytes());
        for s in 0..32u8 {
            for x in SUFFIXES {
                let k = key(&stem_from(s), x);
                prop_assert_eq!(tree.get(&k).unwrap(), model.get(&k).copied());
            }
        }
        // Same number of nodes as the canonical tree (no leftover internal chains), once
        // everything is in memory on both sides.
        if !ops.iter().any(|o| matches!(o, Op::PersistReopen)) {
            prop_assert_eq!(tree.stats().nodes_in_memory, fresh.stats().nodes_in_memory);
        }
    }
}
