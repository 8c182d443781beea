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
//! A standard witness writes values and never removes them. A fractional proof can delete
//! keys (`spec/FRACTIONAL.md` §5.1): a leaf left with no value is removed (its commitment
//! after the writes is `1·G0 + stem·G1`), and an internal node left with one leaf and no
//! other child gives way to that leaf, or with no child at all is removed, keeping the tree
//! compact. Whether such a node has children the proof does not open is read off its
//! commitment: it has none exactly when the proven children's values commit to it.
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
    /// The writes remove every proven child of the internal node at `path`, whose
    /// commitment says it has other children, and the proof opens none of them: whether
    /// the node gives way to a lone leaf is not decided (`spec/FRACTIONAL.md` §5.1). A
    /// prover adds a read under one of those children.
    #[error(
        "the writes empty the proven children of the internal node at {path}, which has \
         children the proof does not open"
    )]
    CollapseUnresolved {
        /// The internal node.
        path: NodePath,
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
pub(crate) enum PostNode {
    /// The slot is empty after the writes (its leaf or internal node was removed).
    Empty,
    /// A leaf holding `stem`.
    Leaf {
        stem: [u8; STEM_LEN],
        commitment: Element,
    },
    /// An internal node. `fresh` when the writes built it (a subtree under a proven slot):
    /// it has no child but those the writes built. Otherwise a proven node whose untouched
    /// children keep their commitments.
    Internal { commitment: Element, fresh: bool },
}

impl PostNode {
    fn commitment(&self) -> Element {
        match self {
            PostNode::Empty => Element::identity(),
            PostNode::Leaf { commitment, .. } | PostNode::Internal { commitment, .. } => {
                *commitment
            }
        }
    }

    /// The proven node as it is before the writes.
    fn from_proven(n: &ProvenNode) -> PostNode {
        match (n.kind, n.leaf_stem) {
            (NodeKind::Leaf, Some(stem)) => PostNode::Leaf {
                stem,
                commitment: n.commitment,
            },
            (NodeKind::Internal, _) => PostNode::Internal {
                commitment: n.commitment,
                fresh: false,
            },
            _ => PostNode::Empty,
        }
    }
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

    // The nodes after the writes at the paths of leaves and slots, by path.
    let mut changed: BTreeMap<NodePath, PostNode> = BTreeMap::new();
    // New leaves of absent stems, by the proven slot (empty or other stem's leaf) they go in.
    let mut placed: BTreeMap<NodePath, Vec<([u8; STEM_LEN], Element)>> = BTreeMap::new();
    for update in updates {
        match update? {
            None => {}
            Some(StemUpdate::Present { path, stem, leaf }) => {
                let node = match leaf {
                    Some(commitment) => PostNode::Leaf { stem, commitment },
                    None => PostNode::Empty,
                };
                changed.insert(path, node);
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
                // The leaf already there, as the writes left it (updated or removed above
                // if its stem is present and written).
                match changed.get(&path) {
                    None => leaves.push((stem, slot.commitment)),
                    Some(PostNode::Leaf { commitment, .. }) => leaves.push((stem, *commitment)),
                    Some(_) => {}
                }
            }
            _ => {
                return Err(PostStateError::MissingNode {
                    path,
                    wanted: NodeKind::Leaf,
                })
            }
        }
        leaves.sort_unstable_by_key(|(stem, _)| *stem);
        let subtree = subtree(&g, path, &leaves, out)?;
        changed.insert(path, subtree);
    }

    propagate(v, &g, changed, out)
}

/// What writing one stem's `new_value`s (and deletions) does below the proven internal
/// nodes.
enum StemUpdate {
    /// The present stem's leaf at `path` has a new commitment, or (`None`) no value left.
    Present {
        path: NodePath,
        stem: [u8; STEM_LEN],
        leaf: Option<Element>,
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
        .filter(|k| k.new_value.is_some() || k.deleted)
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
                    // A deleted key has no new value: its halves go to zero.
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
            let new_leaf = leaf.commitment + vartime_multi_scalar_mul(&points, &deltas);
            // A leaf with no value left commits to its marker and stem alone (both suffix
            // trees the identity, whose field value is 0): it is removed.
            let emptied = writes.iter().any(|k| k.deleted)
                && new_leaf
                    == vartime_multi_scalar_mul(
                        &[g.get(0), g.get(1)],
                        &[Fr::one(), stem_field(&s.stem)],
                    );
            Ok(Some(StemUpdate::Present {
                path,
                stem: s.stem,
                leaf: (!emptied).then_some(new_leaf),
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

/// The subtree holding `leaves` (sorted by stem) whose root is at `path`: empty when there
/// is none, the leaf itself when there is one, else an internal node over the groups of
/// leaves sharing the next stem byte (EIP-6800: internal nodes only where stems share a
/// prefix).
fn subtree(
    g: &Generators,
    path: NodePath,
    leaves: &[([u8; STEM_LEN], Element)],
    out: &mut Recorder<'_>,
) -> Result<PostNode, PostStateError> {
    match leaves {
        [] => Ok(PostNode::Empty),
        [(stem, leaf)] => {
            let node = PostNode::Leaf {
                stem: *stem,
                commitment: *leaf,
            };
            record(out, path, node);
            Ok(node)
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
                let child = subtree(g, child_path, group, out)?;
                points.push(g.get(usize::from(index)));
                scalars.push(child.commitment().map_to_scalar_field());
            }
            let node = PostNode::Internal {
                commitment: vartime_multi_scalar_mul(&points, &scalars),
                fresh: true,
            };
            record(out, path, node);
            Ok(node)
        }
    }
}

/// The changed children of one internal node: `(index, node after the writes, its field
/// value)`.
type Children = Vec<(u8, PostNode, Fr)>;

/// Updates every internal node above a changed node, deepest first, and returns the new
/// root commitment (the pre-state root when nothing changed).
fn propagate(
    v: &VerifiedWitness,
    g: &Generators,
    changed: BTreeMap<NodePath, PostNode>,
    out: &mut Recorder<'_>,
) -> Result<Element, PostStateError> {
    let mut levels: Vec<Vec<(NodePath, PostNode)>> = vec![Vec::new(); STEM_LEN + 2];
    for (path, node) in changed {
        record(out, path, node);
        if let Some(level) = levels.get_mut(path.len()) {
            level.push((path, node));
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
        let new_commitments: Vec<Element> = level.iter().map(|(_, n)| n.commitment()).collect();
        let new_fields = Element::par_batch_map_to_scalar_field(&new_commitments);
        // Group the level's nodes by parent (they are sorted by path, so siblings are
        // adjacent), then update the parents independently.
        let mut groups: Vec<(NodePath, Children)> = Vec::new();
        for ((path, node), new_field) in level.iter().zip(&new_fields) {
            let Some((parent_path, index)) = path.parent() else {
                break;
            };
            let child = (index, *node, *new_field);
            match groups.last_mut() {
                Some((p, children)) if *p == parent_path => children.push(child),
                _ => groups.push((parent_path, vec![child])),
            }
        }
        let parents = map_in_order(&groups, |(parent_path, children)| {
            Ok((*parent_path, parent_update(v, g, *parent_path, children)?))
        })
        .into_iter()
        .collect::<Result<Vec<(NodePath, PostNode)>, PostStateError>>()?;
        for (path, node) in &parents {
            record(out, *path, *node);
        }
        if let Some(up) = levels.get_mut(depth - 1) {
            up.extend(parents);
        }
    }
    let root = levels
        .first_mut()
        .and_then(|l| l.pop())
        .map(|(_, n)| n.commitment())
        .or_else(|| v.node(&[]).map(|n| n.commitment))
        .ok_or(PostStateError::MissingNode {
            path: NodePath::ROOT,
            wanted: NodeKind::Internal,
        })?;
    Ok(root)
}

/// The proven internal node at `path` after its `children` changed: its commitment moved
/// by `Σ Δmtf(child)·G_index`, or — when a child was removed or gave way to a leaf, and the
/// node is not the root — the lone leaf it gives way to, or nothing (§5.1 of
/// `spec/FRACTIONAL.md`).
fn parent_update(
    v: &VerifiedWitness,
    g: &Generators,
    path: NodePath,
    children: &[(u8, PostNode, Fr)],
) -> Result<PostNode, PostStateError> {
    let parent = v
        .node(path.as_bytes())
        .filter(|n| n.kind == NodeKind::Internal)
        .ok_or(PostStateError::MissingNode {
            path,
            wanted: NodeKind::Internal,
        })?;
    let mut points = Vec::with_capacity(children.len());
    let mut deltas = Vec::with_capacity(children.len());
    let mut shrinks = false;
    for (index, node, field) in children {
        let old = path.child(*index).and_then(|p| v.node(p.as_bytes()));
        let (old_kind, old_field) =
            old.map_or((NodeKind::Empty, Fr::zero()), |n| (n.kind, n.field));
        points.push(g.get(usize::from(*index)));
        deltas.push(*field - old_field);
        shrinks |= match node {
            PostNode::Empty => old_kind != NodeKind::Empty,
            PostNode::Leaf { .. } => old_kind == NodeKind::Internal,
            PostNode::Internal { .. } => false,
        };
    }
    let moved = PostNode::Internal {
        commitment: parent.commitment + vartime_multi_scalar_mul(&points, &deltas),
        fresh: false,
    };
    if !shrinks || path.is_empty() {
        return Ok(moved);
    }
    // Its proven children after the writes, and whether they are all it has: exactly when
    // their values before the writes commit to it.
    let mut lone_leaf = None;
    let mut kept = 0usize;
    let mut proven_points = Vec::new();
    let mut proven_fields = Vec::new();
    for child in proven_children(v, path) {
        let Some(&index) = child.path.as_bytes().last() else {
            continue;
        };
        proven_points.push(g.get(usize::from(index)));
        proven_fields.push(child.field);
        let after = children
            .iter()
            .find(|(i, _, _)| *i == index)
            .map_or_else(|| PostNode::from_proven(child), |(_, n, _)| *n);
        match after {
            PostNode::Empty => {}
            PostNode::Leaf { .. } => {
                kept += 1;
                lone_leaf = Some(after);
            }
            PostNode::Internal { .. } => return Ok(moved),
        }
    }
    if kept >= 2 {
        return Ok(moved);
    }
    let alone = vartime_multi_scalar_mul(&proven_points, &proven_fields) == parent.commitment;
    match (lone_leaf, alone) {
        // The only child left is a leaf: it takes the node's place.
        (Some(leaf), true) => Ok(leaf),
        // The leaf has siblings the proof does not open.
        (Some(_), false) => Ok(moved),
        // No child left.
        (None, true) => Ok(PostNode::Empty),
        (None, false) => Err(PostStateError::CollapseUnresolved { path }),
    }
}

/// The proven nodes one level below the internal node at `path`.
fn proven_children(v: &VerifiedWitness, path: NodePath) -> impl Iterator<Item = &ProvenNode> {
    let nodes = v.nodes();
    let start = nodes.partition_point(|n| n.path.as_bytes() <= path.as_bytes());
    nodes
        .get(start..)
        .unwrap_or(&[])
        .iter()
        .take_while(move |n| n.path.as_bytes().starts_with(path.as_bytes()))
        .filter(move |n| n.path.len() == path.len() + 1)
}

#[cfg(test)]
mod tests;
