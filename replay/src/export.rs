//! Exported blocks: the files `fverkle replay` reads and `fverkle gen` writes.
//!
//! These shapes are accepted, told apart by content:
//! - a document `{"blocks": [BLOCK, ...]}` (the shape of `../shared/vectors/chain/`);
//! - a top-level JSON array `[BLOCK, ...]`;
//! - JSON Lines, one BLOCK per line (what `fverkle gen` writes; read as a stream);
//! - JSON-RPC 2.0 responses as a node answers `eth_getBlockByNumber`
//!   (`{"jsonrpc": "2.0", "id": 1, "result": BLOCK}`): one per document, a batch (an array
//!   of them), or one per line; a response with an `error` member is reported with its code
//!   and message;
//! - one beacon-API block dump (`{"data": {"message": {"body": {"execution_payload": ...}}}}`)
//!   per document or per line.
//!
//! A line of JSON Lines may itself hold an array (of blocks or of responses). Any file may be
//! gzip or zstd compressed ([`crate::input`]: told apart by its first bytes, streamed).
//!
//! A BLOCK object carries its number (`blockNumber`, or `number` as JSON-RPC says it; a block
//! with both must give the same value), `stateRoot`, optionally `parentStateRoot` (on the
//! block or inside its witness; both must agree), and an execution witness anywhere inside
//! it (`executionWitness` or `execution_witness`); in a
//! beacon dump or an `execution_payload`/`executionPayload` wrapper the number and root are
//! the payload's `block_number` and `state_root`. Numbers may be JSON integers, decimal or
//! `0x` strings.

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value as Json;
use witness::ExecutionWitness;

use crate::hexarg::parse_root;
use crate::input;

/// One block of an export, decoded.
#[derive(Debug)]
pub struct ExportedBlock {
    /// Where it came from: `FILE block N` / `FILE line L`, for messages.
    pub origin: String,
    /// Its block number.
    pub number: u64,
    /// The state root before it, when the export says.
    pub parent_state_root: Option<[u8; 32]>,
    /// The state root after it.
    pub state_root: [u8; 32],
    /// Its execution witness.
    pub witness: ExecutionWitness,
    /// Size of the witness's canonical SSZ encoding.
    pub witness_bytes: usize,
    /// Microseconds spent parsing the JSON and decoding the witness.
    pub decode_us: u64,
}

/// Reads the blocks of several export files in order, lazily.
pub struct ExportReader {
    /// An export held in memory, read before the files: its name and its reader.
    pending: Option<(String, Box<dyn Read + Send>)>,
    files: VecDeque<PathBuf>,
    current: Option<FileBlocks>,
}

/// The blocks of one file still to be read.
struct FileBlocks {
    /// The file, for messages.
    name: String,
    /// JSON Lines still to read, and the number of the last line read; `None` for a
    /// document (read whole).
    lines: Option<(Box<dyn BufRead + Send>, usize)>,
    /// The items of the document or line read last, with their origins, in order.
    items: VecDeque<(String, Json)>,
}

impl ExportReader {
    /// A reader over `files`, in order (`-` is stdin).
    pub fn new(files: &[PathBuf]) -> ExportReader {
        ExportReader {
            pending: None,
            files: files.iter().cloned().collect(),
            current: None,
        }
    }

    /// A reader over one export held in memory; `name` stands for the file in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> ExportReader {
        ExportReader {
            pending: Some((name.to_owned(), Box::new(std::io::Cursor::new(bytes)))),
            files: VecDeque::new(),
            current: None,
        }
    }
}

/// Opens one file and decides its shape from its first line.
fn start_file(path: &Path) -> Result<FileBlocks> {
    start(path.display().to_string(), input::open(path)?)
}

