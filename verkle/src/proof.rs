//! Proving tree keys: the state diff and Verkle proof of an execution witness
//! (EIP-6800; `spec/WIRE.md` §6), byte-identical to what go-verkle produces for the same
//! pre-state and keys.
//!
//! For each distinct stem of the keys the prover walks from the root to the stem's leaf (or
//! to the empty slot or other stem's leaf where its path ends) and records:
//!
//! - one extension-status byte `(depth << 3) | ext`: `0` absent-empty (depth of the empty
//!   slot, parent depth + 1), `1` absent-other (depth of the other stem's leaf), `2` present;
//! - every internal node on the path, opened at `stem[depth]` with `y = mtf(child)` (0 for an
//!   empty slot);
//! - the leaf at `stem[..depth]`, opened at `z = 0` (`y = 1`), `z = 1` (`y = LE(stem)`), and,
//!   for a present stem, `z = 2` / `z = 3` (`y = mtf(C1)` / `mtf(C2)`) when a key of that
//!   half is proven;
//! - for a present stem, `C1` (path `stem[..depth] ‖ 2`) and/or `C2` (`‖ 3`), opened at
//!   `z = 2·(s mod 128)` (`y = low + 2^128`, or 0 when absent) and `z + 1` (`y = high`) for
//!   each proven suffix `s` of that half — even when the half is empty (then `C = identity`).
//!
//! `commitments_by_path` lists every proven node but the root in path order; `other_stems`
//! holds, sorted, the stems of the leaves reached only by absent-other stems; the openings
//! are proven in `(path, z)` order with the transcript label `"vt"`.
//!
//! The same walk can start at the **top of a hypertree** instead of the root
//! ([`Tree::hypertree_openings`]): only nodes at or below the prefix are recorded, and a stem
//! whose hypertree is a single leaf hanging above the prefix is placed at the prefix's depth.
//! The fractional tree builds standard witnesses and fractional proofs from these pieces.

use std::collections::BTreeMap;

use rayon::prelude::*;

use banderwagon::arith::{One, Zero};
use banderwagon::{Element, Fr};
use ipa::{Committer, MultiProof, ProverQuery, Transcript, IPA_ROUNDS};
use witness::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{split_key, Stem, TreeKey, Value, STEM_LEN};
use crate::store::{NodePath, NodeStore};
use crate::tree::node::{Node, NodeId};
use crate::tree::Tree;
use witness::leaf::{stem_field, value_halves};

pub use ipa::MULTIPROOF_LEN;

/// The Fiat–Shamir transcript label of execution-witness multiproofs (go-verkle `"vt"`).
pub const TRANSCRIPT_LABEL: &[u8] = b"vt";

/// Width of a node's polynomial (the evaluation domain).
const WIDTH: usize = 256;

/// Extension status of an absent stem whose path ends at an empty slot.
const EXT_ABSENT_EMPTY: u8 = 0;
/// Extension status of an absent stem whose path ends at another stem's leaf.
const EXT_ABSENT_OTHER: u8 = 1;
/// Extension status of a present stem.
const EXT_PRESENT: u8 = 2;

/// The byte a leaf's path is extended with to reach `C1` (suffixes 0..127); `C2` is one more
/// (go-verkle `slotPath`).
const SUFFIX_TREE_BYTE: u8 = 2;

/// A node of the proven part of the tree.
enum ProofNode {
    /// An internal node and the child slots it is opened at.
    Internal { id: NodeId, opened: [u64; 4] },
    /// A leaf; `present` is the index of the proven stem it holds, if any.
    Leaf { id: NodeId, present: Option<usize> },
    /// `C1` (`high = false`) or `C2` of the leaf `id`, which holds proven stem `stem_index`.
    SuffixTree {
        id: NodeId,
        high: bool,
        stem_index: usize,
    },
}

/// The suffixes proven on one stem, with the value written by the block (if any).
type Suffixes = BTreeMap<u8, Option<Value>>;

fn path_key(stem: &Stem, len: usize) -> Vec<u8> {
    stem[..len].to_vec()
}

/// The `i`-th 32-byte word of an encoded multiproof.
fn chunk(bytes: &[u8], i: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&bytes[32 * i..32 * (i + 1)]);
    out
}

