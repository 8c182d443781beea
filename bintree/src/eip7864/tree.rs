//! The EIP-7864 tree in memory: internal nodes over stem bits, one stem node per 31-byte
//! stem with its 256-leaf subtree, every node's hash cached.
//!
//! A stem node sits at the shallowest depth where its stem is alone (the minimal number of
//! internal nodes); an internal node may have one empty child, whose hash is 32 zero bytes.
//! A batch ([`Tree::apply`]) walks the written paths once, sorted by key, and rehashes each
//! node it changes on the way back up, inside a stem's subtree too, while the path is in
//! cache; below a node with few writes left it first brings their paths' nodes into cache
//! level by level, so that the loads of different paths overlap, applies the writes (listing
//! the stem nodes they change on the way), then rehashes what they changed two hashes at a
//! time where they are independent (two stems' walks from leaf to stem node in step, two
//! dirty subtrees' nodes in step), so that SHA-256 on SHA-NI hashes two messages interleaved
//! ([`TreeHash::hash64_many`]). A single write ([`Tree::insert`]) clears the cached hashes on
//! its path and [`Tree::root`] rehashes those nodes once each. With the `parallel` feature,
//! the batch and the rehash fork onto rayon threads for the top [`PARALLEL_LEVELS`] levels;
//! each subtree below (a hypertree) is one unit of work.

use alloc::collections::BTreeSet;
use core::marker::PhantomData;

use super::stem::{hash_pair, hash_two, message64, rehash_pair, StemNode, STEM_LENGTH};
use crate::bits::{bit, last_writes, set_bit};
use crate::prelude::*;
use crate::{Error, TreeHash};

/// Levels from the root at which a batch and the rehash fork onto rayon threads.
pub const PARALLEL_LEVELS: usize = 8;
/// Writes at most this many below a node: the nodes on their paths are brought into cache
/// first, level by level ([`warm_paths`]).
const WARM_WRITES: usize = 64;
/// Smallest batch slice worth a rayon task.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_WRITES: usize = 32;

#[derive(Clone, Debug, Default)]
pub(super) enum Node {
    #[default]
    Empty,
    Internal(Box<Internal>),
    Stem(Box<StemNode>),
    /// A subtree not in memory, known by its hash (a [`super::StoredTree`] loads it before
    /// an operation walks into it; an in-memory tree never holds one).
    Stored(Box<[u8; 32]>),
}

/// An internal node in one cache line: its children and its hash.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub(super) struct Internal {
    pub(super) left: Node,
    pub(super) right: Node,
    /// The node's hash, or 32 zero bytes while it is to be computed. An internal node has a
    /// child that is not empty, so its hash is a hash function's output, zero only for a
    /// preimage of zero; a node decoded from a store with two empty children hashes to zero
    /// by rule and is recomputed (to zero) whenever asked.
    hash: [u8; 32],
}

impl Internal {
    /// A node over `left` and `right` whose hash is `hash` (`None`: to be computed).
    pub(super) fn new(left: Node, right: Node, hash: Option<[u8; 32]>) -> Self {
        Internal {
            left,
            right,
            hash: hash.unwrap_or_default(),
        }
    }

    /// The node's hash, if up to date.
    #[inline]
    pub(super) fn hash(&self) -> Option<[u8; 32]> {
        (self.hash != [0u8; 32]).then_some(self.hash)
    }

    /// Sets the node's hash (`None`: to be computed).
    #[inline]
    pub(super) fn set_hash(&mut self, hash: Option<[u8; 32]>) {
        self.hash = hash.unwrap_or_default();
    }
}

/// A write: stem, sub-index, value.
type Write = ([u8; STEM_LENGTH], u8, [u8; 32]);

/// An EIP-7864 tree over the hash `H`. Values are set and overwritten, never removed: the
/// EIP-7864 text defines insertion only.
#[derive(Clone, Debug)]
pub struct Tree<H: TreeHash> {
    pub(super) root: Node,
    len: usize,
    hashes: u64,
    hash: PhantomData<H>,
}

