//! The EIP-7864 binary witness (`spec/BINARY.md` §3–§5): zero-copy decode, stateless
//! verification against a pre-state root, and the post-state root from the witness alone.
//!
//! Layout after the 3-byte header: five u32 counts (keys, other stems, sibling slots,
//! hashes, anchors), then keys (32 bytes each, strictly increasing), flags (1 byte per key),
//! end records (depth, kind: 2 bytes per distinct stem), values (32 bytes: for each key in
//! order, its pre-value if present, then its new value if set), other stems (31-byte stem ‖
//! 1-byte sub-index ‖ 32-byte value: the stem's first present leaf, opened to its subtree root
//! with sibling slots), anchors (1-byte depth ‖ an other-stem record: the first stem below
//! the untouched sibling of an empty path end, which proves that sibling an internal node),
//! the sibling bitmap and the hashes.

use super::stem::{hash_pair, message64};
use super::STEM_LENGTH;
use crate::bits::{bit, first_difference};
use crate::prelude::*;
use crate::witness::wire::{check_bitmap, check_hashes, header, partition, Reader, Siblings};
use crate::witness::{
    broken, hash_id, Claim, Rule, Verified, WitnessError, WriteRef, FLAG_PRE, FLAG_SET, MAX_HASHES,
    MAX_KEYS, MAX_OTHERS, MAX_SIBLINGS, TREE_EIP7864,
};
use crate::TreeHash;

/// End kind: the path ends in an empty subtree.
pub const END_EMPTY: u8 = 0;
/// End kind: the path ends at this stem's own stem node.
pub const END_PRESENT: u8 = 1;
/// End kind: the path ends at the stem node of another stem.
pub const END_DIVERGENT: u8 = 2;
/// Deepest end: two stems differ at bit 247 at the latest, so a stem node is at most 248
/// internal nodes deep.
pub const MAX_DEPTH: u8 = 248;
/// Bytes of the fixed header: version, tree, hash, five u32 counts.
pub const HEADER_LENGTH: usize = 23;
/// Bytes of an other-stem record: the stem, the sub-index of its first present leaf and that
/// leaf's value.
pub const OTHER_LENGTH: usize = STEM_LENGTH + 1 + 32;
/// Bytes of an anchor: the depth of its stem node, then an other-stem record.
pub const ANCHOR_LENGTH: usize = 1 + OTHER_LENGTH;

/// A decoded EIP-7864 witness: views into the bytes it was decoded from. Its claims are in
/// canonical form; whether they hold is what [`Witness::verify`] checks.
#[derive(Debug, Clone, Copy)]
pub struct Witness<'a> {
    keys: &'a [u8],
    flags: &'a [u8],
    ends: &'a [u8],
    values: &'a [u8],
    others: &'a [u8],
    anchors: &'a [u8],
    bitmap: &'a [u8],
    sibling_count: usize,
    hashes: &'a [u8],
    hash: u8,
}

fn key_at(keys: &[u8], i: usize) -> &[u8; 32] {
    keys[i * 32..i * 32 + 32]
        .try_into()
        .expect("keys section is a whole number of 32-byte keys")
}

/// Whether `stem` is all zero: its stem node `hash(0^31 ‖ 0x00 ‖ root)` is the hash input of an
/// internal node with an empty left child, so no witness key may have it (`bw.keys.zero_stem`).
pub(crate) fn is_zero_stem(stem: &[u8]) -> bool {
    stem.iter().all(|&b| b == 0)
}

fn value_at(values: &[u8], i: usize) -> Result<&[u8; 32], WitnessError> {
    values
        .get(i * 32..i * 32 + 32)
        .and_then(|v| v.try_into().ok())
        .ok_or(broken(Rule::KeyFlags, "value", i))
}

