//! The embedding against EIP-6800's positions, go-ethereum's EIP-7864 keys and the EIP-8297
//! state vectors.

use super::*;
use serde_json::Value as Json;
use verkle::keys::TreePosition;
use verkle::U256;

fn shared(rel: &str) -> Json {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/binary-tree")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

fn leaf_of(p: &TreePosition) -> Leaf {
    Leaf::at(&p.tree_index.to_be_bytes(), p.sub_index)
}

#[test]
fn eip6800_positions_decode_to_their_leaves() {
    let slot = |v: &U256| Leaf::Storage(v.to_be_bytes());
    let big = U256::from_be_bytes(&[0xff; 32]);
    for (p, want) in [
        (TreePosition::header(0), Leaf::BasicData),
        (TreePosition::header(1), Leaf::CodeHash),
        (TreePosition::header(7), Leaf::Header(7)),
        (TreePosition::code_chunk(0), Leaf::CodeChunk(0)),
        (TreePosition::code_chunk(127), Leaf::CodeChunk(127)),
        (TreePosition::code_chunk(128), Leaf::CodeChunk(128)),
        (TreePosition::code_chunk(100_000), Leaf::CodeChunk(100_000)),
    ] {
        assert_eq!(leaf_of(&p), want, "{p:?}");
    }
    for s in [
        U256::from_u64(0),
        U256::from_u64(63),
        U256::from_u64(64),
        U256::from_u64(255),
        U256::from_u64(1 << 40),
        big,
    ] {
        assert_eq!(leaf_of(&TreePosition::storage_slot(&s)), slot(&s), "{s:?}");
    }
}

#[test]
fn eip7864_keys_are_eip6800_positions_hashed_with_the_tree_hash() {
    let account = AccountId {
        address: [0x42; 20],
        code: &[],
    };
    let a = address32(&account.address);
    let positions = [
        TreePosition::header(0),
        TreePosition::header(1),
        TreePosition::code_chunk(5),
        TreePosition::code_chunk(300),
        TreePosition::storage_slot(&U256::from_u64(3)),
        TreePosition::storage_slot(&U256::from_u64(100)),
        TreePosition::storage_slot(&U256::from_be_bytes(&[0xee; 32])),
    ];
    for p in positions {
        let (key, write) = key_write(BinaryKind::Eip7864Sha256, &account, leaf_of(&p), None)
            .unwrap()
            .unwrap();
        let want = eip7864::keys::tree_key::<Sha256>(&a, &p.tree_index.to_be_bytes(), p.sub_index);
        assert_eq!(key, want.to_vec(), "{p:?}");
        assert_eq!(write, Write::Unchanged);
        let (key, _) = key_write(BinaryKind::Eip7864Blake3, &account, leaf_of(&p), None)
            .unwrap()
            .unwrap();
        let want = eip7864::keys::tree_key::<Blake3>(&a, &p.tree_index.to_be_bytes(), p.sub_index);
        assert_eq!(key, want.to_vec(), "{p:?}");
    }
}

#[test]
fn eip7864_keys_match_go_ethereums() {
    let v = shared("eip7864/sha256_geth_vectors.json");
    let cases = v["tree_key_cases"].as_array().unwrap();
    assert!(cases.len() >= 3);
    for case in cases {
        let address: [u8; 20] =
            hex::decode(case["address"].as_str().unwrap().trim_start_matches("0x"))
                .unwrap()
                .try_into()
                .unwrap();
        let leaf = match case["kind"].as_str().unwrap() {
            "basic_data" => Leaf::BasicData,
            "storage_slot" => {
                let p = TreePosition::storage_slot(&U256::from_be_bytes(&hex32(
                    case["slot"].as_str().unwrap(),
                )));
                leaf_of(&p)
            }
            other => panic!("kind {other}"),
        };
        let account = AccountId { address, code: &[] };
        let (key, _) = key_write(BinaryKind::Eip7864Sha256, &account, leaf, None)
            .unwrap()
            .unwrap();
        assert_eq!(
            key,
            hex32(case["expected_key"].as_str().unwrap()).to_vec(),
            "{}",
            case["name"]
        );
    }
}

/// The accounts of a state vector (`balance` and storage as JSON integers, slots as decimal
/// strings).
pub(crate) fn vector_accounts(case: &Json) -> Vec<Account> {
    case["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let word = |n: u128| {
                let mut w = [0u8; 32];
                w[16..].copy_from_slice(&n.to_be_bytes());
                w
            };
            let num = |j: &Json| j.as_u64().map(u128::from).unwrap_or(0);
            Account {
                address: hex::decode(a["address"].as_str().unwrap().trim_start_matches("0x"))
                    .unwrap()
                    .try_into()
                    .unwrap(),
                nonce: a["nonce"].as_u64().unwrap_or(0),
                balance: a.get("balance").map(num).unwrap_or(0),
                code: a["code"]
                    .as_str()
                    .map(|c| hex::decode(c.trim_start_matches("0x")).unwrap())
                    .unwrap_or_default(),
                storage: a["storage"]
                    .as_object()
                    .map(|s| {
                        s.iter()
                            .map(|(k, v)| (word(k.parse().unwrap()), word(num(v))))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// An account's leaves as the generator names them: the EIP-6800 values of its basic data,
/// code hash, code chunks and storage.
fn eip6800_leaves(a: &Account) -> Vec<(Leaf, [u8; 32])> {
    let mut basic = [0u8; 32];
    basic[5..8].copy_from_slice(&(a.code.len() as u32).to_be_bytes()[1..]);
    basic[8..16].copy_from_slice(&a.nonce.to_be_bytes());
    basic[16..].copy_from_slice(&a.balance.to_be_bytes());
    let mut out = vec![
        (Leaf::BasicData, basic),
        (Leaf::CodeHash, keccak256(&a.code)),
    ];
    for (i, c) in code::chunkify(&a.code).into_iter().enumerate() {
        out.push((Leaf::CodeChunk(i as u64), c));
    }
    for (slot, value) in &a.storage {
        out.push((Leaf::Storage(*slot), *value));
    }
    out
}

#[test]
fn eip8297_leaf_by_leaf_writes_give_the_state_vectors_roots() {
    let v = shared("eip8297/eels_vectors.json");
    let cases = v["state_vectors"].as_array().unwrap();
    assert!(cases.len() >= 8);
    for case in cases {
        let accounts = vector_accounts(case);
        let want = hex32(case["root"].as_str().unwrap());
        // The whole-state embedding.
        let mut entries = Vec::new();
        for a in &accounts {
            entries.extend(account_entries(BinaryKind::Eip8297, a).unwrap());
        }
        let mut tree = eip8297::Tree::<Blake3>::new();
        tree.apply(entries.iter().map(|(k, v)| (k.as_slice(), Some(*v))))
            .unwrap();
        assert_eq!(tree.root(), want, "{} (account entries)", case["name"]);
        // Leaf by leaf, as blocks write them (zero values deleting).
        let mut tree = eip8297::Tree::<Blake3>::new();
        for a in &accounts {
            let id = AccountId {
                address: a.address,
                code: &a.code,
            };
            for (leaf, value) in eip6800_leaves(a) {
                let Some((key, write)) =
                    key_write(BinaryKind::Eip8297, &id, leaf, Some(&value)).unwrap()
                else {
                    continue;
                };
                match write {
                    Write::Set(v) => tree.insert(&key, &v).unwrap(),
                    Write::Delete => {
                        tree.remove(&key).unwrap();
                    }
                    Write::Unchanged => panic!("a write"),
                }
            }
        }
        assert_eq!(tree.root(), want, "{} (leaf by leaf)", case["name"]);
    }
}

#[test]
fn basic_data_is_each_trees_encoding() {
    let mut v = [0u8; 32];
    v[5..8].copy_from_slice(&[0x01, 0x02, 0x03]);
    v[15] = 9;
    v[31] = 7;
    assert_eq!(basic_data_fields(&v).unwrap(), (0x01_0203, 9, 7));
    let id = AccountId {
        address: [1; 20],
        code: &[],
    };
    for kind in [BinaryKind::Eip7864Sha256, BinaryKind::Eip8297] {
        let (_, w) = key_write(kind, &id, Leaf::BasicData, Some(&v))
            .unwrap()
            .unwrap();
        let want = match kind {
            BinaryKind::Eip8297 => eip8297::keys::basic_data(0x01_0203, 9, 7).unwrap(),
            _ => eip7864::keys::basic_data(0x01_0203, 9, 7).unwrap(),
        };
        assert_eq!(w, Write::Set(want));
        // Below 2^24 bytes of code, both encodings are EIP-6800's.
        assert_eq!(want, v);
    }
    v[0] = 1;
    assert!(basic_data_fields(&v).is_err());
}
