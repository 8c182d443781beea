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

/// The leaves of parsed accounts, in their order (keys hashed in parallel).
fn parsed_leaves(
    accounts: &[ParsedAccount],
    layout: Layout,
    source_name: &str,
) -> Result<Vec<(TreeKey, Value)>, ImportError> {
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
    parsed_leaves(&accounts, layout, source_name)
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

/// Accounts per batch of [`stream_genesis_leaves`] that callers without a better figure use
/// (≈ 2–4 leaves each: a batch of leaves is a few tens of MB).
pub const STREAM_BATCH_ACCOUNTS: usize = 100_000;

/// What [`stream_genesis_leaves`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamCounts {
    /// Accounts read.
    pub accounts: u64,
    /// Leaves handed to the sink.
    pub leaves: u64,
    /// Calls of the sink.
    pub batches: u64,
}

/// The leaves of a genesis file read as a stream: the same document and the same leaves as
/// [`genesis_leaves`], but the file is never held whole. Accounts are parsed in file order,
/// in batches of at most `batch_accounts` accounts (fewer when they carry many storage slots
/// or code chunks); each batch's leaves are computed in parallel and handed to `sink` before
/// the next batch is read, so memory is bounded by one batch and one account.
///
/// Leaves come per account in [`genesis_leaves`]' order, accounts in file order (not in key
/// order, and not address-sorted as [`genesis_leaves`] has them; the tree built from either
/// is the same). The first error stops the stream: an [`ImportError`] naming the source, the
/// account and the field (a JSON syntax error carries serde's line and column), or the
/// sink's own error. Batches handed out before it are not taken back: a caller writing them
/// somewhere must treat that state as incomplete.
///
/// A top-level object with an `alloc` key is a geth genesis (its other keys are skipped);
/// without one it is a bare alloc. Address-shaped keys at the top level beside an `alloc`,
/// or two `alloc` keys, are refused ([`ImportError::Shape`]) rather than silently resolved.
/// An address written twice gives both accounts' leaves, the later ones winning where they
/// meet (the one-shot parser keeps only the last account).
pub fn stream_genesis_leaves<R, E, F>(
    reader: R,
    layout: Layout,
    source_name: &str,
    batch_accounts: usize,
    sink: F,
) -> Result<StreamCounts, E>
where
    R: std::io::Read,
    E: From<ImportError>,
    F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
{
    let mut streamer = Streamer {
        layout,
        source_name,
        batch_accounts: batch_accounts.max(1),
        pending: Vec::new(),
        pending_leaves: 0,
        sink,
        counts: StreamCounts::default(),
        stop: None,
    };
    let buffered = std::io::BufReader::with_capacity(1 << 20, reader);
    let mut de = serde_json::Deserializer::from_reader(buffered);
    let read = serde::Deserializer::deserialize_any(&mut de, TopVisitor(&mut streamer))
        .and_then(|()| de.end());
    if let Err(e) = read {
        return Err(match streamer.stop.take() {
            Some(stop) => stop,
            None => E::from(ImportError::Json {
                source_name: source_name.to_owned(),
                message: e.to_string(),
            }),
        });
    }
    streamer.flush().map_err(|()| streamer.take_stop())?;
    Ok(streamer.counts)
}

/// The state of [`stream_genesis_leaves`] while serde drives it.
struct Streamer<'a, E, F> {
    layout: Layout,
    source_name: &'a str,
    batch_accounts: usize,
    pending: Vec<ParsedAccount>,
    /// Leaves the pending accounts will give, roughly.
    pending_leaves: usize,
    sink: F,
    counts: StreamCounts,
    /// Why the stream stopped (serde only sees a placeholder error).
    stop: Option<E>,
}

