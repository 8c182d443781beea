//! Fractional proofs: keys proven inside the hypertrees of a sharded Verkle tree, the shard
//! commitments proven under a coordinator root (`spec/FRACTIONAL.md`).
//!
//! - [`coordinator`]: the SHA-256 Merkle tree over the shard commitments and its multiproofs;
//! - [`OwnedFractionalProof`] (what a prover builds) and [`FractionalProof`] (zero-copy
//!   views over one [`bytes::Bytes`] buffer, canonical form checked on decode);
//! - [`verify_fractional`]: the light client's one call.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let (bytes, coordinator_root) = (bytes::Bytes::new(), [0u8; 32]);
//! let proof = witness::fractional::FractionalProof::from_bytes(bytes)?;
//! let proven = witness::verify_fractional(&coordinator_root, &proof)?;
//! for k in proven.keys() {
//!     println!("{:02x?} = {:02x?}", k.key(), k.current_value);
//! }
//! # Ok(())
//! # }
//! ```

pub mod coordinator;
mod decode_error;
mod owned;
mod result;
mod verify;
mod verify_error;
mod wire;

pub use verify::{
    verify_fractional, verify_fractional_bytes, FractionalKey, FractionalVerifyError,
    VerifiedFractional, TRANSCRIPT_LABEL,
};
pub use wire::{
    FractionalDecodeError, FractionalEncodeError, FractionalProof, OwnedFractionalProof,
    OwnedFractionalStem, OwnedFractionalSuffix, OwnedShardEntry, VERSION,
};
