//! `vectors/genesis/`: devnet6 (legacy layout) and devnet-7 (EIP-6800 layout) roots, and the
//! EEST fixture's `pre` alloc (EIP-6800 layout).

use std::time::Instant;

use genesis::{alloc_leaves, genesis_leaves, parse_leaf_csv};
use verkle::keys::Layout;
use verkle::Tree;

use crate::common::{hex0x, read_json, read_text, tree_of};

const DEVNET6_ROOT: &str = "0x1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee";

#[test]
fn devnet6_genesis_json_legacy_layout() {
    let text = read_text("genesis/devnet6_genesis.json");
    let start = Instant::now();
    let leaves = genesis_leaves(&text, Layout::Legacy, "devnet6_genesis.json").unwrap();
    let keyed = start.elapsed();
    let mut tree = tree_of(&leaves);
    let root = tree.root_bytes();
    eprintln!(
        "devnet6 genesis: {} leaves, keys {:?}, total {:?}",
        leaves.len(),
        keyed,
        start.elapsed()
    );
    assert_eq!(hex0x(&root), DEVNET6_ROOT);
    // The same leaves as geth's flattened file.
    let csv = parse_leaf_csv(&read_text("genesis/gen-devnet-6.csv"), "gen-devnet-6.csv").unwrap();
    let mut a = leaves.clone();
    let mut b = csv;
    a.sort();
    b.sort();
    assert_eq!(a.len(), b.len(), "leaf count vs gen-devnet-6.csv");
    assert_eq!(a, b);
}

#[test]
fn devnet6_genesis_csv() {
    let leaves =
        parse_leaf_csv(&read_text("genesis/gen-devnet-6.csv"), "gen-devnet-6.csv").unwrap();
    assert_eq!(leaves.len(), 1354, "1353 newlines, the last line has none");
    assert_eq!(hex0x(&tree_of(&leaves).root_bytes()), DEVNET6_ROOT);
}

#[test]
fn devnet6_genesis_is_not_eip6800() {
    // The layouts must not be mixed: the same alloc in the current layout gives another root.
    let text = read_text("genesis/devnet6_genesis.json");
    let leaves = genesis_leaves(&text, Layout::Eip6800, "devnet6_genesis.json").unwrap();
    assert_ne!(hex0x(&tree_of(&leaves).root_bytes()), DEVNET6_ROOT);
}

#[test]
fn devnet7_genesis_then_blocks_1_to_3() {
    let genesis =
        parse_leaf_csv(&read_text("genesis/gen-devnet-7.csv"), "gen-devnet-7.csv").unwrap();
    let mut tree = tree_of(&genesis);
    assert_eq!(
        hex0x(&tree.root_bytes()),
        "0x514a0e5715b0b6c635ac140a5f25b8665af36cf31836344d27d9645fc57eab76"
    );
    let blocks = [
        (
            "genesis/devnet-7-block-1.csv",
            "0x5ac6bdb5f3dc47cfa7665c981f795a1116459dfeecde174433d14d710c433cc4",
        ),
        (
            "genesis/devnet-7-block-2.csv",
            "0x2a63a94a9cb5dc948f98bd9a18cd4db0214adbc7cef2297a5f84362b14cb6513",
        ),
        (
            "genesis/devnet-7-block-3.csv",
            "0x4818200283aff9e7fd8a788c28bd6e54a6545a6f3af9e8d75a784c43a4b75fbe",
        ),
    ];
    let before = tree.stats().commit;
    for (file, root) in blocks {
        let leaves = parse_leaf_csv(&read_text(file), file).unwrap();
        assert!(!leaves.is_empty(), "{file}: no leaves");
        tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
            .unwrap();
        assert_eq!(hex0x(&tree.root_bytes()), root, "{file}");
    }
    // Incremental: the three blocks recommitted a handful of nodes, not the whole tree.
    let after = tree.stats().commit;
    assert!(after.leaves - before.leaves < 20, "{:?}", after);
}

#[test]
fn eest_pre_alloc_eip6800_layout() {
    let doc = read_json("witness/eest_verkleBlock.json");
    let pre = doc["pre"].as_object().unwrap();
    let leaves = alloc_leaves(pre, Layout::Eip6800, "eest_verkleBlock.json pre").unwrap();
    let want = doc["genesisBlockHeader"]["stateRoot"].as_str().unwrap();
    assert_eq!(
        want,
        "0x3901899f4bfd31a5d77611f70c4eb98cffdbbe5280fba656631f04336afe6f5a"
    );
    let mut tree = Tree::new();
    tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
        .unwrap();
    assert_eq!(hex0x(&tree.root_bytes()), want);
}
