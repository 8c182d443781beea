//! The EIP-8297 tree in memory: prefix-compressed branches, every node's hash cached.
//!
//! A [`Tree`] holds a key/value set whose root is EIP-8297 `state_root` of that set ("Tree
//! structure", "Node merkelization", "Insertion and deletion"). Writes clear the cached hash
//! of every node on the written path; [`Tree::root`] rehashes exactly those nodes, each
//! once. [`Tree::apply`] takes a whole batch first, divides it at the branches' split bits
//! into groups of a few writes, brings each group's paths into cache level by level (so that
//! the loads of different paths overlap), applies it and rehashes below it at once, two
//! subtrees in step wherever two siblings are to be rehashed, so that their nodes' messages go
//! to the hash in pairs ([`TreeHash::hash_two`]: BLAKE3 on AVX2 compresses two messages for
//! about the cost of one); with the `parallel` feature the subtrees below the top
//! [`PARALLEL_LEVELS`] branch levels (hypertrees) go to rayon threads. The root is the same as
//! for the writes applied one by one, in any order.

use alloc::collections::BTreeSet;
use core::marker::PhantomData;

use crate::bits::{bit, encode_bit_prefix, first_difference, last_writes};
use crate::prelude::*;
use crate::{Error, TreeHash};

/// A write of a batch: the key, and its value or `None` for a removal.
type Op<'k> = (&'k [u8], Option<[u8; 32]>);
/// What a batch did below a node: (keys inserted, keys removed).
type Applied = Result<(usize, usize), Error>;

/// Longest key, in bytes ("Maximum key length").
pub const MAX_KEY_LENGTH: usize = 8192;
/// Tag of a leaf's hash preimage.
pub const LEAF_TAG: u8 = 0x00;
/// Tag of a branch's hash preimage.
pub const BRANCH_TAG: u8 = 0x01;
/// Branch levels from the root at which a batch and the rehash fork onto rayon threads; the
/// subtrees below them (up to `2^PARALLEL_LEVELS`) are the units of parallel work.
pub const PARALLEL_LEVELS: usize = 6;
/// Smallest batch slice worth a rayon task.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_WRITES: usize = 64;
/// Writes at most this many below a node are applied one by one; a larger batch divides at
/// the node's split bit.
const GROUP_WRITES: usize = 64;
/// Levels from the root down to which a batch divides (a bound on the recursion: a path can
/// be as deep as the number of keys).
const DIVIDE_LEVELS: usize = 32;
/// Levels below a group's node that [`warm_paths`] brings into cache.
const WARM_LEVELS: usize = 64;
/// Levels of branches the rehash pairs ([`paired_hash`]), recursing; below them it takes the
/// explicit stack of [`subtree_hash`] (a path can be as deep as the number of keys).
const PAIR_LEVELS: usize = 32;

/// A node: absent (only as the root of an empty tree or a moment during a write), a leaf, or
/// a branch with two non-empty children.
#[derive(Default)]
pub(super) enum Node {
    #[default]
    Empty,
    Leaf(Box<Leaf>),
    Branch(Box<Branch>),
    /// A subtree not in memory, known by its hash (a [`super::StoredTree`] loads it before
    /// an operation walks into it; an in-memory tree never holds one).
    Stored(Box<[u8; 32]>),
}

/// A key's bytes in its node: up to [`INLINE_KEY`] bytes (every key of the embedding) in the
/// node itself, so that a walk reads a leaf's key or a branch's path from the node's own cache
/// lines; a longer key on the heap.
#[derive(Clone)]
pub(super) enum KeyBytes {
    Inline { len: u8, bytes: [u8; INLINE_KEY] },
    Heap(Box<[u8]>),
}

/// Longest key held in its node: an EIP-8297 storage or code key (66 bytes).
const INLINE_KEY: usize = 66;

impl From<&[u8]> for KeyBytes {
    fn from(key: &[u8]) -> Self {
        let mut bytes = [0u8; INLINE_KEY];
        match (bytes.get_mut(..key.len()), u8::try_from(key.len())) {
            (Some(to), Ok(len)) => {
                to.copy_from_slice(key);
                KeyBytes::Inline { len, bytes }
            }
            _ => KeyBytes::Heap(key.into()),
        }
    }
}

impl core::ops::Deref for KeyBytes {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            KeyBytes::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            KeyBytes::Heap(key) => key,
        }
    }
}

/// `LeafNode`: the complete key and its value.
#[derive(Clone)]
pub(super) struct Leaf {
    pub(super) key: KeyBytes,
    pub(super) value: [u8; 32],
    pub(super) hash: Option<[u8; 32]>,
}

/// `BranchNode`. Its prefix is bits `start..split` of `path`, where `start` is one past the
/// parent's split bit (0 at the root) and is passed down rather than stored, so that a branch
/// that rises on deletion takes its parent's start without being rewritten.
pub(super) struct Branch {
    /// A key below this branch; its first `split` bits are every key's below.
    pub(super) path: KeyBytes,
    /// The bit that sends a key left (0) or right (1).
    pub(super) split: usize,
    pub(super) left: Node,
    pub(super) right: Node,
    pub(super) hash: Option<[u8; 32]>,
}

/// What a write did to the entry set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    None,
    Value,
    Inserted,
    Removed,
}

/// Where a write of a key lands, found before anything changes.
#[derive(Clone, Copy, Debug)]
enum Landing {
    /// The empty root: the key becomes the only leaf.
    Empty,
    /// The key's own leaf; whether its value changes.
    Leaf { changed: bool },
    /// A new branch splitting at this bit above the node reached, over it and the key's leaf.
    Split(usize),
}

/// A node's hash if known (a leaf's is computed on the spot), or the branch whose hash is
/// missing, taken out of its place.
enum Hash {
    Known([u8; 32]),
    Missing(Box<Branch>),
}

impl Node {
    fn leaf(key: &[u8], value: &[u8; 32]) -> Node {
        Node::Leaf(Box::new(Leaf {
            key: key.into(),
            value: *value,
            hash: None,
        }))
    }

    /// A branch splitting at `split` over `existing` and a new leaf for `key`.
    fn split(existing: Node, split: usize, key: &[u8], value: &[u8; 32]) -> Node {
        let leaf = Node::leaf(key, value);
        let (left, right) = if bit(key, split) == 0 {
            (leaf, existing)
        } else {
            (existing, leaf)
        };
        Node::Branch(Box::new(Branch {
            path: key.into(),
            split,
            left,
            right,
            hash: None,
        }))
    }

