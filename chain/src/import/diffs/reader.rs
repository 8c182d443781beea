//! The reader of account-level state diffs: geth's `prestateTracer` in diff mode, as
//! `debug_traceBlockByNumber` returns it, one block per line.
//!
//! A line is one of:
//! - `{"number": N, "stateRoot": "0x…", "traces": [...]}` (`stateRoot` optional; `traces`
//!   may also be named `result`, or be the whole JSON-RPC response object);
//! - a JSON-RPC response `{"jsonrpc": "2.0", "id": N, "result": [...]}` whose `id` is the
//!   block number.
//!
//! `N` is a JSON integer or a `0x` / decimal string. Each trace is `{"txHash": …,
//! "result": {"pre": {…}, "post": {…}}}` (or the bare `{"pre", "post"}`); an account is
//! `{balance, nonce, code, codeHash, storage}`, every field optional. Every failure is a
//! [`DiffError`] naming the file, the line and the field.

use std::collections::BTreeMap;
use std::fmt;
use std::io::BufRead;
use std::path::PathBuf;

use serde_json::{Map, Value as Json};
use verkle::U256;

/// What is wrong with a line of a diff file, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffError {
    /// The file (`-` is stdin).
    pub file: String,
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    /// The field, as a path from the line's top object (`traces[2].result.post.0x…`).
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: line {}: field {}: {}",
            self.file, self.line, self.field, self.reason
        )
    }
}

impl std::error::Error for DiffError {}

/// One account of a `pre` or `post` map: the fields given (absent = not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountDiff {
    /// Balance in wei.
    pub balance: Option<U256>,
    /// Nonce.
    pub nonce: Option<u64>,
    /// Code.
    pub code: Option<Vec<u8>>,
    /// Storage slots given, slot → value (32-byte big-endian words).
    pub storage: BTreeMap<[u8; 32], [u8; 32]>,
}

/// One transaction's diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxDiff {
    /// Accounts before the transaction (those it changed).
    pub pre: BTreeMap<[u8; 20], AccountDiff>,
    /// What changed (an account of `pre` missing here was deleted).
    pub post: BTreeMap<[u8; 20], AccountDiff>,
}

/// One block of diffs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffBlock {
    /// File and line it came from (`file: line N`).
    pub origin: String,
    /// Block number.
    pub number: u64,
    /// The block's MPT state root, when the line carries it (reported, never compared).
    pub state_root: Option<[u8; 32]>,
    /// Its transactions' diffs, in order.
    pub txs: Vec<TxDiff>,
}

/// Where a field is: file, line, field path.
struct At<'a> {
    file: &'a str,
    line: usize,
}

impl At<'_> {
    fn err(&self, field: impl Into<String>, reason: impl Into<String>) -> DiffError {
        DiffError {
            file: self.file.to_owned(),
            line: self.line,
            field: field.into(),
            reason: reason.into(),
        }
    }
}

fn strip0x(s: &str) -> &str {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
}

/// Hex bytes (`0x` optional; an odd digit count has a leading zero nibble).
fn hex_bytes(s: &str) -> Result<Vec<u8>, String> {
    let h = strip0x(s);
    let r = if h.len() % 2 == 1 {
        hex::decode(format!("0{h}"))
    } else {
        hex::decode(h)
    };
    r.map_err(|e| format!("invalid hex: {e}"))
}

/// Up to 32 bytes of hex, left-padded to a 32-byte word.
fn hex_word(s: &str) -> Result<[u8; 32], String> {
    let b = hex_bytes(s)?;
    if b.len() > 32 {
        return Err(format!("at most 32 bytes, got {}", b.len()));
    }
    let mut w = [0u8; 32];
    w[32 - b.len()..].copy_from_slice(&b);
    Ok(w)
}

