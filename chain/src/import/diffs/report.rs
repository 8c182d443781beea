//! What a block of diffs cost, as one JSON Lines object or one line, and the run's totals.

use serde_json::json;

use crate::hexarg::to_hex;

/// One block's report.
#[derive(Clone, Debug, Default)]
pub struct DiffReport {
    /// File and line.
    pub origin: String,
    /// Block number.
    pub number: u64,
    /// The block's MPT state root, as the input gave it (never compared).
    pub mpt_state_root: Option<[u8; 32]>,
    /// Transactions (traces).
    pub txs: usize,
    /// Distinct accounts changed.
    pub accounts: usize,
    /// Accounts created.
    pub created: usize,
    /// Accounts deleted.
    pub deleted: usize,
    /// Distinct storage slots written.
    pub slots: usize,
    /// Code bytes written.
    pub code_bytes: u64,
    /// Distinct tree keys written.
    pub keys_written: usize,
    /// Distinct stems written.
    pub stems: usize,
    /// SSZ size of the witness proving the written keys against the pre-state
    /// (`--witness-sizes`).
    pub witness_bytes: Option<usize>,
    /// µs reading and parsing the block's line.
    pub read_us: u64,
    /// µs turning the diffs into writes (address hashing, reads of the state).
    pub convert_us: u64,
    /// µs proving the witness (`--witness-sizes`).
    pub prove_us: u64,
    /// µs applying the writes.
    pub apply_us: u64,
    /// µs committing.
    pub commit_us: u64,
    /// µs persisting.
    pub write_us: u64,
    /// The Verkle root after the block.
    pub root: [u8; 32],
}

impl DiffReport {
    /// The JSON Lines object.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "number": self.number,
            "origin": self.origin,
            "mpt_state_root": self.mpt_state_root.map(|r| to_hex(&r)),
            "txs": self.txs,
            "accounts": self.accounts,
            "created": self.created,
            "deleted": self.deleted,
            "slots": self.slots,
            "code_bytes": self.code_bytes,
            "keys_written": self.keys_written,
            "stems": self.stems,
            "witness_bytes": self.witness_bytes,
            "read_us": self.read_us,
            "convert_us": self.convert_us,
            "prove_us": self.prove_us,
            "apply_us": self.apply_us,
            "commit_us": self.commit_us,
            "write_us": self.write_us,
            "root": to_hex(&self.root),
        })
    }

    /// One human-readable line.
    pub fn to_line(&self) -> String {
        let ms = |us: u64| us as f64 / 1e3;
        format!(
            "block {}: {} ({} txs, {} accounts, {} slots, {} code bytes; {} keys on {} stems{}; read {:.1} ms, convert {:.1} ms, apply {:.1} ms, commit {:.1} ms, write {:.1} ms)",
            self.number,
            to_hex(&self.root),
            self.txs,
            self.accounts,
            self.slots,
            self.code_bytes,
            self.keys_written,
            self.stems,
            self.witness_bytes
                .map(|b| format!(", witness {b} B proven in {:.1} ms", ms(self.prove_us)))
                .unwrap_or_default(),
            ms(self.read_us),
            ms(self.convert_us),
            ms(self.apply_us),
            ms(self.commit_us),
            ms(self.write_us),
        )
    }
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct DiffTotals {
    /// Blocks replayed.
    pub blocks: u64,
    /// Blocks at or below the state's height, skipped.
    pub skipped: u64,
    /// The state's height at the end.
    pub height: Option<u64>,
    /// The root at the end.
    pub root: Option<[u8; 32]>,
    accounts: u64,
    slots: u64,
    code_bytes: u64,
    keys_written: u64,
    stems: u64,
    witness_bytes: u64,
    /// read, convert, prove, apply, commit, write (µs).
    phase_us: [u64; 6],
}

impl DiffTotals {
    /// Adds a block.
    pub fn add(&mut self, r: &DiffReport) {
        self.blocks += 1;
        self.accounts += r.accounts as u64;
        self.slots += r.slots as u64;
        self.code_bytes += r.code_bytes;
        self.keys_written += r.keys_written as u64;
        self.stems += r.stems as u64;
        self.witness_bytes += r.witness_bytes.unwrap_or(0) as u64;
        for (t, us) in self.phase_us.iter_mut().zip([
            r.read_us,
            r.convert_us,
            r.prove_us,
            r.apply_us,
            r.commit_us,
            r.write_us,
        ]) {
            *t += us;
        }
    }

    /// The summary object.
    pub fn to_json(&self, seconds: f64) -> serde_json::Value {
        json!({
            "summary": true,
            "blocks": self.blocks,
            "skipped": self.skipped,
            "height": self.height,
            "root": self.root.map(|r| to_hex(&r)),
            "accounts": self.accounts,
            "slots": self.slots,
            "code_bytes": self.code_bytes,
            "keys_written": self.keys_written,
            "stems": self.stems,
            "witness_bytes": self.witness_bytes,
            "read_us": self.phase_us[0],
            "convert_us": self.phase_us[1],
            "prove_us": self.phase_us[2],
            "apply_us": self.phase_us[3],
            "commit_us": self.phase_us[4],
            "write_us": self.phase_us[5],
            "seconds": seconds,
            "blocks_per_s": self.blocks as f64 / seconds.max(1e-9),
        })
    }

    /// The summary line.
    pub fn to_line(&self, seconds: f64) -> String {
        let ms = |us: u64| us as f64 / 1e3;
        format!(
            "replayed {} blocks of diffs ({} skipped) to height {} root {} in {seconds:.2} s: {:.1} blocks/s; {} keys on {} stems; read {:.0} ms, convert {:.0} ms, prove {:.0} ms, apply {:.0} ms, commit {:.0} ms, write {:.0} ms",
            self.blocks,
            self.skipped,
            self.height.map(|h| h.to_string()).unwrap_or_else(|| "-".into()),
            self.root.map(|r| to_hex(&r)).unwrap_or_else(|| "-".into()),
            self.blocks as f64 / seconds.max(1e-9),
            self.keys_written,
            self.stems,
            ms(self.phase_us[0]),
            ms(self.phase_us[1]),
            ms(self.phase_us[2]),
            ms(self.phase_us[3]),
            ms(self.phase_us[4]),
            ms(self.phase_us[5]),
        )
    }
}
