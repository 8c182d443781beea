//! A whole EIP-8297 state from accounts ("Tree embedding", "Zero values and deletion").
//!
//! Each account contributes its basic-data leaf; either its code-hash leaf (Keccak-256 of the
//! code) and its code chunks under that hash in the code zone, or, for a 23-byte EIP-7702
//! indicator, the delegation leaf alone; and its storage. Every 32-zero value is absent.

use super::keys::{self, Key};
use super::Tree;
use crate::prelude::*;
use crate::{code, hash::keccak256, Error, TreeHash};

/// One account of a state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Account {
    /// The 20-byte address.
    pub address: [u8; 20],
    /// The nonce.
    pub nonce: u64,
    /// The balance (16 bytes in the basic-data leaf).
    pub balance: u128,
    /// The code, or an EIP-7702 delegation indicator.
    pub code: Vec<u8>,
    /// Storage slots and values, both 32 bytes big-endian.
    pub storage: Vec<([u8; 32], [u8; 32])>,
}

/// The key/value entries of `account`, in the order: basic data, code hash or delegation,
/// code chunks, storage. Values of 32 zero bytes are left out.
pub fn account_entries<H: TreeHash>(account: &Account) -> Result<Vec<(Key, [u8; 32])>, Error> {
    let address = keys::address32(&account.address);
    let mut entries = Vec::new();
    let basic = keys::basic_data(account.code.len() as u64, account.nonce, account.balance)?;
    entries.push((Key::Short(keys::basic_data_key::<H>(&address)), basic));
    if let Some(indicator) = keys::delegation_indicator(&account.code) {
        let value = keys::delegation_value(indicator);
        entries.push((Key::Short(keys::delegation_key::<H>(&address)), value));
    } else {
        let code_hash = keccak256(&account.code);
        entries.push((Key::Short(keys::code_hash_key::<H>(&address)), code_hash));
        for (i, chunk) in code::chunkify(&account.code).into_iter().enumerate() {
            entries.push((
                Key::Short(keys::code_chunk_key::<H>(&code_hash, i as u64)),
                chunk,
            ));
        }
    }
    for (slot, value) in &account.storage {
        entries.push((keys::storage_slot_key::<H>(&address, slot), *value));
    }
    entries.retain(|(_, value)| *value != [0u8; 32]);
    Ok(entries)
}

/// A tree holding the state of `accounts`. Accounts with the same code share its chunks.
pub fn state_tree<H: TreeHash>(accounts: &[Account]) -> Result<Tree<H>, Error> {
    let mut writes = Vec::new();
    for account in accounts {
        writes.extend(
            account_entries::<H>(account)?
                .into_iter()
                .map(|(k, v)| (k, Some(v))),
        );
    }
    let mut tree = Tree::new();
    tree.apply(writes)?;
    Ok(tree)
}

/// The state root of `accounts`.
pub fn state_root<H: TreeHash>(accounts: &[Account]) -> Result<[u8; 32], Error> {
    Ok(state_tree::<H>(accounts)?.root())
}
