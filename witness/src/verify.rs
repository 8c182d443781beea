//! Stateless verification of an execution witness against a pre-state root
//! (`spec/WIRE.md` §6).
//!
//! The verifier rebuilds, from the state diff and the extension statuses alone, the part of
//! the pre-state tree the proof covers — internal nodes, leaves, empty slots and suffix
//! trees, each at its path — assigns `commitments_by_path` to those nodes in path order,
//! derives the set of openings `(path, z) → y`, and checks the multiproof over them with the
//! transcript label `"vt"`. The root is the commitment at the empty path, so a wrong
//! pre-state root makes the multiproof fail.
//!
//! Work is linear in the witness: the tree is a map keyed by path (at most 33 entries per
//! stem). Every point — the root, each commitment, the proof's `D`, `L_i` and `R_i` — is
//! decompressed once, all in one parallel pass (while the shape is rebuilt and the openings
//! planned on another core: an opening whose value is a commitment's field only records
//! which one, filled in after decoding); the commitments are mapped to the scalar field in
//! batches; the public node list is built on one core while the other checks the proof; the
//! transcript takes the commitments' bytes from the witness rather than re-encoding the
//! points; and the multiproof is checked over the decoded commitments by index, with no
//! per-opening copy of a point (`ipa::MultiProof::verify_openings`).

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use banderwagon::arith::{One, Zero};
use banderwagon::{fr_from_le_bytes_canonical, DecodeError, Element, Fr};
use ipa::{Crs, MultiProof, Opening, ProofDecodeError, Transcript, IPA_ROUNDS};

use crate::canonical::check_canonical;
use crate::error::CanonicalError;
use crate::execution_witness::ExecutionWitness;
use crate::leaf::{stem_field, value_halves};
use crate::preset::{
    EXT_STATUS_ABSENT_EMPTY, EXT_STATUS_ABSENT_OTHER, EXT_STATUS_PRESENT, IPA_PROOF_DEPTH, STEM_LEN,
};
use crate::view::{Points, StateDiff, VerkleProof};

/// The Fiat–Shamir transcript label of execution-witness multiproofs (go-verkle `"vt"`).
const TRANSCRIPT_LABEL: &[u8] = b"vt";

/// The byte a leaf's path is extended with to reach its suffix tree `C1` (suffixes 0..127);
/// `C2` is one more (go-verkle `slotPath`).
const SUFFIX_TREE_BYTE: u8 = 2;

/// The longest path: 31 stem bytes and one suffix-tree byte.
const MAX_PATH_LEN: usize = STEM_LEN + 1;

/// A node's position in the tree: the key bytes leading to it from the root. Internal nodes,
/// leaves and empty slots have paths of at most 31 bytes (a prefix of a stem); a suffix tree
/// is its leaf's path followed by 2 (`C1`) or 3 (`C2`). Ordered bytewise, so a node sorts
/// before its descendants — the order of `commitments_by_path` and of the openings.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodePath {
    len: u8,
    bytes: [u8; MAX_PATH_LEN],
}

impl NodePath {
    /// The root's path (empty).
    pub const ROOT: NodePath = NodePath {
        len: 0,
        bytes: [0; MAX_PATH_LEN],
    };

    /// The path with these bytes, if they are at most 32.
    pub fn new(bytes: &[u8]) -> Option<NodePath> {
        let mut out = NodePath::ROOT;
        out.bytes.get_mut(..bytes.len())?.copy_from_slice(bytes);
        out.len = u8::try_from(bytes.len()).ok()?;
        Some(out)
    }

    /// The path bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// Number of bytes: the node's depth.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether this is the root's path.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The path of child `index` of this node, if the path is not already 32 bytes.
    pub fn child(&self, index: u8) -> Option<NodePath> {
        let mut out = *self;
        *out.bytes.get_mut(usize::from(self.len))? = index;
        out.len += 1;
        Some(out)
    }

    /// The parent's path and this node's index in it; `None` for the root.
    pub fn parent(&self) -> Option<(NodePath, u8)> {
        let last = self.len.checked_sub(1)?;
        let index = *self.bytes.get(usize::from(last))?;
        let mut out = *self;
        out.len = last;
        if let Some(b) = out.bytes.get_mut(usize::from(last)) {
            *b = 0;
        }
        Some((out, index))
    }
}

impl Ord for NodePath {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for NodePath {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.as_bytes()))
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Extension status of a stem (low 3 bits of its `depth_extension_present` byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtensionStatus {
    /// The stem is absent: its slot in the internal node at depth − 1 is empty.
    AbsentEmpty,
    /// The stem is absent: the leaf on its path at `depth` belongs to another stem.
    AbsentOther,
    /// The stem's leaf is in the tree at `depth`.
    Present,
}

impl ExtensionStatus {
    fn from_byte(byte: u8) -> Option<ExtensionStatus> {
        match byte & 0b111 {
            EXT_STATUS_ABSENT_EMPTY => Some(ExtensionStatus::AbsentEmpty),
            EXT_STATUS_ABSENT_OTHER => Some(ExtensionStatus::AbsentOther),
            EXT_STATUS_PRESENT => Some(ExtensionStatus::Present),
            _ => None,
        }
    }
}

/// What a node of the proven tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// An internal node (the root is one).
    Internal,
    /// An empty slot of an internal node, proven by an absent-empty stem. It has no
    /// commitment (its field value is 0).
    Empty,
    /// A leaf (extension node) `C = 1·G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3`.
    Leaf,
    /// A suffix-tree commitment: `C1` (path ends in 2) or `C2` (path ends in 3).
    SuffixTree,
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeKind::Internal => "an internal node",
            NodeKind::Empty => "an empty slot",
            NodeKind::Leaf => "a leaf",
            NodeKind::SuffixTree => "a suffix tree",
        })
    }
}

