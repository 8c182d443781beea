//! Pedersen vector commitments, inner-product arguments and multiproofs over Banderwagon,
//! bit-compatible with go-ipa and rust-verkle (EIP-6800).
//!
//! The call a verifier makes first:
//!
//! ```
//! use ipa::{Committer, Crs, MultiProof, ProverQuery, Transcript, VerifierQuery};
//! use banderwagon::Fr;
//! let committer = Committer::eip6800();
//! let poly: Vec<Fr> = (0..256u64).map(Fr::from).collect();
//! let c = committer.commit(&poly);
//! let q = ProverQuery { commitment: c, poly: &poly, point: 7, result: Fr::from(7u64) };
//! let proof = MultiProof::prove(committer, &mut Transcript::new(b"vt"), &[q]);
//! let bytes = proof.to_bytes();
//! let decoded = MultiProof::from_bytes(&bytes).unwrap();
//! let vq = VerifierQuery { commitment: c, point: 7, result: Fr::from(7u64) };
//! decoded.verify(Crs::eip6800(), &mut Transcript::new(b"vt"), &[vq]).unwrap();
//! ```
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

mod committer;
mod crs;
mod crs_table;
mod error;
mod ipa_proof;
pub mod lagrange;
mod lazy;
mod multiproof;
mod pedersen;
mod transcript;

pub use committer::Committer;
pub use crs::{Crs, CRS_SIZE, PEDERSEN_SEED};
pub use error::{ProofDecodeError, ProofVerifyError};
pub use ipa_proof::{IpaCheck, IpaProof, IPA_PROOF_LEN, IPA_ROUNDS};
pub use multiproof::{MultiProof, Opening, ProverQuery, VerifierQuery, MULTIPROOF_LEN};
pub use pedersen::{
    get_tree_key, get_tree_key_from_crs, hash64, hash64_from_crs, hash64_many, pedersen_hash,
    AddressHasher, MAX_PEDERSEN_INPUT,
};
pub use transcript::Transcript;
