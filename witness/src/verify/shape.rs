//! The shape of the proven tree, rebuilt from the state diff, the extension statuses and
//! `other_stems` (`spec/WIRE.md` §6.2).

use crate::prelude::*;

use alloc::collections::btree_map::Entry;
use alloc::collections::BTreeMap;

use banderwagon::arith::Zero;
use banderwagon::{Element, Fr};

use crate::error::CanonicalError;
use crate::preset::STEM_LEN;
use crate::view::{Points, StateDiff, VerkleProof};

use super::{error::*, proven::*};

/// The stems and the shape of the proven tree from the state diff, the extension statuses
/// and `other_stems`; checks that `commitments_by_path` has one commitment per node that
/// takes one.
pub(super) fn rebuild_shape(
    state_diff: StateDiff<'_>,
    proof: &VerkleProof<'_>,
) -> Result<(Vec<ProvenStem>, Shape), VerifyError> {
    let stems = proven_stems(state_diff, proof.depth_extension_present())?;
    let commitments = proof.commitments_by_path();
    let mut tree = ShapeBuilder::new(commitments.len());
    for (stem_index, s) in stems.iter().enumerate() {
        tree.add_stem(stem_index, s, state_diff)?;
    }
    let other_stems: Vec<[u8; STEM_LEN]> = proof.other_stems().iter().copied().collect();
    let shape = tree.finish(&stems, &other_stems)?;
    if shape.commitment_count != commitments.len() {
        return Err(VerifyError::CommitmentCount {
            expected: shape.commitment_count,
            got: commitments.len(),
        });
    }
    Ok((stems, shape))
}

/// The stems with their depths and extension statuses; the leaf stem of absent-other stems
/// is filled in once the shape has assigned the other stems.
pub(super) fn proven_stems(
    state_diff: StateDiff<'_>,
    ext: &[u8],
) -> Result<Vec<ProvenStem>, VerifyError> {
    state_diff
        .iter()
        .zip(ext)
        .enumerate()
        .map(|(stem_index, (s, &byte))| {
            if s.suffix_diffs.is_empty() {
                return Err(VerifyError::EmptyStem { stem_index });
            }
            // check_canonical has rejected statuses other than 0, 1 and 2.
            let status = ExtensionStatus::from_byte(byte).ok_or(VerifyError::NotCanonical(
                CanonicalError::BadExtensionStatus { stem_index, byte },
            ))?;
            let leaf_stem = (status == ExtensionStatus::Present).then_some(*s.stem);
            Ok(ProvenStem {
                stem: *s.stem,
                depth: byte >> 3,
                status,
                leaf_stem,
                // Set for absent-empty stems once the proof is checked.
                bound: true,
            })
        })
        .collect()
}

pub(super) fn proven_keys(state_diff: StateDiff<'_>) -> Vec<ProvenKey> {
    let mut keys = Vec::with_capacity(state_diff.suffix_diff_count());
    for (stem_index, s) in state_diff.iter().enumerate() {
        keys.extend(s.suffix_diffs.iter().map(|d| ProvenKey {
            stem_index,
            stem: *s.stem,
            suffix: d.suffix,
            current_value: d.current_value.copied(),
            new_value: d.new_value.copied(),
            deleted: false,
            bound: true,
        }));
    }
    keys
}

/// The set of child indices an internal node is opened at.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ChildSet([u64; 4]);

impl ChildSet {
    /// Number of indices.
    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub(super) fn insert(&mut self, index: u8) {
        if let Some(word) = self.0.get_mut(usize::from(index >> 6)) {
            *word |= 1 << (index & 63);
        }
    }

    /// The indices, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        self.0.iter().zip(0u8..).flat_map(|(&word, w)| {
            let mut rest = word;
            core::iter::from_fn(move || {
                let bit = u8::try_from(rest.trailing_zeros())
                    .ok()
                    .filter(|&b| b < 64)?;
                rest &= rest - 1;
                Some(w * 64 + bit)
            })
        })
    }
}

/// A node of the tree being rebuilt, before commitments are assigned.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Draft {
    Internal {
        children: ChildSet,
    },
    Empty,
    Leaf {
        /// The stem held, once known (present stem, or other stem after `finish`).
        stem: Option<[u8; STEM_LEN]>,
        /// Index of the present stem, if a stem of the state diff is present here.
        present: Option<usize>,
        /// Index of a stem that is absent-other here (for error reports).
        absent_other: Option<usize>,
    },
    SuffixTree {
        stem_index: usize,
    },
}

impl Draft {
    pub(crate) fn kind(&self) -> NodeKind {
        match self {
            Draft::Internal { .. } => NodeKind::Internal,
            Draft::Empty => NodeKind::Empty,
            Draft::Leaf { .. } => NodeKind::Leaf,
            Draft::SuffixTree { .. } => NodeKind::SuffixTree,
        }
    }
}

