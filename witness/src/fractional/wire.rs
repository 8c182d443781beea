//! The fractional proof's wire form (`spec/FRACTIONAL.md` §4): the zero-copy view that
//! decodes it. The owned form that encodes it is in `owned.rs`.
//!
//! All integers are big-endian. Decoding reads every count, checks that the bytes left can
//! hold that many items of the smallest size before reserving anything, and records offsets
//! into the one [`Bytes`] buffer: the same index tables an SSZ witness has, so the standard
//! witness views ([`StateDiff`], [`VerkleProof`]) read the proof's stems, statuses, other
//! stems, commitments and multiproof in place.

use crate::prelude::*;

use core::ops::Range;

use banderwagon::{fr_from_le_bytes_canonical, Fr};
use bytes::Bytes;

use super::decode_error::FractionalDecodeError;
use super::header::{FLAG_COORDINATOR, VERSION};
use super::owned::{OwnedFractionalProof, OwnedFractionalStem, OwnedFractionalSuffix};
use crate::preset::{MULTIPROOF_LEN, STEM_LEN};
use crate::ssz::{DiffEntry, Layout, StemEntry};
use crate::view::{StateDiff, VerkleProof};

/// Smallest stem: its status byte, stem, suffix count, one suffix diff without values.
const MIN_STEM_LEN: usize = 1 + STEM_LEN + 1 + 2;
/// Smallest suffix diff: suffix and presence byte.
const MIN_DIFF_LEN: usize = 2;
/// Presence bits: current value, new value, deleted (the key is removed; it needs a current
/// value and excludes a new one).
const PRESENT_CURRENT: u8 = 1;
const PRESENT_NEW: u8 = 2;
const PRESENT_DELETED: u8 = 4;

/// A decoded fractional proof: views into its one buffer.
#[derive(Clone, Debug)]
pub struct FractionalProof {
    buf: Bytes,
    depth: u8,
    flags: u8,
    /// The witness the proof carries, indexed like an SSZ witness.
    layout: Layout,
    /// The internal witnesses, decoded (each < r and ≠ 1).
    witnesses: Vec<Fr>,
    /// Bytes of the coordinator siblings (a multiple of 32), when carried.
    siblings: Option<Range<usize>>,
    /// The suffix diffs that delete their key, as indices into the proof's diffs (stem
    /// order, then suffix order), ascending.
    deleted: Vec<u32>,
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.buf.len().saturating_sub(self.at)
    }

    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], FractionalDecodeError> {
        let s = self
            .at
            .checked_add(n)
            .and_then(|end| self.buf.get(self.at..end))
            .ok_or(FractionalDecodeError::Truncated {
                field,
                offset: self.at,
                needed: n,
                available: self.left(),
            })?;
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, FractionalDecodeError> {
        Ok(self.take(1, field)?.first().copied().unwrap_or(0))
    }

    fn u16(&mut self, field: &'static str) -> Result<usize, FractionalDecodeError> {
        let s = self.take(2, field)?;
        Ok(usize::from(u16::from_be_bytes([
            s.first().copied().unwrap_or(0),
            s.get(1).copied().unwrap_or(0),
        ])))
    }

    fn u32(&mut self, field: &'static str) -> Result<usize, FractionalDecodeError> {
        let s = self.take(4, field)?;
        let mut b = [0u8; 4];
        b.copy_from_slice(s);
        usize::try_from(u32::from_be_bytes(b)).map_err(|_| FractionalDecodeError::Truncated {
            field,
            offset: self.at,
            needed: usize::MAX,
            available: self.left(),
        })
    }

    /// Checks that `count` items of at least `min` bytes can fit in what is left.
    fn room(
        &self,
        count: usize,
        min: usize,
        field: &'static str,
    ) -> Result<(), FractionalDecodeError> {
        let needed = count.saturating_mul(min);
        if needed > self.left() {
            return Err(FractionalDecodeError::Truncated {
                field,
                offset: self.at,
                needed,
                available: self.left(),
            });
        }
        Ok(())
    }

    /// A counted list of `count` items of `size` bytes: its byte range.
    fn list(
        &mut self,
        count: usize,
        size: usize,
        field: &'static str,
    ) -> Result<Range<usize>, FractionalDecodeError> {
        let at = self.at;
        self.take(count.saturating_mul(size), field)?;
        Ok(at..self.at)
    }
}