/// A node of the pre-state tree whose commitment the proof covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProvenNode {
    /// Where it is.
    pub path: NodePath,
    /// What it is.
    pub kind: NodeKind,
    /// For a leaf, the stem it holds (from the state diff or `other_stems`).
    pub leaf_stem: Option<[u8; STEM_LEN]>,
    /// Its commitment (the identity for an empty slot).
    pub commitment: Element,
    /// `map_to_scalar_field(commitment)`: the value its parent commits to (0 when empty).
    pub field: Fr,
    /// For an internal node: whether the witness proves it internal — the root, or a node
    /// opened at an index `z ≥ 4` to a non-zero value or at `z = 0` to a value other than 1,
    /// which no leaf's polynomial takes. Always `false` for other kinds.
    pub proven_internal: bool,
}

/// A stem of the state diff as the proof places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProvenStem {
    /// The stem.
    pub stem: [u8; STEM_LEN],
    /// Depth of its leaf (present, absent-other) or of its empty slot (absent-empty).
    pub depth: u8,
    /// Its extension status.
    pub status: ExtensionStatus,
    /// The stem of the leaf at `stem[..depth]`: the stem itself when present, the other
    /// stem when absent-other, `None` when absent-empty.
    pub leaf_stem: Option<[u8; STEM_LEN]>,
    /// Whether what the proof says of this stem is bound to the tree behind the root.
    /// Present and absent-other stems always are (their leaf's marker and stem are
    /// opened). An absent-empty stem is bound when every internal node on its path below
    /// the root is [proven internal](ProvenNode::proven_internal); otherwise a leaf could
    /// be posing as one of them and the stem may exist (`spec/WIRE.md`, "What a verified
    /// witness proves"). The EIP-6800 format cannot rule this out, so it is reported, not
    /// rejected.
    pub bound: bool,
}

impl ProvenStem {
    /// The path of its leaf or empty slot, `stem[..depth]`.
    pub fn path(&self) -> NodePath {
        self.stem
            .get(..usize::from(self.depth))
            .and_then(NodePath::new)
            .unwrap_or(NodePath::ROOT)
    }
}

/// One key of the state diff with its proven pre-state value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProvenKey {
    /// Index of its stem in [`VerifiedWitness::stems`] (and in `state_diff`).
    pub stem_index: usize,
    /// The stem.
    pub stem: [u8; STEM_LEN],
    /// The suffix.
    pub suffix: u8,
    /// The pre-state value, proven: `None` means proven absent.
    pub current_value: Option<[u8; 32]>,
    /// The value the witness says the block writes (`None`: not written). Not covered by
    /// the proof; [`VerifiedWitness::post_state_root`] turns these into a root to compare.
    pub new_value: Option<[u8; 32]>,
    /// Whether the proven pre-state of this key is bound ([`ProvenStem::bound`] of its
    /// stem): `false` only for a key proven absent through an unbound absence.
    pub bound: bool,
}

impl ProvenKey {
    /// The 32-byte tree key `stem ‖ suffix`.
    pub fn key(&self) -> [u8; 32] {
        let mut key = [0u8; 32];
        key[..STEM_LEN].copy_from_slice(&self.stem);
        key[STEM_LEN] = self.suffix;
        key
    }
}

/// A witness whose current values are proven against a pre-state root: the result of
/// [`verify`].
#[derive(Debug, Clone)]
pub struct VerifiedWitness {
    pub(crate) pre_state_root: [u8; 32],
    pub(crate) nodes: Vec<ProvenNode>,
    pub(crate) stems: Vec<ProvenStem>,
    pub(crate) keys: Vec<ProvenKey>,
    pub(crate) openings: usize,
}

impl VerifiedWitness {
    /// The pre-state root the witness was verified against.
    pub fn pre_state_root(&self) -> &[u8; 32] {
        &self.pre_state_root
    }

    /// The stems, in state-diff order (ascending).
    pub fn stems(&self) -> &[ProvenStem] {
        &self.stems
    }

    /// Every key of the state diff with its proven pre-state value, in state-diff order
    /// (ascending by key).
    pub fn keys(&self) -> &[ProvenKey] {
        &self.keys
    }

