//! The Banderwagon group: the prime-order quotient of the Bandersnatch curve used by
//! Ethereum's Verkle trees (EIP-6800).
//!
//! Bandersnatch is a twisted Edwards curve over the BLS12-381 scalar field. Banderwagon is
//! its prime-order subgroup taken modulo the 2-torsion point `(0, -1)`, so `P` and
//! `P + (0, -1)` are the same element and equality is `x1·y2 == x2·y1`.
//!
//! Every scalar multiplication here runs in variable time: a verifier's and a prover's inputs
//! are public. The free functions say so in their names (`vartime_multi_scalar_mul`,
//! `vartime_straus`, `vartime_multi_scalar_mul_affine`); the precomputed tables
//! ([`FixedBaseTable`], [`FixedBaseMsm`]) and `Element`'s `*` are variable time as well. Do not
//! multiply secrets with this crate.
//!
//! ```
//! use banderwagon::{Element, Fr};
//! let g = Element::generator();
//! let bytes = g.to_bytes();
//! assert_eq!(Element::from_bytes(&bytes).unwrap(), g);
//! let _scalar: Fr = g.map_to_scalar_field();
//! ```
// Only the backend modules opt out, each with `#![allow(unsafe_code)]` and a safety argument
// (run-time detected assembly and AVX-512): the field backends `field::backend::adx`,
// `field::backend::ifma` and `field::backend::ifma_model` (its tests against the hardware),
// and the lane algorithms `fixed_base::lanes`, `msm::lanes` and `sqrt::lanes`.
#![deny(unsafe_code)]
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

/// A method that is `pub` with the `internal` feature (for this workspace's other crates,
/// hidden from the docs, not API) and crate-private without it.
macro_rules! internal_fn {
    ($(#[$m:meta])* fn $($rest:tt)*) => {
        #[cfg(feature = "internal")]
        $(#[$m])*
        #[doc(hidden)]
        pub fn $($rest)*
        #[cfg(not(feature = "internal"))]
        $(#[$m])*
        #[allow(dead_code)]
        pub(crate) fn $($rest)*
    };
}

mod element;
mod field;
mod fixed_base;
mod fixed_base_msm;
mod inverse;
mod legendre;
mod msm;
pub mod once;
mod prepared;
mod scalar;
mod sqrt;
mod threads;

pub use element::{DecodeError, Element, MTF_CHUNK};
pub use field::{field_uses_adx, field_uses_lanes, use_lanes, use_portable_field};
pub use fixed_base::FixedBaseTable;
#[cfg(feature = "internal")]
#[doc(hidden)]
pub use fixed_base::Lookups;
pub use fixed_base_msm::FixedBaseMsm;
pub use inverse::{fq_inverse, fr_inverse};
pub use msm::{vartime_multi_scalar_mul, vartime_multi_scalar_mul_affine, vartime_straus};
pub use scalar::{
    fr_from_le_bytes_canonical, fr_from_le_bytes_mod_order, fr_from_u128, fr_to_le_bytes,
    ScalarDecodeError,
};

/// The scalar field of the Banderwagon group (order
/// `r = 0x1cfb69d4ca675f520cce760202687600ff8f87007419047174fd06b52876e7e1`).
pub use ark_ed_on_bls12_381_bandersnatch::Fr;

/// The base field of Bandersnatch: the BLS12-381 scalar field.
pub use ark_ed_on_bls12_381_bandersnatch::Fq;

/// Re-exported arkworks traits needed to do arithmetic on [`Fr`].
pub mod arith {
    pub use ark_ff::{batch_inversion, Field, One, PrimeField, UniformRand, Zero};
}
