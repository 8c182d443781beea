//! Zero-copy views into a decoded witness buffer.
//!
//! Every view borrows from the [`ExecutionWitness`](crate::ExecutionWitness) it came from;
//! stems, values, points and scalars are references into its one buffer, never copies.
//! The buffer was fully validated when it was decoded, so the accessors cannot fail; the
//! fall-backs in `bytes_at` are unreachable and exist only to keep the code panic-free.

use crate::prelude::*;

use core::fmt;
use core::iter::FusedIterator;
use core::slice;

use crate::preset::{BYTES32_LEN, IPA_PROOF_DEPTH, IPA_PROOF_LEN, MULTIPROOF_LEN, STEM_LEN};
use crate::ssz::{DiffEntry, Layout, StemEntry};

/// The `N` bytes at `at`; all zero if out of bounds (unreachable after validation).
fn bytes_at<const N: usize>(buf: &[u8], at: usize) -> &[u8; N] {
    at.checked_add(N)
        .and_then(|end| buf.get(at..end))
        .and_then(|s| <&[u8; N]>::try_from(s).ok())
        .unwrap_or(&[0; N])
}

/// `state_diff`: the stems touched by the block, in witness order.
#[derive(Clone, Copy)]
pub struct StateDiff<'a> {
    buf: &'a [u8],
    stems: &'a [StemEntry],
    diffs: &'a [DiffEntry],
}

impl<'a> StateDiff<'a> {
    pub(crate) fn new(buf: &'a [u8], layout: &'a Layout) -> Self {
        Self {
            buf,
            stems: &layout.stems,
            diffs: &layout.diffs,
        }
    }

    /// Number of stems.
    pub fn len(&self) -> usize {
        self.stems.len()
    }

    /// Whether there are no stems.
    pub fn is_empty(&self) -> bool {
        self.stems.is_empty()
    }

    /// Total number of suffix diffs over all stems.
    pub fn suffix_diff_count(&self) -> usize {
        self.diffs.len()
    }

    /// The stem at `index`.
    pub fn get(&self, index: usize) -> Option<StemStateDiff<'a>> {
        self.stems.get(index).map(|e| self.entry(e))
    }

    /// Iterates the stems in order.
    pub fn iter(&self) -> StateDiffIter<'a> {
        StateDiffIter {
            view: *self,
            inner: self.stems.iter(),
        }
    }

    fn entry(&self, e: &StemEntry) -> StemStateDiff<'a> {
        let first = e.first_diff as usize;
        let diffs = first
            .checked_add(e.diff_count as usize)
            .and_then(|end| self.diffs.get(first..end))
            .expect("decoding built the diff table with every stem's run inside it");
        StemStateDiff {
            stem: bytes_at(self.buf, e.stem_at as usize),
            suffix_diffs: SuffixDiffs {
                buf: self.buf,
                diffs,
            },
        }
    }
}

impl fmt::Debug for StateDiff<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for StateDiff<'a> {
    type Item = StemStateDiff<'a>;
    type IntoIter = StateDiffIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over the stems of a [`StateDiff`].
#[derive(Clone)]
pub struct StateDiffIter<'a> {
    view: StateDiff<'a>,
    inner: slice::Iter<'a, StemEntry>,
}

impl<'a> Iterator for StateDiffIter<'a> {
    type Item = StemStateDiff<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|e| self.view.entry(e))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for StateDiffIter<'_> {}
impl FusedIterator for StateDiffIter<'_> {}

/// `StemStateDiff`: one stem and the diffs of its suffixes.
#[derive(Debug, Clone, Copy)]
pub struct StemStateDiff<'a> {
    /// The first 31 bytes of the tree keys.
    pub stem: &'a [u8; 31],
    /// The suffix diffs, in witness order.
    pub suffix_diffs: SuffixDiffs<'a>,
}

/// `suffix_diffs` of one stem.
#[derive(Clone, Copy)]
pub struct SuffixDiffs<'a> {
    buf: &'a [u8],
    diffs: &'a [DiffEntry],
}

impl<'a> SuffixDiffs<'a> {
    /// Number of suffix diffs.
    pub fn len(&self) -> usize {
        self.diffs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.diffs.is_empty()
    }

