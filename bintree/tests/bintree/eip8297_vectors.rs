//! `eip8297/eels_vectors.json` (current text) and `eip8297/execution_specs_vectors.json`
//! (the parts the current text shares), both BLAKE3.

use bintree::code::chunkify;
use bintree::eip8297::keys::{self, Key};
use bintree::eip8297::state::{state_root, Account};
use bintree::eip8297::{root_of_entries, Tree};
use bintree::{keccak256, Blake3};
use serde_json::Value;

use crate::common::{array, hex, hex_n, name, read_json, report, u128_of, u256, u64_of};

const EELS: &str = "eip8297/eels_vectors.json";
const SPECS: &str = "eip8297/execution_specs_vectors.json";

fn entries(case: &Value) -> Vec<(Vec<u8>, [u8; 32])> {
    array(case, "entries")
        .iter()
        .map(|e| (hex(&e["key"]), hex_n::<32>(&e["value"])))
        .collect()
}

/// Writes the entries in order to a tree, as a batch, and from scratch; all three roots must
/// equal `root`.
fn check_trie_root(file: &str, case: &Value) {
    let entries = entries(case);
    let expected = hex_n::<32>(&case["root"]);
    let mut tree = Tree::<Blake3>::new();
    for (key, value) in &entries {
        tree.insert(key, value).unwrap();
    }
    assert_eq!(
        tree.root(),
        expected,
        "{file} {}: root, one write at a time",
        name(case)
    );
    let mut batch = Tree::<Blake3>::new();
    batch
        .apply(entries.iter().map(|(k, v)| (k, Some(*v))))
        .unwrap();
    assert_eq!(
        batch.root(),
        expected,
        "{file} {}: root, one batch",
        name(case)
    );
    let refs: Vec<(&[u8], [u8; 32])> = entries.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
    assert_eq!(
        root_of_entries::<Blake3>(&refs).unwrap(),
        expected,
        "{file} {}: root from the definition",
        name(case)
    );
}

#[test]
fn eels_empty_root_and_trie_roots() {
    let doc = read_json(EELS);
    assert_eq!(
        hex_n::<32>(&doc["empty_root"]),
        Tree::<Blake3>::new().root(),
        "{EELS} empty_root"
    );
    let cases = array(&doc, "trie_vectors");
    for case in cases {
        check_trie_root(EELS, case);
    }
    report(
        EELS,
        "empty_root + trie_vectors",
        cases.len() + 1,
        cases.len() + 1,
        0,
    );
}

#[test]
fn eels_sequences_root_after_every_op() {
    let doc = read_json(EELS);
    let sequences = array(&doc, "sequence_vectors");
    let (mut roots, mut deletes) = (0, 0);
    for sequence in sequences {
        let seed = sequence["seed"].as_str().unwrap_or("?");
        let ops = array(sequence, "ops");
        let after = array(sequence, "roots_after");
        assert_eq!(
            ops.len(),
            after.len(),
            "{EELS} seed {seed}: one root per op"
        );
        let mut tree = Tree::<Blake3>::new();
        let mut writes = Vec::new();
        for (i, (op, root)) in ops.iter().zip(after).enumerate() {
            let key = hex(&op["key"]);
            match op["op"].as_str() {
                Some("set") => {
                    let value = hex_n::<32>(&op["value"]);
                    tree.insert(&key, &value).unwrap();
                    writes.push((key, Some(value)));
                }
                Some("delete") => {
                    tree.remove(&key).unwrap();
                    writes.push((key, None));
                    deletes += 1;
                }
                other => panic!("{EELS} seed {seed} op {i}: unknown op {other:?}"),
            }
            assert_eq!(
                tree.root(),
                hex_n::<32>(root),
                "{EELS} seed {seed}: root after op {i}"
            );
            roots += 1;
        }
        // The same ops as one batch (last write per key counts) reach the last root.
        let mut batch = Tree::<Blake3>::new();
        batch.apply(writes).unwrap();
        assert_eq!(batch.root(), tree.root(), "{EELS} seed {seed}: batch root");
        assert_eq!(batch.len(), tree.len());
    }
    eprintln!("{EELS} sequence_vectors: {deletes} deletes");
    let total: usize = sequences
        .iter()
        .map(|s| array(s, "roots_after").len())
        .sum();
    report(EELS, "sequence_vectors roots_after", roots, total, 0);
}

