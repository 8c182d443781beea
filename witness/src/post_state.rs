//! The post-state root from a verified witness alone (`spec/WIRE.md` §6.4).
//!
//! A stateless client holds the commitments of every node on the proven paths. Writing the
//! witness's `new_value`s changes those commitments by deltas, bottom up:
//!
//! - a present stem's suffix tree `C1`/`C2` by `Δlow·G_{2(s mod 128)} + Δhigh·G_{2(s mod 128)+1}`,
//!   then its leaf `C` by `Δmtf(C1)·G2 + Δmtf(C2)·G3`;
//! - an absent stem that is written gets a new leaf, committed from scratch; the new leaves
//!   (and, for absent-other stems, the leaf already there) under one proven slot form a small
//!   subtree, with internal nodes wherever two of their stems share a prefix;
//! - every internal node above a changed child by `Δmtf(child)·G_{index}`, up to the root.
//!
//! Nothing is deleted: a witness writes values, never removes them.
//!
//! The stems' new leaves are computed independently, and so are the parents at each level,
//! on rayon threads when there are several; every `Σ δ·G` is one multi-scalar
//! multiplication (`banderwagon::vartime_multi_scalar_mul`: Straus for a few terms, where a small
//! negative delta costs as little as a small positive one) rather than a product per term.

use crate::prelude::*;

use alloc::collections::BTreeMap;

use banderwagon::arith::{One, Zero};
use banderwagon::{vartime_multi_scalar_mul, Element, Fr};
use ipa::Crs;

use crate::leaf::{stem_field, value_halves};
use crate::preset::STEM_LEN;
use crate::verify::{
    ExtensionStatus, NodeKind, NodePath, ProvenKey, ProvenNode, ProvenStem, VerifiedWitness,
};

/// Why the post-state root could not be computed or does not match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PostStateError {
    /// The root after the witness's writes is not the expected one.
    #[error(
        "post-state root mismatch: computed 0x{}, expected 0x{}",
        hex::encode(got),
        hex::encode(expected)
    )]
    RootMismatch {
        /// The root computed from the witness.
        got: [u8; 32],
        /// The root it was compared with.
        expected: [u8; 32],
    },
    /// A node the update needs is not among the proven nodes, or is of the wrong kind.
    /// Unreachable for a witness that [`verify`](crate::verify) accepted.
    #[error("the update needs {wanted} at path {path}, which the proof does not cover")]
    MissingNode {
        /// Where the node should be.
        path: NodePath,
        /// What kind of node was needed.
        wanted: NodeKind,
    },
    /// Two leaves to place under one slot have the same stem. Unreachable for a witness
    /// that [`verify`](crate::verify) accepted.
    #[error(
        "two leaves with the same stem 0x{} under path {path}",
        hex::encode(stem)
    )]
    StemCollision {
        /// The slot the leaves were placed under.
        path: NodePath,
        /// The repeated stem.
        stem: [u8; STEM_LEN],
    },
}

impl VerifiedWitness {
    /// The state root after writing every `new_value` of the witness, computed from the
    /// proven commitments alone (no database).
    ///
    /// It equals the block's post-state root exactly when the witness lists every write
    /// of the block; a write missing from the witness (a client that wrote leaves without
    /// listing them) shows up as a different root.
    ///
    /// A write to a key whose absence is unbound ([`unbound_writes`](Self::unbound_writes)
    /// is not zero) places a new leaf where the proof says the slot is empty; the root is
    /// then the canonical one only if the prover told the truth about that absence.
    pub fn post_state_root(&self) -> Result<[u8; 32], PostStateError> {
        Ok(post_state_commitment(self)?.to_bytes())
    }

    /// Compares [`post_state_root`](Self::post_state_root) with `expected`.
    pub fn check_post_state_root(&self, expected: &[u8; 32]) -> Result<(), PostStateError> {
        let got = self.post_state_root()?;
        if &got == expected {
            Ok(())
        } else {
            Err(PostStateError::RootMismatch {
                got,
                expected: *expected,
            })
        }
    }
}

