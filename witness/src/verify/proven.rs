//! What a verified witness proves: the proven tree's nodes, stems and keys.

use crate::prelude::*;

use core::fmt;

use banderwagon::{Element, Fr};

use crate::preset::{
    EXT_STATUS_ABSENT_EMPTY, EXT_STATUS_ABSENT_OTHER, EXT_STATUS_PRESENT, STEM_LEN,
};

/// The byte a leaf's path is extended with to reach its suffix tree `C1` (suffixes 0..127);
/// `C2` is one more (go-verkle `slotPath`).
pub(super) const SUFFIX_TREE_BYTE: u8 = 2;

/// The longest path: 31 stem bytes and one suffix-tree byte.
pub(super) const MAX_PATH_LEN: usize = STEM_LEN + 1;

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
        self.bytes
            .get(..usize::from(self.len))
            .expect("len <= MAX_PATH_LEN, kept by every constructor")
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
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for NodePath {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
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
    pub(super) fn from_byte(byte: u8) -> Option<ExtensionStatus> {
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
    /// Whether the proof deletes the key (then `new_value` is `None`). Only a fractional
    /// proof can (`spec/FRACTIONAL.md` §4); a standard witness never deletes.
    pub deleted: bool,
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
/// [`verify`](crate::verify()).
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
