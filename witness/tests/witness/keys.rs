//! `witness::keys`: the light (CRS-only) account keys against the prover's table-backed
//! `verkle::keys::AccountKeys`, the conformance suite's tree keys, besu's code-chunk keys and
//! the devnet-6 genesis flattened to tree keys.

use std::collections::HashMap;

use witness::keys::{
    address32, tree_key_from_crs, AccountKeys, AccountState, Layout, TreeKey, TreePosition, Value,
    BASIC_DATA_LEAF_KEY, CODE_HASH_LEAF_KEY, U256,
};

use crate::common::{read_json, read_text};

fn unhex(s: &str) -> Vec<u8> {
    let s = s.strip_prefix("0x").unwrap_or(s);
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn addr20(s: &str) -> [u8; 32] {
    address32(&unhex(s).try_into().unwrap())
}

/// Two 20-byte addresses (one from the tree vectors) and a full 32-byte one.
fn addresses() -> Vec<[u8; 32]> {
    let mut full = [0u8; 32];
    for (i, b) in full.iter_mut().enumerate() {
        *b = 0xa0 ^ (i as u8 * 7);
    }
    vec![
        addr20("0x3b7c4c2b2b25239e58f8e67509b32edb5bbf293c"),
        addr20("0x0000000000000000000000000000000000000001"),
        full,
    ]
}

/// Storage slots: header ones (0..64), the first main-storage ones, and values at and
/// above 2^64 up to 2^256 − 1.
fn slots() -> Vec<U256> {
    let mut s: Vec<U256> = [0u64, 1, 31, 63, 64, 100, 255, 256, 10001, u64::MAX]
        .into_iter()
        .map(U256::from_u64)
        .collect();
    s.push(U256::pow2(64).unwrap());
    s.push(
        U256::pow2(64)
            .unwrap()
            .checked_add(&U256::from_u64(0x41))
            .unwrap(),
    );
    s.push(U256::pow2(200).unwrap());
    s.push(U256::MAX);
    s.push(U256::from_be_bytes(&[0x5a; 32]));
    s
}

#[test]
fn light_keys_match_the_table_backed_keys() {
    let chunks = [0u64, 1, 127, 128, 129, 255, 383, 384, 1 << 20, u64::MAX];
    for addr in addresses() {
        let light = AccountKeys::new(&addr);
        let table = verkle::keys::AccountKeys::new(&addr);
        assert_eq!(light.address(), &addr);
        assert_eq!(light.header_stem(), table.header_stem());
        for sub in 0..=255u8 {
            assert_eq!(light.header_key(sub), table.header_key(sub), "header {sub}");
        }
        for layout in [Layout::Legacy, Layout::Eip6800] {
            let t = |sub| table.header_key(sub);
            assert_eq!(light.balance_key(layout), t(layout.balance_leaf()));
            assert_eq!(light.nonce_key(layout), t(layout.nonce_leaf()));
            assert_eq!(light.code_hash_key(layout), t(layout.code_hash_leaf()));
            assert_eq!(light.code_size_key(layout), t(layout.code_size_leaf()));
        }
        assert_eq!(
            light.basic_data_key(Layout::Eip6800),
            Some(table.header_key(BASIC_DATA_LEAF_KEY))
        );
        assert_eq!(light.basic_data_key(Layout::Legacy), None);
        assert_eq!(
            light.code_hash_key(Layout::Eip6800),
            table.header_key(CODE_HASH_LEAF_KEY)
        );
        for slot in slots() {
            let key = light.storage_slot_key(&slot);
            assert_eq!(key, table.storage_slot_key(&slot), "slot {slot:?}");
            let in_header = slot < U256::from_u64(64);
            assert_eq!(key[..31] == light.header_stem(), in_header, "slot {slot:?}");
        }
        for i in chunks {
            let key = light.code_chunk_key(i);
            assert_eq!(key, table.code_chunk_key(i), "chunk {i}");
            assert_eq!(key[..31] == light.header_stem(), i < 128, "chunk {i}");
        }
        assert_eq!(light.code_chunk_keys(400), table.code_chunk_keys(400));
        let p = TreePosition::storage_slot(&U256::MAX);
        assert_eq!(light.key(&p), verkle::keys::tree_key_at(&addr, &p));
        assert_eq!(tree_key_from_crs(&addr, &p), light.key(&p));
    }
}

/// The conformance suite's `get_tree_key` cases through [`TreePosition`] and the light key.
#[test]
fn suite_tree_keys() {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/suite/tree_key.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 5, "{} cases", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let addr: [u8; 32] = unhex(case["input"]["address"].as_str().unwrap())
            .try_into()
            .unwrap();
        let idx: [u8; 32] = unhex(case["input"]["tree_index"].as_str().unwrap())
            .try_into()
            .unwrap();
        let pos = TreePosition {
            tree_index: U256::from_le_bytes(&idx),
            sub_index: u8::try_from(case["input"]["sub_index"].as_u64().unwrap()).unwrap(),
        };
        let want = unhex(case["output"]["tree_key"].as_str().unwrap());
        assert_eq!(AccountKeys::new(&addr).key(&pos).to_vec(), want, "{name}");
        assert_eq!(tree_key_from_crs(&addr, &pos).to_vec(), want, "{name}");
    }
}