/// The generators `G_i`, looked up without panicking.
struct Generators(&'static [Element]);

impl Generators {
    fn get(&self, i: usize) -> Element {
        // The CRS has 256 generators and every index here is below 256.
        self.0.get(i).copied().unwrap_or_else(Element::identity)
    }
}

/// A node of the tree after the writes that differs from the proven one (or is new).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PostNode {
    /// Its commitment after the writes.
    pub commitment: Element,
    /// `Some(stem)` for a leaf, `None` for an internal node.
    pub leaf_stem: Option<[u8; STEM_LEN]>,
    /// Built by the writes (a subtree under a proven slot): it has no child but those the
    /// writes built. Otherwise a proven node whose untouched children keep their commitments.
    pub fresh: bool,
}

/// Where the post-state computation reports the nodes it changes or builds (`None`: it
/// does not).
type Recorder<'a> = Option<&'a mut BTreeMap<NodePath, PostNode>>;

fn record(out: &mut Recorder<'_>, path: NodePath, node: PostNode) {
    if let Some(map) = out.as_mut() {
        map.insert(path, node);
    }
}

/// The post-state root and every node the writes change or build, by path.
pub(crate) fn post_state_nodes(
    v: &VerifiedWitness,
) -> Result<(Element, BTreeMap<NodePath, PostNode>), PostStateError> {
    let mut nodes = BTreeMap::new();
    let root = post_state_commitment_with(v, &mut Some(&mut nodes))?;
    Ok((root, nodes))
}

fn post_state_commitment(v: &VerifiedWitness) -> Result<Element, PostStateError> {
    post_state_commitment_with(v, &mut None)
}

fn post_state_commitment_with(
    v: &VerifiedWitness,
    out: &mut Recorder<'_>,
) -> Result<Element, PostStateError> {
    let g = Generators(&Crs::eip6800().g);

    // Each written stem's new leaf, computed independently (in parallel when it pays).
    let stems: Vec<(usize, &ProvenStem)> = v.stems().iter().enumerate().collect();
    let updates = map_in_order(&stems, |&(stem_index, s)| stem_update(v, &g, stem_index, s));

    // New commitments of leaves and slots, by path.
    let mut changed: BTreeMap<NodePath, Element> = BTreeMap::new();
    // New leaves of absent stems, by the proven slot (empty or other stem's leaf) they go in.
    let mut placed: BTreeMap<NodePath, Vec<([u8; STEM_LEN], Element)>> = BTreeMap::new();
    for update in updates {
        match update? {
            None => {}
            Some(StemUpdate::Present { path, stem, leaf }) => {
                changed.insert(path, leaf);
                let node = PostNode {
                    commitment: leaf,
                    leaf_stem: Some(stem),
                    fresh: false,
                };
                record(out, path, node);
            }
            Some(StemUpdate::Placed { path, stem, leaf }) => {
                placed.entry(path).or_default().push((stem, leaf));
            }
        }
    }

    for (path, mut leaves) in placed {
        let slot = v.node(path.as_bytes()).ok_or(PostStateError::MissingNode {
            path,
            wanted: NodeKind::Leaf,
        })?;
        match (slot.kind, slot.leaf_stem) {
            (NodeKind::Empty, _) => {}
            (NodeKind::Leaf, Some(stem)) => {
                // The leaf already there (updated above if its stem is present and written).
                let current = changed.get(&path).copied().unwrap_or(slot.commitment);
                leaves.push((stem, current));
            }
            _ => {
                return Err(PostStateError::MissingNode {
                    path,
                    wanted: NodeKind::Leaf,
                })
            }
        }
        leaves.sort_unstable_by_key(|(stem, _)| *stem);
        let subtree = subtree_commitment(&g, path, &leaves, out)?;
        changed.insert(path, subtree);
    }

    propagate(v, &g, changed, out)
}

/// What writing one stem's `new_value`s does below the proven internal nodes.
enum StemUpdate {
    /// The present stem's leaf at `path` has a new commitment.
    Present {
        path: NodePath,
        stem: [u8; STEM_LEN],
        leaf: Element,
    },
    /// The absent stem gets a new leaf, to be placed under the proven slot at `path`.
    Placed {
        path: NodePath,
        stem: [u8; STEM_LEN],
        leaf: Element,
    },
}

