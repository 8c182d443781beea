//! Replaying a chain into a binary state tree (EIP-7864 or EIP-8297, `spec/BINARY.md`): the
//! kind of tree and its hash ([`BinaryKind`]), and the interface a binary replay writes
//! through ([`BinaryState`]), whatever holds the nodes.
//!
//! - [`memory`]: a state in memory ([`memory::in_memory`]), for each kind;
//! - [`embed`]: accounts' basic data, code hash, code chunks and storage as each tree's keys
//!   and values; [`genesis`]: a geth genesis document into a binary state;
//! - [`export`]: the binary block export (JSON Lines, `binaryWitness` per block) and its
//!   reader; [`replay`]: the per-block replay and its reports;
//! - the synthetic chain on a binary tree is [`crate::synth::binary::write_binary_chain`].

pub mod embed;
pub mod export;
pub mod genesis;
pub mod memory;
pub mod replay;

pub mod carry;

use anyhow::Result;
use bintree::witness::Write;

#[cfg(feature = "rocksdb")]
pub mod rocks;

/// Column family of a binary datadir's node records ([`rocks`]).
#[cfg(feature = "rocksdb")]
pub(crate) const CF_NODES: &str = "binary-nodes";
/// Column family of a binary datadir's meta records ([`rocks`]).
#[cfg(feature = "rocksdb")]
pub(crate) const CF_META: &str = "binary-meta";

/// A binary tree and its hash, as a binary witness's header names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryKind {
    /// EIP-7864 with SHA-256 (go-ethereum's `trie/bintrie`).
    Eip7864Sha256,
    /// EIP-7864 with BLAKE3 (the EIP text's reference hash).
    Eip7864Blake3,
    /// EIP-8297, the partitioned binary tree (BLAKE3).
    Eip8297,
}

impl BinaryKind {
    /// The tree's name, as `--tree` takes it.
    pub fn tree(self) -> &'static str {
        match self {
            BinaryKind::Eip7864Sha256 | BinaryKind::Eip7864Blake3 => "eip7864",
            BinaryKind::Eip8297 => "eip8297",
        }
    }

    /// The hash's name, as `--hash` takes it.
    pub fn hash(self) -> &'static str {
        match self {
            BinaryKind::Eip7864Sha256 => "sha256",
            BinaryKind::Eip7864Blake3 | BinaryKind::Eip8297 => "blake3",
        }
    }

    /// The kind a tree name and a hash name give (`hash` `None`: the tree's default hash,
    /// SHA-256 for EIP-7864 and BLAKE3 for EIP-8297); `None` for a pair that names no binary
    /// tree.
    pub fn from_names(tree: &str, hash: Option<&str>) -> Option<BinaryKind> {
        match (tree, hash) {
            ("eip7864", None | Some("sha256")) => Some(BinaryKind::Eip7864Sha256),
            ("eip7864", Some("blake3")) => Some(BinaryKind::Eip7864Blake3),
            ("eip8297", None | Some("blake3")) => Some(BinaryKind::Eip8297),
            _ => None,
        }
    }
}

/// A binary state a replay reads and writes, in memory or in a datadir.
///
/// Keys are in the tree's own form (32 bytes for EIP-7864; 1 to
/// [`bintree::eip8297::MAX_KEY_LENGTH`] bytes, prefix-free, for EIP-8297).
pub trait BinaryState: Send {
    /// The tree and hash this state holds.
    fn kind(&self) -> BinaryKind;
    /// The current value of `key`.
    fn get(&mut self, key: &[u8]) -> Result<Option<[u8; 32]>>;
    /// Applies a block's writes as one batch (`Write::Unchanged` entries are skipped;
    /// `Write::Delete` is an error on EIP-7864, which defines no deletion).
    fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()>;
    /// The root after every write so far (the batch's nodes rehashed once).
    fn root(&mut self) -> Result<[u8; 32]>;
    /// Hashes performed so far (for the hash-count ratios of BENCHMARKS.md).
    fn hash_count(&self) -> u64;
    /// The nodes on the union of the paths from the root to `keys` (`path_nodes` of the
    /// `bintree` trees: the least number of hashes that a root update after writing exactly
    /// these keys, or a verification of them, performs), as of the last [`BinaryState::root`];
    /// `None` where the state does not hold every node in memory (a datadir).
    fn path_nodes(&mut self, keys: &[&[u8]]) -> Result<Option<u64>> {
        let _ = keys;
        Ok(None)
    }
    /// The binary witness of `writes` (each key once) against the current state: the wire
    /// bytes of `spec/BINARY.md`.
    fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>>;
    /// Writes everything changed, with `height` and `meta`, in one atomic step (in memory:
    /// records height and meta).
    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()>;
    /// The height of the last persist, if any.
    fn height(&self) -> Option<u64>;
    /// A meta entry written by [`BinaryState::persist`].
    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>>;
}
