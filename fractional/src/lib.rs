//! The fractional Verkle tree: the EIP-6800 tree split into **hypertrees** — the subtrees
//! under a one- or two-byte stem prefix — that are updated and committed in parallel, with
//! two roots computed from the same shard commitments `C_i`:
//!
//! - the **canonical root**, `Σ map_to_field(C_i)·G_i` (depth 1), exactly the root of one
//!   EIP-6800 tree over the same key/value set, so any client's witness verifies against it;
//! - the **coordinator root**, a binary SHA-256 Merkle tree over the shard commitments,
//!   against which a light client checks a *fractional proof* (`spec/FRACTIONAL.md`).
//!
//! The call a user makes first:
//!
//! ```
//! use fractional::{ShardConfig, ShardedTree};
//! let mut tree = ShardedTree::in_memory(ShardConfig::default());
//! let report = tree.apply(&[([7u8; 32], Some([1u8; 32])), ([9u8; 32], None)]).unwrap();
//! assert_eq!(report.shards_touched, 2);
//! let state_root: [u8; 32] = tree.canonical_root();
//! let coordinator_root: [u8; 32] = tree.coordinator_root();
//! # assert_ne!(state_root, coordinator_root);
//! ```
#![forbid(unsafe_code)]

pub mod canonical;
pub mod coordinator;
mod db;
mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
mod prove;
pub mod shard;
mod sharded;
pub mod store;

pub use error::FractionalError;
pub use prove::KeyOp;
pub use shard::{ShardConfig, ShardDepth};
pub use sharded::{ApplyReport, ShardedTree};
/// A fractional proof as the prover builds it; `to_bytes()` gives the wire form
/// (`spec/FRACTIONAL.md` §4) that `witness::fractional::FractionalProof` decodes.
pub use witness::fractional::OwnedFractionalProof;
