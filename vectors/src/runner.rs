//! One runner for every file: our suite and the upstream data, each file accounted for.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::VectorError;
use crate::upstream;

/// The format a file was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Our suite (`"format": "fverkle-vectors"`).
    Suite,
    /// go-ipa's crypto harness vectors (`crypto/001…012`).
    GoIpa,
    /// rust-verkle's Java-binding vectors (`commit_root_test`, `pedersen_*_test`).
    RustVerkle,
    /// geth/go-verkle tree vectors (`tree/`).
    GethTree,
    /// besu code-chunking vectors (`code/`).
    BesuCode,
    /// Genesis files: geth genesis JSON, `tree_key,value` CSV.
    Genesis,
    /// go-verkle JSON witnesses: Kaustinen6 blocks, beacon-API dump, EEST fixture.
    GoVerkleWitness,
    /// The Kaustinen6 witness chain.
    KaustinenChain,
    /// Not vector data (documentation, crate sources, the encrypted held-out set).
    NotData,
    /// No checker knows it.
    Unknown,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Suite => "fverkle-suite",
            Format::GoIpa => "go-ipa",
            Format::RustVerkle => "rust-verkle",
            Format::GethTree => "geth-tree",
            Format::BesuCode => "besu-code",
            Format::Genesis => "genesis",
            Format::GoVerkleWitness => "go-verkle-witness",
            Format::KaustinenChain => "kaustinen-chain",
            Format::NotData => "not-data",
            Format::Unknown => "unknown",
        })
    }
}

/// What checking one file concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// Every check agreed.
    Passed {
        /// Cases or assertions checked.
        checks: usize,
    },
    /// Deliberately not read, for the stated reason.
    Skipped {
        /// Why.
        reason: &'static str,
    },
    /// A check failed, the file is malformed, or no checker knows it.
    Failed {
        /// The error, naming the file and the place.
        error: String,
    },
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Passed { checks } => write!(f, "ok ({checks} checks)"),
            Status::Skipped { reason } => write!(f, "skipped: {reason}"),
            Status::Failed { error } => write!(f, "FAILED: {error}"),
        }
    }
}

/// One file's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// What it was recognised as.
    pub format: Format,
    /// The outcome.
    pub status: Status,
}

/// The outcome of every file under the paths given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// In walk order (paths as given, directories sorted by name).
    pub files: Vec<FileReport>,
}

impl Report {
    fn count(&self, f: impl Fn(&Status) -> bool) -> usize {
        self.files.iter().filter(|r| f(&r.status)).count()
    }

    /// Files whose checks all passed.
    pub fn passed(&self) -> usize {
        self.count(|s| matches!(s, Status::Passed { .. }))
    }

    /// Files that failed (including unknown files).
    pub fn failed(&self) -> usize {
        self.count(|s| matches!(s, Status::Failed { .. }))
    }

    /// Files deliberately not read.
    pub fn skipped(&self) -> usize {
        self.count(|s| matches!(s, Status::Skipped { .. }))
    }
}

/// Checks every file under `paths` (files or directories, walked recursively in name
/// order). Only an unreadable path given or a directory that cannot be listed is an `Err`;
/// every file's outcome, failures included, is in the report.
pub fn check_paths(paths: &[PathBuf]) -> Result<Report, VectorError> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    Ok(Report {
        files: files.iter().map(|f| check_file(f)).collect(),
    })
}

pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), VectorError> {
    let io = |source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for e in entries {
        collect(&e, out)?;
    }
    Ok(())
}

/// The checker a data file needs, recognised from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Suite,
    GoIpa(u32),
    RustVerkleCommitments { big_endian: bool },
    RustVerklePedersenHash,
    GethTree(u32),
    BesuCode { with_keys: bool },
    Genesis,
    GoVerkleWitness,
    KaustinenChain,
}

impl Check {
    fn format(self) -> Format {
        match self {
            Check::Suite => Format::Suite,
            Check::GoIpa(_) => Format::GoIpa,
            Check::RustVerkleCommitments { .. } | Check::RustVerklePedersenHash => {
                Format::RustVerkle
            }
            Check::GethTree(_) => Format::GethTree,
            Check::BesuCode { .. } => Format::BesuCode,
            Check::Genesis => Format::Genesis,
            Check::GoVerkleWitness => Format::GoVerkleWitness,
            Check::KaustinenChain => Format::KaustinenChain,
        }
    }
}

/// Files that are not data, by name: documentation, crate and adapter sources, hidden files,
/// and the encrypted held-out set (never opened).
fn not_data(path: &Path) -> Option<&'static str> {
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if file == "held-out.bin" {
        return Some(
            "the encrypted held-out acceptance set: not for opening (shared/vectors/README.md)",
        );
    }
    if file.starts_with('.') {
        return Some("hidden file");
    }
    match ext {
        "md" => Some("documentation"),
        "rs" | "toml" | "lock" => Some("crate source"),
        "py" => Some("adapter source"),
        _ => None,
    }
}

/// The keys of a JSON object, or none.
fn has(v: &serde_json::Value, key: &str) -> bool {
    v.get(key).is_some()
}