#[test]
fn eels_embedding() {
    let doc = read_json(EELS);
    let e = &doc["embedding_vectors"];
    let address = keys::address32(&hex_n::<20>(&e["address"]));
    let mut checked = 0;
    let mut check = |what: &str, got: &[u8], want: Vec<u8>| {
        assert_eq!(got, want.as_slice(), "{EELS} embedding {what}");
        checked += 1;
    };
    check(
        "basic_data_key",
        &keys::basic_data_key::<Blake3>(&address),
        hex(&e["basic_data_key"]),
    );
    check(
        "code_hash_key",
        &keys::code_hash_key::<Blake3>(&address),
        hex(&e["code_hash_key"]),
    );
    check(
        "delegation_key",
        &keys::delegation_key::<Blake3>(&address),
        hex(&e["delegation_key"]),
    );
    let designator = hex(&e["delegation_designator"]);
    let indicator = keys::delegation_indicator(&designator).expect("a delegation indicator");
    check(
        "delegation_value",
        &keys::delegation_value(indicator),
        hex(&e["delegation_value"]),
    );
    let slots = array(e, "slots");
    for slot in slots {
        let key = keys::storage_slot_key::<Blake3>(&address, &u256(&slot["slot"]));
        check(
            &format!("slot {}", slot["slot"]),
            key.as_bytes(),
            hex(&slot["key"]),
        );
    }
    // The generator's code hash, which the file does not state.
    let code_hash = [0xbb; 32];
    let chunks = array(e, "chunks");
    for chunk in chunks {
        let id = u64_of(&chunk["chunk"]);
        check(
            &format!("chunk {id}"),
            &keys::code_chunk_key::<Blake3>(&code_hash, id),
            hex(&chunk["key"]),
        );
    }
    report(
        EELS,
        "embedding_vectors",
        checked,
        4 + slots.len() + chunks.len(),
        0,
    );
}

#[test]
fn eels_basic_data_and_chunkify() {
    let doc = read_json(EELS);
    let basic = array(&doc, "basic_data_vectors");
    for case in basic {
        check_basic_data(EELS, case, "value");
    }
    report(EELS, "basic_data_vectors", basic.len(), basic.len(), 0);
    let chunked = array(&doc, "chunkify_vectors");
    for case in chunked {
        check_chunks(EELS, case, "chunks");
    }
    report(EELS, "chunkify_vectors", chunked.len(), chunked.len(), 0);
}

/// A basic-data case: `code_size`, `nonce` and `balance` encode to the 32 bytes at `field`.
fn check_basic_data(file: &str, case: &Value, field: &str) {
    let value = keys::basic_data(
        u64_of(&case["code_size"]),
        u64_of(&case["nonce"]),
        u128_of(&case["balance"]),
    );
    assert_eq!(
        value.unwrap(),
        hex_n::<32>(&case[field]),
        "{file} basic data {case}"
    );
}

fn check_chunks(file: &str, case: &Value, field: &str) {
    let want: Vec<[u8; 32]> = array(case, field).iter().map(hex_n::<32>).collect();
    assert_eq!(
        chunkify(&hex(&case["code"])),
        want,
        "{file} chunkify {}",
        name(case)
    );
}

#[test]
fn eels_whole_state_roots() {
    let doc = read_json(EELS);
    let cases = array(&doc, "state_vectors");
    for case in cases {
        let accounts: Vec<Account> = array(case, "accounts")
            .iter()
            .map(|a| Account {
                address: hex_n::<20>(&a["address"]),
                nonce: a.get("nonce").map_or(0, u64_of),
                balance: a.get("balance").map_or(0, u128_of),
                code: a.get("code").map_or_else(Vec::new, hex),
                storage: storage(a.get("storage"), u256),
            })
            .collect();
        let root = state_root::<Blake3>(&accounts).unwrap();
        assert_eq!(
            root,
            hex_n::<32>(&case["root"]),
            "{EELS} state {}",
            name(case)
        );
    }
    report(EELS, "state_vectors", cases.len(), cases.len(), 0);
}

/// Storage `{decimal slot: value}`, values read by `value`.
fn storage(map: Option<&Value>, value: fn(&Value) -> [u8; 32]) -> Vec<([u8; 32], [u8; 32])> {
    map.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(slot, v)| (u256(&Value::String(slot.clone())), value(v)))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn execution_specs_trie_roots() {
    let doc = read_json(SPECS);
    let cases = array(&doc, "trie_roots");
    for case in cases {
        // Ordered entries, duplicates legal, the last write wins.
        check_trie_root(SPECS, case);
    }
    report(SPECS, "trie_roots", cases.len(), cases.len(), 0);
}

