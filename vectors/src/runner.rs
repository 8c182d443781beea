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

/// What a file is, by its name and its parent directory's name (upstream files keep their
/// original names).
fn classify(path: &Path) -> (Format, Option<&'static str>) {
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let not_data = |reason| (Format::NotData, Some(reason));
    if file == "held-out.bin" {
        return not_data(
            "the encrypted held-out acceptance set: not for opening (shared/vectors/README.md)",
        );
    }
    if file.starts_with('.') {
        return not_data("hidden file");
    }
    match ext {
        "md" => return not_data("documentation"),
        "rs" | "toml" | "lock" => return not_data("crate source"),
        _ => {}
    }
    let format = match (parent, file) {
        ("crypto", f) if f.len() > 4 && f.as_bytes()[..3].iter().all(u8::is_ascii_digit) => {
            Format::GoIpa
        }
        (
            "crypto",
            "commit_root_test.json" | "pedersen_commitment_test.json" | "pedersen_hash_test.json",
        ) => Format::RustVerkle,
        ("tree", _) => Format::GethTree,
        ("code", _) => Format::BesuCode,
        ("genesis", _) => Format::Genesis,
        ("witness", _) => Format::GoVerkleWitness,
        ("chain", _) => Format::KaustinenChain,
        (_, _) if ext == "json" => Format::Suite,
        _ => Format::Unknown,
    };
    (format, None)
}

/// Checks one file (see [`check_paths`]).
pub fn check_file(path: &Path) -> FileReport {
    let (format, skip) = classify(path);
    let status = match skip {
        Some(reason) => Status::Skipped { reason },
        None => match run(path, format) {
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

fn number_prefix(file: &str) -> u32 {
    file.get(..3).and_then(|n| n.parse().ok()).unwrap_or(0)
}

fn run(path: &Path, format: Format) -> Result<Status, VectorError> {
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let passed = |checks| Status::Passed { checks };
    let unknown = || VectorError::Unrecognised {
        path: path.to_path_buf(),
    };
    Ok(match format {
        Format::Suite => {
            let doc = upstream::read_json(path)?;
            if doc.get("format").and_then(|f| f.as_str()) != Some(crate::schema::FORMAT) {
                return Err(unknown());
            }
            passed(crate::check_suite_document(
                &doc,
                &path.display().to_string(),
            )?)
        }
        Format::GoIpa => passed(upstream::go_ipa(path, number_prefix(file))?),
        Format::RustVerkle => match file {
            "commit_root_test.json" => passed(upstream::rust_verkle_commitments(path, true)?),
            "pedersen_commitment_test.json" => {
                passed(upstream::rust_verkle_commitments(path, false)?)
            }
            _ => passed(upstream::rust_verkle_pedersen_hash(path)?),
        },
        Format::GethTree => passed(upstream::geth_tree(path, number_prefix(file))?),
        Format::BesuCode => match file {
            "chunkifyCode.json" | "chukifyCodePush32on31stByte.json" => {
                passed(upstream::besu_code(path, false)?)
            }
            "contractCode.json" => passed(upstream::besu_code(path, true)?),
            _ => return Err(unknown()),
        },
        Format::Genesis => passed(upstream::genesis(path, file)?),
        Format::GoVerkleWitness => passed(upstream::go_verkle_witness(path, file)?),
        Format::KaustinenChain => passed(upstream::kaustinen_chain(path)?),
        Format::NotData | Format::Unknown => return Err(unknown()),
    })
}
