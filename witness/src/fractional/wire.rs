//! The fractional proof's wire form (`spec/FRACTIONAL.md` §4): the owned form that encodes
//! it, and the zero-copy view that decodes it.
//!
//! All integers are big-endian. Decoding reads every count, checks that the bytes left can
//! hold that many items of the smallest size before reserving anything, and records offsets
//! into the one [`Bytes`] buffer in three tables (shards, stems, suffix diffs): a constant
//! number of allocations whatever the proof's size.

use crate::prelude::*;

use bytes::Bytes;

use crate::preset::{MULTIPROOF_LEN, STEM_LEN};

/// The only version this crate reads and writes.
pub const VERSION: u8 = 1;

/// Fixed header: version, shard depth, shard-entry count.
const HEADER_LEN: usize = 4;
/// Smallest shard entry: index, commitment, stem count.
const MIN_SHARD_LEN: usize = 2 + 32 + 2;
/// Smallest stem: stem, extension byte, suffix count, one absent suffix.
const MIN_STEM_LEN: usize = STEM_LEN + 1 + 2 + 2;
/// Smallest suffix diff: suffix and presence byte.
const MIN_DIFF_LEN: usize = 2;

/// One proven suffix of the owned form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnedFractionalSuffix {
    /// The suffix.
    pub suffix: u8,
    /// The current value; `None` = absent.
    pub current_value: Option<[u8; 32]>,
}

/// One proven stem of the owned form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedFractionalStem {
    /// The stem.
    pub stem: [u8; STEM_LEN],
    /// `(depth << 3) | extension status`, depth counted from the canonical root.
    pub ext: u8,
    /// The proven suffixes, ascending.
    pub suffixes: Vec<OwnedFractionalSuffix>,
}

/// One touched shard of the owned form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedShardEntry {
    /// The shard index.
    pub index: u16,
    /// `compress(C_i)`.
    pub commitment: [u8; 32],
    /// Its proven stems, ascending.
    pub stems: Vec<OwnedFractionalStem>,
}

/// A fractional proof, owned: what a prover builds and encodes with
/// [`OwnedFractionalProof::to_bytes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedFractionalProof {
    /// Shard depth: 1 or 2.
    pub depth: u8,
    /// The touched shards, index ascending.
    pub shards: Vec<OwnedShardEntry>,
    /// The coordinator multiproof's siblings, in canonical order.
    pub siblings: Vec<[u8; 32]>,
    /// Stems of the leaves reached only by absent-other stems, ascending.
    pub other_stems: Vec<[u8; STEM_LEN]>,
    /// Commitments of the proven nodes below the shard tops, in path order.
    pub commitments: Vec<[u8; 32]>,
    /// The IPA multiproof `D ‖ L[8] ‖ R[8] ‖ a` (all zero when there is no opening).
    pub multiproof: [u8; MULTIPROOF_LEN],
}

/// A count of `field`, as the wire format's `N`-byte big-endian integer; `item` says which
/// shard entry or stem it belongs to, for the error.
fn count_bytes<const N: usize>(
    field: &'static str,
    item: Option<usize>,
    count: usize,
) -> Result<[u8; N], FractionalEncodeError> {
    let max = if N >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * N)) - 1
    };
    let wide = u64::try_from(count).ok().filter(|&c| c <= max).ok_or(
        FractionalEncodeError::CountOverflow {
            field,
            item,
            count,
            max,
        },
    )?;
    let be = wide.to_be_bytes();
    let mut out = [0u8; N];
    out.copy_from_slice(be.get(8 - N..).unwrap_or(&[]));
    Ok(out)
}