impl<H: TreeHash> Default for Tree<H> {
    fn default() -> Self {
        Self::new()
    }
}

pub(super) fn split_key(key: &[u8]) -> Result<([u8; STEM_LENGTH], u8), Error> {
    let key: &[u8; 32] = key.try_into().map_err(|_| Error::WrongLength {
        what: "EIP-7864 tree key",
        got: key.len(),
        expected: 32,
    })?;
    let mut stem = [0u8; STEM_LENGTH];
    stem.copy_from_slice(&key[..STEM_LENGTH]);
    Ok((stem, key[STEM_LENGTH]))
}

impl<H: TreeHash> Tree<H> {
    /// An empty tree (root: 32 zero bytes).
    pub fn new() -> Self {
        Tree {
            root: Node::Empty,
            len: 0,
            hashes: 0,
            hash: PhantomData,
        }
    }

    /// A tree of `len` values over `root`.
    pub(super) fn from_parts(root: Node, len: usize) -> Self {
        Tree {
            root,
            len,
            hashes: 0,
            hash: PhantomData,
        }
    }

    /// Number of values present.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tree holds no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hashes computed by this tree so far (leaf, stem-subtree, stem and internal hashes;
    /// hashes of 64 zero bytes are 32 zero bytes by rule and not counted).
    pub fn hash_count(&self) -> u64 {
        self.hashes
    }

