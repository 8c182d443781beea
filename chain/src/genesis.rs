//! A state's genesis: written into an empty state from a genesis file, streamed in steps,
//! or checked against the chain, layout and tree kind of a state that has one.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use tracing::info;
use verkle::keys::Layout;

use crate::hexarg::to_hex;
use crate::rules::Chain;
use crate::state::{meta, Mode, State};

/// The genesis a state starts from.
pub struct GenesisSpec {
    /// The genesis file.
    pub path: PathBuf,
    /// Its account layout.
    pub layout: Layout,
    /// The chain's rules.
    pub chain: Chain,
    /// The tree kind.
    pub mode: Mode,
}

/// The name of an account layout in a datadir's meta (and on the command line).
pub fn layout_name(layout: Layout) -> &'static str {
    match layout {
        Layout::Legacy => "legacy",
        Layout::Eip6800 => "eip6800",
    }
}

/// What a datadir is for (chain rule, layout, tree mode): the meta every write of it
/// carries, from the first write of the genesis on.
pub fn identity_meta(spec: &GenesisSpec) -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (meta::CHAIN.to_vec(), spec.chain.name().as_bytes().to_vec()),
        (
            meta::LAYOUT.to_vec(),
            layout_name(spec.layout).as_bytes().to_vec(),
        ),
        (meta::MODE.to_vec(), spec.mode.name().as_bytes().to_vec()),
    ]
}

/// The meta a replay writes with every block: [`identity_meta`] and the genesis root.
pub fn block_meta(spec: &GenesisSpec, genesis_root: &[u8; 32]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut m = identity_meta(spec);
    m.push((meta::GENESIS_ROOT.to_vec(), genesis_root.to_vec()));
    m
}

fn meta_refs(meta: &[(Vec<u8>, Vec<u8>)]) -> Vec<(&[u8], &[u8])> {
    meta.iter()
        .map(|(k, v)| (k.as_slice(), v.as_slice()))
        .collect()
}

/// What [`init_genesis`] found or did.
pub struct GenesisOutcome {
    /// The genesis root (written now, or stored earlier).
    pub root: [u8; 32],
    /// Leaves imported (0 when the state already had its genesis).
    pub leaves: usize,
    /// Whether the genesis was written by this call.
    pub written: bool,
    /// Milliseconds spent.
    pub ms: f64,
}

fn check_meta(state: &dyn State, where_: &str, key: &[u8], want: &[u8]) -> Result<()> {
    let got = state.meta(key)?;
    let name = String::from_utf8_lossy(key);
    match got {
        Some(g) if g == want => Ok(()),
        Some(g) => bail!(
            "{where_}: field {name}: the datadir was made for {}, not {}",
            String::from_utf8_lossy(&g),
            String::from_utf8_lossy(want)
        ),
        None => bail!("{where_}: field {name}: missing from the datadir's meta"),
    }
}

/// Genesis leaves applied before each write of the state so far.
const GENESIS_CHUNK: usize = 250_000;

/// Genesis accounts read and turned into leaves per step (≈ 2–4 leaves each).
const GENESIS_BATCH_ACCOUNTS: usize = 50_000;

/// Writes the genesis into an empty state (height 0), or checks that a state that already
/// has one was made for the same chain, layout and tree kind.
pub fn init_genesis(
    state: &mut dyn State,
    spec: &GenesisSpec,
    where_: &str,
) -> Result<GenesisOutcome> {
    init_genesis_in_steps(state, spec, where_, GENESIS_BATCH_ACCOUNTS, GENESIS_CHUNK)
}

