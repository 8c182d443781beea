//! The EIP-7864 tree over a store of node records ([`crate::store`]): subtrees loaded on
//! demand, the records a commit writes, and eviction of committed subtrees.
//!
//! Records (after the version byte [`crate::store::RECORD_VERSION`]), under the position
//! `depth ‖ stem bits ..depth`:
//! - internal node: `0x01 ‖ left hash ‖ right hash` (66 bytes; an empty child's hash is 32
//!   zero bytes);
//! - stem node: `0x02 ‖ stem (31) ‖ count − 1 (1) ‖ (sub-index ‖ value) × count`, sub-indices
//!   strictly increasing; the subtree's inner hashes are recomputed when it loads.
//!
//! A loaded record must hash to the hash its parent holds (the root's: the one the tree was
//! opened with).

use alloc::collections::BTreeSet;

use super::stem::{hash_pair, StemNode, STEM_LENGTH};
use super::tree::{split_key, Internal, Node, Tree};
use crate::bits::bit;
use crate::prelude::*;
use crate::store::{
    self, add_at, cleared_from, corrupt, kept_depths, position, position_into, same_bits, Changes,
    NodeSource, Reader, RecordError, StoreError, RECORD_VERSION,
};
use crate::witness::Write;
use crate::TreeHash;

/// Kind byte of an internal node's record.
const KIND_INTERNAL: u8 = 1;
/// Kind byte of a stem node's record.
const KIND_STEM: u8 = 2;
/// Records of one level below which they are decoded and checked on one thread.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_RECORDS: usize = 64;
/// Stems per slice below which the walk to the stored handles does not fork onto another
/// thread.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_STEMS: usize = 32;

/// An EIP-7864 tree whose nodes live in a store: what is not loaded is a hash, read through
/// a [`NodeSource`] when an operation reaches it. Roots, values and witnesses are those of
/// the in-memory [`Tree`] holding the same values.
///
/// ```
/// use bintree::store::NoSource;
/// use bintree::{eip7864, Sha256};
///
/// let mut tree = eip7864::StoredTree::<Sha256>::new();
/// tree.apply(&NoSource, [([1u8; 32], [2u8; 32])])?;
/// let changes = tree.changes();
/// assert_eq!(changes.puts.len(), 1);
/// tree.committed();
/// # Ok::<(), bintree::store::StoreError<core::convert::Infallible>>(())
/// ```
#[derive(Clone, Debug)]
pub struct StoredTree<H: TreeHash> {
    tree: Tree<H>,
    /// Stems written since the last commit, and the stems a write may have pushed down (a
    /// stem node at the end of a written stem's path before the write).
    written: BTreeSet<[u8; STEM_LENGTH]>,
    /// Loaded nodes at each depth, kept up to date as nodes load, writes add stems and
    /// evictions drop subtrees; `None`: not known, counted by the next eviction.
    levels: Option<Vec<usize>>,
    /// The depth from which the last eviction left no loaded node, while the stems whose
    /// paths were loaded or written since are in `touched` (every node loaded since at that
    /// depth or below is on or beside one of their paths); `None`: anywhere.
    cleared: Option<usize>,
    /// Stems whose paths were loaded or written since the last eviction (when `cleared`).
    touched: Vec<[u8; STEM_LENGTH]>,
}

/// Stems remembered between two evictions beyond which the next eviction walks the whole
/// tree instead of their paths.
const TOUCHED_MAX: usize = 1 << 20;

impl<H: TreeHash> Default for StoredTree<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H: TreeHash> StoredTree<H> {
    /// An empty tree with nothing stored.
    pub fn new() -> Self {
        Self::open([0u8; 32], 0)
    }

    /// The stored tree of `len` values whose root is `root` (32 zero bytes: empty); nothing
    /// is loaded until an operation needs it.
    pub fn open(root: [u8; 32], len: u64) -> Self {
        StoredTree {
            tree: Tree::from_parts(child(root), usize::try_from(len).unwrap_or(usize::MAX)),
            written: BTreeSet::new(),
            levels: Some(Vec::new()),
            cleared: None,
            touched: Vec::new(),
        }
    }

    /// Number of values present.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether the tree holds no value.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Hashes computed for the tree's roots so far (as [`Tree::hash_count`]; the hashes that
    /// check loaded records are not counted).
    pub fn hash_count(&self) -> u64 {
        self.tree.hash_count()
    }

    /// The value at the 32-byte `key`, loading its path.
    pub fn get<S: NodeSource>(
        &mut self,
        source: &S,
        key: &[u8],
    ) -> Result<Option<[u8; 32]>, StoreError<S::Error>> {
        let (stem, _) = split_key(key)?;
        self.load::<S>(&[stem], source)?;
        Ok(self.tree.get(key).copied())
    }

