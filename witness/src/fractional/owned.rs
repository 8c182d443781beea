//! The owned fractional proof (`spec/FRACTIONAL.md` §4) and its encoding.

use crate::prelude::*;

use super::header::{FLAG_COORDINATOR, HEADER_LEN, VERSION};
use crate::preset::{MULTIPROOF_LEN, STEM_LEN};

/// One proven suffix of the owned form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnedFractionalSuffix {
    /// The suffix.
    pub suffix: u8,
    /// The current value; `None` = absent.
    pub current_value: Option<[u8; 32]>,
    /// The value the block writes; `None` = not written (or deleted).
    pub new_value: Option<[u8; 32]>,
    /// The block deletes the key (presence bit 2): it needs a current value and no new
    /// value.
    pub deleted: bool,
}

/// One proven stem of the owned form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedFractionalStem {
    /// The stem.
    pub stem: [u8; STEM_LEN],
    /// `(depth << 3) | extension status`, depth counted from the canonical root.
    pub ext: u8,
    /// The proven suffixes, ascending (1 to 256).
    pub suffixes: Vec<OwnedFractionalSuffix>,
}

/// A fractional proof, owned: what a prover builds and encodes with
/// [`OwnedFractionalProof::to_bytes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedFractionalProof {
    /// Shard depth: 1 or 2.
    pub depth: u8,
    /// `compress(R)`, the canonical root commitment.
    pub root: [u8; 32],
    /// The proven stems, ascending.
    pub stems: Vec<OwnedFractionalStem>,
    /// Stems of the leaves reached only by absent-other stems, ascending.
    pub other_stems: Vec<[u8; STEM_LEN]>,
    /// `commitments_by_path`: the proven nodes but the root, in path order.
    pub commitments: Vec<[u8; 32]>,
    /// The internal witnesses (`spec/FRACTIONAL.md` §4.3), little-endian scalars, in path
    /// order of the nodes that take one.
    pub internal_witnesses: Vec<[u8; 32]>,
    /// The coordinator multiproof's siblings in canonical order, when the proof carries the
    /// coordinator path (`None`: the lean form, verifiable against the state root only).
    pub siblings: Option<Vec<[u8; 32]>>,
    /// The IPA multiproof `D ‖ L[8] ‖ R[8] ‖ a`.
    pub multiproof: [u8; MULTIPROOF_LEN],
}

/// A count of `field`, as the wire format's `N`-byte big-endian integer; `item` says which
/// stem it belongs to, for the error.
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
    out.copy_from_slice(
        be.get(8 - N..)
            .expect("a count field is at most 8 bytes wide (N ≤ 8)"),
    );
    Ok(out)
}

impl OwnedFractionalProof {
    /// The flags byte: bit 0 when the coordinator path is carried.
    pub fn flags(&self) -> u8 {
        if self.siblings.is_some() {
            FLAG_COORDINATOR
        } else {
            0
        }
    }

    /// The wire form. Counts are the format's fixed-width integers: 16 bits for the stems,
    /// the other stems, the internal witnesses and the siblings, 32 bits for the
    /// commitments, and `m − 1` in one byte for a stem's 1 to 256 suffixes. A proof with
    /// more items than its count can hold is refused with
    /// [`FractionalEncodeError::CountOverflow`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, FractionalEncodeError> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.extend([VERSION, self.depth, self.flags()]);
        out.extend(self.root);
        out.extend(count_bytes::<2>("stem count", None, self.stems.len())?);
        out.extend(self.stems.iter().map(|s| s.ext));
        for (i, st) in self.stems.iter().enumerate() {
            out.extend(st.stem);
            let m = st.suffixes.len();
            if m == 0 {
                return Err(FractionalEncodeError::CountOverflow {
                    field: "suffix count",
                    item: Some(i),
                    count: 0,
                    max: 256,
                });
            }
            out.extend(count_bytes::<1>("suffix count", Some(i), m - 1)?);
            for d in &st.suffixes {
                out.push(d.suffix);
                out.push(
                    u8::from(d.current_value.is_some())
                        | (u8::from(d.new_value.is_some()) << 1)
                        | (u8::from(d.deleted) << 2),
                );
                for v in d.current_value.iter().chain(d.new_value.iter()) {
                    out.extend(v);
                }
            }
        }
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
        out.extend(count_bytes::<2>(
            "internal witness count",
            None,
            self.internal_witnesses.len(),
        )?);
        self.internal_witnesses.iter().for_each(|w| out.extend(w));
        if let Some(siblings) = &self.siblings {
            out.extend(count_bytes::<2>("sibling count", None, siblings.len())?);
            siblings.iter().for_each(|s| out.extend(s));
        }
        out.extend(self.multiproof);
        Ok(out)
    }

    /// Length of [`OwnedFractionalProof::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        let stems: usize = self
            .stems
            .iter()
            .map(|st| {
                1 + STEM_LEN
                    + 1
                    + st.suffixes
                        .iter()
                        .map(|d| {
                            2 + 32 * usize::from(d.current_value.is_some())
                                + 32 * usize::from(d.new_value.is_some())
                        })
                        .sum::<usize>()
            })
            .sum();
        HEADER_LEN
            + 2
            + stems
            + 2
            + STEM_LEN * self.other_stems.len()
            + 4
            + 32 * self.commitments.len()
            + 2
            + 32 * self.internal_witnesses.len()
            + self.siblings.as_ref().map_or(0, |s| 2 + 32 * s.len())
            + MULTIPROOF_LEN
    }
}

/// Why an [`OwnedFractionalProof`] cannot be written in the wire form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalEncodeError {
    /// More items than their count field can hold (or a stem with no suffix).
    #[error("{field}{}: {count} items, the field holds at most {max}", owner(*item))]
    CountOverflow {
        /// The count field: `stem count`, `suffix count`, `other stem count`,
        /// `commitment count`, `internal witness count` or `sibling count`.
        field: &'static str,
        /// For a suffix count, the stem's index.
        item: Option<usize>,
        /// The number of items.
        count: usize,
        /// The largest count the field holds.
        max: u64,
    },
}

/// The stem a count belongs to, for [`FractionalEncodeError`]'s message.
fn owner(item: Option<usize>) -> String {
    match item {
        Some(i) => format!(" of stem {i}"),
        None => String::new(),
    }
}