impl OwnedFractionalProof {
    /// The wire form. Counts are the format's fixed-width integers: 16 bits for the shard
    /// entries, the stems of one entry, the suffixes of one stem, the siblings and the other
    /// stems, 32 bits for the commitments. A proof with more items than its count can hold
    /// is not representable and is refused with [`FractionalEncodeError::CountOverflow`]
    /// (`fractional::ShardedTree::prove_fractional` refuses to build one).
    pub fn to_bytes(&self) -> Result<Vec<u8>, FractionalEncodeError> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(VERSION);
        out.push(self.depth);
        out.extend(count_bytes::<2>("shard count", None, self.shards.len())?);
        let mut stem_index = 0usize;
        for (entry, s) in self.shards.iter().enumerate() {
            out.extend(s.index.to_be_bytes());
            out.extend(s.commitment);
            out.extend(count_bytes::<2>("stem count", Some(entry), s.stems.len())?);
            for st in &s.stems {
                out.extend(st.stem);
                out.push(st.ext);
                out.extend(count_bytes::<2>(
                    "suffix count",
                    Some(stem_index),
                    st.suffixes.len(),
                )?);
                stem_index += 1;
                for d in &st.suffixes {
                    out.push(d.suffix);
                    match &d.current_value {
                        None => out.push(0),
                        Some(v) => {
                            out.push(1);
                            out.extend(v);
                        }
                    }
                }
            }
        }
        out.extend(count_bytes::<2>(
            "sibling count",
            None,
            self.siblings.len(),
        )?);
        self.siblings.iter().for_each(|s| out.extend(s));
        out.extend(count_bytes::<2>(
            "other stem count",
            None,
            self.other_stems.len(),
        )?);
        self.other_stems.iter().for_each(|s| out.extend(s));
        out.extend(count_bytes::<4>(
            "commitment count",
            None,
            self.commitments.len(),
        )?);
        self.commitments.iter().for_each(|c| out.extend(c));
        out.extend(self.multiproof);
        Ok(out)
    }

    /// Length of [`OwnedFractionalProof::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        let stems: usize = self
            .shards
            .iter()
            .flat_map(|s| &s.stems)
            .map(|st| {
                STEM_LEN
                    + 3
                    + st.suffixes
                        .iter()
                        .map(|d| 2 + if d.current_value.is_some() { 32 } else { 0 })
                        .sum::<usize>()
            })
            .sum();
        HEADER_LEN
            + self.shards.len() * MIN_SHARD_LEN
            + stems
            + 2
            + 32 * self.siblings.len()
            + 2
            + STEM_LEN * self.other_stems.len()
            + 4
            + 32 * self.commitments.len()
            + MULTIPROOF_LEN
    }
}

/// Why an [`OwnedFractionalProof`] cannot be written in the wire form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalEncodeError {
    /// More items than their count field can hold.
    #[error("{field}{}: {count} items, the field holds at most {max}", owner(field, *item))]
    CountOverflow {
        /// The count field: `shard count`, `stem count`, `suffix count`, `sibling count`,
        /// `other stem count` or `commitment count`.
        field: &'static str,
        /// For a stem count, the shard entry's position; for a suffix count, the stem's
        /// index over all shard entries.
        item: Option<usize>,
        /// The number of items.
        count: usize,
        /// The largest count the field holds.
        max: u64,
    },
}

/// The shard entry or stem a count belongs to, for [`FractionalEncodeError`]'s message.
fn owner(field: &str, item: Option<usize>) -> String {
    match (field, item) {
        ("stem count", Some(i)) => format!(" of shard entry {i}"),
        ("suffix count", Some(i)) => format!(" of stem {i}"),
        (_, Some(i)) => format!(" of item {i}"),
        (_, None) => String::new(),
    }
}

