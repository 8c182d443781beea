//! Account-level diffs as EIP-6800 tree writes.
//!
//! Per account a transaction changed (in the order of its `pre` and `post` maps):
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
