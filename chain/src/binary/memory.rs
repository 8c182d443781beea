//! A binary state in memory: one `bintree` tree (EIP-7864 or EIP-8297, over its hash), its
//! height and meta beside it.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Result};
use bintree::witness::Write;
use bintree::{eip7864, eip8297, Blake3, Sha256, TreeHash};

use super::{BinaryKind, BinaryState};

/// What [`MemoryBinaryState`] needs of a tree: the calls both binary trees have.
pub trait MemoryTree: Send {
    /// The tree and hash.
    const KIND: BinaryKind;
    /// The value of `key`.
    fn get(&self, key: &[u8]) -> Option<[u8; 32]>;
    /// Applies a batch of writes (`Unchanged` skipped).
    fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()>;
    /// The root.
    fn root(&mut self) -> [u8; 32];
    /// Hashes computed so far.
    fn hash_count(&self) -> u64;
    /// The witness of `writes`.
    fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>>;
    /// The nodes on the union of the paths to `keys` (the tree's `path_nodes`).
    fn path_nodes(&self, keys: &[&[u8]]) -> Result<u64>;
}

/// The EIP-7864 tree: no deletion, so a [`Write::Delete`] fails the batch before anything
/// changes.
fn eip7864_apply<H: TreeHash>(
    tree: &mut eip7864::Tree<H>,
    writes: &[(Vec<u8>, Write)],
) -> Result<()> {
    let mut sets = Vec::with_capacity(writes.len());
    for (i, (key, write)) in writes.iter().enumerate() {
        match write {
            Write::Unchanged => {}
            Write::Set(v) => sets.push((key.as_slice(), *v)),
            Write::Delete => bail!(
                "write {i} (key 0x{}): EIP-7864 defines no deletion; a key can only be set",
                hex::encode(key)
            ),
        }
    }
    tree.apply(sets).map_err(|e| anyhow!("EIP-7864 tree: {e}"))
}

macro_rules! eip7864_tree {
    ($hash:ty, $kind:expr) => {
        impl MemoryTree for eip7864::Tree<$hash> {
            const KIND: BinaryKind = $kind;

            fn get(&self, key: &[u8]) -> Option<[u8; 32]> {
                eip7864::Tree::get(self, key).copied()
            }

            fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()> {
                eip7864_apply(self, writes)
            }

            fn root(&mut self) -> [u8; 32] {
                eip7864::Tree::root(self)
            }

            fn hash_count(&self) -> u64 {
                eip7864::Tree::hash_count(self)
            }

            fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>> {
                eip7864::Tree::witness(self, writes).map_err(|e| anyhow!("EIP-7864 witness: {e}"))
            }

            fn path_nodes(&self, keys: &[&[u8]]) -> Result<u64> {
                eip7864::Tree::path_nodes(self, keys).map_err(|e| anyhow!("EIP-7864 tree: {e}"))
            }
        }
    };
}

eip7864_tree!(Sha256, BinaryKind::Eip7864Sha256);
eip7864_tree!(Blake3, BinaryKind::Eip7864Blake3);

impl MemoryTree for eip8297::Tree<Blake3> {
    const KIND: BinaryKind = BinaryKind::Eip8297;

    fn get(&self, key: &[u8]) -> Option<[u8; 32]> {
        eip8297::Tree::get(self, key).copied()
    }

    fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()> {
        let ops = writes.iter().filter_map(|(key, write)| match write {
            Write::Unchanged => None,
            Write::Set(v) => Some((key.as_slice(), Some(*v))),
            Write::Delete => Some((key.as_slice(), None)),
        });
        eip8297::Tree::apply(self, ops).map_err(|e| anyhow!("EIP-8297 tree: {e}"))
    }

    fn root(&mut self) -> [u8; 32] {
        eip8297::Tree::root(self)
    }

    fn hash_count(&self) -> u64 {
        eip8297::Tree::hash_count(self)
    }

    fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>> {
        eip8297::Tree::witness(self, writes).map_err(|e| anyhow!("EIP-8297 witness: {e}"))
    }

    fn path_nodes(&self, keys: &[&[u8]]) -> Result<u64> {
        eip8297::Tree::path_nodes(self, keys).map_err(|e| anyhow!("EIP-8297 tree: {e}"))
    }
}