    /// Applies a batch of writes as [`Tree::apply`] does, loading their paths first.
    pub fn apply<S, K, I>(&mut self, source: &S, writes: I) -> Result<(), StoreError<S::Error>>
    where
        S: NodeSource,
        K: AsRef<[u8]>,
        I: IntoIterator<Item = (K, [u8; 32])>,
    {
        let writes: Vec<(K, [u8; 32])> = writes.into_iter().collect();
        let mut stems = Vec::with_capacity(writes.len());
        for (key, _) in &writes {
            stems.push(split_key(key.as_ref())?.0);
        }
        stems.sort_unstable();
        stems.dedup();
        self.load::<S>(&stems, source)?;
        let mut absent = Vec::new();
        pushed_down(&self.tree.root, 0, &stems, &mut self.written, &mut absent);
        self.written.extend(stems);
        // Only the paths of absent stems change shape: the counts move by what is on and
        // beside them after the writes less before.
        let mut before = Vec::new();
        if self.levels.is_some() && !absent.is_empty() {
            count_region(&self.tree.root, 0, &absent, &mut before);
        }
        let applied = self.tree.apply(writes);
        match (&mut self.levels, &applied) {
            (Some(levels), Ok(())) if !absent.is_empty() => {
                let mut after = Vec::new();
                count_region(&self.tree.root, 0, &absent, &mut after);
                if after.len() > levels.len() {
                    levels.resize(after.len(), 0);
                }
                for (depth, level) in levels.iter_mut().enumerate() {
                    let gained = after.get(depth).copied().unwrap_or(0);
                    let lost = before.get(depth).copied().unwrap_or(0);
                    *level = (*level + gained).saturating_sub(lost);
                }
            }
            (_, Err(_)) => self.levels = None,
            _ => {}
        }
        applied?;
        Ok(())
    }

    /// Loads the paths of `stems` (sorted, distinct), counting the nodes loaded and noting
    /// the stems for the next eviction.
    fn load<S: NodeSource>(
        &mut self,
        stems: &[[u8; STEM_LENGTH]],
        source: &S,
    ) -> Result<(), StoreError<S::Error>> {
        if self.cleared.is_some() {
            if self.touched.len() + stems.len() > TOUCHED_MAX {
                self.cleared = None;
                self.touched = Vec::new();
            } else {
                self.touched.extend_from_slice(stems);
            }
        }
        let loaded = load_paths::<H, S>(&mut self.tree.root, stems, source, self.levels.as_mut());
        if loaded.is_err() {
            // A level may have loaded part way.
            self.levels = None;
        }
        loaded
    }

    /// The root; rehashes the nodes written since the last call, each once.
    pub fn root(&mut self) -> [u8; 32] {
        self.tree.root()
    }

    /// The witness of `writes` as [`Tree::witness`] gives it, loading the keys' paths first.
    pub fn witness<S: NodeSource, K: AsRef<[u8]>>(
        &mut self,
        source: &S,
        writes: &[(K, Write)],
    ) -> Result<Vec<u8>, StoreError<S::Error>> {
        // Keys of the wrong length are left to the witness's own error.
        let mut stems: Vec<[u8; STEM_LENGTH]> = writes
            .iter()
            .filter_map(|(key, _)| split_key(key.as_ref()).ok().map(|(stem, _)| stem))
            .collect();
        stems.sort_unstable();
        stems.dedup();
        self.load::<S>(&stems, source)?;
        // The anchors' descents, loaded until each reaches its stem node (a descent turns
        // right below a loaded node whose left child is empty, so it may take a few rounds).
        loop {
            let descents = self.tree.anchor_descents(&stems);
            if descents.is_empty() {
                break;
            }
            self.load::<S>(&descents, source)?;
        }
        Ok(self.tree.witness(writes)?)
    }

    /// The records the writes since the last [`StoredTree::committed`] change: every node on
    /// a written path, and every stem node a write pushed down. EIP-7864 never empties a
    /// position, so there is nothing to delete. Computes the root first.
    pub fn changes(&mut self) -> Changes {
        let mut puts = Vec::new();
        let (root, len) =
            self.changes_with(|key, record| puts.push((key.to_vec(), record.to_vec())));
        Changes {
            puts,
            deletes: Vec::new(),
            root,
            len,
        }
    }

    /// The puts of [`StoredTree::changes`], each handed to `put` as (position, record) in key
    /// order, without a buffer per record; returns the root and the number of values.
    pub fn changes_with(&mut self, mut put: impl FnMut(&[u8], &[u8])) -> ([u8; 32], u64) {
        let root = self.tree.root();
        let stems: Vec<[u8; STEM_LENGTH]> = self.written.iter().copied().collect();
        let mut levels = Vec::new();
        collect(&self.tree.root, 0, &stems, &mut levels);
        for (depth, level) in levels.iter().enumerate() {
            let width = 1 + depth.div_ceil(8);
            let mut start = 0;
            for (key, &end) in level.keys.chunks_exact(width).zip(&level.ends) {
                put(key, level.records.get(start..end).unwrap_or_default());
                start = end;
            }
        }
        (root, self.tree.len() as u64)
    }

    /// Marks the last [`StoredTree::changes`] as written to the store: the next changes start
    /// from here, and the nodes may be evicted.
    pub fn committed(&mut self) {
        self.written.clear();
    }

    /// Nodes in memory (internal and stem nodes; stored handles not counted).
    pub fn loaded_nodes(&self) -> usize {
        if let Some(levels) = &self.levels {
            return levels.iter().sum();
        }
        let mut counts = Vec::new();
        count_levels(&self.tree.root, 0, &mut counts);
        counts.iter().sum()
    }

    /// Keeps at most `budget` nodes in memory: the top levels of the tree that fit whole,
    /// every node below them becoming a stored handle. Does nothing while writes are not
    /// committed ([`StoredTree::committed`]) or when the tree is within budget. The levels
    /// nearest the root are on the paths of every write, so they are the ones kept.
    pub fn evict(&mut self, budget: usize) {
        if !self.written.is_empty() {
            return;
        }
        let counts = self.levels.get_or_insert_with(|| {
            let mut counts = Vec::new();
            count_levels(&self.tree.root, 0, &mut counts);
            counts
        });
        if counts.iter().sum::<usize>() <= budget {
            return;
        }
        let keep = kept_depths(counts, budget);
        // Below the depth the last eviction cleared, only the paths touched since hold
        // loaded nodes: when this one clears from there or deeper, their paths are walked.
        if self.cleared.is_some_and(|cleared| keep >= cleared) {
            self.touched.sort_unstable();
            self.touched.dedup();
            evict_paths(&mut self.tree.root, 0, &self.touched, keep, counts);
        }
        if counts.iter().skip(keep).any(|&count| count > 0) {
            evict_below(&mut self.tree.root, 0, keep, counts);
        }
        // Unhashed nodes stay loaded: then nothing is known cleared.
        self.cleared = cleared_from(counts, keep);
        self.touched.clear();
    }
}