/// Why bytes are not a fractional proof in canonical form. Offsets count from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalDecodeError {
    /// The bytes end before a field.
    #[error("{field} at offset {offset} needs {needed} bytes, {available} left")]
    Truncated {
        /// The field.
        field: &'static str,
        /// Where it starts.
        offset: usize,
        /// Bytes it needs (for a list, at least).
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// Bytes are left after the multiproof.
    #[error("{extra} bytes after the end of the proof")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The version byte is not [`VERSION`].
    #[error("version {0} (this decoder reads version 1)")]
    BadVersion(u8),
    /// The shard depth is not 1 or 2.
    #[error("shard depth {0} (must be 1 or 2)")]
    BadDepth(u8),
    /// The proof lists no shard.
    #[error("the proof lists no shard")]
    NoShards,
    /// A shard index does not exist at this depth (≥ 256 at depth 1).
    #[error("shard entry {entry}: index {index} is out of range for shard depth {depth}")]
    ShardOutOfRange {
        /// Entry position.
        entry: usize,
        /// The index.
        index: u16,
        /// The shard depth.
        depth: u8,
    },
    /// Two shard entries have the same index.
    #[error("shard entries {entry} and {} both have index {index}", entry - 1)]
    DuplicateShard {
        /// Position of the second entry.
        entry: usize,
        /// The index.
        index: u16,
    },
    /// Shard entries are not in ascending index order.
    #[error("shard entry {entry} (index {index}) is below the entry before it")]
    ShardsNotAscending {
        /// Entry position.
        entry: usize,
        /// The index.
        index: u16,
    },
    /// A shard entry proves no stem.
    #[error("shard entry {entry} has no stems")]
    EmptyShardEntry {
        /// Entry position.
        entry: usize,
    },
    /// Stems are not strictly ascending (over the whole proof).
    #[error("stem {stem_index} is not above the stem before it")]
    StemsNotAscending {
        /// Index over all stems.
        stem_index: usize,
    },
    /// A stem proves no suffix.
    #[error("stem {stem_index} has no suffixes")]
    EmptyStem {
        /// Index over all stems.
        stem_index: usize,
    },
    /// Suffixes of a stem are not strictly ascending, or there are more than 256.
    #[error("stem {stem_index}: suffix {position} is not above the one before it")]
    SuffixesNotAscending {
        /// Index over all stems.
        stem_index: usize,
        /// Position within the stem.
        position: usize,
    },
    /// A presence byte is neither 0 nor 1.
    #[error("stem {stem_index}, suffix {suffix}: presence byte {byte} (must be 0 or 1)")]
    BadPresence {
        /// Index over all stems.
        stem_index: usize,
        /// The suffix.
        suffix: u8,
        /// The byte.
        byte: u8,
    },
    /// `other_stems` is not strictly ascending.
    #[error("other_stems[{index}] is not above the one before it")]
    OtherStemsNotAscending {
        /// Its index.
        index: usize,
    },
}

/// A shard entry's place in the buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShardLayout {
    pub index: u16,
    pub commitment_at: usize,
    pub first_stem: usize,
    pub stem_count: usize,
}

/// A stem's place in the buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StemLayout {
    pub stem_at: usize,
    pub ext: u8,
    pub first_diff: usize,
    pub diff_count: usize,
}

/// A suffix diff: the suffix and where its value is (if present).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DiffLayout {
    pub suffix: u8,
    pub value_at: Option<usize>,
}

/// A decoded fractional proof: views into its one buffer.
#[derive(Clone, Debug)]
pub struct FractionalProof {
    buf: Bytes,
    depth: u8,
    pub(crate) shards: Vec<ShardLayout>,
    pub(crate) stems: Vec<StemLayout>,
    pub(crate) diffs: Vec<DiffLayout>,
    siblings: (usize, usize),
    other_stems: (usize, usize),
    commitments: (usize, usize),
    multiproof_at: usize,
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

