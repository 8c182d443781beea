//! The EIP-8297 binary witness (`spec/BINARY.md` §7–§8): zero-copy decode, stateless
//! verification against a pre-state root, and the post-state root from the witness alone,
//! inserts that split a compressed prefix and deletes that collapse a branch included.
//!
//! Layout after the 19-byte common header: a u32 branch count, then key lengths (1 byte
//! each), the keys, flags, end records (u16be branch count, kind), values, branch prefix
//! lengths (u16be each), other records (leaves and branches at path ends, and the survivors of
//! collapses) and the sibling hashes. Every sibling of a branch is non-empty, so there is no
//! bitmap.

use super::{BRANCH_TAG, LEAF_TAG};
use crate::bits::{bit, encode_bit_prefix, first_difference};
use crate::prelude::*;
use crate::witness::prefix::Prefix;
use crate::witness::wire::{check_hashes, header, partition, Reader};
use crate::witness::{
    broken, hash_id, Claim, Rule, Verified, WitnessError, WriteRef, FLAG_DELETE, FLAG_PRE,
    FLAG_SET, MAX_HASHES, MAX_KEYS, MAX_OTHERS, MAX_SIBLINGS, MAX_WITNESS_KEY_LENGTH, TREE_EIP8297,
};
use crate::TreeHash;

/// End kind: the path ends at the empty root.
pub const END_EMPTY: u8 = 0;
/// End kind: the path ends at this key's own leaf.
pub const END_PRESENT: u8 = 1;
/// End kind: the path ends at the leaf of another key.
pub const END_AT_LEAF: u8 = 2;
/// End kind: the path ends at a branch whose prefix the key leaves (or runs out inside, or at
/// its split bit).
pub const END_AT_BRANCH: u8 = 3;
/// Most branches on one path, and the longest prefix: the bits of the longest key.
pub const MAX_BRANCHES: usize = 8 * MAX_WITNESS_KEY_LENGTH;
/// Bytes of the fixed header: the common 19, then the branch count.
pub const HEADER_LENGTH: usize = 23;
/// Tag of an other record that is a leaf: `0x00 ‖ key length (1 byte) ‖ key ‖ value`.
pub const OTHER_LEAF: u8 = LEAF_TAG;
/// Tag of an other record that is a branch: `0x01 ‖ encode_bit_prefix(prefix) ‖ left ‖
/// right`, the branch's hash preimage.
pub const OTHER_BRANCH: u8 = BRANCH_TAG;

/// A decoded EIP-8297 witness: views into the bytes it was decoded from.
#[derive(Debug, Clone, Copy)]
pub struct Witness<'a> {
    lengths: &'a [u8],
    keys: &'a [u8],
    flags: &'a [u8],
    ends: &'a [u8],
    values: &'a [u8],
    branches: &'a [u8],
    others: &'a [u8],
    other_count: usize,
    hashes: &'a [u8],
    hash: u8,
}

fn u16be(b: &[u8], at: usize) -> usize {
    usize::from(u16::from_be_bytes([b[at], b[at + 1]]))
}

fn value_at(values: &[u8], i: usize) -> Result<&[u8; 32], WitnessError> {
    values
        .get(i * 32..i * 32 + 32)
        .and_then(|v| v.try_into().ok())
        .ok_or(broken(Rule::KeyFlags, "value", i))
}

/// One other record, parsed.
enum Other<'a> {
    Leaf {
        key: &'a [u8],
        value: &'a [u8; 32],
    },
    /// The record minus its tag: `encode_bit_prefix(prefix) ‖ left ‖ right`.
    Branch {
        body: &'a [u8],
        len: usize,
    },
}