/// The node a child hash stands for: empty for 32 zero bytes, else a stored handle.
fn child(hash: [u8; 32]) -> Node {
    if hash == [0u8; 32] {
        Node::Empty
    } else {
        Node::Stored(Box::new(hash))
    }
}

/// A node's hash, as cached after [`Tree::root`].
fn cached(node: &Node) -> [u8; 32] {
    match node {
        Node::Empty => [0u8; 32],
        Node::Internal(internal) => internal.hash().unwrap_or_default(),
        Node::Stem(stem) => stem.hash.unwrap_or_default(),
        Node::Stored(hash) => **hash,
    }
}

/// A stored handle on the paths of a batch: the handle, its depth, and the stems whose paths
/// pass it.
type Reached<'a> = (&'a mut Node, usize, &'a [[u8; STEM_LENGTH]]);

/// Loads the stored nodes on the paths of `stems` (sorted, distinct) below `root`: the
/// loaded nodes are walked first (on rayon threads at the top levels), then the stored
/// handles they reach are loaded depth by depth, one [`NodeSource::load_many`] for all the
/// nodes of a depth. Adds the nodes loaded to `levels`.
fn load_paths<H: TreeHash, S: NodeSource>(
    root: &mut Node,
    stems: &[[u8; STEM_LENGTH]],
    source: &S,
    mut levels: Option<&mut Vec<usize>>,
) -> Result<(), StoreError<S::Error>> {
    let mut reached = Vec::new();
    reach(root, 0, stems, 0, &mut reached);
    // Stable: each depth's handles stay in key order.
    reached.sort_by_key(|(_, depth, _)| *depth);
    let mut reached = reached.into_iter().peekable();
    // The nodes to load at `depth`, each with the stems whose paths pass it.
    let mut level: Vec<(&mut Node, &[[u8; STEM_LENGTH]])> = Vec::new();
    let mut depth = 0;
    loop {
        if level.is_empty() {
            match reached.peek() {
                Some((_, next, _)) => depth = *next,
                None => return Ok(()),
            }
        }
        let mut joined = false;
        while let Some((node, _, stems)) = reached.next_if(|(_, at, _)| *at == depth) {
            level.push((node, stems));
            joined = true;
        }
        if joined {
            level.sort_by(|a, b| a.1.first().cmp(&b.1.first()));
        }
        let loaded = load_level::<H, S>(&mut level, depth, source)?;
        if let Some(levels) = levels.as_deref_mut().filter(|_| loaded > 0) {
            add_at(levels, depth, loaded);
        }
        // A loaded internal node's children are stored handles (or empty).
        let mut next = Vec::with_capacity(2 * level.len());
        for (node, stems) in level {
            let Node::Internal(internal) = node else {
                continue;
            };
            let internal: &mut Internal = internal;
            let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
            let (left, right) = stems.split_at(mid);
            for (child, stems) in [(&mut internal.left, left), (&mut internal.right, right)] {
                if !stems.is_empty() && matches!(child, Node::Stored(_)) {
                    next.push((child, stems));
                }
            }
        }
        level = next;
        depth += 1;
    }
}

/// Appends to `out`, in key order, the stored handles that end the loaded part of the paths
/// of `stems` (sorted, distinct, sharing bits `..depth`) below `node` at `depth`.
fn reach<'a>(
    node: &'a mut Node,
    depth: usize,
    stems: &'a [[u8; STEM_LENGTH]],
    level: usize,
    out: &mut Vec<Reached<'a>>,
) {
    if stems.is_empty() {
        return;
    }
    if matches!(node, Node::Stored(_)) {
        out.push((node, depth, stems));
        return;
    }
    let Node::Internal(internal) = node else {
        return;
    };
    let internal: &mut Internal = internal;
    let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
    let (left, right) = stems.split_at(mid);
    #[cfg(not(feature = "parallel"))]
    let _ = level;
    #[cfg(feature = "parallel")]
    if level < super::PARALLEL_LEVELS && stems.len() >= PARALLEL_MIN_STEMS {
        let (left_node, right_node) = (&mut internal.left, &mut internal.right);
        let (l, r) = rayon::join(
            || {
                let mut found = Vec::new();
                reach(left_node, depth + 1, left, level + 1, &mut found);
                found
            },
            || {
                let mut found = Vec::new();
                reach(right_node, depth + 1, right, level + 1, &mut found);
                found
            },
        );
        out.extend(l);
        out.extend(r);
        return;
    }
    reach(&mut internal.left, depth + 1, left, level + 1, out);
    reach(&mut internal.right, depth + 1, right, level + 1, out);
}

/// A stored handle being loaded: the node, the first stem whose path passes it, its record.
struct Load<'a> {
    node: &'a mut Node,
    stem: &'a [u8; STEM_LENGTH],
    record: Vec<u8>,
}