/// Rebuilds the shape of the proven tree: one entry per node, keyed by path.
///
/// Stops as soon as the nodes needing a commitment outnumber `commitments_by_path`, so its
/// size is bounded by the witness's bytes, not by 31 nodes per claimed depth.
pub(super) struct ShapeBuilder {
    pub(super) nodes: BTreeMap<NodePath, Draft>,
    /// Nodes inserted so far that take a commitment from `commitments_by_path`.
    pub(super) committed: usize,
    /// Length of `commitments_by_path`.
    pub(super) limit: usize,
}

/// The rebuilt shape: nodes in path order, other stems resolved.
pub(crate) struct Shape {
    pub(crate) nodes: Vec<(NodePath, Draft)>,
    pub(super) commitment_count: usize,
}

pub(super) fn path_of(stem: &[u8; STEM_LEN], depth: usize) -> Option<NodePath> {
    stem.get(..depth).and_then(NodePath::new)
}

impl ShapeBuilder {
    pub(super) fn new(commitments: usize) -> ShapeBuilder {
        let mut nodes = BTreeMap::new();
        nodes.insert(
            NodePath::ROOT,
            Draft::Internal {
                children: ChildSet::default(),
            },
        );
        ShapeBuilder {
            nodes,
            committed: 0,
            limit: commitments,
        }
    }

    /// Adds the nodes of one stem's path, then checks the commitment budget.
    pub(super) fn add_stem(
        &mut self,
        stem_index: usize,
        s: &ProvenStem,
        state_diff: StateDiff<'_>,
    ) -> Result<(), VerifyError> {
        self.add_path(stem_index, s, state_diff)?;
        if self.committed > self.limit {
            return Err(VerifyError::CommitmentCount {
                expected: self.committed,
                got: self.limit,
            });
        }
        Ok(())
    }

