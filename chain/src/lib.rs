//! Replaying a chain into a Verkle state: what the `fverkle` binary runs, as a library for a
//! node or a tool that wants "replay these blocks into this datadir, give me each block's
//! report".
//!
//! The call a user makes first: open a state ([`datadir::open_state`]), give it its genesis
//! ([`genesis::init_genesis`]), then replay block exports with a
//! [`Replayer`](replayer::Replayer), which verifies each block's witness against the
//! state's root, checks its pre-values against the state, applies its writes, compares the
//! root with the block's `stateRoot` and persists it, one [`BlockReport`](replayer::BlockReport)
//! per block:
//!
//! ```
//! # fn main() -> anyhow::Result<()> {
//! use chain::genesis::{init_genesis, GenesisSpec};
//! use chain::replayer::{Ended, Replayer};
//! use chain::rules::Chain;
//! use chain::state::{MemoryState, Mode};
//! use chain::synth::{write_chain, Format, SynthConfig};
//! use verkle::keys::Layout;
//!
//! // A synthetic chain of 3 blocks and its genesis, written to a temporary directory.
//! let dir = tempfile::tempdir()?;
//! let (blocks, genesis) = (dir.path().join("blocks.jsonl"), dir.path().join("genesis.json"));
//! let config = SynthConfig {
//!     accounts: 200,
//!     blocks: 3,
//!     updates: 20,
//!     seed: 1,
//!     layout: Layout::Eip6800,
//!     bind_absences: false,
//! };
//! let generator_state = Box::new(MemoryState::new());
//! write_chain(config, &blocks, &genesis, generator_state, Format::Export, &mut |_| {})?;
//!
//! // Replayed into a datadir: the genesis first, then the blocks, one report each.
//! let datadir = dir.path().join("datadir");
//! let mut state = chain::datadir::open_state(Some(&datadir), Mode::Single)?;
//! let spec = GenesisSpec { path: genesis, layout: Layout::Eip6800, chain: Chain::None, mode: Mode::Single };
//! let start = init_genesis(state.as_mut(), &spec, "datadir")?;
//! let mut replayer = Replayer::after_genesis(state.as_mut(), &spec, &start.root)?;
//! let mut reports = Vec::new();
//! let ended = replayer.replay_export(&[blocks], &mut |report| {
//!     reports.push(report.clone());
//!     Ok(())
//! })?;
//! assert_eq!(ended, Ended::Matched);
//! assert_eq!(reports.iter().map(|r| r.number).collect::<Vec<_>>(), [1, 2, 3]);
//! assert!(reports.iter().all(|r| r.ok && r.keys_written >= 20));
//! println!("{}", reports[2].to_json()); // what `fverkle replay --json` prints per block
//! assert_eq!(replayer.position().0, 3); // the datadir is at block 3
//! # Ok(())
//! # }
//! ```
//!
//! - [`state`]: the [`State`](state::State) a replay writes through (a single tree or the
//!   sharded tree, in memory or in a datadir) and its meta keys; [`datadir`] opens one
//!   (feature `rocksdb`, on by default); [`genesis`] writes or checks its genesis.
//! - [`export`] reads block exports (JSON documents, JSON Lines, JSON-RPC responses, beacon
//!   dumps; plain, gzip or zstd: [`input`]); [`pipeline`] reads and verifies them a batch
//!   ahead on another thread ([`verdict`]).
//! - [`replayer`]: the replay step and its per-block reports; [`rules`] and [`forks`]: the
//!   named state changes a chain made outside its witnesses.
//! - [`import`]: execution-spec-tests fixtures ([`import::eest`]) and account-level state
//!   diffs ([`import::diffs`]).
//! - [`synth`]: a synthetic, mainnet-like chain with witnesses from our prover.
//! - [`binary`]: replaying into a binary state tree (EIP-7864, EIP-8297): the
//!   [`BinaryState`](binary::BinaryState) interface and the tree kinds.
//! - [`rows`]: `key,value` row files and the trees they are written to (Verkle and the binary
//!   trees), with the binary trees' witnesses for a keys file.
//! - `fuzz` (feature `fuzzing`): the body of the `block_export` fuzz target.
#![forbid(unsafe_code)]

pub mod binary;
#[cfg(feature = "rocksdb")]
pub mod datadir;
pub mod export;
pub mod forks;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzz;
pub mod genesis;
pub mod hexarg;
pub mod import;
pub mod input;
pub mod pipeline;
pub mod replayer;
pub mod rows;
pub mod rules;
pub mod state;
pub mod synth;
pub mod verdict;