impl<'a> Witness<'a> {
    /// Decodes `bytes` as an EIP-7864 witness over the hash `H`: checks the header, every
    /// count against its limit, the length of every section, the key order, the flags, the
    /// end records' bytes, the bitmap and the hashes. Allocates nothing.
    pub fn decode<H: TreeHash>(bytes: &'a [u8]) -> Result<Self, WitnessError> {
        let mut r = Reader::new(bytes);
        let hash = hash_id::<H>();
        header(&mut r, TREE_EIP7864, hash)?;
        let key_count = r.count("key_count", MAX_KEYS)?;
        let other_count = r.count("other_count", MAX_OTHERS)?;
        let sibling_count = r.count("sibling_count", MAX_SIBLINGS)?;
        let hash_count = r.count("hash_count", MAX_HASHES)?;
        let anchor_count = r.count("anchor_count", MAX_OTHERS)?;
        if hash_count > sibling_count {
            return Err(broken(Rule::HashCount, "hash", hash_count));
        }
        let keys = r.take("keys", key_count, 32)?;
        let mut stem_count = 0;
        for i in 0..key_count {
            if i > 0 {
                let (prev, key) = (key_at(keys, i - 1), key_at(keys, i));
                if prev >= key {
                    return Err(broken(Rule::KeyOrder, "key", i));
                }
                if prev[..STEM_LENGTH] != key[..STEM_LENGTH] {
                    stem_count += 1;
                }
            } else {
                stem_count = 1;
            }
        }
        // The keys are sorted, so a zero-stem key, the least there is, would be the first.
        if key_count > 0 && is_zero_stem(&key_at(keys, 0)[..STEM_LENGTH]) {
            return Err(broken(Rule::ZeroStem, "key", 0));
        }
        let flags = r.take("flags", key_count, 1)?;
        let mut value_count = 0;
        for (i, &f) in flags.iter().enumerate() {
            if f & !(FLAG_PRE | FLAG_SET) != 0 {
                return Err(broken(Rule::KeyFlags, "key", i));
            }
            value_count += (f & FLAG_PRE != 0) as usize + (f & FLAG_SET != 0) as usize;
        }
        let ends = r.take("ends", stem_count, 2)?;
        for (i, end) in ends.chunks_exact(2).enumerate() {
            if end[0] > MAX_DEPTH {
                return Err(broken(Rule::EndDepth, "stem", i));
            }
            if end[1] > END_DIVERGENT {
                return Err(broken(Rule::EndKind, "stem", i));
            }
        }
        let values = r.take("values", value_count, 32)?;
        let mut v = 0;
        for (i, &f) in flags.iter().enumerate() {
            if f & FLAG_PRE != 0
                && f & FLAG_SET != 0
                && value_at(values, v)? == value_at(values, v + 1)?
            {
                return Err(broken(Rule::NoopWrite, "key", i));
            }
            v += (f & FLAG_PRE != 0) as usize + (f & FLAG_SET != 0) as usize;
        }
        let others = r.take("others", other_count, OTHER_LENGTH)?;
        let anchors = r.take("anchors", anchor_count, ANCHOR_LENGTH)?;
        for (i, anchor) in anchors.chunks_exact(ANCHOR_LENGTH).enumerate() {
            if anchor[0] > MAX_DEPTH {
                return Err(broken(Rule::AnchorDepth, "anchor", i));
            }
        }
        let bitmap = r.take("bitmap", sibling_count.div_ceil(8), 1)?;
        check_bitmap(bitmap, sibling_count, hash_count)?;
        let hashes = r.take("hashes", hash_count, 32)?;
        check_hashes(hashes)?;
        r.finish()?;
        Ok(Witness {
            keys,
            flags,
            ends,
            values,
            others,
            anchors,
            bitmap,
            sibling_count,
            hashes,
            hash,
        })
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.flags.len()
    }

    /// Whether the witness has no key.
    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// Number of hashes sent (sibling hashes; other stems' leaf values not included).
    pub fn hash_count(&self) -> usize {
        self.hashes.len() / 32
    }

    /// Number of other-stem records.
    pub fn other_count(&self) -> usize {
        self.others.len() / OTHER_LENGTH
    }

    /// Number of anchors.
    pub fn anchor_count(&self) -> usize {
        self.anchors.len() / ANCHOR_LENGTH
    }

    /// The claims in key order.
    pub fn claims(&self) -> impl Iterator<Item = Claim<'a>> + '_ {
        let mut v = 0;
        let (keys, values) = (self.keys, self.values);
        self.flags.iter().enumerate().map(move |(i, &f)| {
            let mut next = || {
                let value = value_at(values, v).expect("decode counted the values");
                v += 1;
                value
            };
            let pre = (f & FLAG_PRE != 0).then(&mut next);
            let write = if f & FLAG_SET != 0 {
                WriteRef::Set(next())
            } else {
                WriteRef::Unchanged
            };
            Claim {
                key: key_at(keys, i),
                pre,
                write,
            }
        })
    }