fn opened_indices(opened: &[u64; 4]) -> impl Iterator<Item = u8> + '_ {
    (0..=255u8).filter(move |&i| opened[usize::from(i >> 6)] & (1 << (i & 63)) != 0)
}

/// One proven node: its commitment, its polynomial (256 evaluations) and the points it is
/// opened at.
#[derive(Clone, Debug)]
pub struct OpenedNode {
    /// Its path (a hypertree's top that hangs above its prefix is given the prefix's path).
    pub path: Vec<u8>,
    /// Its commitment.
    pub commitment: Element,
    /// Its polynomial in evaluation form.
    pub poly: Vec<Fr>,
    /// The points it is opened at, ascending.
    pub points: Vec<u8>,
}

/// One proven stem: its `depth_extension_present` byte and its suffixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StemOpening {
    /// The stem.
    pub stem: Stem,
    /// `(depth << 3) | extension status`.
    pub ext: u8,
    /// `(suffix, current value, new value)`, suffix ascending.
    pub suffixes: Vec<(u8, Option<Value>, Option<Value>)>,
}

/// The proven part of the hypertree under a prefix.
#[derive(Clone, Debug, Default)]
pub struct HypertreeOpenings {
    /// The proven stems, ascending.
    pub stems: Vec<StemOpening>,
    /// The proven nodes in path order; the first is the hypertree's top when the hypertree is
    /// not empty.
    pub nodes: Vec<OpenedNode>,
    /// Stems of the leaves reached only by absent-other stems, ascending.
    pub other_stems: Vec<Stem>,
}

/// Why a hypertree proof could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HypertreeProofError {
    /// Reading the tree failed.
    #[error(transparent)]
    Tree(#[from] TreeError),
    /// A key does not start with the hypertree's prefix.
    #[error("key 0x{key} is not under the prefix 0x{prefix}")]
    KeyOutsidePrefix {
        /// The key (hex).
        key: String,
        /// The prefix (hex).
        prefix: String,
    },
}

/// The multiproof over every opening of `nodes` (taken in order; each node's points in
/// order) with the transcript `label`: `D ‖ L[8] ‖ R[8] ‖ a` (a little-endian).
pub fn multiproof_bytes<'a>(
    label: &[u8],
    nodes: impl IntoIterator<Item = &'a OpenedNode>,
) -> [u8; MULTIPROOF_LEN] {
    multiproof_bytes_with(&mut Transcript::new(label), nodes)
}

/// [`multiproof_bytes`] with a transcript that has already absorbed what the proof binds
/// before its openings.
pub fn multiproof_bytes_with<'a>(
    transcript: &mut Transcript,
    nodes: impl IntoIterator<Item = &'a OpenedNode>,
) -> [u8; MULTIPROOF_LEN] {
    let mut queries: Vec<ProverQuery<'_>> = Vec::new();
    for n in nodes {
        for &z in &n.points {
            queries.push(ProverQuery {
                commitment: n.commitment,
                poly: &n.poly,
                point: z,
                result: n.poly[usize::from(z)],
            });
        }
    }
    MultiProof::prove(Committer::eip6800(), transcript, &queries).to_bytes()
}

/// The execution witness of proven stems (ascending) and nodes (path order, the root
/// first): `commitments_by_path` is every node but the root, the multiproof covers all.
pub fn execution_witness(
    stems: &[StemOpening],
    nodes: &[&OpenedNode],
    mut other_stems: Vec<Stem>,
) -> OwnedExecutionWitness {
    let bytes = multiproof_bytes(TRANSCRIPT_LABEL, nodes.iter().copied());
    let commitments: Vec<Element> = nodes
        .iter()
        .filter(|n| !n.path.is_empty())
        .map(|n| n.commitment)
        .collect();
    other_stems.sort_unstable();
    other_stems.dedup();
    OwnedExecutionWitness {
        state_diff: stems
            .iter()
            .map(|s| OwnedStemStateDiff {
                stem: s.stem,
                suffix_diffs: s
                    .suffixes
                    .iter()
                    .map(|&(suffix, current_value, new_value)| OwnedSuffixStateDiff {
                        suffix,
                        current_value,
                        new_value,
                    })
                    .collect(),
            })
            .collect(),
        verkle_proof: OwnedVerkleProof {
            other_stems,
            depth_extension_present: stems.iter().map(|s| s.ext).collect(),
            commitments_by_path: Element::batch_to_bytes(&commitments),
            d: chunk(&bytes, 0),
            ipa_proof: OwnedIpaProof {
                cl: std::array::from_fn(|i| chunk(&bytes, 1 + i)),
                cr: std::array::from_fn(|i| chunk(&bytes, 1 + IPA_ROUNDS + i)),
                final_evaluation: chunk(&bytes, 1 + 2 * IPA_ROUNDS),
            },
        },
    }
}

