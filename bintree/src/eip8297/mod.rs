//! EIP-8297, the partitioned binary tree: variable-length prefix-free keys in zones, leaves
//! `H(0x00 ‖ key ‖ value)`, prefix-compressed branches
//! `H(0x01 ‖ u16be(bitlen) ‖ prefix bits ‖ left ‖ right)`, empty root of 32 zero bytes.

pub mod keys;
mod prove;
pub mod state;
mod stored;
mod tree;
pub mod witness;

pub use stored::StoredTree;
pub use tree::{root_of_entries, Tree, BRANCH_TAG, LEAF_TAG, MAX_KEY_LENGTH, PARALLEL_LEVELS};