/// Puts the items of the value `v` read at `origin` on `items`: the elements of a top-level
/// array (blocks, or JSON-RPC responses of a batch), the blocks of a `{"blocks": [...]}`
/// document, or the value itself.
fn push_items(origin: &str, v: Json, items: &mut VecDeque<(String, Json)>) -> Result<()> {
    match v {
        Json::Array(elements) => {
            for (i, e) in elements.into_iter().enumerate() {
                items.push_back((format!("{origin}[{i}]"), e));
            }
        }
        Json::Object(mut map) if map.contains_key("blocks") => {
            let Some(Json::Array(blocks)) = map.remove("blocks") else {
                bail!("{origin}: field blocks: expected an array");
            };
            for (i, b) in blocks.into_iter().enumerate() {
                items.push_back((format!("{origin}blocks[{i}]"), b));
            }
        }
        other => items.push_back((origin.trim_end_matches(": ").to_owned(), other)),
    }
    Ok(())
}

/// Decides the shape of the export `name` read from `reader` (decompressed when its first
/// bytes are a gzip or zstd magic number) from its first line.
fn start(name: String, reader: Box<dyn BufRead + Send>) -> Result<FileBlocks> {
    let mut reader = reader;
    let mut first = String::new();
    let mut line = 0usize;
    // Skip blank leading lines.
    while first.trim().is_empty() {
        first.clear();
        line += 1;
        let n = reader
            .read_line(&mut first)
            .map_err(|e| read_failed(&name, Some(line), e))?;
        if n == 0 {
            bail!("{name}: empty file, no blocks");
        }
    }
    let mut items = VecDeque::new();
    if let Ok(v) = serde_json::from_str::<Json>(&first) {
        // A complete JSON value on the first line: JSON Lines, unless it is a whole
        // `{"blocks": [...]}` document written on one line (then the rest must be blank).
        if v.get("blocks").is_some() {
            expect_blank_rest(&name, &mut reader)?;
            push_items(&format!("{name}: "), v, &mut items)?;
            return Ok(FileBlocks {
                name,
                lines: None,
                items,
            });
        }
        push_items(&format!("{name}: line {line}: "), v, &mut items)?;
        return Ok(FileBlocks {
            name,
            lines: Some((reader, line)),
            items,
        });
    }
    // A multi-line document.
    let mut text = first;
    reader
        .read_to_string(&mut text)
        .map_err(|e| read_failed(&name, None, e))?;
    let v: Json = serde_json::from_str(&text).with_context(|| format!("{name}: not JSON"))?;
    drop(text);
    push_items(&format!("{name}: "), v, &mut items)?;
    Ok(FileBlocks {
        name,
        lines: None,
        items,
    })
}

/// An I/O error met reading `name` (at `line`): the typed [`InputError`] of a truncated or
/// corrupt compressed stream, or the I/O error with where it happened.
fn read_failed(name: &str, line: Option<usize>, e: std::io::Error) -> anyhow::Error {
    match input::take_input_error(e) {
        Ok(typed) => anyhow::Error::new(typed),
        Err(e) => {
            let at = line.map(|l| format!(": line {l}")).unwrap_or_default();
            anyhow!(e).context(format!("{name}{at}: cannot read"))
        }
    }
}

fn expect_blank_rest(name: &str, rest: &mut dyn Read) -> Result<()> {
    let mut tail = String::new();
    rest.read_to_string(&mut tail)
        .map_err(|e| read_failed(name, None, e))?;
    if !tail.trim().is_empty() {
        bail!("{name}: text after the JSON document");
    }
    Ok(())
}

impl Iterator for ExportReader {
    type Item = Result<ExportedBlock>;

