//! `key,value` CSV files: one write per line, a 32-byte hex value or `delete`, with the file
//! and line of every rejected row.
//!
//! A line is `key,value` with an optional trailing comma; blank lines, surrounding spaces,
//! `\r\n` and a missing final newline are fine; hex may start with `0x`. An empty file is a
//! file of no writes.

use bintree::witness::Write;
use genesis::{read_key_value_lines, LineError, LineShape};

/// How many bytes a key may have, and how its hex is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRule {
    /// Exactly 32 bytes; an odd number of hex digits is read with a leading zero (the Verkle
    /// leaf files' rule, shared with `genesis::parse_leaf_csv`).
    Verkle,
    /// Exactly 32 bytes, an even number of hex digits (an EIP-7864 tree key).
    Fixed32,
    /// `1..=max` bytes, an even number of hex digits (an EIP-8297 key).
    Range {
        /// The longest key allowed.
        max: usize,
    },
}

/// One write: `value` `None` deletes `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row<K> {
    /// 1-based line number in its file.
    pub line: usize,
    /// The key.
    pub key: K,
    /// The value written, or `None` for `delete`.
    pub value: Option<[u8; 32]>,
}

/// Why one field of a row is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldError {
    /// The field is absent (no comma on the line).
    #[error("missing")]
    Missing,
    /// Not hexadecimal.
    #[error("invalid hex: {message}")]
    BadHex {
        /// The decoder's message.
        message: String,
    },
    /// An odd number of hex digits where the length of the bytes is part of their meaning.
    #[error("odd number of hex digits ({digits})")]
    OddHex {
        /// Hex digits found.
        digits: usize,
    },
    /// Wrong number of bytes.
    #[error("expected {expected} bytes, got {got}")]
    WrongLength {
        /// Bytes required.
        expected: usize,
        /// Bytes found.
        got: usize,
    },
    /// A variable-length key outside its range.
    #[error("expected 1 to {max} bytes, got {got}")]
    KeyLength {
        /// Longest allowed.
        max: usize,
        /// Bytes found.
        got: usize,
    },
    /// More fields on a line than `key,value[,]`.
    #[error("unexpected extra field")]
    ExtraField,
    /// `delete` in a file for a tree that defines insertion only.
    #[error("`delete` is not defined for {tree} (insertion only)")]
    DeleteUndefined {
        /// The tree's name.
        tree: &'static str,
    },
}

/// A rejected row, or a row the tree refused, with its file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CsvError {
    /// One field of a line is wrong.
    #[error("{source_name}: line {line}: {field}: {reason}")]
    Field {
        /// File name.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// `key`, `value` or `line`.
        field: &'static str,
        /// What is wrong.
        reason: FieldError,
    },
    /// A well-formed row that a binary tree refused (a key and a present key that are not
    /// prefix-free).
    #[error("{source_name}: line {line}: {reason}")]
    Tree {
        /// File name.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// The tree's error.
        reason: bintree::Error,
    },
    /// A keys file with no keys in it.
    #[error("{source_name}: no keys")]
    NoKeys {
        /// File name.
        source_name: String,
    },
}

impl From<LineShape> for FieldError {
    fn from(shape: LineShape) -> Self {
        match shape {
            LineShape::MissingValue => FieldError::Missing,
            LineShape::ExtraField => FieldError::ExtraField,
        }
    }
}

/// What a row's key is read into: `[u8; 32]` with a 32-byte [`KeyRule`], `Vec<u8>` with any.
pub trait RowKey: Sized {
    /// The key from its bytes (`None`: not a length this type holds).
    fn from_checked(bytes: Vec<u8>) -> Option<Self>;
}

impl RowKey for [u8; 32] {
    fn from_checked(bytes: Vec<u8>) -> Option<Self> {
        bytes.try_into().ok()
    }
}

impl RowKey for Vec<u8> {
    fn from_checked(bytes: Vec<u8>) -> Option<Self> {
        Some(bytes)
    }
}

