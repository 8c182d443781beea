//! The replay step: for each exported block, verify its witness against the current root,
//! check its pre-values against the stored state, apply its writes, commit, compare the
//! root with the block's `stateRoot`, and persist with that root — one report per block.
//! A block the state already holds (resume) is not replayed but checked against the root
//! recorded at its height.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fractional::KeyOp;
use serde_json::json;
use tracing::warn;
use verkle::keys::{Layout, TreeKey, Value};

use crate::export::{ExportReader, ExportedBlock};
use crate::genesis::{block_meta, GenesisSpec};
use crate::hexarg::to_hex;
use crate::pipeline::ReadAhead;
use crate::rules::Chain;
use crate::state::{meta, State};
use crate::verdict::EarlyVerdict;

mod report;

pub use report::{BlockReport, Totals};

/// Replays blocks onto a state.
pub struct Replayer<'a> {
    state: &'a mut dyn State,
    chain: Chain,
    layout: Layout,
    /// Meta written with every block.
    meta: Vec<(Vec<u8>, Vec<u8>)>,
    /// The root at the state's height, i.e. what a datadir holds: after a mismatch the
    /// in-memory tree is ahead of it by the failed block's writes, which are never
    /// persisted.
    persisted_root: [u8; 32],
    /// The root at the state's starting height, to record with the next block when the
    /// datadir lacks it (written before roots were recorded per height).
    backfill: Option<(u64, [u8; 32])>,
    /// Totals so far.
    pub totals: Totals,
    /// Where each block's fractional proof is written (`--proofs`).
    proofs: Option<PathBuf>,
}

/// What [`Replayer::block`] concluded.
pub enum Step {
    /// Applied and matched.
    Applied(BlockReport),
    /// Already in the state (resume); its roots matched the recorded ones, or the state has
    /// none recorded at its height ([`Totals::unchecked`]).
    Skipped,
    /// A verdict: the block does not replay (invalid witness, pre-value or root mismatch),
    /// or, already in the state, its roots are not the ones recorded. Nothing of it was
    /// written.
    Mismatch(BlockReport),
}

/// How [`Replayer::replay_export`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every block replayed (or was already held) and matched.
    Matched,
    /// A block did not replay; its report was the last.
    Mismatch,
}

fn stem_key(stem: &[u8; 31], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = suffix;
    k
}

impl<'a> Replayer<'a> {
    /// A replayer writing `meta` (and the block's root, [`meta::root_key`]) with every
    /// block. The state must be as persisted (freshly opened, or just given its genesis).
    pub fn new(
        state: &'a mut dyn State,
        chain: Chain,
        layout: Layout,
        meta: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<Replayer<'a>> {
        let persisted_root = state.root();
        // A datadir written before roots were recorded per height lacks the one at its own
        // height; it is the current root, so the next block's write records it too.
        let backfill = match state.height() {
            Some(h) if h > 0 && state.meta(&meta::root_key(h))?.is_none() => {
                Some((h, persisted_root))
            }
            _ => None,
        };
        Ok(Replayer {
            state,
            chain,
            layout,
            meta,
            persisted_root,
            backfill,
            totals: Totals::default(),
            proofs: None,
        })
    }