    /// Clears the cached hash of a branch whose start changes.
    fn invalidate(&mut self) {
        if let Node::Branch(branch) = self {
            branch.hash = None;
        }
    }

    /// The hash of this node if it is cached or it is a leaf, else the dirty branch, taken out
    /// (the node is left empty). `count` gains one per hash computed.
    fn hash_or_take<H: TreeHash>(&mut self, count: &mut u64) -> Hash {
        match core::mem::take(self) {
            Node::Empty => Hash::Known([0u8; 32]),
            Node::Stored(hash) => {
                let known = *hash;
                *self = Node::Stored(hash);
                Hash::Known(known)
            }
            Node::Leaf(mut leaf) => {
                let hash = leaf.hash::<H>(count);
                *self = Node::Leaf(leaf);
                Hash::Known(hash)
            }
            Node::Branch(branch) => match branch.hash {
                Some(hash) => {
                    *self = Node::Branch(branch);
                    Hash::Known(hash)
                }
                None => Hash::Missing(branch),
            },
        }
    }
}

/// A copy node by node from an explicit stack, as deep as the tree without growing the
/// thread's stack.
impl Clone for Node {
    fn clone(&self) -> Self {
        enum Task<'a> {
            Copy(&'a Node),
            Join(&'a Branch),
        }
        let mut tasks = vec![Task::Copy(self)];
        // Copied subtrees, the left child below the right one of a branch being joined.
        let mut done: Vec<Node> = Vec::new();
        while let Some(task) = tasks.pop() {
            match task {
                Task::Copy(Node::Empty) => done.push(Node::Empty),
                Task::Copy(Node::Stored(hash)) => done.push(Node::Stored(hash.clone())),
                Task::Copy(Node::Leaf(leaf)) => done.push(Node::Leaf(leaf.clone())),
                Task::Copy(Node::Branch(branch)) => {
                    tasks.push(Task::Join(branch));
                    tasks.push(Task::Copy(&branch.right));
                    tasks.push(Task::Copy(&branch.left));
                }
                Task::Join(branch) => {
                    let right = done.pop().unwrap_or_default();
                    let left = done.pop().unwrap_or_default();
                    done.push(Node::Branch(Box::new(Branch {
                        path: branch.path.clone(),
                        split: branch.split,
                        left,
                        right,
                        hash: branch.hash,
                    })));
                }
            }
        }
        done.pop().unwrap_or_default()
    }
}

impl Leaf {
    /// The leaf's hash, computed if missing; `count` gains one if computed.
    fn hash<H: TreeHash>(&mut self, count: &mut u64) -> [u8; 32] {
        if let Some(hash) = self.hash {
            return hash;
        }
        let hash = H::hash(&[&[LEAF_TAG], &self.key, &self.value]);
        *count += 1;
        self.hash = Some(hash);
        hash
    }
}

impl Branch {
    /// The child on `key`'s side of the split bit.
    fn child(&self, key: &[u8]) -> &Node {
        if bit(key, self.split) == 0 {
            &self.left
        } else {
            &self.right
        }
    }

    /// The child on `key`'s side of the split bit.
    fn child_mut(&mut self, key: &[u8]) -> &mut Node {
        if bit(key, self.split) == 0 {
            &mut self.left
        } else {
            &mut self.right
        }
    }

    /// Hashes this branch, whose prefix starts at bit `start`, over its children's hashes and
    /// caches the hash; `count` gains one.
    fn hash<H: TreeHash>(
        &mut self,
        start: usize,
        left: &[u8; 32],
        right: &[u8; 32],
        count: &mut u64,
    ) -> [u8; 32] {
        let mut prefix = Vec::with_capacity(2 + (self.split - start).div_ceil(8));
        encode_bit_prefix(&self.path, start, self.split, &mut prefix);
        let hash = H::hash(&[&[BRANCH_TAG], &prefix, left, right]);
        *count += 1;
        self.hash = Some(hash);
        hash
    }
}

/// Drops the subtrees below from an explicit stack, as deep as the tree without growing the
/// thread's stack.
impl Drop for Branch {
    fn drop(&mut self) {
        let deep = |node: &Node| matches!(node, Node::Branch(_));
        if !deep(&self.left) && !deep(&self.right) {
            return;
        }
        let mut pending = vec![
            core::mem::take(&mut self.left),
            core::mem::take(&mut self.right),
        ];
        while let Some(node) = pending.pop() {
            if let Node::Branch(mut branch) = node {
                pending.push(core::mem::take(&mut branch.left));
                pending.push(core::mem::take(&mut branch.right));
            }
        }
    }
}

/// An EIP-8297 tree over the hash `H`.
///
/// Keys chosen to share ever longer prefixes can make a path as deep as the number of keys;
/// every operation walks such paths in loops or on explicit stacks, so its depth costs heap,
/// not thread stack (the parallel split recurses over the top [`PARALLEL_LEVELS`] levels
/// only). Keys from the embedding are hash-derived, so paths stay near `log2(keys)` branches.
#[derive(Clone)]
pub struct Tree<H: TreeHash> {
    pub(super) root: Node,
    len: usize,
    hashes: u64,
    hash: PhantomData<H>,
}

impl<H: TreeHash> core::fmt::Debug for Tree<H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tree")
            .field("hash", &H::NAME)
            .field("len", &self.len)
            .field("hashes", &self.hashes)
            .finish_non_exhaustive()
    }
}

impl<H: TreeHash> Default for Tree<H> {
    fn default() -> Self {
        Self::new()
    }
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

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tree holds no key.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hashes computed by this tree so far (leaf and branch hashes).
    pub fn hash_count(&self) -> u64 {
        self.hashes
    }

    /// A tree of `len` keys over `root`.
    pub(super) fn from_parts(root: Node, len: usize) -> Self {
        Tree {
            root,
            len,
            hashes: 0,
            hash: PhantomData,
        }
    }