    /// The suffix diff at `index`.
    pub fn get(&self, index: usize) -> Option<SuffixStateDiff<'a>> {
        self.diffs.get(index).map(|d| self.entry(d))
    }

    /// Iterates the suffix diffs in order.
    pub fn iter(&self) -> SuffixDiffsIter<'a> {
        SuffixDiffsIter {
            view: *self,
            inner: self.diffs.iter(),
        }
    }

    fn entry(&self, d: &DiffEntry) -> SuffixStateDiff<'a> {
        SuffixStateDiff {
            suffix: d.suffix,
            current_value: d.current_at.map(|p| bytes_at(self.buf, p as usize)),
            new_value: d.new_at.map(|p| bytes_at(self.buf, p as usize)),
        }
    }
}

impl fmt::Debug for SuffixDiffs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for SuffixDiffs<'a> {
    type Item = SuffixStateDiff<'a>;
    type IntoIter = SuffixDiffsIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over [`SuffixDiffs`].
#[derive(Clone)]
pub struct SuffixDiffsIter<'a> {
    view: SuffixDiffs<'a>,
    inner: slice::Iter<'a, DiffEntry>,
}

impl<'a> Iterator for SuffixDiffsIter<'a> {
    type Item = SuffixStateDiff<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|d| self.view.entry(d))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for SuffixDiffsIter<'_> {}
impl FusedIterator for SuffixDiffsIter<'_> {}

/// `SuffixStateDiff`: one key's value before and after the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuffixStateDiff<'a> {
    /// Last byte of the tree key.
    pub suffix: u8,
    /// Value in the pre-state; `None` = absent.
    pub current_value: Option<&'a [u8; 32]>,
    /// Value written by the block; `None` = not written.
    pub new_value: Option<&'a [u8; 32]>,
}

/// A list of `N`-byte items stored back to back (`other_stems`: N = 31;
/// `commitments_by_path`: N = 32).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ChunkList<'a, const N: usize> {
    bytes: &'a [u8],
}

/// `other_stems`.
pub type Stems<'a> = ChunkList<'a, STEM_LEN>;
/// `commitments_by_path` (compressed group elements).
pub type Points<'a> = ChunkList<'a, BYTES32_LEN>;

impl<'a, const N: usize> ChunkList<'a, N> {
    /// Number of items.
    pub fn len(&self) -> usize {
        self.bytes.len() / N
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.bytes.len() < N
    }

    /// The item at `index`.
    pub fn get(&self, index: usize) -> Option<&'a [u8; N]> {
        let at = index.checked_mul(N)?;
        let end = at.checked_add(N)?;
        self.bytes
            .get(at..end)
            .and_then(|s| <&[u8; N]>::try_from(s).ok())
    }

    /// Iterates the items in order.
    pub fn iter(&self) -> ChunkIter<'a, N> {
        ChunkIter {
            inner: self.bytes.chunks_exact(N),
        }
    }

    /// The raw bytes: the items concatenated.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl<const N: usize> fmt::Debug for ChunkList<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|c| format!("0x{}", hex::encode(c))))
            .finish()
    }
}

impl<'a, const N: usize> IntoIterator for ChunkList<'a, N> {
    type Item = &'a [u8; N];
    type IntoIter = ChunkIter<'a, N>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over a [`ChunkList`].
#[derive(Clone)]
pub struct ChunkIter<'a, const N: usize> {
    inner: slice::ChunksExact<'a, u8>,
}

