//! The EIP-6800 Verkle tree: tree keys and account layouts, the canonical tree with batched
//! delta commitments, and node storage.
//!
//! The call a user makes first:
//!
//! ```
//! use verkle::Tree;
//! let mut tree = Tree::new();
//! let key = [1u8; 32];
//! tree.insert(&key, [7u8; 32]).unwrap();
//! let state_root: [u8; 32] = tree.root_bytes(); // what a block header carries
//! # assert_ne!(state_root, [0u8; 32]);
//! ```
//!
//! - [`keys`]: `get_tree_key`, stems and suffixes, account header / storage / code positions,
//!   [`keys::chunkify_code`], and the two account layouts ([`keys::Layout`]).
//! - [`tree`]: insert / get / delete / batch apply, `commit()` to the root commitment.
//! - [`store`]: the [`store::NodeStore`] trait (nodes keyed by their path from the root), the
//!   in-memory store and the RocksDB store (`store::RocksStore`, default feature `rocksdb`:
//!   one atomic write batch per persist, with the root and block height); a bounded node
//!   cache ([`TreeConfig`]).
//! - [`proof`]: [`Tree::prove`] — the state diff and Verkle proof of an execution witness,
//!   byte-identical to go-verkle's.
//! - `fuzz` (feature `fuzzing`): the body of the `store_record` fuzz target.
#![forbid(unsafe_code)]

mod error;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzz;
pub mod keys;
pub mod proof;
pub mod store;
pub mod tree;

pub use error::{InconsistencyReason, TreeError};
pub use tree::{CommitCounts, LeafCommitments, Tree, TreeConfig, TreeStats};
pub use witness::keys::{ParseU256Error, U256};