    /// Recomputes the pre-state root from the witness and compares it with `pre_root`; on
    /// success returns the post-state root (the writes applied) computed from the witness
    /// alone. Every claimed pre-value and every absence is bound by the recomputation.
    pub fn verify<H: TreeHash>(&self, pre_root: &[u8; 32]) -> Result<Verified, WitnessError> {
        if self.hash != hash_id::<H>() {
            return Err(broken(Rule::HashKind, "offset", 2));
        }
        let stem_count = self.ends.len() / 2;
        // The first key of every distinct stem, and the key count at the end.
        let mut starts: Vec<u32> = Vec::with_capacity(stem_count + 1);
        for i in 0..self.len() {
            if i == 0
                || key_at(self.keys, i - 1)[..STEM_LENGTH] != key_at(self.keys, i)[..STEM_LENGTH]
            {
                starts.push(i as u32);
            }
        }
        starts.push(self.len() as u32);
        let mut walk = Walk::<H> {
            w: self,
            starts,
            key: 0,
            value: 0,
            other: 0,
            anchor: 0,
            siblings: Siblings::new(self.bitmap, self.sibling_count, self.hashes),
            scratch: Vec::new(),
            pre_hashes: 0,
            post_hashes: 0,
            hash: core::marker::PhantomData,
        };
        let (pre, post) = if stem_count == 0 {
            // No key: the witness proves the root itself, which must be sent as one sibling.
            let root = walk.siblings.next()?;
            (root, root)
        } else {
            walk.node(0, 0, stem_count)?
        };
        walk.siblings.finish()?;
        if walk.other != self.other_count() {
            return Err(broken(Rule::OtherCount, "other", walk.other));
        }
        if walk.anchor != self.anchor_count() {
            return Err(broken(Rule::AnchorCount, "anchor", walk.anchor));
        }
        if pre != *pre_root {
            return Err(WitnessError::RootMismatch {
                got: pre,
                expected: *pre_root,
            });
        }
        Ok(Verified {
            post_root: post,
            pre_hashes: walk.pre_hashes,
            post_hashes: walk.post_hashes,
        })
    }
}

/// Decodes and verifies in one call: the witness's claims and the post-state root.
pub fn verify<'a, H: TreeHash>(
    bytes: &'a [u8],
    pre_root: &[u8; 32],
) -> Result<(Witness<'a>, Verified), WitnessError> {
    let witness = Witness::decode::<H>(bytes)?;
    let verified = witness.verify::<H>(pre_root)?;
    Ok((witness, verified))
}

/// The stateless walk over the union of the touched paths, computing every node's pre- and
/// post-state hash once, left to right (`spec/BINARY.md` §4).
struct Walk<'w, 'a, H> {
    w: &'w Witness<'a>,
    starts: Vec<u32>,
    /// The next key whose leaf is read.
    key: usize,
    /// The next value.
    value: usize,
    /// The next other-stem record.
    other: usize,
    /// The next anchor.
    anchor: usize,
    siblings: Siblings<'a>,
    scratch: Vec<([u8; STEM_LENGTH], [u8; 32])>,
    pre_hashes: u64,
    post_hashes: u64,
    hash: core::marker::PhantomData<H>,
}

/// `hash(left ‖ right)` with the zero rule, in its own frame: a hasher's state is large and
/// the walk recurses up to 256 levels.
#[inline(never)]
fn pair<H: TreeHash>(left: &[u8; 32], right: &[u8; 32], count: &mut u64) -> [u8; 32] {
    hash_pair::<H>(left, right, count)
}

/// A node's pre-state hash over `pre` (its children's hashes before) and post-state hash over
/// `post` (after), with the zero rule, each counted in its own count: one hash when nothing
/// below changed, else the two messages together ([`TreeHash::hash64_many`]: two interleaved
/// SHA-256 on SHA-NI). In its own frame, as [`pair`].
#[inline(never)]
fn pre_post<H: TreeHash>(
    pre: (&[u8; 32], &[u8; 32]),
    post: (&[u8; 32], &[u8; 32]),
    (pre_count, post_count): (&mut u64, &mut u64),
) -> ([u8; 32], [u8; 32]) {
    if pre == post {
        let hash = hash_pair::<H>(pre.0, pre.1, pre_count);
        return (hash, hash);
    }
    let zero = |(left, right): (&[u8; 32], &[u8; 32])| *left == [0u8; 32] && *right == [0u8; 32];
    if zero(pre) || zero(post) {
        return (
            hash_pair::<H>(pre.0, pre.1, pre_count),
            hash_pair::<H>(post.0, post.1, post_count),
        );
    }
    *pre_count += 1;
    *post_count += 1;
    let mut out = [[0u8; 32]; 2];
    H::hash64_many(
        &[message64(pre.0, pre.1), message64(post.0, post.1)],
        &mut out,
    );
    (out[0], out[1])
}

