//! Importers of chains in other formats than a block export: execution-spec-tests
//! blockchain fixtures ([`eest`]), replayed through the same [`crate::replayer::Replayer`],
//! and account-level state diffs ([`diffs`], geth's `prestateTracer` in diff mode), turned
//! into tree writes.

pub mod diffs;
pub mod eest;
