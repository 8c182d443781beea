//! What stops a chain from being carried into a binary tree.

use super::super::BinaryKind;

/// `0x`-hex of a value, or `absent`.
fn show(value: &Option<[u8; 32]>) -> String {
    match value {
        Some(v) => crate::hexarg::to_hex(v),
        None => "absent".to_owned(),
    }
}

/// Why a chain could not be carried into a binary tree: the export contradicts itself, or a
/// binary witness did not prove what the tree holds.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CarryError {
    /// The tree kind has no 32-byte keys (EIP-8297): Verkle's keys cannot be carried into it.
    #[error("a chain's 32-byte Verkle keys can be carried into EIP-7864 only, not {}", .0.tree())]
    Kind(BinaryKind),
    /// A block gives a key twice in its witness.
    #[error("block {block}: key {} is in the witness twice", crate::hexarg::to_hex(.key))]
    DuplicateKey {
        /// The block.
        block: u64,
        /// The key (stem ‖ suffix).
        key: [u8; 32],
    },
    /// A block's pre-value for a key that no earlier block wrote is not the value an earlier
    /// block revealed: the export contradicts itself.
    #[error(
        "block {block}: key {}: pre-value {} contradicts {} revealed by block {revealed_by}",
        crate::hexarg::to_hex(.key), show(.got), show(.revealed)
    )]
    Contradiction {
        /// The block whose pre-value disagrees.
        block: u64,
        /// The key (stem ‖ suffix).
        key: [u8; 32],
        /// The block that first revealed the key.
        revealed_by: u64,
        /// The value it revealed (`None`: absent).
        revealed: Option<[u8; 32]>,
        /// The pre-value this block gives.
        got: Option<[u8; 32]>,
    },
    /// A block's pre-value for a key is not the value an earlier block wrote to it: the state
    /// changed outside the witnesses.
    #[error(
        "block {block}: key {}: pre-value {} is not {} written by block {written_by}",
        crate::hexarg::to_hex(.key), show(.got), crate::hexarg::to_hex(.written)
    )]
    Unwritten {
        /// The block whose pre-value disagrees.
        block: u64,
        /// The key (stem ‖ suffix).
        key: [u8; 32],
        /// The last block that wrote the key.
        written_by: u64,
        /// The value it wrote.
        written: [u8; 32],
        /// The pre-value this block gives.
        got: Option<[u8; 32]>,
    },
    /// The export read a second time does not hold the blocks it held the first time.
    #[error("the export changed between its two readings: block {index} was {first:?}, is now {second:?}")]
    ExportChanged {
        /// The block's position in the export.
        index: usize,
        /// Its number on the first reading (`None`: no such block).
        first: Option<u64>,
        /// Its number on the second reading (`None`: no such block).
        second: Option<u64>,
    },
    /// The tree refused a key or a value.
    #[error("block {block}: the tree refused a write: {source}")]
    Tree {
        /// The block (0: the revealed starting state).
        block: u64,
        /// What the tree said.
        source: bintree::Error,
    },
    /// The binary witness of a block could not be made, decoded or verified.
    #[error("block {block}: binary witness: {source}")]
    Witness {
        /// The block.
        block: u64,
        /// What the prover or the verifier said.
        source: bintree::witness::WitnessError,
    },
    /// A verified binary witness claims a pre-value the Verkle witness does not give.
    #[error(
        "block {block}: key {}: the binary witness proves {} where the Verkle witness gives {}",
        crate::hexarg::to_hex(.key), show(.binary), show(.verkle)
    )]
    ClaimMismatch {
        /// The block.
        block: u64,
        /// The key (stem ‖ suffix).
        key: [u8; 32],
        /// The pre-value the binary witness proves.
        binary: Option<[u8; 32]>,
        /// The pre-value the Verkle witness gives.
        verkle: Option<[u8; 32]>,
    },
    /// A binary witness's claim names another key or another write than the block's key
    /// in its place.
    #[error("block {block}: the binary witness's claim {index} is not the block's key and write")]
    ClaimKey {
        /// The block.
        block: u64,
        /// The claim's position (keys sorted).
        index: usize,
    },
    /// The binary witness's key set is not the block's.
    #[error("block {block}: the binary witness holds {binary} keys, the block {verkle}")]
    KeyCount {
        /// The block.
        block: u64,
        /// Keys in the binary witness.
        binary: usize,
        /// Keys in the Verkle witness.
        verkle: usize,
    },
    /// The post-state root computed from the binary witness alone is not the tree's root
    /// after the block's writes.
    #[error(
        "block {block}: post-state root from the witness {} is not the tree's root {}",
        crate::hexarg::to_hex(.witness), crate::hexarg::to_hex(.tree)
    )]
    PostRoot {
        /// The block.
        block: u64,
        /// The root computed from the witness alone.
        witness: [u8; 32],
        /// The tree's root.
        tree: [u8; 32],
    },
}