#[test]
fn execution_specs_embedding_chunkify_basic_data() {
    let doc = read_json(SPECS);
    let e = &doc["embedding"];
    let address = keys::address32(&hex_n::<20>(&e["address20"]));
    assert_eq!(address, hex_n::<32>(&e["address32"]), "{SPECS} address32");
    assert_eq!(
        &keys::basic_data_key::<Blake3>(&address)[..],
        hex(&e["basic_data_key"]),
        "{SPECS} basic_data_key"
    );
    assert_eq!(
        &keys::code_hash_key::<Blake3>(&address)[..],
        hex(&e["code_hash_key"]),
        "{SPECS} code_hash_key"
    );
    assert_eq!(
        &keys::header_key::<Blake3>(&address, 255)[..],
        hex(&e["header_sub_index_255_key"]),
        "{SPECS} header_sub_index_255_key"
    );
    assert_eq!(
        keccak256(&[0xfe]),
        hex_n::<32>(&e["code_hash"]),
        "{SPECS} code_hash"
    );
    let slots = e["storage_slot_keys"]
        .as_object()
        .expect("storage_slot_keys");
    for (slot, want) in slots {
        let key = keys::storage_slot_key::<Blake3>(&address, &u256(&Value::String(slot.clone())));
        assert_eq!(
            key.as_bytes(),
            hex(want).as_slice(),
            "{SPECS} storage slot {slot}"
        );
    }
    // `code_chunk_keys` follow the superseded layout (chunks 0..128 in the header): a test of
    // the current text skips them (README, "Layout caveat").
    let skipped = e["code_chunk_keys"]
        .as_object()
        .expect("code_chunk_keys")
        .len();
    report(
        SPECS,
        "embedding",
        5 + slots.len(),
        5 + slots.len() + skipped,
        skipped,
    );

    let chunked = array(&doc, "chunkify_code");
    for case in chunked {
        check_chunks(SPECS, case, "chunks");
    }
    report(SPECS, "chunkify_code", chunked.len(), chunked.len(), 0);
    let basic = array(&doc, "encode_basic_data");
    for case in basic {
        check_basic_data(SPECS, case, "encoded");
    }
    report(SPECS, "encode_basic_data", basic.len(), basic.len(), 0);
}

/// The `pbt_state` cases a test of the current text skips: their code chunks or delegation
/// indicator sit where the superseded layout put them (README, "Layout caveat").
const SUPERSEDED_LAYOUT: [&str; 6] = [
    "header_code_only",
    "overflow_code_and_boundary_storage",
    "full_header_stem",
    "shared_bytecode_two_accounts",
    "delegation_designator",
    "random_6_accounts_seed_8297",
];

#[test]
fn execution_specs_whole_state_roots() {
    let doc = read_json(SPECS);
    let cases = array(&doc, "pbt_state");
    let (mut checked, mut skipped, mut code_hashes) = (0, 0, 0);
    for case in cases {
        let accounts: Vec<Account> = case["accounts"]
            .as_object()
            .expect("accounts")
            .iter()
            .map(|(address, a)| {
                let code = hex(&a["code"]);
                assert_eq!(
                    keccak256(&code),
                    hex_n::<32>(&a["code_hash"]),
                    "{SPECS} {} code_hash",
                    name(case)
                );
                code_hashes += 1;
                Account {
                    address: hex_n::<20>(&Value::String(address.clone())),
                    nonce: u64_of(&a["nonce"]),
                    balance: u128_of(&a["balance"]),
                    code,
                    storage: storage(a.get("storage"), hex_n::<32>),
                }
            })
            .collect();
        if SUPERSEDED_LAYOUT.contains(&name(case)) {
            skipped += 1;
            continue;
        }
        let root = state_root::<Blake3>(&accounts).unwrap();
        assert_eq!(
            root,
            hex_n::<32>(&case["root"]),
            "{SPECS} pbt_state {}",
            name(case)
        );
        checked += 1;
    }
    assert_eq!(
        skipped,
        SUPERSEDED_LAYOUT.len(),
        "{SPECS}: every skipped case is present"
    );
    eprintln!("{SPECS} pbt_state: {code_hashes} code_hash fields checked");
    report(SPECS, "pbt_state", checked, cases.len(), skipped);
}

#[test]
fn storage_keys_are_keys() {
    // A header slot and a storage-zone slot are the two key lengths of the embedding.
    let address = keys::address32(&[1; 20]);
    let mut slot = [0u8; 32];
    assert!(matches!(
        keys::storage_slot_key::<Blake3>(&address, &slot),
        Key::Short(_)
    ));
    slot[31] = 64;
    assert!(matches!(
        keys::storage_slot_key::<Blake3>(&address, &slot),
        Key::Long(_)
    ));
}