    /// The value at `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<&[u8; 32]> {
        let mut node = &self.root;
        loop {
            match node {
                Node::Empty | Node::Stored(_) => return None,
                Node::Leaf(leaf) => return (*leaf.key == *key).then_some(&leaf.value),
                Node::Branch(branch) => {
                    if key.len() * 8 <= branch.split {
                        return None;
                    }
                    node = branch.child(key);
                }
            }
        }
    }

    /// Sets `key` to `value` (tree-level: a zero value is stored as a present leaf). Fails
    /// without changing the tree if the key's length is out of range or the key and a present
    /// key are not prefix-free.
    pub fn insert(&mut self, key: &[u8], value: &[u8; 32]) -> Result<(), Error> {
        check_key(key)?;
        let change = insert(&mut self.root, 0, key, value)?;
        self.count(change);
        Ok(())
    }

    /// Removes `key`; returns whether it was present. The branch left with one child is
    /// replaced by that child, with the prefixes merged.
    pub fn remove(&mut self, key: &[u8]) -> Result<bool, Error> {
        check_key(key)?;
        let change = remove(&mut self.root, 0, key);
        self.count(change);
        Ok(change == Change::Removed)
    }

    /// The state-layer write ("Zero values and deletion"): 32 zero bytes remove the key, any
    /// other value sets it.
    pub fn write(&mut self, key: &[u8], value: &[u8; 32]) -> Result<(), Error> {
        if *value == [0u8; 32] {
            self.remove(key).map(|_| ())
        } else {
            self.insert(key, value)
        }
    }

    /// Applies a batch of writes: `Some(value)` sets, `None` removes; of several writes to one
    /// key the last counts. Key lengths are checked before anything changes; a prefix
    /// conflict fails the batch and may leave part of it applied.
    pub fn apply<K, I>(&mut self, writes: I) -> Result<(), Error>
    where
        K: AsRef<[u8]>,
        I: IntoIterator<Item = (K, Option<[u8; 32]>)>,
    {
        let batch: Vec<(K, Option<[u8; 32]>)> = writes.into_iter().collect();
        for (key, _) in &batch {
            check_key(key.as_ref())?;
        }
        // Key order, the last write of each key kept.
        let keys: Vec<&[u8]> = batch.iter().map(|(key, _)| key.as_ref()).collect();
        let ops: Vec<(&[u8], Option<[u8; 32]>)> = last_writes(&keys)
            .into_iter()
            .filter_map(|at| batch.get(at).map(|(key, value)| (key.as_ref(), *value)))
            .collect();
        let mut count = 0;
        let applied = apply::<H>(&mut self.root, 0, &ops, 0, &mut count);
        self.hashes += count;
        let (inserted, removed) = applied?;
        self.len = self.len + inserted - removed;
        Ok(())
    }

    /// The root: 32 zero bytes for an empty tree, else the root node's hash. Rehashes the
    /// nodes written since the last call, each once.
    pub fn root(&mut self) -> [u8; 32] {
        let mut count = 0;
        let root = match &mut self.root {
            Node::Empty => [0u8; 32],
            node => node_hash::<H>(node, 0, 0, &mut count),
        };
        self.hashes += count;
        root
    }

    /// The nodes on the union of the paths from the root to `keys`: the branches each path
    /// passes, the branch whose prefix a path leaves (where an absent key's path ends), and
    /// the key's own leaf where it is present. A path that ends at another key's leaf or at an
    /// empty place counts only the branches above it. Every computation of the root from
    /// these keys (a root update after writing exactly these keys, a verification of them)
    /// hashes each of these nodes, so the count is the least hash count of that work, the
    /// measure of [`Tree::hash_count`] in BENCHMARKS.md. A root update can need more: a key
    /// inserted above a branch changes that branch's prefix, and its hash.
    ///
    /// Counts nothing below a subtree not in memory. A key of a length out of range is an
    /// error.
    pub fn path_nodes<K, I>(&self, keys: I) -> Result<u64, Error>
    where
        K: AsRef<[u8]>,
        I: IntoIterator<Item = K>,
    {
        // A node by its address.
        let mut seen: BTreeSet<usize> = BTreeSet::new();
        for key in keys {
            let key = key.as_ref();
            check_key(key)?;
            let mut node = &self.root;
            let mut start = 0;
            loop {
                match node {
                    Node::Empty | Node::Stored(_) => break,
                    Node::Leaf(leaf) => {
                        if *leaf.key == *key {
                            seen.insert(&**leaf as *const Leaf as usize);
                        }
                        break;
                    }
                    Node::Branch(branch) => {
                        seen.insert(&**branch as *const Branch as usize);
                        let bits = key.len() * 8;
                        if bits <= branch.split
                            || first_difference(key, &branch.path, start, branch.split)
                                < branch.split
                        {
                            break;
                        }
                        start = branch.split + 1;
                        node = branch.child(key);
                    }
                }
            }
        }
        Ok(seen.len() as u64)
    }

    fn count(&mut self, change: Change) {
        match change {
            Change::Inserted => self.len += 1,
            Change::Removed => self.len -= 1,
            Change::None | Change::Value => {}
        }
    }
}

/// Where a write of `key` lands below `node`, whose prefix starts at bit `start`, and how many
/// branches down; an error if the key and a present key are not prefix-free.
fn landing(
    mut node: &Node,
    mut start: usize,
    key: &[u8],
    value: &[u8; 32],
) -> Result<(usize, Landing), Error> {
    let mut depth = 0;
    loop {
        match node {
            Node::Empty => return Ok((depth, Landing::Empty)),
            Node::Stored(_) => return Err(Error::Unloaded),
            Node::Leaf(leaf) => {
                if *leaf.key == *key {
                    let changed = leaf.value != *value;
                    return Ok((depth, Landing::Leaf { changed }));
                }
                let limit = 8 * core::cmp::min(leaf.key.len(), key.len());
                let split = first_difference(&leaf.key, key, start, limit);
                if split == limit {
                    return Err(not_prefix_free(leaf.key.len(), key.len()));
                }
                return Ok((depth, Landing::Split(split)));
            }
            Node::Branch(branch) => {
                let limit = core::cmp::min(branch.split, 8 * key.len());
                let split = first_difference(&branch.path, key, start, limit);
                if split < limit {
                    // The key leaves the prefix: a new branch above this one.
                    return Ok((depth, Landing::Split(split)));
                }
                if 8 * key.len() <= branch.split {
                    return Err(not_prefix_free(key.len(), branch.path.len()));
                }
                start = branch.split + 1;
                node = branch.child(key);
                depth += 1;
            }
        }
    }
}

