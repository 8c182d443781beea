//! The EIP-8297 tree in memory: prefix-compressed branches, every node's hash cached.
//!
//! A [`Tree`] holds a key/value set whose root is EIP-8297 `state_root` of that set ("Tree
//! structure", "Node merkelization", "Insertion and deletion"). Writes clear the cached hash
//! of every node on the written path; [`Tree::root`] rehashes exactly those nodes, each
//! once. [`Tree::apply`] takes a whole batch first and, with the `parallel` feature, applies
//! and rehashes the subtrees below the top [`PARALLEL_LEVELS`] branch levels (hypertrees) on
//! rayon threads; the root is the same as for the writes applied one by one, in any order.

use core::marker::PhantomData;

use crate::bits::{bit, encode_bit_prefix, first_difference};
use crate::prelude::*;
use crate::{Error, TreeHash};

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

/// A node: absent (only as the root of an empty tree or a moment during a write), a leaf, or
/// a branch with two non-empty children.
#[derive(Clone, Debug, Default)]
enum Node {
    #[default]
    Empty,
    Leaf(Box<Leaf>),
    Branch(Box<Branch>),
}

/// `LeafNode`: the complete key and its value.
#[derive(Clone, Debug)]
struct Leaf {
    key: Box<[u8]>,
    value: [u8; 32],
    hash: Option<[u8; 32]>,
}

/// `BranchNode`. Its prefix is bits `start..split` of `path`, where `start` is one past the
/// parent's split bit (0 at the root) and is passed down rather than stored, so that a branch
/// that rises on deletion takes its parent's start without being rewritten.
#[derive(Clone, Debug)]
struct Branch {
    /// A key below this branch; its first `split` bits are every key's below.
    path: Box<[u8]>,
    /// The bit that sends a key left (0) or right (1).
    split: usize,
    left: Node,
    right: Node,
    hash: Option<[u8; 32]>,
}

/// What a write did to the entry set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    None,
    Value,
    Inserted,
    Removed,
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
}

/// An EIP-8297 tree over the hash `H`.
///
/// Writes, removals and the rehash recurse once per branch on a key's path. Keys from the
/// embedding are hash-derived, so paths stay near `log2(keys)` branches; keys chosen to share
/// ever longer prefixes can make a path as deep as the number of keys.
#[derive(Clone, Debug)]
pub struct Tree<H: TreeHash> {
    root: Node,
    len: usize,
    hashes: u64,
    hash: PhantomData<H>,
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

