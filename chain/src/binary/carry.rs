//! A Verkle chain's blocks carried into an EIP-7864 binary tree, to compare the two
//! witnesses on the same blocks.
//!
//! **The tree keys are Verkle's.** Each key is the 32-byte EIP-6800 tree key the Verkle
//! witness names (31-byte stem, Pedersen-derived, ‖ suffix), used as it is as an EIP-7864 key
//! (31-byte stem ‖ sub-index). No key is re-derived with EIP-7864's own hash, so the binary
//! tree has Verkle's stem layout (which keys share a stem) and Verkle's values; what differs
//! is the tree above the stems, its hash and its witness.
//!
//! **The starting state is only what the witnesses reveal.** A binary replay from a chain's
//! genesis would need the whole genesis state; here the state is the one the blocks' own
//! witnesses show:
//! - pass 1 reads the export(s) once: for every key, the pre-value the first block touching
//!   it gives is the key's starting value (an absent pre-value leaves the key absent, nothing
//!   is inserted). A later block's pre-value must equal the key's value so far: what a block
//!   revealed ([`CarryError::Contradiction`]: the export contradicts itself) or what an
//!   earlier block wrote ([`CarryError::Unwritten`]: the state changed outside the
//!   witnesses). The tree of the revealed values (keys absent at first touch left out) is the
//!   carried chain's genesis; its root is [`CarrySummary::genesis_root`];
//! - pass 2 reads the export(s) again and carries each block: its keys (the Verkle witness's
//!   reads and writes) give the binary witness against the current tree
//!   (`bintree::eip7864::Tree::witness`), which is decoded and verified against the tree's
//!   root; every pre-value it proves must be the Verkle witness's, and the post-state root it
//!   gives from the witness alone must equal the tree's root after the block's writes.
//!
//! Writes, as the Verkle witness gives them (`newValue` set) and as the binary witness takes
//! them: every write is `Write::Set` of the new value, zero included. EIP-6800 stores 32 zero
//! bytes as a present leaf (not a deletion) and so does EIP-7864 (a leaf of value 0 hashes to
//! `hash(0^32)`, not to the empty node), so a Verkle write of zero is carried as a set of
//! zero, to an absent key as to a present one. A Verkle suffix diff cannot say "delete"
//! (`newValue` null means "not written"), and EIP-7864 has no deletion: an absent key read by
//! a block stays absent. A write of a key's own value is a read in the binary witness. The
//! summary counts these cases ([`CarrySummary::zero_overwrites`],
//! [`CarrySummary::noop_writes`], [`CarriedBlock::zero_writes`],
//! [`CarriedBlock::absent_reads`]).
//!
//! What the figures compare: the same blocks' keys, writes and pre-values, proved by a Verkle
//! witness against the chain's whole state and by a binary witness against the tree of the
//! revealed state only. That tree holds far fewer keys than the chain's state (on Kaustinen6
//! blocks 1..200, 8 keys at its genesis), so its paths are shorter and its absences end
//! higher up than they would in a binary tree of the whole state: the binary proof sizes are a
//! lower bound for these key sets, not the size a binary-tree chain would send.
//!
//! The call: [`carry_export`], one [`CarriedBlock`] per block to a callback
//! ([`CarriedBlock::to_json`] is its JSON line) and a [`CarrySummary`] at the end. The
//! example `chain/examples/carry_kaustinen.rs` runs it on an export.

mod error;
mod record;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use bintree::eip7864::witness::{Witness, HEADER_LENGTH};
use bintree::eip7864::Tree;
use bintree::witness::{Verified, Write, WriteRef};
use bintree::{Blake3, Sha256, TreeHash};
use witness::ExecutionWitness;

use super::BinaryKind;
use crate::export::{ExportReader, ExportedBlock};
pub use error::CarryError;
pub use record::{CarriedBlock, CarrySummary, Column, Columns, Revealed};

/// A tree key: stem ‖ suffix, as the Verkle witness names it.
pub type Key = [u8; 32];

/// One key of a block as its Verkle witness gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDiff {
    /// The key.
    pub key: Key,
    /// Its value before the block (`None`: absent).
    pub pre: Option<[u8; 32]>,
    /// The value the block writes (`None`: not written).
    pub new: Option<[u8; 32]>,
}