/// The node `depth` branches below `node` on `key`'s path, clearing the cached hash of each
/// branch passed.
fn descend<'a>(mut node: &'a mut Node, key: &[u8], depth: usize) -> &'a mut Node {
    for _ in 0..depth {
        node = match node {
            Node::Branch(branch) => {
                branch.hash = None;
                branch.child_mut(key)
            }
            other => other,
        };
    }
    node
}

/// Writes `key` below `node`, whose prefix starts at bit `start`.
fn insert(node: &mut Node, start: usize, key: &[u8], value: &[u8; 32]) -> Result<Change, Error> {
    let (depth, landing) = landing(node, start, key, value)?;
    if let Landing::Leaf { changed: false } = landing {
        return Ok(Change::None);
    }
    let node = descend(node, key, depth);
    match landing {
        Landing::Empty => {
            *node = Node::leaf(key, value);
            Ok(Change::Inserted)
        }
        Landing::Leaf { .. } => {
            if let Node::Leaf(leaf) = node {
                leaf.value = *value;
                leaf.hash = None;
            }
            Ok(Change::Value)
        }
        Landing::Split(split) => {
            // A branch reached now starts one past the new split.
            let mut existing = core::mem::take(node);
            existing.invalidate();
            *node = Node::split(existing, split, key, value);
            Ok(Change::Inserted)
        }
    }
}

fn not_prefix_free(a: usize, b: usize) -> Error {
    Error::NotPrefixFree {
        shorter: core::cmp::min(a, b),
        longer: core::cmp::max(a, b),
    }
}

/// How many branches below `node`, whose prefix starts at bit `start`, the leaf of `key` is,
/// if present.
fn leaf_depth(mut node: &Node, mut start: usize, key: &[u8]) -> Option<usize> {
    let mut depth = 0;
    loop {
        match node {
            Node::Empty | Node::Stored(_) => return None,
            Node::Leaf(leaf) => return (*leaf.key == *key).then_some(depth),
            Node::Branch(branch) => {
                let limit = core::cmp::min(branch.split, 8 * key.len());
                if 8 * key.len() <= branch.split
                    || first_difference(&branch.path, key, start, limit) < limit
                {
                    return None;
                }
                start = branch.split + 1;
                node = branch.child(key);
                depth += 1;
            }
        }
    }
}

/// Removes `key` below `node`; the branch left with one child is replaced by it.
fn remove(node: &mut Node, start: usize, key: &[u8]) -> Change {
    let Some(depth) = leaf_depth(node, start, key) else {
        return Change::None;
    };
    let Some(above) = depth.checked_sub(1) else {
        *node = Node::Empty;
        return Change::Removed;
    };
    let parent = descend(node, key, above);
    if let Node::Branch(branch) = parent {
        branch.hash = None;
        *branch.child_mut(key) = Node::Empty;
    }
    collapse(parent);
    Change::Removed
}

/// Restores the canonical form of a branch after writes below it: with one child left the
/// child takes its place (a branch child's prefix then starts where this one's did), with
/// none the node is empty.
fn collapse(node: &mut Node) {
    let Node::Branch(branch) = node else { return };
    let survivor = match (&mut branch.left, &mut branch.right) {
        (Node::Empty, Node::Empty) => Node::Empty,
        (Node::Empty, other) | (other, Node::Empty) => {
            let mut other = core::mem::take(other);
            other.invalidate();
            other
        }
        _ => return,
    };
    *node = survivor;
}

/// Applies sorted, distinct writes below `node`, whose prefix starts at bit `start`; returns
/// (keys inserted, keys removed). A batch larger than [`GROUP_WRITES`] divides at a branch's
/// split bit (down to [`DIVIDE_LEVELS`] levels, on rayon threads over the top
/// [`PARALLEL_LEVELS`] with the `parallel` feature). A group of writes is applied one by one,
/// their paths brought into cache first ([`warm_paths`]), and the hashes they make missing
/// below the group's node are computed at once, while those paths are in cache (`count` gains
/// one per hash); the node's own hash and those above it are left for [`Tree::root`], since a
/// collapse above can still change where the node's prefix starts.
fn apply<H: TreeHash>(
    node: &mut Node,
    start: usize,
    ops: &[Op],
    level: usize,
    count: &mut u64,
) -> Applied {
    if level < DIVIDE_LEVELS && ops.len() > GROUP_WRITES {
        if let Node::Branch(branch) = node {
            if let Some(mid) = partition(branch, start, ops) {
                let (left, right) = ops.split_at(mid);
                let (l, r) = apply_children::<H>(branch, left, right, level, count);
                let (l, r) = (l?, r?);
                // Any write below may have changed a hash.
                branch.hash = None;
                collapse(node);
                return Ok((l.0 + r.0, l.1 + r.1));
            }
        }
    }
    if matches!(node, Node::Empty) && ops.iter().all(|(_, value)| value.is_some()) {
        *node = build(start, ops, level)?;
        hash_below::<H>(node, level, count);
        return Ok((ops.len(), 0));
    }
    warm_paths(node, start, ops);
    let (mut inserted, mut removed) = (0, 0);
    for (key, value) in ops {
        let change = match value {
            Some(value) => insert(node, start, key, value)?,
            None => remove(node, start, key),
        };
        match change {
            Change::Inserted => inserted += 1,
            Change::Removed => removed += 1,
            Change::None | Change::Value => {}
        }
    }
    hash_below::<H>(node, level, count);
    Ok((inserted, removed))
}

/// Applies the two halves of a divided batch below `branch`'s children: on two rayon threads
/// over the top [`PARALLEL_LEVELS`] levels with the `parallel` feature, else one after the
/// other.
fn apply_children<H: TreeHash>(
    branch: &mut Branch,
    left: &[Op],
    right: &[Op],
    level: usize,
    count: &mut u64,
) -> (Applied, Applied) {
    let next = branch.split + 1;
    #[cfg(feature = "parallel")]
    if level < PARALLEL_LEVELS && left.len() + right.len() >= PARALLEL_MIN_WRITES {
        let (mut lc, mut rc) = (0, 0);
        let out = rayon::join(
            || apply::<H>(&mut branch.left, next, left, level + 1, &mut lc),
            || apply::<H>(&mut branch.right, next, right, level + 1, &mut rc),
        );
        *count += lc + rc;
        return out;
    }
    (
        apply::<H>(&mut branch.left, next, left, level + 1, count),
        apply::<H>(&mut branch.right, next, right, level + 1, count),
    )
}

