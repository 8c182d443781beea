//! Account layouts: which header leaves an account has and how their values are packed.
//!
//! Two eras exist and must not be mixed (vectors/README "Two eras of account layout"):
//! - [`Layout::Eip6800`] (current EIP, Kaustinen 7, EEST fixtures): suffix 0 = BASIC_DATA,
//!   big-endian `version(1) ‖ reserved(4) ‖ code_size(3) ‖ nonce(8) ‖ balance(16)`;
//!   suffix 1 = code hash.
//! - [`Layout::Legacy`] (Kaustinen 2–6, devnet6, the go-verkle tree vectors): suffix 0 =
//!   version, 1 = balance, 2 = nonce, 3 = code keccak, 4 = code size, each a 32-byte
//!   little-endian integer (the keccak as its 32 bytes).

use sha3::{Digest, Keccak256};

use super::key::Value;
use super::uint::U256;
use crate::prelude::*;

/// Suffix of the BASIC_DATA leaf ([`Layout::Eip6800`]).
pub const BASIC_DATA_LEAF_KEY: u8 = 0;
/// Suffix of the code-hash leaf ([`Layout::Eip6800`]).
pub const CODE_HASH_LEAF_KEY: u8 = 1;

/// `keccak256("")`: the code hash of an account without code.
pub const EMPTY_CODE_HASH: [u8; 32] = [
    0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03, 0xc0,
    0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70,
];

/// Header suffixes of [`Layout::Legacy`].
pub mod legacy {
    /// Version (32-byte little-endian integer).
    pub const VERSION_LEAF_KEY: u8 = 0;
    /// Balance (32-byte little-endian integer).
    pub const BALANCE_LEAF_KEY: u8 = 1;
    /// Nonce (32-byte little-endian integer).
    pub const NONCE_LEAF_KEY: u8 = 2;
    /// Keccak-256 of the code.
    pub const CODE_KECCAK_LEAF_KEY: u8 = 3;
    /// Code size in bytes (32-byte little-endian integer).
    pub const CODE_SIZE_LEAF_KEY: u8 = 4;
}

/// Keccak-256.
pub fn keccak256(data: &[u8]) -> [u8; 32] {
    Keccak256::digest(data).into()
}

/// Which account layout a tree uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// BASIC_DATA + code hash (current EIP-6800).
    Eip6800,
    /// Version / balance / nonce / code keccak / code size leaves (Kaustinen 2–6, devnet6).
    Legacy,
}

/// Why an account cannot be written in a layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// BASIC_DATA holds the balance in 16 bytes.
    #[error("balance needs {bits} bits; BASIC_DATA holds 128")]
    BalanceTooLarge {
        /// Significant bits of the balance.
        bits: u32,
    },
    /// BASIC_DATA holds the code size in 3 bytes.
    #[error("code size {size} does not fit the 3-byte BASIC_DATA field")]
    CodeTooLarge {
        /// The code length in bytes.
        size: usize,
    },
}

/// The fields packed in the BASIC_DATA leaf of [`Layout::Eip6800`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BasicData {
    /// Account version (byte 0).
    pub version: u8,
    /// Code size in bytes (bytes 5..8, below 2^24).
    pub code_size: u32,
    /// Nonce (bytes 8..16).
    pub nonce: u64,
    /// Balance (bytes 16..32).
    pub balance: u128,
}

/// Largest code size the 3-byte field holds.
const MAX_CODE_SIZE: u32 = (1 << 24) - 1;

impl BasicData {
    /// The packed 32-byte leaf value (big-endian fields; bytes 1..5 reserved, zero).
    pub fn to_bytes(&self) -> Result<Value, LayoutError> {
        if self.code_size > MAX_CODE_SIZE {
            return Err(LayoutError::CodeTooLarge {
                size: self.code_size as usize,
            });
        }
        let mut v = [0u8; 32];
        v[0] = self.version;
        v[5..8].copy_from_slice(&self.code_size.to_be_bytes()[1..]);
        v[8..16].copy_from_slice(&self.nonce.to_be_bytes());
        v[16..32].copy_from_slice(&self.balance.to_be_bytes());
        Ok(v)
    }

    /// Unpacks a leaf value (the reserved bytes are ignored).
    pub fn from_bytes(v: &Value) -> BasicData {
        let mut cs = [0u8; 4];
        cs[1..].copy_from_slice(&v[5..8]);
        let mut nonce = [0u8; 8];
        nonce.copy_from_slice(&v[8..16]);
        let mut balance = [0u8; 16];
        balance.copy_from_slice(&v[16..32]);
        BasicData {
            version: v[0],
            code_size: u32::from_be_bytes(cs),
            nonce: u64::from_be_bytes(nonce),
            balance: u128::from_be_bytes(balance),
        }
    }
}