impl<'a, const N: usize> Iterator for ChunkIter<'a, N> {
    type Item = &'a [u8; N];
    fn next(&mut self) -> Option<Self::Item> {
        self.inner
            .next()
            .map(|c| <&[u8; N]>::try_from(c).unwrap_or(&[0; N]))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<const N: usize> ExactSizeIterator for ChunkIter<'_, N> {}
impl<const N: usize> FusedIterator for ChunkIter<'_, N> {}

/// `IPAProof`: the inner-product argument of the multiproof.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IpaProofView<'a> {
    /// Left commitments `L_0..L_7`, compressed.
    pub cl: [&'a [u8; 32]; IPA_PROOF_DEPTH],
    /// Right commitments `R_0..R_7`, compressed.
    pub cr: [&'a [u8; 32]; IPA_PROOF_DEPTH],
    /// The final scalar `a` as stored in SSZ: 32 **little-endian** bytes (`spec/WIRE.md`).
    /// go-verkle's JSON `finalEvaluation` is the same scalar big-endian.
    pub final_evaluation: &'a [u8; 32],
    bytes: &'a [u8; IPA_PROOF_LEN],
}

impl<'a> IpaProofView<'a> {
    /// The 544-byte encoding `L_0..L_7 ‖ R_0..R_7 ‖ a` (a little-endian), as SSZ stores it.
    pub fn as_bytes(&self) -> &'a [u8; IPA_PROOF_LEN] {
        self.bytes
    }
}

impl fmt::Debug for IpaProofView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex_list = |ps: &[&[u8; 32]]| -> Vec<String> {
            ps.iter().map(|p| format!("0x{}", hex::encode(p))).collect()
        };
        f.debug_struct("IpaProofView")
            .field("cl", &hex_list(&self.cl))
            .field("cr", &hex_list(&self.cr))
            .field(
                "final_evaluation_le",
                &format_args!("0x{}", hex::encode(self.final_evaluation)),
            )
            .finish()
    }
}

/// `VerkleProof`: the proof of the current values against the pre-state root.
#[derive(Clone, Copy)]
pub struct VerkleProof<'a> {
    buf: &'a [u8],
    layout: &'a Layout,
}

impl<'a> VerkleProof<'a> {
    pub(crate) fn new(buf: &'a [u8], layout: &'a Layout) -> Self {
        Self { buf, layout }
    }

    /// `other_stems`: stems proving absent-other stems, 31 bytes each.
    pub fn other_stems(&self) -> Stems<'a> {
        ChunkList {
            bytes: self
                .buf
                .get(self.layout.other_stems.clone())
                .expect("decoding checked every list range against the buffer"),
        }
    }

    /// `depth_extension_present`: one byte per stem, `(depth << 3) | extension status`.
    pub fn depth_extension_present(&self) -> &'a [u8] {
        self.buf
            .get(self.layout.depth_extension_present.clone())
            .expect("decoding checked every list range against the buffer")
    }

    /// `commitments_by_path`: compressed commitments of the non-root nodes, by path.
    pub fn commitments_by_path(&self) -> Points<'a> {
        ChunkList {
            bytes: self
                .buf
                .get(self.layout.commitments_by_path.clone())
                .expect("decoding checked every list range against the buffer"),
        }
    }

    /// `d`: the multiproof's commitment to the quotient, compressed.
    pub fn d(&self) -> &'a [u8; 32] {
        bytes_at(self.buf, self.layout.multiproof_at)
    }

    /// `ipa_proof`.
    pub fn ipa_proof(&self) -> IpaProofView<'a> {
        let at = self.layout.multiproof_at + BYTES32_LEN;
        let bytes: &'a [u8; IPA_PROOF_LEN] = bytes_at(self.buf, at);
        let point = |i: usize| bytes_at::<32>(bytes, i * BYTES32_LEN);
        IpaProofView {
            cl: core::array::from_fn(point),
            cr: core::array::from_fn(|i| point(IPA_PROOF_DEPTH + i)),
            final_evaluation: point(2 * IPA_PROOF_DEPTH),
            bytes,
        }
    }

    /// The 576-byte multiproof encoding `D ‖ L_0..L_7 ‖ R_0..R_7 ‖ a` (a little-endian), as
    /// `ipa::MultiProof::from_bytes` reads it. In SSZ these bytes are contiguous, so this is
    /// a copy of one slice.
    pub fn multiproof_bytes(&self) -> [u8; MULTIPROOF_LEN] {
        *bytes_at(self.buf, self.layout.multiproof_at)
    }
}

impl fmt::Debug for VerkleProof<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerkleProof")
            .field("other_stems", &self.other_stems())
            .field(
                "depth_extension_present",
                &format_args!("0x{}", hex::encode(self.depth_extension_present())),
            )
            .field("commitments_by_path", &self.commitments_by_path())
            .field("d", &format_args!("0x{}", hex::encode(self.d())))
            .field("ipa_proof", &self.ipa_proof())
            .finish()
    }
}
