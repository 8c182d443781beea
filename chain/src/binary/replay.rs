//! Replaying a binary block export into a [`BinaryState`]: per block, the witness decoded
//! (views over its bytes) and verified against the state's root, every claimed pre-value or
//! absence checked against the state, the post-state root computed from the witness alone and
//! compared with `stateRoot`, the writes applied, the state's root compared with `stateRoot`,
//! and the block persisted; one [`BinaryBlockReport`] per block. The first block that fails
//! any check ends the replay, reported with the rule it broke.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use bintree::witness::{Claim, Verified, WitnessError, Write, WriteRef};
use bintree::{eip7864, eip8297, Blake3, Sha256};
use serde_json::json;

use super::export::{BinaryExportBlock, BinaryExportReader};
use super::{BinaryKind, BinaryState};
use crate::hexarg::to_hex;
use crate::replayer::Ended;

/// Rule: the block's `parentStateRoot` is not the state's root.
pub const RULE_PARENT_ROOT: &str = "replay.parent_state_root";
/// Rule: the block's number does not follow the state's height.
pub const RULE_NUMBER: &str = "replay.block_number";
/// Rule: a claimed pre-value or absence is not what the state holds.
pub const RULE_PRE_VALUE: &str = "replay.pre_value";
/// Rule: the post-state root computed from the witness is not the block's `stateRoot`.
pub const RULE_WITNESS_POST_ROOT: &str = "replay.witness_post_root";
/// Rule: the state's root after the writes is not the block's `stateRoot`.
pub const RULE_STATE_ROOT: &str = "replay.state_root";
/// Rule: the writes cannot be applied to the state.
pub const RULE_APPLY: &str = "replay.apply";

/// What a binary block did.
#[derive(Clone, Debug, Default)]
pub struct BinaryBlockReport {
    /// Where the block came from.
    pub origin: String,
    /// Block number.
    pub number: u64,
    /// Keys in the witness (each read).
    pub keys_read: usize,
    /// Keys written (set or deleted).
    pub keys_written: usize,
    /// Size of the witness.
    pub witness_bytes: usize,
    /// Bytes of the witness that are the multiproof: all but the header, the keys (and their
    /// lengths), the flags and the values.
    pub proof_bytes: usize,
    /// Microseconds: the line's JSON and hex, and the witness's decode into views.
    pub decode_us: u64,
    /// Microseconds: the stateless verification against the pre-state root, which computes
    /// the post-state root in the same walk (the two are not separable), and the check of
    /// every claim against the state.
    pub verify_us: u64,
    /// Microseconds: applying the writes to the state and its root.
    pub apply_us: u64,
    /// Microseconds: persisting.
    pub write_us: u64,
    /// Hashes the verification computed (pre- and post-state).
    pub verify_hashes: u64,
    /// Hashes the state computed applying the writes and rehashing its root.
    pub apply_hashes: u64,
    /// The least hash count of the verification: the nodes on the union of the paths to
    /// every key of the witness in the pre-state tree, plus those to every changed key in the
    /// post-state tree (`path_nodes`); `None` for a state not held in memory.
    pub verify_min_hashes: Option<u64>,
    /// The least hash count of the root update: the nodes on the union of the paths to every
    /// changed key in the post-state tree; `None` for a state not held in memory.
    pub apply_min_hashes: Option<u64>,
    /// The state's root before the block.
    pub pre_root: Option<[u8; 32]>,
    /// The post-state root computed from the witness alone.
    pub witness_post_root: Option<[u8; 32]>,
    /// The state's root after the block.
    pub post_root: Option<[u8; 32]>,
    /// Whether the block replayed and matched.
    pub ok: bool,
    /// The rule a failed block broke (`bw.…` for a witness rule, `replay.…` otherwise).
    pub rule: Option<&'static str>,
    /// Why it failed.
    pub error: Option<String>,
}

