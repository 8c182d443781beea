//! Bodies of the binary-tree fuzz targets (`fuzz/fuzz_targets/binary_witness.rs`,
//! `binary_raw.rs`, `binary_store.rs`), also run by this crate's tests, and the pieces they are made of:
//! - [`rng`]: SplitMix64, the deterministic generator of the honest trees;
//! - [`choices`]: a fuzzer input read as a sequence of choices (zeros once it runs out);
//! - [`eip7864`], [`eip8297`]: each tree's scenario generator (a small tree whose stems or
//!   keys share long prefixes, and a block of reads, sets, new stems or keys and, for EIP-8297,
//!   deletes), the tree's own post-state root, the witness split into its sections
//!   (`spec/BINARY.md` §3, §7) and the structural edits a hostile prover makes to them;
//! - [`edits`]: the structure-aware body, an honest witness edited by the input's choices and
//!   held to the true tree when it verifies;
//! - [`raw`]: the raw body, arbitrary bytes as a pre-state root and a witness of each tree;
//! - [`store`]: the stored trees over a node store whose records the input corrupts.
//!
//! The bodies take arbitrary bytes and must never panic except on a broken invariant: an
//! accepted witness that claims a false pre-value or a post-state root other than the tree's
//! own after its writes, or a decoded witness whose counts disagree with its bytes.

pub mod choices;
pub mod corpus;
pub mod edits;
pub mod eip7864;
pub mod eip8297;
pub mod raw;
pub mod rng;
mod sections;
pub mod store;
