//! What every generator builds with: valid and negative cases, their mutations, keys and
//! scalars in the suite's notation, and the self-checked file the cases go into.

use banderwagon::{fr_to_le_bytes, Fr};
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