/// `hash(value)`, in its own frame.
#[inline(never)]
fn leaf<H: TreeHash>(value: &[u8; 32]) -> [u8; 32] {
    H::hash(&[value])
}

fn stem_head(stem: &[u8]) -> [u8; 32] {
    let mut head = [0u8; 32];
    head[..STEM_LENGTH].copy_from_slice(&stem[..STEM_LENGTH]);
    head
}

impl<H: TreeHash> Walk<'_, '_, H> {
    fn stem(&self, s: usize) -> &[u8] {
        let k = self.starts[s] as usize;
        &key_at(self.w.keys, k)[..STEM_LENGTH]
    }

    fn end(&self, s: usize) -> (u8, u8) {
        (self.w.ends[2 * s], self.w.ends[2 * s + 1])
    }

    /// Pre- and post-state hashes of the node at `depth` on the paths of stems `a..b`.
    fn node(
        &mut self,
        depth: usize,
        a: usize,
        b: usize,
    ) -> Result<([u8; 32], [u8; 32]), WitnessError> {
        let (first, _) = self.end(a);
        if (first as usize) < depth {
            return Err(broken(Rule::EndDepth, "stem", a));
        }
        if first as usize == depth {
            return self.end_node(depth, a, b);
        }
        if depth >= MAX_DEPTH as usize {
            return Err(broken(Rule::EndDepth, "stem", a));
        }
        let mid = partition(a, b, |s| bit(self.stem(s), depth) == 0);
        // The one touched child an empty end: its untouched sibling is anchored (§4.1).
        let gap = (mid == a || mid == b) && self.end(a) == (depth as u8 + 1, END_EMPTY);
        let (lp, lq) = if mid > a {
            self.node(depth + 1, a, mid)?
        } else {
            self.side(depth + 1, a, gap)?
        };
        let (rp, rq) = if b > mid {
            self.node(depth + 1, mid, b)?
        } else {
            self.side(depth + 1, a, gap)?
        };
        let counts = (&mut self.pre_hashes, &mut self.post_hashes);
        let (pre, post) = pre_post::<H>((&lp, &rp), (&lq, &rq), counts);
        if pre == [0u8; 32] {
            return Err(broken(Rule::EmptyInternal, "stem", a));
        }
        Ok((pre, post))
    }

    /// The untouched child at `depth` beside the paths of stems `a..`: an anchor when the
    /// touched child is an empty end (`gap`), else the next sibling slot.
    fn side(
        &mut self,
        depth: usize,
        a: usize,
        gap: bool,
    ) -> Result<([u8; 32], [u8; 32]), WitnessError> {
        let h = if gap {
            self.anchored(depth, a)?
        } else {
            self.siblings.next()?
        };
        Ok((h, h))
    }

    /// The hash of the untouched node at `depth` beside the empty end of stem `a`'s path (its
    /// position: bits `..depth - 1` of that stem, then the other bit) from the next anchor:
    /// the stem node of the first stem below it, rebuilt from the opening of its first leaf,
    /// then the leftmost descent up to `depth` (a left side is empty where the stem goes
    /// right, a right side the next sibling slot where it goes left).
    fn anchored(&mut self, depth: usize, a: usize) -> Result<[u8; 32], WitnessError> {
        let n = self.anchor;
        let record = self
            .w
            .anchors
            .get(n * ANCHOR_LENGTH..(n + 1) * ANCHOR_LENGTH)
            .ok_or(broken(Rule::AnchorCount, "anchor", n))?;
        self.anchor += 1;
        let (at, record) = record.split_at(1);
        let at = usize::from(at[0]);
        if at <= depth {
            return Err(broken(Rule::AnchorDepth, "anchor", n));
        }
        let stem = &record[..STEM_LENGTH];
        let beside = self.stem(a);
        if first_difference(stem, beside, 0, depth - 1) != depth - 1
            || bit(stem, depth - 1) == bit(beside, depth - 1)
        {
            return Err(broken(Rule::AnchorPrefix, "anchor", n));
        }
        let mut node = self.opened_stem_node(record)?;
        for level in (depth..at).rev() {
            node = if bit(stem, level) == 1 {
                pair::<H>(&[0u8; 32], &node, &mut self.pre_hashes)
            } else {
                let right = self.siblings.next()?;
                pair::<H>(&node, &right, &mut self.pre_hashes)
            };
        }
        Ok(node)
    }