/// Parses the rows of `text` (named `source_name` in errors). `delete_tree`: `None` accepts
/// `delete` values; `Some(tree)` rejects them, naming the tree.
pub fn parse_rows<K: RowKey>(
    text: &str,
    source_name: &str,
    rule: KeyRule,
    delete_tree: Option<&'static str>,
) -> Result<Vec<Row<K>>, CsvError> {
    read_key_value_lines(text, |line, key_text, value_text| {
        let key_bytes = key_hex(key_text, rule).map_err(|e| ("key", e))?;
        let got = key_bytes.len();
        let key = K::from_checked(key_bytes)
            .ok_or(("key", FieldError::WrongLength { expected: 32, got }))?;
        let value = if value_text.eq_ignore_ascii_case("delete") {
            if let Some(tree) = delete_tree {
                return Err(("value", FieldError::DeleteUndefined { tree }));
            }
            None
        } else {
            let even = !matches!(rule, KeyRule::Verkle);
            let bytes = hex_bytes(value_text, even).map_err(|e| ("value", e))?;
            Some(fixed32(bytes).map_err(|e| ("value", e))?)
        };
        Ok(Row { line, key, value })
    })
    .map_err(
        |LineError {
             line,
             field,
             reason,
         }| CsvError::Field {
            source_name: source_name.to_owned(),
            line,
            field,
            reason,
        },
    )
}

/// Parses a keys file for a binary witness, as `fverkle prove` reads one for Verkle: one hex
/// key per line (a read), `KEY,VALUE` (a set) or `KEY,delete`; `#` starts a comment; blank
/// lines are skipped. `delete_tree`: `None` accepts deletes; `Some(tree)` rejects them,
/// naming the tree. A file of no keys is an error.
pub fn parse_key_writes<K: RowKey>(
    text: &str,
    source_name: &str,
    rule: KeyRule,
    delete_tree: Option<&'static str>,
) -> Result<Vec<(K, Write)>, CsvError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |field: &'static str, reason: FieldError| CsvError::Field {
            source_name: source_name.to_owned(),
            line: i + 1,
            field,
            reason,
        };
        let mut fields = line.split(',').map(str::trim);
        let key_bytes = key_hex(fields.next().unwrap_or(""), rule).map_err(|e| err("key", e))?;
        let got = key_bytes.len();
        let key = K::from_checked(key_bytes)
            .ok_or_else(|| err("key", FieldError::WrongLength { expected: 32, got }))?;
        let write = match fields.next() {
            None => Write::Unchanged,
            Some(v) if v.eq_ignore_ascii_case("delete") => match delete_tree {
                Some(tree) => return Err(err("value", FieldError::DeleteUndefined { tree })),
                None => Write::Delete,
            },
            Some(v) => {
                let bytes = hex_bytes(v, true).map_err(|e| err("value", e))?;
                Write::Set(fixed32(bytes).map_err(|e| err("value", e))?)
            }
        };
        if fields.next().is_some() {
            return Err(err("line", FieldError::ExtraField));
        }
        out.push((key, write));
    }
    if out.is_empty() {
        return Err(CsvError::NoKeys {
            source_name: source_name.to_owned(),
        });
    }
    Ok(out)
}

/// A key's bytes under `rule`; the length is checked from the digit count before decoding.
fn key_hex(text: &str, rule: KeyRule) -> Result<Vec<u8>, FieldError> {
    match rule {
        KeyRule::Verkle => fixed32(hex_bytes(text, false)?).map(Vec::from),
        KeyRule::Fixed32 => fixed32(hex_bytes(text, true)?).map(Vec::from),
        KeyRule::Range { max } => {
            let digits = strip_0x(text).len();
            if digits.div_ceil(2) > max {
                return Err(FieldError::KeyLength {
                    max,
                    got: digits.div_ceil(2),
                });
            }
            let bytes = hex_bytes(text, true)?;
            if bytes.is_empty() {
                return Err(FieldError::KeyLength { max, got: 0 });
            }
            Ok(bytes)
        }
    }
}

fn strip_0x(s: &str) -> &str {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
}

/// Hex bytes, `0x` optional; `even`: an odd digit count is an error, else a leading zero is
/// added.
fn hex_bytes(s: &str, even: bool) -> Result<Vec<u8>, FieldError> {
    let h = strip_0x(s);
    if h.len() % 2 == 1 {
        if even {
            return Err(FieldError::OddHex { digits: h.len() });
        }
        return hex::decode(format!("0{h}")).map_err(|e| FieldError::BadHex {
            message: e.to_string(),
        });
    }
    hex::decode(h).map_err(|e| FieldError::BadHex {
        message: e.to_string(),
    })
}

