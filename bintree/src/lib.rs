//! Ethereum's binary state trees: EIP-8297 (partitioned binary tree) and EIP-7864 (unified
//! binary tree), for light clients and block builders.
//!
//! Both trees are hash-only (no elliptic curves) and generic over the hash, chosen once as a
//! type parameter: [`Blake3`] (EIP-8297's reference hash, the EIP-7864 text) or [`Sha256`]
//! (go-ethereum's EIP-7864 tree). The crate has, per EIP:
//! - the tree keys and the embedding of accounts, code and storage ([`eip8297::keys`],
//!   [`eip7864::keys`]), the basic-data leaf and code chunks ([`code`]);
//! - an in-memory tree ([`eip8297::Tree`], [`eip7864::Tree`]) that caches every node's hash,
//!   takes batches of writes and recomputes the root once per batch, rehashing only the nodes
//!   on the written paths, each once, with the subtrees below the top levels (hypertrees) on
//!   rayon threads under the `parallel` feature;
//! - for EIP-8297, the root of a whole state built from accounts ([`eip8297::state`]);
//! - what a tree kept in a key/value store needs, without the store ([`store`]): node records
//!   under short bit-path keys, subtrees loaded on demand through a [`store::NodeSource`] and
//!   checked against their parents' hashes, the records a commit writes, and eviction
//!   ([`eip7864::StoredTree`], [`eip8297::StoredTree`]);
//! - the binary witness of a block ([`witness`], [`eip7864::witness`], [`eip8297::witness`]):
//!   a tree's `witness` method proves a list of keys and writes, and a light client decodes
//!   the bytes as views, checks them against the pre-state root and gets the post-state root
//!   from the witness alone (`spec/BINARY.md`);
//! - under the `fuzzing` feature, the bodies of the binary-witness fuzz targets and the
//!   scenario generators the tests share ([`fuzz`]).
//!
//! The first call a user makes is a tree's `new`, then writes and `root`:
//!
//! ```
//! use bintree::{eip8297, Blake3};
//!
//! let address = eip8297::keys::address32(&[0x11; 20]);
//! let mut tree = eip8297::Tree::<Blake3>::new();
//! let key = eip8297::keys::basic_data_key::<Blake3>(&address);
//! tree.insert(&key, &eip8297::keys::basic_data(0, 3, 1_000_000_000_000_000_000)?)?;
//! let root: [u8; 32] = tree.root();
//! # let _ = root;
//! # Ok::<(), bintree::Error>(())
//! ```
//!
//! A builder applies a block's writes as one batch and reads the root once:
//!
//! ```
//! use bintree::{eip7864, Sha256};
//!
//! let mut tree = eip7864::Tree::<Sha256>::new();
//! tree.apply((0u8..4).map(|i| ([i; 32], [1; 32])))?;
//! let root = tree.root();
//! assert_ne!(root, [0; 32]);
//! assert!(tree.hash_count() > 0);
//! # Ok::<(), bintree::Error>(())
//! ```
//! A block's witness, proved by a builder and verified by a light client:
//!
//! ```
//! use bintree::witness::Write;
//! use bintree::{eip7864, Sha256};
//!
//! let mut tree = eip7864::Tree::<Sha256>::new();
//! tree.insert(&[1; 32], &[7; 32])?;
//! let pre_root = tree.root();
//! let bytes = tree
//!     .witness(&[([1u8; 32], Write::Set([8; 32])), ([2u8; 32], Write::Unchanged)])
//!     .expect("distinct keys");
//! let (witness, verified) = eip7864::witness::verify::<Sha256>(&bytes, &pre_root)
//!     .expect("an honest witness verifies");
//! assert_eq!(witness.claims().next().map(|c| c.pre), Some(Some(&[7; 32])));
//! tree.insert(&[1; 32], &[8; 32])?;
//! assert_eq!(verified.post_root, tree.root());
//! # Ok::<(), bintree::Error>(())
//! ```
// The two exceptions, `hash::sha_ni` (SHA-NI intrinsics) and `hash::blake3_lanes` (AVX2
// intrinsics), each behind a run-time check, allow it.
#![deny(unsafe_code)]
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

/// The `alloc` names the standard prelude brings, for `no_std` builds.
#[allow(unused_imports)]
mod prelude {
    pub(crate) use alloc::{boxed::Box, vec, vec::Vec};
}

mod bits;
pub mod code;
pub mod eip7864;
pub mod eip8297;
mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
mod hash;
pub mod store;
pub mod witness;

pub use error::Error;
pub use hash::{keccak256, Blake3, Sha256, TreeHash, EMPTY_CODE_HASH};
