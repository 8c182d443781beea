//! Initial state from outside: a geth genesis `alloc` and `tree_key,value` CSV files.
//!
//! Both are untrusted: every failure is an [`ImportError`] naming the source, the account or
//! line, and the field.
//!
//! ```no_run
//! use verkle::{genesis, keys::Layout, Tree};
//! let text = std::fs::read_to_string("devnet6_genesis.json").unwrap();
//! let leaves = genesis::genesis_leaves(&text, Layout::Legacy, "devnet6_genesis.json").unwrap();
//! let mut tree = Tree::new();
//! tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v)))).unwrap();
//! println!("0x{}", hex::encode(tree.root_bytes()));
//! ```

use rayon::prelude::*;
use serde_json::{Map, Value as Json};

use crate::keys::{account_leaves, address32, AccountState, Layout, LayoutError, TreeKey, Value};
use crate::uint::{ParseU256Error, U256};

/// Why one field of an import is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldError {
    /// A required field is absent.
    #[error("missing")]
    Missing,
    /// The field has the wrong JSON type.
    #[error("expected {expected}")]
    WrongType {
        /// What was expected.
        expected: &'static str,
    },
    /// Not hexadecimal.
    #[error("invalid hex: {message}")]
    BadHex {
        /// The decoder's message.
        message: String,
    },
    /// Wrong number of bytes.
    #[error("expected {expected} bytes, got {got}")]
    WrongLength {
        /// Bytes required.
        expected: usize,
        /// Bytes found.
        got: usize,
    },
    /// Longer than allowed.
    #[error("at most {max} bytes, got {got}")]
    TooLong {
        /// Largest allowed.
        max: usize,
        /// Bytes found.
        got: usize,
    },
    /// Not a 256-bit number.
    #[error("{0}")]
    Number(#[from] ParseU256Error),
    /// A nonce above 2^64 − 1.
    #[error("nonce does not fit in 64 bits")]
    NonceTooLarge,
    /// The account cannot be written in the chosen layout.
    #[error("{0}")]
    Layout(#[from] LayoutError),
    /// More fields on a CSV line than `key,value[,]`.
    #[error("unexpected extra field")]
    ExtraField,
}

/// Why an import failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file is not JSON.
    #[error("{source_name}: not JSON: {message}")]
    Json {
        /// File or other source name.
        source_name: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The document's structure is not a genesis or an alloc.
    #[error("{source_name}: {what}")]
    Shape {
        /// File or other source name.
        source_name: String,
        /// What is wrong.
        what: &'static str,
    },
    /// One account of the alloc is wrong.
    #[error("{source_name}: account {account}: {field}: {reason}")]
    Account {
        /// File or other source name.
        source_name: String,
        /// The account's key as written.
        account: String,
        /// The field (`address`, `balance`, `nonce`, `code`, `storage[<slot>]`, ...).
        field: String,
        /// What is wrong.
        reason: FieldError,
    },
    /// One line of a CSV file is wrong.
    #[error("{source_name}: line {line}: {field}: {reason}")]
    Csv {
        /// File or other source name.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// `key` or `value`.
        field: &'static str,
        /// What is wrong.
        reason: FieldError,
    },
}

/// Decodes hex with an optional `0x` prefix (odd length allowed: a leading zero nibble).
fn hex_bytes(s: &str) -> Result<Vec<u8>, FieldError> {
    let h = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let padded;
    let h = if h.len() % 2 == 1 {
        padded = format!("0{h}");
        padded.as_str()
    } else {
        h
    };
    hex::decode(h).map_err(|e| FieldError::BadHex {
        message: e.to_string(),
    })
}

/// Exactly `N` bytes of hex.
fn hex_fixed<const N: usize>(s: &str) -> Result<[u8; N], FieldError> {
    let b = hex_bytes(s)?;
    b.as_slice()
        .try_into()
        .map_err(|_| FieldError::WrongLength {
            expected: N,
            got: b.len(),
        })
}

/// Up to 32 bytes of hex, left-padded (geth's genesis storage keys and values).
fn hex_word(s: &str) -> Result<[u8; 32], FieldError> {
    let b = hex_bytes(s)?;
    if b.len() > 32 {
        return Err(FieldError::TooLong {
            max: 32,
            got: b.len(),
        });
    }
    let mut w = [0u8; 32];
    w[32 - b.len()..].copy_from_slice(&b);
    Ok(w)
}

/// A number given as a decimal or `0x` string, or as a JSON integer.
fn number(v: &Json) -> Result<U256, FieldError> {
    match v {
        Json::String(s) => Ok(U256::parse(s)?),
        Json::Number(n) => n.as_u64().map(U256::from_u64).ok_or(FieldError::WrongType {
            expected: "a non-negative integer or a number string",
        }),
        _ => Err(FieldError::WrongType {
            expected: "a number string",
        }),
    }
}

fn string(v: &Json) -> Result<&str, FieldError> {
    v.as_str().ok_or(FieldError::WrongType {
        expected: "a string",
    })
}

/// One account, parsed.
struct ParsedAccount {
    name: String,
    address: [u8; 32],
    balance: U256,
    nonce: u64,
    code: Vec<u8>,
    storage: Vec<(U256, Value)>,
}

fn parse_account(name: &str, body: &Json) -> Result<ParsedAccount, (String, FieldError)> {
    let field = |f: &str| f.to_owned();
    let addr: [u8; 20] = hex_fixed(name).map_err(|e| (field("address"), e))?;
    let obj = body.as_object().ok_or((
        field("account"),
        FieldError::WrongType {
            expected: "an object",
        },
    ))?;
    let balance = number(
        obj.get("balance")
            .ok_or((field("balance"), FieldError::Missing))?,
    )
    .map_err(|e| (field("balance"), e))?;
    let nonce = match obj.get("nonce") {
        None => 0,
        Some(v) => number(v)
            .map_err(|e| (field("nonce"), e))?
            .to_u64()
            .ok_or((field("nonce"), FieldError::NonceTooLarge))?,
    };
    let code = match obj.get("code") {
        None => Vec::new(),
        Some(v) => string(v)
            .and_then(hex_bytes)
            .map_err(|e| (field("code"), e))?,
    };
    let mut storage = Vec::new();
    if let Some(s) = obj.get("storage") {
        let map = s.as_object().ok_or((
            field("storage"),
            FieldError::WrongType {
                expected: "an object",
            },
        ))?;
        for (k, v) in map {
            let slot = hex_word(k).map_err(|e| (format!("storage key {k}"), e))?;
            let value = string(v)
                .and_then(hex_word)
                .map_err(|e| (format!("storage[{k}]"), e))?;
            // geth's SetState of zero on a new account is a no-op: no leaf.
            if value != [0u8; 32] {
                storage.push((U256::from_be_bytes(&slot), value));
            }
        }
    }
    Ok(ParsedAccount {
        name: name.to_owned(),
        address: address32(&addr),
        balance,
        nonce,
        code,
        storage,
    })
}

/// The leaves of a genesis `alloc` (an object mapping addresses to accounts), in `layout`.
///
/// Per account, as geth wrote them: the header leaves of [`Layout::header_leaves`] (nonce
/// defaults to 0; the code hash of an account without code is `keccak256("")`), then the
/// code chunks and non-zero storage slots (only accounts with code or storage have them).
pub fn alloc_leaves(
    alloc: &Map<String, Json>,
    layout: Layout,
    source_name: &str,
) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    let accounts: Vec<ParsedAccount> = alloc
        .iter()
        .map(|(name, body)| {
            parse_account(name, body).map_err(|(field, reason)| ImportError::Account {
                source_name: source_name.to_owned(),
                account: name.clone(),
                field,
                reason,
            })
        })
        .collect::<Result<_, _>>()?;
    // Build the committer's tables here, not inside a rayon worker: initialising it from
    // several workers at once would block them all while its own rayon jobs wait.
    let _ = ipa::Committer::eip6800();
    let per_account: Vec<Vec<(TreeKey, Value)>> = accounts
        .par_iter()
        .map(|a| {
            let state = AccountState {
                version: 0,
                balance: a.balance,
                nonce: a.nonce,
                code: &a.code,
                storage: &a.storage,
            };
            account_leaves(layout, &a.address, &state).map_err(|e| ImportError::Account {
                source_name: source_name.to_owned(),
                account: a.name.clone(),
                field: "account".to_owned(),
                reason: FieldError::Layout(e),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(per_account.concat())
}

/// The leaves of a genesis file: a geth genesis (an object with `alloc`) or a bare alloc
/// object (as in execution-spec-test fixtures' `pre`).
pub fn genesis_leaves(
    text: &str,
    layout: Layout,
    source_name: &str,
) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    let doc: Json = serde_json::from_str(text).map_err(|e| ImportError::Json {
        source_name: source_name.to_owned(),
        message: e.to_string(),
    })?;
    let top = doc.as_object().ok_or_else(|| ImportError::Shape {
        source_name: source_name.to_owned(),
        what: "top level is not an object",
    })?;
    let alloc = match top.get("alloc") {
        Some(a) => a.as_object().ok_or_else(|| ImportError::Shape {
            source_name: source_name.to_owned(),
            what: "`alloc` is not an object",
        })?,
        None => top,
    };
    alloc_leaves(alloc, layout, source_name)
}

/// Parses `tree_key,value` lines (32-byte hex each, `0x` optional). A line may end with one
/// extra comma; blank lines and a missing final newline are fine; `\r\n` is accepted.
pub fn parse_leaf_csv(text: &str, source_name: &str) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let err = |field: &'static str, reason: FieldError| ImportError::Csv {
            source_name: source_name.to_owned(),
            line: i + 1,
            field,
            reason,
        };
        let mut fields = line.split(',');
        let key_text = fields.next().unwrap_or("").trim();
        let value_text = fields
            .next()
            .ok_or_else(|| err("value", FieldError::Missing))?
            .trim();
        match (fields.next(), fields.next()) {
            (None, _) => {}
            (Some(last), None) if last.trim().is_empty() => {}
            _ => return Err(err("line", FieldError::ExtraField)),
        }
        let key: TreeKey = hex_fixed(key_text).map_err(|e| err("key", e))?;
        let value: Value = hex_fixed(value_text).map_err(|e| err("value", e))?;
        out.push((key, value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "0x472ff986f68a631d48c2906c31ae447beb63b54da5070293e30dc5063572af01";
    const V: &str = "0x000000e83c80d09f3c2e3b030000000000000000000000000000000000000000";

    #[test]
    fn csv_accepts_trailing_comma_and_missing_newline() {
        let text = format!("{K},{V},\r\n\n{K},{V}");
        let leaves = parse_leaf_csv(&text, "t.csv").unwrap();
        assert_eq!(leaves.len(), 2);
        assert_eq!(leaves[0].0[31], 1);
        assert_eq!(leaves[0].1[3], 0xe8);
    }

    #[test]
    fn csv_errors_name_line_and_field() {
        let text = format!("{K},{V}\n{K},0x12\n");
        assert_eq!(
            parse_leaf_csv(&text, "t.csv"),
            Err(ImportError::Csv {
                source_name: "t.csv".into(),
                line: 2,
                field: "value",
                reason: FieldError::WrongLength {
                    expected: 32,
                    got: 1
                }
            })
        );
        let e = parse_leaf_csv(&format!("{K}\n"), "t.csv").unwrap_err();
        assert!(matches!(
            e,
            ImportError::Csv {
                line: 1,
                field: "value",
                reason: FieldError::Missing,
                ..
            }
        ));
        let e = parse_leaf_csv(&format!("{K},{V},{V}\n"), "t.csv").unwrap_err();
        assert!(matches!(
            e,
            ImportError::Csv {
                reason: FieldError::ExtraField,
                ..
            }
        ));
        let e = parse_leaf_csv(&format!("0xzz,{V}\n"), "t.csv").unwrap_err();
        assert!(matches!(
            e,
            ImportError::Csv {
                field: "key",
                reason: FieldError::BadHex { .. },
                ..
            }
        ));
    }

    #[test]
    fn alloc_errors_name_account_and_field() {
        let bad =
            r#"{"alloc": {"0x00000000000000000000000000000000000000aa": {"balance": "12x"}}}"#;
        let e = genesis_leaves(bad, Layout::Legacy, "g.json").unwrap_err();
        assert_eq!(
            e,
            ImportError::Account {
                source_name: "g.json".into(),
                account: "0x00000000000000000000000000000000000000aa".into(),
                field: "balance".into(),
                reason: FieldError::Number(ParseU256Error::InvalidDigit {
                    position: 2,
                    found: 'x'
                })
            }
        );
        let short_addr = r#"{"0xaa": {"balance": "1"}}"#;
        assert!(matches!(
            genesis_leaves(short_addr, Layout::Legacy, "g.json"),
            Err(ImportError::Account { ref field, reason: FieldError::WrongLength { expected: 20, got: 1 }, .. }) if field == "address"
        ));
        let no_balance = r#"{"0x00000000000000000000000000000000000000aa": {}}"#;
        assert!(matches!(
            genesis_leaves(no_balance, Layout::Legacy, "g.json"),
            Err(ImportError::Account {
                reason: FieldError::Missing,
                ..
            })
        ));
        let huge_nonce = r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "nonce": "0x10000000000000000"}}"#;
        assert!(matches!(
            genesis_leaves(huge_nonce, Layout::Legacy, "g.json"),
            Err(ImportError::Account {
                reason: FieldError::NonceTooLarge,
                ..
            })
        ));
        let rich = format!(
            r#"{{"0x00000000000000000000000000000000000000aa": {{"balance": "0x1{}"}}}}"#,
            "0".repeat(32)
        );
        assert!(matches!(
            genesis_leaves(&rich, Layout::Eip6800, "g.json"),
            Err(ImportError::Account {
                reason: FieldError::Layout(LayoutError::BalanceTooLarge { bits: 129 }),
                ..
            })
        ));
        assert!(matches!(
            genesis_leaves("[1]", Layout::Eip6800, "g.json"),
            Err(ImportError::Shape { .. })
        ));
        assert!(matches!(
            genesis_leaves("{", Layout::Eip6800, "g.json"),
            Err(ImportError::Json { .. })
        ));
    }

    #[test]
    fn alloc_leaf_counts_per_layout() {
        let doc = r#"{
            "0x00000000000000000000000000000000000000aa": {"balance": "1"},
            "0x00000000000000000000000000000000000000bb": {"balance": "0x2", "nonce": "3",
                "code": "0x6000", "storage": {"0x01": "0x05", "0x02": "0x00"}}
        }"#;
        // Legacy: 4 + (4 + code size + 1 chunk + 1 non-zero slot).
        assert_eq!(genesis_leaves(doc, Layout::Legacy, "g").unwrap().len(), 11);
        // EIP-6800: 2 + (2 + 1 chunk + 1 slot).
        assert_eq!(genesis_leaves(doc, Layout::Eip6800, "g").unwrap().len(), 6);
    }
}
