//! EIP-7864 as of `ethereum/EIPs@ca51874f`, the layout go-ethereum implements: 32-byte keys
//! (31-byte stem ‖ sub-index), a 256-leaf subtree per stem, internal nodes `hash(left ‖ right)`,
//! stem nodes `hash(stem ‖ 0x00 ‖ subtree root)`, leaves `hash(value)`, where `hash` of 64 zero
//! bytes is 32 zero bytes ("Node merkelization").

pub mod keys;
mod prove;
mod stem;
mod stored;
mod tree;
pub mod witness;

pub use stem::STEM_LENGTH;
pub use stored::StoredTree;
pub use tree::{Tree, PARALLEL_LEVELS};