fn quantity(v: &Json) -> Result<U256, String> {
    match v {
        Json::String(s) => U256::parse(s).map_err(|e| e.to_string()),
        Json::Number(n) => n
            .as_u64()
            .map(U256::from_u64)
            .ok_or_else(|| "expected a non-negative integer".to_owned()),
        _ => Err("expected a number or a quantity string".to_owned()),
    }
}

fn quantity_u64(v: &Json) -> Result<u64, String> {
    quantity(v)?
        .to_u64()
        .ok_or_else(|| "does not fit in 64 bits".to_owned())
}

fn string(v: &Json) -> Result<&str, String> {
    v.as_str().ok_or_else(|| "expected a string".to_owned())
}

fn object(v: &Json) -> Result<&Map<String, Json>, String> {
    v.as_object().ok_or_else(|| "expected an object".to_owned())
}

fn account(at: &At<'_>, path: &str, v: &Json) -> Result<AccountDiff, DiffError> {
    let obj = object(v).map_err(|r| at.err(path, r))?;
    let f = |name: &str| format!("{path}.{name}");
    let mut a = AccountDiff::default();
    if let Some(b) = obj.get("balance") {
        a.balance = Some(quantity(b).map_err(|r| at.err(f("balance"), r))?);
    }
    if let Some(n) = obj.get("nonce") {
        a.nonce = Some(quantity_u64(n).map_err(|r| at.err(f("nonce"), r))?);
    }
    if let Some(c) = obj.get("code") {
        a.code = Some(
            string(c)
                .and_then(hex_bytes)
                .map_err(|r| at.err(f("code"), r))?,
        );
    }
    if let Some(h) = obj.get("codeHash") {
        // Implied by the code; checked for form only.
        string(h)
            .and_then(hex_word)
            .map_err(|r| at.err(f("codeHash"), r))?;
    }
    if let Some(s) = obj.get("storage") {
        let map = object(s).map_err(|r| at.err(f("storage"), r))?;
        for (k, v) in map {
            let slot = hex_word(k).map_err(|r| at.err(format!("{path}.storage.{k} (key)"), r))?;
            let value = string(v)
                .and_then(hex_word)
                .map_err(|r| at.err(format!("{path}.storage.{k}"), r))?;
            a.storage.insert(slot, value);
        }
    }
    Ok(a)
}

fn accounts(
    at: &At<'_>,
    path: &str,
    v: Option<&Json>,
) -> Result<BTreeMap<[u8; 20], AccountDiff>, DiffError> {
    let v = v.ok_or_else(|| at.err(path, "missing"))?;
    let map = object(v).map_err(|r| at.err(path, r))?;
    let mut out = BTreeMap::new();
    for (name, body) in map {
        let p = format!("{path}.{name}");
        let addr: [u8; 20] = hex_bytes(name)
            .and_then(|b| {
                <[u8; 20]>::try_from(b.as_slice())
                    .map_err(|_| format!("an address is 20 bytes, got {}", b.len()))
            })
            .map_err(|r| at.err(format!("{p} (address)"), r))?;
        out.insert(addr, account(at, &p, body)?);
    }
    Ok(out)
}

fn trace(at: &At<'_>, path: &str, v: &Json) -> Result<TxDiff, DiffError> {
    let obj = object(v).map_err(|r| at.err(path, r))?;
    if let Some(e) = obj.get("error") {
        return Err(at.err(format!("{path}.error"), format!("the tracer failed: {e}")));
    }
    let (body, bpath) = match obj.get("result") {
        Some(r) => (
            object(r).map_err(|e| at.err(format!("{path}.result"), e))?,
            format!("{path}.result"),
        ),
        None => (obj, path.to_owned()),
    };
    Ok(TxDiff {
        pre: accounts(at, &format!("{bpath}.pre"), body.get("pre"))?,
        post: accounts(at, &format!("{bpath}.post"), body.get("post"))?,
    })
}

