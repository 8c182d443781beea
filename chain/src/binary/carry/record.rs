//! What carrying a chain reports: one record per block and a summary of the run.

use serde_json::{json, Value as Json};

use super::super::BinaryKind;
use crate::hexarg::to_hex;

/// One block carried into the binary tree: its keys, both witnesses' sizes, the binary
/// witness's timings and the hashes the tree performed.
#[derive(Clone, Debug)]
pub struct CarriedBlock {
    /// The block number.
    pub number: u64,
    /// Keys the Verkle witness reads without writing (`newValue` null).
    pub keys_read: usize,
    /// Keys the Verkle witness writes (`newValue` set), each a `Write::Set` here.
    pub keys_written: usize,
    /// Of the reads, keys absent before the block (they stay absent).
    pub absent_reads: usize,
    /// Of the writes, writes of 32 zero bytes (a present zero leaf in both trees).
    pub zero_writes: usize,
    /// Size of the Verkle witness's SSZ encoding (`ExecutionWitness`), as the export reader
    /// computes it.
    pub verkle_witness_bytes: usize,
    /// Size of the SSZ `VerkleProof` inside it: the offsets, `other_stems`,
    /// `depth_extension_present`, `commitments_by_path`, `d` and the IPA proof.
    pub verkle_proof_bytes: usize,
    /// Size of the binary witness (`spec/BINARY.md`).
    pub binary_witness_bytes: usize,
    /// Its proof part: end records, other-stem records, the sibling bitmap and the sibling
    /// hashes (everything but the header, keys, flags and values).
    pub binary_proof_bytes: usize,
    /// Sibling hashes in the binary witness.
    pub binary_hashes: usize,
    /// Other-stem records in the binary witness.
    pub binary_others: usize,
    /// Nanoseconds to make the binary witness from the tree.
    pub prove_ns: u64,
    /// Nanoseconds to decode it (zero-copy views, every canonical check).
    pub decode_ns: u64,
    /// Nanoseconds to verify it against the pre-state root and compute the post-state root.
    pub verify_ns: u64,
    /// Nanoseconds to apply the block's writes to the tree and compute its root.
    pub post_state_ns: u64,
    /// Hashes the tree performed applying the writes and computing the root.
    pub hashes: u64,
    /// Hashes the verifier performed (pre-state and post-state roots).
    pub verify_hashes: u64,
    /// The tree's root before the block.
    pub pre_root: [u8; 32],
    /// The tree's root after the block, equal to the post-state root from the witness alone.
    pub post_root: [u8; 32],
    /// The binary witness's wire bytes.
    pub witness: Vec<u8>,
}

impl CarriedBlock {
    /// The record as one JSON object (the witness bytes left out; times in microseconds,
    /// with three decimals).
    pub fn to_json(&self) -> Json {
        json!({
            "number": self.number,
            "keys_read": self.keys_read,
            "keys_written": self.keys_written,
            "absent_reads": self.absent_reads,
            "zero_writes": self.zero_writes,
            "verkle_witness_bytes": self.verkle_witness_bytes,
            "verkle_proof_bytes": self.verkle_proof_bytes,
            "binary_witness_bytes": self.binary_witness_bytes,
            "binary_proof_bytes": self.binary_proof_bytes,
            "binary_hashes": self.binary_hashes,
            "binary_others": self.binary_others,
            "prove_us": micros(self.prove_ns),
            "decode_us": micros(self.decode_ns),
            "verify_us": micros(self.verify_ns),
            "post_state_us": micros(self.post_state_ns),
            "hashes": self.hashes,
            "verify_hashes": self.verify_hashes,
            "pre_root": to_hex(&self.pre_root),
            "post_root": to_hex(&self.post_root),
        })
    }
}

/// Nanoseconds as microseconds.
fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The starting state the witnesses reveal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Revealed {
    /// Distinct keys the blocks touch.
    pub keys: usize,
    /// Of them, keys present the first time a block touches them: the starting state.
    pub present: usize,
    /// Of them, keys absent the first time a block touches them (not inserted).
    pub absent: usize,
    /// Later pre-values checked against a revealed value (no block wrote the key between).
    pub rechecked: usize,
    /// Later pre-values checked against the value an earlier block wrote.
    pub after_write: usize,
}

/// A column of per-block figures, for totals and medians.
#[derive(Clone, Debug, Default)]
pub struct Column(Vec<u64>);

impl Column {
    /// Adds one block's figure.
    pub fn push(&mut self, v: u64) {
        self.0.push(v);
    }

    /// The sum.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The median (the mean of the two middle figures for an even count); 0 when empty.
    pub fn median(&self) -> f64 {
        let mut v = self.0.clone();
        v.sort_unstable();
        let n = v.len();
        if n == 0 {
            return 0.0;
        }
        // The two middle figures, one and the same for an odd count.
        (v[(n - 1) / 2] as f64 + v[n / 2] as f64) / 2.0
    }

    fn to_json(&self) -> Json {
        json!({"total": self.total(), "median": self.median()})
    }

    /// A column of nanoseconds as `{total, median}` in microseconds.
    fn to_json_us(&self) -> Json {
        json!({"total": micros(self.total()), "median": self.median() / 1000.0})
    }
}