    /// The value at the 32-byte `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<&[u8; 32]> {
        let (stem, index) = split_key(key).ok()?;
        self.stem_node(&stem, |_| {})?.get(index)
    }

    /// The stem node of `stem`, if present, walking the internal nodes on its path and
    /// showing each to `visit`.
    fn stem_node<'t>(
        &'t self,
        stem: &[u8; STEM_LENGTH],
        visit: impl FnMut(&'t Internal),
    ) -> Option<&'t StemNode> {
        self.end_stem(stem, visit).filter(|s| s.stem == *stem)
    }

    /// The stem node where the path of `stem` ends, its own or another stem's (`None`: the
    /// path ends at an empty place), walking the internal nodes on the path and showing each
    /// to `visit`.
    fn end_stem<'t>(
        &'t self,
        stem: &[u8; STEM_LENGTH],
        mut visit: impl FnMut(&'t Internal),
    ) -> Option<&'t StemNode> {
        let mut node = &self.root;
        let mut depth = 0;
        loop {
            match node {
                Node::Empty | Node::Stored(_) => return None,
                Node::Internal(internal) => {
                    visit(internal);
                    node = if bit(stem, depth) == 0 {
                        &internal.left
                    } else {
                        &internal.right
                    };
                    depth += 1;
                }
                Node::Stem(s) => return Some(&**s),
            }
        }
    }

    /// Sets the 32-byte `key` to `value` (a zero value is a present leaf, `hash(0^32)`).
    pub fn insert(&mut self, key: &[u8], value: &[u8; 32]) -> Result<(), Error> {
        let (stem, index) = split_key(key)?;
        // The node hashes are left for `root`: the stem node written is not rehashed here.
        let mut stems = Vec::new();
        let (inserted, _) = write(
            &mut self.root,
            0,
            &[(stem, index, *value)],
            true,
            &mut stems,
        );
        self.len += inserted;
        Ok(())
    }

    /// Applies a batch of writes and rehashes the nodes they change (each once); of several
    /// writes to one key the last counts. Every key is checked before anything changes.
    pub fn apply<K, I>(&mut self, writes: I) -> Result<(), Error>
    where
        K: AsRef<[u8]>,
        I: IntoIterator<Item = (K, [u8; 32])>,
    {
        let mut keys: Vec<[u8; 32]> = Vec::new();
        let mut batch: Vec<Write> = Vec::new();
        for (key, value) in writes {
            let (stem, index) = split_key(key.as_ref())?;
            let mut whole = [0u8; 32];
            whole[..STEM_LENGTH].copy_from_slice(&stem);
            whole[STEM_LENGTH] = index;
            keys.push(whole);
            batch.push((stem, index, value));
        }
        // Key order, the last write of each key kept.
        let ops: Vec<Write> = last_writes(&keys)
            .into_iter()
            .filter_map(|at| batch.get(at).copied())
            .collect();
        let mut count = 0;
        let (inserted, _) = apply::<H>(&mut self.root, 0, &ops, 0, &mut count);
        self.len += inserted;
        self.hashes += count;
        Ok(())
    }

    /// The root; rehashes the nodes written since the last call, each once.
    pub fn root(&mut self) -> [u8; 32] {
        let mut count = 0;
        let root = node_hash::<H>(&mut self.root, 0, &mut count);
        self.hashes += count;
        root
    }

    /// The nodes with a non-zero hash on the union of the paths from the root to `keys`: the
    /// internal nodes each path passes, each key's own stem node, and in that stem node's
    /// subtree the nodes from the key's leaf up to the subtree root. A path that ends at
    /// another stem's node counts that node and, in its subtree, the nodes from its first
    /// present leaf up: EIP-7864 hashes a stem node and an internal node alike (64 bytes
    /// each), so a sound verification rebuilds another stem's node from one of its leaves
    /// (`spec/BINARY.md` §4.1). A path that ends at an empty place counts the internal nodes
    /// above it and, when no key's path passes the empty place's sibling, that sibling's
    /// anchor: the nodes of its leftmost descent to the first stem below it, that stem's node
    /// and the nodes from its first present leaf up. Every computation of the root from these
    /// keys' leaves hashes each of these nodes (a root update after writing exactly these
    /// keys, a sound verification of them), so the count is the least hash count of that
    /// work, the measure of [`Tree::hash_count`] in BENCHMARKS.md.
    ///
    /// Reads the hashes as of the last [`Tree::root`]. Counts nothing below a subtree not in
    /// memory. A key not 32 bytes long is an error.
    pub fn path_nodes<K, I>(&self, keys: I) -> Result<u64, Error>
    where
        K: AsRef<[u8]>,
        I: IntoIterator<Item = K>,
    {
        // A node by its address; a stem subtree's node by its stem node's address and its
        // heap number (`1..=511`; 0 names the stem node itself).
        let mut seen: BTreeSet<(usize, u16)> = BTreeSet::new();
        let keys = keys
            .into_iter()
            .map(|key| split_key(key.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let stems: BTreeSet<[u8; STEM_LENGTH]> = keys.iter().map(|&(stem, _)| stem).collect();
        for (stem, index) in keys {
            let (mut last, mut passed): (Option<&Internal>, usize) = (None, 0);
            let end = self.end_stem(&stem, |internal| {
                last = Some(internal);
                passed += 1;
                seen.insert((internal as *const Internal as usize, 0));
            });
            let (s, index) = match (end, last) {
                (Some(s), _) => (s, index),
                // An empty end below an internal node (the root is never one), at depth
                // `passed`.
                (None, Some(parent)) => {
                    match anchor_of(parent, passed - 1, &stem, &stems, &mut seen) {
                        Some(s) => (s, s.values().next().map_or(0, |(first, _)| first)),
                        None => continue,
                    }
                }
                (None, None) => continue,
            };
            let index = if s.stem == stem {
                index
            } else if stems.contains(&s.stem) {
                // A touched stem's node: counted from that stem's own keys.
                continue;
            } else {
                // Another stem's node: its first present leaf is opened.
                match s.values().next() {
                    Some((first, _)) => first,
                    None => continue,
                }
            };
            let at = s as *const StemNode as usize;
            if !seen.insert((at, 0)) && s.stem != stem {
                // Opened already (another key's end, or an anchor).
                continue;
            }
            let mut id = 256 + u16::from(index);
            while id >= 1 {
                if s.subtree_hash(id) != [0u8; 32] {
                    seen.insert((at, id));
                }
                id /= 2;
            }
        }
        Ok(seen.len() as u64)
    }
}

/// The stem node anchoring the empty end of `stem`'s path below `parent` (the last internal
/// node on that path, at `depth`), when no stem of `stems` passes the end's sibling: the first
/// stem below the sibling, the internal nodes of the descent to it added to `seen`.
fn anchor_of<'t>(
    parent: &'t Internal,
    depth: usize,
    stem: &[u8; STEM_LENGTH],
    stems: &BTreeSet<[u8; STEM_LENGTH]>,
    seen: &mut BTreeSet<(usize, u16)>,
) -> Option<&'t StemNode> {
    let (end, sibling) = if bit(stem, depth) == 0 {
        (&parent.left, &parent.right)
    } else {
        (&parent.right, &parent.left)
    };
    if !matches!(end, Node::Empty) {
        return None;
    }
    // A touched stem below the sibling: its path is walked, no anchor.
    let (mut low, mut high) = (*stem, *stem);
    set_bit(&mut low, depth, 1 - bit(stem, depth));
    set_bit(&mut high, depth, 1 - bit(stem, depth));
    for i in depth + 1..STEM_LENGTH * 8 {
        set_bit(&mut low, i, 0);
        set_bit(&mut high, i, 1);
    }
    if stems.range(low..=high).next().is_some() {
        return None;
    }
    let end = first_stem(sibling, |internal, _| {
        seen.insert((internal as *const Internal as usize, 0));
    });
    match end {
        Node::Stem(s) => Some(s),
        _ => None,
    }
}

