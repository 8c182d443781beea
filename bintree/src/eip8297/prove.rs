//! The EIP-8297 prover: a witness for a list of keys and their writes, from the in-memory
//! tree (`spec/BINARY.md` §7).

use super::tree::{Node, Tree};
use super::witness::{
    END_AT_BRANCH, END_AT_LEAF, END_EMPTY, END_PRESENT, OTHER_BRANCH, OTHER_LEAF,
};
use crate::bits::{bit, encode_bit_prefix, first_difference};
use crate::prelude::*;
use crate::witness::wire::put_count;
use crate::witness::{
    broken, hash_id, Rule, WitnessError, Write, FLAG_DELETE, FLAG_PRE, FLAG_SET, MAX_KEYS,
    MAX_WITNESS_KEY_LENGTH, TREE_EIP8297, VERSION,
};
use crate::TreeHash;

/// The proof parts, appended in the walk's order.
struct Proof<'k> {
    keys: &'k [(Vec<u8>, Write)],
    ends: Vec<[u8; 3]>,
    branches: Vec<u8>,
    others: Vec<u8>,
    others_count: usize,
    hashes: Vec<u8>,
    scratch: Vec<u8>,
}

/// A node's cached hash; [`Tree::root`] has brought every one up to date.
fn cached(node: &Node) -> [u8; 32] {
    match node {
        Node::Empty => [0u8; 32],
        Node::Leaf(leaf) => leaf.hash.expect("hashed by Tree::root"),
        Node::Branch(branch) => branch.hash.expect("hashed by Tree::root"),
        Node::Stored(hash) => **hash,
    }
}

impl<H: TreeHash> Tree<H> {
    /// The witness for `writes` (each key once, in any order) against the current state. A
    /// set to the value a key holds and a delete of an absent key are written as unchanged.
    /// Errors: a key of 0 or more than [`MAX_WITNESS_KEY_LENGTH`] bytes (`bw.keys.length`), a
    /// key given twice (`bw.keys.order`), a key that is a prefix of another
    /// (`bw.keys.prefix`), more than [`crate::witness::MAX_KEYS`] keys (`bw.limit`).
    pub fn witness<K: AsRef<[u8]>>(
        &mut self,
        writes: &[(K, Write)],
    ) -> Result<Vec<u8>, WitnessError> {
        if writes.len() > MAX_KEYS {
            return Err(WitnessError::Limit {
                field: "key_count",
                count: writes.len() as u64,
                max: MAX_KEYS as u64,
            });
        }
        let mut sorted: Vec<(Vec<u8>, Write)> = Vec::with_capacity(writes.len());
        for (i, (key, write)) in writes.iter().enumerate() {
            let key = key.as_ref();
            if key.is_empty() || key.len() > MAX_WITNESS_KEY_LENGTH {
                return Err(broken(Rule::KeyLength, "key", i));
            }
            let pre = self.get(key);
            let write = match write {
                Write::Set(v) if pre == Some(v) => Write::Unchanged,
                Write::Delete if pre.is_none() => Write::Unchanged,
                other => *other,
            };
            sorted.push((key.to_vec(), write));
        }
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        for i in 1..sorted.len() {
            if sorted[i - 1].0 == sorted[i].0 {
                return Err(broken(Rule::KeyOrder, "key", i));
            }
            if sorted[i].0.starts_with(&sorted[i - 1].0) {
                return Err(broken(Rule::KeyPrefix, "key", i));
            }
        }
        self.root();
        let mut proof = Proof {
            keys: &sorted,
            ends: vec![[0u8; 3]; sorted.len()],
            branches: Vec::new(),
            others: Vec::new(),
            others_count: 0,
            hashes: Vec::new(),
            scratch: Vec::new(),
        };
        if sorted.is_empty() {
            if !matches!(self.root, Node::Empty) {
                proof.hashes.extend_from_slice(&cached(&self.root));
            }
        } else {
            proof.node(&self.root, 0, 0, 0, sorted.len());
        }

        let mut out = vec![VERSION, TREE_EIP8297, hash_id::<H>()];
        put_count(&mut out, sorted.len());
        put_count(&mut out, proof.others_count);
        put_count(&mut out, proof.hashes.len() / 32);
        put_count(&mut out, proof.hashes.len() / 32);
        put_count(&mut out, proof.branches.len() / 2);
        out.extend(sorted.iter().map(|(k, _)| k.len() as u8));
        for (key, _) in &sorted {
            out.extend_from_slice(key);
        }
        let mut values = Vec::new();
        for (key, write) in &sorted {
            let pre = self.get(key);
            let mut f = 0;
            if let Some(pre) = pre {
                f |= FLAG_PRE;
                values.extend_from_slice(pre);
            }
            match write {
                Write::Set(v) => {
                    f |= FLAG_SET;
                    values.extend_from_slice(v);
                }
                Write::Delete => f |= FLAG_DELETE,
                Write::Unchanged => {}
            }
            out.push(f);
        }
        for end in &proof.ends {
            out.extend_from_slice(end);
        }
        out.extend_from_slice(&values);
        out.extend_from_slice(&proof.branches);
        out.extend_from_slice(&proof.others);
        out.extend_from_slice(&proof.hashes);
        Ok(out)
    }
}

