//! Integration tests of the `verkle` crate: the roots other implementations published, the
//! shared vectors (tree, code, genesis), phantom-node counters, persistence, and the
//! "any operation order gives the canonical root" property, and the RocksDB store (with a
//! child process killed mid-commit).
#![allow(clippy::unwrap_used)]

mod code;
mod common;
mod facts;
mod genesis;
mod kaustinen;
mod phantom;
mod proof;
mod props;
mod rocks;
mod store;
mod tree_vectors;
