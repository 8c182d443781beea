//! Opening the state a command works on: in memory, or a RocksDB datadir holding a single
//! or a sharded tree (refused in the other kind).

use std::path::Path;

use anyhow::{bail, Context, Result};
use verkle::store::{RocksConfig, RocksStore};

use crate::state::{meta, FracState, Mode, State, TreeState};

/// Opens the state: in memory without a datadir, else the datadir (created when missing).
pub fn open_state(datadir: Option<&Path>, mode: Mode) -> Result<Box<dyn State>> {
    open_state_with(datadir, mode, None)
}

/// [`open_state`] with the datadir's caches within `cache_mb` MiB, split by
/// [`RocksConfig::split_budget`] (`None`: the default budgets of `verkle::TreeConfig`,
/// `fractional::ShardConfig` and `RocksConfig`). A state in memory is never evicted.
pub fn open_state_with(
    datadir: Option<&Path>,
    mode: Mode,
    cache_mb: Option<usize>,
) -> Result<Box<dyn State>> {
    let budget = cache_mb.map(|mb| RocksConfig::split_budget(mb.saturating_mul(1 << 20)));
    match (datadir, mode) {
        (None, mode) => Ok(crate::state::in_memory(mode)),
        (Some(dir), mode) => {
            let name = dir.display();
            std::fs::create_dir_all(dir).with_context(|| format!("{name}: cannot create"))?;
            let rocks = budget.as_ref().map(|b| b.1.clone()).unwrap_or_default();
            let store = RocksStore::open_with(dir, &rocks)
                .with_context(|| format!("{name}: cannot open"))?;
            // Which tree the datadir holds, before opening it as one: a single tree records
            // our mode meta directly, the sharded tree its shard depth (both with the first
            // nodes written). A height without either is a single tree whose genesis import
            // stopped before its mode was recorded (written by a version that recorded the
            // mode with the genesis root only): it is a single tree all the same.
            let holds = if store.get_meta(SHARDED_MARKER)?.is_some() {
                Some(Mode::Fractional)
            } else if store.get_meta(meta::MODE)?.is_some()
                || store.get_meta(verkle::store::META_HEIGHT)?.is_some()
            {
                Some(Mode::Single)
            } else {
                None
            };
            if let Some(h) = holds.filter(|h| *h != mode) {
                bail!(
                    "{name}: field {}: the datadir holds a {} tree, not {}",
                    String::from_utf8_lossy(meta::MODE),
                    h.name(),
                    mode.name()
                );
            }
            match mode {
                Mode::Single => {
                    let config = budget.map(|b| b.0).unwrap_or_default();
                    let state = TreeState::open(store, config)
                        .with_context(|| format!("{name}: the stored tree does not open"))?;
                    Ok(Box::new(state))
                }
                Mode::Fractional => {
                    drop(store);
                    let mut config = fractional::ShardConfig::default();
                    if let Some((tree, _)) = budget {
                        config.cache_nodes = usize::MAX;
                        config.cache_bytes = tree.cache_bytes;
                    }
                    let state = FracState::open(dir, config, &rocks)
                        .with_context(|| format!("{name}: cannot open the sharded tree"))?;
                    Ok(Box::new(state))
                }
            }
        }
    }
}

/// The meta key the sharded tree writes in its datadir (its shard depth).
const SHARDED_MARKER: &[u8] = b"f/depth";