impl Proof<'_> {
    fn key(&self, i: usize) -> &[u8] {
        &self.keys[i].0
    }

    fn sets(&self, range: impl Iterator<Item = usize>) -> bool {
        range
            .into_iter()
            .any(|i| matches!(self.keys[i].1, Write::Set(_)))
    }

    fn end(&mut self, i: usize, depth: usize, kind: u8) {
        let d = (depth as u16).to_be_bytes();
        self.ends[i] = [d[0], d[1], kind];
    }

    fn push_leaf(&mut self, key: &[u8], value: &[u8; 32]) {
        self.others
            .extend_from_slice(&[OTHER_LEAF, key.len() as u8]);
        self.others.extend_from_slice(key);
        self.others.extend_from_slice(value);
        self.others_count += 1;
    }

    fn push_branch(&mut self, path: &[u8], start: usize, split: usize, left: &Node, right: &Node) {
        encode_bit_prefix(path, start, split, &mut self.scratch);
        self.others.push(OTHER_BRANCH);
        self.others.extend_from_slice(&self.scratch);
        self.others.extend_from_slice(&cached(left));
        self.others.extend_from_slice(&cached(right));
        self.others_count += 1;
    }

    /// Appends the proof of `node` at start bit `start`, `depth` branches down, on the paths
    /// of keys `a..b`; returns whether the node is empty after the writes.
    fn node(&mut self, node: &Node, start: usize, depth: usize, a: usize, b: usize) -> bool {
        match node {
            // Never on a proved path: a stored tree loads every path it proves first.
            Node::Stored(_) => false,
            Node::Empty => {
                for i in a..b {
                    self.end(i, depth, END_EMPTY);
                }
                !self.sets(a..b)
            }
            Node::Leaf(leaf) => {
                let mut survives = true;
                let mut found = false;
                for i in a..b {
                    if *self.key(i) == *leaf.key {
                        found = true;
                        survives = self.keys[i].1 != Write::Delete;
                        self.end(i, depth, END_PRESENT);
                    } else {
                        self.end(i, depth, END_AT_LEAF);
                    }
                }
                if !found {
                    self.push_leaf(&leaf.key, &leaf.value);
                }
                !survives
                    && !(a..b).any(|i| {
                        *self.key(i) != *leaf.key && matches!(self.keys[i].1, Write::Set(_))
                    })
            }
            Node::Branch(branch) => {
                let split = branch.split;
                let passes = |key: &[u8]| {
                    8 * key.len() > split
                        && first_difference(&branch.path, key, start, split) == split
                };
                let m0 = (a..b).find(|&i| passes(self.key(i)));
                let Some(m0) = m0 else {
                    for i in a..b {
                        self.end(i, depth, END_AT_BRANCH);
                    }
                    self.push_branch(&branch.path, start, split, &branch.left, &branch.right);
                    return false;
                };
                let m1 = (m0..b).find(|&i| !passes(self.key(i))).unwrap_or(b);
                for i in (a..m0).chain(m1..b) {
                    self.end(i, depth, END_AT_BRANCH);
                }
                self.branches
                    .extend_from_slice(&((split - start) as u16).to_be_bytes());
                let mid = (m0..m1)
                    .find(|&i| bit(self.key(i), split) == 1)
                    .unwrap_or(m1);
                let left =
                    (mid > m0).then(|| self.node(&branch.left, split + 1, depth + 1, m0, mid));
                let right =
                    (m1 > mid).then(|| self.node(&branch.right, split + 1, depth + 1, mid, m1));
                for (touched, other) in [(left, &branch.right), (right, &branch.left)] {
                    match touched {
                        Some(true) if (left.is_none() || right.is_none()) => match other {
                            Node::Leaf(leaf) => self.push_leaf(&leaf.key, &leaf.value),
                            Node::Branch(b) => {
                                self.push_branch(&b.path, split + 1, b.split, &b.left, &b.right)
                            }
                            Node::Empty | Node::Stored(_) => {}
                        },
                        Some(_) if (left.is_none() || right.is_none()) => {
                            self.hashes.extend_from_slice(&cached(other));
                        }
                        _ => {}
                    }
                }
                left.unwrap_or(false) && right.unwrap_or(false) && !self.sets((a..m0).chain(m1..b))
            }
        }
    }
}
