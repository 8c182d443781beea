//! The state a replay writes to: one tree behind a small interface, so the replay loop is
//! the same whatever holds the nodes (memory or a datadir) and however the tree is split.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::thread::JoinHandle;

use anyhow::{anyhow, Context, Result};
use verkle::keys::{TreeKey, Value};
use verkle::store::{MemoryStore, NodeStore, RocksStore};
use verkle::Tree;
use witness::OwnedExecutionWitness;

/// Meta keys a replay writes beside the nodes (atomically with the block's nodes).
pub mod meta {
    /// The `--chain` rule set (`none` or `kaustinen6`).
    pub const CHAIN: &[u8] = b"fverkle/chain";
    /// The account layout (`legacy` or `eip6800`).
    pub const LAYOUT: &[u8] = b"fverkle/layout";
    /// The genesis state root (32 bytes).
    pub const GENESIS_ROOT: &[u8] = b"fverkle/genesis_root";
    /// The tree kind (`single` or `fractional`).
    pub const MODE: &[u8] = b"fverkle/mode";
    /// Prefix of the state root after each block: [`root_key`] (height 0 has none: its
    /// root is [`GENESIS_ROOT`]).
    pub const ROOT_PREFIX: &[u8] = b"fverkle/root/";

    /// The meta key of the state root at block `height`: [`ROOT_PREFIX`] then the height as
    /// 8 big-endian bytes; the value is the 32-byte root.
    pub fn root_key(height: u64) -> Vec<u8> {
        let mut k = Vec::with_capacity(ROOT_PREFIX.len() + 8);
        k.extend_from_slice(ROOT_PREFIX);
        k.extend_from_slice(&height.to_be_bytes());
        k
    }
}

/// A Verkle state a replay reads and writes.
pub trait State {
    /// The current value of `key`.
    fn get(&mut self, key: &TreeKey) -> Result<Option<Value>>;
    /// Applies writes (`None` deletes); for a key written twice the last write wins.
    fn apply(&mut self, writes: &[(TreeKey, Option<Value>)]) -> Result<()>;
    /// Commits and returns the canonical state root.
    fn root(&mut self) -> [u8; 32];
    /// The µs the last [`State::apply`] spent committing, when the state commits inside
    /// `apply` (a sharded state commits its shards in parallel there); `None` when `apply`
    /// only applies the writes (the commit then happens in [`State::root`]).
    fn commit_in_apply_us(&self) -> Option<u64> {
        None
    }
    /// The coordinator root of a sharded state (`None` for a single tree).
    fn coordinator_root(&mut self) -> Option<[u8; 32]> {
        None
    }
    /// Writes everything changed, with `height` and `meta`, in one atomic step. A state may
    /// finish the write after returning (a datadir's single tree writes a block's batch
    /// while the next block is applied); [`State::sync`] waits for it.
    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()>;
    /// Waits until every [`State::persist`] so far is in the store, reporting a failed
    /// write.
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    /// The height of the last persist, if any.
    fn height(&self) -> Option<u64>;
    /// A meta entry written by [`State::persist`].
    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>>;
    /// An execution witness proving the current values of `keys`, carrying the given new
    /// values (`None` = read only).
    fn prove(&mut self, keys: &[(TreeKey, Option<Value>)]) -> Result<OwnedExecutionWitness>;
    /// A fractional proof of `ops` (reads, writes and deletions) against the canonical root
    /// and, with `coordinator_path`, the coordinator root (`None` for a single tree).
    fn prove_fractional(
        &mut self,
        _ops: &[(TreeKey, fractional::KeyOp)],
        _coordinator_path: bool,
    ) -> Result<Option<fractional::OwnedFractionalProof>> {
        Ok(None)
    }
}

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

/// A single tree over a node store that keeps height and meta itself (in a datadir,
/// [`verkle::store::RocksStore`]): nodes, height and meta of a block go in one atomic write.
///
/// The write of a block's batch (one of at least [`PIPELINE_MIN_RECORDS`] records) runs on
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
    pub fn open(store: S, config: verkle::TreeConfig) -> Result<TreeState<S>> {
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

    /// Opens (creating when missing) the sharded tree in `dir`, its node cache budgeted by
    /// `config`.
    pub fn open(
        dir: &std::path::Path,
        config: fractional::ShardConfig,
        rocks: &verkle::store::RocksConfig,
    ) -> Result<FracState> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