/// Computes the hashes missing below `node` (at `level`), not its own.
fn hash_below<H: TreeHash>(node: &mut Node, level: usize, count: &mut u64) {
    if let Node::Branch(branch) = node {
        let next = branch.split + 1;
        if level >= PARALLEL_LEVELS && dirty(&branch.left) && dirty(&branch.right) {
            let (left, right) = ((&mut branch.left, next), (&mut branch.right, next));
            hash_two_nodes::<H>(left, right, 0, count);
            return;
        }
        node_hash::<H>(&mut branch.left, next, level + 1, count);
        node_hash::<H>(&mut branch.right, next, level + 1, count);
    }
}

/// Brings into cache what writes `ops` (sorted) walk below `node`: the branches on their
/// paths with their paths' bytes, the leaves they reach with their keys, and the children off
/// their paths whose hashes the rehash reads. It goes level by level (down to
/// [`WARM_LEVELS`]), so that the loads of different paths are in flight together (a walk down
/// one path waits for each node before it can load the next), and each round of loads is a
/// short loop of reads alone, so that the processor's reorder window holds many of them at
/// once; dividing the writes between children comes after, on nodes in cache. Only a hint: a
/// key that leaves a branch's prefix is followed by its split bit all the same.
fn warm_paths(node: &Node, start: usize, ops: &[Op]) {
    let bit_or_zero = |key: &[u8], i: usize| key.get(i / 8).map_or(0, |b| (b >> (7 - i % 8)) & 1);
    let mut level: Vec<(&Node, usize, &[Op])> = vec![(node, start, ops)];
    let mut next = Vec::new();
    // Children off the paths: their hashes are read.
    let mut beside: Vec<&Node> = Vec::new();
    let mut seen = 0u8;
    for _ in 0..WARM_LEVELS {
        if level.is_empty() {
            break;
        }
        for (node, start, _) in &level {
            seen ^= match node {
                // The prefix's first byte (compared with each key, and hashed), the split bit,
                // the children's kinds and the hash's tag (the rehash asks whether it is
                // known): a branch's cache lines.
                Node::Branch(branch) => {
                    let first = branch.path.get(start / 8).copied().unwrap_or(0);
                    let known = u8::from(branch.hash.is_some());
                    first ^ known ^ branch.split as u8 ^ kind(&branch.left) ^ kind(&branch.right)
                }
                // The key, the value and the hash's tag: a leaf's cache lines.
                Node::Leaf(leaf) => {
                    let first = leaf.key.first().copied().unwrap_or(0);
                    first ^ leaf.value[0] ^ u8::from(leaf.hash.is_some())
                }
                Node::Empty | Node::Stored(_) => 0,
            };
        }
        for (node, _, ops) in level.drain(..) {
            let Node::Branch(branch) = node else { continue };
            let mid = ops.partition_point(|(key, _)| bit_or_zero(key, branch.split) == 0);
            let (left, right) = ops.split_at(mid);
            for (child, ops) in [(&branch.left, left), (&branch.right, right)] {
                if ops.is_empty() {
                    beside.push(child);
                } else {
                    next.push((child, branch.split + 1, ops));
                }
            }
        }
        core::mem::swap(&mut level, &mut next);
    }
    for node in &beside {
        seen ^= match node {
            Node::Branch(b) => b.hash.map_or(0, |h| h[0] ^ h[31]),
            Node::Leaf(l) => l.hash.map_or(0, |h| h[0] ^ h[31]),
            Node::Empty | Node::Stored(_) => 0,
        };
    }
    core::hint::black_box(seen);
}

/// A byte naming the kind of `node` (read from the node's parent).
#[inline(always)]
fn kind(node: &Node) -> u8 {
    match node {
        Node::Empty => 0,
        Node::Leaf(_) => 1,
        Node::Branch(_) => 2,
        Node::Stored(_) => 3,
    }
}

/// The split bit of sorted, distinct keys (at least two) sharing bits `..start`, and how many
/// keys go left of it; an error if two keys are not prefix-free.
fn divide<V>(entries: &[(&[u8], V)], start: usize) -> Result<(usize, usize), Error> {
    let (Some((first, _)), Some((last, _))) = (entries.first(), entries.last()) else {
        return Ok((start, 0));
    };
    // Sorted keys: the first and last diverge at the first bit where any two do.
    let limit = 8 * core::cmp::min(first.len(), last.len());
    let split = first_difference(first, last, start, limit);
    if split == limit {
        return Err(not_prefix_free(first.len(), last.len()));
    }
    if let Some((key, _)) = entries.iter().find(|(key, _)| 8 * key.len() <= split) {
        return Err(not_prefix_free(key.len(), last.len()));
    }
    Ok((
        split,
        entries.partition_point(|(key, _)| bit(key, split) == 0),
    ))
}

/// `binarize(entries, start)` for sorted, distinct keys sharing bits `..start`, folded
/// bottom-up: `leaf(key, value)` for each leaf and `branch(path, start, split, left, right)`
/// for each branch, children before parents and left before right; `None` for no entries.
/// Runs on an explicit stack; the first error in pre-order is returned.
fn binarize<V, T>(
    entries: &[(&[u8], V)],
    start: usize,
    mut leaf: impl FnMut(&[u8], &V) -> T,
    mut branch: impl FnMut(&[u8], usize, usize, T, T) -> T,
) -> Result<Option<T>, Error> {
    enum Task<'e, 'k, V> {
        Divide(&'e [(&'k [u8], V)], usize),
        Join(&'k [u8], usize, usize),
    }
    let mut tasks = vec![Task::Divide(entries, start)];
    // Finished subtrees, a branch's left below its right.
    let mut done: Vec<T> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Divide([], _) => {}
            Task::Divide([(key, value)], _) => done.push(leaf(key, value)),
            Task::Divide(entries, start) => {
                let (split, mid) = divide(entries, start)?;
                let (left, right) = entries.split_at(mid);
                tasks.push(Task::Join(entries[0].0, start, split));
                tasks.push(Task::Divide(right, split + 1));
                tasks.push(Task::Divide(left, split + 1));
            }
            Task::Join(path, start, split) => {
                let (Some(right), Some(left)) = (done.pop(), done.pop()) else {
                    continue;
                };
                done.push(branch(path, start, split, left, right));
            }
        }
    }
    Ok(done.pop())
}

