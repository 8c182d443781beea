//! Account-level state diffs of a real chain (`fverkle replay --diffs FILE --genesis G
//! --layout L`: (geth's `prestateTracer` in diff mode, [`reader`]) turned into EIP-6800 tree writes
//! ([`writes`]), applied block by block onto the genesis state, with one report per block
//! ([`report`]): what changed, what it cost to write and commit, the Verkle root and, with
//! `--witness-sizes`, the size of the witness a Verkle block would carry for those keys.
//!
//! The blocks must follow the state's height without a gap (the first one is block 1 on a
//! fresh state); blocks at or below the height (a resumed datadir) are skipped. The block's
//! MPT state root is reported, never compared: no root of the diffs' chain is a Verkle root.

pub mod reader;
pub mod report;
pub mod trace;
pub mod writes;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use verkle::keys::{stem, TreeKey, Value};

use crate::genesis::{block_meta, GenesisSpec};
use crate::rules::Chain;
use crate::state::{meta, State};

use reader::{DiffBlock, DiffReader};
use report::{DiffReport, DiffTotals};
use writes::Converter;

/// Replays one block: converts, optionally proves, applies, commits, persists.
fn block(
    state: &mut dyn State,
    converter: &mut Converter,
    b: &DiffBlock,
    witness_sizes: bool,
    meta: &[(Vec<u8>, Vec<u8>)],
) -> Result<DiffReport> {
    let t = Instant::now();
    let w = converter.convert(b, state)?;
    let convert_us = t.elapsed().as_micros() as u64;
    let writes: Vec<(TreeKey, Option<Value>)> =
        w.writes.iter().map(|(k, v)| (*k, Some(*v))).collect();
    let stems = w.writes.keys().map(stem).collect::<BTreeSet<_>>().len();
    let (witness_bytes, prove_us) = if witness_sizes {
        let t = Instant::now();
        let owned = state
            .prove(&writes)
            .with_context(|| format!("{}: proving block {}", b.origin, b.number))?;
        let bytes = owned
            .to_ssz()
            .with_context(|| format!("{}: encoding the witness of block {}", b.origin, b.number))?
            .len();
        (Some(bytes), t.elapsed().as_micros() as u64)
    } else {
        (None, 0)
    };
    let t = Instant::now();
    state.apply(&writes)?;
    let mut apply_us = t.elapsed().as_micros() as u64;
    let in_apply = state.commit_in_apply_us().map_or(0, |us| us.min(apply_us));
    apply_us -= in_apply;
    let t = Instant::now();
    let root = state.root();
    let commit_us = in_apply + t.elapsed().as_micros() as u64;
    let t = Instant::now();
    let root_key = meta::root_key(b.number);
    let mut m: Vec<(&[u8], &[u8])> = meta
        .iter()
        .map(|(k, v)| (k.as_slice(), v.as_slice()))
        .collect();
    m.push((&root_key, &root));
    state
        .persist(b.number, &m)
        .with_context(|| format!("{}: writing block {}", b.origin, b.number))?;
    let write_us = t.elapsed().as_micros() as u64;
    Ok(DiffReport {
        origin: b.origin.clone(),
        number: b.number,
        mpt_state_root: b.state_root,
        txs: b.txs.len(),
        accounts: w.accounts,
        created: w.created,
        deleted: w.deleted,
        slots: w.slots,
        code_bytes: w.code_bytes,
        keys_written: writes.len(),
        stems,
        witness_bytes,
        read_us: 0,
        convert_us,
        prove_us,
        apply_us,
        commit_us,
        write_us,
        root,
    })
}

/// Refuses a genesis spec with chain rules: they amend witnesses' writes, and diffs are
/// replayed as they are.
pub fn check_spec(spec: &GenesisSpec) -> Result<()> {
    if spec.chain != Chain::None {
        bail!(
            "--chain {}: chain rules amend witnesses' writes; diffs are replayed as they are",
            spec.chain.name()
        );
    }
    Ok(())
}

/// Replays the diff files `files` onto `state`, which has the genesis of `spec` (root
/// `genesis_root`), block by block: each block's changes become tree writes, applied,
/// committed and persisted (with, when `witness_sizes`, a witness proving its written keys
/// against the state before it). `on_report` gets each block's report; the totals come back
/// with the state's final height and root.
pub fn replay(
    state: &mut dyn State,
    spec: &GenesisSpec,
    genesis_root: &[u8; 32],
    files: &[PathBuf],
    witness_sizes: bool,
    on_report: &mut dyn FnMut(&DiffReport) -> std::io::Result<()>,
) -> Result<DiffTotals> {
    check_spec(spec)?;
    let meta = block_meta(spec, genesis_root);
    let mut converter = Converter::new(spec.layout);
    let mut totals = DiffTotals::default();
    let mut reader = DiffReader::new(files);
    loop {
        let t = Instant::now();
        let Some(b) = reader.next() else { break };
        let read_us = t.elapsed().as_micros() as u64;
        let b = b?;
        let height = state.height().unwrap_or(0);
        if b.number <= height {
            totals.skipped += 1;
            continue;
        }
        if b.number != height + 1 {
            bail!(
                "{}: field number: block {} does not follow the state's height {height} (blocks must come in order, without gaps)",
                b.origin,
                b.number
            );
        }
        let mut r = block(state, &mut converter, &b, witness_sizes, &meta)?;
        r.read_us = read_us;
        totals.add(&r);
        on_report(&r)?;
    }
    totals.height = state.height();
    totals.root = Some(state.root());
    Ok(totals)
}