/// [`init_genesis`] reading `batch_accounts` accounts per step and writing the state after
/// every `chunk` leaves or more.
///
/// Every write of the import carries the datadir's [`identity_meta`] (chain rule, layout,
/// tree mode), atomically with its nodes: whenever the import stops, no state of the
/// datadir on disk has nodes without the mode they were written in, and a reopen in
/// another mode, layout or chain rule is refused like that of a finished datadir. The
/// genesis root is known only after the last leaf and goes in the last write alone: until
/// then its absence marks the import unfinished, and a reopen refuses the datadir (delete
/// it and run again) rather than finishing the import, since nothing on disk shows that
/// the leaves already written came from the genesis file the second run is given.
pub(crate) fn init_genesis_in_steps(
    state: &mut dyn State,
    spec: &GenesisSpec,
    where_: &str,
    batch_accounts: usize,
    chunk: usize,
) -> Result<GenesisOutcome> {
    let t = Instant::now();
    if let Some(h) = state.height() {
        if state.meta(meta::GENESIS_ROOT)?.is_none() {
            bail!(
                "{where_}: field {}: missing — the datadir holds an interrupted genesis import; \
                 delete it and run again",
                String::from_utf8_lossy(meta::GENESIS_ROOT)
            );
        }
        check_meta(state, where_, meta::CHAIN, spec.chain.name().as_bytes())?;
        check_meta(
            state,
            where_,
            meta::LAYOUT,
            layout_name(spec.layout).as_bytes(),
        )?;
        check_meta(state, where_, meta::MODE, spec.mode.name().as_bytes())?;
        let stored = state
            .meta(meta::GENESIS_ROOT)?
            .and_then(|v| <[u8; 32]>::try_from(v.as_slice()).ok());
        let Some(root) = stored else {
            bail!("{where_}: field genesis root: missing or not 32 bytes in the datadir's meta");
        };
        info!(
            "{where_}: resuming at block {h} (genesis root {})",
            to_hex(&root)
        );
        return Ok(GenesisOutcome {
            root,
            leaves: 0,
            written: false,
            ms: t.elapsed().as_secs_f64() * 1e3,
        });
    }
    let name = spec.path.display().to_string();
    // Plain, gzip or zstd.
    let file = crate::input::open(&spec.path)?;
    let layout = spec.layout;
    // Read as a stream, in file order, a batch of accounts at a time; each batch's leaves
    // are applied and written out (with the identity meta, without the genesis root, so
    // an interrupted import is recognised) before the next batch is read: the file is
    // never held whole, and the tree's node cache bounds the rest, as it does for blocks.
    // Batches are not in key order (that would need every leaf at once); the tree sorts
    // each one.
    let identity = identity_meta(spec);
    let identity_refs = meta_refs(&identity);
    let mut count = 0usize;
    let mut since_persist = 0usize;
    let mut persisted = false;
    let streamed = genesis::stream_genesis_leaves(
        file,
        layout,
        &name,
        batch_accounts,
        |leaves: Vec<(verkle::keys::TreeKey, verkle::keys::Value)>| -> Result<()> {
            let writes: Vec<_> = leaves.into_iter().map(|(k, v)| (k, Some(v))).collect();
            count += writes.len();
            since_persist += writes.len();
            state
                .apply(&writes)
                .with_context(|| format!("{name}: building the genesis tree"))?;
            drop(writes);
            if since_persist >= chunk {
                since_persist = 0;
                persisted = true;
                state
                    .persist(0, &identity_refs)
                    .with_context(|| format!("{where_}: writing the genesis state"))?;
                info!("{name}: genesis {count} leaves so far");
            }
            Ok(())
        },
    );
    if let Err(e) = streamed {
        if persisted {
            return Err(e.context(format!(
                "{where_}: the genesis import stopped part-way; delete the datadir and run again"
            )));
        }
        return Err(e);
    }
    let root = state.root();
    let meta = block_meta(spec, &root);
    state
        .persist(0, &meta_refs(&meta))
        .with_context(|| format!("{where_}: writing the genesis state"))?;
    info!(
        "{name}: genesis of {count} leaves, root {} ({:.0} ms)",
        to_hex(&root),
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(GenesisOutcome {
        root,
        leaves: count,
        written: true,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

#[cfg(all(test, feature = "rocksdb"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::datadir::open_state;
    use crate::state::MemoryState;
    use std::path::Path;
    use verkle::store::RocksStore;

    fn spec(path: PathBuf) -> GenesisSpec {
        GenesisSpec {
            path,
            layout: Layout::Eip6800,
            chain: Chain::None,
            mode: Mode::Single,
        }
    }

    #[test]
    fn an_interrupted_genesis_import_is_named() {
        // A state written part-way (height 0 without the genesis meta).
        let mut state = MemoryState::new();
        state.persist(0, &[]).unwrap();
        let err = init_genesis(&mut state, &spec(PathBuf::from("unused.json")), "dd")
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("interrupted genesis import"),
            "{err}"
        );
    }

    /// A genesis of `accounts` plain accounts, written to `dir/genesis.json`.
    fn write_genesis(dir: &Path, accounts: u64, bad_at: Option<u64>) -> (PathBuf, String) {
        let mut alloc = serde_json::Map::new();
        for i in 0..accounts {
            let mut a = [0u8; 20];
            a[12..].copy_from_slice(&i.to_be_bytes());
            let balance = if Some(i) == bad_at {
                "0xnope".to_owned()
            } else {
                format!("0x{:x}", i + 1)
            };
            alloc.insert(hex::encode(a), serde_json::json!({ "balance": balance }));
        }
        let text = serde_json::json!({ "alloc": alloc }).to_string();
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join("genesis.json");
        std::fs::write(&path, &text).unwrap();
        (path, text)
    }

    #[test]
    fn a_streamed_genesis_in_small_steps_gives_the_one_shot_root() {
        let dir =
            std::env::temp_dir().join(format!("fverkle-steps-genesis-{}", std::process::id()));
        let (path, text) = write_genesis(&dir, 3000, None);
        let leaves = genesis::genesis_leaves(&text, Layout::Eip6800, "g").unwrap();
        let mut one_shot = verkle::Tree::new();
        one_shot
            .apply(leaves.iter().map(|(k, v)| (*k, Some(*v))))
            .unwrap();
        let want = one_shot.root_bytes();
        for (mode, batch, chunk) in [
            (Mode::Single, 7, 500),
            (Mode::Single, 1000, 1),
            (Mode::Fractional, 250, 1200),
        ] {
            let dd = dir.join(format!("dd-{}-{batch}", mode.name()));
            let mut state = open_state(Some(&dd), mode).unwrap();
            let mut sp = spec(path.clone());
            sp.mode = mode;
            let out = init_genesis_in_steps(state.as_mut(), &sp, "dd", batch, chunk).unwrap();
            assert_eq!(out.root, want, "{} {batch} {chunk}", mode.name());
            assert_eq!(out.leaves, leaves.len());
            drop(state);
            // Reopened, the datadir has its genesis and is not imported again.
            let mut state = open_state(Some(&dd), mode).unwrap();
            let again = init_genesis(state.as_mut(), &sp, "dd").unwrap();
            assert!(!again.written);
            assert_eq!(again.root, want);
        }
        // In memory, too.
        let mut state = MemoryState::new();
        let out = init_genesis_in_steps(&mut state, &spec(path), "memory", 11, 100).unwrap();
        assert_eq!(out.root, want);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_genesis_failing_part_way_leaves_a_datadir_named_interrupted() {
        let dir = std::env::temp_dir().join(format!("fverkle-bad-genesis-{}", std::process::id()));
        let (path, _) = write_genesis(&dir, 2000, Some(1500));
        let dd = dir.join("dd");
        let mut state = open_state(Some(&dd), Mode::Single).unwrap();
        let err = init_genesis_in_steps(state.as_mut(), &spec(path.clone()), "dd", 100, 200)
            .err()
            .unwrap();
        let text = format!("{err:#}");
        assert!(text.contains("stopped part-way"), "{text}");
        assert!(text.contains("balance"), "{text}");
        let imported = err.downcast_ref::<genesis::ImportError>();
        assert!(
            matches!(imported, Some(genesis::ImportError::Account { field, .. }) if field == "balance"),
            "{err:?}"
        );
        drop(state);
        let mut state = open_state(Some(&dd), Mode::Single).unwrap();
        let err = init_genesis(state.as_mut(), &spec(path), "dd")
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("interrupted genesis import"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A state in memory that keeps the meta of every [`State::persist`], in order.
    #[derive(Default)]
    struct Recorder {
        inner: MemoryState,
        persists: Vec<Vec<(Vec<u8>, Vec<u8>)>>,
    }

    impl State for Recorder {
        fn get(&mut self, key: &verkle::keys::TreeKey) -> Result<Option<verkle::keys::Value>> {
            self.inner.get(key)
        }
        fn apply(
            &mut self,
            writes: &[(verkle::keys::TreeKey, Option<verkle::keys::Value>)],
        ) -> Result<()> {
            self.inner.apply(writes)
        }
        fn root(&mut self) -> [u8; 32] {
            self.inner.root()
        }
        fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()> {
            self.persists
                .push(meta.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect());
            self.inner.persist(height, meta)
        }
        fn height(&self) -> Option<u64> {
            self.inner.height()
        }
        fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
            self.inner.meta(key)
        }
        fn prove(
            &mut self,
            keys: &[(verkle::keys::TreeKey, Option<verkle::keys::Value>)],
        ) -> Result<witness::OwnedExecutionWitness> {
            self.inner.prove(keys)
        }
    }

    fn value_of<'m>(meta: &'m [(Vec<u8>, Vec<u8>)], key: &[u8]) -> Option<&'m [u8]> {
        meta.iter()
            .find(|(k, _)| k.as_slice() == key)
            .map(|(_, v)| v.as_slice())
    }

    #[test]
    fn every_genesis_write_carries_the_mode_and_only_the_last_the_root() {
        let dir = std::env::temp_dir().join(format!("fverkle-meta-genesis-{}", std::process::id()));
        let (path, _) = write_genesis(&dir, 600, None);
        for mode in [Mode::Single, Mode::Fractional] {
            let mut state = Recorder::default();
            let mut sp = spec(path.clone());
            sp.mode = mode;
            sp.chain = Chain::Kaustinen6;
            sp.layout = Layout::Legacy;
            let out = init_genesis_in_steps(&mut state, &sp, "dd", 50, 100).unwrap();
            let writes = &state.persists;
            assert!(writes.len() >= 3, "{} writes", writes.len());
            for (i, m) in writes.iter().enumerate() {
                assert_eq!(
                    value_of(m, meta::MODE),
                    Some(mode.name().as_bytes()),
                    "write {i}"
                );
                assert_eq!(value_of(m, meta::LAYOUT), Some(&b"legacy"[..]), "write {i}");
                assert_eq!(
                    value_of(m, meta::CHAIN),
                    Some(&b"kaustinen6"[..]),
                    "write {i}"
                );
                let root = value_of(m, meta::GENESIS_ROOT);
                if i + 1 < writes.len() {
                    assert_eq!(root, None, "write {i} of {}", writes.len());
                } else {
                    assert_eq!(root, Some(&out.root[..]));
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_single_genesis_stopped_part_way_is_refused_in_the_other_mode() {
        let dir = std::env::temp_dir().join(format!("fverkle-mode-genesis-{}", std::process::id()));
        let (path, _) = write_genesis(&dir, 2000, Some(1500));
        let dd = dir.join("dd");
        let mut state = open_state(Some(&dd), Mode::Single).unwrap();
        let err = init_genesis_in_steps(state.as_mut(), &spec(path), "dd", 100, 200)
            .err()
            .unwrap();
        assert!(format!("{err:#}").contains("stopped part-way"), "{err:#}");
        drop(state);
        // On disk: nodes, height 0 and the mode, no genesis root.
        let store = RocksStore::open(&dd).unwrap();
        assert_eq!(
            store.get_meta(meta::MODE).unwrap(),
            Some(b"single".to_vec())
        );
        assert_eq!(store.get_meta(meta::GENESIS_ROOT).unwrap(), None);
        drop(store);
        let err = open_state(Some(&dd), Mode::Fractional).err().unwrap();
        let text = err.to_string();
        assert!(
            text.contains("fverkle/mode") && text.contains("single tree, not fractional"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_datadir_with_a_height_and_no_mode_holds_a_single_tree() {
        // What a genesis import stopped part-way leaves when its writes carry no meta.
        let dir = std::env::temp_dir().join(format!("fverkle-no-mode-{}", std::process::id()));
        let dd = dir.join("dd");
        let mut state = open_state(Some(&dd), Mode::Single).unwrap();
        state.apply(&[([7u8; 32], Some([1u8; 32]))]).unwrap();
        state.persist(0, &[]).unwrap();
        drop(state);
        let err = open_state(Some(&dd), Mode::Fractional).err().unwrap();
        let text = err.to_string();
        assert!(
            text.contains("fverkle/mode") && text.contains("single tree"),
            "{text}"
        );
        // As a single tree it opens, and the genesis import is named interrupted.
        let mut state = open_state(Some(&dd), Mode::Single).unwrap();
        let err = init_genesis(state.as_mut(), &spec(dir.join("unused.json")), "dd")
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("interrupted genesis import"),
            "{err}"
        );
        drop(state);
        // An empty datadir opens in either mode.
        let empty = dir.join("empty");
        drop(open_state(Some(&empty), Mode::Single).unwrap());
        drop(open_state(Some(&empty), Mode::Fractional).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_chunked_genesis_gives_the_one_shot_root() {
        // More leaves than one chunk, so the import persists in steps.
        let accounts = GENESIS_CHUNK / 2 + 1000;
        let mut alloc = serde_json::Map::new();
        for i in 0..accounts as u64 {
            let mut a = [0u8; 20];
            a[12..].copy_from_slice(&i.to_be_bytes());
            alloc.insert(
                hex::encode(a),
                serde_json::json!({"balance": format!("0x{:x}", i + 1)}),
            );
        }
        let text = serde_json::json!({ "alloc": alloc }).to_string();
        let dir =
            std::env::temp_dir().join(format!("fverkle-chunked-genesis-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("genesis.json");
        std::fs::write(&path, &text).unwrap();
        let leaves = genesis::genesis_leaves(&text, Layout::Eip6800, "g").unwrap();
        assert!(leaves.len() > GENESIS_CHUNK, "{} leaves", leaves.len());
        let mut one_shot = verkle::Tree::new();
        one_shot
            .apply(leaves.iter().map(|(k, v)| (*k, Some(*v))))
            .unwrap();
        let mut state = open_state(Some(&dir.join("dd")), Mode::Single).unwrap();
        let out = init_genesis(state.as_mut(), &spec(path), "dd").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(out.root, one_shot.root_bytes());
        assert_eq!(out.leaves, leaves.len());
    }
}