/// An account as a genesis file states it.
#[derive(Clone, Copy, Debug)]
pub struct AccountState<'a> {
    /// Account version (0 everywhere so far).
    pub version: u8,
    /// Balance in wei.
    pub balance: U256,
    /// Nonce.
    pub nonce: u64,
    /// Code (empty for an account without code).
    pub code: &'a [u8],
    /// Storage as `(slot, value)`.
    pub storage: &'a [(U256, Value)],
}

fn le32(v: &U256) -> Value {
    v.to_le_bytes()
}

impl Layout {
    /// The header suffix that holds the version.
    pub const fn version_leaf(self) -> u8 {
        match self {
            Layout::Eip6800 => BASIC_DATA_LEAF_KEY,
            Layout::Legacy => legacy::VERSION_LEAF_KEY,
        }
    }

    /// The header suffix that holds the balance.
    pub const fn balance_leaf(self) -> u8 {
        match self {
            Layout::Eip6800 => BASIC_DATA_LEAF_KEY,
            Layout::Legacy => legacy::BALANCE_LEAF_KEY,
        }
    }

    /// The header suffix that holds the nonce.
    pub const fn nonce_leaf(self) -> u8 {
        match self {
            Layout::Eip6800 => BASIC_DATA_LEAF_KEY,
            Layout::Legacy => legacy::NONCE_LEAF_KEY,
        }
    }

    /// The header suffix that holds the code size.
    pub const fn code_size_leaf(self) -> u8 {
        match self {
            Layout::Eip6800 => BASIC_DATA_LEAF_KEY,
            Layout::Legacy => legacy::CODE_SIZE_LEAF_KEY,
        }
    }

    /// The header suffix that holds the code hash (Keccak-256 of the code).
    pub const fn code_hash_leaf(self) -> u8 {
        match self {
            Layout::Eip6800 => CODE_HASH_LEAF_KEY,
            Layout::Legacy => legacy::CODE_KECCAK_LEAF_KEY,
        }
    }

