//! EIP-7864@ca51874f "Tree embedding": `get_tree_key(address, tree_index, sub_index) =
//! hash(address32 ‖ u256be(tree_index))[:31] ‖ sub_index`.

use crate::{Error, TreeHash};

/// Sub-index of the basic-data leaf.
pub const BASIC_DATA_LEAF_KEY: u8 = 0;
/// Sub-index of the code-hash leaf.
pub const CODE_HASH_LEAF_KEY: u8 = 1;
/// First sub-index of the header's storage slots.
pub const HEADER_STORAGE_OFFSET: u64 = 64;
/// Position of code chunk 0.
pub const CODE_OFFSET: u64 = 128;
/// Leaves per stem.
pub const STEM_SUBTREE_WIDTH: u64 = 256;

/// `get_tree_key`: the first 31 bytes of `H(address32 ‖ tree_index)`, then `sub_index`.
/// `tree_index` is 32 bytes big-endian.
pub fn tree_key<H: TreeHash>(address: &[u8; 32], tree_index: &[u8; 32], sub_index: u8) -> [u8; 32] {
    let mut key = H::hash(&[address, tree_index]);
    key[31] = sub_index;
    key
}

/// The basic-data key of an account (`address` as `Address32`).
pub fn basic_data_key<H: TreeHash>(address: &[u8; 32]) -> [u8; 32] {
    tree_key::<H>(address, &[0; 32], BASIC_DATA_LEAF_KEY)
}

/// The code-hash key of an account.
pub fn code_hash_key<H: TreeHash>(address: &[u8; 32]) -> [u8; 32] {
    tree_key::<H>(address, &[0; 32], CODE_HASH_LEAF_KEY)
}

/// The key of code chunk `chunk_id`: position `128 + chunk_id`.
pub fn code_chunk_key<H: TreeHash>(address: &[u8; 32], chunk_id: u64) -> [u8; 32] {
    let pos = u128::from(chunk_id) + u128::from(CODE_OFFSET);
    let mut tree_index = [0u8; 32];
    tree_index[16..].copy_from_slice(&(pos / 256).to_be_bytes());
    tree_key::<H>(address, &tree_index, (pos % 256) as u8)
}

/// The key of storage slot `slot` (32 bytes big-endian): position `64 + slot` for slots below
/// 64, else `256^31 + slot`. Tree index and sub-index are position / 256 and position % 256.
pub fn storage_slot_key<H: TreeHash>(address: &[u8; 32], slot: &[u8; 32]) -> [u8; 32] {
    let header = CODE_OFFSET - HEADER_STORAGE_OFFSET;
    if slot[..31].iter().all(|&b| b == 0) && u64::from(slot[31]) < header {
        return tree_key::<H>(address, &[0; 32], HEADER_STORAGE_OFFSET as u8 + slot[31]);
    }
    // position / 256 = slot / 256 + 256^30, a carry running up from byte 1.
    let mut tree_index = [0u8; 32];
    tree_index[1..].copy_from_slice(&slot[..31]);
    let mut i = 1;
    loop {
        let (sum, carry) = tree_index[i].overflowing_add(1);
        tree_index[i] = sum;
        if !carry || i == 0 {
            break;
        }
        i -= 1;
    }
    tree_key::<H>(address, &tree_index, slot[31])
}

/// The basic-data leaf: version 0 at byte 0, `code_size` in bytes 5..8, `nonce` in 8..16,
/// `balance` in 16..32, all big-endian.
pub fn basic_data(code_size: u64, nonce: u64, balance: u128) -> Result<[u8; 32], Error> {
    if code_size >= 1 << 24 {
        return Err(Error::FieldOverflow {
            field: "code_size",
            value: code_size,
            bytes: 3,
        });
    }
    let mut value = [0u8; 32];
    value[5..8].copy_from_slice(&code_size.to_be_bytes()[5..]);
    value[8..16].copy_from_slice(&nonce.to_be_bytes());
    value[16..32].copy_from_slice(&balance.to_be_bytes());
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sha256;

    #[test]
    fn layout() {
        let a = [7u8; 32];
        assert_eq!(code_chunk_key::<Sha256>(&a, 0)[31], 128);
        assert_eq!(
            code_chunk_key::<Sha256>(&a, 128),
            tree_key::<Sha256>(
                &a,
                &{
                    let mut t = [0; 32];
                    t[31] = 1;
                    t
                },
                0
            )
        );
        let mut slot = [0u8; 32];
        slot[31] = 64;
        let mut index = [0u8; 32];
        index[1] = 1;
        assert_eq!(
            storage_slot_key::<Sha256>(&a, &slot),
            tree_key::<Sha256>(&a, &index, 64)
        );
        assert_eq!(
            basic_data(0x12_3456, 1, 2).unwrap()[5..8],
            [0x12, 0x34, 0x56]
        );
        assert!(basic_data(1 << 24, 0, 0).is_err());
    }
}
