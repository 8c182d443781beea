//! Property: after every block of random writes, both shard depths, the sharded tree's
//! canonical root equals a single `verkle::Tree`'s root over the same key/value set, every
//! shard commitment is the single tree's subtree top at the shard prefix, and the
//! incrementally updated coordinator root equals one rebuilt from scratch.

use proptest::prelude::*;
use verkle::keys::{TreeKey, Value};
use verkle::Tree;

use fractional::coordinator::Coordinator;
use fractional::{ShardConfig, ShardDepth, ShardedTree};

/// Stems that land in few shards and share prefixes across the shard boundary: byte 0 from
/// three values, bytes 1, 2 and 30 flipped by bits (so depth-2 shards hold one or several
/// stems and prefixes collapse to a lone leaf or not).
pub fn stem_from(x: u8) -> [u8; 31] {
    let mut s = [0x5au8; 31];
    s[0] = [0x10, 0x11, 0xf0][usize::from(x % 3)];
    let bits = x / 3;
    if bits & 1 != 0 {
        s[1] ^= 1;
    }
    if bits & 2 != 0 {
        s[2] ^= 1;
    }
    if bits & 4 != 0 {
        s[30] ^= 1;
    }
    s
}

pub const SUFFIXES: [u8; 4] = [0, 1, 128, 255];

pub fn key(stem: [u8; 31], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(&stem);
    k[31] = suffix;
    k
}

fn value_from(v: u8) -> Value {
    match v % 3 {
        0 => [0u8; 32],
        1 => [v; 32],
        _ => {
            let mut x = [0u8; 32];
            x[31] = v;
            x
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Set(u8, u8, u8),
    Delete(u8, u8),
    DeleteStem(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..24, 0usize..4, any::<u8>()).prop_map(|(s, x, v)| Op::Set(s, SUFFIXES[x], v)),
        3 => (0u8..24, 0usize..4).prop_map(|(s, x)| Op::Delete(s, SUFFIXES[x])),
        1 => (0u8..24).prop_map(Op::DeleteStem),
    ]
}

fn writes_of(block: &[Op]) -> Vec<(TreeKey, Option<Value>)> {
    let mut w = Vec::new();
    for op in block {
        match *op {
            Op::Set(s, x, v) => w.push((key(stem_from(s), x), Some(value_from(v)))),
            Op::Delete(s, x) => w.push((key(stem_from(s), x), None)),
            Op::DeleteStem(s) => w.extend(SUFFIXES.iter().map(|&x| (key(stem_from(s), x), None))),
        }
    }
    w
}

fn check_blocks(depth: ShardDepth, blocks: &[Vec<Op>]) {
    let mut sharded = ShardedTree::in_memory(ShardConfig {
        depth,
        ..ShardConfig::default()
    });
    let mut single = Tree::new();
    assert_eq!(sharded.canonical_root(), single.root_bytes());
    for (b, block) in blocks.iter().enumerate() {
        let writes = writes_of(block);
        let report = sharded.apply(&writes).unwrap();
        single.apply(writes.iter().copied()).unwrap();
        assert_eq!(
            sharded.canonical_root(),
            single.root_bytes(),
            "canonical root after block {b} ({depth:?})"
        );
        assert!(report.shards_touched <= writes.len());
        for (k, _) in &writes {
            assert_eq!(sharded.get(k).unwrap(), single.get(k).unwrap());
        }
    }
    // Shard commitments are the single tree's subtree tops.
    let mut commitments = vec![[0u8; 32]; depth.shard_count()];
    for x in 0..24 {
        let shard = depth.shard_of(&stem_from(x));
        let top = single.hypertree_top(depth.prefix(shard)).unwrap();
        let expected = top.map_or([0u8; 32], |t| t.commitment.to_bytes());
        assert_eq!(sharded.shard_commitment(shard), expected, "shard {shard}");
        commitments[usize::from(shard)] = expected;
    }
    assert_eq!(
        sharded.coordinator_root(),
        Coordinator::build(&commitments).root()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn canonical_root_equals_single_tree_depth_1(
        blocks in prop::collection::vec(prop::collection::vec(op(), 0..12), 1..6)
    ) {
        check_blocks(ShardDepth::One, &blocks);
    }

    #[test]
    fn canonical_root_equals_single_tree_depth_2(
        blocks in prop::collection::vec(prop::collection::vec(op(), 0..12), 1..6)
    ) {
        check_blocks(ShardDepth::Two, &blocks);
    }
}

/// The apply report counts the block and its phases add up to what `last_apply` splits.
#[test]
fn apply_report_and_last_apply() {
    let mut tree = ShardedTree::in_memory(ShardConfig::default());
    assert_eq!(tree.last_apply(), None);
    let writes: Vec<(TreeKey, Option<Value>)> = (0..12u8)
        .map(|x| {
            (
                key(stem_from(x), SUFFIXES[usize::from(x % 4)]),
                Some([x; 32]),
            )
        })
        .collect();
    let report = tree.apply(&writes).unwrap();
    assert_eq!(report.writes, 12);
    assert_eq!(report.shards_touched, 3);
    assert_eq!(tree.last_apply(), Some(report));
    assert_eq!(report.apply_us(), report.partition_us + report.update_us);
    assert_eq!(
        report.commitment_us(),
        report.commit_us + report.coordinator_us + report.canonical_us
    );
    // A later apply replaces the report.
    let second = tree.apply(&writes[..1]).unwrap();
    assert_eq!(second.shards_touched, 1);
    assert_eq!(tree.last_apply(), Some(second));
}