    fn next(&mut self) -> Option<Result<ExportedBlock>> {
        loop {
            let Some(cur) = self.current.as_mut() else {
                let started = match self.pending.take() {
                    Some((name, reader)) => input::decompressing(&name, reader)
                        .map_err(anyhow::Error::new)
                        .and_then(|r| start(name, r)),
                    None => start_file(&self.files.pop_front()?),
                };
                match started {
                    Ok(f) => self.current = Some(f),
                    Err(e) => return Some(Err(e)),
                }
                continue;
            };
            if let Some((origin, v)) = cur.items.pop_front() {
                return Some(decode_item(origin, v, Instant::now()));
            }
            let Some((reader, line)) = cur.lines.as_mut() else {
                self.current = None;
                continue;
            };
            let mut text = String::new();
            *line += 1;
            match reader.read_line(&mut text) {
                Err(e) => {
                    let e = read_failed(&cur.name, Some(*line), e);
                    // Nothing more of this file can be read.
                    self.current = None;
                    return Some(Err(e));
                }
                Ok(0) => {
                    self.current = None;
                    continue;
                }
                Ok(_) if text.trim().is_empty() => continue,
                Ok(_) => {
                    let origin = format!("{}: line {line}", cur.name);
                    let v: Json = match serde_json::from_str(&text) {
                        Ok(v) => v,
                        Err(e) => {
                            return Some(Err(anyhow!(e).context(format!("{origin}: not JSON"))))
                        }
                    };
                    drop(text);
                    if let Err(e) = push_items(&format!("{origin}: "), v, &mut cur.items) {
                        return Some(Err(e));
                    }
                }
            }
        }
    }
}

/// Whether `v` is a JSON-RPC 2.0 response (`jsonrpc`, or an `id` with a `result` or an
/// `error`) rather than a block.
fn is_rpc_response(v: &Json) -> bool {
    v.get("jsonrpc").is_some()
        || (v.get("id").is_some() && (v.get("result").is_some() || v.get("error").is_some()))
}

/// Decodes one item: a block, or a JSON-RPC response whose `result` is one (as
/// `eth_getBlockByNumber` returns it).
fn decode_item(origin: String, mut v: Json, t: Instant) -> Result<ExportedBlock> {
    if !is_rpc_response(&v) {
        return decode_block(origin, &v, t);
    }
    let id = match v.get("id") {
        Some(id) => format!(" (request id {id})"),
        None => String::new(),
    };
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        let code = err
            .get("code")
            .map(|c| c.to_string())
            .unwrap_or_else(|| "without a code".into());
        let message = match err.get("message") {
            Some(Json::String(m)) => m.clone(),
            Some(other) => other.to_string(),
            None => "no message".into(),
        };
        bail!("{origin}: JSON-RPC error {code}: {message}{id}");
    }
    match v.get_mut("result").map(Json::take) {
        Some(block @ Json::Object(_)) => decode_block(origin, &block, t),
        Some(Json::Null) => {
            bail!("{origin}: JSON-RPC response{id}: field result: null, no such block")
        }
        Some(_) => bail!("{origin}: JSON-RPC response{id}: field result: expected a block object"),
        None => bail!("{origin}: JSON-RPC response{id}: no result and no error"),
    }
}

/// The object holding the block's number and roots: a beacon dump's or wrapper's payload,
/// or the block itself.
fn header_object(v: &Json) -> &Json {
    if let Some(p) = v.pointer("/data/message/body/execution_payload") {
        return p;
    }
    if let Some(p) = v.pointer("/message/body/execution_payload") {
        return p;
    }
    for k in [
        "execution_payload",
        "executionPayload",
        "blockHeader",
        "header",
    ] {
        if let Some(p) = v.get(k).filter(|p| p.is_object()) {
            return p;
        }
    }
    v
}

fn field<'a>(obj: &'a Json, names: &[&'static str]) -> Option<(&'static str, &'a Json)> {
    names.iter().find_map(|n| obj.get(*n).map(|v| (*n, v)))
}

fn parse_number(v: &Json) -> Result<u64, String> {
    match v {
        Json::Number(n) => n
            .as_u64()
            .ok_or_else(|| format!("{n} is not a block number")),
        Json::String(s) => {
            let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => s.parse::<u64>(),
            };
            r.map_err(|e| format!("{s:?} is not a block number: {e}"))
        }
        _ => Err("expected an integer or a number string".to_string()),
    }
}

