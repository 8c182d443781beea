//! The `fverkle` binary end to end: verdicts, exit codes, JSON output, replays of real and
//! synthetic chains, datadirs, roots of `key,value` files for each tree.

#![allow(clippy::unwrap_used)]

mod ahead;
mod binary_chain;
mod binary_witness;
mod cache;
mod common;
mod datadir;
mod diffs;
mod eest;
mod gen;
mod inputs;
mod output;
mod prove_csv;
mod replay;
mod root;
mod strict;
mod verify;
