//! EIP-6800 execution witnesses for stateless Verkle clients.
//!
//! An execution witness is a block's state diff (every key it reads or writes, with its value
//! before and after) and a Verkle proof of the values before against the pre-state root. This
//! crate reads and writes witnesses — SSZ as the consensus-spec containers define them, JSON as
//! geth/go-verkle write it — and checks their canonical form. Byte layouts and rules are in
//! `spec/WIRE.md`.
//!
//! A decoded witness is a set of views into the one [`bytes::Bytes`] buffer it arrived in:
//! stems, values and points are borrowed, and decoding allocates a constant number of times
//! whatever the witness's size. JSON is read once into the same SSZ layout.
//!
//! The first call a user makes:
//!
//! ```no_run
//! # fn main() -> Result<(), witness::WitnessError> {
//! let ssz_bytes = bytes::Bytes::from(std::fs::read("witness.ssz").unwrap_or_default());
//! let witness = witness::ExecutionWitness::from_ssz(ssz_bytes)?;
//! witness::check_canonical(&witness)?;
//! for stem in witness.state_diff() {
//!     for diff in stem.suffix_diffs {
//!         println!("{:02x?} {} {:?}", stem.stem, diff.suffix, diff.current_value);
//!     }
//! }
//! let multiproof: [u8; 576] = witness.verkle_proof().multiproof_bytes();
//! # let _ = multiproof;
//! # Ok(())
//! # }
//! ```
//!
//! From go-verkle JSON (a bare witness, or a block, payload or beacon dump holding one):
//!
//! ```
//! # fn main() -> Result<(), witness::WitnessError> {
//! let text = r#"{"executionWitness": {"stateDiff": [], "verkleProof": {
//!     "otherStems": [], "depthExtensionPresent": "0x", "commitmentsByPath": [],
//!     "d": "0x0000000000000000000000000000000000000000000000000000000000000000",
//!     "ipaProof": {"cl": [], "cr": [], "finalEvaluation": "0x00"}}}}"#;
//! let err = witness::ExecutionWitness::from_json_str(text).unwrap_err();
//! assert!(err.to_string().contains("/executionWitness/verkleProof/ipaProof/cl"));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

mod canonical;
mod error;
mod execution_witness;
pub mod fuzz;
mod json;
mod owned;
pub mod preset;
mod ssz;
mod view;
// Stateless verification and post-state roots (later): `mod verify;` and `mod post_state;`.

pub use canonical::check_canonical;
pub use error::{CanonicalError, JsonError, SszError, SszField, WitnessError};
pub use execution_witness::ExecutionWitness;
pub use json::{find_json_witnesses, MAX_SEARCH_DEPTH, WITNESS_KEYS};
pub use owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
pub use view::{
    ChunkIter, ChunkList, IpaProof, Points, StateDiff, StateDiffIter, StemStateDiff, Stems,
    SuffixDiffs, SuffixDiffsIter, SuffixStateDiff, VerkleProof,
};