impl KeyDiff {
    /// The write the binary witness carries: a set of the new value, or a read when the block
    /// writes nothing or writes the key's own value.
    pub fn write(&self) -> Write {
        match self.new {
            Some(v) if self.pre != Some(v) => Write::Set(v),
            _ => Write::Unchanged,
        }
    }
}

/// The keys of block `number`'s witness, sorted; a key given twice is an error.
pub fn block_keys(number: u64, w: &ExecutionWitness) -> Result<Vec<KeyDiff>, CarryError> {
    let diff = w.state_diff();
    let mut keys = Vec::with_capacity(diff.suffix_diff_count());
    for stem in diff.iter() {
        for s in stem.suffix_diffs.iter() {
            let mut key = [0u8; 32];
            key[..31].copy_from_slice(stem.stem);
            key[31] = s.suffix;
            keys.push(KeyDiff {
                key,
                pre: s.current_value.copied(),
                new: s.new_value.copied(),
            });
        }
    }
    keys.sort_unstable_by_key(|k| k.key);
    if let Some(pair) = keys.windows(2).find(|p| p[0].key == p[1].key) {
        return Err(CarryError::DuplicateKey {
            block: number,
            key: pair[0].key,
        });
    }
    Ok(keys)
}

/// Size of the SSZ `VerkleProof` of `w`: the three 4-byte offsets, `d` and the 544-byte IPA
/// proof, and the three lists.
pub fn verkle_proof_bytes(w: &ExecutionWitness) -> usize {
    let p = w.verkle_proof();
    3 * 4
        + 32
        + 544
        + p.other_stems().as_bytes().len()
        + p.depth_extension_present().len()
        + p.commitments_by_path().as_bytes().len()
}

/// A key's value so far in pass 1, and the block that last gave it.
struct Seen {
    value: Option<[u8; 32]>,
    by: u64,
    written: bool,
}

/// What pass 1 found: the revealed starting state and the blocks read.
struct RevealedState {
    /// Keys present when first touched, with their values.
    values: Vec<(Key, [u8; 32])>,
    /// The block numbers, in export order.
    numbers: Vec<u64>,
    counts: Revealed,
    zero_overwrites: usize,
    noop_writes: usize,
}

/// Pass 1: the state the witnesses reveal, every later pre-value checked against it.
fn reveal(blocks: ExportReader) -> Result<RevealedState> {
    let mut seen: HashMap<Key, Seen> = HashMap::new();
    let mut out = RevealedState {
        values: Vec::new(),
        numbers: Vec::new(),
        counts: Revealed::default(),
        zero_overwrites: 0,
        noop_writes: 0,
    };
    for block in blocks {
        let block = block?;
        let n = block.number;
        out.numbers.push(n);
        for d in block_keys(n, &block.witness)? {
            match seen.get(&d.key) {
                None => {
                    match d.pre {
                        Some(v) => {
                            out.counts.present += 1;
                            out.values.push((d.key, v));
                        }
                        None => out.counts.absent += 1,
                    }
                    seen.insert(
                        d.key,
                        Seen {
                            value: d.pre,
                            by: n,
                            written: false,
                        },
                    );
                }
                Some(s) if s.value == d.pre => {
                    if s.written {
                        out.counts.after_write += 1;
                    } else {
                        out.counts.rechecked += 1;
                    }
                }
                Some(s) => {
                    return Err(match (s.written, s.value) {
                        (true, Some(written)) => CarryError::Unwritten {
                            block: n,
                            key: d.key,
                            written_by: s.by,
                            written,
                            got: d.pre,
                        },
                        _ => CarryError::Contradiction {
                            block: n,
                            key: d.key,
                            revealed_by: s.by,
                            revealed: s.value,
                            got: d.pre,
                        },
                    }
                    .into());
                }
            }
            if let Some(v) = d.new {
                if d.pre == Some(v) {
                    out.noop_writes += 1;
                } else if d.pre.is_some() && v == [0u8; 32] {
                    out.zero_overwrites += 1;
                }
                seen.insert(
                    d.key,
                    Seen {
                        value: Some(v),
                        by: n,
                        written: true,
                    },
                );
            }
        }
    }
    out.counts.keys = seen.len();
    Ok(out)
}