/// What a JSON document is, by its shape (the file's name plays no part).
fn detect_json(doc: &serde_json::Value) -> Option<Check> {
    if doc.get("format").and_then(|f| f.as_str()) == Some(crate::schema::FORMAT) {
        return Some(Check::Suite);
    }
    if let Some(d) = doc.get("testData").filter(|d| d.is_object()) {
        // geth/go-verkle tree vectors carry an expected root; go-ipa's crypto vectors do not.
        if has(d, "expectedRootHash") {
            return Some(Check::GethTree(if has(d, "eoaAddress") {
                1
            } else if has(d, "hexCode") {
                2
            } else if has(d, "mutations") {
                3
            } else if has(d, "storageSlots") {
                4
            } else {
                return None;
            }));
        }
        let name = doc.get("name").and_then(|n| n.as_str()).unwrap_or("");
        let number = if has(d, "scalars") {
            1
        } else if has(d, "fieldElement") {
            2
        } else if has(d, "expectedSerializedPoint") {
            3
        } else if has(d, "serializedYCoordinate") {
            4
        } else if has(d, "serializedPoint") {
            // Three files share this shape; their names say which failure they pin.
            if name.contains("NOT in the subgroup") {
                6
            } else if name.contains("NOT in the curve") {
                5
            } else if name.contains("bigger") {
                7
            } else {
                return None;
            }
        } else if has(d, "serializedPoints") {
            8
        } else if has(d, "serializedProof") {
            9
        } else if has(d, "serializedProofs") {
            10
        } else if has(d, "forgedEvaluationResult") {
            11
        } else if has(d, "ipaSerializedProof") {
            12
        } else {
            return None;
        };
        return Some(Check::GoIpa(number));
    }
    if let Some(first) = doc.as_array().and_then(|a| a.first()) {
        return if has(first, "frs") && has(first, "expected") {
            Some(Check::RustVerkleCommitments { big_endian: true })
        } else if has(first, "frs") && has(first, "commitment") {
            Some(Check::RustVerkleCommitments { big_endian: false })
        } else if has(first, "addr") && has(first, "treeIndex") && has(first, "treeKey") {
            Some(Check::RustVerklePedersenHash)
        } else if has(first, "bytecode") && has(first, "chunks") {
            Some(Check::BesuCode {
                with_keys: has(first, "address"),
            })
        } else {
            None
        };
    }
    if has(doc, "alloc") && has(doc, "config") {
        return Some(Check::Genesis);
    }
    let chain_block = doc
        .get("blocks")
        .and_then(|b| b.as_array())
        .and_then(|b| b.first());
    if chain_block.is_some_and(|b| has(b, "parentStateRoot") && has(b, "executionWitness")) {
        return Some(Check::KaustinenChain);
    }
    match witness::json::find_json_witnesses(doc) {
        Ok(found) if !found.is_empty() => Some(Check::GoVerkleWitness),
        _ => None,
    }
}

/// Whether `text` is a `key,value` CSV of 32-byte hex leaves (a genesis or block dump).
fn is_leaf_csv(text: &str) -> bool {
    let hex32 = |f: &str| {
        f.strip_prefix("0x")
            .is_some_and(|h| h.len() == 64 && h.bytes().all(|c| c.is_ascii_hexdigit()))
    };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
    lines.peek().is_some()
        && lines.all(|l| {
            let mut fields = l.trim().trim_end_matches(',').split(',');
            matches!((fields.next(), fields.next(), fields.next()), (Some(k), Some(v), None) if hex32(k) && hex32(v))
        })
}

/// What a file is: not data by its name (see [`not_data`]), else by its content.
fn classify(path: &Path) -> (Format, Result<Check, &'static str>) {
    if let Some(reason) = not_data(path) {
        return (Format::NotData, Err(reason));
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return (Format::Unknown, Err("not a text file"));
    };
    let found = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(doc) => detect_json(&doc),
        Err(_) => is_leaf_csv(&text).then_some(Check::Genesis),
    };
    match found {
        Some(c) => (c.format(), Ok(c)),
        None => (Format::Unknown, Err("no checker knows this content")),
    }
}

/// Checks one file (see [`check_paths`]).
pub fn check_file(path: &Path) -> FileReport {
    let (format, check) = classify(path);
    let status = match (format, check) {
        (Format::NotData, Err(reason)) => Status::Skipped { reason },
        (_, Err(_)) => Status::Failed {
            error: VectorError::Unrecognised {
                path: path.to_path_buf(),
            }
            .to_string(),
        },
        (_, Ok(check)) => match run(path, check) {
            Ok(status) => status,
            Err(e) => Status::Failed {
                error: e.to_string(),
            },
        },
    };
    FileReport {
        path: path.to_path_buf(),
        format,
        status,
    }
}

fn run(path: &Path, check: Check) -> Result<Status, VectorError> {
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let passed = |checks| Status::Passed { checks };
    Ok(match check {
        Check::Suite => {
            let doc = upstream::read_json(path)?;
            passed(crate::check_suite_document(
                &doc,
                &path.display().to_string(),
            )?)
        }
        Check::GoIpa(number) => passed(upstream::go_ipa(path, number)?),
        Check::RustVerkleCommitments { big_endian } => {
            passed(upstream::rust_verkle_commitments(path, big_endian)?)
        }
        Check::RustVerklePedersenHash => passed(upstream::rust_verkle_pedersen_hash(path)?),
        Check::GethTree(number) => passed(upstream::geth_tree(path, number)?),
        Check::BesuCode { with_keys } => passed(upstream::besu_code(path, with_keys)?),
        // The expected roots of genesis files and the pre-state roots of witness files are
        // facts about those particular files (shared/vectors/README.md), keyed by their
        // original names; a file of that shape under another name has no expectation.
        Check::Genesis => passed(upstream::genesis(path, file)?),
        Check::GoVerkleWitness => passed(upstream::go_verkle_witness(path, file)?),
        Check::KaustinenChain => passed(upstream::kaustinen_chain(path)?),
    })
}