impl BinaryBlockReport {
    /// The JSON Lines object.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "number": self.number,
            "origin": self.origin,
            "ok": self.ok,
            "keys_read": self.keys_read,
            "keys_written": self.keys_written,
            "witness_bytes": self.witness_bytes,
            "proof_bytes": self.proof_bytes,
            "decode_us": self.decode_us,
            "verify_us": self.verify_us,
            "apply_us": self.apply_us,
            "write_us": self.write_us,
            "verify_hashes": self.verify_hashes,
            "apply_hashes": self.apply_hashes,
            "verify_min_hashes": self.verify_min_hashes,
            "apply_min_hashes": self.apply_min_hashes,
            "pre_root": self.pre_root.map(|r| to_hex(&r)),
            "witness_post_root": self.witness_post_root.map(|r| to_hex(&r)),
            "post_root": self.post_root.map(|r| to_hex(&r)),
            "rule": self.rule,
            "error": self.error,
        })
    }

    /// One human-readable line.
    pub fn to_line(&self) -> String {
        if !self.ok {
            return format!(
                "block {}: MISMATCH ({}): {}",
                self.number,
                self.rule.unwrap_or("-"),
                self.error.as_deref().unwrap_or("")
            );
        }
        format!(
            "block {}: ok {} ({} read, {} written, {} B witness of which {} B proof; decode {:.1} ms, verify {:.1} ms, apply+root {:.1} ms)",
            self.number,
            self.post_root.map(|r| to_hex(&r)).unwrap_or_default(),
            self.keys_read,
            self.keys_written,
            self.witness_bytes,
            self.proof_bytes,
            self.decode_us as f64 / 1e3,
            self.verify_us as f64 / 1e3,
            self.apply_us as f64 / 1e3,
        )
    }

    fn fail(&mut self, rule: &'static str, error: String) {
        self.ok = false;
        self.rule = Some(rule);
        self.error = Some(error);
    }
}

/// Totals of a binary replay.
#[derive(Clone, Debug, Default)]
pub struct BinaryTotals {
    /// Blocks replayed and matched.
    pub blocks: u64,
    /// Keys read, all blocks.
    pub keys_read: u64,
    /// Keys written, all blocks.
    pub keys_written: u64,
    /// Witness bytes, all blocks.
    pub witness_bytes: u64,
    /// Microseconds: decode, verify, apply+root, write.
    pub phase_us: [u64; 4],
    /// Hashes: verify, apply+root.
    pub hashes: [u64; 2],
    /// The least hash counts of verify and apply+root, summed over the blocks that report
    /// them (`None` once a block does not: a state not held in memory).
    pub min_hashes: Option<[u64; 2]>,
    /// The last height persisted and its root.
    pub height: Option<(u64, [u8; 32])>,
    /// Blocks at or below the height the state already held (a resumed datadir), skipped.
    pub skipped: u64,
}