/// The new leaf of stem `stem_index`, or `None` when the witness writes none of its keys.
fn stem_update(
    v: &VerifiedWitness,
    g: &Generators,
    stem_index: usize,
    s: &ProvenStem,
) -> Result<Option<StemUpdate>, PostStateError> {
    let writes: Vec<&ProvenKey> = keys_of(v.keys(), stem_index)
        .iter()
        .filter(|k| k.new_value.is_some())
        .collect();
    if writes.is_empty() {
        return Ok(None);
    }
    let path = s.path();
    let node = |path: NodePath, wanted: NodeKind| -> Result<&ProvenNode, PostStateError> {
        v.node(path.as_bytes())
            .filter(|n| n.kind == wanted)
            .ok_or(PostStateError::MissingNode { path, wanted })
    };
    match s.status {
        ExtensionStatus::Present => {
            let leaf = node(path, NodeKind::Leaf)?;
            let mut points = Vec::with_capacity(2);
            let mut deltas = Vec::with_capacity(2);
            for half in 0..2u8 {
                let in_half: Vec<&&ProvenKey> = writes
                    .iter()
                    .filter(|k| (k.suffix >= 128) == (half == 1))
                    .collect();
                if in_half.is_empty() {
                    continue;
                }
                let suffix_path = path.child(2 + half).ok_or(PostStateError::MissingNode {
                    path,
                    wanted: NodeKind::SuffixTree,
                })?;
                let tree = node(suffix_path, NodeKind::SuffixTree)?;
                let mut value_points = Vec::with_capacity(2 * in_half.len());
                let mut value_deltas = Vec::with_capacity(2 * in_half.len());
                for k in in_half {
                    let (old_low, old_high) = value_halves(k.current_value.as_ref());
                    let (new_low, new_high) = value_halves(k.new_value.as_ref());
                    let z = 2 * usize::from(k.suffix % 128);
                    value_points.extend([g.get(z), g.get(z + 1)]);
                    value_deltas.extend([new_low - old_low, new_high - old_high]);
                }
                let new_tree =
                    tree.commitment + vartime_multi_scalar_mul(&value_points, &value_deltas);
                points.push(g.get(2 + usize::from(half)));
                deltas.push(new_tree.map_to_scalar_field() - tree.field);
            }
            Ok(Some(StemUpdate::Present {
                path,
                stem: s.stem,
                leaf: leaf.commitment + vartime_multi_scalar_mul(&points, &deltas),
            }))
        }
        ExtensionStatus::AbsentEmpty | ExtensionStatus::AbsentOther => {
            Ok(Some(StemUpdate::Placed {
                path,
                stem: s.stem,
                leaf: new_leaf(g, &s.stem, &writes),
            }))
        }
    }
}

/// `f` of every item, results in item order; on rayon threads when there are several items
/// (each costs at least one scalar multiplication, far more than a task's overhead).
fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if items.len() > 1 {
        use rayon::prelude::*;
        return items.par_iter().map(f).collect();
    }
    items.iter().map(f).collect()
}

/// The keys of stem `stem_index`: a contiguous run of `keys` (which are in stem order).
fn keys_of(keys: &[ProvenKey], stem_index: usize) -> &[ProvenKey] {
    let start = keys.partition_point(|k| k.stem_index < stem_index);
    let end = keys.partition_point(|k| k.stem_index <= stem_index);
    keys.get(start..end)
        .expect("two partition points of one slice, the first not after the second")
}

/// A leaf committed from scratch with only the written values (`spec/WIRE.md` §13):
/// `C = 1·G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3`.
fn new_leaf(g: &Generators, stem: &[u8; STEM_LEN], writes: &[&ProvenKey]) -> Element {
    let mut halves: [(Vec<Element>, Vec<Fr>); 2] = Default::default();
    for k in writes {
        let (low, high) = value_halves(k.new_value.as_ref());
        let z = 2 * usize::from(k.suffix % 128);
        let (points, scalars) = &mut halves[usize::from(k.suffix >= 128)];
        points.extend([g.get(z), g.get(z + 1)]);
        scalars.extend([low, high]);
    }
    let [c1, c2] = halves.map(|(points, scalars)| vartime_multi_scalar_mul(&points, &scalars));
    vartime_multi_scalar_mul(
        &[g.get(0), g.get(1), g.get(2), g.get(3)],
        &[
            Fr::one(),
            stem_field(stem),
            c1.map_to_scalar_field(),
            c2.map_to_scalar_field(),
        ],
    )
}