    /// A replayer for a state that has the genesis of `spec` (whose root is
    /// `genesis_root`, as [`crate::genesis::init_genesis`] gives it): every block is written
    /// with the datadir's meta ([`block_meta`]).
    pub fn after_genesis(
        state: &'a mut dyn State,
        spec: &GenesisSpec,
        genesis_root: &[u8; 32],
    ) -> Result<Replayer<'a>> {
        let meta = block_meta(spec, genesis_root);
        Replayer::new(state, spec.chain, spec.layout, meta)
    }

    /// Writes each applied block's fractional proof (`spec/FRACTIONAL.md`: the block's
    /// keys with its writes, against the state before it, both anchors) to
    /// `DIR/block-<number>.frac`, named in the block's report. The state must be sharded.
    pub fn write_proofs(&mut self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the proofs directory", dir.display()))?;
        self.proofs = Some(dir.to_path_buf());
        Ok(())
    }

    /// The fractional proof of the block's keys (every witness key read, `writes` with
    /// their new values), written to the proofs directory.
    fn write_proof(
        &mut self,
        number: u64,
        b: &ExportedBlock,
        writes: &[(TreeKey, Option<Value>)],
    ) -> Result<Option<(PathBuf, usize, u64)>> {
        let Some(dir) = self.proofs.clone() else {
            return Ok(None);
        };
        let t = Instant::now();
        let mut keys: BTreeMap<TreeKey, KeyOp> = BTreeMap::new();
        for s in b.witness.state_diff().iter() {
            for d in s.suffix_diffs.iter() {
                keys.insert(stem_key(s.stem, d.suffix), KeyOp::Read);
            }
        }
        for (k, v) in writes {
            keys.insert(*k, v.map_or(KeyOp::Delete, KeyOp::Set));
        }
        let keys: Vec<(TreeKey, KeyOp)> = keys.into_iter().collect();
        let Some(proof) = self.state.prove_fractional(&keys, true)? else {
            bail!("--proofs needs a sharded state (--mode fractional)");
        };
        let bytes = proof
            .to_bytes()
            .with_context(|| format!("block {number}: encoding the fractional proof"))?;
        let us = t.elapsed().as_micros() as u64;
        let path = dir.join(format!("block-{number}.frac"));
        std::fs::write(&path, &bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(Some((path, bytes.len(), us)))
    }

    /// The state's height and the root it holds there (as persisted).
    pub fn position(&self) -> (u64, [u8; 32]) {
        (self.state.height().unwrap_or(0), self.persisted_root)
    }

    /// The root the state holds at `height`: the genesis root at 0, the root recorded with
    /// the block of that height, or, at the state's own height, its current persisted root.
    /// `None` for a height below the state's whose root a datadir written before roots
    /// were recorded per height does not have.
    fn recorded_root(&self, height: u64) -> Result<Option<[u8; 32]>> {
        let (key, name) = if height == 0 {
            let k = meta::GENESIS_ROOT.to_vec();
            let name = String::from_utf8_lossy(&k).into_owned();
            (k, name)
        } else {
            let name = format!("{}{height}", String::from_utf8_lossy(meta::ROOT_PREFIX));
            (meta::root_key(height), name)
        };
        match self.state.meta(&key)? {
            Some(v) => match <[u8; 32]>::try_from(v.as_slice()) {
                Ok(r) => Ok(Some(r)),
                Err(_) => bail!(
                    "field {name}: {} bytes in the state's meta, not 32",
                    v.len()
                ),
            },
            None if self.state.height() == Some(height) => Ok(Some(self.persisted_root)),
            None => Ok(None),
        }
    }

    /// A block at or below the state's height: not replayed, but its `stateRoot` (and
    /// `parentStateRoot`, when given) must be the roots recorded at its height (and the
    /// one below).
    fn check_held(&mut self, b: &ExportedBlock, height: u64) -> Result<Step> {
        let origin = format!("{}: block {}", b.origin, b.number);
        let held = self
            .recorded_root(b.number)
            .with_context(|| format!("{origin}: the state's root at height {}", b.number))?;
        let parent = match b.number.checked_sub(1) {
            Some(p) => self
                .recorded_root(p)
                .with_context(|| format!("{origin}: the state's root at height {p}"))?,
            None => None,
        };
        let verdict = |error: String| {
            Step::Mismatch(BlockReport {
                pre_root: parent,
                error: Some(error),
                ..BlockReport::of(b)
            })
        };
        let already =
            || format!("the state is at block {height}, so the block is checked, not replayed");
        if let (Some(claimed), Some(p)) = (b.parent_state_root, parent) {
            if claimed != p {
                return Ok(verdict(format!(
                    "{origin}: field parentStateRoot: the block says {}, the state's root at height {} is {} ({})",
                    to_hex(&claimed),
                    b.number - 1,
                    to_hex(&p),
                    already()
                )));
            }
        }
        match held {
            Some(h) if h != b.state_root => {
                return Ok(verdict(format!(
                    "{origin}: field stateRoot: the block says {}, the state's root at height {} is {} ({})",
                    to_hex(&b.state_root),
                    b.number,
                    to_hex(&h),
                    already()
                )));
            }
            Some(_) => {}
            None => self.totals.unchecked += 1,
        }
        self.totals.skipped += 1;
        Ok(Step::Skipped)
    }

    /// Replays one block. Errors (exit 2) are input problems, such as a block out of order;
    /// verdicts come back as [`Step::Mismatch`].
    pub fn block(&mut self, b: &ExportedBlock) -> Result<Step> {
        self.block_verified_ahead(b, None)
    }

    /// [`Replayer::block`], given the verdict of the block's witness against the root the
    /// export claims before it, reached while the block before was applied: used only when
    /// that root is the state's current root, else the witness is verified here.
    pub fn block_verified_ahead(
        &mut self,
        b: &ExportedBlock,
        ahead: Option<&EarlyVerdict>,
    ) -> Result<Step> {
        let height = self.state.height().unwrap_or(0);
        if b.number <= height {
            return self.check_held(b, height);
        }
        if b.number != height + 1 {
            bail!(
                "{}: block {}: blocks must be consecutive; the state is at block {height}, so block {} comes next",
                b.origin,
                b.number,
                height + 1
            );
        }
        let mut r = BlockReport::of(b);
        let origin = format!("{}: block {}", b.origin, b.number);
        let pre_root = self.state.root();
        r.pre_root = Some(pre_root);
        if let Some(parent) = b.parent_state_root {
            if parent != pre_root {
                r.error = Some(format!(
                    "{origin}: field parentStateRoot: {} is not the state's root {}",
                    to_hex(&parent),
                    to_hex(&pre_root)
                ));
                return Ok(Step::Mismatch(r));
            }
        }

        // Verify the witness against the current root, and its pre-values against the state.
        let t = Instant::now();
        let (verdict, ahead_us) = match ahead.filter(|a| a.root == pre_root) {
            Some(a) => (a.result.clone(), a.us),
            None => (EarlyVerdict::verify(&pre_root, &b.witness), 0),
        };
        if let Err(e) = verdict {
            r.verify_us = ahead_us + t.elapsed().as_micros() as u64;
            r.error = Some(format!(
                "{origin}: field executionWitness: does not verify against the pre-state root {}: {e}",
                to_hex(&pre_root)
            ));
            return Ok(Step::Mismatch(r));
        }
        let mut writes: Vec<(TreeKey, Option<Value>)> = Vec::new();
        for s in b.witness.state_diff().iter() {
            for d in s.suffix_diffs.iter() {
                let key = stem_key(s.stem, d.suffix);
                let stored = self.state.get(&key)?;
                let claimed = d.current_value.copied();
                if stored != claimed {
                    r.verify_us = ahead_us + t.elapsed().as_micros() as u64;
                    let show = |v: Option<Value>| v.map(|v| to_hex(&v)).unwrap_or("absent".into());
                    r.error = Some(format!(
                        "{origin}: field executionWitness.stateDiff: currentValue of key {} is {}, the state holds {}",
                        to_hex(&key),
                        show(claimed),
                        show(stored)
                    ));
                    return Ok(Step::Mismatch(r));
                }
                if let Some(v) = d.new_value {
                    writes.push((key, Some(*v)));
                }
            }
        }
        r.verify_us = ahead_us + t.elapsed().as_micros() as u64;

        // Chain rules come first; the witness's own writes win on a shared key.
        if let Some((name, mut extra)) = self.chain.extra_writes(b.number, self.layout)? {
            r.rule = Some(name);
            extra.append(&mut writes);
            writes = extra;
        }
        r.keys_written = writes.len();
        r.shards_touched = writes
            .iter()
            .map(|(k, _)| k[0])
            .collect::<BTreeSet<u8>>()
            .len();

        if writes.iter().any(|(_, v)| v.is_none()) && self.proofs.is_some() {
            bail!("{origin}: a chain rule deletes keys, which a fractional proof cannot carry");
        }
        r.proof = self.write_proof(b.number, b, &writes)?;
        let t = Instant::now();
        self.state.apply(&writes)?;
        r.apply_us = t.elapsed().as_micros() as u64;
        // A sharded (fractional) state commits inside `apply`: move the part it measured as
        // its commit (the wall time of its parallel commit phase and of both roots) from
        // apply to commit, so the commit is not reported as 0.
        let committed_in_apply = self
            .state
            .commit_in_apply_us()
            .map_or(0, |us| us.min(r.apply_us));
        r.apply_us -= committed_in_apply;
        let t = Instant::now();
        let post = self.state.root();
        r.coordinator_root = self.state.coordinator_root();
        r.commit_us = committed_in_apply + t.elapsed().as_micros() as u64;
        r.post_root = Some(post);
        if post != b.state_root {
            r.error = Some(format!(
                "{origin}: field stateRoot: the root after the block is {}, the block says {}",
                to_hex(&post),
                to_hex(&b.state_root)
            ));
            return Ok(Step::Mismatch(r));
        }
        let t = Instant::now();
        let root_key = meta::root_key(b.number);
        let mut meta: Vec<(&[u8], &[u8])> = self
            .meta
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
            .collect();
        meta.push((&root_key, &post));
        let backfill = self.backfill.map(|(h, root)| (meta::root_key(h), root));
        if let Some((k, root)) = &backfill {
            meta.push((k, root));
        }
        self.state.persist(b.number, &meta)?;
        self.persisted_root = post;
        self.backfill = None;
        r.write_us = t.elapsed().as_micros() as u64;
        r.ok = true;
        self.totals.add(&r);
        Ok(Step::Applied(r))
    }

    /// Replays the blocks of the export files `blocks` (read, decoded and verified one batch
    /// ahead on another thread, [`ReadAhead`]) until the end, a mismatch or an error, then
    /// [`Replayer::finish`]es. `on_report` gets each applied block's report once the block
    /// is in the store (a datadir writes a block while the next one is applied), in order,
    /// and the report of a mismatch, which ends the run; an error of `on_report` ends it
    /// too.
    pub fn replay_export(
        &mut self,
        blocks: &[PathBuf],
        on_report: &mut dyn FnMut(&BlockReport) -> std::io::Result<()>,
    ) -> Result<Ended> {
        // A report is held until the next block has persisted, the run has ended, or a
        // mismatch or an error stops it.
        let mut held: Option<BlockReport> = None;
        let (height, root) = self.position();
        for prepared in ReadAhead::spawn(ExportReader::new(blocks), height, root)? {
            let step = prepared
                .and_then(|(block, ahead)| self.block_verified_ahead(&block, ahead.as_ref()));
            match step {
                Ok(Step::Skipped) => {}
                Ok(Step::Applied(r)) => {
                    if let Some(prev) = held.replace(r) {
                        on_report(&prev)?;
                    }
                }
                Ok(Step::Mismatch(r)) => {
                    self.sync()?;
                    if let Some(prev) = held.take() {
                        on_report(&prev)?;
                    }
                    on_report(&r)?;
                    self.finish()?;
                    return Ok(Ended::Mismatch);
                }
                Err(e) => {
                    if let Some(prev) = held.take() {
                        if self.sync().is_ok() {
                            on_report(&prev)?;
                        }
                    }
                    return Err(e);
                }
            }
        }
        self.finish()?;
        if let Some(prev) = held.take() {
            on_report(&prev)?;
        }
        Ok(Ended::Matched)
    }

    /// Waits until every block applied so far is in the store.
    pub fn sync(&mut self) -> Result<()> {
        self.state.sync()
    }

    /// Records the state's final height and the root at that height in the totals (also
    /// when nothing was replayed): the persisted root, also after a block that failed.
    pub fn finish(&mut self) -> Result<()> {
        // Every block written is in the store before the totals report it.
        self.state.sync()?;
        self.totals.root = Some(self.persisted_root);
        self.totals.height = self.state.height();
        if self.totals.unchecked > 0 {
            warn!(
                "{} of the {} blocks skipped were not checked: the datadir records no root at their heights (it was written before roots were recorded per height)",
                self.totals.unchecked, self.totals.skipped
            );
        }
        Ok(())
    }

    /// The summary object.
    pub fn summary_json(&self, seconds: f64) -> serde_json::Value {
        let t = &self.totals;
        json!({
            "summary": true,
            "blocks": t.blocks,
            "skipped": t.skipped,
            "unchecked": t.unchecked,
            "height": t.height,
            "root": t.root.map(|r| to_hex(&r)),
            "keys_read": t.keys_read,
            "keys_written": t.keys_written,
            "witness_bytes": t.witness_bytes,
            "decode_us": t.phase_us[0],
            "verify_us": t.phase_us[1],
            "apply_us": t.phase_us[2],
            "commit_us": t.phase_us[3],
            "write_us": t.phase_us[4],
            "seconds": seconds,
            "blocks_per_s": t.blocks as f64 / seconds.max(1e-9),
            "updates_per_s": t.keys_written as f64 / seconds.max(1e-9),
        })
    }

    /// The summary as one human-readable line.
    pub fn summary_line(&self, seconds: f64) -> String {
        let t = &self.totals;
        let ms = |us: u64| us as f64 / 1e3;
        format!(
            "replayed {} blocks ({} skipped{}) to height {} root {} in {seconds:.2} s: {:.1} blocks/s, {:.0} updates/s; decode {:.0} ms, verify {:.0} ms, apply {:.0} ms, commit {:.0} ms, write {:.0} ms",
            t.blocks,
            t.skipped,
            if t.unchecked > 0 {
                format!(", {} of them unchecked: no root recorded at their height", t.unchecked)
            } else {
                String::new()
            },
            t.height.map(|h| h.to_string()).unwrap_or_else(|| "-".into()),
            t.root.map(|r| to_hex(&r)).unwrap_or_else(|| "-".into()),
            t.blocks as f64 / seconds.max(1e-9),
            t.keys_written as f64 / seconds.max(1e-9),
            ms(t.phase_us[0]),
            ms(t.phase_us[1]),
            ms(t.phase_us[2]),
            ms(t.phase_us[3]),
            ms(t.phase_us[4]),
        )
    }
}
