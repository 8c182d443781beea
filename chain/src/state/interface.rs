//! The interface a replay writes through, and the kinds of tree behind it.

use anyhow::Result;
use verkle::keys::{TreeKey, Value};
use witness::OwnedExecutionWitness;

/// Which tree holds the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One canonical tree.
    Single,
    /// The sharded tree (256 hypertrees by first stem byte), which also reports the
    /// coordinator root.
    Fractional,
}

impl Mode {
    /// The name stored in a datadir's meta.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Single => "single",
            Mode::Fractional => "fractional",
        }
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
