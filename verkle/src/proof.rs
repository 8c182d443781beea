//! Proving tree keys: the state diff and Verkle proof of an execution witness
//! (spec-facts §3, verkle-facts §5), byte-identical to what go-verkle produces for the same
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

use std::collections::BTreeMap;

use banderwagon::arith::{One, Zero};
use banderwagon::{fr_from_le_bytes_mod_order, Element, Fr};
use ipa::{Committer, MultiProof, ProverQuery, Transcript, IPA_ROUNDS};
use witness::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};

use crate::error::{InconsistencyReason, TreeError};
use crate::keys::{split_key, Stem, TreeKey, Value, STEM_LEN};
use crate::store::{NodePath, NodeStore};
use crate::tree::node::{Node, NodeId};
use crate::tree::{value_scalars, Tree};

/// The Fiat–Shamir transcript label of execution-witness multiproofs (go-verkle `"vt"`).
const TRANSCRIPT_LABEL: &[u8] = b"vt";

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
        let committer = Committer::eip6800();
        self.commit();
        let mut stems: BTreeMap<Stem, Suffixes> = BTreeMap::new();
        for (key, new_value) in keys {
            let (stem, suffix) = split_key(key);
            stems.entry(stem).or_default().insert(suffix, *new_value);
        }
        let stems: Vec<(Stem, Suffixes)> = stems.into_iter().collect();

        // Walk every stem's path; collect the proven nodes by path.
        let mut nodes: BTreeMap<Vec<u8>, ProofNode> = BTreeMap::new();
        let mut ext_bytes: Vec<u8> = Vec::with_capacity(stems.len());
        let mut present_leaf: Vec<Option<NodeId>> = Vec::with_capacity(stems.len());
        for (stem_index, (stem, suffixes)) in stems.iter().enumerate() {
            let (depth, ext, leaf) = self.walk(stem, &mut nodes)?;
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
        let mut commitments: Vec<Element> = Vec::with_capacity(nodes.len());
        let mut other_stems: Vec<[u8; STEM_LEN]> = Vec::new();
        let mut polys: Vec<Vec<Fr>> = Vec::with_capacity(nodes.len());
        let mut openings: Vec<(usize, Element, u8)> = Vec::new();
        for (path, node) in &nodes {
            let mut poly = vec![Fr::zero(); WIDTH];
            let poly_index = polys.len();
            let commitment = match node {
                ProofNode::Internal { id, opened } => {
                    let n = arena.internal(*id);
                    for e in &n.children {
                        poly[usize::from(e.index)] = e.committed;
                    }
                    for z in opened_indices(opened) {
                        openings.push((poly_index, n.commitment, z));
                    }
                    n.commitment
                }
                ProofNode::Leaf { id, present } => {
                    let l = arena.leaf(*id);
                    poly[0] = Fr::one();
                    poly[1] = fr_from_le_bytes_mod_order(&l.stem);
                    poly[2] = l.c1_mtf;
                    poly[3] = l.c2_mtf;
                    if present.is_none() {
                        other_stems.push(l.stem);
                    }
                    openings.push((poly_index, l.commitment, 0));
                    openings.push((poly_index, l.commitment, 1));
                    for byte in [SUFFIX_TREE_BYTE, SUFFIX_TREE_BYTE + 1] {
                        let mut p = path.clone();
                        p.push(byte);
                        if present.is_some() && nodes.contains_key(&p) {
                            openings.push((poly_index, l.commitment, byte));
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
                        let (lo, hi) = value_scalars(Some(v));
                        let z = 2 * usize::from(s % 128);
                        poly[z] = lo;
                        poly[z + 1] = hi;
                    }
                    let c = if *high { l.c2 } else { l.c1 };
                    for &s in stems[*stem_index].1.keys().filter(|&&s| in_half(s)) {
                        let z = 2 * (s % 128);
                        openings.push((poly_index, c, z));
                        openings.push((poly_index, c, z + 1));
                    }
                    c
                }
            };
            polys.push(poly);
            if !path.is_empty() {
                commitments.push(commitment);
            }
        }
        let queries: Vec<ProverQuery<'_>> = openings
            .iter()
            .map(|&(i, commitment, point)| ProverQuery {
                commitment,
                poly: &polys[i],
                point,
                result: polys[i][usize::from(point)],
            })
            .collect();
        let proof = MultiProof::prove(committer, &mut Transcript::new(TRANSCRIPT_LABEL), &queries);
        // `D ‖ L[8] ‖ R[8] ‖ a` (a little-endian), 32 bytes each.
        let bytes = proof.to_bytes();
        other_stems.sort_unstable();
        other_stems.dedup();

        let state_diff = stems
            .iter()
            .zip(&present_leaf)
            .map(|((stem, suffixes), leaf)| OwnedStemStateDiff {
                stem: *stem,
                suffix_diffs: suffixes
                    .iter()
                    .map(|(&suffix, new_value)| OwnedSuffixStateDiff {
                        suffix,
                        current_value: leaf.and_then(|id| arena.leaf(id).get(suffix).copied()),
                        new_value: *new_value,
                    })
                    .collect(),
            })
            .collect();
        Ok(OwnedExecutionWitness {
            state_diff,
            verkle_proof: OwnedVerkleProof {
                other_stems,
                depth_extension_present: ext_bytes,
                commitments_by_path: Element::batch_to_bytes(&commitments),
                d: chunk(&bytes, 0),
                ipa_proof: OwnedIpaProof {
                    cl: std::array::from_fn(|i| chunk(&bytes, 1 + i)),
                    cr: std::array::from_fn(|i| chunk(&bytes, 1 + IPA_ROUNDS + i)),
                    final_evaluation: chunk(&bytes, 1 + 2 * IPA_ROUNDS),
                },
            },
        })
    }

    /// Walks the path of `stem`, recording each internal node and the slot it is opened at.
    /// Returns the depth where the path ends, the extension status, and the leaf there (if
    /// any: the stem's own leaf or another stem's).
    fn walk(
        &mut self,
        stem: &Stem,
        nodes: &mut BTreeMap<Vec<u8>, ProofNode>,
    ) -> Result<(usize, u8, Option<NodeId>), TreeError> {
        let mut cur = self.root_id();
        for depth in 0..STEM_LEN {
            let index = stem[depth];
            let entry = nodes
                .entry(path_key(stem, depth))
                .or_insert(ProofNode::Internal {
                    id: cur,
                    opened: [0; 4],
                });
            if let ProofNode::Internal { opened, .. } = entry {
                opened[usize::from(index >> 6)] |= 1 << (index & 63);
            }
            let Ok(pos) = self.arena().internal(cur).find(index) else {
                return Ok((depth + 1, EXT_ABSENT_EMPTY, None));
            };
            let child_path = NodePath::new(&stem[..=depth]).expect("a stem prefix fits a path");
            let child = self.load_child(cur, pos, child_path)?;
            match self.arena().get(child) {
                Node::Internal(_) => cur = child,
                Node::Leaf(l) => {
                    let ext = if l.stem == *stem {
                        EXT_PRESENT
                    } else {
                        EXT_ABSENT_OTHER
                    };
                    return Ok((depth + 1, ext, Some(child)));
                }
            }
        }
        Err(TreeError::Inconsistent {
            path: NodePath::new(stem).expect("a stem fits a path"),
            reason: InconsistencyReason::TooDeep,
        })
    }
}