    /// The end node at `depth` shared by stems `a..b`.
    fn end_node(
        &mut self,
        depth: usize,
        a: usize,
        b: usize,
    ) -> Result<([u8; 32], [u8; 32]), WitnessError> {
        // Every stem's depth first, then the kinds (spec/BINARY.md §4: a group with a wrong
        // depth breaks `bw.end.depth` whatever its kinds are).
        if let Some(s) = (a..b).find(|&s| self.end(s).0 as usize != depth) {
            return Err(broken(Rule::EndDepth, "stem", s));
        }
        let (mut empty, mut present, mut divergent) = (0, None, 0);
        for s in a..b {
            match self.end(s).1 {
                END_EMPTY => empty += 1,
                END_PRESENT if present.is_none() => present = Some(s),
                END_PRESENT => return Err(broken(Rule::EndGroup, "stem", s)),
                _ => divergent += 1,
            }
        }
        let n = b - a;
        let valid = empty == n || (present.is_some() && divergent == n - 1) || divergent == n;
        if !valid {
            return Err(broken(Rule::EndGroup, "stem", a));
        }
        self.scratch.clear();
        let mut pre = [0u8; 32];
        if divergent == n {
            let o = self.other;
            let record = self
                .w
                .others
                .get(o * OTHER_LENGTH..(o + 1) * OTHER_LENGTH)
                .ok_or(broken(Rule::OtherCount, "other", o))?;
            self.other += 1;
            let other = &record[..STEM_LENGTH];
            if first_difference(other, self.stem(a), 0, depth) != depth {
                return Err(broken(Rule::OtherPrefix, "other", o));
            }
            if (a..b).any(|s| self.stem(s) == other) {
                return Err(broken(Rule::OtherTouched, "other", o));
            }
            pre = self.opened_stem_node(record)?;
            self.scratch
                .push((other.try_into().expect("31-byte stem"), pre));
        }
        for s in a..b {
            let (k0, k1) = (self.starts[s] as usize, self.starts[s + 1] as usize);
            let stem: [u8; STEM_LENGTH] = self.stem(s).try_into().expect("31-byte stem");
            let (sp, sq) = self.subtree(0, k0, k1, Some(s) == present)?;
            if Some(s) == present {
                if sp == [0u8; 32] {
                    return Err(broken(Rule::EmptyStem, "stem", s));
                }
                let head = stem_head(&stem);
                let counts = (&mut self.pre_hashes, &mut self.post_hashes);
                let post;
                (pre, post) = pre_post::<H>((&head, &sp), (&head, &sq), counts);
                self.scratch.push((stem, post));
            } else if sq != [0u8; 32] {
                let post = pair::<H>(&stem_head(&stem), &sq, &mut self.post_hashes);
                self.scratch.push((stem, post));
            }
        }
        self.scratch.sort_unstable_by_key(|item| item.0);
        let scratch = core::mem::take(&mut self.scratch);
        let post = self.build(depth, &scratch);
        self.scratch = scratch;
        Ok((pre, post))
    }

    /// The stem node of an other-stem record (`stem ‖ sub-index ‖ value`: an other stem's or an
    /// anchor's), `hash(stem ‖ 0x00 ‖ root)` with the subtree root rebuilt from the opening of
    /// the record's leaf.
    fn opened_stem_node(&mut self, record: &[u8]) -> Result<[u8; 32], WitnessError> {
        let (stem, leaf) = record.split_at(STEM_LENGTH);
        let (index, value) = leaf.split_at(1);
        let value: &[u8; 32] = value.try_into().expect("32-byte leaf value");
        let root = self.opening(index[0], value)?;
        Ok(pair::<H>(&stem_head(stem), &root, &mut self.pre_hashes))
    }

