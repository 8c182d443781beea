//! The replay loop: for each exported block, verify its witness against the current root,
//! check its pre-values against the stored state, apply its writes, commit, compare the
//! root with the block's `stateRoot`, and persist — one report per block.

use std::collections::BTreeSet;
use std::time::Instant;

use anyhow::{bail, Result};
use serde_json::json;
use verkle::keys::{Layout, TreeKey, Value};

use crate::export::ExportedBlock;
use crate::hexarg::to_hex;
use crate::rules::Chain;
use crate::state::State;

/// What a block did, as one JSON Lines object (after Hive's block flow reports).
#[derive(Clone, Debug, Default)]
pub struct BlockReport {
    /// Where the block came from.
    pub origin: String,
    /// Block number.
    pub number: u64,
    /// Stems in the witness.
    pub stems: usize,
    /// Keys in the witness (every one is read).
    pub keys_read: usize,
    /// Keys written (the witness's new values, plus any chain rule's writes).
    pub keys_written: usize,
    /// Canonical SSZ size of the witness.
    pub witness_bytes: usize,
    /// Microseconds: JSON parse and witness decode.
    pub decode_us: u64,
    /// Microseconds: witness verification (and the pre-value check).
    pub verify_us: u64,
    /// Microseconds: applying the writes to the tree.
    pub apply_us: u64,
    /// Microseconds: commitment.
    pub commit_us: u64,
    /// Microseconds: persisting (nodes and meta, one atomic write).
    pub write_us: u64,
    /// The root before the block.
    pub pre_root: [u8; 32],
    /// The root after the block (when it got that far).
    pub post_root: Option<[u8; 32]>,
    /// The coordinator root after the block (sharded state only).
    pub coordinator_root: Option<[u8; 32]>,
    /// Distinct first stem bytes written: the depth-1 shards (hypertrees) the block touched.
    pub shards_touched: usize,
    /// Chain rule applied at this block, if any.
    pub rule: Option<&'static str>,
    /// Whether the block replayed and matched.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
}

impl BlockReport {
    /// The JSON Lines object.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "number": self.number,
            "origin": self.origin,
            "ok": self.ok,
            "stems": self.stems,
            "keys_read": self.keys_read,
            "keys_written": self.keys_written,
            "witness_bytes": self.witness_bytes,
            "decode_us": self.decode_us,
            "verify_us": self.verify_us,
            "apply_us": self.apply_us,
            "commit_us": self.commit_us,
            "write_us": self.write_us,
            "pre_root": to_hex(&self.pre_root),
            "post_root": self.post_root.map(|r| to_hex(&r)),
            "coordinator_root": self.coordinator_root.map(|r| to_hex(&r)),
            "shards_touched": self.shards_touched,
            "rule": self.rule,
            "error": self.error,
        })
    }

    /// One human-readable line.
    pub fn to_line(&self) -> String {
        if !self.ok {
            return format!(
                "block {}: MISMATCH: {}",
                self.number,
                self.error.as_deref().unwrap_or("")
            );
        }
        format!(
            "block {}: ok {} ({} stems, {} read, {} written, {} B; verify {:.1} ms, apply {:.1} ms, commit {:.1} ms, write {:.1} ms{})",
            self.number,
            self.post_root.map(|r| to_hex(&r)).unwrap_or_default(),
            self.stems,
            self.keys_read,
            self.keys_written,
            self.witness_bytes,
            self.verify_us as f64 / 1e3,
            self.apply_us as f64 / 1e3,
            self.commit_us as f64 / 1e3,
            self.write_us as f64 / 1e3,
            self.rule.map(|r| format!("; rule {r}")).unwrap_or_default(),
        )
    }
}

/// Totals of a run, for the summary line.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Blocks replayed.
    pub blocks: u64,
    /// Blocks skipped because the state already held them (resume).
    pub skipped: u64,
    /// Keys read, all blocks.
    pub keys_read: u64,
    /// Keys written, all blocks.
    pub keys_written: u64,
    /// Witness bytes, all blocks.
    pub witness_bytes: u64,
    /// Sum of per-phase microseconds: decode, verify, apply, commit, write.
    pub phase_us: [u64; 5],
    /// Last height persisted.
    pub height: Option<u64>,
    /// Last root.
    pub root: Option<[u8; 32]>,
}

impl Totals {
    fn add(&mut self, r: &BlockReport) {
        self.blocks += 1;
        self.keys_read += r.keys_read as u64;
        self.keys_written += r.keys_written as u64;
        self.witness_bytes += r.witness_bytes as u64;
        for (t, v) in self.phase_us.iter_mut().zip([
            r.decode_us,
            r.verify_us,
            r.apply_us,
            r.commit_us,
            r.write_us,
        ]) {
            *t += v;
        }
        self.height = Some(r.number);
        self.root = r.post_root;
    }
}