/// Carries the blocks of `files` (read twice) into an EIP-7864 tree of `kind` (SHA-256 or
/// BLAKE3), calling `on_block` with each block's record; returns the summary.
pub fn carry_export(
    files: &[PathBuf],
    kind: BinaryKind,
    on_block: &mut dyn FnMut(&CarriedBlock) -> Result<()>,
) -> Result<CarrySummary> {
    carry(&mut || ExportReader::new(files), kind, on_block)
}

/// [`carry_export`] over the blocks `open` reads; it is called twice, once per pass, and must
/// give the same blocks both times.
pub fn carry(
    open: &mut dyn FnMut() -> ExportReader,
    kind: BinaryKind,
    on_block: &mut dyn FnMut(&CarriedBlock) -> Result<()>,
) -> Result<CarrySummary> {
    match kind {
        BinaryKind::Eip7864Sha256 => carry_with::<Sha256>(open, kind, on_block),
        BinaryKind::Eip7864Blake3 => carry_with::<Blake3>(open, kind, on_block),
        BinaryKind::Eip8297 => Err(CarryError::Kind(kind).into()),
    }
}

fn carry_with<H: TreeHash>(
    open: &mut dyn FnMut() -> ExportReader,
    kind: BinaryKind,
    on_block: &mut dyn FnMut(&CarriedBlock) -> Result<()>,
) -> Result<CarrySummary> {
    let revealed = reveal(open())?;
    let mut tree = Tree::<H>::new();
    tree.apply(revealed.values.iter().map(|(k, v)| (k, *v)))
        .map_err(|source| CarryError::Tree { block: 0, source })?;
    let genesis_root = tree.root();
    let genesis_hashes = tree.hash_count();
    let mut summary = CarrySummary {
        kind,
        blocks: 0,
        range: None,
        revealed: revealed.counts,
        genesis_root,
        genesis_hashes,
        final_root: genesis_root,
        final_keys: tree.len(),
        zero_overwrites: revealed.zero_overwrites,
        noop_writes: revealed.noop_writes,
        columns: Columns::default(),
    };
    let mut reader = open();
    for index in 0.. {
        let first = revealed.numbers.get(index).copied();
        let block = reader.next().transpose()?;
        let second = block.as_ref().map(|b| b.number);
        if first != second {
            return Err(CarryError::ExportChanged {
                index,
                first,
                second,
            }
            .into());
        }
        let Some(block) = block else { break };
        let carried = carry_block(&mut tree, &block)?;
        summary.blocks += 1;
        summary.range = Some((summary.range.map_or(block.number, |r| r.0), block.number));
        summary.final_root = carried.post_root;
        summary.columns.push(&carried);
        on_block(&carried)?;
    }
    summary.final_keys = tree.len();
    Ok(summary)
}