/// The subtree (`binarize`) of sorted, distinct, present writes sharing bits `..start`, with
/// no hash computed yet. With the `parallel` feature the top [`PARALLEL_LEVELS`] levels of a
/// large batch build their halves on rayon threads.
fn build(start: usize, ops: &[Op], level: usize) -> Result<Node, Error> {
    #[cfg(feature = "parallel")]
    if level < PARALLEL_LEVELS && ops.len() >= PARALLEL_MIN_WRITES {
        let (split, mid) = divide(ops, start)?;
        let (left, right) = ops.split_at(mid);
        let (l, r) = rayon::join(
            || build(split + 1, left, level + 1),
            || build(split + 1, right, level + 1),
        );
        return Ok(branch_node(ops[0].0, start, split, l?, r?));
    }
    #[cfg(not(feature = "parallel"))]
    let _ = level;
    let built = binarize(
        ops,
        start,
        |key, value| Node::leaf(key, &value.unwrap_or_default()),
        branch_node,
    )?;
    Ok(built.unwrap_or_default())
}

/// A branch over `left` and `right` at bit `split`, with no hash yet.
fn branch_node(path: &[u8], _start: usize, split: usize, left: Node, right: Node) -> Node {
    Node::Branch(Box::new(Branch {
        path: path.into(),
        split,
        left,
        right,
        hash: None,
    }))
}

/// Where sorted `ops` divide between `branch`'s children, if every key follows the branch's
/// prefix and goes on past its split bit.
fn partition(branch: &Branch, start: usize, ops: &[Op]) -> Option<usize> {
    let follows = |key: &[u8]| {
        8 * key.len() > branch.split
            && first_difference(&branch.path, key, start, branch.split) == branch.split
    };
    if !ops.iter().all(|(key, _)| follows(key)) {
        return None;
    }
    Some(ops.partition_point(|(key, _)| bit(key, branch.split) == 0))
}

/// The hash of `node` (non-empty), whose prefix starts at bit `start`, computing the hashes
/// missing below it; `count` gains one per hash computed. Over the top [`PARALLEL_LEVELS`]
/// levels, two dirty branch children are hashed on rayon threads.
#[cfg(feature = "parallel")]
fn node_hash<H: TreeHash>(
    node: &mut Node,
    start: usize,
    level: usize,
    count: &mut u64,
) -> [u8; 32] {
    if level >= PARALLEL_LEVELS {
        return paired_hash::<H>(node, start, 0, count);
    }
    let Node::Branch(branch) = node else {
        return paired_hash::<H>(node, start, 0, count);
    };
    if let Some(hash) = branch.hash {
        return hash;
    }
    let next = branch.split + 1;
    let dirty = |node: &Node| match node {
        Node::Branch(b) => b.hash.is_none(),
        _ => false,
    };
    let (left, right) = if dirty(&branch.left) && dirty(&branch.right) {
        let (mut lc, mut rc) = (0, 0);
        let (left, right) = rayon::join(
            || node_hash::<H>(&mut branch.left, next, level + 1, &mut lc),
            || node_hash::<H>(&mut branch.right, next, level + 1, &mut rc),
        );
        *count += lc + rc;
        (left, right)
    } else {
        (
            node_hash::<H>(&mut branch.left, next, level + 1, count),
            node_hash::<H>(&mut branch.right, next, level + 1, count),
        )
    };
    branch.hash::<H>(start, &left, &right, count)
}

/// The hash of `node` (non-empty), whose prefix starts at bit `start`, computing the hashes
/// missing below it; `count` gains one per hash computed.
#[cfg(not(feature = "parallel"))]
fn node_hash<H: TreeHash>(
    node: &mut Node,
    start: usize,
    _level: usize,
    count: &mut u64,
) -> [u8; 32] {
    paired_hash::<H>(node, start, 0, count)
}

/// The hash of `node`, whose prefix starts at bit `start`, computing the hashes missing below
/// it in post-order (left subtree, right subtree, node) on an explicit stack of the dirty
/// branches being hashed, each taken out of its parent meanwhile; `count` gains one per hash
/// computed.
fn subtree_hash<H: TreeHash>(node: &mut Node, start: usize, count: &mut u64) -> [u8; 32] {
    let mut branch = match node.hash_or_take::<H>(count) {
        Hash::Known(hash) => return hash,
        Hash::Missing(branch) => branch,
    };
    // The dirty ancestors of `branch`: each with its start and its left child's hash once known.
    let mut ancestors: Vec<(Box<Branch>, usize, Option<[u8; 32]>)> = Vec::new();
    let (mut start, mut left) = (start, None);
    loop {
        let child = match left {
            None => &mut branch.left,
            Some(_) => &mut branch.right,
        };
        let right = match child.hash_or_take::<H>(count) {
            Hash::Missing(dirty) => {
                let next = branch.split + 1;
                ancestors.push((branch, start, left));
                (branch, start, left) = (dirty, next, None);
                continue;
            }
            Hash::Known(hash) => hash,
        };
        let Some(left_hash) = left else {
            left = Some(right);
            continue;
        };
        let hash = branch.hash::<H>(start, &left_hash, &right, count);
        let Some((mut parent, parent_start, parent_left)) = ancestors.pop() else {
            *node = Node::Branch(branch);
            return hash;
        };
        // Back in its place, the branch's hash is read from its cache.
        *match parent_left {
            None => &mut parent.left,
            Some(_) => &mut parent.right,
        } = Node::Branch(branch);
        (branch, start, left) = (parent, parent_start, parent_left);
    }
}

