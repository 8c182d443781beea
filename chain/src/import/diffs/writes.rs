//! Account-level diffs as EIP-6800 tree writes.
//!
//! Per account a transaction changed (in address order):
//! - the account as it ends: each field of `post`, else of `pre` (absent = unchanged);
//! - a new account (no code-hash leaf in the tree, or a zeroed one): every header leaf of
//!   the layout ([`Layout::header_leaves`]); an existing one: the header leaves whose value
//!   changed;
//! - a code change: every chunk of the new code ([`verkle::keys::chunkify_code`], with
//!   push-data counts), and zero for the chunks of the old code beyond it;
//! - each slot of `post.storage`; a slot of `pre.storage` missing from `post.storage` was
//!   cleared (geth leaves zeros out of `post`): 32 zero bytes. A zero value is written as
//!   32 zero bytes too: a Verkle tree has no deletion;
//! - an account of `pre` missing from `post` was deleted: its header leaves, the chunks of
//!   its code and the slots `pre` lists are written as zeros.
//!
//! Later transactions' writes to a key replace earlier ones.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::{anyhow, Result};
use verkle::keys::{
    address32, chunkify_code, AccountKeys, AccountState, Layout, TreeKey, Value, CODE_HASH_LEAF_KEY,
};
use verkle::U256;

use super::reader::{AccountDiff, DiffBlock};
use crate::state::State;

const ZERO: Value = [0u8; 32];

/// A block's writes and what changed.
#[derive(Debug, Default)]
pub struct BlockWrites {
    /// Tree key → new value (the last write of the block).
    pub writes: BTreeMap<TreeKey, Value>,
    /// Distinct accounts changed.
    pub accounts: usize,
    /// Accounts created (no header in the tree before).
    pub created: usize,
    /// Accounts deleted.
    pub deleted: usize,
    /// Distinct storage slots written.
    pub slots: usize,
    /// Bytes of code written (new code, all of it).
    pub code_bytes: u64,
}

/// An account's full fields at one point.
struct Full<'a> {
    balance: U256,
    nonce: u64,
    code: &'a [u8],
}

impl Full<'_> {
    fn state(&self) -> AccountState<'_> {
        AccountState {
            version: 0,
            balance: self.balance,
            nonce: self.nonce,
            code: self.code,
            storage: &[],
        }
    }
}

fn code_hash_suffix(layout: Layout) -> u8 {
    match layout {
        Layout::Eip6800 => CODE_HASH_LEAF_KEY,
        Layout::Legacy => verkle::keys::legacy::CODE_KECCAK_LEAF_KEY,
    }
}

/// Converts blocks of diffs into writes, reading the state for whether an account exists.
pub struct Converter {
    layout: Layout,
    keys: HashMap<[u8; 20], AccountKeys>,
}

impl Converter {
    /// A converter for `layout`.
    pub fn new(layout: Layout) -> Converter {
        Converter {
            layout,
            keys: HashMap::new(),
        }
    }

    fn keys(&mut self, address: &[u8; 20]) -> &AccountKeys {
        self.keys
            .entry(*address)
            .or_insert_with(|| AccountKeys::new(&address32(address)))
    }

    /// The writes of `block` against `state` (the state before it; not modified).
    pub fn convert(&mut self, block: &DiffBlock, state: &mut dyn State) -> Result<BlockWrites> {
        // Address hashes are kept for one block: memory stays proportional to a block.
        self.keys.clear();
        let mut out = BlockWrites::default();
        let mut accounts = BTreeSet::new();
        let mut slots = BTreeSet::new();
        for (i, tx) in block.txs.iter().enumerate() {
            let empty = AccountDiff::default();
            let addresses: BTreeSet<&[u8; 20]> = tx.pre.keys().chain(tx.post.keys()).collect();
            for addr in addresses {
                let pre = tx.pre.get(addr).unwrap_or(&empty);
                let post = tx.post.get(addr);
                let side = if post.is_some() { "post" } else { "pre" };
                let field = || format!("traces[{i}].result.{side}.0x{}", hex::encode(addr));
                accounts.insert(*addr);
                self.account(addr, pre, post, state, &mut out, &mut slots)
                    .map_err(|e| anyhow!("{}: field {}: {e:#}", block.origin, field()))?;
            }
        }
        out.accounts = accounts.len();
        out.slots = slots.len();
        Ok(out)
    }