/// The traces array of a `result` field or a JSON-RPC response.
fn traces<'a>(at: &At<'_>, path: &str, v: &'a Json) -> Result<(&'a [Json], String), DiffError> {
    match v {
        Json::Array(a) => Ok((a.as_slice(), path.to_owned())),
        Json::Object(o) => {
            if let Some(e) = o.get("error") {
                return Err(at.err(format!("{path}.error"), format!("the node answered {e}")));
            }
            let r = o
                .get("result")
                .ok_or_else(|| at.err(format!("{path}.result"), "missing"))?;
            match r {
                Json::Array(a) => Ok((a.as_slice(), format!("{path}.result"))),
                _ => Err(at.err(format!("{path}.result"), "expected an array of traces")),
            }
        }
        _ => Err(at.err(path, "expected an array of traces")),
    }
}

/// Parses one non-blank line.
pub fn parse_line(file: &str, line: usize, text: &str) -> Result<DiffBlock, DiffError> {
    let at = At { file, line };
    let doc: Json =
        serde_json::from_str(text).map_err(|e| at.err("(line)", format!("not JSON: {e}")))?;
    let top = doc.as_object().ok_or_else(|| {
        at.err(
            "(line)",
            "expected an object: {\"number\", \"stateRoot\", \"traces\"} or a JSON-RPC response whose id is the block number",
        )
    })?;
    let (number, list) = if let Some(n) = top.get("number") {
        let number = quantity_u64(n).map_err(|r| at.err("number", r))?;
        let (name, v) = match (top.get("traces"), top.get("result")) {
            (Some(t), _) => ("traces", t),
            (None, Some(r)) => ("result", r),
            (None, None) => return Err(at.err("traces", "missing")),
        };
        (number, traces(&at, name, v)?)
    } else if top.contains_key("result") || top.contains_key("error") {
        if let Some(e) = top.get("error") {
            return Err(at.err("error", format!("the node answered {e}")));
        }
        let id = top
            .get("id")
            .ok_or_else(|| at.err("id", "missing (a response's id is its block number)"))?;
        let number = quantity_u64(id).map_err(|r| at.err("id", r))?;
        (number, traces(&at, "", &doc)?)
    } else {
        return Err(at.err("number", "missing"));
    };
    let state_root = match top.get("stateRoot") {
        None | Some(Json::Null) => None,
        Some(v) => Some(
            string(v)
                .and_then(|s| {
                    let b = hex_bytes(s)?;
                    <[u8; 32]>::try_from(b.as_slice())
                        .map_err(|_| format!("expected 32 bytes, got {}", b.len()))
                })
                .map_err(|r| at.err("stateRoot", r))?,
        ),
    };
    let (items, path) = list;
    let prefix = path.trim_start_matches('.');
    let txs = items
        .iter()
        .enumerate()
        .map(|(i, t)| trace(&at, &format!("{prefix}[{i}]"), t))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DiffBlock {
        origin: format!("{file}: line {line}"),
        number,
        state_root,
        txs,
    })
}

/// Blocks of diff files, one line at a time: plain, gzip or zstd (`-` is stdin).
pub struct DiffReader {
    files: Vec<PathBuf>,
    next_file: usize,
    current: Option<(String, Box<dyn BufRead + Send>, usize)>,
    buf: String,
}

impl DiffReader {
    /// A reader of `files`, in order.
    pub fn new(files: &[PathBuf]) -> DiffReader {
        DiffReader {
            files: files.to_vec(),
            next_file: 0,
            current: None,
            buf: String::new(),
        }
    }
}

