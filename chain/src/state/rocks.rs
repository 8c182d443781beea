//! A single tree in a RocksDB datadir, its block writes pipelined on a writer thread.

use std::sync::Mutex;
use std::thread::JoinHandle;

use anyhow::{anyhow, Context, Result};
use verkle::keys::{TreeKey, Value};
use verkle::store::{NodeStore, RocksStore};
use verkle::Tree;
use witness::OwnedExecutionWitness;

use super::interface::State;

/// A single tree over a node store that keeps height and meta itself (in a datadir,
/// [`verkle::store::RocksStore`]): nodes, height and meta of a block go in one atomic write.
///
/// The write of a block's batch (one of at least `PIPELINE_MIN_RECORDS` records) runs on
/// its own thread while the replay goes on with the next block; the next [`State::persist`]
/// waits for it before evicting (the evicted nodes must be in the store to be read back)
/// and before handing over its own batch, so batches land one at a time, in block order,
/// each atomic: a crash leaves the store at the last batch that landed.
pub struct TreeState<S: NodeStore> {
    tree: Tree<S>,
    /// The batch being written, with its block height.
    writing: Mutex<Option<Writing<S>>>,
}

/// Batches with fewer records are written on the calling thread (a Kaustinen6 block writes
/// a few hundred; a 10k-update block on a 1M-key state about 40,000).
const PIPELINE_MIN_RECORDS: usize = 4_096;

/// A batch on the writer thread.
struct Writing<S: NodeStore> {
    height: u64,
    handle: JoinHandle<Result<(), S::Error>>,
}

impl<S: NodeStore> std::fmt::Debug for TreeState<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeState")
            .field("height", &self.tree.height())
            .finish_non_exhaustive()
    }
}

impl<S: NodeStore> TreeState<S> {
    /// Opens the tree persisted in `store` (empty when the store is), its node cache
    /// budgeted by `config`.
    pub fn open(store: S, config: verkle::TreeConfig) -> Result<TreeState<S>, verkle::TreeError> {
        Ok(TreeState {
            tree: Tree::open_with(store, config)?,
            writing: Mutex::new(None),
        })
    }
}

/// The error of a failed write of block `height`'s batch.
fn write_error(height: u64, e: impl std::error::Error + Send + Sync + 'static) -> anyhow::Error {
    anyhow!(e).context(format!("writing block {height} to the store"))
}

/// Waits for the batch in `slot`, if any, and reports its failure.
fn land<S: NodeStore>(slot: &mut Option<Writing<S>>) -> Result<()> {
    let Some(w) = slot.take() else {
        return Ok(());
    };
    let height = w.height;
    match w.handle.join() {
        Ok(written) => written.map_err(|e| write_error(height, e)),
        Err(_) => Err(anyhow!("the writer of block {height} panicked")),
    }
}

impl<S: NodeStore> Drop for TreeState<S> {
    fn drop(&mut self) {
        let slot = self.writing.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = land(slot) {
            tracing::error!("{e:#}");
        }
    }
}

/// The writer thread writes through a clone of the store's handle: a `RocksStore` clone
/// shares its database (a `MemoryStore` clone would not, so only the RocksDB state
/// pipelines its writes).
impl State for TreeState<RocksStore> {
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
        self.sync()?;
        // The previous batch is in the store: its nodes may go.
        self.tree.evict();
        // Commits and marks this block's nodes persisted; they stay in memory until the
        // next persist has seen this batch land.
        let batch = self.tree.take_batch(height, meta)?;
        let mut store = self.tree.store().clone();
        if batch.puts.len() + batch.deletes.len() < PIPELINE_MIN_RECORDS {
            // A small batch is written here: a thread would cost more than the write.
            return store.write(batch).map_err(|e| write_error(height, e));
        }
        let handle = std::thread::Builder::new()
            .name("fverkle-write".into())
            .spawn(move || store.write(batch))
            .context("starting the store writer")?;
        *self.writing.get_mut().unwrap_or_else(|p| p.into_inner()) =
            Some(Writing { height, handle });
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        land(self.writing.get_mut().unwrap_or_else(|p| p.into_inner()))
    }

    fn height(&self) -> Option<u64> {
        self.tree.height()
    }

    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        // A record of the batch in flight is read once it has landed.
        land(&mut self.writing.lock().unwrap_or_else(|p| p.into_inner()))?;
        self.tree.store().get_meta(key).map_err(|e| anyhow!(e))
    }

    fn prove(&mut self, keys: &[(TreeKey, Option<Value>)]) -> Result<OwnedExecutionWitness> {
        self.tree
            .prove_with_new_values(keys)
            .context("proving from the tree")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::meta;

    fn open(dir: &std::path::Path) -> TreeState<RocksStore> {
        let store = RocksStore::open(dir).expect("open the store");
        TreeState::open(store, verkle::TreeConfig::default()).expect("open the tree")
    }

    /// A batch handed to the writer thread is read back through `meta` (which waits for
    /// it), is in the store after `sync`, and after a drop without `sync` (the drop waits):
    /// a reopened store is at the last height persisted, with its root.
    #[test]
    fn pipelined_writes_land_in_order_and_before_a_drop() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut roots = Vec::new();
        {
            let mut state = open(dir.path());
            for height in 1..=3u64 {
                // One leaf record per stem: enough records for the writer thread.
                let mut writes: Vec<(TreeKey, Option<Value>)> = (0..PIPELINE_MIN_RECORDS)
                    .map(|i| {
                        let mut key = [0u8; 32];
                        key[0] = 0x80 | height as u8;
                        key[1..3].copy_from_slice(&(i as u16).to_be_bytes());
                        (key, Some([height as u8; 32]))
                    })
                    .collect();
                writes.push(([height as u8; 32], Some([7u8; 32])));
                state.apply(&writes).expect("apply");
                let root = state.root();
                let root_key = meta::root_key(height);
                state
                    .persist(height, &[(root_key.as_slice(), root.as_slice())])
                    .expect("persist");
                // The record of the batch in flight.
                assert_eq!(state.meta(&root_key).expect("meta"), Some(root.to_vec()));
                roots.push(root);
            }
            state.sync().expect("sync");
            state.apply(&[([9u8; 32], Some([1u8; 32]))]).expect("apply");
            let root = state.root();
            let root_key = meta::root_key(4);
            state
                .persist(4, &[(root_key.as_slice(), root.as_slice())])
                .expect("persist");
            roots.push(root);
            // Dropped with block 4's batch possibly in flight.
        }
        let mut state = open(dir.path());
        assert_eq!(state.height(), Some(4));
        assert_eq!(state.root(), roots[3]);
        for (h, root) in roots.iter().enumerate() {
            let key = meta::root_key(h as u64 + 1);
            assert_eq!(state.meta(&key).expect("meta"), Some(root.to_vec()));
        }
        assert_eq!(state.get(&[2u8; 32]).expect("get"), Some([7u8; 32]));
    }
}
