//! EIP-8297 "Tree embedding": which key holds each piece of account state.
//!
//! Keys are `zone ‖ tree position ‖ sub-index`: 34 bytes in the account-header zone `0x00`
//! and the code zone `0x01`, 66 bytes in the storage zone `0xFF`. The tree position is
//! `key_hash(...)` = the tree's hash `H`.

use crate::{Error, TreeHash};

/// Sub-index of the basic-data leaf in the account header.
pub const BASIC_DATA_LEAF_KEY: u8 = 0;
/// Sub-index of the code-hash leaf in the account header.
pub const CODE_HASH_LEAF_KEY: u8 = 1;
/// Sub-index of the EIP-7702 delegation leaf in the account header.
pub const DELEGATION_LEAF_KEY: u8 = 2;
/// First header sub-index holding a storage slot.
pub const HEADER_STORAGE_OFFSET: u8 = 64;
/// Storage slots `0..64` live in the account header.
pub const HEADER_STORAGE_SLOTS: u8 = 64;
/// Leaves per stem (the sub-index is one byte).
pub const STEM_SUBTREE_WIDTH: u64 = 256;
/// Zone byte of account headers.
pub const ACCOUNT_ZONE: u8 = 0x00;
/// Zone byte of code chunks (content-addressed by code hash).
pub const CODE_ZONE: u8 = 0x01;
/// Zone byte of storage slots `≥ 64`.
pub const STORAGE_ZONE: u8 = 0xFF;
/// Length of an account-header key.
pub const ACCOUNT_KEY_LENGTH: usize = 34;
/// Length of a code-chunk key.
pub const CODE_KEY_LENGTH: usize = 34;
/// Length of a storage-zone key.
pub const STORAGE_KEY_LENGTH: usize = 66;
/// Length of the EIP-7702 delegation indicator `0xef0100 ‖ target`.
pub const DELEGATION_INDICATOR_LENGTH: usize = 23;
/// The first three bytes of an EIP-7702 delegation indicator.
pub const DELEGATION_PREFIX: [u8; 3] = [0xef, 0x01, 0x00];

/// A key this embedding produces: 34 bytes (header, code) or 66 bytes (storage zone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// An account-header or code-zone key.
    Short([u8; 34]),
    /// A storage-zone key.
    Long([u8; 66]),
}

impl Key {
    /// The key's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Key::Short(k) => k,
            Key::Long(k) => k,
        }
    }
}

