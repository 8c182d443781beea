//! The binary block export: what `fverkle gen --tree eip7864|eip8297` writes and
//! `fverkle replay --tree eip7864|eip8297` reads.
//!
//! JSON Lines, one block per line, fields in this order:
//!
//! ```text
//! {"blockNumber":1,"tree":"eip7864","hash":"sha256","parentStateRoot":"0x…","stateRoot":"0x…","binaryWitness":"0x…"}
//! ```
//!
//! - `blockNumber`: the block's number (a JSON integer), from 1;
//! - `tree` and `hash`: the binary tree (`eip7864`, `eip8297`) and its hash (`sha256`,
//!   `blake3`), as the witness's header names them;
//! - `parentStateRoot`, `stateRoot`: the state roots before and after the block (32 bytes,
//!   `0x` hex);
//! - `binaryWitness`: the block's binary witness (`spec/BINARY.md`), `0x` hex: every key the
//!   block reads or writes, its pre-value or absence, its write, and the multiproof.
//!
//! A file may be gzip or zstd compressed ([`crate::input`]). Every line is read with a bound
//! ([`BinaryExportReader::with_max_witness_bytes`]); every failure is an [`ExportError`]
//! naming the file and line.

use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value as Json;

use super::BinaryKind;
use crate::hexarg::{parse_root, to_hex};
use crate::input::{self, InputError};

/// Largest witness a line may carry, by default (64 MiB).
pub const MAX_WITNESS_BYTES: usize = 64 << 20;

/// Bytes of a line besides its witness's hex.
const LINE_OVERHEAD: usize = 4096;

/// One line of a binary export, its fields checked (the witness not yet decoded).
#[derive(Clone, Debug)]
pub struct BinaryExportBlock {
    /// `FILE: line L`, for messages.
    pub origin: String,
    /// Block number.
    pub number: u64,
    /// The tree and hash the line names.
    pub kind: BinaryKind,
    /// The state root before the block.
    pub parent_state_root: [u8; 32],
    /// The state root after it.
    pub state_root: [u8; 32],
    /// The witness's bytes.
    pub witness: Vec<u8>,
    /// Microseconds spent reading the JSON and the witness's hex.
    pub parse_us: u64,
}

/// Why a binary export cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The file cannot be opened, or its compressed stream is corrupt.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A line cannot be read.
    #[error("{file}: line {line}: cannot read: {source}")]
    Read {
        /// The file.
        file: String,
        /// The line.
        line: usize,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is longer than the bound.
    #[error("{file}: line {line}: longer than {max} bytes")]
    LineTooLong {
        /// The file.
        file: String,
        /// The line.
        line: usize,
        /// The bound.
        max: usize,
    },
    /// A line is not a JSON object.
    #[error("{file}: line {line}: not a JSON object: {message}")]
    NotJson {
        /// The file.
        file: String,
        /// The line.
        line: usize,
        /// What the parser said.
        message: String,
    },
    /// A line is a block of a Verkle export (`executionWitness`, no `binaryWitness`).
    #[error(
        "{file}: line {line}: a Verkle block (executionWitness), not a binary one: replay a \
         Verkle export without --tree (or with --tree verkle)"
    )]
    VerkleExport {
        /// The file.
        file: String,
        /// The line.
        line: usize,
    },
    /// A field is missing or malformed.
    #[error("{file}: line {line}: field {field}: {reason}")]
    Field {
        /// The file.
        file: String,
        /// The line.
        line: usize,
        /// The field.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The line's tree is not the replay's.
    #[error("{file}: line {line}: a block of tree {got}, but the replay holds {expected} (--tree/--hash)")]
    WrongTree {
        /// The file.
        file: String,
        /// The line.
        line: usize,
        /// `tree/hash` of the line.
        got: String,
        /// `tree/hash` of the replay.
        expected: String,
    },
    /// The witness is larger than the bound.
    #[error("{file}: line {line}: field binaryWitness: {bytes} bytes, above the limit {max}")]
    WitnessTooLarge {
        /// The file.
        file: String,
        /// The line.
        line: usize,
        /// Its size.
        bytes: usize,
        /// The bound.
        max: usize,
    },
    /// A file holds no block.
    #[error("{file}: empty file, no blocks")]
    Empty {
        /// The file.
        file: String,
    },
}

/// `tree/hash`, as messages name a kind.
pub fn kind_name(kind: BinaryKind) -> String {
    format!("{}/{}", kind.tree(), kind.hash())
}