/// The end of the leftmost descent from `node` (the first stem below it, in key order): at
/// each internal node it goes left unless the left child is empty, showing the node and
/// whether it went right to `visit`. The end is a stem node, or (not in an honest tree) an
/// empty place or a node not in memory.
pub(super) fn first_stem<'t>(
    mut node: &'t Node,
    mut visit: impl FnMut(&'t Internal, bool),
) -> &'t Node {
    while let Node::Internal(internal) = node {
        let right = matches!(internal.left, Node::Empty);
        visit(internal, right);
        node = if right {
            &internal.right
        } else {
            &internal.left
        };
    }
    node
}

/// Applies writes sorted by (stem, sub-index), distinct, whose stems share bits `..depth`,
/// and rehashes every node they change on the way back up, while the batch's paths are still
/// in cache (the hashes counted in `count`). Returns (values inserted, whether anything
/// changed).
fn apply<H: TreeHash>(
    node: &mut Node,
    depth: usize,
    ops: &[Write],
    level: usize,
    count: &mut u64,
) -> (usize, bool) {
    let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
        return (0, false);
    };
    if ops.len() <= WARM_WRITES && matches!(node, Node::Internal(_)) {
        // A group of few writes: applied without hashing, the stems it writes listed on the
        // way; then those stems are rehashed, two at a time where each has one written value
        // (their walks from leaf to stem node in step, each step's two hashes together), and
        // the internal nodes above them.
        let mut stems = Vec::with_capacity(ops.len());
        let out = write(node, depth, ops, false, &mut stems);
        if out.1 {
            rehash_stems::<H>(stems, count);
            node_hash::<H>(node, level, count);
        }
        return out;
    }
    match node {
        // Never on a written path: a stored tree loads every path it writes first.
        Node::Stored(_) => (0, false),
        Node::Empty | Node::Stem(_) => {
            if single_stem(node, first, last) {
                let written = write_stem(node, ops);
                if written.1 {
                    node_hash::<H>(node, level, count);
                }
                return written;
            }
            split_region(node, depth);
            apply::<H>(node, depth, ops, level, count)
        }
        Node::Internal(internal) => {
            let mid = ops.partition_point(|op| bit(&op.0, depth) == 0);
            let (left, right) = ops.split_at(mid);
            let (l, r) = apply_children::<H>(internal, depth, left, right, level, count);
            let changed = l.1 || r.1;
            if changed {
                let (left, right) = children_hashes::<H>(internal, level, count);
                internal.set_hash(Some(hash_pair::<H>(&left, &right, count)));
            }
            (l.0 + r.0, changed)
        }
    }
}