impl<E, F> Streamer<'_, E, F>
where
    E: From<ImportError>,
    F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
{
    fn fail(&mut self, e: E) -> Result<(), ()> {
        self.stop = Some(e);
        Err(())
    }

    fn take_stop(&mut self) -> E {
        self.stop.take().unwrap_or_else(|| {
            E::from(ImportError::Shape {
                source_name: self.source_name.to_owned(),
                what: "import stopped",
            })
        })
    }

    fn shape(&mut self, what: &'static str) -> Result<(), ()> {
        let e = ImportError::Shape {
            source_name: self.source_name.to_owned(),
            what,
        };
        self.fail(E::from(e))
    }

    fn push(&mut self, name: String, body: &Json) -> Result<(), ()> {
        match parse_account(&name, body) {
            Ok(a) => {
                self.pending_leaves += 4 + a.code.len() / 31 + 1 + a.storage.len();
                self.pending.push(a);
                self.counts.accounts += 1;
                if self.pending.len() >= self.batch_accounts
                    || self.pending_leaves >= self.batch_accounts.saturating_mul(4)
                {
                    self.flush()?;
                }
                Ok(())
            }
            Err((field, reason)) => {
                let e = ImportError::Account {
                    source_name: self.source_name.to_owned(),
                    account: name,
                    field,
                    reason,
                };
                self.fail(E::from(e))
            }
        }
    }

    fn flush(&mut self) -> Result<(), ()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let accounts = std::mem::take(&mut self.pending);
        self.pending_leaves = 0;
        let leaves = match parsed_leaves(&accounts, self.layout, self.source_name) {
            Ok(l) => l,
            Err(e) => return self.fail(E::from(e)),
        };
        drop(accounts);
        self.counts.leaves += leaves.len() as u64;
        self.counts.batches += 1;
        match (self.sink)(leaves) {
            Ok(()) => Ok(()),
            Err(e) => self.fail(e),
        }
    }
}

/// The placeholder serde carries out when [`Streamer::stop`] holds the real error.
fn stopped<X: serde::de::Error>(_: ()) -> X {
    X::custom("import stopped")
}

/// Visit methods refusing every JSON value but an object, as a [`ImportError::Shape`].
macro_rules! refuse_non_objects {
    ($what:expr) => {
        fn visit_bool<X: serde::de::Error>(self, _: bool) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_i64<X: serde::de::Error>(self, _: i64) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_u64<X: serde::de::Error>(self, _: u64) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_f64<X: serde::de::Error>(self, _: f64) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_str<X: serde::de::Error>(self, _: &str) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_unit<X: serde::de::Error>(self) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            self.0.shape($what).map_err(stopped)
        }
    };
}

/// The top-level object: a geth genesis or a bare alloc.
struct TopVisitor<'s, 'a, E, F>(&'s mut Streamer<'a, E, F>);

impl<'de, E, F> serde::de::Visitor<'de> for TopVisitor<'_, '_, E, F>
where
    E: From<ImportError>,
    F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a genesis object")
    }

    refuse_non_objects!("top level is not an object");

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut alloc_seen = false;
        let mut top_accounts = false;
        // A bare alloc's first key that is not an address (an error only without `alloc`).
        let mut bad_key: Option<(String, FieldError)> = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "alloc" {
                if alloc_seen {
                    return self.0.shape("two `alloc` keys").map_err(stopped);
                }
                if top_accounts {
                    return self
                        .0
                        .shape("accounts at the top level beside an `alloc`")
                        .map_err(stopped);
                }
                alloc_seen = true;
                map.next_value_seed(AllocSeed(&mut *self.0))?;
            } else if alloc_seen {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else {
                match hex_fixed::<20>(&key) {
                    Ok(_) => {
                        let body: Json = map.next_value()?;
                        top_accounts = true;
                        self.0.push(key, &body).map_err(stopped)?;
                    }
                    Err(e) => {
                        if bad_key.is_none() {
                            bad_key = Some((key, e));
                        }
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
            }
        }
        match bad_key {
            Some((account, reason)) if !alloc_seen => {
                let e = ImportError::Account {
                    source_name: self.0.source_name.to_owned(),
                    account,
                    field: "address".to_owned(),
                    reason,
                };
                self.0.fail(E::from(e)).map_err(stopped)
            }
            _ => Ok(()),
        }
    }
}

/// The value of `alloc`.
struct AllocSeed<'s, 'a, E, F>(&'s mut Streamer<'a, E, F>);

impl<'de, E, F> serde::de::DeserializeSeed<'de> for AllocSeed<'_, '_, E, F>
where
    E: From<ImportError>,
    F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
{
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(AllocVisitor(self.0))
    }
}

