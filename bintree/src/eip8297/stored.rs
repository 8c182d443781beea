//! The EIP-8297 tree over a store of node records ([`crate::store`]): subtrees loaded on
//! demand, the records a commit writes and removes, and eviction of committed subtrees.
//!
//! A node's position is the bits that lead to it: a branch's or leaf's prefix starts one past
//! its parent's split bit, so its position is the parent's path up to and including that bit
//! (the root's is empty). Records (after the version byte
//! [`crate::store::RECORD_VERSION`]), under `u32be(bit count) ‖ bits`:
//! - leaf: `0x00 ‖ u16be(key length) ‖ key ‖ value`;
//! - branch: `0x01 ‖ u16be(split) ‖ path bits ..=split (split / 8 + 1 bytes) ‖ left hash ‖
//!   right hash`.
//!
//! A deletion that collapses a branch moves the surviving child up to the branch's position:
//! the commit writes it there and removes its old record.

use alloc::collections::BTreeMap;

use super::tree::{Branch, Leaf, Node, Tree, BRANCH_TAG, LEAF_TAG, MAX_KEY_LENGTH};
use crate::bits::{bit, encode_bit_prefix, first_difference};
use crate::prelude::*;
use crate::store::{
    self, add_at, cleared_from, corrupt, kept_depths, position, position_into, same_bits, Changes,
    NodeSource, Reader, RecordError, StoreError, RECORD_VERSION,
};
use crate::witness::Write;
use crate::{Error, TreeHash};

/// Kind byte of a leaf's record.
const KIND_LEAF: u8 = 0;
/// Kind byte of a branch's record.
const KIND_BRANCH: u8 = 1;
/// Bytes of a position's bit count.
const WIDTH: usize = 4;

/// An EIP-8297 tree whose nodes live in a store: what is not loaded is a hash, read through
/// a [`NodeSource`] when an operation reaches it. Roots, values and witnesses are those of
/// the in-memory [`Tree`] holding the same keys.
///
/// ```
/// use bintree::store::NoSource;
/// use bintree::{eip8297, Blake3};
///
/// let mut tree = eip8297::StoredTree::<Blake3>::new();
/// tree.apply(&NoSource, [(vec![1u8, 2], Some([2u8; 32])), (vec![1, 3], Some([3; 32]))])?;
/// let changes = tree.changes();
/// assert_eq!(changes.puts.len(), 3);
/// tree.committed();
/// # Ok::<(), bintree::store::StoreError<core::convert::Infallible>>(())
/// ```
#[derive(Clone, Debug)]
pub struct StoredTree<H: TreeHash> {
    tree: Tree<H>,
    /// Keys written since the last commit (a key as often as written).
    written: Packed,
    /// Positions of the nodes on and beside the paths of the writes that added or removed a
    /// key since the last commit (of batches with a removal), before those writes: where a
    /// record may have to be removed.
    vacated: Packed,
    /// Loaded nodes at each depth (branches above them), kept up to date as nodes load,
    /// writes change the tree's shape and evictions drop subtrees; `None`: not known, counted
    /// by the next eviction.
    levels: Option<Vec<usize>>,
    /// The depth from which the last eviction left no loaded node, while the keys whose paths
    /// were loaded or written since are in `touched`: every node loaded at that depth or
    /// below is on one of their paths or a child of a branch one of them goes on past.
    /// `None`: anywhere.
    cleared: Option<usize>,
    /// Keys whose paths were loaded or written since the last eviction (when `cleared`), and
    /// keys naming the nodes a split moved down to `cleared` or below.
    touched: Packed,
}

