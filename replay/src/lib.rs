//! The parts of the `fverkle` binary that other packages use: the block-export reader
//! ([`export`]), the plain or compressed input files it opens ([`input`]), its hex helpers
//! ([`hexarg`]) and the body of the `block_export` fuzz target (`fuzz`, feature `fuzzing`). The binary itself
//! (`src/main.rs`, feature `cli`, on by default) is built on them.
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! for block in replay::export::ExportReader::new(&["blocks.jsonl".into()]) {
//!     let block = block?;
//!     println!("{} {}", block.number, replay::hexarg::to_hex(&block.state_root));
//! }
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

pub mod export;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzz;
pub mod hexarg;
pub mod input;
