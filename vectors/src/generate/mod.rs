//! The deterministic generator of our suite (`fverkle vectors gen OUT_DIR`).
//!
//! Every value comes from fixed seeds through [`Rng`](rng::Rng) (SplitMix64) and our
//! implementation; negative cases mutate valid ones and name the rule they break. Each file
//! is checked by [`crate::check_suite_document`] before it is returned, so a label that does
//! not match the failure our verifier reports is a generator error, never a committed vector.

pub(crate) mod audit;
mod binary;
mod case;
mod crypto;
mod fractional;
mod hostile;
mod proofs;
mod rng;
mod scenarios;
mod witnesses;

use std::path::{Path, PathBuf};

use crate::error::VectorError;

pub use case::SuiteFile;

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
    files.extend(binary::binary_files()?);
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