/// Bytes of the keys remembered between two evictions beyond which the next eviction walks
/// the whole tree instead of their paths.
const TOUCHED_MAX_BYTES: usize = 1 << 25;

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

    /// The stored tree of `len` keys whose root is `root` (32 zero bytes: empty); nothing is
    /// loaded until an operation needs it.
    pub fn open(root: [u8; 32], len: u64) -> Self {
        let root = if root == [0u8; 32] {
            Node::Empty
        } else {
            Node::Stored(Box::new(root))
        };
        StoredTree {
            tree: Tree::from_parts(root, usize::try_from(len).unwrap_or(usize::MAX)),
            written: Packed::default(),
            vacated: Packed::default(),
            levels: Some(Vec::new()),
            cleared: None,
            touched: Packed::default(),
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether the tree holds no key.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Hashes computed for the tree's roots so far (as [`Tree::hash_count`]; the hashes that
    /// check loaded records are not counted).
    pub fn hash_count(&self) -> u64 {
        self.tree.hash_count()
    }

    /// The value at `key`, loading its path.
    pub fn get<S: NodeSource>(
        &mut self,
        source: &S,
        key: &[u8],
    ) -> Result<Option<[u8; 32]>, StoreError<S::Error>> {
        check_key(key)?;
        self.load_paths(source, vec![(key, false)])?;
        Ok(self.tree.get(key).copied())
    }

    /// Applies a batch of writes as [`Tree::apply`] does (`None` removes), loading their
    /// paths first, and for removals the nodes beside them that a collapse may lift.
    pub fn apply<S, K, I>(&mut self, source: &S, writes: I) -> Result<(), StoreError<S::Error>>
    where
        S: NodeSource,
        K: AsRef<[u8]>,
        I: IntoIterator<Item = (K, Option<[u8; 32]>)>,
    {
        let writes: Vec<(K, Option<[u8; 32]>)> = writes.into_iter().collect();
        for (key, _) in &writes {
            check_key(key.as_ref())?;
        }
        let keys = writes
            .iter()
            .map(|(key, value)| (key.as_ref(), value.is_none()))
            .collect();
        let mut present = self.load_paths(source, keys)?;
        present.sort_unstable();
        for (key, _) in &writes {
            self.written.push(key.as_ref());
        }
        // The last write of each key, in key order, as the tree applies them.
        let mut ops: Vec<(&[u8], bool)> = writes
            .iter()
            .map(|(key, value)| (key.as_ref(), value.is_some()))
            .collect();
        ops.sort_by(|a, b| a.0.cmp(b.0));
        ops.reverse();
        ops.dedup_by_key(|(key, _)| *key);
        ops.reverse();
        // The keys the writes add or remove.
        let mut removal = false;
        let shaping: Vec<&[u8]> = ops
            .iter()
            .filter(|(key, sets)| *sets != present.binary_search(key).is_ok())
            .map(|&(key, sets)| {
                removal |= !sets;
                key
            })
            .collect();
        // Only the paths of the keys added or removed change shape: the counts move by what
        // is on them and hangs off them after the writes less before, and a removal empties
        // positions only there.
        let tracked = self.levels.is_some() || self.cleared.is_some();
        let before = (!shaping.is_empty() && (tracked || removal)).then(|| {
            let positions = removal.then_some(&mut self.vacated);
            region(&self.tree.root, &shaping, positions)
        });
        let applied = self
            .tree
            .apply(writes.iter().map(|(key, value)| (key.as_ref(), *value)));
        if applied.is_err() {
            // Part of the batch may be applied.
            self.levels = None;
            self.cleared = None;
        } else if let Some(before) = before.filter(|_| tracked) {
            self.reshape(&shaping, before);
        }
        applied?;
        Ok(())
    }

    /// Brings the counts by depth up to date after writes that added or removed `keys`
    /// (sorted, distinct), given their [`Region`] before the writes; and, for the next
    /// eviction, names the loaded nodes a split moved down across the depth the last one
    /// cleared. A subtree hanging off the paths at the same address and depth before and after
    /// is the same subtree; any other is counted whole, before (at the depths its root had
    /// then) and after.
    fn reshape(&mut self, keys: &[&[u8]], before: Region) {
        let mut hanging = before.hanging;
        hanging.sort_unstable();
        let depth_before = |node: &Node| {
            let at = address(node);
            hanging
                .binary_search_by_key(&at, |&(address, _)| address)
                .ok()
                .and_then(|i| hanging.get(i))
                .map(|&(_, depth)| depth)
        };
        let (mut gained, mut lost) = (Vec::new(), before.path);
        let cleared = self.cleared;
        let mut named = Packed::default();
        /// A node of the walk: on the paths (with where its prefix starts and the keys
        /// reaching it), or in a subtree hanging off them (with its depth before the writes,
        /// if known).
        enum Step<'n, 'k> {
            Path(&'n Node, usize, usize, &'k [&'k [u8]]),
            Off(&'n Node, usize, Option<usize>),
        }
        let mut stack = vec![Step::Path(&self.tree.root, 0, 0, keys)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Path(node, depth, start, keys) => {
                    if !loaded(node) {
                        continue;
                    }
                    add_at(&mut gained, depth, 1);
                    let was = depth_before(node);
                    if let Some(was) = was {
                        add_at(&mut lost, was, 1);
                    }
                    let Node::Branch(branch) = node else {
                        continue;
                    };
                    let (lo, mid, hi) = passing(branch, start, keys, |key| key);
                    for (child, part) in [(&branch.right, mid..hi), (&branch.left, lo..mid)] {
                        let part = keys.get(part).unwrap_or_default();
                        let was = was.map(|was| was + 1);
                        if !part.is_empty() {
                            stack.push(Step::Path(child, depth + 1, branch.split + 1, part));
                        } else if loaded(child)
                            && (was.is_some() || depth_before(child) != Some(depth + 1))
                        {
                            stack.push(Step::Off(child, depth + 1, was));
                        }
                    }
                }
                Step::Off(node, depth, was) => {
                    if !loaded(node) {
                        continue;
                    }
                    add_at(&mut gained, depth, 1);
                    let was = was.or_else(|| depth_before(node));
                    if let Some(was) = was {
                        add_at(&mut lost, was, 1);
                    }
                    // Below `cleared` every node is on or beside a touched path; one that
                    // was above it may not be.
                    if cleared.is_some_and(|cleared| {
                        depth >= cleared && was.is_none_or(|was| was < cleared)
                    }) {
                        named.push(name(node));
                    }
                    if let Node::Branch(branch) = node {
                        let was = was.map(|was| was + 1);
                        stack.push(Step::Off(&branch.right, depth + 1, was));
                        stack.push(Step::Off(&branch.left, depth + 1, was));
                    }
                }
            }
        }
        if let Some(levels) = &mut self.levels {
            let depths = levels.len().max(gained.len()).max(lost.len());
            levels.resize(depths, 0);
            for (depth, level) in levels.iter_mut().enumerate() {
                let gained = gained.get(depth).copied().unwrap_or(0);
                let lost = lost.get(depth).copied().unwrap_or(0);
                *level = (*level + gained).saturating_sub(lost);
            }
            while levels.last() == Some(&0) {
                levels.pop();
            }
        }
        if !named.ends.is_empty() {
            self.touch(named.strings());
        }
    }

    /// Notes `keys` for the next eviction while it can walk their paths (the last one
    /// cleared a depth and the keys noted fit [`TOUCHED_MAX_BYTES`]).
    fn touch<'k>(&mut self, keys: impl Iterator<Item = &'k [u8]> + Clone) {
        if self.cleared.is_none() {
            return;
        }
        let bytes: usize = keys.clone().map(<[u8]>::len).sum();
        if self.touched.bytes.len().saturating_add(bytes) > TOUCHED_MAX_BYTES {
            self.cleared = None;
            self.touched = Packed::default();
            return;
        }
        for key in keys {
            self.touched.push(key);
        }
    }

    /// The root; rehashes the nodes written since the last call, each once.
    pub fn root(&mut self) -> [u8; 32] {
        self.tree.root()
    }

    /// The witness of `writes` as [`Tree::witness`] gives it, loading the keys' paths (and
    /// beside the paths of deletions) first.
    pub fn witness<S: NodeSource, K: AsRef<[u8]>>(
        &mut self,
        source: &S,
        writes: &[(K, Write)],
    ) -> Result<Vec<u8>, StoreError<S::Error>> {
        // Keys of a wrong length are left to the witness's own error.
        let keys = writes
            .iter()
            .filter(|(key, _)| check_key(key.as_ref()).is_ok())
            .map(|(key, write)| (key.as_ref(), *write == Write::Delete))
            .collect();
        self.load_paths(source, keys)?;
        Ok(self.tree.witness(writes)?)
    }

    /// The records the writes since the last [`StoredTree::committed`] change: every node on
    /// a written path and beside it (nodes moved by a split or a collapse are there), and the
    /// positions left empty. Computes the root first.
    pub fn changes(&mut self) -> Changes {
        let (mut puts, mut deletes) = (Vec::new(), Vec::new());
        let (root, len) = self.changes_with(
            |key, record| puts.push((key.to_vec(), record.to_vec())),
            |key| deletes.push(key.to_vec()),
        );
        Changes {
            puts,
            deletes,
            root,
            len,
        }
    }

    /// The puts and deletes of [`StoredTree::changes`] in key order, without a buffer per
    /// record: each changed record to `put` as (position, record), each position left empty
    /// to `delete`. Returns the root and the number of keys.
    pub fn changes_with(
        &mut self,
        mut put: impl FnMut(&[u8], &[u8]),
        mut delete: impl FnMut(&[u8]),
    ) -> ([u8; 32], u64) {
        let root = self.tree.root();
        let keys = self.written.sorted();
        let mut levels = BTreeMap::new();
        collect(&self.tree.root, &keys, &mut levels);
        let mut vacated = self.vacated.sorted().into_iter().peekable();
        for (bits, level) in &levels {
            let width = WIDTH + bits.div_ceil(8);
            let mut start = 0;
            for (key, &end) in level.keys.chunks_exact(width).zip(&level.ends) {
                while let Some(gone) = vacated.next_if(|gone| *gone <= key) {
                    if gone != key {
                        delete(gone);
                    }
                }
                put(key, level.records.get(start..end).unwrap_or_default());
                start = end;
            }
        }
        vacated.for_each(delete);
        (root, self.tree.len() as u64)
    }

    /// Marks the last [`StoredTree::changes`] as written to the store: the next changes start
    /// from here, and the nodes may be evicted.
    pub fn committed(&mut self) {
        self.written.clear();
        self.vacated.clear();
    }

    /// Nodes in memory (branches and leaves; stored handles not counted).
    pub fn loaded_nodes(&self) -> usize {
        match &self.levels {
            Some(levels) => levels.iter().sum(),
            None => levels(&self.tree.root).iter().sum(),
        }
    }

    /// Keeps at most `budget` nodes in memory: the top levels of the tree that fit whole,
    /// every node below them becoming a stored handle. Does nothing while writes are not
    /// committed ([`StoredTree::committed`]) or when the tree is within budget. When it
    /// clears from the depth the last eviction cleared or deeper, it walks only the paths
    /// touched since; else the whole tree.
    pub fn evict(&mut self, budget: usize) {
        if !self.written.ends.is_empty() {
            return;
        }
        let counts = self.levels.get_or_insert_with(|| levels(&self.tree.root));
        if counts.iter().sum::<usize>() <= budget {
            return;
        }
        let keep = kept_depths(counts, budget);
        if self.cleared.is_some_and(|cleared| keep >= cleared) {
            evict_paths(&mut self.tree.root, &self.touched.sorted(), keep, counts);
        }
        if counts.iter().skip(keep).any(|&count| count > 0) {
            evict_below(&mut self.tree.root, 0, keep, counts);
        }
        // Unhashed nodes stay loaded: then nothing is known cleared.
        self.cleared = cleared_from(counts, keep);
        self.touched.clear();
    }

    /// [`StoredTree::load_levels`], noting the keys for the next eviction first; the counts by
    /// depth are not known after a failure (a level may have loaded part way).
    fn load_paths<'k, S: NodeSource>(
        &mut self,
        source: &S,
        keys: Vec<(&'k [u8], bool)>,
    ) -> Result<Vec<&'k [u8]>, StoreError<S::Error>> {
        self.touch(keys.iter().map(|(key, _)| *key));
        let loaded = self.load_levels(source, keys);
        if loaded.is_err() {
            self.levels = None;
        }
        loaded
    }

    /// Loads the stored nodes on the paths of `keys` (each with whether it is a removal), and
    /// for a removal the node beside each branch its path passes, adding them to the counts
    /// by depth; returns the keys present (in no order). Level by level (a level: the nodes below as many branches, a depth), one
    /// [`NodeSource::load_many`] for all the stored nodes a level reaches.
    fn load_levels<'k, S: NodeSource>(
        &mut self,
        source: &S,
        mut keys: Vec<(&'k [u8], bool)>,
    ) -> Result<Vec<&'k [u8]>, StoreError<S::Error>> {
        keys.sort_unstable();
        // One entry per key, a removal if any of its writes is one (sorted: `true` last).
        keys.reverse();
        keys.dedup_by_key(|(key, _)| *key);
        keys.reverse();
        let mut level = vec![Visit {
            node: &mut self.tree.root,
            start: 0,
            name: keys.first().map_or(&[][..], |(key, _)| *key),
            flip: None,
            keys: 0..keys.len(),
        }];
        let mut present = Vec::new();
        if keys.is_empty() {
            return Ok(present);
        }
        let mut depth = 0;
        while !level.is_empty() {
            let loaded = load_level::<H, S>(&mut level, source)?;
            if let Some(levels) = self.levels.as_mut().filter(|_| loaded > 0) {
                add_at(levels, depth, loaded);
            }
            depth += 1;
            let mut next = Vec::with_capacity(2 * level.len());
            let mut next_keys = Vec::with_capacity(keys.len());
            for visit in level {
                if let Node::Leaf(leaf) = &*visit.node {
                    let group = keys.get(visit.keys.clone()).unwrap_or_default();
                    let own = group.iter().find(|(key, _)| **key == *leaf.key);
                    present.extend(own.map(|(key, _)| *key));
                    continue;
                }
                let Node::Branch(branch) = visit.node else {
                    continue;
                };
                let branch: &mut Branch = branch;
                let split = branch.split;
                let passing = |key: &&[u8]| {
                    let limit = core::cmp::min(split, 8 * key.len());
                    8 * key.len() > split
                        && first_difference(&branch.path, key, visit.start, limit) >= limit
                };
                let group = keys.get(visit.keys).unwrap_or_default();
                let left_from = next_keys.len();
                next_keys.extend(
                    group
                        .iter()
                        .filter(|(key, _)| passing(key) && bit(key, split) == 0),
                );
                let right_from = next_keys.len();
                next_keys.extend(
                    group
                        .iter()
                        .filter(|(key, _)| passing(key) && bit(key, split) == 1),
                );
                let end = next_keys.len();
                // A removal's path loads the node beside it, named by the removal's key with
                // the split bit inverted.
                let removal = |range: core::ops::Range<usize>| {
                    next_keys
                        .get(range)
                        .unwrap_or_default()
                        .iter()
                        .find(|(_, removal)| *removal)
                        .map(|(key, _)| *key)
                };
                let children = [
                    (&mut branch.left, left_from..right_from, right_from..end),
                    (&mut branch.right, right_from..end, left_from..right_from),
                ];
                for (node, own, other) in children {
                    if let Some(&(name, _)) = next_keys.get(own.start).filter(|_| !own.is_empty()) {
                        next.push(Visit {
                            node,
                            start: split + 1,
                            name,
                            flip: None,
                            keys: own,
                        });
                    } else if let Some(name) = removal(other) {
                        next.push(Visit {
                            node,
                            start: split + 1,
                            name,
                            flip: Some(split),
                            keys: 0..0,
                        });
                    }
                }
            }
            keys = next_keys;
            level = next;
        }
        Ok(present)
    }
}