/// A binary tree in memory; height and meta live beside it.
#[derive(Debug, Default)]
pub struct MemoryBinaryState<T> {
    tree: T,
    height: Option<u64>,
    meta: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl<T: Default> MemoryBinaryState<T> {
    /// An empty state.
    pub fn new() -> MemoryBinaryState<T> {
        MemoryBinaryState {
            tree: T::default(),
            height: None,
            meta: BTreeMap::new(),
        }
    }
}

/// An empty in-memory state of `kind`.
pub fn in_memory(kind: BinaryKind) -> Box<dyn BinaryState> {
    match kind {
        BinaryKind::Eip7864Sha256 => Box::new(MemoryBinaryState::<eip7864::Tree<Sha256>>::new()),
        BinaryKind::Eip7864Blake3 => Box::new(MemoryBinaryState::<eip7864::Tree<Blake3>>::new()),
        BinaryKind::Eip8297 => Box::new(MemoryBinaryState::<eip8297::Tree<Blake3>>::new()),
    }
}

impl<T: MemoryTree> BinaryState for MemoryBinaryState<T> {
    fn kind(&self) -> BinaryKind {
        T::KIND
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<[u8; 32]>> {
        Ok(self.tree.get(key))
    }

    fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()> {
        self.tree.apply(writes)
    }

    fn root(&mut self) -> Result<[u8; 32]> {
        Ok(self.tree.root())
    }

    fn hash_count(&self) -> u64 {
        self.tree.hash_count()
    }

    fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>> {
        self.tree.witness(writes)
    }

    fn path_nodes(&mut self, keys: &[&[u8]]) -> Result<Option<u64>> {
        self.tree.path_nodes(keys).map(Some)
    }

    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()> {
        self.height = Some(height);
        for (k, v) in meta {
            self.meta.insert(k.to_vec(), v.to_vec());
        }
        Ok(())
    }

    fn height(&self) -> Option<u64> {
        self.height
    }

    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.meta.get(key).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_sets_reads_and_proves() {
        for kind in [
            BinaryKind::Eip7864Sha256,
            BinaryKind::Eip7864Blake3,
            BinaryKind::Eip8297,
        ] {
            let mut s = in_memory(kind);
            assert_eq!(s.kind(), kind);
            let key = vec![0x11u8; 32];
            let other = vec![0x22u8; 32];
            let empty = s.root().unwrap();
            s.apply(&[
                (key.clone(), Write::Set([5; 32])),
                (other.clone(), Write::Unchanged),
            ])
            .unwrap();
            assert_eq!(s.get(&key).unwrap(), Some([5; 32]));
            assert_eq!(s.get(&other).unwrap(), None);
            let root = s.root().unwrap();
            assert_ne!(root, empty);
            assert!(s.hash_count() > 0);
            let w = s.witness(&[(key.clone(), Write::Set([6; 32]))]).unwrap();
            assert_eq!(w[1], if kind == BinaryKind::Eip8297 { 2 } else { 1 });
            s.persist(3, &[(b"k", b"v")]).unwrap();
            assert_eq!(s.height(), Some(3));
            assert_eq!(s.meta(b"k").unwrap(), Some(b"v".to_vec()));
        }
    }

    #[test]
    fn eip7864_refuses_a_delete_and_changes_nothing() {
        let mut s = in_memory(BinaryKind::Eip7864Sha256);
        s.apply(&[(vec![1; 32], Write::Set([1; 32]))]).unwrap();
        let root = s.root().unwrap();
        let e = s
            .apply(&[
                (vec![2; 32], Write::Set([2; 32])),
                (vec![1; 32], Write::Delete),
            ])
            .unwrap_err();
        assert!(e.to_string().contains("no deletion"), "{e}");
        assert_eq!(s.root().unwrap(), root);
        assert_eq!(s.get(&[2; 32]).unwrap(), None);
    }

    #[test]
    fn eip8297_deletes() {
        let mut s = in_memory(BinaryKind::Eip8297);
        let empty = s.root().unwrap();
        s.apply(&[(vec![1; 34], Write::Set([1; 32]))]).unwrap();
        assert_ne!(s.root().unwrap(), empty);
        s.apply(&[(vec![1; 34], Write::Delete)]).unwrap();
        assert_eq!(s.root().unwrap(), empty);
    }
}