/// Replaces the stored handles among the nodes of `level` (at `depth`, each with the stems
/// whose paths pass it, the first naming its position) by the nodes their records hold,
/// read with one [`NodeSource::load_many`] and each checked against its handle's hash.
/// Returns the number of nodes loaded.
fn load_level<H: TreeHash, S: NodeSource>(
    level: &mut [(&mut Node, &[[u8; STEM_LENGTH]])],
    depth: usize,
    source: &S,
) -> Result<usize, StoreError<S::Error>> {
    let mut loads: Vec<Load<'_>> = level
        .iter_mut()
        .filter_map(|(node, stems)| match (&**node, stems.first()) {
            (Node::Stored(_), Some(stem)) => Some(Load {
                node,
                stem,
                record: Vec::new(),
            }),
            _ => None,
        })
        .collect();
    if loads.is_empty() {
        return Ok(0);
    }
    let keys: Vec<Vec<u8>> = loads
        .iter()
        .map(|load| position(load.stem, depth, None, 1))
        .collect();
    let records = store::load_many(source, &keys)?;
    for (load, record) in loads.iter_mut().zip(records) {
        load.record = record;
    }
    let decode_one = |load: &mut Load<'_>| {
        let expected = cached(load.node);
        decode::<H>(&load.record, depth, load.stem, expected).map(|node| *load.node = node)
    };
    #[cfg(feature = "parallel")]
    let outcomes: Vec<Result<(), RecordError>> = if loads.len() >= PARALLEL_MIN_RECORDS {
        use rayon::prelude::*;
        loads.par_iter_mut().map(decode_one).collect()
    } else {
        loads.iter_mut().map(decode_one).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let outcomes: Vec<Result<(), RecordError>> = loads.iter_mut().map(decode_one).collect();
    // The first corrupt record in key order is the one reported.
    for (outcome, key) in outcomes.into_iter().zip(&keys) {
        outcome.map_err(|error| corrupt(key, error))?;
    }
    Ok(keys.len())
}

/// Decodes the record of the node at `depth` on `path`'s path and checks its hash.
fn decode<H: TreeHash>(
    record: &[u8],
    depth: usize,
    path: &[u8; STEM_LENGTH],
    expected: [u8; 32],
) -> Result<Node, RecordError> {
    let (mut r, kind) = Reader::open(record)?;
    let mut count = 0;
    let (node, got) = match kind {
        // An internal node splits on its depth's stem bit: there is none past the last.
        KIND_INTERNAL if depth >= 8 * STEM_LENGTH => {
            return Err(RecordError::Field { field: "kind" });
        }
        KIND_INTERNAL => {
            let left = r.hash()?;
            let right = r.hash()?;
            r.end()?;
            let got = hash_pair::<H>(&left, &right, &mut count);
            let node = Node::Internal(Box::new(Internal::new(
                child(left),
                child(right),
                Some(got),
            )));
            (node, got)
        }
        KIND_STEM => {
            let mut stem = [0u8; STEM_LENGTH];
            stem.copy_from_slice(r.take(STEM_LENGTH)?);
            if !same_bits(&stem, path, depth) {
                return Err(RecordError::Field { field: "stem" });
            }
            let values = usize::from(r.take(1)?[0]) + 1;
            let body = r.take(values * 33)?;
            r.end()?;
            let mut slots = Vec::with_capacity(values);
            for entry in body.chunks_exact(33) {
                let index = entry[0];
                if slots.last().is_some_and(|&(last, _)| last >= index) {
                    return Err(RecordError::Field { field: "sub-index" });
                }
                let mut value = [0u8; 32];
                value.copy_from_slice(&entry[1..]);
                slots.push((index, value));
            }
            let mut node = StemNode::from_values(stem, slots);
            let got = node.node_hash::<H>(&mut count);
            (Node::Stem(Box::new(node)), got)
        }
        got => return Err(RecordError::Kind { got }),
    };
    if got != expected {
        return Err(RecordError::Hash { got, expected });
    }
    Ok(node)
}

/// Appends the record of `node` (internal or stem, hashed; nothing for others) to `out`.
fn encode_into(node: &Node, out: &mut Vec<u8>) {
    match node {
        Node::Internal(internal) => {
            out.extend_from_slice(&[RECORD_VERSION, KIND_INTERNAL]);
            out.extend_from_slice(&cached(&internal.left));
            out.extend_from_slice(&cached(&internal.right));
        }
        Node::Stem(stem) => {
            let values = stem.values();
            out.reserve(3 + STEM_LENGTH + 33 * values.len());
            out.extend_from_slice(&[RECORD_VERSION, KIND_STEM]);
            out.extend_from_slice(&stem.stem);
            out.push(values.len().saturating_sub(1) as u8);
            for (index, value) in values {
                out.push(index);
                out.extend_from_slice(value);
            }
        }
        Node::Empty | Node::Stored(_) => {}
    }
}

/// Adds to `out` the stem nodes that end the paths of `stems` (sorted, distinct, sharing bits
/// `..depth`, loaded) below `node` at `depth` and are not theirs: writing those stems pushes
/// such a stem node down. Appends to `absent` the stems whose paths do not end at their own
/// stem node (in order).
fn pushed_down(
    node: &Node,
    depth: usize,
    stems: &[[u8; STEM_LENGTH]],
    out: &mut BTreeSet<[u8; STEM_LENGTH]>,
    absent: &mut Vec<[u8; STEM_LENGTH]>,
) {
    if stems.is_empty() {
        return;
    }
    match node {
        Node::Stem(stem) => {
            if stems.iter().any(|s| *s != stem.stem) {
                out.insert(stem.stem);
            }
            absent.extend(stems.iter().filter(|s| **s != stem.stem));
        }
        Node::Internal(internal) => {
            let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
            let (left, right) = stems.split_at(mid);
            pushed_down(&internal.left, depth + 1, left, out, absent);
            pushed_down(&internal.right, depth + 1, right, out, absent);
        }
        Node::Empty | Node::Stored(_) => absent.extend_from_slice(stems),
    }
}