    fn u16(&mut self, field: &'static str) -> Result<u16, FractionalDecodeError> {
        let s = self.take(2, field)?;
        Ok(u16::from_be_bytes([
            s.first().copied().unwrap_or(0),
            s.get(1).copied().unwrap_or(0),
        ]))
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, FractionalDecodeError> {
        let s = self.take(4, field)?;
        let mut b = [0u8; 4];
        b.copy_from_slice(s);
        Ok(u32::from_be_bytes(b))
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

    /// A list of `count` fixed-size items: `(offset, count)`.
    fn list(
        &mut self,
        count: usize,
        size: usize,
        field: &'static str,
    ) -> Result<(usize, usize), FractionalDecodeError> {
        let at = self.at;
        self.take(count.saturating_mul(size), field)?;
        Ok((at, count))
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
    /// Decodes and checks the canonical form of a fractional proof (`spec/FRACTIONAL.md`
    /// §4–5). The buffer is kept; views borrow from it.
    pub fn from_bytes(buf: Bytes) -> Result<FractionalProof, FractionalDecodeError> {
        use FractionalDecodeError as E;
        let mut r = Reader { buf: &buf, at: 0 };
        let version = r.u8("version")?;
        if version != VERSION {
            return Err(E::BadVersion(version));
        }
        let depth = r.u8("shard depth")?;
        if !(1..=2).contains(&depth) {
            return Err(E::BadDepth(depth));
        }
        let shard_count = usize::from(r.u16("shard count")?);
        if shard_count == 0 {
            return Err(E::NoShards);
        }
        r.room(shard_count, MIN_SHARD_LEN + MIN_STEM_LEN, "shard entries")?;
        let mut shards = Vec::with_capacity(shard_count);
        // Stems and diffs are bounded by the bytes left; grow geometrically from a guess.
        let mut stems: Vec<StemLayout> = Vec::with_capacity(shard_count);
        let mut diffs: Vec<DiffLayout> = Vec::with_capacity(shard_count);
        let mut prev_index: Option<u16> = None;
        let mut prev_stem: Option<&[u8]> = None;
        for entry in 0..shard_count {
            let index = r.u16("shard index")?;
            if depth == 1 && index > 0xff {
                return Err(E::ShardOutOfRange {
                    entry,
                    index,
                    depth,
                });
            }
            match prev_index {
                Some(p) if p == index => return Err(E::DuplicateShard { entry, index }),
                Some(p) if p > index => return Err(E::ShardsNotAscending { entry, index }),
                _ => {}
            }
            prev_index = Some(index);
            let commitment_at = r.at;
            r.take(32, "shard commitment")?;
            let stem_count = usize::from(r.u16("stem count")?);
            if stem_count == 0 {
                return Err(E::EmptyShardEntry { entry });
            }
            r.room(stem_count, MIN_STEM_LEN, "stems")?;
            let first_stem = stems.len();
            for _ in 0..stem_count {
                let stem_index = stems.len();
                let stem_at = r.at;
                let stem = r.take(STEM_LEN, "stem")?;
                if prev_stem.is_some_and(|p| stem <= p) {
                    return Err(E::StemsNotAscending { stem_index });
                }
                prev_stem = Some(stem);
                let ext = r.u8("extension byte")?;
                let diff_count = usize::from(r.u16("suffix count")?);
                if diff_count == 0 {
                    return Err(E::EmptyStem { stem_index });
                }
                r.room(diff_count, MIN_DIFF_LEN, "suffix diffs")?;
                let first_diff = diffs.len();
                let mut prev_suffix: Option<u8> = None;
                for position in 0..diff_count {
                    let suffix = r.u8("suffix")?;
                    if prev_suffix.is_some_and(|p| suffix <= p) {
                        return Err(E::SuffixesNotAscending {
                            stem_index,
                            position,
                        });
                    }
                    prev_suffix = Some(suffix);
                    let value_at = match r.u8("presence byte")? {
                        0 => None,
                        1 => {
                            let at = r.at;
                            r.take(32, "value")?;
                            Some(at)
                        }
                        byte => {
                            return Err(E::BadPresence {
                                stem_index,
                                suffix,
                                byte,
                            })
                        }
                    };
                    diffs.push(DiffLayout { suffix, value_at });
                }
                stems.push(StemLayout {
                    stem_at,
                    ext,
                    first_diff,
                    diff_count,
                });
            }
            shards.push(ShardLayout {
                index,
                commitment_at,
                first_stem,
                stem_count,
            });
        }
        let sibling_count = usize::from(r.u16("sibling count")?);
        let siblings = r.list(sibling_count, 32, "siblings")?;
        let other_count = usize::from(r.u16("other stem count")?);
        let other_stems = r.list(other_count, STEM_LEN, "other stems")?;
        let commitment_count = usize::try_from(r.u32("commitment count")?).unwrap_or(usize::MAX);
        let commitments = r.list(commitment_count, 32, "commitments")?;
        let multiproof_at = r.at;
        r.take(MULTIPROOF_LEN, "multiproof")?;
        if r.left() != 0 {
            return Err(E::TrailingBytes { extra: r.left() });
        }
        let proof = FractionalProof {
            depth,
            shards,
            stems,
            diffs,
            siblings,
            other_stems,
            commitments,
            multiproof_at,
            buf,
        };
        let mut prev: Option<&[u8; STEM_LEN]> = None;
        for (index, s) in proof.other_stems().enumerate() {
            if prev.is_some_and(|p| s <= p) {
                return Err(E::OtherStemsNotAscending { index });
            }
            prev = Some(s);
        }
        Ok(proof)
    }

    /// The encoded proof.
    pub fn as_bytes(&self) -> &Bytes {
        &self.buf
    }

    /// Shard depth: 1 or 2.
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// Number of shard entries.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Shard entry `i`: its index and compressed commitment.
    pub fn shard(&self, i: usize) -> Option<(u16, &[u8; 32])> {
        let s = self.shards.get(i)?;
        Some((s.index, array_at(&self.buf, s.commitment_at)))
    }

    /// Stem `i` (over all shard entries): the stem and its extension byte.
    pub fn stem(&self, i: usize) -> Option<(&[u8; STEM_LEN], u8)> {
        let s = self.stems.get(i)?;
        Some((array_at(&self.buf, s.stem_at), s.ext))
    }

    /// The suffix diffs of stem `i`: `(suffix, current value)`.
    pub fn suffixes(&self, i: usize) -> impl Iterator<Item = (u8, Option<&[u8; 32]>)> + '_ {
        let range = self
            .stems
            .get(i)
            .map_or(0..0, |s| s.first_diff..s.first_diff + s.diff_count);
        self.diffs
            .get(range)
            .unwrap_or(&[])
            .iter()
            .map(|d| (d.suffix, d.value_at.map(|at| array_at(&self.buf, at))))
    }

    /// The coordinator multiproof's siblings.
    pub fn siblings(&self) -> impl ExactSizeIterator<Item = &[u8; 32]> + '_ {
        self.chunks::<32>(self.siblings)
    }

    /// `other_stems`.
    pub fn other_stems(&self) -> impl ExactSizeIterator<Item = &[u8; STEM_LEN]> + '_ {
        self.chunks::<STEM_LEN>(self.other_stems)
    }

