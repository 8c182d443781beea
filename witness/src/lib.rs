//! EIP-6800 execution witnesses for stateless Verkle clients.
//!
//! An execution witness is a block's state diff (every key it reads or writes, with its value
//! before and after) and a Verkle proof of the values before against the pre-state root. This
//! crate reads and writes witnesses — SSZ as the consensus-spec containers define them, JSON as
//! geth/go-verkle write it — and checks their canonical form. Byte layouts and rules are in
//! `spec/WIRE.md`.
//!
//! [`verify`] checks a witness against a pre-state root — the one call a stateless client
//! makes — and returns the proven pre-state ([`VerifiedWitness`]), from which
//! [`VerifiedWitness::post_state_root`] computes the root after the block's writes. Every
//! error of the crate converts into [`WitnessError`], so one `?` type covers decoding,
//! verification and the post-state root:
//!
//! ```no_run
//! # fn main() -> Result<(), witness::WitnessError> {
//! # let (text, parent_state_root, state_root) = (String::new(), [0u8; 32], [0u8; 32]);
//! let witness = witness::ExecutionWitness::from_json_str(&text)?;
//! let proven = witness::verify(&parent_state_root, &witness)?;
//! proven.check_post_state_root(&state_root)?;
//! # Ok(())
//! # }
//! ```
//!
//! Which tree keys hold an account's data — header leaves per account layout, storage slots,
//! code chunks — is [`keys`], computed from the CRS alone.
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
//! witness::canonical::check_canonical(&witness)?;
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
//!
//! The root holds what a stateless client calls: decoding, [`verify`], [`verify_batch`], the
//! verified results and the errors. Beside it:
//!
//! - the zero-copy views a decoded witness hands out, in [`view`] ([`view::StateDiff`],
//!   [`view::VerkleProof`], their iterators);
//! - the owned, mutable witness a prover builds, in [`owned`];
//! - the canonical-form check, in [`canonical`] ([`canonical::check_canonical`]);
//! - searching a JSON document for witnesses, in [`json`] ([`json::find_json_witnesses`]);
//! - what a prover adds so that every absence is bound, in [`bind`] ([`bind::prove_bound`]);
//! - tree keys ([`keys`]), fractional proofs ([`fractional`]), leaf polynomials ([`leaf`])
//!   and the format's constants ([`preset`]);
//! - with the `test-support` feature, for tests: `hostile` (witnesses a hostile prover can
//!   build) and `decompressed_points` (a probe counting point decompressions).
#![forbid(unsafe_code)]
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

/// The `alloc` names the standard prelude brings, for `no_std` builds.
#[allow(unused_imports)]
mod prelude {
    pub(crate) use alloc::{
        borrow::ToOwned,
        boxed::Box,
        format,
        string::{String, ToString},
        vec,
        vec::Vec,
    };
}

pub mod bind;
pub mod canonical;
mod convert;
mod error;
mod execution_witness;
pub mod fractional;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
#[cfg(feature = "test-support")]
pub mod hostile;
pub mod json;
pub mod keys;
pub mod leaf;
pub mod owned;
mod post_state;
pub mod preset;
mod ssz;
mod verify;
pub mod view;

pub use error::{CanonicalError, JsonError, SszError, SszField};
pub use execution_witness::ExecutionWitness;
pub use post_state::PostStateError;
pub use verify::{
    verify, verify_batch, ExtensionStatus, NodeKind, NodePath, ProvenKey, ProvenNode, ProvenStem,
    VerifiedWitness, VerifyError,
};

#[cfg(feature = "test-support")]
pub use verify::decompressed_points;

// Root paths of names whose home is one of the modules above, hidden from the docs; the
// next release removes them.
#[doc(hidden)]
pub use bind::{prove_bound, BindError};
#[doc(hidden)]
pub use canonical::check_canonical;
#[doc(hidden)]
pub use fractional::{verify_fractional, FractionalVerifyError, VerifiedFractional};
#[doc(hidden)]
pub use json::{find_json_witnesses, MAX_SEARCH_DEPTH, WITNESS_KEYS};
#[doc(hidden)]
pub use owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
#[doc(hidden)]
pub use view::{
    ChunkIter, ChunkList, IpaProofView, Points, StateDiff, StateDiffIter, StemStateDiff, Stems,
    SuffixDiffs, SuffixDiffsIter, SuffixStateDiff, VerkleProof,
};

/// Any error of this crate: decoding, canonical form, verification, the post-state root.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WitnessError {
    /// SSZ decoding or encoding failed.
    #[error(transparent)]
    Ssz(#[from] SszError),
    /// JSON reading failed.
    #[error(transparent)]
    Json(#[from] JsonError),
    /// The witness is not in canonical form.
    #[error("witness not canonical: {0}")]
    NotCanonical(#[from] CanonicalError),
    /// The witness does not verify against the pre-state root.
    #[error("witness rejected: {0}")]
    Verify(#[from] VerifyError),
    /// The post-state root could not be computed, or differs from the expected one.
    #[error(transparent)]
    PostState(#[from] PostStateError),
    /// A fractional proof does not verify.
    #[error("fractional proof rejected: {0}")]
    Fractional(#[from] fractional::FractionalVerifyError),
}