fn parse_root_field(v: &Json) -> Result<[u8; 32], String> {
    let s = v
        .as_str()
        .ok_or_else(|| "expected a hex string".to_string())?;
    parse_root(s)
}

/// Decodes one block object; `origin` names it in errors.
fn decode_block(origin: String, v: &Json, t: Instant) -> Result<ExportedBlock> {
    if !v.is_object() {
        bail!("{origin}: expected a block object");
    }
    let h = header_object(v);
    let (nf, nv) = field(h, &["blockNumber", "block_number", "number"])
        .ok_or_else(|| anyhow!("{origin}: field blockNumber: missing"))?;
    let number = parse_number(nv).map_err(|e| anyhow!("{origin}: field {nf}: {e}"))?;
    // A block from JSON-RPC says `number`; an export may say both, then they must agree.
    if nf != "number" {
        if let Some(other) = h.get("number") {
            let n = parse_number(other).map_err(|e| anyhow!("{origin}: field number: {e}"))?;
            if n != number {
                bail!("{origin}: fields {nf} and number disagree: {number} and {n}");
            }
        }
    }
    let (sf, sv) = field(h, &["stateRoot", "state_root"])
        .ok_or_else(|| anyhow!("{origin}: block {number}: field stateRoot: missing"))?;
    let state_root =
        parse_root_field(sv).map_err(|e| anyhow!("{origin}: block {number}: field {sf}: {e}"))?;
    let parent_state_root = match field(h, &["parentStateRoot", "parent_state_root"]) {
        None | Some((_, Json::Null)) => None,
        Some((pf, pv)) => Some(
            parse_root_field(pv)
                .map_err(|e| anyhow!("{origin}: block {number}: field {pf}: {e}"))?,
        ),
    };
    // A verkle-era geth or EthereumJS puts the parent's state root inside the witness.
    let witness_obj = [v, h].into_iter().find_map(|o| {
        o.get("executionWitness")
            .or_else(|| o.get("execution_witness"))
    });
    let inner_parent =
        match witness_obj.and_then(|w| field(w, &["parentStateRoot", "parent_state_root"])) {
            None | Some((_, Json::Null)) => None,
            Some((pf, pv)) => Some(parse_root_field(pv).map_err(|e| {
                anyhow!("{origin}: block {number}: field executionWitness.{pf}: {e}")
            })?),
        };
    let parent_state_root = match (parent_state_root, inner_parent) {
        (Some(a), Some(b)) if a != b => bail!(
            "{origin}: block {number}: fields parentStateRoot and executionWitness.parentStateRoot disagree: {} and {}",
            crate::hexarg::to_hex(&a),
            crate::hexarg::to_hex(&b)
        ),
        (a, b) => a.or(b),
    };
    let witness = ExecutionWitness::from_json_value(v)
        .map_err(|e| anyhow!("{origin}: block {number}: execution witness: {e}"))?;
    let witness_bytes = witness.as_ssz().len();
    Ok(ExportedBlock {
        origin,
        number,
        parent_state_root,
        state_root,
        witness,
        witness_bytes,
        decode_us: t.elapsed().as_micros() as u64,
    })
}

