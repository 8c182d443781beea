//! The [`NodeStore`] trait, the [`NodeBatch`] one write applies and the meta keys the tree
//! owns.

use super::NodePath;

/// Meta key of the root commitment (32 bytes, compressed) as of the last write.
pub const META_ROOT: &[u8] = b"root";
/// Meta key of the block height (8 bytes, big-endian) as of the last write.
pub const META_HEIGHT: &[u8] = b"height";

/// The records one commit writes: applied atomically, deletes first, then puts, then meta.
#[derive(Clone, Debug, Default)]
pub struct NodeBatch {
    /// Records to write (no path appears twice).
    pub puts: Vec<(NodePath, Vec<u8>)>,
    /// Paths whose records no longer exist (none of them is also in `puts`).
    pub deletes: Vec<NodePath>,
    /// Meta records to write (key, value); a key written twice keeps the last value.
    pub meta: Vec<(Vec<u8>, Vec<u8>)>,
}

impl NodeBatch {
    /// Whether the batch writes nothing.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty() && self.meta.is_empty()
    }

    /// Appends `other` (for merging the batches of several trees into one write; their
    /// paths must not overlap).
    pub fn extend(&mut self, other: NodeBatch) {
        self.puts.extend(other.puts);
        self.deletes.extend(other.deletes);
        self.meta.extend(other.meta);
    }
}

/// Where a tree keeps its nodes.
///
/// Implementations: [`MemoryStore`](super::MemoryStore) and `RocksStore` (one RocksDB
/// `WriteBatch` per [`NodeStore::write`]).
pub trait NodeStore {
    /// The store's own failure (I/O, corruption reported by the backend).
    type Error: std::error::Error + Send + Sync + 'static;

    /// The record at `path`, if any.
    fn get(&self, path: &NodePath) -> Result<Option<Vec<u8>>, Self::Error>;

    /// The records at `paths`, in order. The default reads them one by one; a backend that
    /// can read many keys in one call (`RocksStore`) overrides it.
    fn get_many(&self, paths: &[NodePath]) -> Vec<Result<Option<Vec<u8>>, Self::Error>> {
        paths.iter().map(|p| self.get(p)).collect()
    }

    /// The meta record at `key`, if any.
    fn get_meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error>;

    /// Applies `batch` atomically: after a crash either all of it or none of it is visible.
    fn write(&mut self, batch: NodeBatch) -> Result<(), Self::Error>;
}
