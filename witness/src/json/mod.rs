//! JSON as geth/go-verkle write it (`spec/WIRE.md`, "JSON"), and the variants found in real
//! data: snake_case names, `suffix` as a decimal string, hex without `0x`, odd-length hex,
//! a missing `newValue`, and the witness nested in a block, payload, header or beacon dump.
//!
//! Reading builds no JSON value: text is walked twice by serde_json's streaming
//! deserializer — once to find the witness (and check the whole text), once to read it
//! straight into the SSZ layout — and a parsed [`serde_json::Value`] is walked the same way.
//! The rules of what is accepted live once, in the walks, whatever the input.

use crate::prelude::*;

use serde::de::{DeserializeSeed, Deserializer};
use serde_json::Value;

use crate::error::JsonError;
use crate::execution_witness::ExecutionWitness;

mod builder;
mod find;
mod locate;
mod path;
mod rank;
mod read;
mod skip;
mod value;
mod write;

pub use find::{find_json_witnesses, MAX_SEARCH_DEPTH, WITNESS_KEYS};
pub(crate) use write::write_witness;

use locate::Locate;
use read::Read;

/// Lays out what was read as SSZ and decodes it into views.
fn witness(read: Box<builder::Builder>) -> Result<ExecutionWitness, JsonError> {
    Ok(ExecutionWitness::from_ssz(bytes::Bytes::from(
        read.into_ssz()?,
    ))?)
}

/// Reads the witness object at `positions` of the document `d` yields; errors name paths
/// under `prefix`. `None` if an object names a field twice under the same name, or if the
/// document has no value at `positions`.
fn read_at<'de, D>(
    d: D,
    positions: &[usize],
    prefix: &str,
) -> Result<Option<ExecutionWitness>, JsonError>
where
    D: Deserializer<'de, Error = serde_json::Error>,
{
    let seed = ReadSeed { prefix };
    match (Locate { positions, seed }).deserialize(d)? {
        Some(Ok(Read::Witness(w))) => witness(w).map(Some),
        Some(Ok(Read::Repeated)) | None => Ok(None),
        Some(Err(e)) => Err(e),
    }
}

/// [`read::read_witness`] as a seed, so that [`Locate`] can hand it the witness.
struct ReadSeed<'a> {
    prefix: &'a str,
}

impl<'de> DeserializeSeed<'de> for ReadSeed<'_> {
    type Value = Result<Read, JsonError>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        read::read_witness(d, self.prefix, skip::Skip { validate: false })
    }
}

/// The witness a walk that reads candidates found, if it settles the document: exactly one
/// witness, read, with nothing the walk could not judge (see [`decode_str`]). `Err(None)`
/// if it does not.
fn settled(found: find::Findings) -> Result<ExecutionWitness, Option<JsonError>> {
    if found.too_deep.is_some() || found.repeated_key || found.unsettled {
        return Err(None);
    }
    match (found.count, found.first_read) {
        (0, _) => Err(Some(JsonError::NotFound)),
        (1, Some(Ok(Read::Witness(w)))) => witness(w).map_err(Some),
        (1, Some(Err(e))) => Err(Some(e)),
        _ => Err(None),
    }
}

/// The one execution witness in JSON text (see [`ExecutionWitness::from_json_str`]).
///
/// One walk of the text checks it all as [`serde_json::from_str`] would, finds the witness
/// and reads it as it goes. A document the walk cannot settle alone — more than one
/// witness, a container past the depth limit, a key repeated on the way to the witness or
/// inside it (a parsed value keeps the last), or an object under a witness key with only
/// one of a state diff and a Verkle proof — is parsed into a value and read from there, so
/// that the error or witness is the one the parsed document holds.
pub(crate) fn decode_str(text: &str) -> Result<ExecutionWitness, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let walk = find::Walk {
        keep: 1,
        validate: true,
        read: true,
    };
    let found = find::search(&mut de, walk)?;
    de.end()?;
    match settled(found) {
        Ok(w) => Ok(w),
        Err(Some(e)) => Err(e),
        Err(None) => decode_value(&serde_json::from_str(text)?),
    }
}

/// The one execution witness in a parsed document (see
/// [`ExecutionWitness::from_json_value`]): one walk that reads the witness as it finds it
/// and, if that does not settle the document, a search and a second walk to the witness.
pub(crate) fn decode_value(doc: &Value) -> Result<ExecutionWitness, JsonError> {
    let walk = find::Walk {
        keep: 2,
        validate: false,
        read: true,
    };
    match settled(find::search(doc, walk)?) {
        Ok(w) => return Ok(w),
        Err(Some(e)) => return Err(e),
        Err(None) => {}
    }
    let walk = find::Walk {
        read: false,
        ..walk
    };
    let (path, positions) = find::search(doc, walk)?.one()?;
    // A parsed value has no repeated key and holds the value the search found.
    read_at(doc, &positions, &path)?.ok_or(JsonError::NotFound)
}

/// Reads a bare witness object, with no search; errors name paths from the object.
pub(crate) fn decode_bare(v: &Value) -> Result<ExecutionWitness, JsonError> {
    read_at(v, &[], "")?.ok_or(JsonError::NotFound)
}
