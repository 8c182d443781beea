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
    if let Some(tree) = v.get("binaryWitness").and(v.get("tree")) {
        bail!(
            "{origin}: a binary-tree block (tree {tree}, binaryWitness), not a Verkle one: \
             replay a binary export with --tree (chain::binary::export)"
        );
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
mod tests;
