//! JSON as geth/go-verkle write it (`spec/WIRE.md`, "JSON"), and the variants found in real
//! data: snake_case names, `suffix` as a decimal string, hex without `0x`, odd-length hex,
//! a missing `newValue`, and the witness nested in a block, payload, header or beacon dump.

use serde_json::Value;

use crate::error::JsonError;
use crate::owned::OwnedExecutionWitness;

mod find;
mod path;
mod read;
mod write;

pub(crate) use find::find_one_witness;
pub use find::{find_json_witnesses, MAX_SEARCH_DEPTH, WITNESS_KEYS};
pub(crate) use write::write_witness;

/// Reads a witness object (go-verkle JSON or its snake_case variant) found at JSON Pointer
/// `at` (the prefix of every error's path), with no search.
pub(crate) fn read_owned_at(v: &Value, at: &str) -> Result<OwnedExecutionWitness, JsonError> {
    read::read_owned(v, &path::Path::root(at))
}