    /// The proven pre-state value of `key`: `Some(Some(v))` present with value `v`,
    /// `Some(None)` proven absent, `None` when the witness does not cover the key.
    pub fn current_value(&self, key: &[u8; 32]) -> Option<Option<&[u8; 32]>> {
        let i = self.keys.binary_search_by(|k| k.key().cmp(key)).ok()?;
        self.keys.get(i).map(|k| k.current_value.as_ref())
    }

    /// Every proven node — the root, each node of `commitments_by_path`, and the proven
    /// empty slots — ordered by path.
    pub fn nodes(&self) -> &[ProvenNode] {
        &self.nodes
    }

    /// The proven node at `path`, if the proof covers it.
    pub fn node(&self, path: &[u8]) -> Option<&ProvenNode> {
        let i = self
            .nodes
            .binary_search_by(|n| n.path.as_bytes().cmp(path))
            .ok()?;
        self.nodes.get(i)
    }

    /// Number of openings `(commitment, z, y)` the multiproof was checked against.
    pub fn opening_count(&self) -> usize {
        self.openings
    }

    /// Number of keys proven absent through an unbound absence ([`ProvenKey::bound`]):
    /// keys the witness says are absent while a hostile prover could be hiding them. Zero
    /// for every witness whose absences are all bound.
    pub fn unbound_absences(&self) -> usize {
        self.keys.iter().filter(|k| !k.bound).count()
    }

    /// Number of stems whose absence is unbound ([`ProvenStem::bound`]).
    pub fn unbound_stems(&self) -> usize {
        self.stems.iter().filter(|s| !s.bound).count()
    }

    /// Number of written keys (a `new_value`) proven absent through an unbound absence.
    /// When it is not zero, [`post_state_root`](Self::post_state_root) is the canonical
    /// post-state root only if the prover was honest about those absences.
    pub fn unbound_writes(&self) -> usize {
        self.keys
            .iter()
            .filter(|k| !k.bound && k.new_value.is_some())
            .count()
    }
}

/// Why a witness does not verify against a pre-state root.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A structural canonical-form rule (`spec/WIRE.md` §5) is broken.
    #[error("witness not canonical: {0}")]
    NotCanonical(#[from] CanonicalError),
    /// The state diff is empty: there is nothing to prove.
    #[error("the state diff is empty: a witness proves at least one key")]
    NoKeys,
    /// A stem carries no suffix diffs (no prover lists a stem without keys).
    #[error("state_diff[{stem_index}] has no suffix diffs")]
    EmptyStem {
        /// Index into `state_diff`.
        stem_index: usize,
    },
    /// A stem's path needs a node that an earlier stem placed as something else: the depths
    /// do not describe one tree.
    #[error("state_diff[{stem_index}] needs {wanted} at depth {depth}, where another stem placed {found}")]
    PathConflict {
        /// Index into `state_diff`.
        stem_index: usize,
        /// Depth of the conflicting node.
        depth: usize,
        /// What this stem needs there.
        wanted: NodeKind,
        /// What is already there.
        found: NodeKind,
    },
    /// Two present stems claim the same leaf.
    #[error("state_diff[{stem_index}] and state_diff[{other_index}] are both present at the same leaf path")]
    SharedLeaf {
        /// Index of the later stem.
        stem_index: usize,
        /// Index of the earlier stem.
        other_index: usize,
    },
    /// `other_stems` does not hold exactly one stem per absent-other leaf not held by a
    /// present stem.
    #[error("other_stems has {got} entries; the absent-other leaves need {expected}")]
    OtherStemCount {
        /// Leaves needing an other stem.
        expected: usize,
        /// Entries in `other_stems`.
        got: usize,
    },
    /// An other stem does not lie at the leaf path it is assigned to.
    #[error("other_stems[{index}] does not start with the leaf path of state_diff[{stem_index}]")]
    OtherStemOffPath {
        /// Index into `other_stems`.
        index: usize,
        /// Index of a stem that is absent-other at that leaf.
        stem_index: usize,
    },
    /// An other stem is one of the state diff's stems: it cannot both be the leaf's stem
    /// and be absent.
    #[error("other_stems[{index}] equals state_diff[{stem_index}].stem, which is not present")]
    OtherStemInStateDiff {
        /// Index into `other_stems`.
        index: usize,
        /// Index into `state_diff`.
        stem_index: usize,
    },
    /// `commitments_by_path` does not hold exactly one commitment per proven non-root node.
    #[error("commitments_by_path has {got} commitments; the proven paths need {expected}")]
    CommitmentCount {
        /// Proven nodes other than the root and empty slots (when there are more than
        /// `got`, counting stops at the first stem that goes over).
        expected: usize,
        /// Commitments given.
        got: usize,
    },
    /// The pre-state root is not the encoding of a Banderwagon element.
    #[error("the pre-state root is not a Banderwagon element: {0}")]
    BadRoot(DecodeError),
    /// `commitments_by_path[index]` is not the encoding of a Banderwagon element.
    #[error("commitments_by_path[{index}] is not a Banderwagon element: {source}")]
    BadPoint {
        /// Index into `commitments_by_path`.
        index: usize,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// A point of the multiproof (`d`, `ipa_proof.cl[i]`, `ipa_proof.cr[i]`) does not decode.
    #[error("{field}[{index}] of the proof is not a Banderwagon element: {source}")]
    BadProofPoint {
        /// `"d"`, `"cl"` or `"cr"`.
        field: &'static str,
        /// Index in `cl` or `cr` (0 for `d`).
        index: usize,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// `ipa_proof.final_evaluation` is not a canonical scalar (it is ≥ r).
    #[error("ipa_proof.final_evaluation is not a canonical scalar (>= r)")]
    BadScalar,
    /// `commitments_by_path[index]` stands for an internal node or a leaf but is the
    /// identity. No internal node or leaf of a tree has the identity as its commitment (only
    /// an empty suffix tree does), so the witness describes no real tree: an identity
    /// "internal node" opens to 0 everywhere and would make any absence below it provable.
    #[error(
        "commitments_by_path[{index}] is the identity, but it stands for {kind} at path {path}"
    )]
    IdentityCommitment {
        /// Index into `commitments_by_path`.
        index: usize,
        /// The node's path.
        path: NodePath,
        /// What the shape says the node is (internal node or leaf).
        kind: NodeKind,
    },
    /// The multiproof could not be decoded for another reason.
    #[error("multiproof encoding: {0}")]
    BadProof(ProofDecodeError),
    /// The multiproof does not open the commitments to the claimed values: a current value,
    /// a commitment, the proof or the pre-state root is wrong.
    #[error("the multiproof does not prove the witness against the pre-state root")]
    ProofRejected,
}

