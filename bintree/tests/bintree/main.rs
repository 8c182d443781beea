//! Known-answer tests against the published EIP-8297 and EIP-7864 vectors, read in place from
//! `../shared/binary-tree` (or `$FVERKLE_BINARY_VECTORS`), and the batch/parallel invariants.

#![allow(clippy::unwrap_used)]

mod common;
mod eip7864_vectors;
mod eip8297_vectors;
mod forgeries;
mod forgeries8297;
mod forgeries_anchor;
mod parallel;
mod witness7864;
mod witness8297;