/// Replays blocks onto a state.
pub struct Replayer<'a> {
    state: &'a mut dyn State,
    chain: Chain,
    layout: Layout,
    /// Meta written with every block.
    meta: Vec<(Vec<u8>, Vec<u8>)>,
    /// Totals so far.
    pub totals: Totals,
}

/// What [`Replayer::block`] concluded.
pub enum Step {
    /// Applied and matched.
    Applied(BlockReport),
    /// Already in the state (resume).
    Skipped,
    /// A verdict: the block does not replay (invalid witness, pre-value or root mismatch).
    /// Nothing of it was written.
    Mismatch(BlockReport),
}

fn stem_key(stem: &[u8; 31], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = suffix;
    k
}

impl<'a> Replayer<'a> {
    /// A replayer writing `meta` with every block.
    pub fn new(
        state: &'a mut dyn State,
        chain: Chain,
        layout: Layout,
        meta: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Replayer<'a> {
        Replayer {
            state,
            chain,
            layout,
            meta,
            totals: Totals::default(),
        }
    }

    /// Replays one block. Errors (exit 2) are input problems, such as a block out of order;
    /// verdicts come back as [`Step::Mismatch`].
    pub fn block(&mut self, b: &ExportedBlock) -> Result<Step> {
        let height = self.state.height().unwrap_or(0);
        if b.number <= height {
            self.totals.skipped += 1;
            return Ok(Step::Skipped);
        }
        if b.number != height + 1 {
            bail!(
                "{}: block {}: blocks must be consecutive; the state is at block {height}, so block {} comes next",
                b.origin,
                b.number,
                height + 1
            );
        }
        let mut r = BlockReport {
            origin: b.origin.clone(),
            number: b.number,
            stems: b.witness.state_diff().len(),
            keys_read: b.witness.state_diff().suffix_diff_count(),
            witness_bytes: b.witness_bytes,
            decode_us: b.decode_us,
            ..BlockReport::default()
        };
        let origin = format!("{}: block {}", b.origin, b.number);
        r.pre_root = self.state.root();
        if let Some(parent) = b.parent_state_root {
            if parent != r.pre_root {
                r.error = Some(format!(
                    "{origin}: field parentStateRoot: {} is not the state's root {}",
                    to_hex(&parent),
                    to_hex(&r.pre_root)
                ));
                return Ok(Step::Mismatch(r));
            }
        }

        // Verify the witness against the current root, and its pre-values against the state.
        let t = Instant::now();
        let verified = match witness::verify(&r.pre_root, &b.witness) {
            Ok(v) => v,
            Err(e) => {
                r.verify_us = t.elapsed().as_micros() as u64;
                r.error = Some(format!(
                    "{origin}: field executionWitness: does not verify against the pre-state root {}: {e}",
                    to_hex(&r.pre_root)
                ));
                return Ok(Step::Mismatch(r));
            }
        };
        let mut writes: Vec<(TreeKey, Option<Value>)> = Vec::new();
        for s in b.witness.state_diff().iter() {
            for d in s.suffix_diffs.iter() {
                let key = stem_key(s.stem, d.suffix);
                let stored = self.state.get(&key)?;
                let claimed = d.current_value.copied();
                if stored != claimed {
                    r.verify_us = t.elapsed().as_micros() as u64;
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
        drop(verified);
        r.verify_us = t.elapsed().as_micros() as u64;

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
        let meta: Vec<(&[u8], &[u8])> = self
            .meta
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
            .collect();
        self.state.persist(b.number, &meta)?;
        r.write_us = t.elapsed().as_micros() as u64;
        r.ok = true;
        self.totals.add(&r);
        Ok(Step::Applied(r))
    }

    /// Records the state's final height and root in the totals (also when nothing was
    /// replayed).
    pub fn finish(&mut self) {
        self.totals.root = Some(self.state.root());
        self.totals.height = self.state.height();
    }

    /// The summary object.
    pub fn summary_json(&self, seconds: f64) -> serde_json::Value {
        let t = &self.totals;
        json!({
            "summary": true,
            "blocks": t.blocks,
            "skipped": t.skipped,
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
            "replayed {} blocks ({} skipped) to height {} root {} in {seconds:.2} s: {:.1} blocks/s, {:.0} updates/s; decode {:.0} ms, verify {:.0} ms, apply {:.0} ms, commit {:.0} ms, write {:.0} ms",
            t.blocks,
            t.skipped,
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
