//! Fractional proofs: keys proven in a sharded Verkle tree, verifiable against the canonical
//! state root a header carries or against the sharded tree's coordinator root
//! (`spec/FRACTIONAL.md`).
//!
//! - [`coordinator`]: the SHA-256 Merkle tree over the shard commitments and its multiproofs;
//! - [`OwnedFractionalProof`] (what a prover builds) and [`FractionalProof`] (a zero-copy
//!   view over one [`bytes::Bytes`] buffer);
//! - [`verify_fractional`]: the light client's one call, with an [`Anchor`].
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let (bytes, state_root) = (bytes::Bytes::new(), [0u8; 32]);
//! use witness::fractional::{verify_fractional, Anchor, FractionalProof};
//! let proof = FractionalProof::from_bytes(bytes)?;
//! let proven = verify_fractional(&proof, &Anchor::StateRoot(state_root))?;
//! for k in proven.keys() {
//!     println!("{:02x?} = {:02x?}", k.key(), k.current_value);
//! }
//! let (post_state_root, post_coordinator_root) = proven.post_roots()?;
//! # let _ = (post_state_root, post_coordinator_root);
//! # Ok(())
//! # }
//! ```

pub mod coordinator;
mod decode_error;
mod header;
mod owned;
mod result;
mod shard;
mod verify;
mod verify_error;
mod wire;

pub use decode_error::FractionalDecodeError;
pub use header::{FLAG_COORDINATOR, VERSION};
pub use owned::{
    FractionalEncodeError, OwnedFractionalProof, OwnedFractionalStem, OwnedFractionalSuffix,
};
pub use result::{Anchor, FractionalKey, VerifiedFractional};
pub use shard::shard_of;
#[cfg(feature = "fuzzing")]
pub(crate) use verify::add_internal_witnesses;
pub use verify::{start_transcript, verify_fractional, verify_fractional_bytes, TRANSCRIPT_LABEL};
pub use verify_error::FractionalVerifyError;
pub use wire::FractionalProof;