/// Nanoseconds since `t`.
fn nanos(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

/// One block: its binary witness made, decoded, verified and checked against its Verkle
/// witness, then its writes applied.
fn carry_block<H: TreeHash>(
    tree: &mut Tree<H>,
    block: &ExportedBlock,
) -> Result<CarriedBlock, CarryError> {
    let n = block.number;
    let keys = block_keys(n, &block.witness)?;
    let writes: Vec<(Key, Write)> = keys.iter().map(|d| (d.key, d.write())).collect();
    let pre_root = tree.root();
    let t = Instant::now();
    let bytes = tree
        .witness(&writes)
        .map_err(|source| CarryError::Witness { block: n, source })?;
    let prove_ns = nanos(t);
    let t = Instant::now();
    let witness =
        Witness::decode::<H>(&bytes).map_err(|source| CarryError::Witness { block: n, source })?;
    let decode_ns = nanos(t);
    let t = Instant::now();
    let verified = witness
        .verify::<H>(&pre_root)
        .map_err(|source| CarryError::Witness { block: n, source })?;
    let verify_ns = nanos(t);
    let values = check_claims(n, &witness, &keys)?;
    let before = tree.hash_count();
    let t = Instant::now();
    tree.apply(keys.iter().filter_map(|d| d.new.map(|v| (d.key, v))))
        .map_err(|source| CarryError::Tree { block: n, source })?;
    let post_root = tree.root();
    let post_state_ns = nanos(t);
    if verified.post_root != post_root {
        return Err(CarryError::PostRoot {
            block: n,
            witness: verified.post_root,
            tree: post_root,
        });
    }
    let (keys_read, absent_reads, zero_writes) = keys.iter().fold((0, 0, 0), |(r, a, z), d| {
        (
            r + d.new.is_none() as usize,
            a + (d.new.is_none() && d.pre.is_none()) as usize,
            z + (d.new == Some([0u8; 32])) as usize,
        )
    });
    Ok(CarriedBlock {
        number: n,
        keys_read,
        keys_written: keys.len() - keys_read,
        absent_reads,
        zero_writes,
        verkle_witness_bytes: block.witness_bytes,
        verkle_proof_bytes: verkle_proof_bytes(&block.witness),
        binary_witness_bytes: bytes.len(),
        binary_proof_bytes: bytes
            .len()
            .saturating_sub(HEADER_LENGTH + 33 * witness.len() + 32 * values),
        binary_hashes: witness.hash_count(),
        binary_others: witness.other_count(),
        prove_ns,
        decode_ns,
        verify_ns,
        post_state_ns,
        hashes: tree.hash_count() - before,
        verify_hashes: verified.pre_hashes + verified.post_hashes,
        pre_root,
        post_root,
        witness: bytes,
    })
}

/// Checks that the binary witness claims exactly the block's keys, writes and pre-values
/// (`keys` sorted, as the witness's claims are); returns the number of values it carries.
fn check_claims(n: u64, witness: &Witness<'_>, keys: &[KeyDiff]) -> Result<usize, CarryError> {
    if witness.len() != keys.len() {
        return Err(CarryError::KeyCount {
            block: n,
            binary: witness.len(),
            verkle: keys.len(),
        });
    }
    let mut values = 0;
    for (index, (claim, d)) in witness.claims().zip(keys).enumerate() {
        let write = match claim.write {
            WriteRef::Set(v) => Write::Set(*v),
            WriteRef::Unchanged => Write::Unchanged,
            WriteRef::Delete => Write::Delete,
        };
        if claim.key != d.key || write != d.write() {
            return Err(CarryError::ClaimKey { block: n, index });
        }
        let pre = claim.pre.copied();
        if pre != d.pre {
            return Err(CarryError::ClaimMismatch {
                block: n,
                key: d.key,
                binary: pre,
                verkle: d.pre,
            });
        }
        values += pre.is_some() as usize + matches!(write, Write::Set(_)) as usize;
    }
    Ok(values)
}

/// Checks a carried block's witness as a light client would, from its bytes and the block's
/// keys (`keys`, from [`block_keys`]): it decodes, verifies against the block's pre-state
/// root, claims exactly these keys, writes and pre-values, and gives the block's post-state
/// root. Returns what the verification established.
///
/// The keys matter: a verified witness proves its own claims, and a witness whose key was
/// changed to another key absent in the same place (another empty slot of a stem) proves
/// that key's absence just as well; only the keys the caller asked about tell them apart.
pub fn verify_carried(
    kind: BinaryKind,
    block: &CarriedBlock,
    keys: &[KeyDiff],
) -> Result<Verified, CarryError> {
    match kind {
        BinaryKind::Eip7864Sha256 => verify_with::<Sha256>(block, keys),
        BinaryKind::Eip7864Blake3 => verify_with::<Blake3>(block, keys),
        BinaryKind::Eip8297 => Err(CarryError::Kind(kind)),
    }
}

fn verify_with<H: TreeHash>(
    block: &CarriedBlock,
    keys: &[KeyDiff],
) -> Result<Verified, CarryError> {
    let n = block.number;
    let (witness, verified) =
        bintree::eip7864::witness::verify::<H>(&block.witness, &block.pre_root)
            .map_err(|source| CarryError::Witness { block: n, source })?;
    check_claims(n, &witness, keys)?;
    if verified.post_root != block.post_root {
        return Err(CarryError::PostRoot {
            block: n,
            witness: verified.post_root,
            tree: block.post_root,
        });
    }
    Ok(verified)
}