    pub(super) fn add_path(
        &mut self,
        stem_index: usize,
        s: &ProvenStem,
        state_diff: StateDiff<'_>,
    ) -> Result<(), VerifyError> {
        let depth = usize::from(s.depth);
        let conflict = |d: usize, wanted: NodeKind, found: &Draft| VerifyError::PathConflict {
            stem_index,
            depth: d,
            wanted,
            found: found.kind(),
        };
        // Internal nodes at stem[..d] for d < depth, each opened at stem[d].
        for d in 0..depth {
            let (Some(path), Some(&index)) = (path_of(&s.stem, d), s.stem.get(d)) else {
                break;
            };
            match self.nodes.entry(path) {
                Entry::Vacant(e) => {
                    let mut children = ChildSet::default();
                    children.insert(index);
                    e.insert(Draft::Internal { children });
                    self.committed += 1;
                }
                Entry::Occupied(mut e) => match e.get_mut() {
                    Draft::Internal { children } => children.insert(index),
                    other => return Err(conflict(d, NodeKind::Internal, other)),
                },
            }
        }
        let Some(path) = path_of(&s.stem, depth) else {
            return Err(VerifyError::NotCanonical(CanonicalError::BadDepth {
                stem_index,
                byte: s.depth << 3,
            }));
        };
        match s.status {
            ExtensionStatus::AbsentEmpty => match self.nodes.entry(path) {
                Entry::Vacant(e) => {
                    e.insert(Draft::Empty);
                }
                Entry::Occupied(e) => match e.get() {
                    Draft::Empty => {}
                    other => return Err(conflict(depth, NodeKind::Empty, other)),
                },
            },
            ExtensionStatus::AbsentOther => match self.nodes.entry(path) {
                Entry::Vacant(e) => {
                    e.insert(Draft::Leaf {
                        stem: None,
                        present: None,
                        absent_other: Some(stem_index),
                    });
                    self.committed += 1;
                }
                Entry::Occupied(mut e) => match e.get_mut() {
                    Draft::Leaf { absent_other, .. } => {
                        absent_other.get_or_insert(stem_index);
                    }
                    other => return Err(conflict(depth, NodeKind::Leaf, other)),
                },
            },
            ExtensionStatus::Present => {
                match self.nodes.entry(path) {
                    Entry::Vacant(e) => {
                        e.insert(Draft::Leaf {
                            stem: Some(s.stem),
                            present: Some(stem_index),
                            absent_other: None,
                        });
                        self.committed += 1;
                    }
                    Entry::Occupied(mut e) => match e.get_mut() {
                        Draft::Leaf {
                            present: Some(other_index),
                            ..
                        } => {
                            return Err(VerifyError::SharedLeaf {
                                stem_index,
                                other_index: *other_index,
                            })
                        }
                        Draft::Leaf { stem, present, .. } => {
                            *stem = Some(s.stem);
                            *present = Some(stem_index);
                        }
                        other => return Err(conflict(depth, NodeKind::Leaf, other)),
                    },
                }
                // C1 when a suffix below 128 is proven, C2 when one at or above is.
                let diffs = state_diff
                    .get(stem_index)
                    .map(|d| d.suffix_diffs)
                    .into_iter()
                    .flat_map(|d| d.iter());
                let (mut c1, mut c2) = (false, false);
                for d in diffs {
                    if d.suffix < 128 {
                        c1 = true;
                    } else {
                        c2 = true;
                    }
                }
                for (wanted, byte) in [(c1, SUFFIX_TREE_BYTE), (c2, SUFFIX_TREE_BYTE + 1)] {
                    if !wanted {
                        continue;
                    }
                    let Some(suffix_path) = path.child(byte) else {
                        continue;
                    };
                    match self.nodes.entry(suffix_path) {
                        Entry::Vacant(e) => {
                            e.insert(Draft::SuffixTree { stem_index });
                            self.committed += 1;
                        }
                        Entry::Occupied(e) => {
                            return Err(conflict(depth + 1, NodeKind::SuffixTree, e.get()))
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Assigns the other stems to the absent-other leaves that no present stem holds, in
    /// path order, and counts the commitments the proof must carry.
    pub(super) fn finish(
        mut self,
        stems: &[ProvenStem],
        other_stems: &[[u8; STEM_LEN]],
    ) -> Result<Shape, VerifyError> {
        let expected = self
            .nodes
            .values()
            .filter(|d| matches!(d, Draft::Leaf { stem: None, .. }))
            .count();
        if expected != other_stems.len() {
            return Err(VerifyError::OtherStemCount {
                expected,
                got: other_stems.len(),
            });
        }
        let mut others = other_stems.iter().enumerate();
        for (path, draft) in self.nodes.iter_mut() {
            let Draft::Leaf {
                stem: stem @ None,
                absent_other,
                ..
            } = draft
            else {
                continue;
            };
            let Some((index, other)) = others.next() else {
                break;
            };
            let stem_index =
                absent_other.expect("a leaf without a stem was placed by an absent-other stem");
            if !other.starts_with(path.as_bytes()) {
                return Err(VerifyError::OtherStemOffPath { index, stem_index });
            }
            if let Ok(in_diff) = stems.binary_search_by(|s| s.stem.cmp(other)) {
                return Err(VerifyError::OtherStemInStateDiff {
                    index,
                    stem_index: in_diff,
                });
            }
            *stem = Some(*other);
        }
        Ok(Shape {
            nodes: self.nodes.into_iter().collect(),
            commitment_count: self.committed,
        })
    }
}

impl Shape {
    /// Checks that no node standing for an internal node or a leaf has the identity as its
    /// commitment, on the encodings alone (the identity's one canonical encoding is 32 zero
    /// bytes; any other encoding of it fails to decode later). The root may be the identity
    /// (the empty tree), and so may a suffix tree.
    pub(super) fn check_identities(&self, commitments: Points<'_>) -> Result<(), VerifyError> {
        let non_root = self
            .nodes
            .iter()
            .filter(|(path, d)| !matches!(d, Draft::Empty) && !path.is_empty());
        for (index, ((path, draft), bytes)) in non_root.zip(commitments.iter()).enumerate() {
            if matches!(draft, Draft::Internal { .. } | Draft::Leaf { .. }) && bytes == &[0u8; 32] {
                return Err(VerifyError::IdentityCommitment {
                    index,
                    path: *path,
                    kind: draft.kind(),
                });
            }
        }
        Ok(())
    }

    /// Checks that the shape takes exactly `commitments` commitments (the root and one per
    /// node other than an empty slot).
    pub(super) fn check_count(&self, commitments: usize) -> Result<(), VerifyError> {
        let taken = self
            .nodes
            .iter()
            .filter(|(_, d)| !matches!(d, Draft::Empty))
            .count();
        if taken == commitments {
            Ok(())
        } else {
            Err(VerifyError::CommitmentCount {
                expected: self.commitment_count,
                got: commitments.saturating_sub(1),
            })
        }
    }

    /// Pairs each node with its commitment: the root takes `elements[0]`, the other nodes
    /// (empty slots excepted) take the next ones in path order ([`Shape::check_count`] has
    /// matched the counts).
    pub(super) fn into_nodes(self, elements: &[Element], fields: &[Fr]) -> Vec<ProvenNode> {
        let mut next = 0usize;
        self.nodes
            .into_iter()
            .map(|(path, draft)| {
                let (commitment, field) = if matches!(draft, Draft::Empty) {
                    (Element::identity(), Fr::zero())
                } else {
                    let i = next;
                    next += 1;
                    (
                        *elements
                            .get(i)
                            .expect("check_count matched the commitments"),
                        *fields.get(i).expect("one field per commitment"),
                    )
                };
                let leaf_stem = match draft {
                    Draft::Leaf { stem, .. } => stem,
                    _ => None,
                };
                ProvenNode {
                    path,
                    kind: draft.kind(),
                    leaf_stem,
                    commitment,
                    field,
                    proven_internal: false,
                }
            })
            .collect()
    }
}
