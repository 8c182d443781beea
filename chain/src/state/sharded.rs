//! The sharded (fractional) tree, in memory or in a datadir.

use anyhow::{Context, Result};
use verkle::keys::{TreeKey, Value};
use witness::OwnedExecutionWitness;

use super::interface::State;

/// The sharded tree of the `fractional` crate (256 hypertrees by first stem byte), in
/// memory or in a datadir; also reports the coordinator root.
pub struct FracState {
    tree: fractional::ShardedTree,
}

impl FracState {
    /// An empty in-memory sharded tree.
    pub fn in_memory() -> FracState {
        FracState {
            tree: fractional::ShardedTree::in_memory(fractional::ShardConfig::default()),
        }
    }

    #[cfg(feature = "rocksdb")]
    /// Opens (creating when missing) the sharded tree in `dir`, its node cache budgeted by
    /// `config`.
    pub fn open(
        dir: &std::path::Path,
        config: fractional::ShardConfig,
        rocks: &verkle::store::RocksConfig,
    ) -> Result<FracState, fractional::FractionalError> {
        Ok(FracState {
            tree: fractional::ShardedTree::open_with(dir, config, rocks)?,
        })
    }
}

impl State for FracState {
    fn get(&mut self, key: &TreeKey) -> Result<Option<Value>> {
        Ok(self.tree.get(key)?)
    }

    fn apply(&mut self, writes: &[(TreeKey, Option<Value>)]) -> Result<()> {
        self.tree.apply(writes)?;
        Ok(())
    }

    fn root(&mut self) -> [u8; 32] {
        self.tree.canonical_root()
    }

    fn commit_in_apply_us(&self) -> Option<u64> {
        self.tree.last_apply().map(|r| r.commitment_us())
    }

    fn coordinator_root(&mut self) -> Option<[u8; 32]> {
        Some(self.tree.coordinator_root())
    }

    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()> {
        Ok(self.tree.persist(height, meta)?)
    }

    fn height(&self) -> Option<u64> {
        self.tree.height()
    }

    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.tree.meta(key)?)
    }

    fn prove(&mut self, keys: &[(TreeKey, Option<Value>)]) -> Result<OwnedExecutionWitness> {
        self.tree
            .prove_with_new_values(keys)
            .context("proving from the sharded tree")
    }

    fn prove_fractional(
        &mut self,
        ops: &[(TreeKey, fractional::KeyOp)],
        coordinator_path: bool,
    ) -> Result<Option<fractional::OwnedFractionalProof>> {
        Ok(Some(self.tree.prove_fractional_ops(ops, coordinator_path)?))
    }
}