/// One block as `fverkle gen` writes it (a JSON Lines line).
pub fn block_json(
    number: u64,
    parent_state_root: &[u8; 32],
    state_root: &[u8; 32],
    witness: &ExecutionWitness,
) -> Json {
    serde_json::json!({
        "blockNumber": number,
        "parentStateRoot": crate::hexarg::to_hex(parent_state_root),
        "stateRoot": crate::hexarg::to_hex(state_root),
        "executionWitness": witness.to_json_value(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write temp file");
        p
    }

    fn empty_witness_json() -> Json {
        let w = witness::OwnedExecutionWitness::default()
            .to_witness()
            .expect("empty witness encodes");
        w.to_json_value()
    }

    #[test]
    fn reads_the_three_shapes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let root = format!("0x{}", "11".repeat(32));
        let b = |n: u64| serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
        let doc = serde_json::json!({"blocks": [b(1), b(2)]});
        let f1 = write(
            dir.path(),
            "doc.json",
            &serde_json::to_string_pretty(&doc).expect("json"),
        );
        let f2 = write(
            dir.path(),
            "lines.jsonl",
            &format!("{}\n\n{}\n", b(3), b(4)),
        );
        let beacon = serde_json::json!({"data": {"message": {"body": {"execution_payload": {
            "block_number": "5", "state_root": root, "execution_witness": w}}}}});
        let f3 = write(
            dir.path(),
            "beacon.json",
            &serde_json::to_string_pretty(&beacon).expect("json"),
        );
        let got: Vec<u64> = ExportReader::new(&[f1, f2, f3])
            .map(|b| b.expect("block decodes").number)
            .collect();
        assert_eq!(got, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let good = serde_json::json!({"blockNumber": 1, "stateRoot": format!("0x{}", "11".repeat(32)), "executionWitness": w});
        let bad = serde_json::json!({"blockNumber": 2, "stateRoot": "0xzz", "executionWitness": w});
        let f = write(dir.path(), "x.jsonl", &format!("{good}\n{bad}\n{{\"trunc"));
        let mut r = ExportReader::new(&[f]);
        assert_eq!(r.next().expect("one").expect("ok").number, 1);
        let e = format!("{:#}", r.next().expect("two").expect_err("bad root"));
        assert!(
            e.contains("x.jsonl: line 2: block 2: field stateRoot"),
            "{e}"
        );
        let e = format!("{:#}", r.next().expect("three").expect_err("truncated"));
        assert!(e.contains("x.jsonl: line 3: not JSON"), "{e}");
        assert!(r.next().is_none());
    }

    /// A block as a verkle-era geth returns it from `eth_getBlockByNumber`: quantities as
    /// `0x` strings, `number` (not `blockNumber`), no `parentStateRoot`.
    fn geth_block(n: u64, w: &Json) -> Json {
        serde_json::json!({
            "baseFeePerGas": "0x7",
            "difficulty": "0x0",
            "extraData": "0x",
            "gasLimit": "0x1c9c380",
            "gasUsed": "0x0",
            "hash": format!("0x{}", "ab".repeat(32)),
            "logsBloom": format!("0x{}", "00".repeat(256)),
            "miner": "0xf97e180c050e5ab072211ad2c213eb5aee4df134",
            "mixHash": format!("0x{}", "cd".repeat(32)),
            "nonce": "0x0000000000000000",
            "number": format!("0x{n:x}"),
            "parentHash": format!("0x{}", "ef".repeat(32)),
            "receiptsRoot": format!("0x{}", "56".repeat(32)),
            "sha3Uncles": format!("0x{}", "1d".repeat(32)),
            "size": "0x2ba",
            "stateRoot": format!("0x{}", "22".repeat(32)),
            "timestamp": "0x66193c3c",
            "totalDifficulty": "0x1",
            "transactions": [],
            "transactionsRoot": format!("0x{}", "56".repeat(32)),
            "uncles": [],
            "withdrawals": [],
            "withdrawalsRoot": format!("0x{}", "56".repeat(32)),
            "executionWitness": w,
        })
    }

    fn response(id: u64, result: Json) -> Json {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    fn numbers(files: &[PathBuf]) -> Vec<u64> {
        ExportReader::new(files)
            .map(|b| b.expect("block decodes").number)
            .collect()
    }

    #[test]
    fn reads_json_rpc_responses_batches_and_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let one = write(
            dir.path(),
            "one.json",
            &serde_json::to_string_pretty(&response(1, geth_block(0x10, &w))).expect("json"),
        );
        let batch = serde_json::json!([
            response(2, geth_block(0x11, &w)),
            response(3, geth_block(0x12, &w))
        ]);
        let batch = write(
            dir.path(),
            "batch.json",
            &serde_json::to_string_pretty(&batch).expect("json"),
        );
        let lines = write(
            dir.path(),
            "lines.jsonl",
            &format!(
                "{}\n{}\n",
                response(4, geth_block(0x13, &w)),
                response(5, geth_block(0x14, &w))
            ),
        );
        let batch_line = write(
            dir.path(),
            "batch-line.json",
            &format!(
                "{}\n",
                serde_json::json!([response(6, geth_block(0x15, &w))])
            ),
        );
        assert_eq!(
            numbers(&[one.clone(), batch, lines, batch_line]),
            [0x10, 0x11, 0x12, 0x13, 0x14, 0x15]
        );
        let b = ExportReader::new(&[one])
            .next()
            .expect("one block")
            .expect("decodes");
        assert_eq!(b.state_root, [0x22; 32]);
        assert_eq!(b.parent_state_root, None);
        assert!(b.origin.ends_with("one.json"), "{}", b.origin);
    }

    #[test]
    fn a_json_rpc_error_names_file_line_code_and_message() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let err = serde_json::json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32000, "message": "header not found"}});
        let f = write(
            dir.path(),
            "rpc.jsonl",
            &format!("{}\n{err}\n", response(7, geth_block(1, &w))),
        );
        let mut r = ExportReader::new(&[f]);
        assert_eq!(r.next().expect("one").expect("ok").number, 1);
        let e = format!("{:#}", r.next().expect("two").expect_err("rpc error"));
        assert!(
            e.contains("rpc.jsonl: line 2: JSON-RPC error -32000: header not found (request id 8)"),
            "{e}"
        );
        let null = write(
            dir.path(),
            "null.json",
            &serde_json::json!({"jsonrpc": "2.0", "id": 9, "result": null}).to_string(),
        );
        let e = format!(
            "{:#}",
            ExportReader::new(&[null])
                .next()
                .expect("one")
                .expect_err("null result")
        );
        assert!(
            e.contains("null.json: line 1: JSON-RPC response (request id 9): field result: null"),
            "{e}"
        );
    }

    #[test]
    fn number_and_block_number_must_agree() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let root = format!("0x{}", "11".repeat(32));
        let same = serde_json::json!({"blockNumber": 3, "number": "0x3", "stateRoot": root, "executionWitness": w});
        let differ = serde_json::json!({"blockNumber": 3, "number": "0x4", "stateRoot": root, "executionWitness": w});
        let f = write(dir.path(), "n.jsonl", &format!("{same}\n{differ}\n"));
        let mut r = ExportReader::new(&[f]);
        assert_eq!(r.next().expect("one").expect("agree").number, 3);
        let e = format!("{:#}", r.next().expect("two").expect_err("disagree"));
        assert!(
            e.contains("n.jsonl: line 2: fields blockNumber and number disagree: 3 and 4"),
            "{e}"
        );
    }

    #[test]
    fn reads_a_top_level_array_of_blocks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let root = format!("0x{}", "11".repeat(32));
        let b = |n: u64| serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
        let arr = serde_json::json!([b(1), b(2), b(3)]);
        let pretty = write(
            dir.path(),
            "arr.json",
            &serde_json::to_string_pretty(&arr).expect("json"),
        );
        let compact = write(dir.path(), "arr1.json", &arr.to_string());
        assert_eq!(numbers(&[pretty.clone(), compact]), [1, 2, 3, 1, 2, 3]);
        let origins: Vec<String> = ExportReader::new(&[pretty])
            .map(|b| b.expect("decodes").origin)
            .collect();
        assert!(origins[2].ends_with("arr.json: [2]"), "{origins:?}");
    }

    #[test]
    fn every_shape_reads_the_same_gzip_or_zstd_compressed() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let root = format!("0x{}", "11".repeat(32));
        let b = |n: u64| serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
        let shapes = [
            serde_json::to_string_pretty(&serde_json::json!({"blocks": [b(1), b(2)]}))
                .expect("json"),
            format!("{}\n{}\n", b(1), b(2)),
            serde_json::to_string_pretty(&serde_json::json!([b(1), b(2)])).expect("json"),
            format!(
                "{}\n{}\n",
                response(1, geth_block(1, &w)),
                response(2, geth_block(2, &w))
            ),
            serde_json::json!([
                response(1, geth_block(1, &w)),
                response(2, geth_block(2, &w))
            ])
            .to_string(),
        ];
        for (i, text) in shapes.iter().enumerate() {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(text.as_bytes()).expect("gzip");
            let gz = gz.finish().expect("gzip");
            let zst = zstd::encode_all(text.as_bytes(), 3).expect("zstd");
            // Names do not decide: a gzip file named `.zst` and a zstd file named `.json`.
            let fg = dir.path().join(format!("{i}.zst"));
            std::fs::write(&fg, &gz).expect("write");
            let fz = dir.path().join(format!("{i}.json"));
            std::fs::write(&fz, &zst).expect("write");
            assert_eq!(numbers(&[fg, fz]), [1, 2, 1, 2], "shape {i}");
            let from_bytes: Vec<u64> = ExportReader::from_bytes("mem", gz)
                .map(|b| b.expect("decodes").number)
                .collect();
            assert_eq!(from_bytes, [1, 2], "shape {i} from bytes");
        }
    }

    #[test]
    fn a_truncated_compressed_export_is_a_typed_error_naming_the_file() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let w = empty_witness_json();
        let root = format!("0x{}", "11".repeat(32));
        let text: String = (1..=200)
            .map(|n| {
                let b =
                    serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
                format!("{b}\n")
            })
            .collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text.as_bytes()).expect("gzip");
        let gz = gz.finish().expect("gzip");
        let zst = zstd::encode_all(text.as_bytes(), 3).expect("zstd");
        for (name, packed) in [("cut.jsonl.gz", gz), ("cut.jsonl.zst", zst)] {
            let f = write(dir.path(), name, "");
            std::fs::write(&f, &packed[..packed.len() * 3 / 4]).expect("write");
            let results: Vec<Result<ExportedBlock>> = ExportReader::new(&[f]).collect();
            let (last, good) = results.split_last().expect("some results");
            assert!(good.iter().all(|b| b.is_ok()), "{name}");
            let e = last.as_ref().expect_err("truncated");
            let typed = e
                .downcast_ref::<input::InputError>()
                .unwrap_or_else(|| panic!("{name}: not an InputError: {e:#}"));
            assert!(
                matches!(typed, input::InputError::Corrupt { file, .. } if file.ends_with(name)),
                "{typed:?}"
            );
        }
    }

    #[test]
    fn a_parent_state_root_inside_the_witness_is_read_and_must_agree() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut w = empty_witness_json();
        w["parentStateRoot"] = serde_json::json!(format!("0x{}", "33".repeat(32)));
        let inner = response(1, geth_block(5, &w));
        let mut agree = geth_block(6, &w);
        agree["parentStateRoot"] = serde_json::json!(format!("0x{}", "33".repeat(32)));
        let mut differ = geth_block(7, &w);
        differ["parentStateRoot"] = serde_json::json!(format!("0x{}", "44".repeat(32)));
        let f = write(
            dir.path(),
            "p.jsonl",
            &format!("{inner}\n{agree}\n{differ}\n"),
        );
        let mut r = ExportReader::new(&[f]);
        let b = r.next().expect("one").expect("ok");
        assert_eq!(b.parent_state_root, Some([0x33; 32]));
        let b = r.next().expect("two").expect("ok");
        assert_eq!(b.parent_state_root, Some([0x33; 32]));
        let e = format!("{:#}", r.next().expect("three").expect_err("disagree"));
        assert!(
            e.contains("p.jsonl: line 3: block 7: fields parentStateRoot and executionWitness.parentStateRoot disagree"),
            "{e}"
        );
    }
}