impl Iterator for DiffReader {
    type Item = anyhow::Result<DiffBlock>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.current.is_none() {
                let path = self.files.get(self.next_file)?.clone();
                self.next_file += 1;
                match crate::input::open(&path) {
                    Ok(r) => self.current = Some((path.display().to_string(), r, 0)),
                    Err(e) => return Some(Err(e.into())),
                }
            }
            let (name, reader, line) = self.current.as_mut()?;
            self.buf.clear();
            match reader.read_line(&mut self.buf) {
                Ok(0) => {
                    self.current = None;
                    continue;
                }
                Ok(_) => {
                    *line += 1;
                    let text = self.buf.trim();
                    if text.is_empty() {
                        continue;
                    }
                    return Some(parse_line(name, *line, text).map_err(anyhow::Error::from));
                }
                Err(e) => {
                    let name = name.clone();
                    let line = *line + 1;
                    self.current = None;
                    self.next_file = self.files.len();
                    let e = crate::input::read_error(&name, e);
                    return Some(Err(anyhow::Error::from(e).context(format!("line {line}"))));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "0x00000000000000000000000000000000000000aa";

    fn one(text: &str) -> Result<DiffBlock, DiffError> {
        parse_line("d.jsonl", 7, text)
    }

    #[test]
    fn every_field_form() {
        // geth's forms: hex balance, JSON-number nonce, hex code, 32-byte storage words;
        // also a hex nonce, a decimal balance, short storage words, an empty code.
        let line = format!(
            r#"{{"number":"0x10","stateRoot":"0x{}","traces":[{{"txHash":"0x01","result":{{
            "pre":{{"{A}":{{"balance":"0x1f","nonce":3,"code":"0x6001","storage":{{"0x01":"0x02"}}}}}},
            "post":{{"{A}":{{"balance":"100","nonce":"0x4","code":"0x","codeHash":"0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"}}}}}}}},
            {{"pre":{{}},"post":{{}}}}]}}"#,
            "ab".repeat(32)
        );
        let b = one(&line).unwrap();
        assert_eq!(b.number, 16);
        assert_eq!(b.state_root, Some([0xab; 32]));
        assert_eq!(b.txs.len(), 2);
        let addr = {
            let mut a = [0u8; 20];
            a[19] = 0xaa;
            a
        };
        let pre = &b.txs[0].pre[&addr];
        assert_eq!(pre.balance, Some(U256::from_u64(31)));
        assert_eq!(pre.nonce, Some(3));
        assert_eq!(pre.code.as_deref(), Some(&[0x60, 0x01][..]));
        let mut slot = [0u8; 32];
        slot[31] = 1;
        let mut two = [0u8; 32];
        two[31] = 2;
        assert_eq!(pre.storage[&slot], two);
        let post = &b.txs[0].post[&addr];
        assert_eq!(post.balance, Some(U256::from_u64(100)));
        assert_eq!(post.nonce, Some(4));
        assert_eq!(post.code.as_deref(), Some(&[][..]));
        assert!(post.storage.is_empty());
        assert_eq!(b.txs[1], TxDiff::default());
        // Missing fields stay missing.
        let bare = format!(
            r#"{{"number":1,"traces":[{{"result":{{"pre":{{"{A}":{{}}}},"post":{{}}}}}}]}}"#
        );
        let b = one(&bare).unwrap();
        assert_eq!(b.state_root, None);
        assert_eq!(b.txs[0].pre[&addr], AccountDiff::default());
        assert!(b.txs[0].post.is_empty());
    }

    #[test]
    fn envelopes() {
        let traces = format!(
            r#"[{{"txHash":"0x01","result":{{"pre":{{"{A}":{{"balance":"0x1"}}}},"post":{{"{A}":{{"balance":"0x2"}}}}}}}}]"#
        );
        let wrapped = one(&format!(r#"{{"number":5,"traces":{traces}}}"#)).unwrap();
        let as_result = one(&format!(r#"{{"number":"5","result":{traces}}}"#)).unwrap();
        let inner = one(&format!(
            r#"{{"number":"0x5","traces":{{"jsonrpc":"2.0","id":1,"result":{traces}}}}}"#
        ))
        .unwrap();
        let response = one(&format!(r#"{{"jsonrpc":"2.0","id":5,"result":{traces}}}"#)).unwrap();
        let hex_id = one(&format!(
            r#"{{"jsonrpc":"2.0","id":"0x5","result":{traces}}}"#
        ))
        .unwrap();
        for b in [&as_result, &inner, &response, &hex_id] {
            assert_eq!(b.number, 5);
            assert_eq!(b.txs, wrapped.txs);
        }
        assert_eq!(wrapped.txs[0].post.len(), 1);
    }

    fn field_of(text: &str) -> (String, String) {
        let e = one(text).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("d.jsonl", 7));
        (e.field, e.reason)
    }

    #[test]
    fn errors_name_the_field() {
        let acct = |body: &str| {
            format!(
                r#"{{"number":1,"traces":[{{"result":{{"pre":{{}},"post":{{"{A}":{body}}}}}}}]}}"#
            )
        };
        let cases = [
            ("{".to_owned(), "(line)", "not JSON"),
            ("[]".to_owned(), "(line)", "expected an object"),
            (r#"{"traces":[]}"#.to_owned(), "number", "missing"),
            (
                r#"{"number":-1,"traces":[]}"#.to_owned(),
                "number",
                "non-negative",
            ),
            (r#"{"number":"0x1g","traces":[]}"#.to_owned(), "number", ""),
            (r#"{"number":1}"#.to_owned(), "traces", "missing"),
            (
                r#"{"number":1,"traces":{}}"#.to_owned(),
                "traces.result",
                "missing",
            ),
            (
                r#"{"number":1,"traces":[],"stateRoot":"0x12"}"#.to_owned(),
                "stateRoot",
                "32 bytes",
            ),
            (
                r#"{"jsonrpc":"2.0","result":[]}"#.to_owned(),
                "id",
                "missing",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}"#.to_owned(),
                "error",
                "-32000",
            ),
            (
                r#"{"number":1,"traces":[{"error":"execution timeout"}]}"#.to_owned(),
                "traces[0].error",
                "timeout",
            ),
            (
                r#"{"number":1,"traces":[{"result":{"pre":{}}}]}"#.to_owned(),
                "traces[0].result.post",
                "missing",
            ),
            (
                r#"{"number":1,"traces":[{"result":{"pre":{"0xaa":{}},"post":{}}}]}"#.to_owned(),
                "traces[0].result.pre.0xaa (address)",
                "20 bytes",
            ),
            (acct(r#"{"balance":"0xzz"}"#), "balance", ""),
            (acct(r#"{"balance":true}"#), "balance", "expected"),
            (
                acct(r#"{"nonce":"0x10000000000000000"}"#),
                "nonce",
                "64 bits",
            ),
            (acct(r#"{"code":"0x6"}"#), "code", ""),
            (acct(r#"{"code":"0xg0"}"#), "code", "invalid hex"),
            (acct(r#"{"code":1}"#), "code", "string"),
            (
                acct(
                    r#"{"storage":{"0x01":"0x00000000000000000000000000000000000000000000000000000000000000000001"}}"#,
                ),
                "storage.0x01",
                "at most 32",
            ),
            (
                acct(r#"{"storage":{"0xzz":"0x01"}}"#),
                "storage.0xzz (key)",
                "invalid hex",
            ),
            (acct(r#"{"storage":[]}"#), "storage", "object"),
            (acct("7"), "", "object"),
        ];
        for (text, field, reason) in cases {
            if field == "code" && reason.is_empty() {
                // An odd digit count is a leading zero nibble: accepted.
                assert!(one(&text).is_ok(), "{text}");
                continue;
            }
            let (f, r) = field_of(&text);
            assert!(f.ends_with(field), "{text}: field {f}, wanted …{field}");
            assert!(r.contains(reason), "{text}: reason {r}, wanted {reason}");
        }
        let e = one("{").unwrap_err().to_string();
        assert!(
            e.starts_with("d.jsonl: line 7: field (line): not JSON"),
            "{e}"
        );
    }
}