/// The figures of every carried block, as columns.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    /// [`CarriedBlock::keys_read`].
    pub keys_read: Column,
    /// [`CarriedBlock::keys_written`].
    pub keys_written: Column,
    /// [`CarriedBlock::absent_reads`].
    pub absent_reads: Column,
    /// [`CarriedBlock::zero_writes`].
    pub zero_writes: Column,
    /// [`CarriedBlock::verkle_witness_bytes`].
    pub verkle_witness_bytes: Column,
    /// [`CarriedBlock::verkle_proof_bytes`].
    pub verkle_proof_bytes: Column,
    /// [`CarriedBlock::binary_witness_bytes`].
    pub binary_witness_bytes: Column,
    /// [`CarriedBlock::binary_proof_bytes`].
    pub binary_proof_bytes: Column,
    /// [`CarriedBlock::prove_ns`].
    pub prove_ns: Column,
    /// [`CarriedBlock::decode_ns`].
    pub decode_ns: Column,
    /// [`CarriedBlock::verify_ns`].
    pub verify_ns: Column,
    /// Decode plus verify, per block, in nanoseconds.
    pub decode_verify_ns: Column,
    /// [`CarriedBlock::post_state_ns`].
    pub post_state_ns: Column,
    /// [`CarriedBlock::hashes`].
    pub hashes: Column,
    /// [`CarriedBlock::verify_hashes`].
    pub verify_hashes: Column,
}

impl Columns {
    /// Adds one block's figures.
    pub fn push(&mut self, b: &CarriedBlock) {
        self.keys_read.push(b.keys_read as u64);
        self.keys_written.push(b.keys_written as u64);
        self.absent_reads.push(b.absent_reads as u64);
        self.zero_writes.push(b.zero_writes as u64);
        self.verkle_witness_bytes
            .push(b.verkle_witness_bytes as u64);
        self.verkle_proof_bytes.push(b.verkle_proof_bytes as u64);
        self.binary_witness_bytes
            .push(b.binary_witness_bytes as u64);
        self.binary_proof_bytes.push(b.binary_proof_bytes as u64);
        self.prove_ns.push(b.prove_ns);
        self.decode_ns.push(b.decode_ns);
        self.verify_ns.push(b.verify_ns);
        self.decode_verify_ns.push(b.decode_ns + b.verify_ns);
        self.post_state_ns.push(b.post_state_ns);
        self.hashes.push(b.hashes);
        self.verify_hashes.push(b.verify_hashes);
    }
}

/// What carrying a chain did, over all its blocks.
#[derive(Clone, Debug)]
pub struct CarrySummary {
    /// The tree and hash.
    pub kind: BinaryKind,
    /// Blocks carried.
    pub blocks: usize,
    /// The first and last block numbers, when there was a block.
    pub range: Option<(u64, u64)>,
    /// The starting state the witnesses reveal.
    pub revealed: Revealed,
    /// The root of the revealed starting state: the carried chain's genesis root.
    pub genesis_root: [u8; 32],
    /// Hashes performed building the genesis tree.
    pub genesis_hashes: u64,
    /// The root after the last block.
    pub final_root: [u8; 32],
    /// Keys in the tree after the last block.
    pub final_keys: usize,
    /// Verkle writes to a present key with 32 zero bytes, the case a tree with deletion could
    /// read as one (EIP-7864 has none: a set of zero, as in EIP-6800).
    pub zero_overwrites: usize,
    /// Verkle writes of a key's own pre-value (a read in the binary witness).
    pub noop_writes: usize,
    /// The per-block figures.
    pub columns: Columns,
}

impl CarrySummary {
    /// The summary as one JSON object: counts, roots, and `{total, median}` per figure
    /// (times in microseconds).
    pub fn to_json(&self) -> Json {
        let c = &self.columns;
        json!({
            "summary": true,
            "tree": self.kind.tree(),
            "hash": self.kind.hash(),
            "blocks": self.blocks,
            "first_block": self.range.map(|r| r.0),
            "last_block": self.range.map(|r| r.1),
            "revealed_keys": self.revealed.keys,
            "revealed_present": self.revealed.present,
            "revealed_absent": self.revealed.absent,
            "rechecked_pre_values": self.revealed.rechecked,
            "pre_values_after_write": self.revealed.after_write,
            "genesis_root": to_hex(&self.genesis_root),
            "genesis_hashes": self.genesis_hashes,
            "final_root": to_hex(&self.final_root),
            "final_keys": self.final_keys,
            "zero_overwrites": self.zero_overwrites,
            "noop_writes": self.noop_writes,
            "keys_read": c.keys_read.to_json(),
            "keys_written": c.keys_written.to_json(),
            "absent_reads": c.absent_reads.to_json(),
            "zero_writes": c.zero_writes.to_json(),
            "verkle_witness_bytes": c.verkle_witness_bytes.to_json(),
            "verkle_proof_bytes": c.verkle_proof_bytes.to_json(),
            "binary_witness_bytes": c.binary_witness_bytes.to_json(),
            "binary_proof_bytes": c.binary_proof_bytes.to_json(),
            "prove_us": c.prove_ns.to_json_us(),
            "decode_us": c.decode_ns.to_json_us(),
            "verify_us": c.verify_ns.to_json_us(),
            "decode_verify_us": c.decode_verify_ns.to_json_us(),
            "post_state_us": c.post_state_ns.to_json_us(),
            "hashes": c.hashes.to_json(),
            "verify_hashes": c.verify_hashes.to_json(),
        })
    }
}
