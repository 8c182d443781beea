//! A binary state's genesis: the accounts of a geth genesis document (`alloc`, or a bare alloc
//! object; plain, gzip or zstd) embedded in the tree ([`super::embed::account_entries`]) and
//! written at height 0. The same document gives the Verkle genesis (`crate::genesis`).
//!
//! The document is read as a stream ([`genesis::stream_genesis_accounts`], which checks its
//! shape as the Verkle genesis does): accounts are parsed one at a time with the `genesis`
//! crate's field readers and their entries applied in batches of [`BATCH_ACCOUNTS`] accounts,
//! so memory is bounded by a batch, not by the file.

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use bintree::eip8297::state::Account;
use serde_json::Value as Json;

use super::embed::account_entries;
use super::{BinaryKind, BinaryState};
use crate::input;

/// Accounts embedded per batch written to the state.
pub const BATCH_ACCOUNTS: usize = 50_000;

/// Meta key: the tree and hash a binary state holds (`eip7864/sha256`, …).
pub const META_KIND: &[u8] = b"binary_kind";
/// Meta key: the genesis root of a binary state.
pub const META_GENESIS_ROOT: &[u8] = b"binary_genesis_root";

/// What [`init_binary_genesis`] did.
#[derive(Clone, Debug)]
pub struct BinaryGenesis {
    /// The root after the genesis.
    pub root: [u8; 32],
    /// Accounts read.
    pub accounts: usize,
    /// Entries written.
    pub entries: usize,
    /// Milliseconds spent.
    pub ms: f64,
}

/// A hex string field, as [`genesis::hex_word`] reads it (up to 32 bytes, left-padded).
fn word(v: &Json) -> Result<[u8; 32], String> {
    let s = v.as_str().ok_or("expected a hex string")?;
    genesis::hex_word(s).map_err(|e| e.to_string())
}

/// One `alloc` entry as an account; errors name the field. The fields are read as the Verkle
/// genesis reads them (the `genesis` crate's readers), into the binary trees' account: the
/// balance may be absent (zero) and must fit the 16 bytes of basic data, `null` code and
/// storage are none, and storage keeps every slot as written (each tree's embedding decides
/// what a zero value means).
pub fn parse_account(name: &str, body: &Json) -> Result<Account, (&'static str, String)> {
    let address: [u8; 20] = genesis::hex_bytes(name)
        .map_err(|e| e.to_string())
        .and_then(|b| {
            b.try_into()
                .map_err(|b: Vec<u8>| format!("{} bytes, expected 20", b.len()))
        })
        .map_err(|e| ("address", e))?;
    let body = body
        .as_object()
        .ok_or(("account", "expected an object".to_string()))?;
    let number =
        |field: &'static str, v: &Json| genesis::number(v).map_err(|e| (field, e.to_string()));
    let balance = match body.get("balance") {
        None => 0,
        Some(v) => {
            let b = number("balance", v)?.to_be_bytes();
            if b[..16].iter().any(|&x| x != 0) {
                return Err(("balance", "above 2^128 − 1 (16 bytes in basic data)".into()));
            }
            let mut low = [0u8; 16];
            low.copy_from_slice(&b[16..]);
            u128::from_be_bytes(low)
        }
    };
    let nonce = match body.get("nonce") {
        None => 0,
        Some(v) => number("nonce", v)?
            .to_u64()
            .ok_or(("nonce", "above 2^64 − 1".to_string()))?,
    };
    let code = match body.get("code") {
        None | Some(Json::Null) => Vec::new(),
        Some(v) => {
            let s = v
                .as_str()
                .ok_or(("code", "expected a hex string".to_string()))?;
            genesis::hex_bytes(s).map_err(|e| ("code", e.to_string()))?
        }
    };
    let mut storage = Vec::new();
    match body.get("storage") {
        None | Some(Json::Null) => {}
        Some(Json::Object(slots)) => {
            for (k, v) in slots {
                let slot = genesis::hex_word(k).map_err(|e| ("storage key", e.to_string()))?;
                storage.push((slot, word(v).map_err(|e| ("storage value", e))?));
            }
        }
        Some(_) => return Err(("storage", "expected an object".into())),
    }
    Ok(Account {
        address,
        nonce,
        balance,
        code,
        storage,
    })
}

/// Where the streamed accounts go: embedded, batched and applied to the state.
struct Sink<'s> {
    state: &'s mut dyn BinaryState,
    kind: BinaryKind,
    name: &'s str,
    batch: Vec<(Vec<u8>, bintree::witness::Write)>,
    in_batch: usize,
    accounts: usize,
    entries: usize,
}

impl Sink<'_> {
    fn account(&mut self, address: &str, body: &Json) -> Result<()> {
        let name = self.name;
        let a = parse_account(address, body).map_err(|(field, reason)| {
            anyhow!("{name}: account {address}: field {field}: {reason}")
        })?;
        let entries = account_entries(self.kind, &a)
            .map_err(|e| e.context(format!("{name}: account {address}")))?;
        self.batch.extend(
            entries
                .into_iter()
                .map(|(k, v)| (k, bintree::witness::Write::Set(v))),
        );
        self.accounts += 1;
        self.in_batch += 1;
        if self.in_batch >= BATCH_ACCOUNTS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let batch = std::mem::take(&mut self.batch);
        self.in_batch = 0;
        self.entries += batch.len();
        let name = self.name;
        self.state
            .apply(&batch)
            .map_err(|e| e.context(format!("{name}: writing the genesis")))
    }
}