/// Adds to `counts` (by depth) the loaded nodes on the paths of `stems` (sorted, distinct,
/// sharing bits `..depth`) below `node` at `depth`, and the loaded children beside them.
fn count_region(node: &Node, depth: usize, stems: &[[u8; STEM_LENGTH]], counts: &mut Vec<usize>) {
    if matches!(node, Node::Empty | Node::Stored(_)) {
        return;
    }
    add_at(counts, depth, 1);
    let Node::Internal(internal) = node else {
        return;
    };
    if stems.is_empty() {
        return;
    }
    let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
    let (left, right) = stems.split_at(mid);
    count_region(&internal.left, depth + 1, left, counts);
    count_region(&internal.right, depth + 1, right, counts);
}

/// The records of the nodes at one depth, in key order: the positions end to end (all of one
/// length), the records end to end, and where each record ends.
#[derive(Default)]
struct Level {
    keys: Vec<u8>,
    records: Vec<u8>,
    ends: Vec<usize>,
}

/// Appends to `levels` (by depth) the records of the loaded nodes on the paths of `stems`
/// (sorted, distinct, sharing bits `..depth`) below `node` at `depth`. Left before right, so
/// each depth's records come in key order.
fn collect(node: &Node, depth: usize, stems: &[[u8; STEM_LENGTH]], levels: &mut Vec<Level>) {
    let Some(first) = stems.first() else { return };
    let path = match node {
        Node::Empty | Node::Stored(_) => return,
        Node::Stem(stem) => &stem.stem,
        Node::Internal(_) => first,
    };
    if levels.len() <= depth {
        levels.resize_with(depth + 1, Level::default);
    }
    if let Some(level) = levels.get_mut(depth) {
        position_into(path, depth, None, 1, &mut level.keys);
        encode_into(node, &mut level.records);
        level.ends.push(level.records.len());
    }
    if let Node::Internal(internal) = node {
        let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
        let (left, right) = stems.split_at(mid);
        collect(&internal.left, depth + 1, left, levels);
        collect(&internal.right, depth + 1, right, levels);
    }
}

/// Adds the loaded nodes at each depth below `node` (at `depth`) to `counts`.
fn count_levels(node: &Node, depth: usize, counts: &mut Vec<usize>) {
    if matches!(node, Node::Empty | Node::Stored(_)) {
        return;
    }
    add_at(counts, depth, 1);
    if let Node::Internal(internal) = node {
        count_levels(&internal.left, depth + 1, counts);
        count_levels(&internal.right, depth + 1, counts);
    }
}

/// Replaces every hashed node at depth `keep` or below by its stored handle, taking the
/// nodes dropped off `counts`.
fn evict_below(node: &mut Node, depth: usize, keep: usize, counts: &mut [usize]) {
    if depth >= keep {
        let hash = match node {
            Node::Internal(internal) => internal.hash(),
            Node::Stem(stem) => stem.hash,
            Node::Empty | Node::Stored(_) => None,
        };
        if let Some(hash) = hash {
            uncount(node, depth, counts);
            *node = Node::Stored(Box::new(hash));
            return;
        }
    }
    if let Node::Internal(internal) = node {
        evict_below(&mut internal.left, depth + 1, keep, counts);
        evict_below(&mut internal.right, depth + 1, keep, counts);
    }
}

/// [`evict_below`] on the paths of `stems` (sorted, distinct, sharing bits `..depth`) below
/// `node` at `depth`, and on the subtrees beside them from depth `keep`.
fn evict_paths(
    node: &mut Node,
    depth: usize,
    stems: &[[u8; STEM_LENGTH]],
    keep: usize,
    counts: &mut [usize],
) {
    if depth >= keep {
        evict_below(node, depth, keep, counts);
        return;
    }
    let Node::Internal(internal) = node else {
        return;
    };
    let internal: &mut Internal = internal;
    let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
    let (left, right) = stems.split_at(mid);
    for (child, stems) in [(&mut internal.left, left), (&mut internal.right, right)] {
        if !stems.is_empty() || depth + 1 >= keep {
            evict_paths(child, depth + 1, stems, keep, counts);
        }
    }
}