/// The `N` bytes at `at` (validated at decode; zeros if out of range, unreachable).
fn array_at<const N: usize>(buf: &[u8], at: usize) -> &[u8; N] {
    at.checked_add(N)
        .and_then(|end| buf.get(at..end))
        .and_then(|s| <&[u8; N]>::try_from(s).ok())
        .unwrap_or(&[0; N])
}

impl FractionalProof {
    /// Decodes a fractional proof (`spec/FRACTIONAL.md` §4.1, F-DEC). The buffer is kept;
    /// views borrow from it. The canonical form of the witness it carries (ascending stems,
    /// statuses, …) is checked by [`verify_fractional`](super::verify_fractional).
    pub fn from_bytes(buf: Bytes) -> Result<FractionalProof, FractionalDecodeError> {
        use FractionalDecodeError as E;
        if u32::try_from(buf.len()).is_err() {
            return Err(E::TooLarge { len: buf.len() });
        }
        let mut r = Reader { buf: &buf, at: 0 };
        let version = r.u8("version")?;
        if version != VERSION {
            return Err(E::BadVersion(version));
        }
        let depth = r.u8("shard depth")?;
        if !(1..=2).contains(&depth) {
            return Err(E::BadDepth(depth));
        }
        let flags = r.u8("flags")?;
        if flags & !FLAG_COORDINATOR != 0 {
            return Err(E::BadFlags(flags));
        }
        r.take(32, "state root")?;
        let stem_count = r.u16("stem count")?;
        if stem_count == 0 {
            return Err(E::NoKeys);
        }
        r.room(stem_count, MIN_STEM_LEN, "stems")?;
        let ext = r.list(stem_count, 1, "extension statuses")?;
        let mut stems: Vec<StemEntry> = Vec::with_capacity(stem_count);
        // Bounded by the bytes left (2 per diff); grows geometrically from one per stem.
        let mut diffs: Vec<DiffEntry> = Vec::with_capacity(stem_count);
        let mut deleted: Vec<u32> = Vec::new();
        for stem_index in 0..stem_count {
            let stem_at = r.at;
            r.take(STEM_LEN, "stem")?;
            let m = usize::from(r.u8("suffix count")?) + 1;
            r.room(m, MIN_DIFF_LEN, "suffix diffs")?;
            // Positions fit in u32: the buffer is shorter than 2^32.
            stems.push(StemEntry {
                stem_at: stem_at as u32,
                first_diff: diffs.len() as u32,
                diff_count: m as u32,
            });
            for _ in 0..m {
                let suffix = r.u8("suffix")?;
                let presence = r.u8("presence")?;
                let deletes = presence & PRESENT_DELETED != 0;
                if presence & !(PRESENT_CURRENT | PRESENT_NEW | PRESENT_DELETED) != 0
                    || (deletes && presence & (PRESENT_CURRENT | PRESENT_NEW) != PRESENT_CURRENT)
                {
                    return Err(E::BadPresence {
                        stem_index,
                        suffix,
                        byte: presence,
                    });
                }
                let mut value = |bit: u8, field| -> Result<Option<u32>, E> {
                    if presence & bit == 0 {
                        return Ok(None);
                    }
                    let at = r.at as u32;
                    r.take(32, field)?;
                    Ok(Some(at))
                };
                let current_at = value(PRESENT_CURRENT, "current value")?;
                let new_at = value(PRESENT_NEW, "new value")?;
                if deletes {
                    // Below 2^32: one diff takes at least 2 of the buffer's < 2^32 bytes.
                    deleted.push(diffs.len() as u32);
                }
                diffs.push(DiffEntry {
                    suffix,
                    current_at,
                    new_at,
                });
            }
        }
        let other_count = r.u16("other stem count")?;
        let other_stems = r.list(other_count, STEM_LEN, "other stems")?;
        let commitment_count = r.u32("commitment count")?;
        let commitments = r.list(commitment_count, 32, "commitments")?;
        let witness_count = r.u16("internal witness count")?;
        let witness_bytes = r.list(witness_count, 32, "internal witnesses")?;
        let siblings = if flags & FLAG_COORDINATOR != 0 {
            let count = r.u16("sibling count")?;
            Some(r.list(count, 32, "coordinator siblings")?)
        } else {
            None
        };
        let multiproof_at = r.at;
        r.take(MULTIPROOF_LEN, "multiproof")?;
        if r.left() > 0 {
            return Err(E::TrailingBytes { extra: r.left() });
        }
        let mut witnesses = Vec::with_capacity(witness_count);
        for (index, bytes) in buf
            .get(witness_bytes)
            .expect("`list` took these bytes from the buffer")
            .chunks_exact(32)
            .enumerate()
        {
            let w = fr_from_le_bytes_canonical(bytes)
                .map_err(|_| E::InternalWitnessScalar { index })?;
            if w == Fr::from(1u8) {
                return Err(E::InternalWitnessOne { index });
            }
            witnesses.push(w);
        }
        let layout = Layout {
            stems,
            diffs,
            multiproof_at,
            other_stems,
            depth_extension_present: ext,
            commitments_by_path: commitments,
        };
        Ok(FractionalProof {
            buf,
            depth,
            flags,
            layout,
            witnesses,
            siblings,
            deleted,
        })
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &Bytes {
        &self.buf
    }

    /// Every byte before the multiproof: what the multiproof's transcript absorbs first.
    pub fn body(&self) -> &[u8] {
        self.buf
            .get(..self.layout.multiproof_at)
            .expect("decoding took the multiproof's bytes after this offset")
    }

    /// The shard depth (1 or 2).
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The flags byte.
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Whether the coordinator path is carried (the proof verifies against a coordinator
    /// root as well as the state root).
    pub fn carries_coordinator_path(&self) -> bool {
        self.siblings.is_some()
    }

    /// `compress(R)`: the canonical root commitment the proof hangs from.
    pub fn state_root(&self) -> &[u8; 32] {
        array_at(&self.buf, 3)
    }

    /// The stems and suffix diffs (current and new values), as a standard witness's.
    pub fn state_diff(&self) -> StateDiff<'_> {
        StateDiff::new(&self.buf, &self.layout)
    }

    /// Extension statuses, other stems, commitments and multiproof, as a standard
    /// witness's `verkle_proof`.
    pub fn verkle_proof(&self) -> VerkleProof<'_> {
        VerkleProof::new(&self.buf, &self.layout)
    }

