//! `fverkle replay --diffs FILE --genesis G --layout L`: account-level state diffs of a real
//! chain (geth's `prestateTracer` in diff mode, [`reader`]) turned into EIP-6800 tree writes
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
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use verkle::keys::{stem, Layout, TreeKey, Value};

use crate::datadir::{block_meta, init_genesis, GenesisSpec};
use crate::hexarg::to_hex;
use crate::outcome::Outcome;
use crate::progress::Progress;
use crate::state::{meta, State};

use reader::{DiffBlock, DiffReader};
use report::{DiffReport, DiffTotals};
use writes::Converter;

/// What a diff replay reads and how it reports.
pub struct DiffRun<'a> {
    /// The diff files, in order.
    pub files: &'a [PathBuf],
    /// The genesis the state starts from.
    pub spec: &'a GenesisSpec,
    /// Where the state lives (for messages).
    pub where_: &'a str,
    /// Prove each block's keys against the pre-state and report the witness size.
    pub witness_sizes: bool,
    /// JSON Lines output.
    pub json: bool,
}

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

/// Runs a diff replay onto `state`, printing a report per block and a summary to `out`.
pub fn run(state: &mut dyn State, run: &DiffRun<'_>, out: &mut dyn Write) -> Result<Outcome> {
    if run.spec.chain != crate::rules::Chain::None {
        bail!(
            "--chain {}: chain rules amend witnesses' writes; diffs are replayed as they are",
            run.spec.chain.name()
        );
    }
    let genesis = init_genesis(state, run.spec, run.where_)?;
    let start = Instant::now();
    if run.json && genesis.written {
        let line = serde_json::json!({
            "genesis": run.spec.path.display().to_string(),
            "leaves": genesis.leaves,
            "root": to_hex(&genesis.root),
            "ms": genesis.ms,
        });
        writeln!(out, "{line}")?;
    }
    let meta = block_meta(run.spec, &genesis.root);
    let layout: Layout = run.spec.layout.into();
    let mut converter = Converter::new(layout);
    let mut totals = DiffTotals::default();
    let mut progress = Progress::new("replay --diffs", None);
    let mut reader = DiffReader::new(run.files);
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
        let mut r = block(state, &mut converter, &b, run.witness_sizes, &meta)?;
        r.read_us = read_us;
        totals.add(&r);
        progress.suspend(|| -> std::io::Result<()> {
            if run.json {
                writeln!(out, "{}", r.to_json())
            } else {
                writeln!(out, "{}", r.to_line())
            }
        })?;
        progress.inc(|| format!("block {}", r.number));
    }
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    totals.height = state.height();
    totals.root = Some(state.root());
    if run.json {
        writeln!(out, "{}", totals.to_json(secs))?;
    } else {
        writeln!(out, "{}", totals.to_line(secs))?;
    }
    Ok(Outcome::Ok)
}
