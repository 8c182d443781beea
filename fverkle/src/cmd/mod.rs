//! One module per subcommand.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

pub mod binary_witness;
pub mod demo;
pub mod gen;
pub mod genesis;
pub mod prove;
pub mod replay;
pub mod root;
pub mod vectors;
pub mod verify;
pub mod verify_fractional;

/// The bytes of `path`, or of stdin for `-`.
fn read_input(path: &Path) -> Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading stdin")?;
        return Ok(buf);
    }
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}