/// Parses the other record at `at`; returns it and its size.
fn parse_other(others: &[u8], at: usize, index: usize) -> Result<(Other<'_>, usize), WitnessError> {
    let rest = &others[at..];
    let truncated = || WitnessError::Truncated {
        section: "others",
        offset: at,
        needed: 1,
        available: rest.len(),
    };
    match rest.first() {
        Some(&OTHER_LEAF) => {
            let len = usize::from(*rest.get(1).ok_or_else(truncated)?);
            if len == 0 || len > MAX_WITNESS_KEY_LENGTH {
                return Err(broken(Rule::KeyLength, "other", index));
            }
            let size = 2 + len + 32;
            let record = rest.get(..size).ok_or_else(truncated)?;
            let value = record[2 + len..].try_into().expect("32-byte value");
            Ok((
                Other::Leaf {
                    key: &record[2..2 + len],
                    value,
                },
                size,
            ))
        }
        Some(&OTHER_BRANCH) => {
            let head = rest.get(..3).ok_or_else(truncated)?;
            let len = u16be(head, 1);
            if len > MAX_BRANCHES {
                return Err(broken(Rule::BranchPrefix, "other", index));
            }
            let size = 3 + len.div_ceil(8) + 64;
            let record = rest.get(..size).ok_or_else(truncated)?;
            let packed = &record[3..3 + len.div_ceil(8)];
            if !len.is_multiple_of(8) && packed.last().is_some_and(|b| b & (0xff >> (len % 8)) != 0)
            {
                return Err(broken(Rule::BranchPrefix, "other", index));
            }
            check_hashes(&record[size - 64..])
                .map_err(|_| broken(Rule::ZeroHash, "other", index))?;
            Ok((
                Other::Branch {
                    body: &record[1..],
                    len,
                },
                size,
            ))
        }
        Some(_) => Err(broken(Rule::EndKind, "other", index)),
        None => Err(truncated()),
    }
}

