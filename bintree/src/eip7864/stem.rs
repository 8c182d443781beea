//! A stem node: the present values of one 31-byte stem and the cached hashes of its 256-leaf
//! subtree, so that a write rehashes only the subtree nodes above the written leaves.

use crate::prelude::*;
use crate::TreeHash;

/// Length of a stem.
pub const STEM_LENGTH: usize = 31;

/// `StemNode` ("Tree structure").
#[derive(Clone, Debug)]
pub(super) struct StemNode {
    pub(super) stem: [u8; STEM_LENGTH],
    /// Present values, sorted by sub-index.
    values: Vec<Slot>,
    /// Non-zero hashes of the subtree's inner nodes by heap number: the subtree root is 1 and
    /// the children of `n` are `2n` and `2n + 1`, so inner nodes are `1..=255` and the leaf of
    /// sub-index `i` would be `256 + i`. Sorted by number.
    inner: Vec<(u8, [u8; 32])>,
    /// `hash(stem ‖ 0x00 ‖ subtree root)`, when up to date.
    pub(super) hash: Option<[u8; 32]>,
}

#[derive(Clone, Debug)]
struct Slot {
    index: u8,
    value: [u8; 32],
    /// `hash(value)`, when up to date.
    hash: Option<[u8; 32]>,
}

/// `hash(left ‖ right)` with the zero rule: 64 zero bytes hash to 32 zero bytes (not counted).
#[inline]
pub(super) fn hash_pair<H: TreeHash>(
    left: &[u8; 32],
    right: &[u8; 32],
    count: &mut u64,
) -> [u8; 32] {
    if *left == [0u8; 32] && *right == [0u8; 32] {
        return [0u8; 32];
    }
    *count += 1;
    H::hash(&[left, right])
}

impl StemNode {
    /// An empty stem node with room for `values` values.
    pub(super) fn new(stem: [u8; STEM_LENGTH], values: usize) -> Self {
        StemNode {
            stem,
            values: Vec::with_capacity(values),
            inner: Vec::new(),
            hash: None,
        }
    }

    /// A stem node holding `values`, sorted by sub-index and distinct, no hash computed.
    pub(super) fn from_values(stem: [u8; STEM_LENGTH], values: Vec<(u8, [u8; 32])>) -> Self {
        StemNode {
            stem,
            values: values
                .into_iter()
                .map(|(index, value)| Slot {
                    index,
                    value,
                    hash: None,
                })
                .collect(),
            inner: Vec::new(),
            hash: None,
        }
    }

    /// Reads the node's own bytes a batch reads first (its hash's tag, the ends of its stem),
    /// so that a walk over several stems can have their loads in flight together.
    pub(super) fn touch_head(&self) -> u8 {
        u8::from(self.hash.is_some()) ^ self.stem[0] ^ self.stem[STEM_LENGTH - 1]
    }

    /// Reads each cache line of the first values and inner hashes (the lines a write and the
    /// rehash of a stem with few values use): each value's index and hash tag, every other
    /// inner hash's number. The node itself is read first ([`StemNode::touch_head`]).
    pub(super) fn touch(&self) -> u8 {
        let values = self.values.iter().take(8);
        let values = values.fold(0, |x, slot| x ^ slot.index ^ u8::from(slot.hash.is_some()));
        let inner = self.inner.iter().step_by(2).take(8);
        inner.fold(values, |x, &(id, _)| x ^ id)
    }

    /// The present values, by sub-index.
    pub(super) fn values(&self) -> impl ExactSizeIterator<Item = (u8, &[u8; 32])> {
        self.values.iter().map(|slot| (slot.index, &slot.value))
    }

    /// The value at `index`, if present.
    pub(super) fn get(&self, index: u8) -> Option<&[u8; 32]> {
        let i = self
            .values
            .binary_search_by_key(&index, |slot| slot.index)
            .ok()?;
        Some(&self.values[i].value)
    }

    /// Sets the value at `index`; returns (whether it was inserted, whether anything changed).
    pub(super) fn set(&mut self, index: u8, value: [u8; 32]) -> (bool, bool) {
        let inserted = match self.values.binary_search_by_key(&index, |slot| slot.index) {
            Ok(i) => {
                let slot = &mut self.values[i];
                if slot.value == value {
                    return (false, false);
                }
                slot.value = value;
                slot.hash = None;
                false
            }
            Err(i) => {
                self.values.insert(
                    i,
                    Slot {
                        index,
                        value,
                        hash: None,
                    },
                );
                true
            }
        };
        self.hash = None;
        (inserted, true)
    }