    fn account(
        &mut self,
        addr: &[u8; 20],
        pre: &AccountDiff,
        post: Option<&AccountDiff>,
        state: &mut dyn State,
        out: &mut BlockWrites,
        slots: &mut BTreeSet<([u8; 20], [u8; 32])>,
    ) -> Result<()> {
        let layout = self.layout;
        let keys = self.keys(addr).clone();
        let before = Full {
            balance: pre.balance.unwrap_or(U256::ZERO),
            nonce: pre.nonce.unwrap_or(0),
            code: pre.code.as_deref().unwrap_or(&[]),
        };
        let Some(post) = post else {
            // Deleted: zero what the account had.
            out.deleted += 1;
            let mut suffixes: Vec<u8> = layout
                .header_leaves(&before.state())
                .map(|l| l.into_iter().map(|(s, _)| s).collect())
                .unwrap_or_else(|_| (0..=4).collect());
            if layout == Layout::Eip6800 {
                suffixes.retain(|s| *s <= CODE_HASH_LEAF_KEY);
            }
            for s in suffixes {
                out.writes.insert(keys.header_key(s), ZERO);
            }
            let chunks = before.code.len().div_ceil(31) as u64;
            for k in keys.code_chunk_keys(chunks) {
                out.writes.insert(k, ZERO);
            }
            for slot in pre.storage.keys() {
                slots.insert((*addr, *slot));
                out.writes
                    .insert(keys.storage_slot_key(&U256::from_be_bytes(slot)), ZERO);
            }
            return Ok(());
        };
        let after = Full {
            balance: post.balance.or(pre.balance).unwrap_or(U256::ZERO),
            nonce: post.nonce.or(pre.nonce).unwrap_or(0),
            code: post.code.as_deref().or(pre.code.as_deref()).unwrap_or(&[]),
        };
        let hash_key = keys.header_key(code_hash_suffix(layout));
        let existing = match out.writes.get(&hash_key) {
            Some(v) => Some(*v),
            None => state.get(&hash_key)?,
        };
        let exists = existing.is_some_and(|v| v != ZERO);
        let new_leaves = layout.header_leaves(&after.state())?;
        if exists {
            let old_leaves = layout.header_leaves(&before.state()).unwrap_or_default();
            for (s, v) in &new_leaves {
                if !old_leaves.contains(&(*s, *v)) {
                    out.writes.insert(keys.header_key(*s), *v);
                }
            }
            for (s, _) in &old_leaves {
                if !new_leaves.iter().any(|(n, _)| n == s) {
                    out.writes.insert(keys.header_key(*s), ZERO);
                }
            }
        } else {
            out.created += 1;
            for (s, v) in &new_leaves {
                out.writes.insert(keys.header_key(*s), *v);
            }
        }
        if after.code != before.code || (!exists && !after.code.is_empty()) {
            out.code_bytes += after.code.len() as u64;
            let chunks = chunkify_code(after.code);
            let old = before.code.len().div_ceil(31) as u64;
            let all = keys.code_chunk_keys(old.max(chunks.len() as u64));
            for (j, k) in all.into_iter().enumerate() {
                out.writes.insert(k, chunks.get(j).copied().unwrap_or(ZERO));
            }
        }
        for (slot, value) in &post.storage {
            slots.insert((*addr, *slot));
            out.writes
                .insert(keys.storage_slot_key(&U256::from_be_bytes(slot)), *value);
        }
        for slot in pre.storage.keys() {
            if !post.storage.contains_key(slot) {
                slots.insert((*addr, *slot));
                out.writes
                    .insert(keys.storage_slot_key(&U256::from_be_bytes(slot)), ZERO);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::diffs::reader::parse_line;
    use crate::state::MemoryState;
    use verkle::keys::{account_leaves, keccak256, BasicData, EMPTY_CODE_HASH};

    const A: [u8; 20] = [0xaa; 20];
    const C: [u8; 20] = [0xcc; 20];

    fn word(x: u8) -> [u8; 32] {
        let mut w = [0u8; 32];
        w[31] = x;
        w
    }

    /// A state holding account A (balance 100, nonce 1) and contract C (code, slots 1
    /// and 300), in `layout`.
    fn state(layout: Layout) -> MemoryState {
        let mut s = MemoryState::new();
        let code = [0x60u8, 0x01, 0x60, 0x00, 0x55];
        let storage = [(U256::from_u64(1), word(5)), (U256::from_u64(300), word(6))];
        let mut writes = Vec::new();
        for (addr, balance, nonce, code, storage) in [
            (A, 100, 1, &[][..], &[][..]),
            (C, 0, 1, &code[..], &storage[..]),
        ] {
            let st = AccountState {
                version: 0,
                balance: U256::from_u64(balance),
                nonce,
                code,
                storage,
            };
            for (k, v) in account_leaves(layout, &address32(&addr), &st).unwrap() {
                writes.push((k, Some(v)));
            }
        }
        s.apply(&writes).unwrap();
        s
    }

    fn convert(layout: Layout, s: &mut MemoryState, traces: &str) -> BlockWrites {
        let block = parse_line("t", 1, &format!(r#"{{"number":1,"traces":{traces}}}"#)).unwrap();
        Converter::new(layout).convert(&block, s).unwrap()
    }

    fn a(addr: &[u8; 20]) -> String {
        format!("0x{}", hex::encode(addr))
    }

    #[test]
    fn header_storage_code_and_clears() {
        for layout in [Layout::Eip6800, Layout::Legacy] {
            let mut s = state(layout);
            let (ka, kc) = (
                AccountKeys::new(&address32(&A)),
                AccountKeys::new(&address32(&C)),
            );
            let new = [0x01u8; 20];
            let kn = AccountKeys::new(&address32(&new));
            // Tx 0: A pays 10 and bumps its nonce; C's slot 1 is cleared (left out of post,
            // as geth does), slot 300 set to zero explicitly, slot 2 (header storage) and
            // slot 2^80 (main storage) set. Tx 1: A creates a contract with 40 code bytes.
            let big = format!("0x{}{}", "00".repeat(21), "01".repeat(11));
            let code = format!("0x7f{}60", "ee".repeat(38));
            let traces = format!(
                r#"[{{"result":{{"pre":{{"{a}":{{"balance":"0x64","nonce":1}},
                    "{c}":{{"balance":"0x0","nonce":1,"code":"0x6001600055","storage":{{"0x{s1}":"0x{v5}","0x{s300}":"0x{v6}"}}}}}},
                  "post":{{"{a}":{{"balance":"0x5a","nonce":2}},"{c}":{{"storage":{{"0x{s300}":"0x{z}","0x{s2}":"0x{v7}","{big}":"0x{v7}"}}}}}}}}}},
                 {{"result":{{"pre":{{"{a}":{{"balance":"0x5a","nonce":2}},"{n}":{{"balance":"0x0"}}}},
                  "post":{{"{a}":{{"nonce":3}},"{n}":{{"balance":"0x1","nonce":1,"code":"{code}"}}}}}}}}]"#,
                a = a(&A),
                c = a(&C),
                n = a(&new),
                s1 = hex::encode(word(1)),
                s2 = hex::encode(word(2)),
                s300 = hex::encode(U256::from_u64(300).to_be_bytes()),
                v5 = hex::encode(word(5)),
                v6 = hex::encode(word(6)),
                v7 = hex::encode(word(7)),
                z = hex::encode([0u8; 32]),
            );
            let w = convert(layout, &mut s, &traces);
            assert_eq!((w.accounts, w.created, w.deleted, w.slots), (3, 1, 0, 4));
            assert_eq!(w.code_bytes, 40);
            let slot_key = |k: &AccountKeys, n: u64| k.storage_slot_key(&U256::from_u64(n));
            assert_eq!(w.writes[&slot_key(&kc, 1)], ZERO, "cleared: zero");
            assert_eq!(w.writes[&slot_key(&kc, 300)], ZERO, "set to zero: zero");
            assert_eq!(w.writes[&slot_key(&kc, 2)], word(7));
            let big_slot = U256::from_be_slice(&hex::decode(&big[2..]).unwrap()).unwrap();
            assert_eq!(w.writes[&kc.storage_slot_key(&big_slot)], word(7));
            let code_bytes = hex::decode(&code[2..]).unwrap();
            let chunks = chunkify_code(&code_bytes);
            assert_eq!(chunks.len(), 2);
            assert_eq!(chunks[1][0], 2, "PUSH32 data carried into chunk 1");
            assert_eq!(w.writes[&kn.code_chunk_key(0)], chunks[0]);
            assert_eq!(w.writes[&kn.code_chunk_key(1)], chunks[1]);
            match layout {
                Layout::Eip6800 => {
                    let basic = BasicData::from_bytes(&w.writes[&ka.header_key(0)]);
                    assert_eq!((basic.balance, basic.nonce), (90, 3));
                    assert!(
                        !w.writes.contains_key(&ka.header_key(1)),
                        "code hash unchanged"
                    );
                    let basic = BasicData::from_bytes(&w.writes[&kn.header_key(0)]);
                    assert_eq!((basic.balance, basic.nonce, basic.code_size), (1, 1, 40));
                    assert_eq!(w.writes[&kn.header_key(1)], keccak256(&code_bytes));
                    // A: basic data; C: 4 slots; new: 2 header leaves + 2 chunks.
                    assert_eq!(w.writes.len(), 1 + 4 + 4);
                }
                Layout::Legacy => {
                    assert_eq!(
                        w.writes[&ka.header_key(1)],
                        U256::from_u64(90).to_le_bytes()
                    );
                    assert_eq!(w.writes[&ka.header_key(2)], U256::from_u64(3).to_le_bytes());
                    assert!(
                        !w.writes.contains_key(&ka.header_key(0)),
                        "version unchanged"
                    );
                    assert_eq!(w.writes[&kn.header_key(3)], keccak256(&code_bytes));
                    assert_eq!(
                        w.writes[&kn.header_key(4)],
                        U256::from_u64(40).to_le_bytes()
                    );
                    assert_eq!(w.writes[&kn.header_key(0)], ZERO, "version 0 written");
                    assert_eq!(w.writes.len(), 2 + 4 + 5 + 2);
                }
            }
        }
    }

    #[test]
    fn deletion_zeroes_the_account_and_recreation_writes_it_whole() {
        for layout in [Layout::Eip6800, Layout::Legacy] {
            let mut s = state(layout);
            let kc = AccountKeys::new(&address32(&C));
            let pre = format!(
                r#"{{"{c}":{{"balance":"0x0","nonce":1,"code":"0x6001600055","storage":{{"0x01":"0x05"}}}}}}"#,
                c = a(&C)
            );
            let traces = format!(
                r#"[{{"result":{{"pre":{pre},"post":{{}}}}}},
                    {{"result":{{"pre":{{"{c}":{{"balance":"0x0"}}}},"post":{{"{c}":{{"balance":"0x2"}}}}}}}}]"#,
                c = a(&C)
            );
            // Deletion alone.
            let only = format!(r#"[{{"result":{{"pre":{pre},"post":{{}}}}}}]"#);
            let w = convert(layout, &mut s, &only);
            assert_eq!((w.deleted, w.slots, w.code_bytes), (1, 1, 0));
            let header = match layout {
                Layout::Eip6800 => 2,
                Layout::Legacy => 5,
            };
            assert_eq!(
                w.writes.len(),
                header + 1 + 1,
                "header, one chunk, one slot"
            );
            assert!(w.writes.values().all(|v| *v == ZERO));
            assert_eq!(w.writes[&kc.storage_slot_key(&U256::from_u64(1))], ZERO);
            // Deleted, then created again in the same block: every header leaf written.
            let w = convert(layout, &mut s, &traces);
            assert_eq!((w.deleted, w.created), (1, 1));
            let hash_key = kc.header_key(code_hash_suffix(layout));
            assert_eq!(w.writes[&hash_key], EMPTY_CODE_HASH);
            assert_eq!(w.writes[&kc.code_chunk_key(0)], ZERO);
        }
    }
}
