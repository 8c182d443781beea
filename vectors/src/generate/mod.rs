//! The deterministic generator of our suite (`fverkle vectors gen OUT_DIR`).
//!
//! Every value comes from fixed seeds through [`Rng`] (SplitMix64) and our implementation;
//! negative cases mutate valid ones and name the rule they break. Each file is checked by
//! [`crate::check_suite_document`] before it is returned, so a label that does not match the
//! failure our verifier reports is a generator error, never a committed vector.

pub(crate) mod audit;
mod crypto;
mod fractional;
mod hostile;
mod proofs;
mod scenarios;
mod witnesses;

use std::path::{Path, PathBuf};

use banderwagon::{fr_from_le_bytes_mod_order, fr_to_le_bytes, Fr};
use serde_json::{json, Value};

use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::{sorted, Kind, FORMAT, VERSION};

/// One generated file: its name in the output directory and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteFile {
    /// File name, e.g. `witness_valid.json`.
    pub name: String,
    /// The JSON text (pretty-printed, keys sorted, ending in a newline).
    pub contents: String,
}

/// Generates the whole suite in memory, each file already checked.
pub fn generate_suite() -> Result<Vec<SuiteFile>, VectorError> {
    let mut files = vec![
        crypto::point_codec()?,
        crypto::commitment()?,
        crypto::tree_key()?,
        crypto::tree_root()?,
        proofs::ipa()?,
        proofs::multiproof()?,
    ];
    files.extend(witnesses::witness_files()?);
    files.extend(fractional::fractional_files()?);
    Ok(files)
}

/// Generates the suite and writes it into `out_dir` (created if missing); returns the
/// paths written.
pub fn write_suite(out_dir: &Path) -> Result<Vec<PathBuf>, VectorError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| VectorError::Io { path, source }
    };
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let mut written = Vec::new();
    for f in generate_suite()? {
        let path = out_dir.join(&f.name);
        std::fs::write(&path, f.contents.as_bytes()).map_err(io(&path))?;
        written.push(path);
    }
    Ok(written)
}

/// SplitMix64: a tiny, fully specified generator, so the suite is the same on every
/// machine and Rust version.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `N` random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        out
    }

    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A scalar (32 random bytes reduced mod r).
    pub fn scalar(&mut self) -> Fr {
        fr_from_le_bytes_mod_order(&self.bytes::<32>())
    }
}

/// A scalar as 32 little-endian bytes in hex.
pub(crate) fn fr_hex(s: &Fr) -> String {
    hex0x(&fr_to_le_bytes(s))
}

/// A stem, a tree key and a leaf value.
pub(crate) type Stem = [u8; 31];
pub(crate) type Key = [u8; 32];
pub(crate) type Value32 = [u8; 32];

/// The tree key `stem ‖ suffix`.
pub(crate) fn key(stem: &Stem, suffix: u8) -> Key {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = suffix;
    k
}

/// A generator failure from another crate's error.
pub(crate) fn gen_err(e: impl std::fmt::Display) -> VectorError {
    VectorError::Generator(e.to_string())
}

/// A mutation of a valid case's object (and of the root it is checked against).
pub(crate) type Mutation<T> = Box<dyn Fn(&mut T, &mut [u8; 32])>;

/// A byte-level mutation of a valid case's encoding.
pub(crate) type ByteMutation = Box<dyn Fn(&mut Vec<u8>)>;

/// Boxes a mutation.
pub(crate) fn m<T>(f: impl Fn(&mut T, &mut [u8; 32]) + 'static) -> Mutation<T> {
    Box::new(f)
}

/// Boxes a byte-level mutation.
pub(crate) fn bm(f: impl Fn(&mut Vec<u8>) + 'static) -> ByteMutation {
    Box::new(f)
}

/// A valid case.
pub(crate) fn valid(name: &str, description: &str, input: Value, output: Value) -> Value {
    json!({"name": name, "description": description, "input": input, "valid": true, "output": output})
}

/// A negative case breaking `rule`.
pub(crate) fn invalid(name: &str, description: &str, input: Value, rule: &str) -> Value {
    json!({"name": name, "description": description, "input": input, "valid": false, "rule": rule})
}

/// Assembles, self-checks and prints one file.
pub(crate) fn suite_file(
    file_name: &str,
    kind: Kind,
    description: &str,
    cases: Vec<Value>,
) -> Result<SuiteFile, VectorError> {
    let doc = sorted(json!({
        "format": FORMAT,
        "version": VERSION,
        "kind": kind.name(),
        "description": description,
        "cases": cases,
    }));
    crate::check_suite_document(&doc, file_name)
        .map_err(|e| VectorError::Generator(format!("{file_name}: {e}")))?;
    let mut contents = serde_json::to_string_pretty(&doc)
        .map_err(|e| VectorError::Generator(format!("{file_name}: {e}")))?;
    contents.push('\n');
    Ok(SuiteFile {
        name: file_name.to_owned(),
        contents,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_is_the_published_sequence() {
        // SplitMix64 from seed 0: the first outputs as in Vigna's reference implementation.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
