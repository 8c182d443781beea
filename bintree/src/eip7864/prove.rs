//! The EIP-7864 prover: a witness for a list of keys and their writes, from the in-memory
//! tree (`spec/BINARY.md` §3).

use super::stem::StemNode;
use super::tree::{split_key, Node, Tree};
use super::witness::{is_zero_stem, END_DIVERGENT, END_EMPTY, END_PRESENT, OTHER_LENGTH};
use super::STEM_LENGTH;
use crate::bits::bit;
use crate::prelude::*;
use crate::witness::wire::{partition, put_count, SiblingWriter};
use crate::witness::{
    broken, hash_id, Rule, WitnessError, Write, FLAG_PRE, FLAG_SET, MAX_KEYS, TREE_EIP7864, VERSION,
};
use crate::TreeHash;

/// The proof parts, appended in canonical (left-to-right) order.
#[derive(Default)]
struct Proof {
    ends: Vec<u8>,
    others: Vec<u8>,
    siblings: SiblingWriter,
}

/// A node's cached hash; [`Tree::root`] has brought every one up to date.
fn cached(node: &Node) -> [u8; 32] {
    match node {
        Node::Empty => [0u8; 32],
        Node::Internal(internal) => internal.hash().expect("hashed by Tree::root"),
        Node::Stem(stem) => stem.hash.expect("hashed by Tree::root"),
        Node::Stored(hash) => **hash,
    }
}

impl<H: TreeHash> Tree<H> {
    /// The witness for `writes` (each key once, in any order) against the current state:
    /// the keys sorted, their pre-values or absence, the writes, and the multiproof. A set to
    /// the value a key already holds is written as unchanged. Errors: a key of the wrong
    /// length, a key given twice (`bw.keys.order`), a key whose stem is all zero
    /// (`bw.keys.zero_stem`), a delete (`bw.keys.flags`: EIP-7864 has no deletion), more than
    /// [`crate::witness::MAX_KEYS`] keys (`bw.limit`).
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
        let mut sorted: Vec<([u8; 32], Write)> = Vec::with_capacity(writes.len());
        for (i, (key, write)) in writes.iter().enumerate() {
            let (stem, index) =
                split_key(key.as_ref()).map_err(|_| broken(Rule::KeyOrder, "key", i))?;
            if is_zero_stem(&stem) {
                return Err(broken(Rule::ZeroStem, "key", i));
            }
            if *write == Write::Delete {
                return Err(broken(Rule::KeyFlags, "key", i));
            }
            let mut k = [0u8; 32];
            k[..STEM_LENGTH].copy_from_slice(&stem);
            k[STEM_LENGTH] = index;
            sorted.push((k, *write));
        }
        sorted.sort_unstable_by_key(|w| w.0);
        for i in 1..sorted.len() {
            if sorted[i - 1].0 == sorted[i].0 {
                return Err(broken(Rule::KeyOrder, "key", i));
            }
        }
        self.root();
        // Distinct stems: the index of each one's first key.
        let mut starts: Vec<usize> = Vec::new();
        for i in 0..sorted.len() {
            if i == 0 || sorted[i - 1].0[..STEM_LENGTH] != sorted[i].0[..STEM_LENGTH] {
                starts.push(i);
            }
        }
        starts.push(sorted.len());
        let mut proof = Proof::default();
        if sorted.is_empty() {
            proof.siblings.push(&cached(&self.root));
        } else {
            prove_node(
                &self.root,
                0,
                &sorted,
                &starts,
                0,
                starts.len() - 1,
                &mut proof,
            );
        }