    /// The header suffixes this layout writes for an account, in suffix order: BASIC_DATA and
    /// the code hash, or version, balance, nonce, code keccak and code size.
    pub const fn header_suffixes(self) -> &'static [u8] {
        match self {
            Layout::Eip6800 => &[BASIC_DATA_LEAF_KEY, CODE_HASH_LEAF_KEY],
            Layout::Legacy => &[
                legacy::VERSION_LEAF_KEY,
                legacy::BALANCE_LEAF_KEY,
                legacy::NONCE_LEAF_KEY,
                legacy::CODE_KECCAK_LEAF_KEY,
                legacy::CODE_SIZE_LEAF_KEY,
            ],
        }
    }

    /// The header leaves `(suffix, value)` of an account (all at tree index 0).
    ///
    /// [`Layout::Legacy`] writes version, balance, nonce and code keccak, and the code size
    /// only for an account with code (geth writes it with the code chunks).
    pub fn header_leaves(
        &self,
        account: &AccountState<'_>,
    ) -> Result<Vec<(u8, Value)>, LayoutError> {
        let code_hash = if account.code.is_empty() {
            EMPTY_CODE_HASH
        } else {
            keccak256(account.code)
        };
        match self {
            Layout::Eip6800 => {
                let bits = account.balance.bit_len();
                if bits > 128 {
                    return Err(LayoutError::BalanceTooLarge { bits });
                }
                let mut b = [0u8; 16];
                b.copy_from_slice(&account.balance.to_be_bytes()[16..]);
                let code_size = u32::try_from(account.code.len())
                    .ok()
                    .filter(|s| *s <= MAX_CODE_SIZE)
                    .ok_or(LayoutError::CodeTooLarge {
                        size: account.code.len(),
                    })?;
                let basic = BasicData {
                    version: account.version,
                    code_size,
                    nonce: account.nonce,
                    balance: u128::from_be_bytes(b),
                };
                Ok(vec![
                    (BASIC_DATA_LEAF_KEY, basic.to_bytes()?),
                    (CODE_HASH_LEAF_KEY, code_hash),
                ])
            }
            Layout::Legacy => {
                let mut leaves = vec![
                    (
                        legacy::VERSION_LEAF_KEY,
                        le32(&U256::from_u64(u64::from(account.version))),
                    ),
                    (legacy::BALANCE_LEAF_KEY, le32(&account.balance)),
                    (legacy::NONCE_LEAF_KEY, le32(&U256::from_u64(account.nonce))),
                    (legacy::CODE_KECCAK_LEAF_KEY, code_hash),
                ];
                if !account.code.is_empty() {
                    let size = U256::from_u64(account.code.len() as u64);
                    leaves.push((legacy::CODE_SIZE_LEAF_KEY, le32(&size)));
                }
                Ok(leaves)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_code_hash_is_keccak_of_nothing() {
        assert_eq!(keccak256(&[]), EMPTY_CODE_HASH);
    }

    #[test]
    fn basic_data_packing() {
        let b = BasicData {
            version: 1,
            code_size: 0x123456,
            nonce: 0x0102030405060708,
            balance: 0x1122,
        };
        let v = b.to_bytes().unwrap();
        assert_eq!(v[0], 1);
        assert_eq!(&v[1..5], &[0, 0, 0, 0]);
        assert_eq!(&v[5..8], &[0x12, 0x34, 0x56]);
        assert_eq!(&v[8..16], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&v[30..32], &[0x11, 0x22]);
        assert_eq!(BasicData::from_bytes(&v), b);
        let too_big = BasicData {
            code_size: 1 << 24,
            ..b
        };
        assert_eq!(
            too_big.to_bytes(),
            Err(LayoutError::CodeTooLarge { size: 1 << 24 })
        );
    }

    #[test]
    fn header_leaves_per_layout() {
        let acct = AccountState {
            version: 0,
            balance: U256::from_u64(8832),
            nonce: 32,
            code: &[],
            storage: &[],
        };
        let legacy = Layout::Legacy.header_leaves(&acct).unwrap();
        assert_eq!(legacy.len(), 4);
        assert_eq!(legacy[1].1[..2], [0x80, 0x22]);
        assert_eq!(legacy[2].1[0], 32);
        assert_eq!(legacy[3].1, EMPTY_CODE_HASH);
        let with_code = AccountState {
            code: &[0x60, 0x00],
            ..acct
        };
        let legacy = Layout::Legacy.header_leaves(&with_code).unwrap();
        assert_eq!(legacy.len(), 5);
        assert_eq!(
            legacy[4],
            (legacy::CODE_SIZE_LEAF_KEY, le32(&U256::from_u64(2)))
        );
        let eip = Layout::Eip6800.header_leaves(&with_code).unwrap();
        assert_eq!(eip.len(), 2);
        let basic = BasicData::from_bytes(&eip[0].1);
        assert_eq!((basic.code_size, basic.nonce, basic.balance), (2, 32, 8832));
        assert_eq!(eip[1].1, keccak256(&[0x60, 0x00]));
        let rich = AccountState {
            balance: U256::pow2(128).unwrap(),
            ..acct
        };
        assert_eq!(
            Layout::Eip6800.header_leaves(&rich),
            Err(LayoutError::BalanceTooLarge { bits: 129 })
        );
        assert!(Layout::Legacy.header_leaves(&rich).is_ok());
    }

    #[test]
    fn header_suffixes_per_layout() {
        let l = Layout::Legacy;
        assert_eq!(
            [l.version_leaf(), l.balance_leaf(), l.nonce_leaf()],
            [0, 1, 2]
        );
        assert_eq!([l.code_hash_leaf(), l.code_size_leaf()], [3, 4]);
        assert_eq!(l.header_suffixes(), &[0, 1, 2, 3, 4]);
        let e = Layout::Eip6800;
        assert_eq!(
            [
                e.version_leaf(),
                e.balance_leaf(),
                e.nonce_leaf(),
                e.code_size_leaf()
            ],
            [BASIC_DATA_LEAF_KEY; 4]
        );
        assert_eq!(e.code_hash_leaf(), CODE_HASH_LEAF_KEY);
        assert_eq!(e.header_suffixes(), &[0, 1]);
        // The header leaves a layout writes sit at the suffixes it names.
        let acct = AccountState {
            version: 0,
            balance: U256::from_u64(1),
            nonce: 1,
            code: &[0x00],
            storage: &[],
        };
        for layout in [e, l] {
            let suffixes: Vec<u8> = layout
                .header_leaves(&acct)
                .unwrap()
                .iter()
                .map(|(s, _)| *s)
                .collect();
            assert_eq!(suffixes, layout.header_suffixes(), "{layout:?}");
        }
    }
}