/// A node a batch's paths reach: the node, where its prefix starts, the key naming its
/// position (with the bit `flip` inverted, for the node beside a removal's path) and the
/// range of the level's keys whose paths pass it.
struct Visit<'n, 'k> {
    node: &'n mut Node,
    start: usize,
    name: &'k [u8],
    flip: Option<usize>,
    keys: core::ops::Range<usize>,
}

/// Replaces the stored handles among the nodes of `level` by the nodes their records hold,
/// read with one [`NodeSource::load_many`] and each checked against its handle's hash.
/// Returns the number of nodes loaded.
fn load_level<H: TreeHash, S: NodeSource>(
    level: &mut [Visit<'_, '_>],
    source: &S,
) -> Result<usize, StoreError<S::Error>> {
    let stored: Vec<&mut Visit<'_, '_>> = level
        .iter_mut()
        .filter(|visit| matches!(visit.node, Node::Stored(_)))
        .collect();
    let keys: Vec<Vec<u8>> = stored
        .iter()
        .map(|visit| position(visit.name, visit.start, visit.flip, WIDTH))
        .collect();
    let records = store::load_many(source, &keys)?;
    for ((visit, record), key) in stored.into_iter().zip(records).zip(&keys) {
        let expected = cached(visit.node);
        let bits = key.get(WIDTH..).unwrap_or_default();
        *visit.node = decode::<H>(&record, bits, visit.start, expected)
            .map_err(|error| corrupt(key, error))?;
    }
    Ok(keys.len())
}