impl VerifyError {
    fn from_proof_decode(e: ProofDecodeError) -> VerifyError {
        match e {
            ProofDecodeError::BadPoint { index, source } => {
                let (field, index) = match index {
                    0 => ("d", 0),
                    i if i <= IPA_PROOF_DEPTH => ("cl", i - 1),
                    i => ("cr", i - 1 - IPA_PROOF_DEPTH),
                };
                VerifyError::BadProofPoint {
                    field,
                    index,
                    source,
                }
            }
            ProofDecodeError::BadScalar => VerifyError::BadScalar,
            other => VerifyError::BadProof(other),
        }
    }
}

/// Verifies `witness` against the pre-state root (a compressed root commitment) and returns
/// the proven pre-state.
///
/// Checks, in order: the structural canonical form ([`check_canonical`]); that the depths
/// and extension statuses describe one tree, that `other_stems` holds exactly the stems of
/// the absent-other leaves (in path order, each at its leaf's path) and that
/// `commitments_by_path` holds exactly one commitment per proven node; that the root, every
/// commitment and the proof decode (canonical points in the subgroup, final scalar < r); and
/// finally the multiproof over the openings, in `(path, z)` order, with transcript `"vt"`.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let witness = witness::ExecutionWitness::from_json_str(&std::fs::read_to_string("block.json")?)?;
/// let pre_state_root = [0u8; 32]; // the parent block's state root
/// let proven = witness::verify(&pre_state_root, &witness)?;
/// for key in proven.keys() {
///     println!("{:02x?} = {:02x?}", key.key(), key.current_value);
/// }
/// let post_state_root = proven.post_state_root()?;
/// # let _ = post_state_root;
/// # Ok(())
/// # }
/// ```
pub fn verify(
    pre_state_root: &[u8; 32],
    witness: &ExecutionWitness,
) -> Result<VerifiedWitness, VerifyError> {
    check_canonical(witness)?;
    let state_diff = witness.state_diff();
    if state_diff.is_empty() {
        return Err(VerifyError::NoKeys);
    }
    let proof = witness.verkle_proof();
    let commitments = proof.commitments_by_path();
    // Cheap structural checks come before any point work: the shape (one map entry per
    // proven node, bounded by the commitment count), the commitment count, and the rule
    // that no internal node or leaf is the identity all read bytes only, so a witness with
    // millions of well-formed points but the wrong shape is refused without decompressing
    // one. Then the openings' plan (serial) runs beside the decoding (parallel).
    let (mut stems, shape) = rebuild_shape(state_diff, &proof)?;
    shape.check_identities(commitments)?;
    let (plan, decoded) = join(
        || plan_openings(&shape.nodes, state_diff),
        || decode_points(pre_state_root, commitments, &proof),
    );
    let DecodedPoints {
        elements,
        fields,
        multiproof,
    } = decoded?;
    let mut encoded: Vec<&[u8; 32]> = Vec::with_capacity(1 + commitments.len());
    encoded.push(pre_state_root);
    encoded.extend(commitments.iter());

    let tree_elements = elements.get(PROOF_POINTS..).unwrap_or(&[]);
    let tree_fields = fields.get(PROOF_POINTS..).unwrap_or(&[]);
    shape.check_count(tree_elements.len())?;
    // The proven node list is only output: it is built on one core while the other checks
    // the proof (the check first, so it starts at once; the list waits to be taken).
    let (proven, nodes) = join(
        || {
            let openings = plan.fill(tree_fields);
            multiproof
                .verify_openings(
                    Crs::eip6800(),
                    &mut Transcript::new(TRANSCRIPT_LABEL),
                    tree_elements,
                    &encoded,
                    &openings,
                )
                .is_ok()
                .then_some(openings)
        },
        || shape.into_nodes(tree_elements, tree_fields),
    );
    let openings = proven.ok_or(VerifyError::ProofRejected)?;
    let mut nodes = nodes;
    mark_proven_internal(&mut nodes, &openings);

    for s in stems.iter_mut() {
        match s.status {
            ExtensionStatus::AbsentOther => {
                let path = s.path();
                s.leaf_stem = find_node(&nodes, &path).and_then(|n| n.leaf_stem);
            }
            ExtensionStatus::AbsentEmpty => s.bound = absence_is_bound(&nodes, s),
            ExtensionStatus::Present => {}
        }
    }
    let mut keys = proven_keys(state_diff);
    for k in keys.iter_mut() {
        k.bound = stems.get(k.stem_index).is_none_or(|s| s.bound);
    }
    Ok(VerifiedWitness {
        pre_state_root: *pre_state_root,
        nodes,
        stems,
        keys,
        openings: openings.len(),
    })
}

