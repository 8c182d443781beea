//! The state a replay writes to: one tree behind a small interface ([`State`]), so the
//! replay loop is the same whatever holds the nodes (memory or a datadir) and however the
//! tree is split ([`Mode`]).

mod interface;
mod memory;
pub mod meta;
#[cfg(feature = "rocksdb")]
mod rocks;
mod sharded;

pub use interface::{Mode, State};
pub use memory::MemoryState;
#[cfg(feature = "rocksdb")]
pub use rocks::TreeState;
pub use sharded::FracState;

/// A fresh, empty state in memory holding the tree kind `mode`.
pub fn in_memory(mode: Mode) -> Box<dyn State> {
    match mode {
        Mode::Single => Box::new(MemoryState::new()),
        Mode::Fractional => Box::new(FracState::in_memory()),
    }
}