impl<'a> Witness<'a> {
    /// Decodes `bytes` as an EIP-8297 witness over the hash `H`: the header, every count
    /// against its limit, the key lengths, order and prefix-freedom, the flags, the end
    /// records, the prefix lengths, the other records and the hashes. Allocates nothing.
    pub fn decode<H: TreeHash>(bytes: &'a [u8]) -> Result<Self, WitnessError> {
        let mut r = Reader::new(bytes);
        let hash = hash_id::<H>();
        header(&mut r, TREE_EIP8297, hash)?;
        let key_count = r.count("key_count", MAX_KEYS)?;
        let other_count = r.count("other_count", MAX_OTHERS)?;
        let sibling_count = r.count("sibling_count", MAX_SIBLINGS)?;
        let hash_count = r.count("hash_count", MAX_HASHES)?;
        let branch_count = r.count("branch_count", MAX_SIBLINGS)?;
        if hash_count != sibling_count {
            return Err(broken(Rule::HashCount, "hash", hash_count));
        }
        let lengths = r.take("key_lengths", key_count, 1)?;
        let mut total = 0;
        for (i, &len) in lengths.iter().enumerate() {
            if len == 0 || usize::from(len) > MAX_WITNESS_KEY_LENGTH {
                return Err(broken(Rule::KeyLength, "key", i));
            }
            total += usize::from(len);
        }
        let keys = r.take("keys", total, 1)?;
        let mut at = 0;
        let mut prev: &[u8] = &[];
        for (i, &len) in lengths.iter().enumerate() {
            let key = &keys[at..at + usize::from(len)];
            if i > 0 {
                if prev >= key {
                    return Err(broken(Rule::KeyOrder, "key", i));
                }
                if key.starts_with(prev) {
                    return Err(broken(Rule::KeyPrefix, "key", i));
                }
            }
            prev = key;
            at += usize::from(len);
        }
        let flags = r.take("flags", key_count, 1)?;
        let mut value_count = 0;
        for (i, &f) in flags.iter().enumerate() {
            let delete = f & FLAG_DELETE != 0;
            if f & !(FLAG_PRE | FLAG_SET | FLAG_DELETE) != 0
                || (delete && (f & FLAG_PRE == 0 || f & FLAG_SET != 0))
            {
                return Err(broken(Rule::KeyFlags, "key", i));
            }
            value_count += usize::from(f & FLAG_PRE != 0) + usize::from(f & FLAG_SET != 0);
        }
        let ends = r.take("ends", key_count, 3)?;
        for (i, end) in ends.chunks_exact(3).enumerate() {
            if u16be(end, 0) > MAX_BRANCHES {
                return Err(broken(Rule::EndDepth, "key", i));
            }
            if end[2] > END_AT_BRANCH {
                return Err(broken(Rule::EndKind, "key", i));
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
            v += usize::from(f & FLAG_PRE != 0) + usize::from(f & FLAG_SET != 0);
        }
        let branches = r.take("branches", branch_count, 2)?;
        for i in 0..branch_count {
            if u16be(branches, 2 * i) > MAX_BRANCHES {
                return Err(broken(Rule::BranchPrefix, "branch", i));
            }
        }
        // Other records are of variable size: measure them, then take them as one view.
        let start = r.position();
        let rest = &bytes[start..];
        let mut size = 0;
        for i in 0..other_count {
            let (_, n) = parse_other(rest, size, i).map_err(|e| shift(e, start))?;
            size += n;
        }
        let others = r.take("others", size, 1)?;
        let hashes = r.take("hashes", hash_count, 32)?;
        check_hashes(hashes)?;
        r.finish()?;
        Ok(Witness {
            lengths,
            keys,
            flags,
            ends,
            values,
            branches,
            others,
            other_count,
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

    /// Number of sibling hashes sent.
    pub fn hash_count(&self) -> usize {
        self.hashes.len() / 32
    }

    /// Number of other records (leaves and branches at path ends, collapse survivors).
    pub fn other_count(&self) -> usize {
        self.other_count
    }

    /// The claims in key order.
    pub fn claims(&self) -> impl Iterator<Item = Claim<'a>> + '_ {
        let (mut v, mut at) = (0, 0);
        let (keys, values, lengths) = (self.keys, self.values, self.lengths);
        self.flags.iter().enumerate().map(move |(i, &f)| {
            let key = &keys[at..at + usize::from(lengths[i])];
            at += usize::from(lengths[i]);
            let mut next = || {
                let value = value_at(values, v).expect("decode counted the values");
                v += 1;
                value
            };
            let pre = (f & FLAG_PRE != 0).then(&mut next);
            let write = if f & FLAG_SET != 0 {
                WriteRef::Set(next())
            } else if f & FLAG_DELETE != 0 {
                WriteRef::Delete
            } else {
                WriteRef::Unchanged
            };
            Claim { key, pre, write }
        })
    }

    /// Recomputes the pre-state root from the witness and compares it with `pre_root`; on
    /// success returns the post-state root computed from the witness alone.
    pub fn verify<H: TreeHash>(&self, pre_root: &[u8; 32]) -> Result<Verified, WitnessError> {
        if self.hash != hash_id::<H>() {
            return Err(broken(Rule::HashKind, "offset", 2));
        }
        let n = self.len();
        let mut offsets: Vec<u32> = Vec::with_capacity(n + 1);
        let mut firsts: Vec<u32> = Vec::with_capacity(n);
        let (mut at, mut v) = (0u32, 0u32);
        for i in 0..n {
            offsets.push(at);
            firsts.push(v);
            at += u32::from(self.lengths[i]);
            v +=
                u32::from(self.flags[i] & FLAG_PRE != 0) + u32::from(self.flags[i] & FLAG_SET != 0);
        }
        offsets.push(at);
        let mut walk = Walk::<H> {
            w: self,
            offsets,
            firsts,
            branch: 0,
            other: 0,
            other_at: 0,
            hash: 0,
            scratch: Vec::new(),
            pre_hashes: 0,
            post_hashes: 0,
            tree: core::marker::PhantomData,
        };
        let (pre, post) = if n == 0 {
            let root = if self.hashes.is_empty() {
                [0u8; 32]
            } else {
                walk.sibling()?
            };
            (root, root)
        } else {
            let (pre, post) = walk.node(0, 0, 0, n)?;
            (pre, walk.post_hash(&post))
        };
        if walk.hash != self.hash_count() {
            return Err(broken(Rule::SiblingCount, "sibling", walk.hash));
        }
        if walk.branch != self.branches.len() / 2 {
            return Err(broken(Rule::EndDepth, "branch", walk.branch));
        }
        if walk.other != self.other_count {
            return Err(broken(Rule::OtherCount, "other", walk.other));
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

/// An error found inside a sub-slice, its offset made absolute.
fn shift(e: WitnessError, by: usize) -> WitnessError {
    match e {
        WitnessError::Truncated {
            section,
            offset,
            needed,
            available,
        } => WitnessError::Truncated {
            section,
            offset: offset + by,
            needed,
            available,
        },
        other => other,
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

/// A node of the post-state tree as the walk knows it. A branch's prefix is relative to the
/// start bit of the position it is placed at.
enum Post<'a> {
    Empty,
    /// An untouched sibling: only its hash is known.
    Opaque([u8; 32]),
    Leaf {
        key: &'a [u8],
        hash: [u8; 32],
    },
    Branch {
        prefix: Prefix,
        left: [u8; 32],
        right: [u8; 32],
        /// The hash, when the branch is unchanged.
        hash: Option<[u8; 32]>,
    },
}

impl Post<'_> {
    /// Bit `i` of the node's path, where the node sits at start bit `start`; `None` past the
    /// bits every key below it shares.
    fn bit(&self, start: usize, i: usize) -> Option<u8> {
        match self {
            Post::Leaf { key, .. } => (i < 8 * key.len()).then(|| bit(key, i)),
            Post::Branch { prefix, .. } => {
                (i >= start && i - start < prefix.len()).then(|| prefix.get(i - start))
            }
            _ => None,
        }
    }

    /// The same node placed `by` bits further down (a branch's prefix loses its first bits).
    fn lowered(self, by: usize) -> Self {
        match self {
            Post::Branch {
                prefix,
                left,
                right,
                ..
            } => Post::Branch {
                prefix: prefix.tail(by),
                left,
                right,
                hash: None,
            },
            other => other,
        }
    }
}

/// The stateless walk over the union of the touched paths (`spec/BINARY.md` §8).
struct Walk<'w, 'a, H> {
    w: &'w Witness<'a>,
    /// Byte offset of each key, and the total.
    offsets: Vec<u32>,
    /// Index of each key's first value.
    firsts: Vec<u32>,
    branch: usize,
    other: usize,
    other_at: usize,
    hash: usize,
    scratch: Vec<u8>,
    pre_hashes: u64,
    post_hashes: u64,
    tree: core::marker::PhantomData<H>,
}

impl<'a, H: TreeHash> Walk<'_, 'a, H> {
    fn key(&self, i: usize) -> &'a [u8] {
        &self.w.keys[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    fn end(&self, i: usize) -> (usize, u8) {
        (u16be(self.w.ends, 3 * i), self.w.ends[3 * i + 2])
    }

    fn pre_value(&self, i: usize) -> Option<&'a [u8; 32]> {
        (self.w.flags[i] & FLAG_PRE != 0)
            .then(|| value_at(self.w.values, self.firsts[i] as usize).ok())
            .flatten()
    }

    /// The new value of a set key.
    fn new_value(&self, i: usize) -> Option<&'a [u8; 32]> {
        let f = self.w.flags[i];
        let at = self.firsts[i] as usize + usize::from(f & FLAG_PRE != 0);
        (f & FLAG_SET != 0)
            .then(|| value_at(self.w.values, at).ok())
            .flatten()
    }

    fn sibling(&mut self) -> Result<[u8; 32], WitnessError> {
        let h = self
            .w
            .hashes
            .get(self.hash * 32..self.hash * 32 + 32)
            .ok_or(broken(Rule::SiblingCount, "sibling", self.hash))?;
        self.hash += 1;
        Ok(h.try_into().expect("32-byte hash"))
    }

    fn next_other(&mut self) -> Result<Option<Other<'a>>, WitnessError> {
        if self.other >= self.w.other_count {
            return Ok(None);
        }
        let (record, size) = parse_other(self.w.others, self.other_at, self.other)?;
        self.other += 1;
        self.other_at += size;
        Ok(Some(record))
    }

    #[inline(never)]
    fn leaf_hash(&mut self, key: &[u8], value: &[u8; 32], post: bool) -> [u8; 32] {
        *if post {
            &mut self.post_hashes
        } else {
            &mut self.pre_hashes
        } += 1;
        H::hash(&[&[LEAF_TAG], key, value])
    }

    #[inline(never)]
    fn branch_hash(&mut self, prefix: &Prefix, left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
        self.post_hashes += 1;
        H::hash(&[
            &[BRANCH_TAG],
            &prefix.encoded_len(),
            prefix.packed(),
            left,
            right,
        ])
    }

    #[inline(never)]
    fn post_hash(&mut self, post: &Post<'_>) -> [u8; 32] {
        match post {
            Post::Empty => [0u8; 32],
            Post::Opaque(hash) | Post::Leaf { hash, .. } => *hash,
            Post::Branch {
                hash: Some(hash), ..
            } => *hash,
            Post::Branch {
                prefix,
                left,
                right,
                hash: None,
            } => self.branch_hash(prefix, left, right),
        }
    }

    /// The node at start bit `start`, `depth` branches down, on the paths of keys `a..b`:
    /// its pre-state hash and its post-state node. Recursion keeps only the indices here; the
    /// checks and the hashing (a hasher's state is large) are in frames that end before it.
    fn node(
        &mut self,
        start: usize,
        depth: usize,
        a: usize,
        b: usize,
    ) -> Result<([u8; 32], Post<'a>), WitnessError> {
        let Some((split, m0, mid, m1)) = self.enter(start, depth, a, b)? else {
            return self.end_node(start, a, b);
        };
        let left = if mid > m0 {
            Some(self.node(split + 1, depth + 1, m0, mid)?)
        } else {
            None
        };
        let right = if m1 > mid {
            Some(self.node(split + 1, depth + 1, mid, m1)?)
        } else {
            None
        };
        self.leave(start, split, (a, m0, m1, b), left, right)
    }

    /// Where the paths of keys `a..b` go at the node at `start`, `depth` branches down: `None`
    /// if they all end there, else the branch's split bit and the keys passing through it,
    /// `m0..m1`, divided at `mid` between its children. Checks the end depths, the branch
    /// prefix against the passing keys, and that every other key leaves the prefix.
    #[inline(never)]
    fn enter(
        &mut self,
        start: usize,
        depth: usize,
        a: usize,
        b: usize,
    ) -> Result<Option<(usize, usize, usize, usize)>, WitnessError> {
        for i in a..b {
            if self.end(i).0 < depth {
                return Err(broken(Rule::EndDepth, "key", i));
            }
        }
        let Some(m0) = (a..b).find(|&i| self.end(i).0 > depth) else {
            return Ok(None);
        };
        let m1 = (m0..b).find(|&i| self.end(i).0 == depth).unwrap_or(b);
        if let Some(i) = (m1..b).find(|&i| self.end(i).0 > depth) {
            return Err(broken(Rule::EndGroup, "key", i));
        }
        // A branch the keys m0..m1 pass through.
        let len = u16be(
            self.w
                .branches
                .get(2 * self.branch..2 * self.branch + 2)
                .ok_or(broken(Rule::EndDepth, "branch", self.branch))?,
            0,
        );
        self.branch += 1;
        let split = start + len;
        let first = self.key(m0);
        for i in m0..m1 {
            let key = self.key(i);
            if 8 * key.len() <= split || first_difference(key, first, start, split) != split {
                return Err(broken(Rule::BranchPrefix, "key", i));
            }
        }
        for i in (a..m0).chain(m1..b) {
            let key = self.key(i);
            let limit = core::cmp::min(split, 8 * key.len());
            let leaves =
                8 * key.len() <= split || first_difference(key, first, start, limit) < limit;
            if self.end(i).1 != END_AT_BRANCH || !leaves {
                return Err(broken(Rule::EndGroup, "key", i));
            }
            if self.w.flags[i] & FLAG_PRE != 0 {
                return Err(broken(Rule::AbsentValue, "key", i));
            }
        }
        let mid = partition(m0, m1, |i| bit(self.key(i), split) == 0);
        Ok(Some((split, m0, mid, m1)))
    }

    /// The branch at `start..split` after its touched children: the untouched side, the
    /// pre-state hash, the post-state node (collapsed if a side is empty) and the new leaves
    /// of the keys `a..m0` and `m1..b` that leave its prefix.
    #[inline(never)]
    fn leave(
        &mut self,
        start: usize,
        split: usize,
        (a, m0, m1, b): (usize, usize, usize, usize),
        left: Option<([u8; 32], Post<'a>)>,
        right: Option<([u8; 32], Post<'a>)>,
    ) -> Result<([u8; 32], Post<'a>), WitnessError> {
        let first = self.key(m0);
        let (left, right) = match (left, right) {
            (Some(l), Some(r)) => (l, r),
            (Some(l), None) => {
                let r = self.untouched(&l.1, first, split, 1)?;
                (l, r)
            }
            (None, Some(r)) => {
                let l = self.untouched(&r.1, first, split, 0)?;
                (l, r)
            }
            (None, None) => return Err(broken(Rule::EndGroup, "key", m0)),
        };
        encode_bit_prefix(first, start, split, &mut self.scratch);
        self.pre_hashes += 1;
        // The branch's pre-state hash, together with a child's post-state hash where one is
        // to be computed ([`TreeHash::hash_two`]).
        let (pre, paired) = {
            let message: [&[u8]; 4] = [&[BRANCH_TAG], &self.scratch, &left.0, &right.0];
            match (pending_branch(&left.1), pending_branch(&right.1)) {
                (Some(branch), _) => {
                    let [pre, post] = with_branch_hash::<H>(&message, branch);
                    (pre, Some((0, post)))
                }
                (None, Some(branch)) => {
                    let [pre, post] = with_branch_hash::<H>(&message, branch);
                    (pre, Some((1, post)))
                }
                (None, None) => (H::hash(&message), None),
            }
        };
        self.post_hashes += u64::from(paired.is_some());
        let lpost = match paired {
            Some((0, post)) => post,
            _ => self.post_hash(&left.1),
        };
        let rpost = match paired {
            Some((1, post)) => post,
            _ => self.post_hash(&right.1),
        };
        let post = match (left.1, right.1) {
            (Post::Empty, Post::Empty) => Post::Empty,
            (Post::Empty, survivor) => self.collapse(first, start, split, 1, survivor)?,
            (survivor, Post::Empty) => self.collapse(first, start, split, 0, survivor)?,
            _ => Post::Branch {
                prefix: Prefix::of_key(first, start, split),
                left: lpost,
                right: rpost,
                hash: ((lpost, rpost) == (left.0, right.0)).then_some(pre),
            },
        };
        // New leaves of the keys that leave this branch's prefix.
        let mut items = Vec::new();
        for i in (a..m0).chain(m1..b) {
            if let Some(value) = self.new_value(i) {
                let key = self.key(i);
                let hash = self.leaf_hash(key, value, true);
                items.push(Post::Leaf { key, hash });
            }
        }
        if items.is_empty() {
            return Ok((pre, post));
        }
        if !matches!(post, Post::Empty) {
            items.push(post);
        }
        Ok((pre, self.build(start, items)?))
    }

    /// The sibling on side `side` of the branch splitting at `split` whose other child is
    /// `touched`: a hash, or, if `touched` is empty after the block, the record of the
    /// survivor that takes the branch's place.
    #[inline(never)]
    fn untouched(
        &mut self,
        touched: &Post<'_>,
        path: &[u8],
        split: usize,
        side: u8,
    ) -> Result<([u8; 32], Post<'a>), WitnessError> {
        if !matches!(touched, Post::Empty) {
            let h = self.sibling()?;
            return Ok((h, Post::Opaque(h)));
        }
        let index = self.other;
        match self.next_other()? {
            Some(Other::Leaf { key, value }) => {
                if 8 * key.len() <= split
                    || first_difference(key, path, 0, split) != split
                    || bit(key, split) != side
                {
                    return Err(broken(Rule::Collapse, "other", index));
                }
                let hash = self.leaf_hash(key, value, false);
                Ok((hash, Post::Leaf { key, hash }))
            }
            Some(Other::Branch { body, len }) => {
                self.pre_hashes += 1;
                let hash = H::hash(&[&[BRANCH_TAG], body]);
                let n = 2 + len.div_ceil(8);
                Ok((
                    hash,
                    Post::Branch {
                        prefix: Prefix::of_packed(&body[2..n], len),
                        left: body[n..n + 32].try_into().expect("32-byte hash"),
                        right: body[n + 32..n + 64].try_into().expect("32-byte hash"),
                        hash: Some(hash),
                    },
                ))
            }
            None => Err(broken(Rule::Collapse, "other", index)),
        }
    }

    /// The branch at `start..split` (bits of `path`) left with one child, `survivor` on side
    /// `side`: a leaf takes its place unchanged, a branch with the prefixes joined.
    #[inline(never)]
    fn collapse(
        &mut self,
        path: &[u8],
        start: usize,
        split: usize,
        side: u8,
        survivor: Post<'a>,
    ) -> Result<Post<'a>, WitnessError> {
        match survivor {
            Post::Leaf { .. } => Ok(survivor),
            Post::Branch {
                prefix,
                left,
                right,
                ..
            } => {
                let mut joined = Prefix::of_key(path, start, split);
                joined.push(side);
                joined.append(&prefix);
                Ok(Post::Branch {
                    prefix: joined,
                    left,
                    right,
                    hash: None,
                })
            }
            _ => Err(broken(Rule::Collapse, "other", self.other)),
        }
    }

    /// The end node at `start` where every key of `a..b` ends.
    #[inline(never)]
    fn end_node(
        &mut self,
        start: usize,
        a: usize,
        b: usize,
    ) -> Result<([u8; 32], Post<'a>), WitnessError> {
        let (mut empty, mut present, mut at_leaf, mut at_branch) = (0, None, 0, 0);
        for i in a..b {
            match self.end(i).1 {
                END_EMPTY => empty += 1,
                END_PRESENT if present.is_none() => present = Some(i),
                END_PRESENT => return Err(broken(Rule::EndGroup, "key", i)),
                END_AT_LEAF => at_leaf += 1,
                _ => at_branch += 1,
            }
        }
        let n = b - a;
        let group = |rule| broken(rule, "key", a);
        let (pre, existing) = if empty == n {
            if start != 0 {
                return Err(group(Rule::EndGroup));
            }
            ([0u8; 32], Post::Empty)
        } else if let Some(i) = present {
            if at_leaf != n - 1 {
                return Err(group(Rule::EndGroup));
            }
            let key = self.key(i);
            let value = self
                .pre_value(i)
                .ok_or(broken(Rule::PresentAbsent, "key", i))?;
            let deleted = self.w.flags[i] & FLAG_DELETE != 0;
            match self.new_value(i).filter(|_| !deleted) {
                // The old and the new leaf hashed together ([`TreeHash::hash_two`]).
                Some(new) => {
                    self.pre_hashes += 1;
                    self.post_hashes += 1;
                    let [pre, hash] =
                        H::hash_two(&[&[LEAF_TAG], key, value], &[&[LEAF_TAG], key, new]);
                    (pre, Post::Leaf { key, hash })
                }
                None => {
                    let pre = self.leaf_hash(key, value, false);
                    let post = if deleted {
                        Post::Empty
                    } else {
                        Post::Leaf { key, hash: pre }
                    };
                    (pre, post)
                }
            }
        } else if at_leaf == n || at_branch == n {
            let index = self.other;
            let first = self.key(a);
            match (self.next_other()?, at_leaf == n) {
                (Some(Other::Leaf { key, value }), true) => {
                    if 8 * key.len() < start || first_difference(key, first, 0, start) != start {
                        return Err(broken(Rule::OtherPrefix, "other", index));
                    }
                    if (a..b).any(|i| self.key(i) == key) {
                        return Err(broken(Rule::OtherTouched, "other", index));
                    }
                    let hash = self.leaf_hash(key, value, false);
                    (hash, Post::Leaf { key, hash })
                }
                (Some(Other::Branch { body, len }), false) => {
                    let n_bytes = len.div_ceil(8);
                    let prefix = Prefix::of_packed(&body[2..2 + n_bytes], len);
                    for i in a..b {
                        let key = self.key(i);
                        // A key that runs out at or before the split bit is a proper prefix
                        // of every key below the branch: absent, as one that differs.
                        let leaves = 8 * key.len() <= start + len
                            || (0..len).any(|j| bit(key, start + j) != prefix.get(j));
                        if !leaves {
                            return Err(broken(Rule::EndGroup, "key", i));
                        }
                    }
                    self.pre_hashes += 1;
                    let hash = H::hash(&[&[BRANCH_TAG], body]);
                    let post = Post::Branch {
                        prefix,
                        left: body[2 + n_bytes..34 + n_bytes]
                            .try_into()
                            .expect("32-byte hash"),
                        right: body[34 + n_bytes..66 + n_bytes]
                            .try_into()
                            .expect("32-byte hash"),
                        hash: Some(hash),
                    };
                    (hash, post)
                }
                (None, _) => return Err(broken(Rule::OtherCount, "other", index)),
                _ => return Err(broken(Rule::EndGroup, "other", index)),
            }
        } else {
            return Err(group(Rule::EndGroup));
        };
        let mut items = Vec::new();
        for i in a..b {
            if Some(i) == present {
                continue;
            }
            if self.w.flags[i] & FLAG_PRE != 0 {
                return Err(broken(Rule::AbsentValue, "key", i));
            }
            if let Some(value) = self.new_value(i) {
                let key = self.key(i);
                let hash = self.leaf_hash(key, value, true);
                items.push(Post::Leaf { key, hash });
            }
        }
        if items.is_empty() {
            return Ok((pre, existing));
        }
        if !matches!(existing, Post::Empty) {
            items.push(existing);
        }
        Ok((pre, self.build(start, items)?))
    }

    /// The post-state subtree at start bit `start` over `items` (leaves and branches whose
    /// paths are prefix-free): `binarize` of EIP-8297 "Tree structure".
    #[inline(never)]
    fn build(&mut self, start: usize, mut items: Vec<Post<'a>>) -> Result<Post<'a>, WitnessError> {
        if items.len() <= 1 {
            return Ok(items.pop().unwrap_or(Post::Empty));
        }
        let mut split = start;
        loop {
            let mut seen = [false; 2];
            for item in &items {
                match item.bit(start, split) {
                    Some(b) => seen[usize::from(b)] = true,
                    None => {
                        let rule = if matches!(item, Post::Leaf { .. }) {
                            Rule::KeyPrefix
                        } else {
                            Rule::EndGroup
                        };
                        return Err(broken(rule, "depth", split));
                    }
                }
            }
            if seen == [true, true] {
                break;
            }
            split += 1;
        }
        let prefix = {
            let mut p = Prefix::default();
            for i in start..split {
                p.push(items[0].bit(start, i).unwrap_or(0));
            }
            p
        };
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for item in items {
            if item.bit(start, split) == Some(0) {
                left.push(item.lowered(split + 1 - start));
            } else {
                right.push(item.lowered(split + 1 - start));
            }
        }
        let left = self.build(split + 1, left)?;
        let right = self.build(split + 1, right)?;
        let (left, right) = (self.post_hash(&left), self.post_hash(&right));
        Ok(Post::Branch {
            prefix,
            left,
            right,
            hash: None,
        })
    }
}

/// A post-state branch whose hash is still to be computed: its prefix and children's hashes.
fn pending_branch<'p>(post: &'p Post<'_>) -> Option<(&'p Prefix, &'p [u8; 32], &'p [u8; 32])> {
    match post {
        Post::Branch {
            prefix,
            left,
            right,
            hash: None,
        } => Some((prefix, left, right)),
        _ => None,
    }
}

/// The hash of `message` and the hash of the branch `(prefix, left, right)`, together.
fn with_branch_hash<H: TreeHash>(
    message: &[&[u8]],
    (prefix, left, right): (&Prefix, &[u8; 32], &[u8; 32]),
) -> [[u8; 32]; 2] {
    let len = prefix.encoded_len();
    H::hash_two(
        message,
        &[&[BRANCH_TAG], &len, prefix.packed(), left, right],
    )
}