/// Whether writes from `first` to `last` (sorted) below `node`, empty or a stem node, are all
/// of one stem, and of that node's stem.
fn single_stem(node: &Node, first: &Write, last: &Write) -> bool {
    let existing = match node {
        Node::Stem(s) => Some(s.stem),
        _ => None,
    };
    first.0 == last.0 && existing.is_none_or(|stem| stem == first.0)
}

/// Turns `node` (at `depth`), empty or a stem node, into an internal node over it: writes of
/// two stems or more go below it.
fn split_region(node: &mut Node, depth: usize) {
    let mut internal = Box::<Internal>::default();
    if let Node::Stem(stem) = node {
        let side = bit(&stem.stem, depth);
        let child = core::mem::take(node);
        if side == 0 {
            internal.left = child;
        } else {
            internal.right = child;
        }
    }
    *node = Node::Internal(internal);
}

/// Applies writes sorted by (stem, sub-index), distinct, whose stems share bits `..depth`,
/// without hashing: the cached hashes on their paths are cleared (for [`Tree::root`] or the
/// caller's rehash), and each stem node whose values change is added to `stems`, in key order.
/// `warm`: the nodes on the writes' paths have been brought into cache ([`warm_paths`]); if
/// not, they are at the first internal node. Returns (values inserted, whether anything
/// changed).
fn write<'t>(
    node: &'t mut Node,
    depth: usize,
    ops: &[Write],
    mut warm: bool,
    stems: &mut Vec<&'t mut StemNode>,
) -> (usize, bool) {
    let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
        return (0, false);
    };
    match node {
        // Never on a written path: a stored tree loads every path it writes first.
        Node::Stored(_) => (0, false),
        Node::Empty | Node::Stem(_) => {
            if !single_stem(node, first, last) {
                split_region(node, depth);
                return write(node, depth, ops, warm, stems);
            }
            let written = write_stem(node, ops);
            if let (true, Node::Stem(stem)) = (written.1, node) {
                stems.push(stem);
            }
            written
        }
        Node::Internal(internal) => {
            let mid = ops.partition_point(|op| bit(&op.0, depth) == 0);
            let (left, right) = ops.split_at(mid);
            if !warm {
                warm_paths(internal, depth, mid, ops);
                warm = true;
            }
            // The child walked second is needed later (walked, or its hash read): its load
            // overlaps the walk of the first.
            let later = if left.is_empty() {
                &internal.left
            } else {
                &internal.right
            };
            core::hint::black_box(touch(later));
            let Internal {
                left: left_node,
                right: right_node,
                hash,
            } = &mut **internal;
            let l = write(left_node, depth + 1, left, warm, stems);
            let r = write(right_node, depth + 1, right, warm, stems);
            let changed = l.1 || r.1;
            if changed {
                // To be computed: a zero hash is a missing one (`Internal::hash`).
                *hash = [0u8; 32];
            }
            (l.0 + r.0, changed)
        }
    }
}

/// Rehashes `stems`: those with one written value two at a time ([`rehash_pair`]), the others
/// (and an odd one out) one by one.
fn rehash_stems<H: TreeHash>(stems: Vec<&mut StemNode>, count: &mut u64) {
    let mut waiting: Option<(&mut StemNode, usize)> = None;
    for stem in stems {
        match (stem.single_written(), waiting.take()) {
            (Some(at), Some(other)) => rehash_pair::<H>(other, (stem, at), count),
            (Some(at), None) => waiting = Some((stem, at)),
            (None, other) => {
                stem.node_hash::<H>(count);
                waiting = other;
            }
        }
    }
    if let Some((stem, _)) = waiting {
        stem.node_hash::<H>(count);
    }
}