/// The commitment of the subtree holding `leaves` (sorted by stem, at least one) whose root
/// is at `path`: the leaf itself when there is one, else an internal node over the groups of
/// leaves sharing the next stem byte (EIP-6800: internal nodes only where stems share a
/// prefix).
fn subtree_commitment(
    g: &Generators,
    path: NodePath,
    leaves: &[([u8; STEM_LEN], Element)],
    out: &mut Recorder<'_>,
) -> Result<Element, PostStateError> {
    match leaves {
        [] => Ok(Element::identity()),
        [(stem, leaf)] => {
            let node = PostNode {
                commitment: *leaf,
                leaf_stem: Some(*stem),
                fresh: true,
            };
            record(out, path, node);
            Ok(*leaf)
        }
        [(first, _), ..] => {
            let depth = path.len();
            let Some(_) = first.get(depth) else {
                return Err(PostStateError::StemCollision { path, stem: *first });
            };
            let mut points = Vec::new();
            let mut scalars = Vec::new();
            for group in leaves.chunk_by(|a, b| a.0.get(depth) == b.0.get(depth)) {
                let Some(&index) = group.first().and_then(|(s, _)| s.get(depth)) else {
                    continue;
                };
                let child_path = path
                    .child(index)
                    .ok_or(PostStateError::StemCollision { path, stem: *first })?;
                let child = subtree_commitment(g, child_path, group, out)?;
                points.push(g.get(usize::from(index)));
                scalars.push(child.map_to_scalar_field());
            }
            let commitment = vartime_multi_scalar_mul(&points, &scalars);
            let node = PostNode {
                commitment,
                leaf_stem: None,
                fresh: true,
            };
            record(out, path, node);
            Ok(commitment)
        }
    }
}

/// Updates every internal node above a changed node, deepest first, and returns the new
/// root commitment (the pre-state root when nothing changed).
fn propagate(
    v: &VerifiedWitness,
    g: &Generators,
    changed: BTreeMap<NodePath, Element>,
    out: &mut Recorder<'_>,
) -> Result<Element, PostStateError> {
    let mut levels: Vec<Vec<(NodePath, Element)>> = vec![Vec::new(); STEM_LEN + 2];
    for (path, c) in changed {
        if let Some(level) = levels.get_mut(path.len()) {
            level.push((path, c));
        }
    }
    for depth in (1..levels.len()).rev() {
        let mut level = levels
            .get_mut(depth)
            .map(core::mem::take)
            .expect("depth < levels.len()");
        if level.is_empty() {
            continue;
        }
        level.sort_unstable_by_key(|(path, _)| *path);
        let new_commitments: Vec<Element> = level.iter().map(|(_, c)| *c).collect();
        let new_fields = Element::par_batch_map_to_scalar_field(&new_commitments);
        // Group the level's nodes by parent (they are sorted by path, so siblings are
        // adjacent), then update the parents independently.
        let mut groups: Vec<(NodePath, Vec<Element>, Vec<Fr>)> = Vec::new();
        for ((path, _), new_field) in level.iter().zip(&new_fields) {
            let Some((parent_path, index)) = path.parent() else {
                break;
            };
            let old_field = v.node(path.as_bytes()).map_or_else(Fr::zero, |n| n.field);
            let delta = *new_field - old_field;
            match groups.last_mut() {
                Some((p, points, deltas)) if *p == parent_path => {
                    points.push(g.get(usize::from(index)));
                    deltas.push(delta);
                }
                _ => groups.push((parent_path, vec![g.get(usize::from(index))], vec![delta])),
            }
        }
        let parents = map_in_order(&groups, |(parent_path, points, deltas)| {
            let parent = v
                .node(parent_path.as_bytes())
                .filter(|n| n.kind == NodeKind::Internal)
                .ok_or(PostStateError::MissingNode {
                    path: *parent_path,
                    wanted: NodeKind::Internal,
                })?;
            Ok((
                *parent_path,
                parent.commitment + vartime_multi_scalar_mul(points, deltas),
            ))
        })
        .into_iter()
        .collect::<Result<Vec<(NodePath, Element)>, PostStateError>>()?;
        for (path, commitment) in &parents {
            let node = PostNode {
                commitment: *commitment,
                leaf_stem: None,
                fresh: false,
            };
            record(out, *path, node);
        }
        if let Some(up) = levels.get_mut(depth - 1) {
            up.extend(parents);
        }
    }
    let root = levels
        .first_mut()
        .and_then(|l| l.pop())
        .map(|(_, c)| c)
        .or_else(|| v.node(&[]).map(|n| n.commitment))
        .ok_or(PostStateError::MissingNode {
            path: NodePath::ROOT,
            wanted: NodeKind::Internal,
        })?;
    Ok(root)
}

#[cfg(test)]
mod tests;
