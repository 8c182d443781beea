//! Checkers for the upstream data in its original formats (`shared/vectors/README.md`), one
//! function per format, each reading the file in place: the cryptographic formats (go-ipa,
//! rust-verkle) in `proofs`, the trees, genesis files and witnesses (geth, besu, go-verkle,
//! Kaustinen) in `state`.

mod input;
mod proofs;
mod state;

pub(crate) use input::read_json;
pub use proofs::{go_ipa, rust_verkle_commitments, rust_verkle_pedersen_hash};
pub use state::{besu_code, genesis, geth_tree, go_verkle_witness, kaustinen_chain};