impl AsRef<[u8]> for Key {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// `address20_to_address32`: 12 zero bytes, then the address.
pub fn address32(address: &[u8; 20]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[12..].copy_from_slice(address);
    out
}

/// `get_tree_key_for_header`: `0x00 ‖ H(address) ‖ sub_index`.
pub fn header_key<H: TreeHash>(address: &[u8; 32], sub_index: u8) -> [u8; 34] {
    let mut key = [0u8; 34];
    key[0] = ACCOUNT_ZONE;
    key[1..33].copy_from_slice(&H::hash(&[address]));
    key[33] = sub_index;
    key
}

/// The basic-data key of an account.
pub fn basic_data_key<H: TreeHash>(address: &[u8; 32]) -> [u8; 34] {
    header_key::<H>(address, BASIC_DATA_LEAF_KEY)
}

/// The code-hash key of an account.
pub fn code_hash_key<H: TreeHash>(address: &[u8; 32]) -> [u8; 34] {
    header_key::<H>(address, CODE_HASH_LEAF_KEY)
}

/// The delegation key of an account (EIP-7702 indicator, "Delegation").
pub fn delegation_key<H: TreeHash>(address: &[u8; 32]) -> [u8; 34] {
    header_key::<H>(address, DELEGATION_LEAF_KEY)
}

/// The 32-byte value of the delegation leaf: the 23-byte indicator and nine zero bytes.
pub fn delegation_value(indicator: &[u8; DELEGATION_INDICATOR_LENGTH]) -> [u8; 32] {
    let mut value = [0u8; 32];
    value[..DELEGATION_INDICATOR_LENGTH].copy_from_slice(indicator);
    value
}

/// The indicator if `code` is an EIP-7702 delegation indicator (`0xef0100 ‖ 20-byte target`).
pub fn delegation_indicator(code: &[u8]) -> Option<&[u8; DELEGATION_INDICATOR_LENGTH]> {
    let indicator: &[u8; DELEGATION_INDICATOR_LENGTH] = code.try_into().ok()?;
    (indicator[..3] == DELEGATION_PREFIX).then_some(indicator)
}

/// `get_tree_key_for_code_chunk`: `0x01 ‖ H(code_hash ‖ u256be(chunk_id / 256)) ‖ chunk_id % 256`.
pub fn code_chunk_key<H: TreeHash>(code_hash: &[u8; 32], chunk_id: u64) -> [u8; 34] {
    let tree_index = u256_be(chunk_id / STEM_SUBTREE_WIDTH);
    let mut key = [0u8; 34];
    key[0] = CODE_ZONE;
    key[1..33].copy_from_slice(&H::hash(&[code_hash, &tree_index]));
    key[33] = (chunk_id % STEM_SUBTREE_WIDTH) as u8;
    key
}

/// `get_tree_key_for_storage_slot` for a slot given as 32 bytes big-endian: slots below 64 in
/// the header at `64 + slot`, the others `0xFF ‖ H(address) ‖ H(address ‖ slot / 256) ‖ slot % 256`.
pub fn storage_slot_key<H: TreeHash>(address: &[u8; 32], slot: &[u8; 32]) -> Key {
    if slot[..31].iter().all(|&b| b == 0) && slot[31] < HEADER_STORAGE_SLOTS {
        return Key::Short(header_key::<H>(address, HEADER_STORAGE_OFFSET + slot[31]));
    }
    let mut tree_index = [0u8; 32];
    tree_index[1..].copy_from_slice(&slot[..31]);
    let mut key = [0u8; 66];
    key[0] = STORAGE_ZONE;
    key[1..33].copy_from_slice(&H::hash(&[address]));
    key[33..65].copy_from_slice(&H::hash(&[address, &tree_index]));
    key[65] = slot[31];
    Key::Long(key)
}

/// The basic-data leaf ("Header values"): version 0 at byte 0, `code_size` in bytes 4..8,
/// `nonce` in 8..16, `balance` in 16..32, all big-endian.
pub fn basic_data(code_size: u64, nonce: u64, balance: u128) -> Result<[u8; 32], Error> {
    let code_size = u32::try_from(code_size).map_err(|_| Error::FieldOverflow {
        field: "code_size",
        value: code_size,
        bytes: 4,
    })?;
    let mut value = [0u8; 32];
    value[4..8].copy_from_slice(&code_size.to_be_bytes());
    value[8..16].copy_from_slice(&nonce.to_be_bytes());
    value[16..32].copy_from_slice(&balance.to_be_bytes());
    Ok(value)
}

/// `n` as 32 bytes big-endian.
pub(crate) fn u256_be(n: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[24..].copy_from_slice(&n.to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Blake3;

    #[test]
    fn eip_test_cases_layout() {
        let a = address32(&[0xaa; 20]);
        let h = Blake3::hash(&[&a]);
        let key = storage_slot_key::<Blake3>(&a, &u256_be(5));
        assert_eq!(key.as_bytes()[33], 0x45);
        assert_eq!(&key.as_bytes()[1..33], &h);
        let key = storage_slot_key::<Blake3>(&a, &u256_be(1000));
        let bytes = key.as_bytes();
        assert_eq!(bytes.len(), STORAGE_KEY_LENGTH);
        assert_eq!(&bytes[33..65], &Blake3::hash(&[&a, &u256_be(3)]));
        assert_eq!(bytes[65], 0xe8);
        let c = [0xbb; 32];
        let key = code_chunk_key::<Blake3>(&c, 300);
        assert_eq!(&key[1..33], &Blake3::hash(&[&c, &u256_be(1)]));
        assert_eq!(key[33], 0x2c);
        assert!(basic_data(1 << 32, 0, 0).is_err());
        assert!(delegation_indicator(&[0xef, 1, 0]).is_none());
    }
}