/// The node at `path` in a path-ordered node list.
fn find_node<'a>(nodes: &'a [ProvenNode], path: &NodePath) -> Option<&'a ProvenNode> {
    nodes
        .binary_search_by(|n| n.path.cmp(path))
        .ok()
        .and_then(|i| nodes.get(i))
}

/// Sets [`ProvenNode::proven_internal`] on every internal node that the openings prove
/// internal: opened at an index `z ≥ 4` to a non-zero value, or at `z = 0` to a value other
/// than 1 — values no leaf polynomial `[1, stem, mtf(C1), mtf(C2), 0, …]` takes. The root is
/// internal by definition.
fn mark_proven_internal(nodes: &mut [ProvenNode], openings: &[Opening]) {
    // Commitment `k` is the `k`-th node that is not an empty slot (the root is 0).
    let mut proven = vec![false; nodes.len()];
    for o in openings {
        let rules_out_leaf =
            (o.point >= 4 && !o.result.is_zero()) || (o.point == 0 && !o.result.is_one());
        if rules_out_leaf {
            if let Some(p) = proven.get_mut(o.commitment as usize) {
                *p = true;
            }
        }
    }
    let mut next = 0usize;
    for n in nodes.iter_mut() {
        if n.kind == NodeKind::Empty {
            continue;
        }
        let k = next;
        next += 1;
        n.proven_internal = n.kind == NodeKind::Internal
            && (n.path.is_empty() || proven.get(k).copied().unwrap_or(false));
    }
}

/// Whether the absence of the absent-empty stem `s` is bound: every internal node on its
/// path below the root (depths `1..depth`) is proven internal ([`mark_proven_internal`]).
///
/// Then each of them is the real node at its path (its commitment is fixed by its parent's
/// opening, and a node that is not a leaf is internal), so the empty slot is really empty.
/// Otherwise a leaf could pose as one of them: its polynomial is zero at every index ≥ 4,
/// so "opened to 0 at `stem[d]`" is true of it (`spec/WIRE.md`, "What a verified witness
/// proves").
fn absence_is_bound(nodes: &[ProvenNode], s: &ProvenStem) -> bool {
    (1..usize::from(s.depth)).all(|d| {
        path_of(&s.stem, d)
            .and_then(|p| find_node(nodes, &p))
            .is_some_and(|n| n.proven_internal)
    })
}

/// `(a(), b())`, on two rayon tasks when the `parallel` feature is on.
fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        let ra = a();
        (ra, b())
    }
}