    /// The stem node's hash, rehashing the leaves written since the last call and the inner
    /// nodes above them, each once.
    pub(super) fn node_hash<H: TreeHash>(&mut self, count: &mut u64) -> [u8; 32] {
        if let Some(hash) = self.hash {
            return hash;
        }
        let values = self.values.len();
        let root = match self.rehash::<H>(0, values, 1, 8, count) {
            Some(root) => root,
            None => self.cached(1),
        };
        let hash = hash_pair::<H>(&stem_head(&self.stem), &root, count);
        self.hash = Some(hash);
        hash
    }

    /// Rehashes subtree node `id` at `height` above the leaves, whose span holds the values
    /// `lo..hi`: the written leaves in it and the inner nodes above them, each once, the
    /// inner hashes stored. `None` when nothing in the span was written (the cached hash
    /// stands).
    fn rehash<H: TreeHash>(
        &mut self,
        lo: usize,
        hi: usize,
        id: u16,
        height: u32,
        count: &mut u64,
    ) -> Option<[u8; 32]> {
        let span = self.values.get_mut(lo..hi)?;
        if span.iter().all(|slot| slot.hash.is_some()) {
            return None;
        }
        if height == 0 {
            let slot = span.first_mut()?;
            *count += 1;
            let hash = H::hash(&[&slot.value]);
            slot.hash = Some(hash);
            return Some(hash);
        }
        let half = height - 1;
        let mid = lo + span.partition_point(|slot| (slot.index >> half) & 1 == 0);
        let mut child = |this: &mut Self, lo: usize, hi: usize, id: u16| {
            if lo == hi {
                return [0u8; 32];
            }
            if let Some(hash) = this.rehash::<H>(lo, hi, id, half, count) {
                return hash;
            }
            match (half, this.values.get(lo)) {
                (0, Some(slot)) => slot.hash.unwrap_or_default(),
                _ => this.cached(id as u8),
            }
        };
        let left = child(self, lo, mid, 2 * id);
        let right = child(self, mid, hi, 2 * id + 1);
        let hash = hash_pair::<H>(&left, &right, count);
        self.store(id as u8, hash);
        Some(hash)
    }

    /// The position in `values` of the only value written since the last hash, if the stem
    /// node's hash is to be computed and exactly one value was written.
    pub(super) fn single_written(&self) -> Option<usize> {
        if self.hash.is_some() {
            return None;
        }
        let mut written = self
            .values
            .iter()
            .enumerate()
            .filter(|(_, s)| s.hash.is_none());
        match (written.next(), written.next()) {
            (Some((at, _)), None) => Some(at),
            _ => None,
        }
    }

    /// The path from the leaf of sub-index `index` up to the subtree root, read in one pass
    /// over the cached inner hashes (in place of a search for each node).
    fn path(&self, index: u8) -> Path {
        let leaf = 256 + u16::from(index);
        let mut path = Path {
            siblings: [[0u8; 32]; 8],
            at: [None; 8],
        };
        path.siblings[0] = self.subtree_hash(leaf ^ 1);
        for (i, (id, hash)) in self.inner.iter().enumerate() {
            // Inner node `id` (1..=255) is `leading_zeros + 1` levels above the leaves.
            let height = id.leading_zeros() as usize + 1;
            let on_path = (leaf >> height) as u8;
            if *id == on_path {
                if let Some(at) = path.at.get_mut(height - 1) {
                    *at = Some(i);
                }
            } else if *id == on_path ^ 1 {
                if let Some(sibling) = path.siblings.get_mut(height) {
                    *sibling = *hash;
                }
            }
        }
        path
    }

    /// Stores the hash of inner node `id`, the path node at height `height` of a [`Path`]
    /// read before: in place where the path found it (stores on one path go from the leaf up,
    /// to ever smaller numbers, so an insertion below leaves the positions above as read).
    fn store_on_path(&mut self, path: &Path, height: usize, id: u8, hash: [u8; 32]) {
        let at = path.at.get(height - 1).copied().flatten();
        match at.and_then(|i| self.inner.get_mut(i)) {
            Some(entry) if entry.0 == id && hash != [0u8; 32] => entry.1 = hash,
            _ => self.store(id, hash),
        }
    }

    /// The hash of subtree node `id` (heap numbering: 1 is the subtree root, `256 + i` the
    /// leaf of sub-index `i`) as of the last [`StemNode::node_hash`]; zero if empty.
    pub(super) fn subtree_hash(&self, id: u16) -> [u8; 32] {
        if id >= 256 {
            let index = (id - 256) as u8;
            return self
                .values
                .binary_search_by_key(&index, |slot| slot.index)
                .ok()
                .and_then(|i| self.values[i].hash)
                .unwrap_or([0u8; 32]);
        }
        self.cached(id as u8)
    }

    fn cached(&self, id: u8) -> [u8; 32] {
        match self.inner.binary_search_by_key(&id, |&(n, _)| n) {
            Ok(i) => self.inner[i].1,
            Err(_) => [0u8; 32],
        }
    }