fn fixed32(bytes: Vec<u8>) -> Result<[u8; 32], FieldError> {
    let got = bytes.len();
    bytes
        .try_into()
        .map_err(|_| FieldError::WrongLength { expected: 32, got })
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "0x0000000000000000000000000000000000000000000000000000000000000001";
    const V: &str = "0202020202020202020202020202020202020202020202020202020202020202";

    fn field(text: &str, rule: KeyRule) -> (usize, &'static str, FieldError) {
        match parse_rows::<Vec<u8>>(text, "f.csv", rule, None) {
            Err(CsvError::Field {
                line,
                field,
                reason,
                ..
            }) => (line, field, reason),
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn rows_in_order_with_deletes_and_blank_lines() {
        let text = format!("\n{K},{V}\r\n  {K} , DELETE ,\n\n0xab,{V}");
        let rows: Vec<Row<Vec<u8>>> =
            parse_rows(&text, "f.csv", KeyRule::Range { max: 8192 }, None).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].line, rows[1].line, rows[2].line), (2, 3, 5));
        assert_eq!(rows[0].value, Some([2; 32]));
        assert_eq!(rows[1].value, None);
        assert_eq!(rows[2].key, vec![0xab]);
        let empty: Vec<Row<[u8; 32]>> =
            parse_rows("\n \n", "f.csv", KeyRule::Verkle, None).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let r = KeyRule::Range { max: 4 };
        assert_eq!(
            field(K, KeyRule::Fixed32),
            (1, "value", FieldError::Missing)
        );
        assert_eq!(
            field(&format!("{K},{V},x"), KeyRule::Fixed32),
            (1, "line", FieldError::ExtraField)
        );
        assert_eq!(
            field(&format!("\n0x123,{V}"), r),
            (2, "key", FieldError::OddHex { digits: 3 })
        );
        assert_eq!(
            field(&format!("0x0102030405,{V}"), r),
            (1, "key", FieldError::KeyLength { max: 4, got: 5 })
        );
        assert_eq!(
            field(&format!(",{V}"), r),
            (1, "key", FieldError::KeyLength { max: 4, got: 0 })
        );
        assert_eq!(
            field(&format!("0x01,{V}00"), r),
            (
                1,
                "value",
                FieldError::WrongLength {
                    expected: 32,
                    got: 33
                }
            )
        );
        assert_eq!(
            field(&format!("0x0102,{V}"), KeyRule::Fixed32),
            (
                1,
                "key",
                FieldError::WrongLength {
                    expected: 32,
                    got: 2
                }
            )
        );
        assert!(matches!(
            field(&format!("0xzz,{V}"), r),
            (1, "key", FieldError::BadHex { .. })
        ));
        let e = parse_rows::<[u8; 32]>(
            &format!("{K},delete"),
            "f.csv",
            KeyRule::Fixed32,
            Some("EIP-7864"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.csv: line 1: value: `delete` is not defined for EIP-7864 (insertion only)"
        );
    }

    #[test]
    fn verkle_rule_pads_odd_hex_as_the_leaf_files_do() {
        let odd = &K[3..]; // 63 digits
        let rows: Vec<Row<[u8; 32]>> =
            parse_rows(&format!("{odd},{V}"), "f.csv", KeyRule::Verkle, None).unwrap();
        assert_eq!(rows[0].key[31], 1);
        assert_eq!(
            field(&format!("{odd},{V}"), KeyRule::Fixed32),
            (1, "key", FieldError::OddHex { digits: 63 })
        );
    }

    #[test]
    fn key_writes_read_set_and_delete_with_comments() {
        let text = format!("# keys\n0xab # a read\n\n0xabcd,{V}\n0x01,DELETE\n");
        let keys: Vec<(Vec<u8>, Write)> =
            parse_key_writes(&text, "k", KeyRule::Range { max: 8192 }, None).unwrap();
        assert_eq!(
            keys,
            vec![
                (vec![0xab], Write::Unchanged),
                (vec![0xab, 0xcd], Write::Set([2; 32])),
                (vec![1], Write::Delete),
            ]
        );
        let e = parse_key_writes::<[u8; 32]>(
            &format!("{K}\n{K},delete"),
            "k",
            KeyRule::Fixed32,
            Some("EIP-7864"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "k: line 2: value: `delete` is not defined for EIP-7864 (insertion only)"
        );
        let e = parse_key_writes::<[u8; 32]>(&format!("{K},{V},x"), "k", KeyRule::Fixed32, None)
            .unwrap_err();
        assert_eq!(e.to_string(), "k: line 1: line: unexpected extra field");
        let e = parse_key_writes::<[u8; 32]>("# none\n", "k", KeyRule::Fixed32, None).unwrap_err();
        assert_eq!(e.to_string(), "k: no keys");
    }
}