/// The hash of `node`, whose prefix starts at bit `start`, computing the hashes missing below
/// it as [`subtree_hash`] does, but two at a time where two are independent: below a dirty
/// branch whose children are both to be computed, the two children's subtrees are walked in
/// step ([`hash_two_nodes`]), so that a hash that works on two messages at once
/// ([`TreeHash::hash_two`]: BLAKE3 on AVX2) gets them in pairs. `depth` counts the levels
/// recursed; from [`PAIR_LEVELS`] on, [`subtree_hash`]'s explicit stack takes over.
fn paired_hash<H: TreeHash>(
    node: &mut Node,
    start: usize,
    depth: usize,
    count: &mut u64,
) -> [u8; 32] {
    if depth >= PAIR_LEVELS {
        return subtree_hash::<H>(node, start, count);
    }
    match node {
        Node::Empty => [0u8; 32],
        Node::Stored(hash) => **hash,
        Node::Leaf(leaf) => leaf.hash::<H>(count),
        Node::Branch(branch) => {
            if let Some(hash) = branch.hash {
                return hash;
            }
            let next = branch.split + 1;
            let (left, right) = if dirty(&branch.left) && dirty(&branch.right) {
                let [left, right] = hash_two_nodes::<H>(
                    (&mut branch.left, next),
                    (&mut branch.right, next),
                    depth + 1,
                    count,
                );
                (left, right)
            } else {
                (
                    paired_hash::<H>(&mut branch.left, next, depth + 1, count),
                    paired_hash::<H>(&mut branch.right, next, depth + 1, count),
                )
            };
            branch.hash::<H>(start, &left, &right, count)
        }
    }
}

/// Whether `node`'s hash is to be computed (a dirty branch or leaf).
fn dirty(node: &Node) -> bool {
    match node {
        Node::Branch(branch) => branch.hash.is_none(),
        Node::Leaf(leaf) => leaf.hash.is_none(),
        Node::Empty | Node::Stored(_) => false,
    }
}

/// The hashes of two nodes (each with the bit its prefix starts at), both to be computed: the
/// missing hashes below them first (the children of both that are to be computed, paired in
/// order, again through this function), then the two nodes' own messages together
/// ([`TreeHash::hash_two`]). The same hashes, cached and counted, as [`paired_hash`] of each.
fn hash_two_nodes<H: TreeHash>(
    (a, a_start): (&mut Node, usize),
    (b, b_start): (&mut Node, usize),
    depth: usize,
    count: &mut u64,
) -> [[u8; 32]; 2] {
    if depth >= PAIR_LEVELS || !dirty(a) || !dirty(b) {
        return [
            paired_hash::<H>(a, a_start, depth, count),
            paired_hash::<H>(b, b_start, depth, count),
        ];
    }
    // The children of the branches among the two, each with its start: their hashes first.
    let mut children: [Option<(&mut Node, usize)>; 4] = [None, None, None, None];
    for (node, slots) in [&mut *a, &mut *b]
        .into_iter()
        .zip(children.chunks_exact_mut(2))
    {
        if let Node::Branch(branch) = node {
            let next = branch.split + 1;
            let Branch { left, right, .. } = &mut **branch;
            slots[0] = Some((left, next));
            slots[1] = Some((right, next));
        }
    }
    let mut hashes = [[0u8; 32]; 4];
    let mut waiting: Option<usize> = None;
    for i in 0..children.len() {
        let Some((child, start)) = children[i].take() else {
            continue;
        };
        if !dirty(child) {
            hashes[i] = paired_hash::<H>(child, start, depth + 1, count);
            continue;
        }
        let Some(w) = waiting.take() else {
            waiting = Some(i);
            children[i] = Some((child, start));
            continue;
        };
        if let Some(first) = children[w].take() {
            [hashes[w], hashes[i]] = hash_two_nodes::<H>(first, (child, start), depth + 1, count);
        }
    }
    if let Some(w) = waiting {
        if let Some((child, start)) = children[w].take() {
            hashes[w] = paired_hash::<H>(child, start, depth + 1, count);
        }
    }
    let [al, ar, bl, br] = hashes;
    let mut prefixes = [Vec::new(), Vec::new()];
    for ((node, start), prefix) in [(&*a, a_start), (&*b, b_start)]
        .into_iter()
        .zip(&mut prefixes)
    {
        if let Node::Branch(branch) = node {
            encode_bit_prefix(&branch.path, start, branch.split, prefix);
        }
    }
    let [pa, pb] = &prefixes;
    let ma = node_message(a, pa, &al, &ar);
    let mb = node_message(b, pb, &bl, &br);
    let out = H::hash_two(&ma, &mb);
    *count += 2;
    for (node, hash) in [a, b].into_iter().zip(out) {
        match node {
            Node::Leaf(leaf) => leaf.hash = Some(hash),
            Node::Branch(branch) => branch.hash = Some(hash),
            Node::Empty | Node::Stored(_) => {}
        }
    }
    out
}

/// The parts of a node's message: a leaf's `0x00 ‖ key ‖ value` (its own), a branch's
/// `0x01 ‖ prefix ‖ left ‖ right` (from its encoded prefix and its children's hashes).
fn node_message<'m>(
    node: &'m Node,
    prefix: &'m [u8],
    left: &'m [u8; 32],
    right: &'m [u8; 32],
) -> [&'m [u8]; 4] {
    match node {
        Node::Leaf(leaf) => [&[LEAF_TAG], &leaf.key[..], &leaf.value, &[]],
        _ => [&[BRANCH_TAG], prefix, left, right],
    }
}