/// One block as a line of the export (without its newline).
pub fn block_line(
    kind: BinaryKind,
    number: u64,
    parent_state_root: &[u8; 32],
    state_root: &[u8; 32],
    witness: &[u8],
) -> String {
    format!(
        "{{\"blockNumber\":{number},\"tree\":\"{}\",\"hash\":\"{}\",\"parentStateRoot\":\"{}\",\"stateRoot\":\"{}\",\"binaryWitness\":\"{}\"}}",
        kind.tree(),
        kind.hash(),
        to_hex(parent_state_root),
        to_hex(state_root),
        to_hex(witness)
    )
}

/// The file being read.
struct Current {
    name: String,
    reader: Box<dyn BufRead + Send>,
    line: usize,
    blocks: usize,
}

/// Reads the blocks of binary export files in order, one line at a time.
pub struct BinaryExportReader {
    kind: BinaryKind,
    files: std::collections::VecDeque<PathBuf>,
    current: Option<Current>,
    max_witness: usize,
}

impl BinaryExportReader {
    /// A reader over `files` (`-` is stdin) for a replay holding `kind`.
    pub fn new(files: &[PathBuf], kind: BinaryKind) -> BinaryExportReader {
        BinaryExportReader {
            kind,
            files: files.iter().cloned().collect(),
            current: None,
            max_witness: MAX_WITNESS_BYTES,
        }
    }

    /// The same reader with another bound on a witness's size (a line may hold twice that
    /// in hex, and 4 KiB more).
    pub fn with_max_witness_bytes(mut self, max: usize) -> BinaryExportReader {
        self.max_witness = max;
        self
    }

    fn max_line(&self) -> usize {
        self.max_witness
            .saturating_mul(2)
            .saturating_add(LINE_OVERHEAD)
    }
}

fn field<'a>(
    obj: &'a serde_json::Map<String, Json>,
    name: &'static str,
    file: &str,
    line: usize,
) -> Result<&'a Json, ExportError> {
    obj.get(name).ok_or_else(|| ExportError::Field {
        file: file.to_owned(),
        line,
        field: name,
        reason: "missing".into(),
    })
}

/// Decodes one line (`text`, line `line` of `file`) for a replay of `kind`.
pub fn decode_line(
    text: &[u8],
    file: &str,
    line: usize,
    kind: BinaryKind,
    max_witness: usize,
) -> Result<BinaryExportBlock, ExportError> {
    let t = Instant::now();
    let bad = |field: &'static str, reason: String| ExportError::Field {
        file: file.to_owned(),
        line,
        field,
        reason,
    };
    let v: Json = serde_json::from_slice(text).map_err(|e| ExportError::NotJson {
        file: file.to_owned(),
        line,
        message: e.to_string(),
    })?;
    let Json::Object(obj) = v else {
        return Err(ExportError::NotJson {
            file: file.to_owned(),
            line,
            message: "not an object".into(),
        });
    };
    if !obj.contains_key("binaryWitness")
        && (obj.contains_key("executionWitness") || obj.contains_key("execution_witness"))
    {
        return Err(ExportError::VerkleExport {
            file: file.to_owned(),
            line,
        });
    }
    let string = |name: &'static str| -> Result<&str, ExportError> {
        field(&obj, name, file, line)?
            .as_str()
            .ok_or_else(|| bad(name, "expected a string".into()))
    };
    let number = field(&obj, "blockNumber", file, line)?
        .as_u64()
        .ok_or_else(|| bad("blockNumber", "expected a non-negative integer".into()))?;
    let (tree, hash) = (string("tree")?, string("hash")?);
    let got = BinaryKind::from_names(tree, Some(hash)).ok_or_else(|| {
        bad(
            "tree",
            format!("{tree:?} with hash {hash:?} is no binary tree"),
        )
    })?;
    if got != kind {
        return Err(ExportError::WrongTree {
            file: file.to_owned(),
            line,
            got: kind_name(got),
            expected: kind_name(kind),
        });
    }
    let parent_state_root =
        parse_root(string("parentStateRoot")?).map_err(|e| bad("parentStateRoot", e))?;
    let state_root = parse_root(string("stateRoot")?).map_err(|e| bad("stateRoot", e))?;
    let w = string("binaryWitness")?;
    let digits = w
        .strip_prefix("0x")
        .ok_or_else(|| bad("binaryWitness", "expected 0x-prefixed hex".into()))?;
    if digits.len() / 2 > max_witness {
        return Err(ExportError::WitnessTooLarge {
            file: file.to_owned(),
            line,
            bytes: digits.len() / 2,
            max: max_witness,
        });
    }
    let witness = hex::decode(digits).map_err(|e| bad("binaryWitness", format!("not hex: {e}")))?;
    Ok(BinaryExportBlock {
        origin: format!("{file}: line {line}"),
        number,
        kind,
        parent_state_root,
        state_root,
        witness,
        parse_us: t.elapsed().as_micros() as u64,
    })
}