    /// The value at `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<&[u8; 32]> {
        let mut node = &self.root;
        loop {
            match node {
                Node::Empty => return None,
                Node::Leaf(leaf) => return (*leaf.key == *key).then_some(&leaf.value),
                Node::Branch(branch) => {
                    if key.len() * 8 <= branch.split {
                        return None;
                    }
                    node = if bit(key, branch.split) == 0 {
                        &branch.left
                    } else {
                        &branch.right
                    };
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
        let mut batch: Vec<(K, Option<[u8; 32]>)> = writes.into_iter().collect();
        for (key, _) in &batch {
            check_key(key.as_ref())?;
        }
        // Stable: equal keys keep their order, and the last of each run is kept.
        batch.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let mut ops: Vec<(&[u8], Option<[u8; 32]>)> = Vec::with_capacity(batch.len());
        for (key, value) in &batch {
            match ops.last_mut() {
                Some(last) if last.0 == key.as_ref() => last.1 = *value,
                _ => ops.push((key.as_ref(), *value)),
            }
        }
        let (inserted, removed) = apply(&mut self.root, 0, &ops, 0)?;
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

    fn count(&mut self, change: Change) {
        match change {
            Change::Inserted => self.len += 1,
            Change::Removed => self.len -= 1,
            Change::None | Change::Value => {}
        }
    }
}

/// Writes `key` below `node`, whose prefix starts at bit `start`.
fn insert(node: &mut Node, start: usize, key: &[u8], value: &[u8; 32]) -> Result<Change, Error> {
    match node {
        Node::Empty => {
            *node = Node::leaf(key, value);
            Ok(Change::Inserted)
        }
        Node::Leaf(leaf) => {
            if *leaf.key == *key {
                if leaf.value == *value {
                    return Ok(Change::None);
                }
                leaf.value = *value;
                leaf.hash = None;
                return Ok(Change::Value);
            }
            let limit = 8 * core::cmp::min(leaf.key.len(), key.len());
            let split = first_difference(&leaf.key, key, start, limit);
            if split == limit {
                return Err(not_prefix_free(leaf.key.len(), key.len()));
            }
            let existing = core::mem::take(node);
            *node = Node::split(existing, split, key, value);
            Ok(Change::Inserted)
        }
        Node::Branch(branch) => {
            let limit = core::cmp::min(branch.split, 8 * key.len());
            let split = first_difference(&branch.path, key, start, limit);
            if split < limit {
                // The key leaves the prefix: a new branch above this one, which now starts
                // one past the new split.
                let mut existing = core::mem::take(node);
                existing.invalidate();
                *node = Node::split(existing, split, key, value);
                return Ok(Change::Inserted);
            }
            if 8 * key.len() <= branch.split {
                return Err(not_prefix_free(key.len(), branch.path.len()));
            }
            let child = if bit(key, branch.split) == 0 {
                &mut branch.left
            } else {
                &mut branch.right
            };
            let change = insert(child, branch.split + 1, key, value)?;
            if change != Change::None {
                branch.hash = None;
            }
            Ok(change)
        }
    }
}

fn not_prefix_free(a: usize, b: usize) -> Error {
    Error::NotPrefixFree {
        shorter: core::cmp::min(a, b),
        longer: core::cmp::max(a, b),
    }
}

/// Removes `key` below `node`; a branch left with one child is replaced by it.
fn remove(node: &mut Node, start: usize, key: &[u8]) -> Change {
    match node {
        Node::Empty => Change::None,
        Node::Leaf(leaf) => {
            if *leaf.key == *key {
                *node = Node::Empty;
                Change::Removed
            } else {
                Change::None
            }
        }
        Node::Branch(branch) => {
            let limit = core::cmp::min(branch.split, 8 * key.len());
            if 8 * key.len() <= branch.split
                || first_difference(&branch.path, key, start, limit) < limit
            {
                return Change::None;
            }
            let child = if bit(key, branch.split) == 0 {
                &mut branch.left
            } else {
                &mut branch.right
            };
            let change = remove(child, branch.split + 1, key);
            if change == Change::Removed {
                branch.hash = None;
                collapse(node);
            }
            change
        }
    }
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

/// Applies sorted, distinct writes below `node`; returns (keys inserted, keys removed).
fn apply(
    node: &mut Node,
    start: usize,
    ops: &[(&[u8], Option<[u8; 32]>)],
    level: usize,
) -> Result<(usize, usize), Error> {
    #[cfg(feature = "parallel")]
    if level < PARALLEL_LEVELS && ops.len() >= PARALLEL_MIN_WRITES {
        if let Node::Branch(branch) = node {
            if let Some(mid) = partition(branch, start, ops) {
                let split = branch.split;
                let (left, right) = ops.split_at(mid);
                let (l, r) = rayon::join(
                    || apply(&mut branch.left, split + 1, left, level + 1),
                    || apply(&mut branch.right, split + 1, right, level + 1),
                );
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
        return Ok((ops.len(), 0));
    }
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
    Ok((inserted, removed))
}

/// The subtree (`binarize`) of sorted, distinct, present writes sharing bits `..start`, with
/// no hash computed yet.
fn build(start: usize, ops: &[(&[u8], Option<[u8; 32]>)], level: usize) -> Result<Node, Error> {
    let (first, last) = match ops {
        [] => return Ok(Node::Empty),
        [(key, value)] => return Ok(Node::leaf(key, &value.unwrap_or_default())),
        [first, .., last] => (first.0, last.0),
    };
    // Sorted keys: the first and last diverge at the first bit where any two do.
    let limit = 8 * core::cmp::min(first.len(), last.len());
    let split = first_difference(first, last, start, limit);
    if split == limit {
        return Err(not_prefix_free(first.len(), last.len()));
    }
    if let Some((key, _)) = ops.iter().find(|(key, _)| 8 * key.len() <= split) {
        return Err(not_prefix_free(key.len(), last.len()));
    }
    let mid = ops.partition_point(|(key, _)| bit(key, split) == 0);
    let (left, right) = ops.split_at(mid);
    let (left, right) = build_children(split + 1, left, right, level)?;
    Ok(Node::Branch(Box::new(Branch {
        path: first.into(),
        split,
        left,
        right,
        hash: None,
    })))
}

#[cfg(feature = "parallel")]
fn build_children(
    start: usize,
    left: &[(&[u8], Option<[u8; 32]>)],
    right: &[(&[u8], Option<[u8; 32]>)],
    level: usize,
) -> Result<(Node, Node), Error> {
    if level < PARALLEL_LEVELS && left.len() + right.len() >= PARALLEL_MIN_WRITES {
        let (l, r) = rayon::join(
            || build(start, left, level + 1),
            || build(start, right, level + 1),
        );
        return Ok((l?, r?));
    }
    Ok((
        build(start, left, level + 1)?,
        build(start, right, level + 1)?,
    ))
}

#[cfg(not(feature = "parallel"))]
fn build_children(
    start: usize,
    left: &[(&[u8], Option<[u8; 32]>)],
    right: &[(&[u8], Option<[u8; 32]>)],
    level: usize,
) -> Result<(Node, Node), Error> {
    Ok((
        build(start, left, level + 1)?,
        build(start, right, level + 1)?,
    ))
}

/// Where sorted `ops` divide between `branch`'s children, if every key follows the branch's
/// prefix and goes on past its split bit.
#[cfg(feature = "parallel")]
fn partition(branch: &Branch, start: usize, ops: &[(&[u8], Option<[u8; 32]>)]) -> Option<usize> {
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
/// missing below it; `count` gains one per hash computed.
fn node_hash<H: TreeHash>(
    node: &mut Node,
    start: usize,
    level: usize,
    count: &mut u64,
) -> [u8; 32] {
    match node {
        Node::Empty => [0u8; 32],
        Node::Leaf(leaf) => {
            if let Some(hash) = leaf.hash {
                return hash;
            }
            let hash = H::hash(&[&[LEAF_TAG], &leaf.key, &leaf.value]);
            *count += 1;
            leaf.hash = Some(hash);
            hash
        }
        Node::Branch(branch) => {
            if let Some(hash) = branch.hash {
                return hash;
            }
            let next = branch.split + 1;
            let (left, right) = children_hashes::<H>(branch, next, level, count);
            let mut prefix = Vec::with_capacity(2 + (branch.split - start).div_ceil(8));
            encode_bit_prefix(&branch.path, start, branch.split, &mut prefix);
            let hash = H::hash(&[&[BRANCH_TAG], &prefix, &left, &right]);
            *count += 1;
            branch.hash = Some(hash);
            hash
        }
    }
}

#[cfg(feature = "parallel")]
fn children_hashes<H: TreeHash>(
    branch: &mut Branch,
    next: usize,
    level: usize,
    count: &mut u64,
) -> ([u8; 32], [u8; 32]) {
    let dirty = |node: &Node| match node {
        Node::Branch(b) => b.hash.is_none(),
        _ => false,
    };
    if level < PARALLEL_LEVELS && dirty(&branch.left) && dirty(&branch.right) {
        let (mut lc, mut rc) = (0, 0);
        let (left, right) = rayon::join(
            || node_hash::<H>(&mut branch.left, next, level + 1, &mut lc),
            || node_hash::<H>(&mut branch.right, next, level + 1, &mut rc),
        );
        *count += lc + rc;
        return (left, right);
    }
    (
        node_hash::<H>(&mut branch.left, next, level + 1, count),
        node_hash::<H>(&mut branch.right, next, level + 1, count),
    )
}

#[cfg(not(feature = "parallel"))]
fn children_hashes<H: TreeHash>(
    branch: &mut Branch,
    next: usize,
    level: usize,
    count: &mut u64,
) -> ([u8; 32], [u8; 32]) {
    (
        node_hash::<H>(&mut branch.left, next, level + 1, count),
        node_hash::<H>(&mut branch.right, next, level + 1, count),
    )
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
    if sorted.is_empty() {
        return Ok([0u8; 32]);
    }
    binarize_hash::<H>(&sorted, 0)
}

/// `merkelize(binarize(entries, depth))` for sorted distinct keys that share bits `..depth`.
fn binarize_hash<H: TreeHash>(
    entries: &[(&[u8], [u8; 32])],
    depth: usize,
) -> Result<[u8; 32], Error> {
    let (first, last) = match entries {
        [(key, value)] => return Ok(H::hash(&[&[LEAF_TAG], key, value])),
        [first, .., last] => (first.0, last.0),
        [] => return Ok([0u8; 32]),
    };
    // Sorted keys: the first and last diverge at the first bit where any two do.
    let limit = 8 * core::cmp::min(first.len(), last.len());
    let split = first_difference(first, last, depth, limit);
    if split == limit {
        return Err(not_prefix_free(first.len(), last.len()));
    }
    if let Some((key, _)) = entries.iter().find(|(key, _)| 8 * key.len() <= split) {
        return Err(not_prefix_free(key.len(), last.len()));
    }
    let mid = entries.partition_point(|(key, _)| bit(key, split) == 0);
    let left = binarize_hash::<H>(&entries[..mid], split + 1)?;
    let right = binarize_hash::<H>(&entries[mid..], split + 1)?;
    let mut prefix = Vec::new();
    encode_bit_prefix(first, depth, split, &mut prefix);
    Ok(H::hash(&[&[BRANCH_TAG], &prefix, &left, &right]))
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
}