/// besu's code-chunk keys (`code/contractCode.json`): chunk `i` at position `128 + i`.
#[test]
fn contract_code_chunk_keys() {
    let doc = read_json("code/contractCode.json");
    let mut checked = 0;
    for case in doc.as_array().unwrap() {
        let keys = AccountKeys::new(&addr20(case["address"].as_str().unwrap()));
        let want = case["chunks"].as_array().unwrap();
        let all = keys.code_chunk_keys(want.len() as u64);
        for (i, w) in want.iter().enumerate() {
            let w = unhex(w["key"].as_str().unwrap());
            assert_eq!(all[i].to_vec(), w, "chunk {i}");
            assert_eq!(keys.code_chunk_key(i as u64).to_vec(), w, "chunk {i}");
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked} code-chunk keys");
}

/// `genesis/gen-devnet-6.csv` is the devnet-6 genesis (legacy layout) as `key,value` lines:
/// the light keys of every account's header leaves, storage slots and code chunks are
/// exactly its keys, and the header values at them are the layout's.
#[test]
fn devnet6_genesis_keys() {
    let mut csv: HashMap<TreeKey, Value> = HashMap::new();
    for (n, line) in read_text("genesis/gen-devnet-6.csv").lines().enumerate() {
        let mut parts = line.trim().trim_end_matches(',').split(',');
        let (Some(k), Some(v)) = (parts.next(), parts.next()) else {
            panic!("gen-devnet-6.csv line {}: {line:?}", n + 1);
        };
        csv.insert(unhex(k).try_into().unwrap(), unhex(v).try_into().unwrap());
    }
    let genesis = read_json("genesis/devnet6_genesis.json");
    let alloc = genesis["alloc"].as_object().unwrap();
    let mut derived = 0usize;
    let (mut high_chunks, mut header_slots) = (0, 0);
    for (address, account) in alloc {
        let keys = AccountKeys::new(&addr20(address));
        let code = account["code"].as_str().map(unhex).unwrap_or_default();
        let parse = |field: &str| {
            account[field]
                .as_str()
                .map(|s| U256::parse(s).unwrap())
                .unwrap_or(U256::ZERO)
        };
        let state = AccountState {
            version: 0,
            balance: parse("balance"),
            nonce: parse("nonce").to_u64().unwrap(),
            code: &code,
            storage: &[],
        };
        for (sub, value) in Layout::Legacy.header_leaves(&state).unwrap() {
            let key = keys.header_key(sub);
            assert_eq!(csv.get(&key), Some(&value), "{address} header {sub}");
            derived += 1;
        }
        assert!(csv.contains_key(&keys.balance_key(Layout::Legacy)));
        assert!(csv.contains_key(&keys.nonce_key(Layout::Legacy)));
        assert!(csv.contains_key(&keys.code_hash_key(Layout::Legacy)));
        let n_chunks = code.len().div_ceil(31) as u64;
        for (i, key) in keys.code_chunk_keys(n_chunks).iter().enumerate() {
            assert!(csv.contains_key(key), "{address} code chunk {i}");
            high_chunks += usize::from(i >= 128);
            derived += 1;
        }
        if let Some(storage) = account["storage"].as_object() {
            for (slot, value) in storage {
                let slot = U256::parse(slot).unwrap();
                let key = keys.storage_slot_key(&slot);
                let mut want = [0u8; 32];
                let v = unhex(value.as_str().unwrap());
                want[32 - v.len()..].copy_from_slice(&v);
                assert_eq!(csv.get(&key), Some(&want), "{address} slot {slot:?}");
                header_slots += usize::from(slot < U256::from_u64(64));
                derived += 1;
            }
        }
    }
    assert_eq!(derived, csv.len(), "every genesis key derived, no other");
    assert!(
        high_chunks > 0 && header_slots > 0,
        "{high_chunks} {header_slots}"
    );
}