/// Checks a key's length (1 to [`MAX_KEY_LENGTH`] bytes).
fn check_key(key: &[u8]) -> Result<(), Error> {
    if key.is_empty() || key.len() > MAX_KEY_LENGTH {
        return Err(Error::KeyLength {
            len: key.len(),
            max: MAX_KEY_LENGTH,
        });
    }
    Ok(())
}

/// A node's hash, as cached after [`Tree::root`].
fn cached(node: &Node) -> [u8; 32] {
    match node {
        Node::Empty => [0u8; 32],
        Node::Leaf(leaf) => leaf.hash.unwrap_or_default(),
        Node::Branch(branch) => branch.hash.unwrap_or_default(),
        Node::Stored(hash) => **hash,
    }
}

/// Decodes the record of the node at the position of the first `start` bits of `bits`, and
/// checks its hash.
fn decode<H: TreeHash>(
    record: &[u8],
    bits: &[u8],
    start: usize,
    expected: [u8; 32],
) -> Result<Node, RecordError> {
    let (mut r, kind) = Reader::open(record)?;
    let u16_at = |b: &[u8]| usize::from(u16::from_be_bytes([b[0], b[1]]));
    let (node, got) = match kind {
        KIND_LEAF => {
            let len = u16_at(r.take(2)?);
            let key = r.take(len)?;
            let value = r.hash()?;
            r.end()?;
            if key.is_empty()
                || key.len() > MAX_KEY_LENGTH
                || 8 * key.len() < start
                || !same_bits(key, bits, start)
            {
                return Err(RecordError::Field { field: "key" });
            }
            let got = H::hash(&[&[LEAF_TAG], key, &value]);
            let leaf = Leaf {
                key: key.into(),
                value,
                hash: Some(got),
            };
            (Node::Leaf(Box::new(leaf)), got)
        }
        KIND_BRANCH => {
            let split = u16_at(r.take(2)?);
            let path = r.take(split / 8 + 1)?;
            let left = r.hash()?;
            let right = r.hash()?;
            r.end()?;
            if split < start || !same_bits(path, bits, start) {
                return Err(RecordError::Field { field: "path" });
            }
            if left == [0u8; 32] || right == [0u8; 32] {
                return Err(RecordError::Field { field: "child" });
            }
            let mut prefix = Vec::with_capacity(2 + (split - start).div_ceil(8));
            encode_bit_prefix(path, start, split, &mut prefix);
            let got = H::hash(&[&[BRANCH_TAG], &prefix, &left, &right]);
            let branch = Branch {
                path: path.into(),
                split,
                left: Node::Stored(Box::new(left)),
                right: Node::Stored(Box::new(right)),
                hash: Some(got),
            };
            (Node::Branch(Box::new(branch)), got)
        }
        got => return Err(RecordError::Kind { got }),
    };
    if got != expected {
        return Err(RecordError::Hash { got, expected });
    }
    Ok(node)
}

/// Appends the record of `node` (leaf or branch, hashed; nothing for others) to `out`.
fn encode_into(node: &Node, out: &mut Vec<u8>) {
    match node {
        Node::Leaf(leaf) => {
            out.reserve(4 + leaf.key.len() + 32);
            out.extend_from_slice(&[RECORD_VERSION, KIND_LEAF]);
            out.extend_from_slice(&(leaf.key.len() as u16).to_be_bytes());
            out.extend_from_slice(&leaf.key);
            out.extend_from_slice(&leaf.value);
        }
        Node::Branch(branch) => {
            let bytes = branch.split / 8 + 1;
            out.reserve(4 + bytes + 64);
            out.extend_from_slice(&[RECORD_VERSION, KIND_BRANCH]);
            out.extend_from_slice(&(branch.split as u16).to_be_bytes());
            out.extend_from_slice(branch.path.get(..bytes).unwrap_or_default());
            out.extend_from_slice(&cached(&branch.left));
            out.extend_from_slice(&cached(&branch.right));
        }
        Node::Empty | Node::Stored(_) => {}
    }
}

/// Whether `node` is in memory (a leaf or a branch).
fn loaded(node: &Node) -> bool {
    matches!(node, Node::Leaf(_) | Node::Branch(_))
}

/// Of `items` (sorted by key, sharing bits `..start`), those whose keys pass `branch` (follow
/// its prefix and hold its split bit): `lo..mid` go left, `mid..hi` right. Keys sharing a
/// prefix are contiguous in key order, and a key too short for it sorts before the others.
fn passing<T>(
    branch: &Branch,
    start: usize,
    items: &[T],
    key: impl Fn(&T) -> &[u8],
) -> (usize, usize, usize) {
    let split = branch.split;
    let passes = |item: &T| {
        let key = key(item);
        8 * key.len() > split && first_difference(&branch.path, key, start, split) >= split
    };
    let lo = items.iter().position(passes).unwrap_or(items.len());
    let hi = items.iter().rposition(passes).map_or(lo, |i| i + 1);
    let mid = lo
        + items
            .get(lo..hi)
            .unwrap_or_default()
            .partition_point(|item| bit(key(item), split) == 0);
    (lo, mid, hi)
}

/// The loaded nodes the paths of sorted, distinct `keys` reach below `root` (where a path
/// leaves a branch's prefix, the branch is reached and its children are not): how many at each
/// depth, and the loaded subtrees hanging off them (the children of reached branches that no
/// path goes on into) as (address, depth).
#[derive(Debug, Default)]
struct Region {
    path: Vec<usize>,
    hanging: Vec<(usize, usize)>,
}

/// A node paths reach: the node, its depth, where its prefix starts, the keys reaching it,
/// and its position as a path with a bit to invert.
type Reached<'n, 'k> = (
    &'n Node,
    usize,
    usize,
    &'k [&'k [u8]],
    &'n [u8],
    Option<usize>,
);

