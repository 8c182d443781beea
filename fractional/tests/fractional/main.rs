//! Integration tests of the fractional tree.
#![allow(clippy::unwrap_used)]

mod forged;
mod proofs;
mod props;
#[cfg(feature = "rocksdb")]
mod rocks;