    /// The subtree root of an other stem from the opening of its first present leaf, at
    /// sub-index `index` with `value` (`spec/BINARY.md` §4): `hash(value)` at level 8, then up
    /// to level 0 on the bits of `index`, most significant first. Every leaf left of the
    /// first present one is absent, so a side off the path on the left is `ZERO`; one on the
    /// right is the next sibling slot, read after the left side as the walk reads them.
    fn opening(&mut self, index: u8, value: &[u8; 32]) -> Result<[u8; 32], WitnessError> {
        self.pre_hashes += 1;
        let mut node = leaf::<H>(value);
        for level in (0..8).rev() {
            node = if (index >> (7 - level)) & 1 == 0 {
                let right = self.siblings.next()?;
                pair::<H>(&node, &right, &mut self.pre_hashes)
            } else {
                pair::<H>(&[0u8; 32], &node, &mut self.pre_hashes)
            };
        }
        Ok(node)
    }

    /// The post-state subtree at `depth` holding the stem nodes `items` (sorted, distinct).
    fn build(&mut self, depth: usize, items: &[([u8; STEM_LENGTH], [u8; 32])]) -> [u8; 32] {
        match items {
            [] => [0u8; 32],
            [(_, hash)] => *hash,
            _ => {
                let mid = items.partition_point(|(stem, _)| bit(stem, depth) == 0);
                let left = self.build(depth + 1, &items[..mid]);
                let right = self.build(depth + 1, &items[mid..]);
                pair::<H>(&left, &right, &mut self.post_hashes)
            }
        }
    }

    /// Pre- and post-state hashes of the stem subtree node at `level` (0: subtree root, 8:
    /// leaves) over keys `k0..k1` of one stem. `present`: missing sides are sibling slots;
    /// otherwise (a stem absent before the block) they are empty.
    fn subtree(
        &mut self,
        level: usize,
        k0: usize,
        k1: usize,
        present: bool,
    ) -> Result<([u8; 32], [u8; 32]), WitnessError> {
        if level == 8 {
            return self.leaf(k0, present);
        }
        let keys = self.w.keys;
        let mid = partition(k0, k1, |k| bit(&key_at(keys, k)[STEM_LENGTH..], level) == 0);
        let side = |walk: &mut Self, lo: usize, hi: usize| {
            if hi > lo {
                walk.subtree(level + 1, lo, hi, present)
            } else if present {
                let h = walk.siblings.next()?;
                Ok((h, h))
            } else {
                Ok(([0u8; 32], [0u8; 32]))
            }
        };
        let (lp, lq) = side(self, k0, mid)?;
        let (rp, rq) = side(self, mid, k1)?;
        let counts = (&mut self.pre_hashes, &mut self.post_hashes);
        Ok(pre_post::<H>((&lp, &rp), (&lq, &rq), counts))
    }

    /// The leaf of key `k`: `hash(value)` before and after, or zero where absent.
    fn leaf(&mut self, k: usize, present: bool) -> Result<([u8; 32], [u8; 32]), WitnessError> {
        debug_assert_eq!(k, self.key);
        self.key = k + 1;
        let f = self.w.flags[k];
        let old = if f & FLAG_PRE != 0 {
            if !present {
                return Err(broken(Rule::AbsentValue, "key", k));
            }
            let value = value_at(self.w.values, self.value)?;
            self.value += 1;
            Some(value)
        } else {
            None
        };
        let new = if f & FLAG_SET != 0 {
            let value = value_at(self.w.values, self.value)?;
            self.value += 1;
            Some(value)
        } else {
            None
        };
        self.pre_hashes += u64::from(old.is_some());
        self.post_hashes += u64::from(new.is_some());
        Ok(match (old, new) {
            // Both values hashed together ([`TreeHash::hash32_many`]).
            (Some(old), Some(new)) => {
                let mut out = [[0u8; 32]; 2];
                H::hash32_many(&[*old, *new], &mut out);
                (out[0], out[1])
            }
            (Some(old), None) => {
                let pre = leaf::<H>(old);
                (pre, pre)
            }
            (None, Some(new)) => ([0u8; 32], leaf::<H>(new)),
            (None, None) => ([0u8; 32], [0u8; 32]),
        })
    }
}
