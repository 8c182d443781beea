//! Accounts in a binary tree: which key holds each piece of an account's state, and its value,
//! per tree.
//!
//! - EIP-7864 (go-ethereum's layout, `bintree::eip7864::keys`): the positions of EIP-6800 (a
//!   tree index and a sub-index: header at tree index 0, storage slots below 64 at 64 + slot,
//!   code chunk `c` at 128 + c, other slots at 256^31 + slot) hashed with the tree's hash,
//!   `H(address32 ‖ tree_index)[..31] ‖ sub_index`. Zero is a value like any other.
//! - EIP-8297 (`bintree::eip8297::keys`): the account header (basic data, code hash, storage
//!   slots below 64) under `0x00 ‖ H(address)`, code chunks under `0x01 ‖ H(code hash ‖
//!   chunk / 256)` (content-addressed: accounts with the same code share them), other slots
//!   in the storage zone; 32 zero bytes mean absent, so a write of zero deletes the key.
//!
//! The basic-data leaf is written with each tree's own encoding
//! (`eip7864::keys::basic_data`: code size in bytes 5..8, as EIP-6800;
//! `eip8297::keys::basic_data`: code size in bytes 4..8). The two agree with EIP-6800's leaf
//! for every code size below 2^24; the tree's function is the one used.

use anyhow::{anyhow, bail, Result};
use bintree::eip8297::state::Account;
use bintree::witness::Write;
use bintree::{code, eip7864, eip8297, keccak256, Blake3, Sha256, TreeHash};

use super::BinaryKind;

/// A piece of an account's state, named by what it is (its EIP-6800 position decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// The basic-data leaf (version, code size, nonce, balance).
    BasicData,
    /// The code-hash leaf.
    CodeHash,
    /// Another header sub-index below 64 (reserved in EIP-6800).
    Header(u8),
    /// Code chunk `n`.
    CodeChunk(u64),
    /// A storage slot (32 bytes big-endian).
    Storage([u8; 32]),
}

/// Code chunk 0's position.
const CODE_OFFSET: u64 = 128;

impl Leaf {
    /// The leaf at EIP-6800 position (`tree_index` 32 bytes big-endian, `sub_index`).
    pub fn at(tree_index: &[u8; 32], sub_index: u8) -> Leaf {
        let top = tree_index[0] != 0 || tree_index[1] != 0;
        if top {
            // Main storage: position = 256^31 + slot, so slot / 256 = tree_index − 256^30.
            let mut rest = *tree_index;
            let mut i = 1;
            loop {
                let (d, borrow) = rest[i].overflowing_sub(1);
                rest[i] = d;
                if !borrow || i == 0 {
                    break;
                }
                i -= 1;
            }
            let mut slot = [0u8; 32];
            slot[..31].copy_from_slice(&rest[1..]);
            slot[31] = sub_index;
            return Leaf::Storage(slot);
        }
        if tree_index.iter().all(|&b| b == 0) {
            return match sub_index {
                0 => Leaf::BasicData,
                1 => Leaf::CodeHash,
                s if s < 64 => Leaf::Header(s),
                s if s < 128 => {
                    let mut slot = [0u8; 32];
                    slot[31] = s - 64;
                    Leaf::Storage(slot)
                }
                s => Leaf::CodeChunk(u64::from(s) - CODE_OFFSET),
            };
        }
        // A code chunk beyond the header: position = 128 + chunk, below 256^30 · 256.
        let mut index = [0u8; 8];
        index.copy_from_slice(&tree_index[24..]);
        let index = u64::from_be_bytes(index);
        let chunk = if tree_index[2..24].iter().any(|&b| b != 0) {
            u64::MAX
        } else {
            index
                .saturating_mul(256)
                .saturating_add(u64::from(sub_index))
                .saturating_sub(CODE_OFFSET)
        };
        Leaf::CodeChunk(chunk)
    }
}

/// The EIP-6800 basic-data leaf's fields: code size (bytes 5..8), nonce (8..16), balance
/// (16..32); an error for a version other than 0.
pub fn basic_data_fields(value: &[u8; 32]) -> Result<(u64, u64, u128)> {
    if value[0] != 0 {
        bail!(
            "basic-data leaf of version {}: only version 0 is defined",
            value[0]
        );
    }
    let mut size = [0u8; 8];
    size[5..].copy_from_slice(&value[5..8]);
    let mut nonce = [0u8; 8];
    nonce.copy_from_slice(&value[8..16]);
    let mut balance = [0u8; 16];
    balance.copy_from_slice(&value[16..]);
    Ok((
        u64::from_be_bytes(size),
        u64::from_be_bytes(nonce),
        u128::from_be_bytes(balance),
    ))
}

/// What the embedding needs of an account besides the leaf: its address and its code's
/// Keccak-256 hash (EIP-8297's code zone is keyed by it), and whether its code is an
/// EIP-7702 delegation indicator (EIP-8297 stores those in the header).
#[derive(Clone, Copy, Debug)]
pub struct AccountId<'a> {
    /// The 20-byte address.
    pub address: [u8; 20],
    /// The account's code.
    pub code: &'a [u8],
}

fn address32(address: &[u8; 20]) -> [u8; 32] {
    eip8297::keys::address32(address)
}