/// Writes the genesis at `path` into the empty binary `state` and persists it at height 0
/// (with the tree kind and the genesis root as meta).
pub fn init_binary_genesis(state: &mut dyn BinaryState, path: &Path) -> Result<BinaryGenesis> {
    let t = Instant::now();
    let name = path.display().to_string();
    if let Some(h) = state.height() {
        bail!("{name}: the binary state already holds height {h}; a genesis needs an empty one");
    }
    let kind = state.kind();
    let reader = input::open(path)?;
    let mut sink = Sink {
        state: &mut *state,
        kind,
        name: &name,
        batch: Vec::new(),
        in_batch: 0,
        accounts: 0,
        entries: 0,
    };
    genesis::stream_genesis_accounts(reader, &name, |address, body| sink.account(address, body))?;
    sink.flush()?;
    let (accounts, entries) = (sink.accounts, sink.entries);
    let root = state.root()?;
    let kind_name = format!("{}/{}", kind.tree(), kind.hash());
    state.persist(
        0,
        &[
            (META_KIND, kind_name.as_bytes()),
            (META_GENESIS_ROOT, &root[..]),
        ],
    )?;
    Ok(BinaryGenesis {
        root,
        accounts,
        entries,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary::memory::in_memory;

    #[test]
    fn the_eip8297_state_vectors_read_as_genesis_documents_give_their_roots() {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/binary-tree/eip8297/eels_vectors.json");
        let v: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for case in v["state_vectors"].as_array().unwrap() {
            let accounts = crate::binary::embed::tests::vector_accounts(case);
            let mut alloc = serde_json::Map::new();
            for a in &accounts {
                let storage: serde_json::Map<String, Json> = a
                    .storage
                    .iter()
                    .map(|(k, v)| {
                        (
                            format!("0x{}", hex::encode(k)),
                            Json::String(format!("0x{}", hex::encode(v))),
                        )
                    })
                    .collect();
                alloc.insert(
                    format!("0x{}", hex::encode(a.address)),
                    serde_json::json!({
                        "balance": a.balance.to_string(),
                        "nonce": format!("0x{:x}", a.nonce),
                        "code": format!("0x{}", hex::encode(&a.code)),
                        "storage": storage,
                    }),
                );
            }
            let path = dir.path().join("g.json");
            std::fs::write(&path, serde_json::json!({ "alloc": alloc }).to_string()).unwrap();
            let mut state = in_memory(BinaryKind::Eip8297);
            let g = init_binary_genesis(state.as_mut(), &path).unwrap();
            assert_eq!(
                crate::hexarg::to_hex(&g.root),
                case["root"].as_str().unwrap(),
                "{}",
                case["name"]
            );
            assert_eq!(state.height(), Some(0));
        }
    }

    #[test]
    fn a_bad_account_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.json");
        std::fs::write(
            &path,
            r#"{"alloc":{"0x1111111111111111111111111111111111111111":{"balance":"0x1"},
            "0x2222222222222222222222222222222222222222":{"balance":"zz"}}}"#,
        )
        .unwrap();
        let mut state = in_memory(BinaryKind::Eip7864Sha256);
        let e = init_binary_genesis(state.as_mut(), &path).unwrap_err();
        let msg = format!("{e:#}");
        assert!(
            msg.contains("0x2222222222222222222222222222222222222222"),
            "{msg}"
        );
        assert!(msg.contains("field balance"), "{msg}");
        let big = r#"{"0x1111111111111111111111111111111111111111":{"balance":"0x1000000000000000000000000000000000"}}"#;
        std::fs::write(&path, big).unwrap();
        let mut state = in_memory(BinaryKind::Eip7864Sha256);
        let msg = format!(
            "{:#}",
            init_binary_genesis(state.as_mut(), &path).unwrap_err()
        );
        assert!(msg.contains("above 2^128"), "{msg}");
    }

    #[test]
    fn a_bare_alloc_and_a_geth_genesis_give_one_root_and_broken_documents_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let account = r#""0x1111111111111111111111111111111111111111":{"balance":"1000","nonce":"0x2","code":"0x6001","storage":{"0x01":"0x05"}}"#;
        let geth = format!(r#"{{"config":{{"chainId":1}},"alloc":{{{account}}},"nonce":"0x0"}}"#);
        let bare = format!("{{{account}}}");
        let mut roots = Vec::new();
        for (i, text) in [geth, bare].iter().enumerate() {
            let path = dir.path().join(format!("g{i}.json"));
            std::fs::write(&path, text).unwrap();
            let mut state = in_memory(BinaryKind::Eip7864Blake3);
            let g = init_binary_genesis(state.as_mut(), &path).unwrap();
            assert_eq!((g.accounts, g.entries), (1, 4));
            roots.push(g.root);
            // A second genesis into the same state is refused.
            assert!(init_binary_genesis(state.as_mut(), &path).is_err());
        }
        assert_eq!(roots[0], roots[1]);
        for (i, text) in [
            "[1,2]",
            r#"{"alloc":{"0x11":{}"#,
            r#"{"alloc":{},"alloc":{}}"#,
            // The shape checks the Verkle genesis makes: a bare alloc's keys are addresses,
            // the top level is an object, accounts do not stand beside an `alloc`.
            r#"{"config":{"chainId":1}}"#,
            "7",
            r#"{"0x1111111111111111111111111111111111111111":{"balance":"1"},"alloc":{}}"#,
        ]
        .iter()
        .enumerate()
        {
            let path = dir.path().join(format!("bad{i}.json"));
            std::fs::write(&path, text).unwrap();
            let mut state = in_memory(BinaryKind::Eip8297);
            let msg = format!(
                "{:#}",
                init_binary_genesis(state.as_mut(), &path).unwrap_err()
            );
            assert!(msg.contains(&format!("bad{i}.json")), "{msg}");
        }
    }
}