impl<S: NodeStore> Tree<S> {
    /// Proves the current values of `keys` (duplicates allowed, any order): the execution
    /// witness of a block that reads them and writes nothing (every `new_value` is `None`).
    /// Commits pending changes first; nodes not in memory are read from the store.
    ///
    /// ```
    /// let mut tree = verkle::Tree::new();
    /// tree.insert(&[1u8; 32], [2u8; 32]).unwrap();
    /// let root = tree.root_bytes();
    /// let w = tree.prove(&[[1u8; 32], [9u8; 32]]).unwrap();
    /// let proven = witness::verify(&root, &w.to_witness().unwrap()).unwrap();
    /// assert_eq!(proven.current_value(&[1u8; 32]), Some(Some(&[2u8; 32])));
    /// assert_eq!(proven.current_value(&[9u8; 32]), Some(None));
    /// ```
    pub fn prove(&mut self, keys: &[TreeKey]) -> Result<OwnedExecutionWitness, TreeError> {
        let keys: Vec<(TreeKey, Option<Value>)> = keys.iter().map(|k| (*k, None)).collect();
        self.prove_with_new_values(&keys)
    }

    /// Proves the current values of the keys and carries the given new values into the state
    /// diff (`None` = not written; for a key listed twice the last entry wins). The new values
    /// are not proven: they are what a block writes, for a stateless client to apply.
    pub fn prove_with_new_values(
        &mut self,
        keys: &[(TreeKey, Option<Value>)],
    ) -> Result<OwnedExecutionWitness, TreeError> {
        let o = match self.hypertree_openings(&[], keys) {
            Ok(o) => o,
            Err(HypertreeProofError::Tree(e)) => return Err(e),
            Err(HypertreeProofError::KeyOutsidePrefix { .. }) => {
                unreachable!("every key is under the empty prefix")
            }
        };
        let nodes: Vec<&OpenedNode> = o.nodes.iter().collect();
        Ok(execution_witness(&o.stems, &nodes, o.other_stems))
    }

    /// [`prove_with_new_values`](Self::prove_with_new_values) with every absence bound
    /// (`spec/WIRE.md` §6.6): where an absence would be unbound, the keys of
    /// [`witness::VerifiedWitness::binding_keys`] are added as reads and the keys proven
    /// again. The result is an ordinary EIP-6800 witness; when no absence needs binding it
    /// is byte for byte the plain prover's. Returns it and the number of keys added.
    ///
    /// ```
    /// let mut tree = verkle::Tree::new();
    /// tree.insert(&[1u8; 32], [2u8; 32]).unwrap();
    /// tree.insert(&[2u8; 32], [3u8; 32]).unwrap();
    /// let root = tree.root_bytes();
    /// let (w, _added) = tree.prove_bound(&[([9u8; 32], None)]).unwrap();
    /// let proven = witness::verify(&root, &w.to_witness().unwrap()).unwrap();
    /// assert_eq!(proven.unbound_absences(), 0);
    /// ```
    pub fn prove_bound(
        &mut self,
        keys: &[(TreeKey, Option<Value>)],
    ) -> Result<(OwnedExecutionWitness, usize), witness::bind::BindError<TreeError>> {
        let root = self.root_bytes();
        witness::bind::prove_bound(&root, keys, |k| self.prove_with_new_values(k))
    }