struct AllocVisitor<'s, 'a, E, F>(&'s mut Streamer<'a, E, F>);

impl<'de, E, F> serde::de::Visitor<'de> for AllocVisitor<'_, '_, E, F>
where
    E: From<ImportError>,
    F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an alloc object")
    }

    refuse_non_objects!("`alloc` is not an object");

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key::<String>()? {
            let body: Json = map.next_value()?;
            self.0.push(name, &body).map_err(stopped)?;
        }
        Ok(())
    }
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

    type Batches = Vec<Vec<(TreeKey, Value)>>;

    /// Streams `text` with batches of `batch` accounts, collecting the batches.
    fn streamed(
        text: &str,
        layout: Layout,
        batch: usize,
    ) -> Result<(Batches, StreamCounts), ImportError> {
        let mut batches = Vec::new();
        let counts = stream_genesis_leaves(text.as_bytes(), layout, "g.json", batch, |b| {
            batches.push(b);
            Ok::<(), ImportError>(())
        })?;
        Ok((batches, counts))
    }

    fn root_of(leaves: &[(TreeKey, Value)]) -> [u8; 32] {
        let mut t = crate::Tree::new();
        t.apply(leaves.iter().map(|(k, v)| (*k, Some(*v)))).unwrap();
        t.root_bytes()
    }

    /// A genesis of `n` accounts, every seventh with code and storage (one slot zero).
    fn sample_genesis(n: u64) -> String {
        let mut alloc = Vec::new();
        for i in 0..n {
            let mut a = [0u8; 20];
            a[..8].copy_from_slice(&(i * 0x9e37_79b9_7f4a_7c15).to_be_bytes());
            let body = if i % 7 == 3 {
                format!(
                    r#"{{"balance": "{}", "nonce": "0x{:x}", "code": "0x{}", "storage": {{"0x01": "0x{:x}", "0x2": "0x0", "0x{:x}": "0xff"}}}}"#,
                    i * 1000 + 1,
                    i,
                    "60".repeat(40 + i as usize),
                    i + 5,
                    i + 10
                )
            } else {
                format!(r#"{{"balance": "0x{:x}"}}"#, i + 1)
            };
            alloc.push(format!(r#""0x{}": {body}"#, hex::encode(a)));
        }
        format!(
            r#"{{"config": {{"chainId": 1, "alloc": 5}}, "nonce": "0x0", "alloc": {{{}}}, "extraData": "0x"}}"#,
            alloc.join(",\n")
        )
    }

    #[test]
    fn streaming_gives_the_one_shot_leaves_and_root() {
        let text = sample_genesis(50);
        for layout in [Layout::Eip6800, Layout::Legacy] {
            let one_shot = genesis_leaves(&text, layout, "g.json").unwrap();
            let want_root = root_of(&one_shot);
            for batch in [1, 3, 16, 1000] {
                let (batches, counts) = streamed(&text, layout, batch).unwrap();
                assert!(batches.iter().all(|b| !b.is_empty()));
                assert_eq!(counts.accounts, 50);
                assert_eq!(counts.batches, batches.len() as u64);
                if batch == 1 {
                    assert_eq!(batches.len(), 50);
                }
                let mut all: Vec<_> = batches.concat();
                assert_eq!(counts.leaves, all.len() as u64);
                // Applied batch by batch, committing between them, as an import does.
                let mut tree = crate::Tree::new();
                for b in &batches {
                    tree.apply(b.iter().map(|(k, v)| (*k, Some(*v)))).unwrap();
                    tree.commit();
                }
                assert_eq!(tree.root_bytes(), want_root, "batch {batch}");
                let mut want = one_shot.clone();
                all.sort();
                want.sort();
                assert_eq!(all, want);
            }
        }
        // A bare alloc streams the same leaves.
        let bare = sample_genesis(20);
        let start = bare.rfind(r#""alloc": "#).unwrap() + r#""alloc": "#.len();
        let end = bare.rfind(r#", "extraData""#).unwrap();
        let bare = &bare[start..end];
        let (batches, _) = streamed(bare, Layout::Eip6800, 4).unwrap();
        assert_eq!(
            root_of(&batches.concat()),
            root_of(&genesis_leaves(bare, Layout::Eip6800, "g").unwrap())
        );
        // An empty alloc and an empty object give nothing.
        for empty in ["{}", r#"{"alloc": {}}"#, r#"{"config": {}, "alloc": {}}"#] {
            let (batches, counts) = streamed(empty, Layout::Eip6800, 4).unwrap();
            assert!(batches.is_empty());
            assert_eq!(counts, StreamCounts::default());
        }
    }

    #[test]
    fn streaming_errors_match_the_one_shot_ones() {
        let cases = [
            r#"{"alloc": {"0x00000000000000000000000000000000000000aa": {"balance": "12x"}}}"#,
            r#"{"0xaa": {"balance": "1"}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "nonce": "0x10000000000000000"}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "storage": {"0x01": 5}}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "code": "0xzz"}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": 7}"#,
            r#"{"config": {}}"#,
            "[1]",
            "7",
            "null",
            r#"{"alloc": [1]}"#,
            r#"{"alloc": "x"}"#,
        ];
        for text in cases {
            let want = genesis_leaves(text, Layout::Legacy, "g.json").unwrap_err();
            let got = streamed(text, Layout::Legacy, 2).unwrap_err();
            assert_eq!(got, want, "{text}");
        }
        let rich = format!(
            r#"{{"0x00000000000000000000000000000000000000aa": {{"balance": "0x1{}"}}}}"#,
            "0".repeat(32)
        );
        assert_eq!(
            streamed(&rich, Layout::Eip6800, 2).unwrap_err(),
            genesis_leaves(&rich, Layout::Eip6800, "g.json").unwrap_err()
        );
        // Syntax errors carry serde's line and column.
        for text in ["{", "{\"alloc\": {\n\"0x00000000000000000000000000000000000000aa\": {\"balance\": \"1\"},\n}}", "{} x"] {
            match streamed(text, Layout::Eip6800, 2).unwrap_err() {
                ImportError::Json { source_name, message } => {
                    assert_eq!(source_name, "g.json");
                    assert!(message.contains("line"), "{message}");
                }
                e => panic!("{text}: {e}"),
            }
        }
        // Ambiguous documents are refused.
        let addr = r#""0x00000000000000000000000000000000000000aa": {"balance": "1"}"#;
        for text in [
            format!(r#"{{{addr}, "alloc": {{}}}}"#),
            r#"{"alloc": {}, "alloc": {}}"#.to_owned(),
        ] {
            assert!(matches!(
                streamed(&text, Layout::Eip6800, 2),
                Err(ImportError::Shape { .. })
            ));
        }
    }

    #[test]
    fn a_sink_error_stops_the_stream() {
        #[derive(Debug, PartialEq)]
        enum E {
            Import(ImportError),
            Full,
        }
        impl From<ImportError> for E {
            fn from(e: ImportError) -> E {
                E::Import(e)
            }
        }
        let text = sample_genesis(10);
        let mut calls = 0;
        let got = stream_genesis_leaves(text.as_bytes(), Layout::Eip6800, "g", 2, |_| {
            calls += 1;
            if calls == 2 {
                Err(E::Full)
            } else {
                Ok(())
            }
        });
        assert_eq!(got, Err(E::Full));
        assert_eq!(calls, 2);
    }

    #[test]
    fn devnet6_genesis_streams_to_its_root() {
        let dir = match std::env::var_os("FVERKLE_VECTORS") {
            Some(d) => std::path::PathBuf::from(d),
            None => {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors")
            }
        };
        let path = dir.join("genesis/devnet6_genesis.json");
        let file = std::fs::File::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (set FVERKLE_VECTORS)", path.display()));
        let mut tree = crate::Tree::new();
        let counts = stream_genesis_leaves(file, Layout::Legacy, "devnet6", 7, |b| {
            tree.apply(b.into_iter().map(|(k, v)| (k, Some(v))))
                .map_err(|_| ImportError::Shape {
                    source_name: "devnet6".into(),
                    what: "apply failed",
                })?;
            tree.commit();
            Ok::<(), ImportError>(())
        })
        .unwrap();
        assert_eq!(counts.leaves, 1354);
        assert!(counts.batches > 1);
        assert_eq!(
            hex::encode(tree.root_bytes()),
            "1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee"
        );
    }
}