/// Takes the loaded nodes of the subtree `node` (at `depth`) off `counts`.
fn uncount(node: &Node, depth: usize, counts: &mut [usize]) {
    if matches!(node, Node::Empty | Node::Stored(_)) {
        return;
    }
    if let Some(count) = counts.get_mut(depth) {
        *count = count.saturating_sub(1);
    }
    if let Node::Internal(internal) = node {
        uncount(&internal.left, depth + 1, counts);
        uncount(&internal.right, depth + 1, counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::rng::Rng;
    use crate::store::{Batches, MapSource};
    use crate::Sha256;

    fn key(rng: &mut Rng, stems: &[[u8; STEM_LENGTH]]) -> [u8; 32] {
        let mut k = [0u8; 32];
        let stem = stems[rng.below(stems.len())];
        k[..STEM_LENGTH].copy_from_slice(&stem);
        k[STEM_LENGTH] = rng.below(4) as u8 * 60;
        k
    }

    #[test]
    fn a_witness_loads_its_anchors_descents_from_the_store() {
        // Stems `1010…` and `1011…` (their node at depth 1 has an empty right child, the one
        // below it an empty left child) and `1000…`, `1001…` beside them; the key `00…`
        // ends EMPTY at depth 1 beside them, and `1100…` EMPTY at depth 2 beside `10`.
        let stem = |first: u8| {
            let mut s = [0x11u8; STEM_LENGTH];
            s[0] = first;
            s
        };
        let key = |stem: [u8; STEM_LENGTH], sub: u8| {
            let mut k = [0u8; 32];
            k[..STEM_LENGTH].copy_from_slice(&stem);
            k[STEM_LENGTH] = sub;
            k
        };
        for stems in [vec![0xa0, 0xb0], vec![0x80, 0x90, 0xa0, 0xb0]] {
            let writes: Vec<([u8; 32], [u8; 32])> = stems
                .iter()
                .map(|&first| (key(stem(first), 7), [first; 32]))
                .collect();
            let mut memory = Tree::<Sha256>::new();
            memory.apply(writes.iter().map(|(k, v)| (k, *v))).unwrap();
            let map = MapSource::default();
            let mut stored = StoredTree::<Sha256>::new();
            stored
                .apply(&map, writes.iter().map(|(k, v)| (k, *v)))
                .unwrap();
            let changes = stored.changes();
            map.write(&changes);
            for asked in [
                vec![(key(stem(0x00), 0), Write::Set([5; 32]))],
                vec![(key(stem(0xc0), 1), Write::Unchanged)],
                vec![
                    (key(stem(0x00), 0), Write::Unchanged),
                    (key(stem(0xc0), 1), Write::Set([6; 32])),
                ],
            ] {
                // Nothing loaded: the keys' paths and the anchors' descents come from the store.
                let mut reopened = StoredTree::<Sha256>::open(changes.root, changes.len);
                let bytes = reopened.witness(&map, &asked).unwrap();
                assert_eq!(bytes, memory.witness(&asked).unwrap());
                let w = crate::eip7864::witness::Witness::decode::<Sha256>(&bytes).unwrap();
                // One anchor each: with both keys, `00…`'s sibling is `1100…`'s path.
                assert_eq!(w.anchor_count(), 1, "{stems:02x?}");
                let verified = w.verify::<Sha256>(&changes.root).unwrap();
                let mut after = memory.clone();
                for (k, write) in &asked {
                    if let Write::Set(v) = write {
                        after.insert(k, v).unwrap();
                    }
                }
                assert_eq!(verified.post_root, after.root());
            }
        }
    }

    #[test]
    fn a_stored_handle_keeps_nodes_two_words_wide() {
        // The in-memory tree's nodes stay as small as without stored handles.
        assert_eq!(
            core::mem::size_of::<Node>(),
            2 * core::mem::size_of::<usize>()
        );
    }

    #[test]
    fn a_stored_tree_matches_the_memory_tree_across_evictions_and_reopens() {
        let mut rng = Rng::new(7864);
        // Stems sharing long prefixes, so that writes push stems down.
        let stems: Vec<[u8; STEM_LENGTH]> = (0..300)
            .map(|_| {
                let mut s = [0u8; STEM_LENGTH];
                s[0] = rng.below(3) as u8;
                s[1] = rng.below(2) as u8 * 0x80;
                s[30] = rng.next_u64() as u8;
                s
            })
            .collect();
        let map = MapSource::default();
        let mut memory = Tree::<Sha256>::new();
        let mut stored = StoredTree::<Sha256>::new();
        for block in 0..40 {
            // Every fifth batch is large enough for the parallel apply and loads.
            let count = if block % 5 == 0 {
                400
            } else {
                rng.below(40) + 1
            };
            let writes: Vec<([u8; 32], [u8; 32])> = (0..count)
                .map(|_| (key(&mut rng, &stems), rng.bytes()))
                .collect();
            memory.apply(writes.iter().map(|(k, v)| (k, *v))).unwrap();
            stored
                .apply(&map, writes.iter().map(|(k, v)| (k, *v)))
                .unwrap();
            let changes = stored.changes();
            assert_eq!(changes.root, memory.root(), "block {block}");
            assert!(changes.puts.windows(2).all(|pair| pair[0].0 < pair[1].0));
            map.write(&changes);
            // The store holds one record per node of the tree.
            let mut counts = Vec::new();
            count_levels(&memory.root, 0, &mut counts);
            let records = map.records.lock().unwrap().len();
            assert_eq!(records, counts.iter().sum::<usize>(), "block {block}");
            stored.committed();
            assert_eq!(tracked(&stored), walked(&stored), "block {block}");
            let budget = rng.below(20);
            let mut reference = untracked(&stored);
            stored.evict(budget);
            reference.evict(budget);
            assert_eq!(walked(&stored), walked(&reference), "block {block}");
            assert_eq!(tracked(&stored), walked(&stored), "block {block}");
            assert!(stored.loaded_nodes() < 20);
            if rng.below(4) == 0 {
                stored = StoredTree::open(changes.root, changes.len);
            }
            let probe = key(&mut rng, &stems);
            assert_eq!(
                stored.get(&map, &probe).unwrap(),
                memory.get(&probe).copied()
            );
            let asked: Vec<([u8; 32], Write)> = vec![
                (probe, Write::Set([9; 32])),
                (key(&mut rng, &stems), Write::Unchanged),
            ];
            if asked[0].0 != asked[1].0 {
                assert_eq!(
                    stored.witness(&map, &asked).unwrap(),
                    memory.witness(&asked).unwrap()
                );
            }
        }
        assert_eq!(stored.len(), memory.len());
    }

    /// What a corrupt record's error must be.
    type Expect = fn(&RecordError) -> bool;

    /// How a record is corrupted.
    type Edit = fn(&mut Vec<u8>);

    #[test]
    fn an_internal_node_past_the_last_stem_bit_is_an_error() {
        // A store whose hashes agree all the way down a chain of internal nodes on the zero
        // stem's path, one at every depth to one past the last stem bit (247).
        let map = MapSource::default();
        let last = 8 * STEM_LENGTH;
        let mut below = [7u8; 32];
        let mut records = map.records.lock().unwrap();
        for depth in (0..=last).rev() {
            let record = [&[RECORD_VERSION, KIND_INTERNAL][..], &below, &[0u8; 32]].concat();
            records.insert(position(&[0u8; STEM_LENGTH], depth, None, 1), record);
            below = Sha256::hash(&[&below, &[0u8; 32]]);
        }
        drop(records);
        let mut tree = StoredTree::<Sha256>::open(below, 1);
        match tree.get(&map, &[0u8; 32]) {
            Err(StoreError::Corrupt { key, error }) => {
                assert_eq!(key, position(&[0u8; STEM_LENGTH], last, None, 1));
                assert_eq!(error, RecordError::Field { field: "kind" });
            }
            other => panic!("{other:?}"),
        }
        let writes = [([0u8; 32], [1u8; 32])];
        assert!(matches!(
            tree.apply(&map, writes),
            Err(StoreError::Corrupt { .. })
        ));
    }

    #[test]
    fn corrupt_records_are_errors_naming_their_position() {
        let map = MapSource::default();
        let mut stored = StoredTree::<Sha256>::new();
        stored
            .apply(&map, [([0u8; 32], [1; 32]), ([0xff; 32], [2; 32])])
            .unwrap();
        let changes = stored.changes();
        map.write(&changes);
        let root_key = position(&[0u8; 31], 0, None, 1);
        let good = map.records.lock().unwrap()[&root_key].clone();
        let mut wrong_version = good.clone();
        wrong_version[0] = 9;
        let mut wrong_hash = good.clone();
        wrong_hash[5] ^= 1;
        let cases: [(Vec<u8>, Expect); 5] = [
            (good[..40].to_vec(), |e| {
                matches!(e, RecordError::Truncated { .. })
            }),
            (wrong_version, |e| {
                matches!(e, RecordError::Version { got: 9 })
            }),
            (wrong_hash, |e| matches!(e, RecordError::Hash { .. })),
            ([good.clone(), vec![0]].concat(), |e| {
                matches!(e, RecordError::Trailing { .. })
            }),
            (vec![RECORD_VERSION, 7], |e| {
                matches!(e, RecordError::Kind { got: 7 })
            }),
        ];
        for (record, expected) in cases {
            map.records.lock().unwrap().insert(root_key.clone(), record);
            let mut tree = StoredTree::<Sha256>::open(changes.root, changes.len);
            match tree.get(&map, &[0u8; 32]) {
                Err(StoreError::Corrupt { key, error }) => {
                    assert_eq!(key, root_key);
                    assert!(expected(&error), "{error:?}");
                }
                other => panic!("{other:?}"),
            }
        }
        map.records.lock().unwrap().remove(&root_key);
        let mut tree = StoredTree::<Sha256>::open(changes.root, changes.len);
        assert!(matches!(
            tree.get(&map, &[0u8; 32]),
            Err(StoreError::Missing { .. })
        ));
    }

    /// The loaded nodes at each depth, counted by walking the tree.
    fn walked(tree: &StoredTree<Sha256>) -> Vec<usize> {
        let mut counts = Vec::new();
        count_levels(&tree.tree.root, 0, &mut counts);
        counts
    }

    /// The loaded nodes at each depth, as the tree keeps them.
    fn tracked(tree: &StoredTree<Sha256>) -> Vec<usize> {
        let mut levels = tree.levels.clone().unwrap();
        while levels.last() == Some(&0) {
            levels.pop();
        }
        levels
    }

    /// `tree` with nothing known of its counts or of what was evicted: its eviction walks the
    /// whole tree.
    fn untracked(tree: &StoredTree<Sha256>) -> StoredTree<Sha256> {
        let mut reference = tree.clone();
        reference.levels = None;
        reference.cleared = None;
        reference
    }

    #[test]
    fn evictions_along_the_touched_paths_match_walks_of_the_whole_tree() {
        let mut rng = Rng::new(5);
        let (map, keys, stored, _) = stored_keys(&mut rng, 3000);
        let mut tree = StoredTree::<Sha256>::open(stored.root, stored.len);
        let mut walks = 0;
        for round in 0..12 {
            // Updates, new stems, and reads of other paths.
            let mut writes: Vec<([u8; 32], [u8; 32])> = (0..200)
                .map(|_| (keys[rng.below(keys.len())], rng.bytes()))
                .collect();
            writes.extend((0..rng.below(40)).map(|_| (rng.bytes(), rng.bytes())));
            tree.apply(&map, writes.iter().copied()).unwrap();
            let probe = keys[rng.below(keys.len())];
            assert!(tree.get(&map, &probe).unwrap().is_some());
            let changes = tree.changes();
            map.write(&changes);
            tree.committed();
            assert_eq!(tracked(&tree), walked(&tree), "round {round}");
            // Mostly the same budget, now and then a smaller one (a full walk).
            let budget = if round % 4 == 3 { 1000 } else { 2500 };
            let mut reference = untracked(&tree);
            let targeted = tree.cleared.is_some_and(|cleared| {
                let mut kept = 0;
                let keep = tracked(&tree)
                    .iter()
                    .take_while(|&&count| {
                        kept += count;
                        kept <= budget
                    })
                    .count();
                keep >= cleared
            });
            walks += usize::from(targeted);
            tree.evict(budget);
            reference.evict(budget);
            assert_eq!(walked(&tree), walked(&reference), "round {round}");
            assert_eq!(tracked(&tree), walked(&tree), "round {round}");
            assert!(tree.loaded_nodes() <= budget);
        }
        // Evictions that walked only the touched paths were among them.
        assert!(walks >= 3, "{walks}");
    }

    /// A store of `count` random keys, its root and value count, and its tree's levels.
    fn stored_keys(rng: &mut Rng, count: usize) -> (MapSource, Vec<[u8; 32]>, Changes, usize) {
        let map = MapSource::default();
        let keys: Vec<[u8; 32]> = (0..count).map(|_| rng.bytes()).collect();
        let mut built = StoredTree::<Sha256>::new();
        built
            .apply(&map, keys.iter().map(|k| (k, Sha256::hash(&[k]))))
            .unwrap();
        let changes = built.changes();
        map.write(&changes);
        let mut counts = Vec::new();
        count_levels(&built.tree.root, 0, &mut counts);
        (map, keys, changes, counts.len())
    }

    /// Updates of every third key, and new keys beside them.
    fn updates(rng: &mut Rng, keys: &[[u8; 32]]) -> Vec<([u8; 32], [u8; 32])> {
        let mut writes: Vec<([u8; 32], [u8; 32])> =
            keys.iter().step_by(3).map(|k| (*k, rng.bytes())).collect();
        writes.extend((0..100).map(|_| (rng.bytes(), rng.bytes())));
        writes
    }

    #[test]
    fn a_batch_reads_each_level_once_and_matches_reads_one_at_a_time() {
        let mut rng = Rng::new(1);
        let (map, keys, stored, levels) = stored_keys(&mut rng, 3000);
        let writes = updates(&mut rng, &keys);
        let batches = Batches {
            map,
            ..Batches::default()
        };
        let mut batched = StoredTree::<Sha256>::open(stored.root, stored.len);
        batched.apply(&batches, writes.iter().copied()).unwrap();
        let calls = batches.take();
        // At most one read per level, each of one level's distinct positions, levels in order.
        assert!(
            calls.len() <= levels,
            "{} reads, {levels} levels",
            calls.len()
        );
        assert!(calls.iter().any(|call| call.len() > 100));
        let mut last_depth = None;
        for call in &calls {
            let depth = call[0][0];
            assert!(call.iter().all(|key| key[0] == depth));
            assert!(call.windows(2).all(|pair| pair[0] < pair[1]));
            assert!(last_depth < Some(depth));
            last_depth = Some(depth);
        }
        // The source's default reads one record at a time.
        let mut single = StoredTree::<Sha256>::open(stored.root, stored.len);
        single.apply(&batches.map, writes.iter().copied()).unwrap();
        let mut memory = Tree::<Sha256>::new();
        memory
            .apply(keys.iter().map(|k| (k, Sha256::hash(&[k]))))
            .unwrap();
        memory.apply(writes.iter().copied()).unwrap();
        let changes = batched.changes();
        assert_eq!(changes, single.changes());
        assert_eq!(changes.root, memory.root());
        assert_eq!(batched.hash_count(), single.hash_count());
        assert_eq!(batched.loaded_nodes(), single.loaded_nodes());
    }

    #[test]
    fn a_corrupt_record_amid_a_batch_or_a_wrong_answer_count_is_an_error() {
        let mut rng = Rng::new(2);
        let (map, keys, stored, _) = stored_keys(&mut rng, 500);
        let writes = updates(&mut rng, &keys);
        let records = map.records.lock().unwrap().clone();
        let source = |skew| Batches::over(&records, skew);
        for skew in [1, -1] {
            let mut tree = StoredTree::<Sha256>::open(stored.root, stored.len);
            match tree.apply(&source(skew), writes.iter().copied()) {
                Err(StoreError::Answers { asked, got, .. }) => {
                    assert_eq!(got, asked.saturating_add_signed(-skew))
                }
                other => panic!("{other:?}"),
            }
        }
        let batches = source(0);
        StoredTree::<Sha256>::open(stored.root, stored.len)
            .apply(&batches, writes.iter().copied())
            .unwrap();
        let widest = batches
            .take()
            .into_iter()
            .max_by_key(Vec::len)
            .unwrap_or_default();
        assert!(widest.len() > 2);
        let middle = widest[widest.len() / 2].clone();
        let cases: [(Edit, Expect); 3] = [
            (|r| r[10] ^= 1, |e| matches!(e, RecordError::Hash { .. })),
            (
                |r| r.truncate(3),
                |e| matches!(e, RecordError::Truncated { .. }),
            ),
            (|r| r[1] = 9, |e| matches!(e, RecordError::Kind { got: 9 })),
        ];
        for (edit, expected) in cases {
            let mut record = records[&middle].clone();
            edit(&mut record);
            batches
                .map
                .records
                .lock()
                .unwrap()
                .insert(middle.clone(), record);
            let mut tree = StoredTree::<Sha256>::open(stored.root, stored.len);
            match tree.apply(&batches, writes.iter().copied()) {
                Err(StoreError::Corrupt { key, error }) => {
                    assert_eq!(key, middle);
                    assert!(expected(&error), "{error:?}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
