//! Integration tests of the `witness` crate: the real vectors in `shared/vectors`, JSON and
//! SSZ round trips, constant allocation counts, canonical-form rejections and properties,
//! stateless verification and post-state roots.
#![allow(clippy::unwrap_used)]

mod adversarial;
mod alloc;
mod canonical;
mod common;
mod hostile_json;
mod json_stream;
mod json_variants;
mod keys;
mod mutants;
mod mutate;
mod props;
mod readme;
mod vectors;
mod verify;
mod verify_props;