/// The [`Region`] of `keys` below `root`; with `positions`, notes the positions of the nodes
/// reached and of the children of the branches a path goes on past.
fn region(root: &Node, keys: &[&[u8]], mut positions: Option<&mut Packed>) -> Region {
    let mut out = Region::default();
    let mut stack: Vec<Reached<'_, '_>> = vec![(root, 0, 0, keys, &[], None)];
    while let Some((node, depth, start, keys, name, flip)) = stack.pop() {
        if !loaded(node) {
            continue;
        }
        add_at(&mut out.path, depth, 1);
        if let Some(positions) = positions.as_deref_mut() {
            positions.push_position(name, start, flip);
        }
        let Node::Branch(branch) = node else {
            continue;
        };
        let (lo, mid, hi) = passing(branch, start, keys, |key| key);
        let split = branch.split;
        let side = bit(&branch.path, split);
        for (child, b, part) in [(&branch.right, 1, mid..hi), (&branch.left, 0, lo..mid)] {
            let flip = (b != side).then_some(split);
            let part = keys.get(part).unwrap_or_default();
            if !part.is_empty() {
                stack.push((child, depth + 1, split + 1, part, &branch.path, flip));
            } else if loaded(child) {
                out.hanging.push((address(child), depth + 1));
                if let Some(positions) = positions.as_deref_mut().filter(|_| lo < hi) {
                    positions.push_position(&branch.path, split + 1, flip);
                }
            }
        }
    }
    out
}

/// The address of a loaded node's box (0 for others): a node keeps it wherever a write moves
/// it.
fn address(node: &Node) -> usize {
    match node {
        Node::Leaf(leaf) => &**leaf as *const Leaf as usize,
        Node::Branch(branch) => &**branch as *const Branch as usize,
        Node::Empty | Node::Stored(_) => 0,
    }
}

/// Byte strings end to end, with where each ends: many short strings in two allocations.
#[derive(Clone, Debug, Default)]
struct Packed {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Packed {
    /// Appends `string`.
    fn push(&mut self, string: &[u8]) {
        self.bytes.extend_from_slice(string);
        self.ends.push(self.bytes.len());
    }

    /// The strings, in the order pushed.
    fn strings(&self) -> impl Iterator<Item = &[u8]> + Clone {
        let starts = core::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| self.bytes.get(start..end).unwrap_or_default())
    }