impl Iterator for BinaryExportReader {
    type Item = Result<BinaryExportBlock, ExportError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (max, kind, max_witness) = (self.max_line(), self.kind, self.max_witness);
        loop {
            let Some(cur) = self.current.as_mut() else {
                let path = self.files.pop_front()?;
                match input::open(&path) {
                    Ok(reader) => {
                        self.current = Some(Current {
                            name: path.display().to_string(),
                            reader,
                            line: 0,
                            blocks: 0,
                        })
                    }
                    Err(e) => return Some(Err(e.into())),
                }
                continue;
            };
            cur.line += 1;
            let mut buf = Vec::new();
            let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
            let read = (&mut cur.reader).take(limit).read_until(b'\n', &mut buf);
            let (name, line) = (cur.name.clone(), cur.line);
            match read {
                Err(e) => {
                    self.current = None;
                    return Some(Err(match input::take_input_error(e) {
                        Ok(typed) => ExportError::Input(typed),
                        Err(source) => ExportError::Read {
                            file: name,
                            line,
                            source,
                        },
                    }));
                }
                Ok(0) => {
                    let empty = cur.blocks == 0;
                    self.current = None;
                    if empty {
                        return Some(Err(ExportError::Empty { file: name }));
                    }
                }
                Ok(_) if buf.len() > max => {
                    self.current = None;
                    return Some(Err(ExportError::LineTooLong {
                        file: name,
                        line,
                        max,
                    }));
                }
                Ok(_) if buf.iter().all(u8::is_ascii_whitespace) => {}
                Ok(_) => {
                    cur.blocks += 1;
                    return Some(decode_line(&buf, &name, line, kind, max_witness));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn lines_round_trip_and_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let kind = BinaryKind::Eip8297;
        let good = block_line(kind, 1, &[1; 32], &[2; 32], &[9, 8, 7]);
        let doc: Json = serde_json::from_str(&good).unwrap();
        assert_eq!(doc["tree"], "eip8297");
        assert_eq!(doc["hash"], "blake3");
        let p = write(dir.path(), "a.jsonl", &format!("{good}\n\n{good}\n"));
        let blocks: Vec<_> = BinaryExportReader::new(std::slice::from_ref(&p), kind)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1].origin, format!("{}: line 3", p.display()));
        assert_eq!(blocks[0].witness, vec![9, 8, 7]);
        assert_eq!(blocks[0].state_root, [2; 32]);

        let first_error = |text: &str, kind: BinaryKind| {
            let p = write(dir.path(), "b.jsonl", text);
            let e = BinaryExportReader::new(&[p], kind)
                .with_max_witness_bytes(16)
                .find_map(Result::err)
                .unwrap();
            (e.to_string(), e)
        };
        let (msg, e) = first_error(&format!("{good}\n{{not json\n"), kind);
        assert!(matches!(e, ExportError::NotJson { line: 2, .. }), "{msg}");
        assert!(msg.contains("b.jsonl: line 2"), "{msg}");
        let (msg, e) = first_error(&format!("{good}\n"), BinaryKind::Eip7864Sha256);
        assert!(matches!(e, ExportError::WrongTree { line: 1, .. }), "{msg}");
        let verkle = r#"{"blockNumber":1,"stateRoot":"0x00","executionWitness":{}}"#;
        let (msg, e) = first_error(verkle, kind);
        assert!(
            matches!(e, ExportError::VerkleExport { line: 1, .. }),
            "{msg}"
        );
        let (_, e) = first_error(
            &good.replace("\"stateRoot\":\"0x02", "\"stateRoot\":\"0xzz"),
            kind,
        );
        assert!(matches!(
            e,
            ExportError::Field {
                field: "stateRoot",
                ..
            }
        ));
        let (_, e) = first_error(
            &good.replace("\"blockNumber\":1", "\"blockNumber\":-1"),
            kind,
        );
        assert!(matches!(
            e,
            ExportError::Field {
                field: "blockNumber",
                ..
            }
        ));
        let big = block_line(kind, 1, &[1; 32], &[2; 32], &[0; 17]);
        let (_, e) = first_error(&big, kind);
        assert!(matches!(
            e,
            ExportError::WitnessTooLarge {
                bytes: 17,
                max: 16,
                ..
            }
        ));
        let long = format!("{}\n", " ".repeat(5000));
        let (_, e) = first_error(&long, kind);
        assert!(matches!(e, ExportError::LineTooLong { line: 1, .. }));
        let (_, e) = first_error("\n\n", kind);
        assert!(matches!(e, ExportError::Empty { .. }));
    }
}
