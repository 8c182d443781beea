//! What a replayed block did ([`BlockReport`]) and the totals of a run ([`Totals`]).

use std::path::PathBuf;

use serde_json::json;

use crate::export::ExportedBlock;
use crate::hexarg::to_hex;

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
    /// The root before the block (`None` for a block checked on resume whose parent's root
    /// the state did not record).
    pub pre_root: Option<[u8; 32]>,
    /// The root after the block (when it got that far).
    pub post_root: Option<[u8; 32]>,
    /// The coordinator root after the block (sharded state only).
    pub coordinator_root: Option<[u8; 32]>,
    /// Distinct first stem bytes written: the depth-1 shards (hypertrees) the block touched.
    pub shards_touched: usize,
    /// Chain rule applied at this block, if any.
    pub rule: Option<&'static str>,
    /// With `--proofs DIR`: the block's fractional proof (its keys and writes against the
    /// state before it) written to this file, its size, and the time it took to prove.
    pub proof: Option<(PathBuf, usize, u64)>,
    /// Whether the block replayed and matched.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
}

impl BlockReport {
    /// The report of `b` before it is checked: what its export says (origin, number,
    /// sizes, decode time), nothing else yet.
    pub(super) fn of(b: &ExportedBlock) -> BlockReport {
        BlockReport {
            origin: b.origin.clone(),
            number: b.number,
            stems: b.witness.state_diff().len(),
            keys_read: b.witness.state_diff().suffix_diff_count(),
            witness_bytes: b.witness_bytes,
            decode_us: b.decode_us,
            ..BlockReport::default()
        }
    }

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
            "pre_root": self.pre_root.map(|r| to_hex(&r)),
            "post_root": self.post_root.map(|r| to_hex(&r)),
            "coordinator_root": self.coordinator_root.map(|r| to_hex(&r)),
            "shards_touched": self.shards_touched,
            "rule": self.rule,
            "proof_file": self.proof.as_ref().map(|(p, _, _)| p.display().to_string()),
            "proof_bytes": self.proof.as_ref().map(|(_, b, _)| *b),
            "prove_us": self.proof.as_ref().map(|(_, _, us)| *us),
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
        ) + &self
            .proof
            .as_ref()
            .map(|(p, b, us)| {
                format!(
                    "; fractional proof {} ({b} B, {:.1} ms)",
                    p.display(),
                    *us as f64 / 1e3
                )
            })
            .unwrap_or_default()
    }
}

/// Totals of a run, for the summary line.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Blocks replayed.
    pub blocks: u64,
    /// Blocks skipped because the state already held them (resume), each checked against
    /// the root recorded at its height.
    pub skipped: u64,
    /// Of the skipped blocks, those whose `stateRoot` could not be checked: the datadir
    /// records no root at their height (it was written before roots were recorded per
    /// height).
    pub unchecked: u64,
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
    /// The root at that height (the persisted one, not the in-memory root of a block that
    /// failed).
    pub root: Option<[u8; 32]>,
}

impl Totals {
    pub(super) fn add(&mut self, r: &BlockReport) {
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