    /// The proven part of the hypertree under `prefix` for `keys` (each must start with
    /// `prefix`; duplicates allowed, for a key listed twice the last new value wins): every
    /// node at or below the prefix on the keys' paths, with its polynomial and openings, the
    /// stems' extension statuses (depths count from the tree's root) and current values.
    /// Commits pending changes first.
    ///
    /// When the hypertree is empty no node is recorded and every stem is absent-empty at the
    /// prefix's depth; when it is a single leaf (wherever it hangs) that leaf is the top, at
    /// the prefix's path and depth.
    pub fn hypertree_openings(
        &mut self,
        prefix: &[u8],
        keys: &[(TreeKey, Option<Value>)],
    ) -> Result<HypertreeOpenings, HypertreeProofError> {
        self.commit();
        let mut stems: BTreeMap<Stem, Suffixes> = BTreeMap::new();
        for (key, new_value) in keys {
            if !key.starts_with(prefix) {
                return Err(HypertreeProofError::KeyOutsidePrefix {
                    key: hex::encode(key),
                    prefix: hex::encode(prefix),
                });
            }
            let (stem, suffix) = split_key(key);
            stems.entry(stem).or_default().insert(suffix, *new_value);
        }
        let stems: Vec<(Stem, Suffixes)> = stems.into_iter().collect();
        let top = prefix.len();

        // Walk every stem's path; collect the proven nodes by path.
        let mut nodes: BTreeMap<Vec<u8>, ProofNode> = BTreeMap::new();
        let mut ext_bytes: Vec<u8> = Vec::with_capacity(stems.len());
        let mut present_leaf: Vec<Option<NodeId>> = Vec::with_capacity(stems.len());
        for (stem_index, (stem, suffixes)) in stems.iter().enumerate() {
            let (depth, ext, leaf) = self.walk(top, stem, &mut nodes)?;
            ext_bytes.push(((depth as u8) << 3) | ext);
            let Some(leaf) = leaf else {
                present_leaf.push(None);
                continue;
            };
            let path = path_key(stem, depth);
            let present = (ext == EXT_PRESENT).then_some(stem_index);
            match nodes.get_mut(&path) {
                Some(ProofNode::Leaf { present: p, .. }) => {
                    if present.is_some() {
                        *p = present;
                    }
                }
                _ => {
                    nodes.insert(path.clone(), ProofNode::Leaf { id: leaf, present });
                }
            }
            present_leaf.push(present.map(|_| leaf));
            if present.is_none() {
                continue;
            }
            let low = suffixes.keys().any(|&s| s < 128);
            let high = suffixes.keys().any(|&s| s >= 128);
            for (wanted, byte) in [(low, SUFFIX_TREE_BYTE), (high, SUFFIX_TREE_BYTE + 1)] {
                if wanted {
                    let mut p = path.clone();
                    p.push(byte);
                    nodes.insert(
                        p,
                        ProofNode::SuffixTree {
                            id: leaf,
                            high: byte > SUFFIX_TREE_BYTE,
                            stem_index,
                        },
                    );
                }
            }
        }

        // Commitments, polynomials and openings in path order.
        let arena = self.arena();
        // Each node's polynomial is independent: built in parallel (a 10k-key proof has
        // tens of thousands of 256-entry polynomials).
        let entries: Vec<(&Vec<u8>, &ProofNode)> = nodes.iter().collect();
        let built: Vec<(OpenedNode, Option<Stem>)> = entries
            .par_iter()
            .map(|&(path, node)| {
                let mut other_stem: Option<Stem> = None;
                let mut poly = vec![Fr::zero(); WIDTH];
                let mut points: Vec<u8> = Vec::new();
                let commitment = match node {
                    ProofNode::Internal { id, opened } => {
                        let n = arena.internal(*id);
                        for e in &n.children {
                            poly[usize::from(e.index)] = e.committed;
                        }
                        points.extend(opened_indices(opened));
                        n.commitment
                    }
                    ProofNode::Leaf { id, present } => {
                        let l = arena.leaf(*id);
                        poly[0] = Fr::one();
                        poly[1] = stem_field(&l.stem);
                        poly[2] = l.c1_mtf;
                        poly[3] = l.c2_mtf;
                        if present.is_none() {
                            other_stem = Some(l.stem);
                        }
                        points.extend([0, 1]);
                        for byte in [SUFFIX_TREE_BYTE, SUFFIX_TREE_BYTE + 1] {
                            let mut p = path.clone();
                            p.push(byte);
                            if present.is_some() && nodes.contains_key(&p) {
                                points.push(byte);
                            }
                        }
                        l.commitment
                    }
                    ProofNode::SuffixTree {
                        id,
                        high,
                        stem_index,
                    } => {
                        let l = arena.leaf(*id);
                        let in_half = |s: u8| (s >= 128) == *high;
                        for (s, v) in l.values.iter().filter(|(s, _)| in_half(*s)) {
                            let (lo, hi) = value_halves(Some(v));
                            let z = 2 * usize::from(s % 128);
                            poly[z] = lo;
                            poly[z + 1] = hi;
                        }
                        for &s in stems[*stem_index].1.keys().filter(|&&s| in_half(s)) {
                            let z = 2 * (s % 128);
                            points.extend([z, z + 1]);
                        }
                        if *high {
                            l.c2
                        } else {
                            l.c1
                        }
                    }
                };
                (
                    OpenedNode {
                        path: path.clone(),
                        commitment,
                        poly,
                        points,
                    },
                    other_stem,
                )
            })
            .collect();
        let mut other_stems: Vec<Stem> = built.iter().filter_map(|(_, s)| *s).collect();
        let opened: Vec<OpenedNode> = built.into_iter().map(|(n, _)| n).collect();
        other_stems.sort_unstable();
        other_stems.dedup();

        let stems = stems
            .iter()
            .zip(&present_leaf)
            .zip(ext_bytes)
            .map(|(((stem, suffixes), leaf), ext)| StemOpening {
                stem: *stem,
                ext,
                suffixes: suffixes
                    .iter()
                    .map(|(&suffix, new_value)| {
                        let current = leaf.and_then(|id| arena.leaf(id).get(suffix).copied());
                        (suffix, current, *new_value)
                    })
                    .collect(),
            })
            .collect();
        Ok(HypertreeOpenings {
            stems,
            nodes: opened,
            other_stems,
        })
    }

