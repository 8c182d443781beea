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

use alloc::collections::{BTreeMap, BTreeSet};

use super::tree::{Branch, Leaf, Node, Tree, BRANCH_TAG, LEAF_TAG, MAX_KEY_LENGTH};
use crate::bits::{bit, encode_bit_prefix, first_difference};
use crate::prelude::*;
use crate::store::{
    self, corrupt, position, same_bits, Changes, NodeSource, Reader, RecordError, StoreError,
    RECORD_VERSION,
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
    /// Keys written since the last commit.
    written: BTreeSet<Vec<u8>>,
    /// Positions of the nodes on the written paths before the writes (and beside them, for
    /// deletions): where a record may have to be removed.
    visited: BTreeSet<Vec<u8>>,
}

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
            written: BTreeSet::new(),
            visited: BTreeSet::new(),
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
        self.load_paths(source, vec![(key, false)], false)?;
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
        self.load_paths(source, keys, true)?;
        for (key, _) in &writes {
            self.written.insert(key.as_ref().to_vec());
        }
        self.tree.apply(writes)?;
        Ok(())
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
        self.load_paths(source, keys, false)?;
        Ok(self.tree.witness(writes)?)
    }

    /// The records the writes since the last [`StoredTree::committed`] change: every node on
    /// a written path and beside it (nodes moved by a split or a collapse are there), and the
    /// positions left empty. Computes the root first.
    pub fn changes(&mut self) -> Changes {
        let root = self.tree.root();
        let mut puts: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for key in &self.written {
            collect(&self.tree.root, key, &mut puts);
        }
        let deletes = self
            .visited
            .iter()
            .filter(|position| !puts.contains_key(*position))
            .cloned()
            .collect();
        Changes {
            puts: puts.into_iter().collect(),
            deletes,
            root,
            len: self.tree.len() as u64,
        }
    }

    /// Marks the last [`StoredTree::changes`] as written to the store: the next changes start
    /// from here, and the nodes may be evicted.
    pub fn committed(&mut self) {
        self.written.clear();
        self.visited.clear();
    }

    /// Nodes in memory (branches and leaves; stored handles not counted).
    pub fn loaded_nodes(&self) -> usize {
        levels(&self.tree.root).iter().sum()
    }

    /// Keeps at most `budget` nodes in memory: the top levels of the tree that fit whole,
    /// every node below them becoming a stored handle. Does nothing while writes are not
    /// committed ([`StoredTree::committed`]) or when the tree is within budget.
    pub fn evict(&mut self, budget: usize) {
        if !self.written.is_empty() {
            return;
        }
        let counts = levels(&self.tree.root);
        if counts.iter().sum::<usize>() <= budget {
            return;
        }
        let mut kept = 0usize;
        let mut keep = 0;
        for count in &counts {
            if kept + count > budget {
                break;
            }
            kept += count;
            keep += 1;
        }
        let mut stack: Vec<(&mut Node, usize)> = vec![(&mut self.tree.root, 0)];
        while let Some((node, depth)) = stack.pop() {
            if depth >= keep {
                let hash = match node {
                    Node::Leaf(leaf) => leaf.hash,
                    Node::Branch(branch) => branch.hash,
                    Node::Empty | Node::Stored(_) => None,
                };
                if let Some(hash) = hash {
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

    /// Loads the stored nodes on the paths of `keys` (each with whether it is a removal), and
    /// for a removal the node beside each branch its path passes; with `record`, notes the
    /// positions of the nodes passed. Level by level (a level: the nodes below as many
    /// branches), one [`NodeSource::load_many`] for all the stored nodes a level reaches.
    fn load_paths<S: NodeSource>(
        &mut self,
        source: &S,
        mut keys: Vec<(&[u8], bool)>,
        record: bool,
    ) -> Result<(), StoreError<S::Error>> {
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
        if keys.is_empty() {
            return Ok(());
        }
        while !level.is_empty() {
            load_level::<H, S>(&mut level, source)?;
            let mut next = Vec::with_capacity(2 * level.len());
            let mut next_keys = Vec::with_capacity(keys.len());
            for visit in level {
                if record && !matches!(visit.node, Node::Empty) {
                    self.visited
                        .insert(position(visit.name, visit.start, visit.flip, WIDTH));
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
        Ok(())
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
fn load_level<H: TreeHash, S: NodeSource>(
    level: &mut [Visit<'_, '_>],
    source: &S,
) -> Result<(), StoreError<S::Error>> {
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
    Ok(())
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

/// The record of `node` (leaf or branch, hashed); empty for others.
fn encode(node: &Node) -> Vec<u8> {
    match node {
        Node::Leaf(leaf) => {
            let mut out = Vec::with_capacity(4 + leaf.key.len() + 32);
            out.extend_from_slice(&[RECORD_VERSION, KIND_LEAF]);
            out.extend_from_slice(&(leaf.key.len() as u16).to_be_bytes());
            out.extend_from_slice(&leaf.key);
            out.extend_from_slice(&leaf.value);
            out
        }
        Node::Branch(branch) => {
            let bytes = branch.split / 8 + 1;
            let mut out = Vec::with_capacity(4 + bytes + 64);
            out.extend_from_slice(&[RECORD_VERSION, KIND_BRANCH]);
            out.extend_from_slice(&(branch.split as u16).to_be_bytes());
            out.extend_from_slice(&branch.path[..bytes]);
            out.extend_from_slice(&cached(&branch.left));
            out.extend_from_slice(&cached(&branch.right));
            out
        }
        Node::Empty | Node::Stored(_) => Vec::new(),
    }
}

/// Adds the records of the loaded nodes on `key`'s path and beside it to `puts`.
fn collect(mut node: &Node, key: &[u8], puts: &mut BTreeMap<Vec<u8>, Vec<u8>>) {
    let mut start = 0;
    loop {
        match node {
            Node::Empty | Node::Stored(_) => return,
            Node::Leaf(_) => {
                puts.insert(position(key, start, None, WIDTH), encode(node));
                return;
            }
            Node::Branch(branch) => {
                puts.insert(position(key, start, None, WIDTH), encode(node));
                let split = branch.split;
                let side = bit(&branch.path, split);
                for (child, b) in [(&branch.left, 0), (&branch.right, 1)] {
                    if matches!(child, Node::Leaf(_) | Node::Branch(_)) {
                        let flip = (b != side).then_some(split);
                        puts.insert(
                            position(&branch.path, split + 1, flip, WIDTH),
                            encode(child),
                        );
                    }
                }
                let limit = core::cmp::min(split, 8 * key.len());
                if 8 * key.len() <= split
                    || first_difference(&branch.path, key, start, limit) < limit
                {
                    return;
                }
                start = split + 1;
                node = if bit(key, split) == 0 {
                    &branch.left
                } else {
                    &branch.right
                };
            }
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
            let budget = rng.below(12);
            stored.evict(budget);
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