    fn store(&mut self, id: u8, hash: [u8; 32]) {
        match self.inner.binary_search_by_key(&id, |&(n, _)| n) {
            Ok(i) if hash == [0u8; 32] => {
                self.inner.remove(i);
            }
            Ok(i) => self.inner[i].1 = hash,
            Err(_) if hash == [0u8; 32] => {}
            Err(i) => {
                // The first hashes of a new stem node: the path of one leaf is 8 nodes.
                if self.inner.capacity() == 0 {
                    self.inner.reserve_exact(8);
                }
                self.inner.insert(i, (id, hash));
            }
        }
    }
}

/// A leaf's path through its stem's subtree ([`StemNode::path`]).
struct Path {
    /// The hashes beside the path, lowest first: the other leaf of its pair, then the other
    /// inner node at each height.
    siblings: [[u8; 32]; 8],
    /// Where in the cached inner hashes each inner node on the path is (heights 1 to 8).
    at: [Option<usize>; 8],
}

/// Rehashes two stem nodes that each have exactly one value written since their last hash
/// (`at`: its position, from [`StemNode::single_written`]), their two walks from leaf to stem
/// node in step, so that each step's two hashes go to the hash together
/// ([`TreeHash::hash64_many`]: two interleaved SHA-256 on SHA-NI). The same hashes, stored and
/// counted as [`StemNode::node_hash`] of each would.
pub(super) fn rehash_pair<H: TreeHash>(
    (a, at_a): (&mut StemNode, usize),
    (b, at_b): (&mut StemNode, usize),
    count: &mut u64,
) {
    let (Some(slot_a), Some(slot_b)) = (a.values.get(at_a), b.values.get(at_b)) else {
        return;
    };
    let (index_a, index_b) = (slot_a.index, slot_b.index);
    let (path_a, path_b) = (a.path(index_a), b.path(index_b));
    let mut hashes = [[0u8; 32]; 2];
    H::hash32_many(&[slot_a.value, slot_b.value], &mut hashes);
    *count += 2;
    if let (Some(slot_a), Some(slot_b)) = (a.values.get_mut(at_a), b.values.get_mut(at_b)) {
        slot_a.hash = Some(hashes[0]);
        slot_b.hash = Some(hashes[1]);
    }
    let (leaf_a, leaf_b) = (256 + u16::from(index_a), 256 + u16::from(index_b));
    for height in 1..=8 {
        let below = height - 1;
        // The walk's node on the left of its sibling, or on the right.
        let message = |leaf: u16, node: &[u8; 32], sibling: &[u8; 32]| match (leaf >> below) & 1 {
            0 => message64(node, sibling),
            _ => message64(sibling, node),
        };
        let messages = [
            message(leaf_a, &hashes[0], &path_a.siblings[below]),
            message(leaf_b, &hashes[1], &path_b.siblings[below]),
        ];
        hashes = hash_two::<H>(&messages, count);
        a.store_on_path(&path_a, height, (leaf_a >> height) as u8, hashes[0]);
        b.store_on_path(&path_b, height, (leaf_b >> height) as u8, hashes[1]);
    }
    let messages = [
        message64(&stem_head(&a.stem), &hashes[0]),
        message64(&stem_head(&b.stem), &hashes[1]),
    ];
    hashes = hash_two::<H>(&messages, count);
    a.hash = Some(hashes[0]);
    b.hash = Some(hashes[1]);
}

/// A node's 64-byte message: `left ‖ right`.
pub(super) fn message64(left: &[u8; 32], right: &[u8; 32]) -> [u8; 64] {
    let mut message = [0u8; 64];
    message[..32].copy_from_slice(left);
    message[32..].copy_from_slice(right);
    message
}

/// The left half of a stem node's message: `stem ‖ 0x00`.
fn stem_head(stem: &[u8; STEM_LENGTH]) -> [u8; 32] {
    let mut head = [0u8; 32];
    head[..STEM_LENGTH].copy_from_slice(stem);
    head
}

/// The hashes of two 64-byte node messages with the zero rule (64 zero bytes hash to 32 zero
/// bytes, not counted): together when neither is zero.
pub(super) fn hash_two<H: TreeHash>(messages: &[[u8; 64]; 2], count: &mut u64) -> [[u8; 32]; 2] {
    let zero = |m: &[u8; 64]| m.iter().all(|&byte| byte == 0);
    let mut out = [[0u8; 32]; 2];
    match (zero(&messages[0]), zero(&messages[1])) {
        (false, false) => {
            H::hash64_many(messages, &mut out);
            *count += 2;
        }
        (za, zb) => {
            for ((message, out), zero) in messages.iter().zip(&mut out).zip([za, zb]) {
                if !zero {
                    *out = H::hash(&[message]);
                    *count += 1;
                }
            }
        }
    }
    out
}