fn eip7864_key<H: TreeHash>(address: &[u8; 20], leaf: Leaf) -> [u8; 32] {
    let a = address32(address);
    match leaf {
        Leaf::BasicData => eip7864::keys::basic_data_key::<H>(&a),
        Leaf::CodeHash => eip7864::keys::code_hash_key::<H>(&a),
        Leaf::Header(s) => eip7864::keys::tree_key::<H>(&a, &[0; 32], s),
        Leaf::CodeChunk(c) => eip7864::keys::code_chunk_key::<H>(&a, c),
        Leaf::Storage(slot) => eip7864::keys::storage_slot_key::<H>(&a, &slot),
    }
}

/// The key and write of `leaf` of `account` set to `value` (an EIP-6800 leaf value; `None`:
/// read only) in a tree of `kind`; `None` when the tree holds no such leaf (EIP-8297: the
/// code hash and chunks of a delegated account, whose indicator has its own leaf).
pub fn key_write(
    kind: BinaryKind,
    account: &AccountId<'_>,
    leaf: Leaf,
    value: Option<&[u8; 32]>,
) -> Result<Option<(Vec<u8>, Write)>> {
    let value = match (leaf, value) {
        (_, None) => None,
        (Leaf::BasicData, Some(v)) => {
            let (size, nonce, balance) = basic_data_fields(v)?;
            let encoded = match kind {
                BinaryKind::Eip8297 => eip8297::keys::basic_data(size, nonce, balance),
                _ => eip7864::keys::basic_data(size, nonce, balance),
            };
            Some(encoded.map_err(|e| anyhow!("basic-data leaf: {e}"))?)
        }
        (_, Some(v)) => Some(*v),
    };
    let key = match kind {
        BinaryKind::Eip7864Sha256 => eip7864_key::<Sha256>(&account.address, leaf).to_vec(),
        BinaryKind::Eip7864Blake3 => eip7864_key::<Blake3>(&account.address, leaf).to_vec(),
        BinaryKind::Eip8297 => {
            let a = address32(&account.address);
            let delegation = eip8297::keys::delegation_indicator(account.code);
            match leaf {
                Leaf::BasicData => eip8297::keys::basic_data_key::<Blake3>(&a).to_vec(),
                Leaf::CodeHash => match delegation {
                    Some(indicator) => {
                        let key = eip8297::keys::delegation_key::<Blake3>(&a).to_vec();
                        let write = value.map_or(Write::Unchanged, |_| {
                            Write::Set(eip8297::keys::delegation_value(indicator))
                        });
                        return Ok(Some((key, write)));
                    }
                    None => eip8297::keys::code_hash_key::<Blake3>(&a).to_vec(),
                },
                Leaf::Header(s) => eip8297::keys::header_key::<Blake3>(&a, s).to_vec(),
                Leaf::CodeChunk(_) if delegation.is_some() => return Ok(None),
                Leaf::CodeChunk(c) => {
                    eip8297::keys::code_chunk_key::<Blake3>(&keccak256(account.code), c).to_vec()
                }
                Leaf::Storage(slot) => eip8297::keys::storage_slot_key::<Blake3>(&a, &slot)
                    .as_bytes()
                    .to_vec(),
            }
        }
    };
    let write = match value {
        None => Write::Unchanged,
        Some(v) if kind == BinaryKind::Eip8297 && v == [0u8; 32] => Write::Delete,
        Some(v) => Write::Set(v),
    };
    Ok(Some((key, write)))
}

fn eip7864_entries<H: TreeHash>(account: &Account) -> Result<Vec<(Vec<u8>, [u8; 32])>> {
    let a = address32(&account.address);
    let basic =
        eip7864::keys::basic_data(account.code.len() as u64, account.nonce, account.balance)
            .map_err(|e| anyhow!("basic-data leaf: {e}"))?;
    let mut out = vec![
        (eip7864::keys::basic_data_key::<H>(&a).to_vec(), basic),
        (
            eip7864::keys::code_hash_key::<H>(&a).to_vec(),
            keccak256(&account.code),
        ),
    ];
    for (i, chunk) in code::chunkify(&account.code).into_iter().enumerate() {
        out.push((
            eip7864::keys::code_chunk_key::<H>(&a, i as u64).to_vec(),
            chunk,
        ));
    }
    for (slot, value) in &account.storage {
        if *value != [0u8; 32] {
            out.push((
                eip7864::keys::storage_slot_key::<H>(&a, slot).to_vec(),
                *value,
            ));
        }
    }
    Ok(out)
}

/// The entries a genesis account gives a tree of `kind`. EIP-7864: basic data, code hash
/// (Keccak-256 of the code, of the empty code for an account without), code chunks and the
/// non-zero storage slots, as geth writes an EIP-6800 genesis. EIP-8297: the state of
/// `eip8297::state::account_entries` (zero values absent, a delegation indicator in its own
/// leaf).
pub fn account_entries(kind: BinaryKind, account: &Account) -> Result<Vec<(Vec<u8>, [u8; 32])>> {
    match kind {
        BinaryKind::Eip7864Sha256 => eip7864_entries::<Sha256>(account),
        BinaryKind::Eip7864Blake3 => eip7864_entries::<Blake3>(account),
        BinaryKind::Eip8297 => Ok(eip8297::state::account_entries::<Blake3>(account)
            .map_err(|e| anyhow!("EIP-8297 embedding: {e}"))?
            .into_iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v))
            .collect()),
    }
}

#[cfg(test)]
pub(crate) mod tests;
