//! Reading the upstream files: their text and JSON, their names in reports, and the hex
//! constants the checkers compare against.

use std::path::Path;

use serde_json::Value;

use crate::at::Loc;
use crate::error::VectorError;

pub(crate) fn read_text(path: &Path) -> Result<String, VectorError> {
    std::fs::read_to_string(path).map_err(|source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    })
}

pub(crate) fn read_json(path: &Path) -> Result<Value, VectorError> {
    serde_json::from_str(&read_text(path)?).map_err(|source| VectorError::Json {
        path: path.to_path_buf(),
        source,
    })
}

pub(super) fn name(path: &Path) -> String {
    path.display().to_string()
}

pub(super) fn hex32(s: &str) -> Result<[u8; 32], VectorError> {
    Loc::root(&Value::String(s.to_owned()), "constant").hex_n::<32>()
}