    /// Appends [`position`]`(path, bits, flip, WIDTH)`.
    fn push_position(&mut self, path: &[u8], bits: usize, flip: Option<usize>) {
        position_into(path, bits, flip, WIDTH, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    /// Empties the list, keeping its allocations.
    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// The strings, sorted and distinct.
    fn sorted(&self) -> Vec<&[u8]> {
        let mut out: Vec<&[u8]> = self.strings().collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The records of the nodes at one position length, in key order: the positions end to end
/// (all of one length), the records end to end, and where each record ends.
#[derive(Default)]
struct Level {
    keys: Vec<u8>,
    records: Vec<u8>,
    ends: Vec<usize>,
}

impl Level {
    /// Appends the record of `node` at [`position`]`(path, bits, flip, WIDTH)`.
    fn push(&mut self, path: &[u8], bits: usize, flip: Option<usize>, node: &Node) {
        position_into(path, bits, flip, WIDTH, &mut self.keys);
        encode_into(node, &mut self.records);
        self.ends.push(self.records.len());
    }
}

/// Adds to `levels` (by position length in bits) the records of the loaded nodes the paths
/// of sorted, distinct `keys` reach below `root`, and of the loaded children of the branches
/// they reach. Each node's record is added once (a child's by its parent), parents before
/// children and left before right, so each length's records come in key order.
fn collect(root: &Node, keys: &[&[u8]], levels: &mut BTreeMap<usize, Level>) {
    if keys.is_empty() || !loaded(root) {
        return;
    }
    levels.entry(0).or_default().push(&[], 0, None, root);
    let mut stack = vec![(root, 0usize, keys)];
    while let Some((node, start, keys)) = stack.pop() {
        let Node::Branch(branch) = node else {
            continue;
        };
        let split = branch.split;
        let side = bit(&branch.path, split);
        let level = levels.entry(split + 1).or_default();
        for (child, b) in [(&branch.left, 0), (&branch.right, 1)] {
            if loaded(child) {
                level.push(&branch.path, split + 1, (b != side).then_some(split), child);
            }
        }
        let (lo, mid, hi) = passing(branch, start, keys, |key| key);
        for (child, part) in [(&branch.right, mid..hi), (&branch.left, lo..mid)] {
            let part = keys.get(part).unwrap_or_default();
            if !part.is_empty() {
                stack.push((child, split + 1, part));
            }
        }
    }
}

/// A key whose path reaches `node` (loaded): a leaf's key, a branch's path.
fn name(node: &Node) -> &[u8] {
    match node {
        Node::Leaf(leaf) => &leaf.key,
        Node::Branch(branch) => &branch.path,
        Node::Empty | Node::Stored(_) => &[],
    }
}

/// Replaces every hashed node at depth `keep` or below in the subtree `node` (at `depth`) by
/// its stored handle, taking the nodes dropped off `counts`.
fn evict_below(node: &mut Node, depth: usize, keep: usize, counts: &mut [usize]) {
    let mut stack = vec![(node, depth)];
    while let Some((node, depth)) = stack.pop() {
        if depth >= keep {
            let hash = match node {
                Node::Leaf(leaf) => leaf.hash,
                Node::Branch(branch) => branch.hash,
                Node::Empty | Node::Stored(_) => None,
            };
            if let Some(hash) = hash {
                uncount(node, depth, counts);
                *node = Node::Stored(Box::new(hash));
                continue;
            }
        }
        if let Node::Branch(branch) = node {
            let branch: &mut Branch = branch;
            stack.push((&mut branch.left, depth + 1));
            stack.push((&mut branch.right, depth + 1));
        }
    }
}

/// [`evict_below`] on the paths of sorted, distinct `keys` below `root`, and on the children
/// of the branches they go on past from depth `keep`.
fn evict_paths(root: &mut Node, keys: &[&[u8]], keep: usize, counts: &mut [usize]) {
    let mut stack = vec![(root, 0usize, 0usize, keys)];
    while let Some((node, depth, start, keys)) = stack.pop() {
        if depth >= keep {
            evict_below(node, depth, keep, counts);
            continue;
        }
        let Node::Branch(branch) = node else {
            continue;
        };
        let (lo, mid, hi) = passing(branch, start, keys, |key| key);
        let branch: &mut Branch = branch;
        let next = branch.split + 1;
        for (child, part) in [(&mut branch.left, lo..mid), (&mut branch.right, mid..hi)] {
            let part = keys.get(part).unwrap_or_default();
            if !part.is_empty() {
                stack.push((child, depth + 1, next, part));
            } else if depth + 1 >= keep {
                evict_below(child, depth + 1, keep, counts);
            }
        }
    }
}

/// Takes the loaded nodes of the subtree `node` (at `depth`) off `counts`.
fn uncount(node: &Node, depth: usize, counts: &mut [usize]) {
    let mut stack = vec![(node, depth)];
    while let Some((node, depth)) = stack.pop() {
        if !loaded(node) {
            continue;
        }
        if let Some(count) = counts.get_mut(depth) {
            *count = count.saturating_sub(1);
        }
        if let Node::Branch(branch) = node {
            stack.push((&branch.left, depth + 1));
            stack.push((&branch.right, depth + 1));
        }
    }
}

/// The loaded nodes at each branch depth of the tree below `root`.
fn levels(root: &Node) -> Vec<usize> {
    let mut counts = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if matches!(node, Node::Empty | Node::Stored(_)) {
            continue;
        }
        if counts.len() <= depth {
            counts.resize(depth + 1, 0);
        }
        counts[depth] += 1;
        if let Node::Branch(branch) = node {
            stack.push((&branch.left, depth + 1));
            stack.push((&branch.right, depth + 1));
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::rng::Rng;
    use crate::store::{Batches, MapSource};
    use crate::Blake3;

    /// Keys of 3 bytes sharing prefixes, so that writes split and deletes collapse.
    fn key(rng: &mut Rng) -> Vec<u8> {
        vec![
            rng.below(3) as u8,
            rng.below(2) as u8 * 0x41,
            rng.below(40) as u8,
        ]
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
    fn a_stored_tree_matches_the_memory_tree_across_deletes_evictions_and_reopens() {
        let mut rng = Rng::new(8297);
        let map = MapSource::default();
        let mut memory = Tree::<Blake3>::new();
        let mut stored = StoredTree::<Blake3>::new();
        for block in 0..60 {
            // Every fifth batch is large enough for the parallel apply.
            let count = if block % 5 == 0 {
                300
            } else {
                rng.below(30) + 1
            };
            let writes: Vec<(Vec<u8>, Option<[u8; 32]>)> = (0..count)
                .map(|_| {
                    let value = (rng.below(3) != 0).then(|| rng.bytes());
                    (key(&mut rng), value)
                })
                .collect();
            memory.apply(writes.iter().map(|(k, v)| (k, *v))).unwrap();
            stored
                .apply(&map, writes.iter().map(|(k, v)| (k, *v)))
                .unwrap();
            let changes = stored.changes();
            assert_eq!(changes.root, memory.root(), "block {block}");
            map.write(&changes);
            stored.committed();
            assert_eq!(tracked(&stored), walked(&stored), "block {block}");
            let budget = rng.below(12);
            let mut reference = untracked(&stored);
            stored.evict(budget);
            reference.evict(budget);
            assert_eq!(shape(&stored), shape(&reference), "block {block}");
            assert_eq!(tracked(&stored), walked(&stored), "block {block}");
            assert!(stored.loaded_nodes() <= budget);
            if rng.below(4) == 0 {
                stored = StoredTree::open(changes.root, changes.len);
            }
            // The store holds exactly the tree's nodes: one record per leaf and branch.
            let records = map.records.lock().unwrap().len();
            assert_eq!(
                records,
                (2 * memory.len()).saturating_sub(1),
                "block {block}"
            );
            let probe = key(&mut rng);
            assert_eq!(
                stored.get(&map, &probe).unwrap(),
                memory.get(&probe).copied()
            );
            let other = key(&mut rng);
            if other != probe {
                let asked = vec![(probe, Write::Delete), (other, Write::Set([5; 32]))];
                assert_eq!(
                    stored.witness(&map, &asked).unwrap(),
                    memory.witness(&asked).unwrap()
                );
            }
        }
        assert_eq!(stored.len(), memory.len());
    }

    /// Keys of 3 bytes sharing prefixes, and now and then of 20 bytes sharing 10 (never a
    /// prefix of a short one): writes split and deletes collapse at many depths.
    fn mixed_key(rng: &mut Rng) -> Vec<u8> {
        if rng.below(4) > 0 {
            return key(rng);
        }
        let mut long = vec![0x80u8; 20];
        long[10] = rng.below(2) as u8;
        long[19] = rng.below(16) as u8;
        long
    }

    /// The puts of a commit as they were first defined: from the root once per written key,
    /// every loaded node on its path and every loaded child of a branch it reaches.
    fn puts_one_path_at_a_time(root: &Node, written: &[&[u8]]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let record = |node: &Node| {
            let mut out = Vec::new();
            encode_into(node, &mut out);
            out
        };
        let mut puts = BTreeMap::new();
        for key in written {
            let (mut node, mut start) = (root, 0);
            while loaded(node) {
                puts.insert(position(key, start, None, WIDTH), record(node));
                let Node::Branch(branch) = node else { break };
                let split = branch.split;
                let side = bit(&branch.path, split);
                for (child, b) in [(&branch.left, 0), (&branch.right, 1)] {
                    if loaded(child) {
                        let flip = (b != side).then_some(split);
                        puts.insert(
                            position(&branch.path, split + 1, flip, WIDTH),
                            record(child),
                        );
                    }
                }
                let limit = core::cmp::min(split, 8 * key.len());
                if 8 * key.len() <= split
                    || first_difference(&branch.path, key, start, limit) < limit
                {
                    break;
                }
                start = split + 1;
                node = if bit(key, split) == 0 {
                    &branch.left
                } else {
                    &branch.right
                };
            }
        }
        puts.into_iter().collect()
    }

    /// Every record of a tree whose nodes are all loaded and hashed, by position.
    fn every_record(root: &Node) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack: Vec<(&Node, Vec<u8>)> = vec![(root, position(&[], 0, None, WIDTH))];
        while let Some((node, at)) = stack.pop() {
            if !loaded(node) {
                continue;
            }
            let mut record = Vec::new();
            encode_into(node, &mut record);
            out.insert(at, record);
            if let Node::Branch(branch) = node {
                let (split, side) = (branch.split, bit(&branch.path, branch.split));
                for (child, b) in [(&branch.left, 0), (&branch.right, 1)] {
                    let flip = (b != side).then_some(split);
                    stack.push((child, position(&branch.path, split + 1, flip, WIDTH)));
                }
            }
        }
        out
    }

    #[test]
    fn changes_come_in_key_order_as_one_path_at_a_time_and_leave_the_tree_stored() {
        let mut rng = Rng::new(82970);
        let map = MapSource::default();
        let mut memory = Tree::<Blake3>::new();
        let mut stored = StoredTree::<Blake3>::new();
        let (mut deletes, mut collapses) = (0, 0);
        for block in 0..80 {
            let count = if block % 10 == 0 {
                200
            } else {
                rng.below(25) + 1
            };
            let writes: Vec<(Vec<u8>, Option<[u8; 32]>)> = (0..count)
                .map(|_| {
                    let value = (rng.below(3) != 0).then(|| rng.bytes());
                    (mixed_key(&mut rng), value)
                })
                .collect();
            let before = map.records.lock().unwrap().clone();
            memory.apply(writes.iter().map(|(k, v)| (k, *v))).unwrap();
            stored
                .apply(&map, writes.iter().map(|(k, v)| (k, *v)))
                .unwrap();
            stored.root();
            let expected_puts =
                puts_one_path_at_a_time(&stored.tree.root, &stored.written.sorted());
            let order = core::cell::RefCell::new(Vec::new());
            let (root, len) = stored.clone().changes_with(
                |key, _| order.borrow_mut().push(key.to_vec()),
                |key| order.borrow_mut().push(key.to_vec()),
            );
            let order = order.into_inner();
            assert!(
                order.windows(2).all(|pair| pair[0] < pair[1]),
                "block {block}"
            );
            let changes = stored.changes();
            assert_eq!((root, len), (changes.root, changes.len));
            assert_eq!(changes.root, memory.root(), "block {block}");
            assert_eq!(changes.puts, expected_puts, "block {block}");
            let after = every_record(&memory.root);
            let emptied: Vec<Vec<u8>> = before
                .keys()
                .filter(|key| !after.contains_key(*key))
                .cloned()
                .collect();
            assert_eq!(changes.deletes, emptied, "block {block}");
            deletes += emptied.len();
            // A collapse moves a record: its old position emptied, beside a removed leaf's.
            collapses +=
                usize::from(emptied.len() > writes.iter().filter(|w| w.1.is_none()).count());
            map.write(&changes);
            assert_eq!(*map.records.lock().unwrap(), after, "block {block}");
            stored.committed();
            assert_eq!(tracked(&stored), walked(&stored), "block {block}");
            stored.evict(rng.below(30));
            assert_eq!(tracked(&stored), walked(&stored), "block {block}");
            if rng.below(5) == 0 {
                stored = StoredTree::open(changes.root, changes.len);
            }
        }
        assert!(deletes > 100, "{deletes}");
        assert!(collapses > 5, "{collapses}");
    }

    /// The loaded nodes at each depth, counted by walking the tree.
    fn walked(tree: &StoredTree<Blake3>) -> Vec<usize> {
        levels(&tree.tree.root)
    }

    /// The loaded nodes at each depth, as the tree keeps them.
    fn tracked(tree: &StoredTree<Blake3>) -> Vec<usize> {
        let mut levels = tree.levels.clone().unwrap();
        while levels.last() == Some(&0) {
            levels.pop();
        }
        levels
    }

    /// `tree` with nothing known of its counts or of what was evicted: its eviction walks the
    /// whole tree.
    fn untracked(tree: &StoredTree<Blake3>) -> StoredTree<Blake3> {
        let mut reference = tree.clone();
        reference.levels = None;
        reference.cleared = None;
        reference.touched = Packed::default();
        reference
    }

    /// The tree node by node in pre-order: depth, kind (0 stored, 1 leaf, 2 branch, 3 empty)
    /// and hash (a stored handle's, a loaded node's cached one).
    fn shape(tree: &StoredTree<Blake3>) -> Vec<(usize, u8, [u8; 32])> {
        let mut out = Vec::new();
        let mut stack = vec![(&tree.tree.root, 0)];
        while let Some((node, depth)) = stack.pop() {
            let kind = match node {
                Node::Stored(_) => 0,
                Node::Leaf(_) => 1,
                Node::Branch(branch) => {
                    stack.push((&branch.right, depth + 1));
                    stack.push((&branch.left, depth + 1));
                    2
                }
                Node::Empty => 3,
            };
            out.push((depth, kind, cached(node)));
        }
        out
    }

    /// The depth an eviction to `budget` keeps down to, from the tree's counts.
    fn keep(tree: &StoredTree<Blake3>, budget: usize) -> usize {
        let mut kept = 0;
        tracked(tree)
            .iter()
            .take_while(|&&count| {
                kept += count;
                kept <= budget
            })
            .count()
    }

    /// A key of 12 bytes: a top byte of 4, one of the prefixes of `groups` (7 bytes), 4
    /// random bytes. A new group's key splits a long shared prefix near the top, moving a
    /// whole subtree down.
    fn grouped_key(rng: &mut Rng, groups: &[[u8; 7]]) -> Vec<u8> {
        let mut key = vec![rng.below(4) as u8];
        key.extend_from_slice(&groups[rng.below(groups.len())]);
        key.extend_from_slice(&rng.bytes::<4>());
        key
    }

    #[test]
    fn counts_by_depth_and_evictions_along_touched_paths_match_walks_of_the_whole_tree() {
        let mut rng = Rng::new(82975);
        let mut groups: Vec<[u8; 7]> = (0..6).map(|_| rng.bytes()).collect();
        let map = MapSource::default();
        let mut memory = Tree::<Blake3>::new();
        let mut tree = StoredTree::<Blake3>::new();
        let mut keys: Vec<Vec<u8>> = (0..2000).map(|_| grouped_key(&mut rng, &groups)).collect();
        keys.sort();
        keys.dedup();
        let entries: Vec<(Vec<u8>, Option<[u8; 32]>)> = keys
            .iter()
            .map(|k| (k.clone(), Some(rng.bytes())))
            .collect();
        memory.apply(entries.iter().cloned()).unwrap();
        tree.apply(&map, entries.iter().cloned()).unwrap();
        assert_eq!(tracked(&tree), walked(&tree));
        map.write(&tree.changes());
        tree.committed();
        let (mut targeted, mut named) = (0, 0);
        for round in 0..40 {
            // Updates, removals, new keys in known groups, now and then a new group's key.
            let mut writes: Vec<(Vec<u8>, Option<[u8; 32]>)> = Vec::new();
            for _ in 0..rng.below(120) + 1 {
                let key = keys[rng.below(keys.len())].clone();
                let value = (rng.below(3) != 0).then(|| rng.bytes());
                writes.push((key, value));
            }
            for _ in 0..rng.below(30) {
                writes.push((grouped_key(&mut rng, &groups), Some(rng.bytes())));
            }
            if rng.below(3) == 0 {
                groups.push(rng.bytes());
                writes.push((
                    grouped_key(&mut rng, &groups[groups.len() - 1..]),
                    Some(rng.bytes()),
                ));
            }
            keys.extend(writes.iter().map(|(k, _)| k.clone()));
            let touched = tree.touched.ends.len();
            memory.apply(writes.iter().cloned()).unwrap();
            tree.apply(&map, writes.iter().cloned()).unwrap();
            assert_eq!(tracked(&tree), walked(&tree), "round {round}");
            // Nodes moved down across the cleared depth are named beside the keys written.
            named += usize::from(tree.touched.ends.len() > touched + writes.len());
            // Reads of other paths.
            for _ in 0..3 {
                let probe = keys[rng.below(keys.len())].clone();
                assert_eq!(tree.get(&map, &probe).unwrap(), memory.get(&probe).copied());
            }
            assert_eq!(tracked(&tree), walked(&tree), "round {round}");
            let changes = tree.changes();
            assert_eq!(changes.root, memory.root(), "round {round}");
            map.write(&changes);
            tree.committed();
            // Mostly one budget, now and then a smaller one (a whole-tree walk).
            let budget = if round % 5 == 4 { 150 } else { 400 };
            let mut reference = untracked(&tree);
            let keep = keep(&tree, budget);
            if tree.cleared.is_some_and(|cleared| keep >= cleared) && tree.loaded_nodes() > budget {
                targeted += 1;
                // The touched paths alone reach every node to evict.
                let mut paths = tree.clone();
                let mut counts = tracked(&paths);
                evict_paths(
                    &mut paths.tree.root,
                    &paths.touched.sorted(),
                    keep,
                    &mut counts,
                );
                assert!(
                    walked(&paths).iter().skip(keep).all(|&count| count == 0),
                    "round {round}"
                );
                assert_eq!(walked(&paths), counts[..walked(&paths).len()].to_vec());
            }
            tree.evict(budget);
            reference.evict(budget);
            assert_eq!(shape(&tree), shape(&reference), "round {round}");
            assert_eq!(tracked(&tree), walked(&tree), "round {round}");
            assert!(tree.loaded_nodes() <= budget);
            if round % 7 == 6 {
                let asked = vec![
                    (keys[rng.below(keys.len())].clone(), Write::Unchanged),
                    (grouped_key(&mut rng, &groups), Write::Set([3; 32])),
                ];
                if asked[0].0 != asked[1].0 {
                    assert_eq!(
                        tree.witness(&map, &asked).unwrap(),
                        memory.witness(&asked).unwrap()
                    );
                }
            }
        }
        assert!(targeted >= 10, "{targeted}");
        assert!(named >= 1, "{named}");
    }

    #[test]
    fn corrupt_records_are_errors_naming_their_position() {
        let map = MapSource::default();
        let mut stored = StoredTree::<Blake3>::new();
        stored
            .apply(
                &map,
                [(vec![0u8], Some([1; 32])), (vec![0xff], Some([2; 32]))],
            )
            .unwrap();
        let changes = stored.changes();
        map.write(&changes);
        let root_key = position(&[], 0, None, WIDTH);
        let good = map.records.lock().unwrap()[&root_key].clone();
        let mut bad_split = good.clone();
        bad_split[3] = 200;
        let mut wrong_hash = good.clone();
        wrong_hash[10] ^= 1;
        for record in [good[..good.len() - 1].to_vec(), bad_split, wrong_hash] {
            map.records.lock().unwrap().insert(root_key.clone(), record);
            let mut tree = StoredTree::<Blake3>::open(changes.root, changes.len);
            match tree.get(&map, &[0u8]) {
                Err(StoreError::Corrupt { key, .. }) => assert_eq!(key, root_key),
                other => panic!("{other:?}"),
            }
        }
    }

    /// A store of `count` random keys of 20 bytes, its root and key count, and its levels.
    fn stored_keys(rng: &mut Rng, count: usize) -> (MapSource, Vec<Vec<u8>>, Changes, usize) {
        let map = MapSource::default();
        let keys: Vec<Vec<u8>> = (0..count).map(|_| rng.bytes::<20>().to_vec()).collect();
        let mut built = StoredTree::<Blake3>::new();
        built
            .apply(&map, keys.iter().map(|k| (k, Some(Blake3::hash(&[k])))))
            .unwrap();
        let changes = built.changes();
        map.write(&changes);
        let levels = levels(&built.tree.root).len();
        (map, keys, changes, levels)
    }

    /// Removals of every seventh key, updates of every fifth, and new keys.
    fn updates(rng: &mut Rng, keys: &[Vec<u8>]) -> Vec<(Vec<u8>, Option<[u8; 32]>)> {
        let mut writes: Vec<(Vec<u8>, Option<[u8; 32]>)> =
            keys.iter().step_by(7).map(|k| (k.clone(), None)).collect();
        writes.extend(
            keys.iter()
                .step_by(5)
                .map(|k| (k.clone(), Some(rng.bytes()))),
        );
        writes.extend((0..100).map(|_| (rng.bytes::<20>().to_vec(), Some(rng.bytes()))));
        writes
    }

    #[test]
    fn a_batch_reads_each_level_once_and_matches_reads_one_at_a_time() {
        let mut rng = Rng::new(3);
        let (map, keys, stored, levels) = stored_keys(&mut rng, 3000);
        let writes = updates(&mut rng, &keys);
        let batches = Batches {
            map,
            ..Batches::default()
        };
        let mut batched = StoredTree::<Blake3>::open(stored.root, stored.len);
        batched
            .apply(&batches, writes.iter().map(|(k, v)| (k, *v)))
            .unwrap();
        let calls = batches.take();
        assert!(
            calls.len() <= levels,
            "{} reads, {levels} levels",
            calls.len()
        );
        assert!(calls.iter().any(|call| call.len() > 100));
        for call in &calls {
            let mut distinct = call.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), call.len());
        }
        // The source's default reads one record at a time.
        let mut single = StoredTree::<Blake3>::open(stored.root, stored.len);
        single
            .apply(&batches.map, writes.iter().map(|(k, v)| (k, *v)))
            .unwrap();
        let mut memory = Tree::<Blake3>::new();
        memory
            .apply(keys.iter().map(|k| (k, Some(Blake3::hash(&[k])))))
            .unwrap();
        memory.apply(writes.iter().map(|(k, v)| (k, *v))).unwrap();
        let changes = batched.changes();
        assert!(!changes.deletes.is_empty());
        assert_eq!(changes, single.changes());
        assert_eq!(changes.root, memory.root());
        assert_eq!(batched.hash_count(), single.hash_count());
        assert_eq!(batched.loaded_nodes(), single.loaded_nodes());
    }

    #[test]
    fn a_corrupt_record_amid_a_batch_or_a_wrong_answer_count_is_an_error() {
        let mut rng = Rng::new(4);
        let (map, keys, stored, _) = stored_keys(&mut rng, 500);
        let writes = updates(&mut rng, &keys);
        let records = map.records.lock().unwrap().clone();
        let source = |skew| Batches::over(&records, skew);
        for skew in [1, -1] {
            let mut tree = StoredTree::<Blake3>::open(stored.root, stored.len);
            match tree.apply(&source(skew), writes.iter().map(|(k, v)| (k, *v))) {
                Err(StoreError::Answers { asked, got, .. }) => {
                    assert_eq!(got, asked.saturating_add_signed(-skew))
                }
                other => panic!("{other:?}"),
            }
        }
        let batches = source(0);
        StoredTree::<Blake3>::open(stored.root, stored.len)
            .apply(&batches, writes.iter().map(|(k, v)| (k, *v)))
            .unwrap();
        let widest = batches
            .take()
            .into_iter()
            .max_by_key(Vec::len)
            .unwrap_or_default();
        assert!(widest.len() > 2);
        let middle = widest[widest.len() / 2].clone();
        for edit in [
            |r: &mut Vec<u8>| r[10] ^= 1,
            |r: &mut Vec<u8>| r.truncate(3),
        ] {
            let mut record = records[&middle].clone();
            edit(&mut record);
            batches
                .map
                .records
                .lock()
                .unwrap()
                .insert(middle.clone(), record);
            let mut tree = StoredTree::<Blake3>::open(stored.root, stored.len);
            match tree.apply(&batches, writes.iter().map(|(k, v)| (k, *v))) {
                Err(StoreError::Corrupt { key, .. }) => assert_eq!(key, middle),
                other => panic!("{other:?}"),
            }
        }
    }
}