/// Reads the start of a child's node (its cached hash), so that the load is in flight while
/// the walk goes on elsewhere; the byte read, for [`core::hint::black_box`].
#[inline(always)]
fn touch(node: &Node) -> u8 {
    match node {
        Node::Internal(internal) => internal.hash[0],
        Node::Stem(stem) => u8::from(stem.hash.is_some()),
        Node::Empty | Node::Stored(_) => 0,
    }
}

/// Brings into cache the nodes a batch walks below `internal` (at `depth`, its writes `ops`
/// split at `mid`): the nodes on the writes' paths, the siblings whose hashes the rehash
/// reads, and the stems' values. It goes level by level, so the loads of different paths are
/// in flight together (a walk down one path waits for each node before it can load the
/// next), and each round of loads is a short loop of reads alone, so that the processor's
/// reorder window holds many of them at once; the work of dividing the writes between
/// children comes after, on nodes in cache.
fn warm_paths(internal: &Internal, depth: usize, mid: usize, ops: &[Write]) {
    let mut level: Vec<(&Internal, usize, usize, &[Write])> = vec![(internal, depth, mid, ops)];
    let mut next = Vec::new();
    // Nodes beside the paths (their hashes are read) and the written stems' nodes.
    let mut beside: Vec<&Node> = Vec::new();
    let mut stems: Vec<&StemNode> = Vec::new();
    let mut seen = 0u8;
    while !level.is_empty() {
        for (internal, ..) in &level {
            seen ^= kind(&internal.left) ^ kind(&internal.right);
        }
        for (internal, depth, mid, ops) in level.drain(..) {
            let (left, right) = ops.split_at(mid);
            for (child, ops) in [(&internal.left, left), (&internal.right, right)] {
                match child {
                    Node::Internal(child) if !ops.is_empty() => {
                        let mid = ops.partition_point(|op| bit(&op.0, depth + 1) == 0);
                        next.push((&**child, depth + 1, mid, ops));
                    }
                    Node::Stem(stem) if !ops.is_empty() => stems.push(stem),
                    other => beside.push(other),
                }
            }
        }
        core::mem::swap(&mut level, &mut next);
    }
    for node in &beside {
        seen ^= touch(node);
    }
    for stem in &stems {
        seen ^= stem.touch_head();
    }
    for stem in &stems {
        seen ^= stem.touch();
    }
    core::hint::black_box(seen);
}

/// A byte naming the kind of `node` (read from the node's parent).
#[inline(always)]
fn kind(node: &Node) -> u8 {
    match node {
        Node::Empty => 0,
        Node::Internal(_) => 1,
        Node::Stem(_) => 2,
        Node::Stored(_) => 3,
    }
}

/// Applies the two halves of a batch below `internal`'s children: on two rayon threads over
/// the top [`PARALLEL_LEVELS`] levels with the `parallel` feature, else one after the other.
fn apply_children<H: TreeHash>(
    internal: &mut Internal,
    depth: usize,
    left: &[Write],
    right: &[Write],
    level: usize,
    count: &mut u64,
) -> ((usize, bool), (usize, bool)) {
    let Internal {
        left: left_node,
        right: right_node,
        ..
    } = internal;
    let (next, below) = (depth + 1, level + 1);
    #[cfg(feature = "parallel")]
    if level < PARALLEL_LEVELS && left.len() + right.len() >= PARALLEL_MIN_WRITES {
        let (mut lc, mut rc) = (0, 0);
        let out = rayon::join(
            || apply::<H>(left_node, next, left, below, &mut lc),
            || apply::<H>(right_node, next, right, below, &mut rc),
        );
        *count += lc + rc;
        return out;
    }
    (
        apply::<H>(left_node, next, left, below, count),
        apply::<H>(right_node, next, right, below, count),
    )
}

