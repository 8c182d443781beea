//! The fractional proof's wire form (`spec/FRACTIONAL.md` §4): the owned form that encodes
//! it, and the zero-copy view that decodes it.
//!
//! All integers are big-endian. Decoding reads every count, checks that the bytes left can
//! hold that many items of the smallest size before reserving anything, and records offsets
//! into the one [`Bytes`] buffer in three tables (shards, stems, suffix diffs): a constant
//! number of allocations whatever the proof's size.

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

fn u16_len(n: usize) -> [u8; 2] {
    u16::try_from(n).unwrap_or(u16::MAX).to_be_bytes()
}

impl OwnedFractionalProof {
    /// The wire form. Counts are written as the format's fixed-width integers; a proof
    /// with more items than a count can hold (65,535 shards, stems per shard, siblings or
    /// other stems) is not representable and the caller must split it
    /// (`fractional::ShardedTree::prove_fractional` refuses to build one).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(VERSION);
        out.push(self.depth);
        out.extend(u16_len(self.shards.len()));
        for s in &self.shards {
            out.extend(s.index.to_be_bytes());
            out.extend(s.commitment);
            out.extend(u16_len(s.stems.len()));
            for st in &s.stems {
                out.extend(st.stem);
                out.push(st.ext);
                out.extend(u16_len(st.suffixes.len()));
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
        out.extend(u16_len(self.siblings.len()));
        self.siblings.iter().for_each(|s| out.extend(s));
        out.extend(u16_len(self.other_stems.len()));
        self.other_stems.iter().for_each(|s| out.extend(s));
        out.extend(
            u32::try_from(self.commitments.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        self.commitments.iter().for_each(|c| out.extend(c));
        out.extend(self.multiproof);
        out
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
