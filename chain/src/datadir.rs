//! Opening the state a command works on: in memory, or a RocksDB datadir holding a single
//! or a sharded tree (refused in the other kind).

use std::path::Path;

use verkle::store::{RocksConfig, RocksError, RocksStore};

use crate::state::{meta, FracState, Mode, State, TreeState};

/// Why a datadir does not open. Each variant names the datadir.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DatadirError {
    /// The directory cannot be created.
    #[error("{dir}: cannot create")]
    Create {
        /// The datadir.
        dir: String,
        /// The file system's error.
        source: std::io::Error,
    },
    /// The database in it does not open.
    #[error("{dir}: cannot open")]
    Open {
        /// The datadir.
        dir: String,
        /// The store's error.
        source: RocksError,
    },
    /// Its meta cannot be read.
    #[error(transparent)]
    Meta(#[from] RocksError),
    /// It holds the other kind of tree.
    #[error("{dir}: field {field}: the datadir holds a {} tree, not {}", holds.name(), wanted.name())]
    WrongMode {
        /// The datadir.
        dir: String,
        /// The meta field that says which tree a datadir holds.
        field: String,
        /// The tree it holds.
        holds: Mode,
        /// The tree asked for.
        wanted: Mode,
    },
    /// The single tree stored in it does not open.
    #[error("{dir}: the stored tree does not open")]
    Tree {
        /// The datadir.
        dir: String,
        /// The tree's error.
        source: verkle::TreeError,
    },
    /// It holds a binary tree (`replay --tree eip7864|eip8297 --datadir`), not a Verkle state.
    #[error("{dir}: the datadir holds a binary tree (column families {families:?}), not a Verkle state; give its --tree")]
    HoldsBinary {
        /// The datadir.
        dir: String,
        /// Its column families.
        families: Vec<String>,
    },
    /// The sharded tree stored in it does not open.
    #[error("{dir}: cannot open the sharded tree")]
    Sharded {
        /// The datadir.
        dir: String,
        /// The sharded tree's error.
        source: fractional::FractionalError,
    },
}

/// Opens the state: in memory without a datadir, else the datadir (created when missing).
pub fn open_state(datadir: Option<&Path>, mode: Mode) -> Result<Box<dyn State>, DatadirError> {
    open_state_with(datadir, mode, None)
}

/// [`open_state`] with the datadir's caches within `cache_mb` MiB, split by
/// [`RocksConfig::split_budget`] (`None`: the default budgets of `verkle::TreeConfig`,
/// `fractional::ShardConfig` and `RocksConfig`). A state in memory is never evicted.
pub fn open_state_with(
    datadir: Option<&Path>,
    mode: Mode,
    cache_mb: Option<usize>,
) -> Result<Box<dyn State>, DatadirError> {
    let budget = cache_mb.map(|mb| RocksConfig::split_budget(mb.saturating_mul(1 << 20)));
    match (datadir, mode) {
        (None, mode) => Ok(crate::state::in_memory(mode)),
        (Some(dir), mode) => {
            let name = || dir.display().to_string();
            std::fs::create_dir_all(dir).map_err(|source| DatadirError::Create {
                dir: name(),
                source,
            })?;
            // A binary datadir keeps its records in column families of its own: named here,
            // rather than failing to open as a Verkle store.
            if let Ok(families) = rocksdb::DB::list_cf(&rocksdb::Options::default(), dir) {
                use crate::binary::{CF_META, CF_NODES};
                if families.iter().any(|f| f == CF_NODES || f == CF_META) {
                    return Err(DatadirError::HoldsBinary {
                        dir: name(),
                        families,
                    });
                }
            }
            let rocks = budget.as_ref().map(|b| b.1.clone()).unwrap_or_default();
            let store =
                RocksStore::open_with(dir, &rocks).map_err(|source| DatadirError::Open {
                    dir: name(),
                    source,
                })?;
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
            if let Some(holds) = holds.filter(|h| *h != mode) {
                return Err(DatadirError::WrongMode {
                    dir: name(),
                    field: String::from_utf8_lossy(meta::MODE).into_owned(),
                    holds,
                    wanted: mode,
                });
            }
            match mode {
                Mode::Single => {
                    let config = budget.map(|b| b.0).unwrap_or_default();
                    let state =
                        TreeState::open(store, config).map_err(|source| DatadirError::Tree {
                            dir: name(),
                            source,
                        })?;
                    Ok(Box::new(state))
                }
                Mode::Fractional => {
                    drop(store);
                    let mut config = fractional::ShardConfig::default();
                    if let Some((tree, _)) = budget {
                        config.cache_nodes = usize::MAX;
                        config.cache_bytes = tree.cache_bytes;
                    }
                    let state = FracState::open(dir, config, &rocks).map_err(|source| {
                        DatadirError::Sharded {
                            dir: name(),
                            source,
                        }
                    })?;
                    Ok(Box::new(state))
                }
            }
        }
    }
}

/// The meta key the sharded tree writes in its datadir (its shard depth).
const SHARDED_MARKER: &[u8] = b"f/depth";
