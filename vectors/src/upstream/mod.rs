//! Checkers for the upstream data in its original formats (`shared/vectors/README.md`), one
//! function per format, each reading the file in place: the cryptographic formats (go-ipa,
//! rust-verkle) in `proofs`, the trees, genesis files and witnesses (geth, besu, go-verkle,
//! Kaustinen) in `state`.

mod proofs;
mod state;

use std::path::Path;

use serde_json::Value;

use crate::at::Loc;
use crate::error::VectorError;

pub use proofs::{go_ipa, rust_verkle_commitments, rust_verkle_pedersen_hash};
pub use state::{besu_code, genesis, geth_tree, go_verkle_witness, kaustinen_chain};

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

fn name(path: &Path) -> String {
    path.display().to_string()
}

fn hex32(s: &str) -> Result<[u8; 32], VectorError> {
    Loc::root(&Value::String(s.to_owned()), "constant").hex_n::<32>()
}
