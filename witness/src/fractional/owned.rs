//! The owned fractional proof (`spec/FRACTIONAL.md` §4) and its encoding.

use crate::prelude::*;

use super::wire::{HEADER_LEN, MIN_SHARD_LEN, VERSION};
use crate::preset::{MULTIPROOF_LEN, STEM_LEN};

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
pub(super) fn count_bytes<const N: usize>(
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
