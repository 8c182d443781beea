//! A single tree in memory.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use verkle::keys::{TreeKey, Value};
use verkle::store::MemoryStore;
use verkle::Tree;
use witness::OwnedExecutionWitness;

use super::interface::State;

/// A single in-memory tree; height and meta live beside it.
#[derive(Debug, Default)]
pub struct MemoryState {
    tree: Tree<MemoryStore>,
    height: Option<u64>,
    meta: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl MemoryState {
    /// An empty state.
    pub fn new() -> MemoryState {
        MemoryState::default()
    }
}

impl State for MemoryState {
    fn get(&mut self, key: &TreeKey) -> Result<Option<Value>> {
        Ok(self.tree.get(key)?)
    }

    fn apply(&mut self, writes: &[(TreeKey, Option<Value>)]) -> Result<()> {
        Ok(self.tree.apply(writes.iter().copied())?)
    }

    fn root(&mut self) -> [u8; 32] {
        self.tree.root_bytes()
    }

    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()> {
        // Nothing to write to: committing is all an in-memory state does.
        self.tree.commit();
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

    fn prove(&mut self, keys: &[(TreeKey, Option<Value>)]) -> Result<OwnedExecutionWitness> {
        self.tree
            .prove_with_new_values(keys)
            .context("proving from the tree")
    }
}
