//! `vectors/tree/001..004` (geth + go-verkle, March 2024, legacy layout).

use verkle::keys::{account_leaves, address32, AccountKeys, AccountState, Layout, TreeKey};
use verkle::{Tree, U256};

use crate::common::{hex0x, read_json, tree_of, unhex};

fn address(s: &str) -> [u8; 32] {
    address32(&unhex(s).try_into().unwrap())
}

fn expected(doc: &serde_json::Value) -> String {
    doc["testData"]["expectedRootHash"]
        .as_str()
        .unwrap()
        .to_lowercase()
}

#[test]
fn t001_eoa_insert() {
    let doc = read_json("tree/001_eoa_insert.json");
    let d = &doc["testData"];
    let acct = AccountState {
        version: 0,
        balance: U256::from_u64(d["balance"].as_u64().unwrap()),
        nonce: d["nonce"].as_u64().unwrap(),
        code: &[],
        storage: &[],
    };
    let leaves = account_leaves(
        Layout::Legacy,
        &address(d["eoaAddress"].as_str().unwrap()),
        &acct,
    )
    .unwrap();
    assert_eq!(leaves.len(), 4, "version, balance, nonce, code keccak");
    assert_eq!(hex0x(&tree_of(&leaves).root_bytes()), expected(&doc));
}

#[test]
fn t002_sc_insert() {
    let doc = read_json("tree/002_sc_insert.json");
    let d = &doc["testData"];
    let code = unhex(d["hexCode"].as_str().unwrap());
    let acct = AccountState {
        version: 0,
        balance: U256::from_u64(d["balance"].as_u64().unwrap()),
        nonce: d["nonce"].as_u64().unwrap(),
        code: &code,
        storage: &[],
    };
    let leaves = account_leaves(
        Layout::Legacy,
        &address(d["scAddress"].as_str().unwrap()),
        &acct,
    )
    .unwrap();
    assert_eq!(leaves.len(), 5 + code.len().div_ceil(31));
    assert_eq!(hex0x(&tree_of(&leaves).root_bytes()), expected(&doc));
}

#[test]
fn t003_tree_mutation() {
    let doc = read_json("tree/003_tree_mutation.json");
    let muts = doc["testData"]["mutations"].as_array().unwrap();
    assert_eq!(muts.len(), 11);
    let mut t = Tree::new();
    for m in muts {
        let key: TreeKey = unhex(m["key"].as_str().unwrap()).try_into().unwrap();
        // go-verkle accepts short values: right-padded with zeros.
        let short = unhex(m["value"].as_str().unwrap());
        let mut value = [0u8; 32];
        value[..short.len()].copy_from_slice(&short);
        t.insert(&key, value).unwrap();
    }
    assert_eq!(hex0x(&t.root_bytes()), expected(&doc));
}

#[test]
fn t004_storage_slot_insert() {
    let doc = read_json("tree/004_storageslot_insert.json");
    let d = &doc["testData"];
    let keys = AccountKeys::new(&address(d["scAddress"].as_str().unwrap()));
    // geth UpdateStorage(addr, slot, "elephant"): the value right-aligned in 32 bytes.
    let mut value = [0u8; 32];
    value[24..].copy_from_slice(b"elephant");
    let slots = d["storageSlots"].as_array().unwrap();
    assert_eq!(slots.len(), 9);
    let leaves: Vec<_> = slots
        .iter()
        .map(|s| {
            (
                keys.storage_slot_key(&U256::from_u64(s.as_u64().unwrap())),
                value,
            )
        })
        .collect();
    assert_eq!(hex0x(&tree_of(&leaves).root_bytes()), expected(&doc));
}