    /// The suffix diffs that delete their key (presence bit 2), as indices into the
    /// proof's diffs in stem order then suffix order — the order of
    /// [`VerifiedWitness::keys`](crate::VerifiedWitness::keys) — ascending.
    pub fn deleted_diffs(&self) -> &[u32] {
        &self.deleted
    }

    /// The internal witnesses (`spec/FRACTIONAL.md` §4.3), in order.
    pub fn internal_witnesses(&self) -> &[Fr] {
        &self.witnesses
    }

    /// The coordinator siblings, in canonical order (empty when not carried).
    pub fn siblings(&self) -> impl ExactSizeIterator<Item = &[u8; 32]> + '_ {
        self.siblings
            .clone()
            .map(|r| {
                self.buf
                    .get(r)
                    .expect("decoding took the siblings' bytes from the buffer")
            })
            .unwrap_or(&[])
            .chunks_exact(32)
            .map(|c| array_at::<32>(c, 0))
    }

    /// The owned form, read through the views: encoding it gives back [`Self::as_bytes`].
    pub fn to_owned_proof(&self) -> OwnedFractionalProof {
        let state_diff = self.state_diff();
        let verkle_proof = self.verkle_proof();
        let mut diff_index = 0u32;
        let stems = state_diff
            .iter()
            .zip(verkle_proof.depth_extension_present())
            .map(|(s, &ext)| OwnedFractionalStem {
                stem: *s.stem,
                ext,
                suffixes: s
                    .suffix_diffs
                    .iter()
                    .map(|d| {
                        let deleted = self.deleted.binary_search(&diff_index).is_ok();
                        diff_index += 1;
                        OwnedFractionalSuffix {
                            suffix: d.suffix,
                            current_value: d.current_value.copied(),
                            new_value: d.new_value.copied(),
                            deleted,
                        }
                    })
                    .collect(),
            })
            .collect();
        OwnedFractionalProof {
            depth: self.depth,
            root: *self.state_root(),
            stems,
            other_stems: verkle_proof.other_stems().iter().copied().collect(),
            commitments: verkle_proof.commitments_by_path().iter().copied().collect(),
            internal_witnesses: self
                .witnesses
                .iter()
                .map(banderwagon::fr_to_le_bytes)
                .collect(),
            siblings: self
                .siblings
                .as_ref()
                .map(|_| self.siblings().copied().collect()),
            multiproof: verkle_proof.multiproof_bytes(),
        }
    }

    /// The `k`-th coordinator sibling.
    pub fn sibling(&self, k: usize) -> Option<&[u8; 32]> {
        let range = self.siblings.clone()?;
        let at = range.start.checked_add(k.checked_mul(32)?)?;
        (at + 32 <= range.end).then(|| array_at(&self.buf, at))
    }
}
