//! Exported blocks: the files `fverkle replay` reads and `fverkle gen` writes.
//!
//! Three shapes are accepted, told apart by content:
//! - a document `{"blocks": [BLOCK, ...]}` (the shape of `../shared/vectors/chain/`);
//! - JSON Lines, one BLOCK per line (what `fverkle gen` writes; read as a stream);
//! - one beacon-API block dump (`{"data": {"message": {"body": {"execution_payload": ...}}}}`)
//!   per document or per line.
//!
//! A BLOCK object carries `blockNumber`, `stateRoot`, optionally `parentStateRoot`, and an
//! execution witness anywhere inside it (`executionWitness` or `execution_witness`); in a
//! beacon dump or an `execution_payload`/`executionPayload` wrapper the number and root are
//! the payload's `block_number` and `state_root`. Numbers may be JSON integers, decimal or
//! `0x` strings.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value as Json;
use witness::ExecutionWitness;

use crate::hexarg::parse_root;

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
    pending: Option<(String, Box<dyn BufRead>)>,
    files: std::collections::VecDeque<PathBuf>,
    current: Option<FileBlocks>,
}

/// The blocks of one file still to be read.
enum FileBlocks {
    /// A `{"blocks": [...]}` document or one block document: the parsed values, next index.
    Doc {
        name: String,
        blocks: std::vec::IntoIter<Json>,
        index: usize,
        wrapped: bool,
    },
    /// JSON Lines.
    Lines {
        name: String,
        reader: Box<dyn BufRead>,
        line: usize,
    },
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
            files: std::collections::VecDeque::new(),
            current: None,
        }
    }
}

fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufReader::new(std::io::stdin())));
    }
    let f = File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(Box::new(BufReader::with_capacity(1 << 20, f)))
}

/// Opens one file and decides its shape from its first line.
fn start_file(path: &Path) -> Result<FileBlocks> {
    start(path.display().to_string(), open(path)?)
}

/// Decides the shape of the export `name` read from `reader` from its first line.
fn start(name: String, mut reader: Box<dyn BufRead>) -> Result<FileBlocks> {
    let mut first = String::new();
    let mut line = 0usize;
    // Skip blank leading lines.
    while first.trim().is_empty() {
        first.clear();
        line += 1;
        let n = reader
            .read_line(&mut first)
            .with_context(|| format!("{name}: line {line}: cannot read"))?;
        if n == 0 {
            bail!("{name}: empty file, no blocks");
        }
    }
    if let Ok(v) = serde_json::from_str::<Json>(&first) {
        // A complete JSON value on the first line: JSON Lines, unless it is a whole
        // `{"blocks": [...]}` document written on one line (then the rest must be blank).
        if v.get("blocks").is_some() {
            return doc_blocks(name, v, &mut reader);
        }
        return Ok(FileBlocks::Lines {
            name,
            reader: Box::new(std::io::Cursor::new(first.into_bytes()).chain(reader)),
            line: line - 1,
        });
    }
    // A multi-line document.
    let mut text = first;
    reader
        .read_to_string(&mut text)
        .with_context(|| format!("{name}: cannot read"))?;
    let v: Json = serde_json::from_str(&text).with_context(|| format!("{name}: not JSON"))?;
    doc_blocks(name, v, &mut std::io::empty())
}

fn doc_blocks(name: String, v: Json, rest: &mut dyn Read) -> Result<FileBlocks> {
    let mut tail = String::new();
    rest.read_to_string(&mut tail)
        .with_context(|| format!("{name}: cannot read"))?;
    if !tail.trim().is_empty() {
        bail!("{name}: text after the JSON document");
    }
    match v {
        Json::Object(mut map) if map.contains_key("blocks") => {
            let Some(Json::Array(blocks)) = map.remove("blocks") else {
                bail!("{name}: field blocks: expected an array");
            };
            Ok(FileBlocks::Doc {
                name,
                blocks: blocks.into_iter(),
                index: 0,
                wrapped: true,
            })
        }
        other => Ok(FileBlocks::Doc {
            name,
            blocks: vec![other].into_iter(),
            index: 0,
            wrapped: false,
        }),
    }
}

impl Iterator for ExportReader {
    type Item = Result<ExportedBlock>;

    fn next(&mut self) -> Option<Result<ExportedBlock>> {
        loop {
            let Some(cur) = self.current.as_mut() else {
                let started = match self.pending.take() {
                    Some((name, reader)) => start(name, reader),
                    None => start_file(&self.files.pop_front()?),
                };
                match started {
                    Ok(f) => self.current = Some(f),
                    Err(e) => return Some(Err(e)),
                }
                continue;
            };
            match cur {
                FileBlocks::Doc {
                    name,
                    blocks,
                    index,
                    wrapped,
                } => {
                    let Some(v) = blocks.next() else {
                        self.current = None;
                        continue;
                    };
                    let t = Instant::now();
                    let origin = if *wrapped {
                        format!("{name}: blocks[{index}]")
                    } else {
                        name.clone()
                    };
                    *index += 1;
                    return Some(decode_block(origin, &v, t));
                }
                FileBlocks::Lines { name, reader, line } => {
                    let mut text = String::new();
                    *line += 1;
                    match reader.read_line(&mut text) {
                        Err(e) => {
                            return Some(Err(
                                anyhow!(e).context(format!("{name}: line {line}: cannot read"))
                            ))
                        }
                        Ok(0) => {
                            self.current = None;
                            continue;
                        }
                        Ok(_) if text.trim().is_empty() => continue,
                        Ok(_) => {
                            let t = Instant::now();
                            let origin = format!("{name}: line {line}");
                            let v: Json = match serde_json::from_str(&text) {
                                Ok(v) => v,
                                Err(e) => {
                                    return Some(Err(
                                        anyhow!(e).context(format!("{origin}: not JSON"))
                                    ))
                                }
                            };
                            return Some(decode_block(origin, &v, t));
                        }
                    }
                }
            }
        }
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
}