/// The stems and the shape of the proven tree from the state diff, the extension statuses
/// and `other_stems`; checks that `commitments_by_path` has one commitment per node that
/// takes one.
fn rebuild_shape(
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
fn proven_stems(state_diff: StateDiff<'_>, ext: &[u8]) -> Result<Vec<ProvenStem>, VerifyError> {
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

fn proven_keys(state_diff: StateDiff<'_>) -> Vec<ProvenKey> {
    let mut keys = Vec::with_capacity(state_diff.suffix_diff_count());
    for (stem_index, s) in state_diff.iter().enumerate() {
        keys.extend(s.suffix_diffs.iter().map(|d| ProvenKey {
            stem_index,
            stem: *s.stem,
            suffix: d.suffix,
            current_value: d.current_value.copied(),
            new_value: d.new_value.copied(),
            bound: true,
        }));
    }
    keys
}

/// The set of child indices an internal node is opened at.
#[derive(Debug, Clone, Copy, Default)]
struct ChildSet([u64; 4]);

impl ChildSet {
    /// Number of indices.
    fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    fn insert(&mut self, index: u8) {
        if let Some(word) = self.0.get_mut(usize::from(index >> 6)) {
            *word |= 1 << (index & 63);
        }
    }

    /// The indices, ascending.
    fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        self.0.iter().zip(0u8..).flat_map(|(&word, w)| {
            let mut rest = word;
            std::iter::from_fn(move || {
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
enum Draft {
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
    fn kind(&self) -> NodeKind {
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
struct ShapeBuilder {
    nodes: BTreeMap<NodePath, Draft>,
    /// Nodes inserted so far that take a commitment from `commitments_by_path`.
    committed: usize,
    /// Length of `commitments_by_path`.
    limit: usize,
}

/// The rebuilt shape: nodes in path order, other stems resolved.
struct Shape {
    nodes: Vec<(NodePath, Draft)>,
    commitment_count: usize,
}

fn path_of(stem: &[u8; STEM_LEN], depth: usize) -> Option<NodePath> {
    stem.get(..depth).and_then(NodePath::new)
}

impl ShapeBuilder {
    fn new(commitments: usize) -> ShapeBuilder {
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
    fn add_stem(
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

    fn add_path(
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
    fn finish(
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
            let stem_index = absent_other.unwrap_or_default();
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
    fn check_identities(&self, commitments: Points<'_>) -> Result<(), VerifyError> {
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
    fn check_count(&self, commitments: usize) -> Result<(), VerifyError> {
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
    /// matched the counts; a missing commitment would read as the identity).
    fn into_nodes(self, elements: &[Element], fields: &[Fr]) -> Vec<ProvenNode> {
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
                        elements.get(i).copied().unwrap_or_else(Element::identity),
                        fields.get(i).copied().unwrap_or_default(),
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

/// The decompressed points of a witness.
struct DecodedPoints {
    /// The proof's [`PROOF_POINTS`] points, the root, then `commitments_by_path` in order.
    elements: Vec<Element>,
    /// `map_to_scalar_field` of each of `elements`.
    fields: Vec<Fr>,
    /// The multiproof `D ‖ L ‖ R ‖ a`.
    multiproof: MultiProof,
}

/// Number of points in a multiproof: `D`, then `L_0..L_7`, then `R_0..R_7`.
const PROOF_POINTS: usize = 1 + 2 * IPA_ROUNDS;

/// Decompresses (with the subgroup check) every point of the witness — the proof's `D`,
/// `L_i`, `R_i`, the root and `commitments_by_path` — and maps each to the scalar field, in
/// one pass of parallel chunks (one field inversion per chunk).
///
/// Errors are those a sequential decoder meets first: the proof (`d`, `cl`, `cr`, then the
/// final scalar), then the root, then the first bad commitment.
fn decode_points(
    pre_state_root: &[u8; 32],
    commitments: Points<'_>,
    proof: &VerkleProof<'_>,
) -> Result<DecodedPoints, VerifyError> {
    let ipa_proof = proof.ipa_proof();
    let mut encodings: Vec<&[u8; 32]> = Vec::with_capacity(PROOF_POINTS + 1 + commitments.len());
    encodings.push(proof.d());
    encodings.extend(ipa_proof.cl);
    encodings.extend(ipa_proof.cr);
    encodings.push(pre_state_root);
    encodings.extend(commitments.iter());
    let (elements, fields, first_error) = decode_and_map(&encodings);

    let tree_error = match first_error {
        Some((index, source)) if index < PROOF_POINTS => {
            return Err(VerifyError::from_proof_decode(ProofDecodeError::BadPoint {
                index,
                source,
            }))
        }
        Some((index, source)) => Some(match index - PROOF_POINTS {
            0 => VerifyError::BadRoot(source),
            i => VerifyError::BadPoint {
                index: i - 1,
                source,
            },
        }),
        None => None,
    };
    let a = fr_from_le_bytes_canonical(ipa_proof.final_evaluation)
        .map_err(|_| VerifyError::from_proof_decode(ProofDecodeError::BadScalar))?;
    if let Some(e) = tree_error {
        return Err(e);
    }
    let mut points = [Element::identity(); PROOF_POINTS];
    for (slot, p) in points.iter_mut().zip(&elements) {
        *slot = *p;
    }
    let [d, lr @ ..] = points;
    let mut l = [Element::identity(); IPA_ROUNDS];
    let mut r = [Element::identity(); IPA_ROUNDS];
    l.copy_from_slice(&lr[..IPA_ROUNDS]);
    r.copy_from_slice(&lr[IPA_ROUNDS..]);
    let multiproof = MultiProof {
        d,
        ipa: ipa::IpaProof { l, r, a },
    };
    Ok(DecodedPoints {
        elements,
        fields,
        multiproof,
    })
}

/// Points [`verify`] has decompressed in this process (see [`decompressed_points`]).
static DECOMPRESSED: AtomicUsize = AtomicUsize::new(0);

/// How many points [`verify`] has decompressed in this process since it started: a probe
/// for tests that check a malformed witness is refused before any point work. One relaxed
/// atomic addition per chunk of points.
#[doc(hidden)]
pub fn decompressed_points() -> usize {
    DECOMPRESSED.load(AtomicOrdering::Relaxed)
}

/// A decode failure: the index of the encoding and the decoder's reason.
type FirstError = Option<(usize, DecodeError)>;

/// Decodes `encodings` into `elements` (the identity where decoding fails) and maps them to
/// the scalar field into `fields`; returns the first failure (its index within the chunk).
fn decode_chunk(
    encodings: &[&[u8; 32]],
    elements: &mut [Element],
    fields: &mut [Fr],
) -> FirstError {
    DECOMPRESSED.fetch_add(encodings.len(), AtomicOrdering::Relaxed);
    let mut first = None;
    for (i, (enc, slot)) in encodings.iter().zip(elements.iter_mut()).enumerate() {
        match Element::from_bytes(*enc) {
            Ok(e) => *slot = e,
            Err(e) => {
                first = first.or(Some((i, e)));
            }
        }
    }
    Element::batch_map_to_scalar_field_into(elements, fields);
    first
}

/// Points per rayon task: enough tasks that the last ones to finish leave little idle time
/// on the other cores (about 16 per thread: a witness's points cost about the same to
/// decode), but at least [`MIN_DECODE_CHUNK`] so a task's start and its one field inversion
/// stay small next to its square roots, and at most [`MAX_DECODE_CHUNK`].
#[cfg(feature = "parallel")]
fn decode_chunk_len(points: usize) -> usize {
    let tasks = 16 * rayon::current_num_threads().max(1);
    points
        .div_ceil(tasks)
        .clamp(MIN_DECODE_CHUNK, MAX_DECODE_CHUNK)
}

/// Fewest points a decoding task takes: a decompression (a square root and a Legendre
/// symbol, about ten microseconds) and its share of the chunk's field inversion dwarf
/// starting a task (about a microsecond), so small chunks keep both cores evenly busy even
/// for the 21 points of a one-stem witness; 4 keeps the one inversion per chunk (about a
/// microsecond) under a tenth of the chunk's work.
#[cfg(feature = "parallel")]
const MIN_DECODE_CHUNK: usize = 4;

/// Most points a decoding task takes: 64 (well under a millisecond of work) bounds the
/// time one core can still be busy after the other has run out of tasks.
#[cfg(feature = "parallel")]
const MAX_DECODE_CHUNK: usize = 64;

/// Every encoding decoded and mapped to the scalar field, in parallel chunks when there are
/// at least two chunks' worth; the first failure (by index), if any.
fn decode_and_map(encodings: &[&[u8; 32]]) -> (Vec<Element>, Vec<Fr>, FirstError) {
    let mut elements = vec![Element::identity(); encodings.len()];
    let mut fields = vec![Fr::zero(); encodings.len()];
    #[cfg(feature = "parallel")]
    {
        let chunk = decode_chunk_len(encodings.len());
        if encodings.len() >= 2 * chunk {
            use rayon::prelude::*;
            // One rayon job per chunk (`with_max_len(1)`): rayon's adaptive splitting would
            // otherwise hand out runs of several chunks that an idle core cannot steal from.
            let first = encodings
                .par_chunks(chunk)
                .zip(elements.par_chunks_mut(chunk))
                .zip(fields.par_chunks_mut(chunk))
                .enumerate()
                .with_max_len(1)
                .filter_map(|(c, ((enc, els), fs))| {
                    decode_chunk(enc, els, fs).map(|(i, e)| (c * chunk + i, e))
                })
                .min_by_key(|&(i, _)| i);
            return (elements, fields, first);
        }
    }
    let first = decode_chunk(encodings, &mut elements, &mut fields);
    (elements, fields, first)
}

/// The openings in `(path, z)` order before the points are decoded: each opening's value
/// where the witness gives it (a value half, a stem, 1, or 0 for an empty slot), and for the
/// others — a node's field in its parent, a suffix tree's field in its leaf — the index of
/// the commitment whose `map_to_scalar_field` is the value.
struct OpeningPlan {
    /// The openings, each node's together, commitment indices ascending; values still to
    /// be filled are 0.
    openings: Vec<Opening>,
    /// `(opening, commitment)`: `openings[opening]` takes the field of `commitment`.
    fills: Vec<(u32, u32)>,
}

impl OpeningPlan {
    /// The openings with every value filled in from `fields` (indexed by commitment).
    fn fill(self, fields: &[Fr]) -> Vec<Opening> {
        let mut openings = self.openings;
        for (o, c) in self.fills {
            if let (Some(slot), Some(f)) = (openings.get_mut(o as usize), fields.get(c as usize)) {
                slot.result = *f;
            }
        }
        openings
    }
}

/// Plans the openings of the shape's nodes (in path order; commitment `k` is the `k`-th node
/// that is not an empty slot, the root being 0).
///
/// One pass over the nodes in path order (a pre-order walk of the proven tree), with no
/// lookups by path: an internal node's openings are written with a placeholder value, and
/// each child claims its parent's next one when the walk reaches it (the children come in
/// the same order as the parent's opened indices). A leaf's suffix trees are the one or two
/// nodes right after it.
fn plan_openings(nodes: &[(NodePath, Draft)], state_diff: StateDiff<'_>) -> OpeningPlan {
    let mut leaves = 0usize;
    let mut children = 0usize;
    for (_, draft) in nodes {
        match draft {
            Draft::Internal { children: c } => children += c.len(),
            Draft::Leaf { .. } => leaves += 1,
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(children + 4 * leaves + 2 * state_diff.suffix_diff_count());
    let mut fills: Vec<(u32, u32)> = Vec::with_capacity(children + 2 * leaves);
    // The internal nodes on the path to the current node: (depth, index of the next of its
    // openings that waits for a child's value, one past its last opening).
    let mut ancestors: Vec<(usize, usize, usize)> = Vec::with_capacity(MAX_PATH_LEN);
    let mut next_commitment = 0u32;
    for (i, (path, draft)) in nodes.iter().enumerate() {
        let depth = path.len();
        let commitment = if matches!(draft, Draft::Empty) {
            None
        } else {
            let c = next_commitment;
            next_commitment += 1;
            Some(c)
        };
        if !matches!(draft, Draft::SuffixTree { .. }) && depth > 0 {
            while ancestors.last().is_some_and(|&(d, _, _)| d >= depth) {
                ancestors.pop();
            }
            claim_parent_opening(&out, &mut fills, &mut ancestors, path, depth, commitment);
        }
        let Some(commitment) = commitment else {
            continue;
        };
        let first = out.len();
        let mut open = |point: u8, result: Fr| {
            out.push(Opening {
                commitment,
                point,
                result,
            });
        };
        match *draft {
            Draft::Internal { children } => {
                for z in children.iter() {
                    // Claimed by the child; an empty slot's field is 0.
                    open(z, Fr::zero());
                }
                ancestors.push((depth, first, first + children.len()));
            }
            Draft::Leaf { stem, .. } => {
                let Some(stem) = stem else { continue };
                open(0, Fr::one());
                open(1, stem_field(&stem));
                // The suffix trees follow the leaf and take the next commitments.
                let mut following = nodes.iter().skip(i + 1).take(2);
                let mut next = following.next();
                let mut suffix_commitment = commitment + 1;
                for byte in [SUFFIX_TREE_BYTE, SUFFIX_TREE_BYTE + 1] {
                    let Some((c_path, _)) = next else { break };
                    if Some(*c_path) == path.child(byte) {
                        if let Ok(o) = u32::try_from(out.len()) {
                            fills.push((o, suffix_commitment));
                        }
                        out.push(Opening {
                            commitment,
                            point: byte,
                            result: Fr::zero(),
                        });
                        suffix_commitment += 1;
                        next = following.next();
                    }
                }
            }
            Draft::SuffixTree { stem_index } => {
                let half_is_c2 = path.as_bytes().last() == Some(&(SUFFIX_TREE_BYTE + 1));
                let Some(s) = state_diff.get(stem_index) else {
                    continue;
                };
                for d in s.suffix_diffs.iter() {
                    if (d.suffix >= 128) != half_is_c2 {
                        continue;
                    }
                    let (low, high) = value_halves(d.current_value);
                    let z = 2 * (d.suffix % 128);
                    open(z, low);
                    open(z + 1, high);
                }
            }
            Draft::Empty => {}
        }
    }
    OpeningPlan {
        openings: out,
        fills,
    }
}

/// Claims, for the node at `path` (depth ≥ 1, not a suffix tree) with commitment
/// `commitment` (`None` for an empty slot, whose field 0 is already in place), its
/// parent's next waiting opening: that of the innermost ancestor, which is the parent.
fn claim_parent_opening(
    openings: &[Opening],
    fills: &mut Vec<(u32, u32)>,
    ancestors: &mut [(usize, usize, usize)],
    path: &NodePath,
    depth: usize,
    commitment: Option<u32>,
) {
    let Some((parent_depth, next, end)) = ancestors.last_mut() else {
        return;
    };
    let index = path.as_bytes().last().copied();
    if *parent_depth + 1 != depth || *next >= *end {
        return;
    }
    if let Some(o) = openings.get(*next) {
        // The shape gives every opened index exactly one child node, in index order.
        debug_assert_eq!(Some(o.point), index);
        if Some(o.point) == index {
            if let (Some(c), Ok(at)) = (commitment, u32::try_from(*next)) {
                fills.push((at, c));
            }
            *next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_path_orders_bytewise_and_walks() {
        let root = NodePath::ROOT;
        let a = root.child(3).unwrap();
        let ab = a.child(0).unwrap();
        let b = root.child(4).unwrap();
        assert!(root < a && a < ab && ab < b);
        assert_eq!(ab.parent(), Some((a, 0)));
        assert_eq!(a.parent(), Some((root, 3)));
        assert_eq!(root.parent(), None);
        assert_eq!(NodePath::new(&[3, 0]), Some(ab));
        assert_eq!(NodePath::new(&[0; 33]), None);
        let full = NodePath::new(&[7; 32]).unwrap();
        assert_eq!(full.child(1), None);
        assert_eq!(format!("{ab}"), "0x0300");
    }

    #[test]
    fn child_set_iterates_ascending() {
        let mut s = ChildSet::default();
        for i in [255, 0, 64, 63, 64] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 63, 64, 255]);
        assert_eq!(s.len(), 4);
    }
}