/// Writes values of one stem into `node`, empty or that stem's node.
fn write_stem(node: &mut Node, ops: &[Write]) -> (usize, bool) {
    let Some(first) = ops.first() else {
        return (0, false);
    };
    if matches!(node, Node::Empty) {
        *node = Node::Stem(Box::new(StemNode::new(first.0, ops.len())));
    }
    let Node::Stem(stem) = node else {
        return (0, false);
    };
    let (mut inserted, mut changed) = (0, false);
    for &(_, index, value) in ops {
        let (new, change) = stem.set(index, value);
        inserted += usize::from(new);
        changed |= change;
    }
    (inserted, changed)
}

fn node_hash<H: TreeHash>(node: &mut Node, level: usize, count: &mut u64) -> [u8; 32] {
    match node {
        Node::Empty => [0u8; 32],
        Node::Internal(internal) => {
            if let Some(hash) = internal.hash() {
                return hash;
            }
            let (left, right) = children_hashes::<H>(internal, level, count);
            let hash = hash_pair::<H>(&left, &right, count);
            internal.set_hash(Some(hash));
            hash
        }
        Node::Stem(stem) => stem.node_hash::<H>(count),
        Node::Stored(hash) => **hash,
    }
}

/// Whether a node's hash is to be computed.
fn dirty(node: &Node) -> bool {
    match node {
        Node::Internal(internal) => internal.hash().is_none(),
        Node::Stem(stem) => stem.hash.is_none(),
        Node::Empty | Node::Stored(_) => false,
    }
}

/// The hashes of `internal`'s children: on two rayon threads over the top [`PARALLEL_LEVELS`]
/// levels with the `parallel` feature when both are to be computed, else two at a time
/// ([`node_hash_two`]).
fn children_hashes<H: TreeHash>(
    internal: &mut Internal,
    level: usize,
    count: &mut u64,
) -> ([u8; 32], [u8; 32]) {
    let both = dirty(&internal.left) && dirty(&internal.right);
    #[cfg(feature = "parallel")]
    if level < PARALLEL_LEVELS && both {
        let (mut lc, mut rc) = (0, 0);
        let (left, right) = rayon::join(
            || node_hash::<H>(&mut internal.left, level + 1, &mut lc),
            || node_hash::<H>(&mut internal.right, level + 1, &mut rc),
        );
        *count += lc + rc;
        return (left, right);
    }
    if both {
        let [left, right] =
            node_hash_two::<H>(&mut internal.left, &mut internal.right, level + 1, count);
        return (left, right);
    }
    (
        node_hash::<H>(&mut internal.left, level + 1, count),
        node_hash::<H>(&mut internal.right, level + 1, count),
    )
}