    /// Walks the path of `stem`, recording each internal node at depth `top` or below and
    /// the slot it is opened at. Returns the depth where the path ends, the extension
    /// status, and the leaf there (if any: the stem's own leaf or another stem's). A path
    /// that ends above depth `top` ends, for the hypertree, at `top`: in an empty slot, or in
    /// the hypertree's only leaf.
    fn walk(
        &mut self,
        top: usize,
        stem: &Stem,
        nodes: &mut BTreeMap<Vec<u8>, ProofNode>,
    ) -> Result<(usize, u8, Option<NodeId>), TreeError> {
        let mut cur = self.root_id();
        for depth in 0..STEM_LEN {
            let index = stem[depth];
            if depth >= top {
                let entry = nodes
                    .entry(path_key(stem, depth))
                    .or_insert(ProofNode::Internal {
                        id: cur,
                        opened: [0; 4],
                    });
                if let ProofNode::Internal { opened, .. } = entry {
                    opened[usize::from(index >> 6)] |= 1 << (index & 63);
                }
            }
            let Ok(pos) = self.arena().internal(cur).find(index) else {
                return Ok(((depth + 1).max(top), EXT_ABSENT_EMPTY, None));
            };
            let child_path = NodePath::new(&stem[..=depth]).expect("a stem prefix fits a path");
            let child = self.load_child(cur, pos, child_path)?;
            match self.arena().get(child) {
                Node::Internal(_) => cur = child,
                Node::Leaf(l) => {
                    if depth + 1 < top && l.stem[..top] != stem[..top] {
                        // The only leaf on the way holds another hypertree's stem.
                        return Ok((top, EXT_ABSENT_EMPTY, None));
                    }
                    let ext = if l.stem == *stem {
                        EXT_PRESENT
                    } else {
                        EXT_ABSENT_OTHER
                    };
                    return Ok(((depth + 1).max(top), ext, Some(child)));
                }
            }
        }
        Err(TreeError::Inconsistent {
            path: NodePath::new(stem).expect("a stem fits a path"),
            reason: InconsistencyReason::TooDeep,
        })
    }
}
