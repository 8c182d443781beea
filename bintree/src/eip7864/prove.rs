//! The EIP-7864 prover: a witness for a list of keys and their writes, from the in-memory
//! tree (`spec/BINARY.md` §3).

use super::stem::StemNode;
use super::tree::{first_stem, split_key, Node, Tree};
use super::witness::{
    is_zero_stem, ANCHOR_LENGTH, END_DIVERGENT, END_EMPTY, END_PRESENT, HEADER_LENGTH, OTHER_LENGTH,
};
use super::STEM_LENGTH;
use crate::bits::{bit, set_bit};
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
    anchors: Vec<u8>,
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
            HEADER_LENGTH
                + sorted.len() * 33
                + proof.ends.len()
                + values.len()
                + proof.others.len()
                + proof.anchors.len()
                + proof.siblings.bitmap.len()
                + proof.siblings.hashes.len(),
        );
        out.extend_from_slice(&[VERSION, TREE_EIP7864, hash_id::<H>()]);
        put_count(&mut out, sorted.len());
        put_count(&mut out, proof.others.len() / OTHER_LENGTH);
        put_count(&mut out, proof.siblings.slots);
        put_count(&mut out, proof.siblings.hash_count());
        put_count(&mut out, proof.anchors.len() / ANCHOR_LENGTH);
        for (key, _) in &sorted {
            out.extend_from_slice(key);
        }
        out.extend_from_slice(&flags);
        out.extend_from_slice(&proof.ends);
        out.extend_from_slice(&values);
        out.extend_from_slice(&proof.others);
        out.extend_from_slice(&proof.anchors);
        out.extend_from_slice(&proof.siblings.bitmap);
        out.extend_from_slice(&proof.siblings.hashes);
        Ok(out)
    }
}

impl<H: TreeHash> Tree<H> {
    /// For a tree whose nodes are partly stored: the stems whose paths reach the stored
    /// handles on the anchors' descents of a witness of `stems` (sorted, distinct; their
    /// paths loaded): the bits down to each handle, then zeros. Empty when every descent is
    /// in memory.
    pub(super) fn anchor_descents(&self, stems: &[[u8; STEM_LENGTH]]) -> Vec<[u8; STEM_LENGTH]> {
        let mut out = Vec::new();
        if !stems.is_empty() {
            descents(&self.root, 0, stems, &mut out);
        }
        out
    }
}

/// Appends the stems reaching stored handles on the anchors' descents below `node` at
/// `depth` on the paths of `stems` ([`Tree::anchor_descents`]).
fn descents(
    node: &Node,
    depth: usize,
    stems: &[[u8; STEM_LENGTH]],
    out: &mut Vec<[u8; STEM_LENGTH]>,
) {
    let (Node::Internal(internal), Some(first)) = (node, stems.first()) else {
        return;
    };
    let mid = stems.partition_point(|stem| bit(stem, depth) == 0);
    let (left, right) = stems.split_at(mid);
    if !left.is_empty() {
        descents(&internal.left, depth + 1, left, out);
    }
    if !right.is_empty() {
        descents(&internal.right, depth + 1, right, out);
    }
    let (touched, untouched, side) = match (left.is_empty(), right.is_empty()) {
        (false, true) => (&internal.left, &internal.right, 1),
        (true, false) => (&internal.right, &internal.left, 0),
        _ => return,
    };
    if !matches!(touched, Node::Empty) {
        return;
    }
    // The untouched side's position, then its leftmost descent.
    let mut path = [0u8; STEM_LENGTH];
    for i in 0..depth {
        set_bit(&mut path, i, bit(first, i));
    }
    set_bit(&mut path, depth, side);
    let mut at = depth + 1;
    let end = first_stem(untouched, |_, right| {
        // A loaded tree has no internal node past the last stem bit.
        if at < STEM_LENGTH * 8 {
            set_bit(&mut path, at, u8::from(right));
        }
        at += 1;
    });
    if matches!(end, Node::Stored(_)) {
        out.push(path);
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
            // The one touched child empty: the untouched one is anchored.
            let gap = match (mid > a, b > mid) {
                (true, false) => matches!(internal.left, Node::Empty),
                (false, true) => matches!(internal.right, Node::Empty),
                _ => false,
            };
            let side = |node: &Node, proof: &mut Proof| {
                if gap {
                    prove_anchor(node, depth + 1, proof);
                } else {
                    proof.siblings.push(&cached(node));
                }
            };
            if mid > a {
                prove_node(&internal.left, depth + 1, keys, starts, a, mid, proof);
            } else {
                side(&internal.left, proof);
            }
            if b > mid {
                prove_node(&internal.right, depth + 1, keys, starts, mid, b, proof);
            } else {
                side(&internal.right, proof);
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

/// Appends the anchor of the untouched `node` at `depth` beside an empty path end: the
/// leftmost descent to the first stem node below it (left where the left child is not empty),
/// that stem's depth and record, its opening's slots, then the right sides of the descent
/// from the bottom up (the verifier's left-to-right order).
fn prove_anchor(node: &Node, depth: usize, proof: &mut Proof) {
    let mut rights: Vec<&Node> = Vec::new();
    let mut at = depth;
    let end = first_stem(node, |internal, right| {
        if !right {
            rights.push(&internal.right);
        }
        at += 1;
    });
    proof.anchors.push(at as u8);
    match end {
        Node::Stem(stem) => {
            let record = other_record(stem);
            proof.anchors.extend_from_slice(&record);
            prove_opening(stem, record[STEM_LENGTH], proof);
        }
        // Not in an honest tree (an internal node has a stem below); a stored tree loads the
        // descent first. The record written fails verification.
        _ => proof.anchors.extend_from_slice(&[0u8; OTHER_LENGTH]),
    }
    for right in rights.into_iter().rev() {
        proof.siblings.push(&cached(right));
    }
}

/// The other-stem record of `stem`: the stem, its first present leaf's sub-index and value.
fn other_record(stem: &StemNode) -> [u8; OTHER_LENGTH] {
    // A stem node always holds a value; an empty one (never built) gets a record that fails.
    let (index, value) = stem.values().next().unwrap_or((0, &[0u8; 32]));
    let mut record = [0u8; OTHER_LENGTH];
    record[..STEM_LENGTH].copy_from_slice(&stem.stem);
    record[STEM_LENGTH] = index;
    record[STEM_LENGTH + 1..].copy_from_slice(value);
    record
}

/// Appends the other-stem record of `stem` (its first present leaf's sub-index and value) and
/// the sibling slots of that leaf's opening.
fn prove_other(stem: &StemNode, proof: &mut Proof) {
    let record = other_record(stem);
    proof.others.extend_from_slice(&record);
    prove_opening(stem, record[STEM_LENGTH], proof);
}

/// Appends the sibling slots of the opening of `stem`'s leaf at `index`: the right side off
/// the path at each level, the deepest first (the verifier's left-to-right order). The left
/// sides are empty.
fn prove_opening(stem: &StemNode, index: u8, proof: &mut Proof) {
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