/// The hashes of two nodes (at `level`), the missing hashes below them computed two at a time
/// where the walks allow it: two internal nodes to be computed pair their children to be
/// computed (whichever they are) and then hash their own messages together; two stem nodes
/// with one written value each walk from leaf to stem node in step ([`rehash_pair`]); anything
/// else is hashed one by one ([`node_hash`]). The same hashes, stored and counted, as
/// [`node_hash`] of each.
fn node_hash_two<H: TreeHash>(
    a: &mut Node,
    b: &mut Node,
    level: usize,
    count: &mut u64,
) -> [[u8; 32]; 2] {
    match (&mut *a, &mut *b) {
        (Node::Internal(x), Node::Internal(y)) if x.hash().is_none() && y.hash().is_none() => {
            let Internal {
                left: xl,
                right: xr,
                ..
            } = &mut **x;
            let Internal {
                left: yl,
                right: yr,
                ..
            } = &mut **y;
            let mut children: [&mut Node; 4] = [xl, xr, yl, yr];
            let mut hashes = [[0u8; 32]; 4];
            let mut waiting: Option<usize> = None;
            for i in 0..children.len() {
                if !dirty(children[i]) {
                    hashes[i] = node_hash::<H>(children[i], level + 1, count);
                    continue;
                }
                let Some(j) = waiting.take() else {
                    waiting = Some(i);
                    continue;
                };
                let (below, from) = children.split_at_mut(i);
                let [first, second] = node_hash_two::<H>(below[j], from[0], level + 1, count);
                (hashes[j], hashes[i]) = (first, second);
            }
            if let Some(j) = waiting {
                hashes[j] = node_hash::<H>(children[j], level + 1, count);
            }
            let messages = [
                message64(&hashes[0], &hashes[1]),
                message64(&hashes[2], &hashes[3]),
            ];
            let out = hash_two::<H>(&messages, count);
            x.set_hash(Some(out[0]));
            y.set_hash(Some(out[1]));
            out
        }
        (Node::Stem(x), Node::Stem(y)) => match (x.single_written(), y.single_written()) {
            (Some(i), Some(j)) => {
                rehash_pair::<H>((x, i), (y, j), count);
                [x.hash.unwrap_or_default(), y.hash.unwrap_or_default()]
            }
            _ => [x.node_hash::<H>(count), y.node_hash::<H>(count)],
        },
        _ => [
            node_hash::<H>(a, level, count),
            node_hash::<H>(b, level, count),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sha256;

    #[test]
    fn wrong_key_length_is_an_error() {
        let mut tree = Tree::<Sha256>::new();
        assert!(matches!(
            tree.insert(&[0; 31], &[0; 32]),
            Err(Error::WrongLength { .. })
        ));
        assert!(tree.apply([(vec![0u8; 33], [0; 32])]).is_err());
        assert_eq!(tree.root(), [0; 32]);
    }

    #[test]
    fn batch_equals_one_by_one() {
        let keys: Vec<[u8; 32]> = (0..50u8)
            .map(|i| {
                let mut k = [i.wrapping_mul(37); 32];
                k[31] = i;
                k
            })
            .collect();
        let mut one = Tree::<Sha256>::new();
        for k in &keys {
            one.insert(k, &[k[0]; 32]).unwrap();
        }
        let mut batch = Tree::<Sha256>::new();
        batch.apply(keys.iter().map(|k| (k, [k[0]; 32]))).unwrap();
        assert_eq!(one.root(), batch.root());
        assert_eq!(one.len(), batch.len());
        assert_eq!(batch.get(&keys[3]), Some(&[keys[3][0]; 32]));
    }

    /// Batches on a tree that already holds values (stems partly cached, new stems beside
    /// old ones; stems with one written value, rehashed two at a time, beside stems with
    /// several and stems whose written leaves are each other's pair) and on stems that share
    /// 247 bits give the root and the hash count of the same writes one by one.
    #[test]
    fn batches_on_a_grown_tree_equal_one_by_one() {
        let key = |i: u32| {
            let mut k = [0u8; 32];
            k[..4].copy_from_slice(&i.wrapping_mul(2_654_435_761).to_be_bytes());
            k[31] = (i % 7) as u8;
            k
        };
        let deep = |i: u8| {
            let mut k = [0x5a; 32];
            k[30] = i;
            k[31] = i;
            k
        };
        let mut one = Tree::<Sha256>::new();
        let mut batch = Tree::<Sha256>::new();
        for round in 0..6u32 {
            let mut keys: Vec<[u8; 32]> = (0..40).map(|i| key(i * 3 + round * 11)).collect();
            keys.extend((0..3).map(|i| deep(i + round as u8)));
            // Several values of one stem, among them a leaf pair (sub-indices 2k, 2k + 1).
            let mut shared = key(round);
            for sub in [0x40, 0x41, 0xff, round as u8] {
                shared[31] = sub;
                keys.push(shared);
            }
            let value = [round as u8 + 1; 32];
            for k in &keys {
                one.insert(k, &value).unwrap();
            }
            batch.apply(keys.iter().map(|k| (k, value))).unwrap();
            assert_eq!(one.root(), batch.root(), "round {round}");
            assert_eq!(one.hash_count(), batch.hash_count(), "round {round}");
        }
        // Values written back to what they were: nothing changes, nothing is hashed.
        let count = batch.hash_count();
        batch.apply([(key(0), [1; 32])]).unwrap();
        assert_eq!(batch.hash_count(), count);
    }
}