    /// The commitments below the shard tops, in path order.
    pub fn commitments(&self) -> impl ExactSizeIterator<Item = &[u8; 32]> + '_ {
        self.chunks::<32>(self.commitments)
    }

    /// Sibling `k`.
    pub fn sibling(&self, k: usize) -> Option<&[u8; 32]> {
        (k < self.siblings.1).then(|| array_at(&self.buf, self.siblings.0 + 32 * k))
    }

    /// The multiproof bytes.
    pub fn multiproof(&self) -> &[u8; MULTIPROOF_LEN] {
        array_at(&self.buf, self.multiproof_at)
    }

    fn chunks<const N: usize>(
        &self,
        (at, count): (usize, usize),
    ) -> impl ExactSizeIterator<Item = &[u8; N]> + '_ {
        (0..count).map(move |k| array_at::<N>(&self.buf, at + N * k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX16: usize = u16::MAX as usize;

    fn stem_of(i: usize) -> [u8; STEM_LEN] {
        let mut stem = [0u8; STEM_LEN];
        stem[..8].copy_from_slice(&(i as u64).to_be_bytes());
        stem
    }

    fn suffix(suffix: u8) -> OwnedFractionalSuffix {
        OwnedFractionalSuffix {
            suffix,
            current_value: Some([suffix; 32]),
        }
    }

    fn stem(i: usize) -> OwnedFractionalStem {
        OwnedFractionalStem {
            stem: stem_of(i),
            ext: (2 << 3) | 2,
            suffixes: vec![suffix(7)],
        }
    }

    /// A depth-2 proof with `shards` entries (one stem each, stems ascending over the
    /// proof), `siblings` siblings and `others` ascending other stems.
    fn proof(shards: usize, siblings: usize, others: usize) -> OwnedFractionalProof {
        OwnedFractionalProof {
            depth: 2,
            shards: (0..shards)
                .map(|i| OwnedShardEntry {
                    index: u16::try_from(i).unwrap(),
                    commitment: [0x11; 32],
                    stems: vec![stem(i)],
                })
                .collect(),
            siblings: (0..siblings).map(|i| [(i % 251) as u8; 32]).collect(),
            other_stems: (0..others).map(stem_of).collect(),
            commitments: vec![[0x22; 32]; 3],
            multiproof: [0x33; MULTIPROOF_LEN],
        }
    }

    fn overflow(p: &OwnedFractionalProof) -> (&'static str, Option<usize>, usize, u64) {
        match p.to_bytes() {
            Err(FractionalEncodeError::CountOverflow {
                field,
                item,
                count,
                max,
            }) => (field, item, count, max),
            other => panic!("expected CountOverflow, got {other:?}"),
        }
    }

    #[test]
    fn count_fields_hold_their_maximum_and_refuse_one_more() {
        assert_eq!(count_bytes::<2>("f", None, 0), Ok([0, 0]));
        assert_eq!(count_bytes::<2>("f", None, 0x1234), Ok([0x12, 0x34]));
        assert_eq!(count_bytes::<2>("f", None, MAX16), Ok([0xff, 0xff]));
        assert_eq!(
            count_bytes::<2>("f", Some(4), MAX16 + 1),
            Err(FractionalEncodeError::CountOverflow {
                field: "f",
                item: Some(4),
                count: MAX16 + 1,
                max: 65_535,
            })
        );
        let max32 = usize::try_from(u32::MAX).unwrap();
        assert_eq!(count_bytes::<4>("f", None, max32), Ok([0xff; 4]));
        assert_eq!(
            count_bytes::<4>("f", None, max32 + 1),
            Err(FractionalEncodeError::CountOverflow {
                field: "f",
                item: None,
                count: max32 + 1,
                max: u64::from(u32::MAX),
            })
        );
    }

    #[test]
    fn proof_at_every_16_bit_limit_round_trips() {
        let p = proof(MAX16, MAX16, MAX16);
        let bytes = p.to_bytes().unwrap();
        assert_eq!(bytes.len(), p.encoded_len());
        let d = FractionalProof::from_bytes(Bytes::from(bytes)).unwrap();
        assert_eq!(d.depth(), 2);
        assert_eq!(d.shard_count(), MAX16);
        for i in [0, 1, MAX16 - 1] {
            let (index, commitment) = d.shard(i).unwrap();
            assert_eq!(usize::from(index), i);
            assert_eq!(commitment, &[0x11; 32]);
            assert_eq!(d.stem(i), Some((&stem_of(i), (2 << 3) | 2)));
            let diffs: Vec<_> = d.suffixes(i).collect();
            assert_eq!(diffs, vec![(7, Some(&[7u8; 32]))]);
        }
        assert_eq!(d.siblings().len(), MAX16);
        assert_eq!(d.sibling(MAX16 - 1), p.siblings.last());
        assert!(d.other_stems().eq(p.other_stems.iter()));
        assert_eq!(d.commitments().len(), 3);
        assert_eq!(d.multiproof(), &[0x33; MULTIPROOF_LEN]);

        let mut many_stems = proof(1, 0, 0);
        many_stems.shards[0].stems = (0..MAX16).map(stem).collect();
        let d = FractionalProof::from_bytes(Bytes::from(many_stems.to_bytes().unwrap())).unwrap();
        assert_eq!(d.shards.first().map(|s| s.stem_count), Some(MAX16));
        assert_eq!(d.stem(MAX16 - 1).map(|s| *s.0), Some(stem_of(MAX16 - 1)));
    }

    #[test]
    fn proof_over_a_16_bit_limit_is_refused_naming_the_count() {
        // 65,536 shards: every shard of depth 2, which the format cannot list in one proof.
        assert_eq!(
            overflow(&proof(MAX16 + 1, 0, 0)),
            ("shard count", None, MAX16 + 1, 65_535)
        );
        assert_eq!(
            overflow(&proof(1, MAX16 + 1, 0)),
            ("sibling count", None, MAX16 + 1, 65_535)
        );
        assert_eq!(
            overflow(&proof(1, 0, MAX16 + 1)),
            ("other stem count", None, MAX16 + 1, 65_535)
        );
        let mut p = proof(3, 0, 0);
        p.shards[2].stems = (2..MAX16 + 3).map(stem).collect();
        assert_eq!(overflow(&p), ("stem count", Some(2), MAX16 + 1, 65_535));
        let mut p = proof(3, 0, 0);
        p.shards[1].stems[0].suffixes = vec![suffix(1); MAX16 + 1];
        assert_eq!(overflow(&p), ("suffix count", Some(1), MAX16 + 1, 65_535));
        let e = p.to_bytes().unwrap_err().to_string();
        assert!(
            e.contains("suffix count of stem 1") && e.contains("65536"),
            "{e}"
        );
    }
}