        let mut flags = Vec::with_capacity(sorted.len());
        let mut values = Vec::new();
        for (key, write) in &sorted {
            let pre = self.get(key).copied();
            let mut f = 0;
            if let Some(pre) = pre {
                f |= FLAG_PRE;
                values.extend_from_slice(&pre);
            }
            if let Write::Set(value) = write {
                if pre != Some(*value) {
                    f |= FLAG_SET;
                    values.extend_from_slice(value);
                }
            }
            flags.push(f);
        }
        let mut out = Vec::with_capacity(
            19 + sorted.len() * 33
                + proof.ends.len()
                + values.len()
                + proof.others.len()
                + proof.siblings.bitmap.len()
                + proof.siblings.hashes.len(),
        );
        out.extend_from_slice(&[VERSION, TREE_EIP7864, hash_id::<H>()]);
        put_count(&mut out, sorted.len());
        put_count(&mut out, proof.others.len() / OTHER_LENGTH);
        put_count(&mut out, proof.siblings.slots);
        put_count(&mut out, proof.siblings.hash_count());
        for (key, _) in &sorted {
            out.extend_from_slice(key);
        }
        out.extend_from_slice(&flags);
        out.extend_from_slice(&proof.ends);
        out.extend_from_slice(&values);
        out.extend_from_slice(&proof.others);
        out.extend_from_slice(&proof.siblings.bitmap);
        out.extend_from_slice(&proof.siblings.hashes);
        Ok(out)
    }
}

fn stem_of<'k>(keys: &'k [([u8; 32], Write)], starts: &[usize], s: usize) -> &'k [u8] {
    &keys[starts[s]].0[..STEM_LENGTH]
}

/// Appends the proof of the node at `depth` on the paths of stems `a..b`.
fn prove_node(
    node: &Node,
    depth: usize,
    keys: &[([u8; 32], Write)],
    starts: &[usize],
    a: usize,
    b: usize,
    proof: &mut Proof,
) {
    match node {
        // Never on a proved path: a stored tree loads every path it proves first.
        Node::Stored(_) => {}
        Node::Empty => {
            for _ in a..b {
                proof.ends.extend_from_slice(&[depth as u8, END_EMPTY]);
            }
        }
        Node::Stem(stem) => {
            let mut found = false;
            for s in a..b {
                if stem_of(keys, starts, s) == stem.stem {
                    found = true;
                    proof.ends.extend_from_slice(&[depth as u8, END_PRESENT]);
                    let subs: Vec<u8> = keys[starts[s]..starts[s + 1]]
                        .iter()
                        .map(|(k, _)| k[STEM_LENGTH])
                        .collect();
                    prove_subtree(stem, 0, 1, &subs, proof);
                } else {
                    proof.ends.extend_from_slice(&[depth as u8, END_DIVERGENT]);
                }
            }
            if !found {
                prove_other(stem, proof);
            }
        }
        Node::Internal(internal) => {
            let mid = partition(a, b, |s| bit(stem_of(keys, starts, s), depth) == 0);
            if mid > a {
                prove_node(&internal.left, depth + 1, keys, starts, a, mid, proof);
            } else {
                proof.siblings.push(&cached(&internal.left));
            }
            if b > mid {
                prove_node(&internal.right, depth + 1, keys, starts, mid, b, proof);
            } else {
                proof.siblings.push(&cached(&internal.right));
            }
        }
    }
}

/// Appends the siblings of subtree node `id` at `level` on the paths of sub-indices `subs`.
fn prove_subtree(stem: &StemNode, level: usize, id: u16, subs: &[u8], proof: &mut Proof) {
    if level == 8 {
        return;
    }
    let mid = subs.partition_point(|&sub| bit(&[sub], level) == 0);
    for (child, part) in [(2 * id, &subs[..mid]), (2 * id + 1, &subs[mid..])] {
        if part.is_empty() {
            proof.siblings.push(&stem.subtree_hash(child));
        } else {
            prove_subtree(stem, level + 1, child, part, proof);
        }
    }
}

/// Appends the other-stem record of `stem` (its first present leaf's sub-index and value) and
/// the sibling slots of that leaf's opening: the right side off the path at each level, the
/// deepest first (the verifier's left-to-right order). The left sides are empty.
fn prove_other(stem: &StemNode, proof: &mut Proof) {
    // A stem node always holds a value; an empty one (never built) gets a record that fails.
    let (index, value) = stem.values().next().unwrap_or((0, &[0u8; 32]));
    proof.others.extend_from_slice(&stem.stem);
    proof.others.push(index);
    proof.others.extend_from_slice(value);
    let leaf = 256 + u16::from(index);
    for level in (0..8).rev() {
        // The node on the path at `level + 1`; its sibling is the right one when it is a left
        // child.
        let node = leaf >> (7 - level);
        if node & 1 == 0 {
            proof.siblings.push(&stem.subtree_hash(node + 1));
        }
    }
}
