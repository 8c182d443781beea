//! Fractional proofs: keys proven inside the hypertrees of a sharded Verkle tree, the shard
//! commitments proven under a coordinator root (`spec/FRACTIONAL.md`).
//!
//! - [`coordinator`]: the SHA-256 Merkle tree over the shard commitments and its multiproofs.

pub mod coordinator;
