//! The fractional proof's wire form (`spec/FRACTIONAL.md` §4): the owned form that encodes
//! it, and the zero-copy view that decodes it.
//!
//! All integers are big-endian. Decoding reads every count, checks that the bytes left can
//! hold that many items of the smallest size before reserving anything, and records offsets
//! into the one [`Bytes`] buffer in three tables (shards, stems, suffix diffs): a constant
//! number of allocations whatever the proof's size.

use crate::prelude::*;

use bytes::Bytes;

pub use super::decode_error::FractionalDecodeError;
pub use super::owned::{
    FractionalEncodeError, OwnedFractionalProof, OwnedFractionalStem, OwnedFractionalSuffix,
    OwnedShardEntry,
};
use crate::preset::{MULTIPROOF_LEN, STEM_LEN};

/// The only version this crate reads and writes.
pub const VERSION: u8 = 1;

/// Fixed header: version, shard depth, shard-entry count.
pub(super) const HEADER_LEN: usize = 4;
/// Smallest shard entry: index, commitment, stem count.
pub(super) const MIN_SHARD_LEN: usize = 2 + 32 + 2;
/// Smallest stem: stem, extension byte, suffix count, one absent suffix.
pub(super) const MIN_STEM_LEN: usize = STEM_LEN + 1 + 2 + 2;
/// Smallest suffix diff: suffix and presence byte.
pub(super) const MIN_DIFF_LEN: usize = 2;

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
    use crate::fractional::owned::count_bytes;

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