/// EIP-8297 `state_root` of a key/value set computed from scratch (`binarize`, then
/// `merkelize`), without a tree: the definition the [`Tree`] must match.
pub fn root_of_entries<H: TreeHash>(entries: &[(&[u8], [u8; 32])]) -> Result<[u8; 32], Error> {
    let mut sorted: Vec<(&[u8], [u8; 32])> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        check_key(key)?;
        sorted.push((key, *value));
    }
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 = later.1;
        }
        same
    });
    let mut prefix = Vec::new();
    let root = binarize(
        &sorted,
        0,
        |key, value| H::hash(&[&[LEAF_TAG], key, value]),
        |path, start, split, left, right| {
            encode_bit_prefix(path, start, split, &mut prefix);
            H::hash(&[&[BRANCH_TAG], &prefix, &left, &right])
        },
    )?;
    Ok(root.unwrap_or([0u8; 32]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Blake3;

    fn key(bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }

    #[test]
    fn insert_remove_match_the_definition() {
        let keys = [
            key(&[0x00, 0x01]),
            key(&[0x00, 0x02]),
            key(&[0x80]),
            key(&[0x00, 0x03, 0x04]),
        ];
        let mut tree = Tree::<Blake3>::new();
        let mut entries: Vec<(&[u8], [u8; 32])> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let value = [i as u8 + 1; 32];
            tree.insert(k, &value).unwrap();
            entries.push((k, value));
            assert_eq!(tree.root(), root_of_entries::<Blake3>(&entries).unwrap());
        }
        for k in &keys {
            assert!(tree.remove(k).unwrap());
            entries.retain(|(e, _)| *e != k.as_slice());
            assert_eq!(tree.root(), root_of_entries::<Blake3>(&entries).unwrap());
        }
        assert_eq!(tree.root(), [0; 32]);
        assert!(tree.is_empty());
    }

    /// Keys up to 66 bytes live in their nodes, longer ones on the heap: both kinds, and keys
    /// just either side of the bound sharing every byte but the last, give the definition's
    /// root, read back, and survive a deletion that lifts a branch.
    #[test]
    fn keys_held_in_the_node_and_on_the_heap() {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for len in [1usize, 34, 65, 66, 67, 300, MAX_KEY_LENGTH] {
            let mut k = vec![0x5a; len];
            k[0] = len as u8 ^ (len >> 8) as u8;
            keys.push(k);
        }
        // Two keys of 66 and two of 67 bytes differing in the last bit only.
        for len in [66usize, 67] {
            for last in [0x10u8, 0x11] {
                let mut k = vec![0xc3; len];
                k[len - 1] = last;
                keys.push(k);
            }
        }
        let mut tree = Tree::<Blake3>::new();
        let entries: Vec<(&[u8], [u8; 32])> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_slice(), [i as u8 + 1; 32]))
            .collect();
        tree.apply(entries.iter().map(|(k, v)| (*k, Some(*v))))
            .unwrap();
        assert_eq!(tree.root(), root_of_entries::<Blake3>(&entries).unwrap());
        for (k, v) in &entries {
            assert_eq!(tree.get(k), Some(v), "key of {} bytes", k.len());
        }
        // Deleting one of the 67-byte pair lifts the other into its branch's place.
        let gone = keys[keys.len() - 1].clone();
        assert!(tree.remove(&gone).unwrap());
        let left: Vec<(&[u8], [u8; 32])> = entries
            .iter()
            .copied()
            .filter(|(k, _)| *k != gone.as_slice())
            .collect();
        assert_eq!(tree.root(), root_of_entries::<Blake3>(&left).unwrap());
        assert_eq!(tree.clone().root(), tree.root());
    }

    #[test]
    fn untrusted_keys_get_errors() {
        let mut tree = Tree::<Blake3>::new();
        assert!(matches!(
            tree.insert(&[], &[0; 32]),
            Err(Error::KeyLength { .. })
        ));
        assert!(tree.insert(&vec![1; MAX_KEY_LENGTH + 1], &[0; 32]).is_err());
        tree.insert(&[1, 2], &[1; 32]).unwrap();
        assert!(matches!(
            tree.insert(&[1], &[1; 32]),
            Err(Error::NotPrefixFree { .. })
        ));
        assert!(matches!(
            tree.insert(&[1, 2, 3], &[1; 32]),
            Err(Error::NotPrefixFree { .. })
        ));
        tree.insert(&[1, 3], &[1; 32]).unwrap();
        assert!(tree.insert(&[1], &[1; 32]).is_err());
        assert_eq!(tree.len(), 2);
        assert!(!tree.remove(&[1]).unwrap());
        assert_eq!(tree.get(&[1, 3]), Some(&[1; 32]));
    }

    /// Keys `1^i 0` padded to 2,600 bytes: prefix-free, key `i` leaving the others one bit
    /// deeper than key `i - 1`, so the tree is a path of 20,000 branches. Built one key at a
    /// time and as a batch, hashed, copied, written at the bottom of the path and emptied, on
    /// a thread whose stack holds a few hundred frames: every walk of the path is a loop or
    /// an explicit stack.
    #[test]
    fn a_path_as_deep_as_the_keys_fits_a_small_stack() {
        const KEYS: usize = 20_000;
        const BYTES: usize = 2_600;
        let run = || {
            let keys: Vec<Vec<u8>> = (0..=KEYS)
                .map(|i| {
                    let mut key = vec![0u8; BYTES];
                    key[..i / 8].fill(0xff);
                    key[i / 8] = !(0xffu8 >> (i % 8));
                    key
                })
                .collect();
            let value = |i: usize| [(i % 251) as u8 + 1; 32];
            let mut entries: Vec<(&[u8], [u8; 32])> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.as_slice(), value(i)))
                .collect();
            // The deepest key, written separately below.
            let (deepest, _) = entries.pop().unwrap();
            let expected = root_of_entries::<Blake3>(&entries).unwrap();

            // Shallowest last: each key lands above the path so far, at the root.
            let mut one = Tree::<Blake3>::new();
            for (key, value) in entries.iter().rev() {
                one.insert(key, value).unwrap();
            }
            assert_eq!(one.root(), expected);
            assert_eq!(one.hash_count(), 2 * KEYS as u64 - 1);
            assert_eq!(one.get(&keys[KEYS - 1]), Some(&value(KEYS - 1)));

            let mut batch = Tree::<Blake3>::new();
            batch
                .apply(entries.iter().map(|(k, v)| (*k, Some(*v))))
                .unwrap();
            assert_eq!(batch.root(), expected);

            // Writes at the bottom of the path rehash all of it, in the copy only.
            let mut copy = one.clone();
            copy.insert(deepest, &[0xee; 32]).unwrap();
            let counted = copy.hash_count();
            entries.push((deepest, [0xee; 32]));
            assert_eq!(copy.root(), root_of_entries::<Blake3>(&entries).unwrap());
            assert_eq!(copy.hash_count() - counted, KEYS as u64 + 1);
            copy.insert(&keys[KEYS - 1], &[0xdd; 32]).unwrap();
            assert!(copy.remove(deepest).unwrap());
            assert!(copy.remove(&keys[KEYS - 1]).unwrap());
            entries.truncate(KEYS - 1);
            assert_eq!(copy.root(), root_of_entries::<Blake3>(&entries).unwrap());
            assert_eq!(one.root(), expected);

            // The deepest key first, walking the whole path; then each from the root.
            assert!(one.remove(&keys[KEYS - 1]).unwrap());
            for key in &keys[..KEYS - 1] {
                assert!(one.remove(key).unwrap());
            }
            assert_eq!(one.root(), [0; 32]);
            assert!(one.is_empty());
            batch.apply(keys.iter().map(|k| (k, None))).unwrap();
            assert_eq!(batch.root(), [0; 32]);
            assert!(batch.is_empty());
        };
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}