/// A witness decoded as the views of its tree.
enum Views<'a> {
    Eip7864(eip7864::witness::Witness<'a>),
    Eip8297(eip8297::witness::Witness<'a>),
}

impl<'a> Views<'a> {
    fn decode(kind: BinaryKind, bytes: &'a [u8]) -> Result<Views<'a>, WitnessError> {
        Ok(match kind {
            BinaryKind::Eip7864Sha256 => {
                Views::Eip7864(eip7864::witness::Witness::decode::<Sha256>(bytes)?)
            }
            BinaryKind::Eip7864Blake3 => {
                Views::Eip7864(eip7864::witness::Witness::decode::<Blake3>(bytes)?)
            }
            BinaryKind::Eip8297 => {
                Views::Eip8297(eip8297::witness::Witness::decode::<Blake3>(bytes)?)
            }
        })
    }

    fn verify(&self, kind: BinaryKind, pre_root: &[u8; 32]) -> Result<Verified, WitnessError> {
        match (self, kind) {
            (Views::Eip7864(w), BinaryKind::Eip7864Blake3) => w.verify::<Blake3>(pre_root),
            (Views::Eip7864(w), _) => w.verify::<Sha256>(pre_root),
            (Views::Eip8297(w), _) => w.verify::<Blake3>(pre_root),
        }
    }

    fn claims(&self) -> Vec<Claim<'a>> {
        match self {
            Views::Eip7864(w) => w.claims().collect(),
            Views::Eip8297(w) => w.claims().collect(),
        }
    }
}

/// Decodes `bytes` as a witness of `kind` and verifies it against `pre_root`: the number of
/// keys it claims and what it establishes (the post-state root among it).
pub fn verify_witness(
    kind: BinaryKind,
    bytes: &[u8],
    pre_root: &[u8; 32],
) -> Result<(usize, Verified), WitnessError> {
    let views = Views::decode(kind, bytes)?;
    let verified = views.verify(kind, pre_root)?;
    let keys = match &views {
        Views::Eip7864(w) => w.len(),
        Views::Eip8297(w) => w.len(),
    };
    Ok((keys, verified))
}

/// Bytes of the witness that are not the multiproof: the header, the keys (with their
/// lengths on EIP-8297), the flags and the values.
fn claim_bytes(kind: BinaryKind, claims: &[Claim<'_>]) -> usize {
    let values: usize = claims
        .iter()
        .map(|c| usize::from(c.pre.is_some()) + usize::from(matches!(c.write, WriteRef::Set(_))))
        .sum();
    let keys: usize = claims.iter().map(|c| c.key.len()).sum();
    let (header, per_key) = match kind {
        BinaryKind::Eip8297 => (eip8297::witness::HEADER_LENGTH, 2),
        _ => (eip7864::witness::HEADER_LENGTH, 1),
    };
    header + keys + per_key * claims.len() + 32 * values
}

/// Checks every claim of a verified witness against `state`: a claimed pre-value is the
/// state's value, a claimed absence is an absent key. Returns the writes.
pub fn check_claims(
    state: &mut dyn BinaryState,
    claims: &[Claim<'_>],
) -> Result<Vec<(Vec<u8>, Write)>, String> {
    let mut writes = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        let held = state.get(c.key).map_err(|e| {
            format!(
                "key {i} (0x{}): reading the state: {e:#}",
                hex::encode(c.key)
            )
        })?;
        if held.as_ref() != c.pre {
            let show = |v: Option<&[u8; 32]>| v.map_or("absent".to_string(), |v| to_hex(v));
            return Err(format!(
                "key {i} (0x{}): the witness claims {}, the state holds {}",
                hex::encode(c.key),
                show(c.pre),
                show(held.as_ref())
            ));
        }
        match c.write {
            WriteRef::Unchanged => {}
            WriteRef::Set(v) => writes.push((c.key.to_vec(), Write::Set(*v))),
            WriteRef::Delete => writes.push((c.key.to_vec(), Write::Delete)),
        }
    }
    Ok(writes)
}

/// Replays binary blocks into a state that holds its genesis.
pub struct BinaryReplayer<'s> {
    state: &'s mut dyn BinaryState,
    totals: BinaryTotals,
}

impl<'s> BinaryReplayer<'s> {
    /// A replayer writing into `state` (its genesis written).
    pub fn new(state: &'s mut dyn BinaryState) -> BinaryReplayer<'s> {
        BinaryReplayer {
            state,
            totals: BinaryTotals::default(),
        }
    }

    /// The totals so far.
    pub fn totals(&self) -> &BinaryTotals {
        &self.totals
    }

    /// Replays one block; a block that fails a check leaves the state as it was before it
    /// (nothing is applied before every check of the witness passed) unless the failure is
    /// the root after the writes.
    pub fn replay_block(&mut self, b: &BinaryExportBlock) -> Result<BinaryBlockReport> {
        let kind = self.state.kind();
        let mut r = BinaryBlockReport {
            origin: b.origin.clone(),
            number: b.number,
            witness_bytes: b.witness.len(),
            ..BinaryBlockReport::default()
        };
        let pre = self.state.root()?;
        r.pre_root = Some(pre);
        let want = self.state.height().map_or(1, |h| h + 1);
        if b.number != want {
            r.fail(
                RULE_NUMBER,
                format!(
                    "{}: block {}, but the state is at height {}",
                    b.origin,
                    b.number,
                    want - 1
                ),
            );
            return Ok(r);
        }
        if b.parent_state_root != pre {
            r.fail(
                RULE_PARENT_ROOT,
                format!(
                    "{}: parentStateRoot {} is not the state's root {}",
                    b.origin,
                    to_hex(&b.parent_state_root),
                    to_hex(&pre)
                ),
            );
            return Ok(r);
        }
        let t = Instant::now();
        let views = Views::decode(kind, &b.witness);
        r.decode_us = b.parse_us + t.elapsed().as_micros() as u64;
        let views = match views {
            Ok(v) => v,
            Err(e) => {
                r.fail(e.name(), format!("{}: decoding the witness: {e}", b.origin));
                return Ok(r);
            }
        };
        let t = Instant::now();
        let verified = views.verify(kind, &pre);
        let claims = views.claims();
        r.keys_read = claims.len();
        r.proof_bytes = b.witness.len().saturating_sub(claim_bytes(kind, &claims));
        let verified = match verified {
            Ok(v) => v,
            Err(e) => {
                r.verify_us = t.elapsed().as_micros() as u64;
                r.fail(
                    e.name(),
                    format!("{}: verifying the witness: {e}", b.origin),
                );
                return Ok(r);
            }
        };
        r.verify_hashes = verified.pre_hashes + verified.post_hashes;
        r.witness_post_root = Some(verified.post_root);
        let writes = check_claims(self.state, &claims);
        r.verify_us = t.elapsed().as_micros() as u64;
        let writes = match writes {
            Ok(w) => w,
            Err(e) => {
                r.fail(RULE_PRE_VALUE, format!("{}: {e}", b.origin));
                return Ok(r);
            }
        };
        r.keys_written = writes.len();
        // The least hash counts, outside the timed phases: the touched paths in the pre-state
        // tree now, the changed ones in the post-state tree after the writes. A figure for
        // the report only: a count that cannot be made is left out, never a failed block.
        let touched: Vec<&[u8]> = claims.iter().map(|c| c.key).collect();
        let changed: Vec<&[u8]> = claims
            .iter()
            .filter(|c| match c.write {
                WriteRef::Unchanged => false,
                WriteRef::Set(v) => c.pre != Some(v),
                WriteRef::Delete => c.pre.is_some(),
            })
            .map(|c| c.key)
            .collect();
        let pre_paths = self.state.path_nodes(&touched).ok().flatten();
        if verified.post_root != b.state_root {
            r.fail(
                RULE_WITNESS_POST_ROOT,
                format!(
                    "{}: the witness's writes give the root {}, the block's stateRoot is {}",
                    b.origin,
                    to_hex(&verified.post_root),
                    to_hex(&b.state_root)
                ),
            );
            return Ok(r);
        }
        let t = Instant::now();
        let hashes = self.state.hash_count();
        if let Err(e) = self.state.apply(&writes) {
            r.fail(
                RULE_APPLY,
                format!("{}: applying the writes: {e:#}", b.origin),
            );
            return Ok(r);
        }
        let post = self.state.root()?;
        r.apply_us = t.elapsed().as_micros() as u64;
        r.apply_hashes = self.state.hash_count().saturating_sub(hashes);
        r.post_root = Some(post);
        r.apply_min_hashes = self.state.path_nodes(&changed).ok().flatten();
        r.verify_min_hashes = pre_paths.zip(r.apply_min_hashes).map(|(a, b)| a + b);
        if post != b.state_root {
            r.fail(
                RULE_STATE_ROOT,
                format!(
                    "{}: the state's root after the block is {}, the block's stateRoot is {}",
                    b.origin,
                    to_hex(&post),
                    to_hex(&b.state_root)
                ),
            );
            return Ok(r);
        }
        let t = Instant::now();
        self.state.persist(b.number, &[])?;
        r.write_us = t.elapsed().as_micros() as u64;
        r.ok = true;
        let tot = &mut self.totals;
        tot.blocks += 1;
        tot.keys_read += r.keys_read as u64;
        tot.keys_written += r.keys_written as u64;
        tot.witness_bytes += r.witness_bytes as u64;
        for (s, v) in
            tot.phase_us
                .iter_mut()
                .zip([r.decode_us, r.verify_us, r.apply_us, r.write_us])
        {
            *s += v;
        }
        tot.hashes[0] += r.verify_hashes;
        tot.hashes[1] += r.apply_hashes;
        tot.min_hashes = match (
            tot.blocks,
            tot.min_hashes,
            r.verify_min_hashes,
            r.apply_min_hashes,
        ) {
            (1, _, Some(v), Some(a)) => Some([v, a]),
            (_, Some([tv, ta]), Some(v), Some(a)) => Some([tv + v, ta + a]),
            _ => None,
        };
        tot.height = Some((b.number, post));
        Ok(r)
    }

    /// Replays the blocks of `files` in order, handing each report to `on_report`; ends at the
    /// first block that fails ([`Ended::Mismatch`]). Blocks at or below the height the state
    /// held when the replay started are skipped (a datadir resumes after its last block). A
    /// file that cannot be read, or a line that is not a block of this tree, is an error naming
    /// the file and line.
    pub fn replay_export(
        &mut self,
        files: &[PathBuf],
        on_report: &mut dyn FnMut(&BinaryBlockReport) -> Result<()>,
    ) -> Result<Ended> {
        let held = self.state.height().unwrap_or(0);
        for block in BinaryExportReader::new(files, self.state.kind()) {
            let block = block?;
            if block.number <= held {
                self.totals.skipped += 1;
                continue;
            }
            let report = self.replay_block(&block)?;
            on_report(&report)?;
            if !report.ok {
                return Ok(Ended::Mismatch);
            }
        }
        Ok(Ended::Matched)
    }

    /// The summary of the run as one JSON object.
    pub fn summary_json(&self, secs: f64) -> serde_json::Value {
        let t = &self.totals;
        json!({
            "tree": self.state.kind().tree(),
            "hash": self.state.kind().hash(),
            "blocks": t.blocks,
            "skipped": t.skipped,
            "keys_read": t.keys_read,
            "keys_written": t.keys_written,
            "witness_bytes": t.witness_bytes,
            "decode_us": t.phase_us[0],
            "verify_us": t.phase_us[1],
            "apply_us": t.phase_us[2],
            "write_us": t.phase_us[3],
            "verify_hashes": t.hashes[0],
            "apply_hashes": t.hashes[1],
            "verify_min_hashes": t.min_hashes.map(|m| m[0]),
            "apply_min_hashes": t.min_hashes.map(|m| m[1]),
            "height": t.height.map(|h| h.0),
            "root": t.height.map(|h| to_hex(&h.1)),
            "seconds": secs,
        })
    }

    /// The summary of the run as one line.
    pub fn summary_line(&self, secs: f64) -> String {
        let t = &self.totals;
        let ratios = match t.min_hashes {
            Some([v, a]) if v > 0 && a > 0 => format!(
                " (hashes ÷ the least: verify {:.3}, apply+root {:.3})",
                t.hashes[0] as f64 / v as f64,
                t.hashes[1] as f64 / a as f64
            ),
            _ => String::new(),
        };
        format!(
            "{} blocks on {}/{} ({} keys read, {} written, {} witness bytes) in {secs:.2} s: decode {:.1} ms, verify {:.1} ms, apply+root {:.1} ms{ratios}; height {}, root {}",
            t.blocks,
            self.state.kind().tree(),
            self.state.kind().hash(),
            t.keys_read,
            t.keys_written,
            t.witness_bytes,
            t.phase_us[0] as f64 / 1e3,
            t.phase_us[1] as f64 / 1e3,
            t.phase_us[2] as f64 / 1e3,
            t.height.map_or("-".into(), |h| h.0.to_string()),
            t.height.map_or("-".into(), |h| to_hex(&h.1)),
        )
    }
}
