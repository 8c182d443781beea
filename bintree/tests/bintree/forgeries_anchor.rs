//! Structured forgeries of the EIP-7864 witness's anchors and EMPTY ends: an attacker who
//! holds the whole state writes the witness a hostile prover would, reading the real tree's
//! hashes wherever the verifier asks for a sibling, and the verifier must reject it, or every
//! claim and the post-state root must be true.
//!
//! A stem node `hash(S ‖ 0x00 ‖ root_S)` is also an internal node with left child `S ‖ 0x00`
//! and right child `root_S`, and a stem subtree's nodes are internal nodes to a walk that
//! enters it; an internal node whose left child's hash ends in `0x00` is also a stem node.
//! The model below computes the real hash at any position of the key space under that
//! reading ([`Model::view`]), so that each forgery takes every sibling from the true tree.
//! The forgeries: anchors at another depth or side, naming a later stem, an internal node
//! read as a stem (searched state), a stem inside the zero stem's subtree, the zero stem in
//! place of an internal node; EMPTY ends at two depths inside a stem subtree, beside both
//! sides of the zero stem's node, beside a stem node one level too deep; a PRESENT stem
//! claimed below its stem node; zero-valued leaves; inserts beside an anchored sibling and
//! beside an other stem sharing a long prefix; groups of keys at one end; and random trees
//! holding the zero stem, their honest witnesses and their end records moved.

use bintree::eip7864::{witness, Tree};
use bintree::fuzz::eip7864::{applied_root, key, near_with, Parts};
use bintree::fuzz::rng::Rng;
use bintree::witness::{Write, WriteRef};
use bintree::{Sha256, TreeHash};

use super::forgeries::{
    anchor_record, other_record, pair, set_siblings, stem_node, top_slot_openings,
};

const ZERO: [u8; 32] = [0; 32];
const EMPTY: u8 = 0;
const PRESENT: u8 = 1;
const DIVERGENT: u8 = 2;

/// A stem's present leaves: sub-index and value, sorted by sub-index.
type Values = Vec<(u8, [u8; 32])>;

/// Bit `i` of `bytes`, most significant first.
fn bit(bytes: &[u8], i: usize) -> u8 {
    (bytes[i / 8] >> (7 - i % 8)) & 1
}

/// A stem whose first bits are `bits` (a string of `0` and `1`) and whose other bits are
/// those of `fill` repeated.
fn st(bits: &str, fill: u8) -> [u8; 31] {
    let mut s = [fill; 31];
    for (i, c) in bits.bytes().enumerate() {
        let mask = 0x80u8 >> (i % 8);
        if c == b'1' {
            s[i / 8] |= mask;
        } else {
            s[i / 8] &= !mask;
        }
    }
    s
}

/// The first `n` bits of `stem`.
fn bits(stem: &[u8], n: usize) -> Vec<u8> {
    (0..n).map(|i| bit(stem, i)).collect()
}

/// The position beside `stem`'s path at depth `n`: its first `n − 1` bits, then the other
/// bit.
fn beside(stem: &[u8], n: usize) -> Vec<u8> {
    let mut p = bits(stem, n);
    p[n - 1] ^= 1;
    p
}

/// `stem ‖ 0x00`: the left child of a stem node read as an internal node.
fn head(stem: &[u8; 31]) -> [u8; 32] {
    let mut h = [0u8; 32];
    h[..31].copy_from_slice(stem);
    h
}

/// The node of a stem subtree at `level` (0: the root, 8: a leaf) over the sub-indices whose
/// first `level` bits are those of `prefix` (its other bits zero).
fn sub_node(values: &[(u8, [u8; 32])], level: usize, prefix: u8) -> [u8; 32] {
    if level == 8 {
        return values
            .iter()
            .find(|(i, _)| *i == prefix)
            .map_or(ZERO, |(_, v)| Sha256::hash(&[v]));
    }
    let right = prefix | (0x80 >> level);
    pair(
        &sub_node(values, level + 1, prefix),
        &sub_node(values, level + 1, right),
    )
}

/// The first `level` bits of a sub-index as a mask.
fn top(level: usize) -> u8 {
    ((0xff00u16 >> level) & 0xff) as u8
}

/// The sibling slots of the opening of leaf `i` of a stem holding `values`: the right side
/// at each level where `i` goes left, the deepest first.
fn opening_slots(values: &[(u8, [u8; 32])], i: u8) -> Vec<[u8; 32]> {
    (0..8)
        .rev()
        .filter(|&level| (i >> (7 - level)) & 1 == 0)
        .map(|level| sub_node(values, level + 1, (i & top(level)) | (0x80 >> level)))
        .collect()
}

/// The sibling slots of a PRESENT stem's subtree walked to the one leaf `j`: the left sides
/// top-down, then the right sides bottom-up.
fn subtree_slots(values: &[(u8, [u8; 32])], j: u8) -> Vec<[u8; 32]> {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for level in 0..8 {
        let other = (j & top(level)) | (!j & (0x80 >> level));
        let h = sub_node(values, level + 1, other);
        if (j >> (7 - level)) & 1 == 1 {
            left.push(h);
        } else {
            right.push(h);
        }
    }
    right.reverse();
    [left, right].concat()
}

/// The sibling slots of `p` in order, a 0 bit as the zero hash.
fn slots_of(p: &Parts) -> Vec<[u8; 32]> {
    let mut hashes = p.hashes.iter();
    (0..p.slots)
        .map(|j| {
            if p.bit(j) {
                *hashes.next().unwrap()
            } else {
                ZERO
            }
        })
        .collect()
}

/// A real tree, the stems and values it was built from, and its root.
struct Model {
    stems: Vec<([u8; 31], Values)>,
    tree: Tree<Sha256>,
    root: [u8; 32],
}

impl Model {
    /// The tree of `stems` (each with its present leaves); its root is checked against the
    /// model's.
    fn new(mut stems: Vec<([u8; 31], Values)>) -> Model {
        stems.sort_by_key(|s| s.0);
        for (_, values) in &mut stems {
            values.sort_by_key(|v| v.0);
        }
        let mut tree = Tree::<Sha256>::new();
        for (s, values) in &stems {
            for (i, v) in values {
                tree.insert(&key(s, *i), v).unwrap();
            }
        }
        let root = tree.root();
        let m = Model { stems, tree, root };
        assert_eq!(m.view(&[]), root, "the model is the tree");
        m
    }

    /// The present leaves of `stem`.
    fn values(&self, stem: &[u8; 31]) -> &Values {
        &self.stems.iter().find(|s| s.0 == *stem).unwrap().1
    }

    /// The stem node of `stem`.
    fn stem_node(&self, stem: &[u8; 31]) -> [u8; 32] {
        stem_node(stem, &sub_node(self.values(stem), 0, 0))
    }

    /// The real hash at the position `path` (bits) of the key space, a stem node read as an
    /// internal node (left child `S ‖ 0x00`, right child its subtree root) and its subtree's
    /// nodes as internal nodes below it. Below `S ‖ 0x00` or a leaf the attacker knows no
    /// node: zero.
    fn view(&self, path: &[u8]) -> [u8; 32] {
        let mut items: Vec<&([u8; 31], Values)> = self.stems.iter().collect();
        let mut d = 0;
        loop {
            match items.as_slice() {
                [] => return ZERO,
                [(s, values)] => {
                    if d == path.len() {
                        return stem_node(s, &sub_node(values, 0, 0));
                    }
                    if path[d] == 0 {
                        return if path.len() == d + 1 { head(s) } else { ZERO };
                    }
                    let rest = &path[d + 1..];
                    if rest.len() > 8 {
                        return ZERO;
                    }
                    let prefix = rest
                        .iter()
                        .enumerate()
                        .fold(0u8, |p, (i, &b)| p | (b << (7 - i)));
                    return sub_node(values, rest.len(), prefix);
                }
                _ => {
                    if d == path.len() {
                        let left = self.view(&[path, &[0]].concat());
                        let right = self.view(&[path, &[1]].concat());
                        return pair(&left, &right);
                    }
                    items.retain(|(s, _)| bit(s, d) == path[d]);
                    d += 1;
                }
            }
        }
    }

    /// The sibling slots of an anchor of `stem` at depth `k` for the child at depth `e`: the
    /// opening `opening`, then the descent's right sides bottom-up, from the real tree.
    fn anchor_slots(
        &self,
        stem: &[u8; 31],
        k: usize,
        e: usize,
        opening: &[[u8; 32]],
    ) -> Vec<[u8; 32]> {
        let mut slots = opening.to_vec();
        for level in (e..k).rev() {
            if bit(stem, level) == 0 {
                slots.push(self.view(&[bits(stem, level), vec![1]].concat()));
            }
        }
        slots
    }

    /// The sibling slots of a lone path of `stem` to an end at depth `end`, with `middle`
    /// (the end's own slots) in its place. When `anchored`, the side at depth `end` is an
    /// anchor (its slots in `middle`), not a slot.
    fn lone_path(
        &self,
        stem: &[u8; 31],
        end: usize,
        anchored: bool,
        middle: &[[u8; 32]],
    ) -> Vec<[u8; 32]> {
        let last = if anchored { end - 1 } else { end };
        self.segment(stem, 1, last, middle)
    }

    /// The sibling slots of the part of `stem`'s lone path whose sides are at depths
    /// `from..=last`, around `middle`: the left sides top-down, the middle, the right sides
    /// bottom-up (the walk's order).
    fn segment(
        &self,
        stem: &[u8; 31],
        from: usize,
        last: usize,
        middle: &[[u8; 32]],
    ) -> Vec<[u8; 32]> {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for j in from..=last {
            let h = self.view(&beside(stem, j));
            if bit(stem, j - 1) == 1 {
                left.push(h);
            } else {
                right.push(h);
            }
        }
        right.reverse();
        [left, middle.to_vec(), right].concat()
    }

    /// The parsed honest witness for `writes`.
    fn honest(&mut self, writes: &[([u8; 32], Write)]) -> Parts {
        Parts::parse(&self.tree.witness(writes).unwrap()).unwrap()
    }

    /// Verifies `p`: `Ok` when it is accepted, after asserting that every claimed pre-value
    /// and the post-state root are the tree's; else the name of the rule it breaks.
    fn outcome(&self, p: &Parts) -> Result<(), &'static str> {
        let bytes = p.encode();
        let (w, v) = witness::verify::<Sha256>(&bytes, &self.root).map_err(|e| e.name())?;
        let mut writes = Vec::new();
        for c in w.claims() {
            assert_eq!(
                c.pre,
                self.tree.get(c.key),
                "accepted a false pre-value of key {:02x?}",
                c.key
            );
            if let WriteRef::Set(value) = c.write {
                writes.push((<[u8; 32]>::try_from(c.key).unwrap(), Write::Set(*value)));
            }
        }
        assert_eq!(
            v.post_root,
            applied_root(&self.tree, &writes),
            "accepted a false post-state root"
        );
        Ok(())
    }

    /// The rule a forged `p` breaks; fails the test if it is accepted.
    fn rejected(&self, p: &Parts) -> &'static str {
        match self.outcome(p) {
            Ok(()) => panic!("forged witness accepted (its claims true)"),
            Err(name) => name,
        }
    }

    /// The honest witness for `writes`, checked to verify with true claims and post-state
    /// root.
    fn proven(&mut self, writes: &[([u8; 32], Write)]) -> Parts {
        let p = self.honest(writes);
        assert_eq!(self.outcome(&p), Ok(()), "honest witness");
        p
    }
}

/// A value that differs for each `i`.
fn value(i: u32, fill: u8) -> [u8; 32] {
    let mut v = [fill; 32];
    v[..4].copy_from_slice(&i.to_le_bytes());
    v
}

/// The first of `value(0, fill)`, `value(1, fill)`, … whose `node` reads as a stem node's
/// message head: its last byte `0x00` and its first bits `bits` (at most 8), a search of some
/// `2^(8 + bits)` hashes.
fn chosen_value(fill: u8, bits: &str, node: impl Fn(&[u8; 32]) -> [u8; 32]) -> [u8; 32] {
    let prefix = u8::from_str_radix(bits, 2).expect("a bit string");
    let tries = 100u32 << (8 + bits.len());
    (0..tries)
        .map(|i| value(i, fill))
        .find(|v| {
            let n = node(v);
            n[31] == 0 && n[0] >> (8 - bits.len()) == prefix
        })
        .unwrap_or_else(|| panic!("no value in {tries} gives a node {bits}… ‖ 0x00"))
}

/// The tree of the anchor tests: nothing right of the root, and left of it `P` (`010010…`)
/// and `Q` (`010011…`) at depth 6 and `R` (`0110…`) at depth 3; the anchor of the root's
/// left child is `P` (leaves 3 and 9), reached by right, left, left, right, left steps.
fn anchored_tree() -> (Model, [u8; 31], [u8; 31], [u8; 31]) {
    let (p, q, r) = (st("010010", 0x11), st("010011", 0x22), st("0110", 0x33));
    let m = Model::new(vec![
        (p, vec![(3, [0xa3; 32]), (9, [0xa9; 32])]),
        (q, vec![(0, [0xb0; 32])]),
        (r, vec![(0x80, [0xc8; 32])]),
    ]);
    (m, p, q, r)
}

/// Anchors that are not the first stem node below the EMPTY end's sibling: on the touched
/// side, off its prefix, at or above its depth, one level off its real depth, a later stem
/// below the sibling (whose descent claims an empty left side that holds `P`), a later leaf
/// of the right stem; and anchors missing, in excess, or replaced by the sibling's hash as a
/// plain slot.
#[test]
fn anchors_other_than_the_first_stem_below_the_sibling_are_refused() {
    let (mut m, p, q, r) = anchored_tree();
    let k = st("1", 0x44);
    let target = key(&k, 0);
    let honest = m.proven(&[(target, Write::Unchanged)]);
    // The model's anchor is the prover's: P at depth 6, its first leaf, its descent's slots.
    let opening = opening_slots(m.values(&p), 3);
    assert_eq!(honest.ends, vec![[1, EMPTY]]);
    assert_eq!(honest.anchors, vec![anchor_record(6, &p, 3, &[0xa3; 32])]);
    let slots = m.lone_path(&k, 1, true, &m.anchor_slots(&p, 6, 1, &opening));
    assert_eq!(slots_of(&honest), slots);
    assert_eq!(
        slots[slots.len() - 3..],
        [m.stem_node(&q), ZERO, m.stem_node(&r)]
    );

    let with = |anchors: Vec<[u8; 65]>, slots: &[[u8; 32]]| {
        let mut f = honest.clone();
        f.anchors = anchors;
        set_siblings(&mut f, slots);
        f
    };
    // The touched side, and the stems whose bit 0 is 1.
    for stem in [k, st("1", 0x11), st("11", 0x22)] {
        let f = with(vec![anchor_record(6, &stem, 3, &[0xa3; 32])], &slots);
        assert_eq!(m.rejected(&f), "bw.anchor.prefix");
    }
    // At or above the sibling's depth.
    for depth in [0, 1] {
        let f = with(vec![anchor_record(depth, &p, 3, &[0xa3; 32])], &slots);
        assert_eq!(m.rejected(&f), "bw.anchor.depth", "depth {depth}");
    }
    // P one level off (and further), its slots read from the tree as the depth requires.
    for depth in [2usize, 3, 4, 5, 7, 8, 12] {
        let s = m.lone_path(&k, 1, true, &m.anchor_slots(&p, depth, 1, &opening));
        let f = with(vec![anchor_record(depth as u8, &p, 3, &[0xa3; 32])], &s);
        assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
    }
    // Q and R: real stem nodes below the sibling, not the first.
    for (stem, depth, index) in [(q, 6usize, 0u8), (r, 3, 0x80)] {
        let opening = opening_slots(m.values(&stem), index);
        let s = m.lone_path(&k, 1, true, &m.anchor_slots(&stem, depth, 1, &opening));
        let v = m.values(&stem)[0].1;
        let f = with(vec![anchor_record(depth as u8, &stem, index, &v)], &s);
        assert_eq!(m.rejected(&f), "bw.root");
    }
    // P's second leaf, its left side (leaf 3's half) claimed empty.
    let later = opening_slots(m.values(&p), 9);
    let s = m.lone_path(&k, 1, true, &m.anchor_slots(&p, 6, 1, &later));
    let f = with(vec![anchor_record(6, &p, 9, &[0xa9; 32])], &s);
    assert_eq!(m.rejected(&f), "bw.root");
    // None, two, or the sibling sent as a slot.
    assert_eq!(m.rejected(&with(vec![], &slots)), "bw.count.anchors");
    let twice = vec![honest.anchors[0], honest.anchors[0]];
    assert_eq!(m.rejected(&with(twice, &slots)), "bw.count.anchors");
    let sibling = m.view(&[0]);
    assert_eq!(m.rejected(&with(vec![], &[sibling])), "bw.count.anchors");
    // An anchor on a witness whose EMPTY end has no untouched sibling (R's key beside it).
    let mut both = m.proven(&[
        (target, Write::Unchanged),
        (key(&r, 0x80), Write::Unchanged),
    ]);
    assert!(both.anchors.is_empty());
    both.anchors = honest.anchors.clone();
    assert_eq!(m.rejected(&both), "bw.count.anchors");
}

/// The zero stem at depth 2 beside `Y` (`01…`), nothing right of the root: the anchor of the
/// root's left child is the zero stem itself (an honest anchor may have stem `0^31`). Its node
/// `hash(0^31 ‖ 0x00 ‖ root_Z)` is also `hash(ZERO ‖ root_Z)`, a descent step turning right
/// past an empty left side: an anchor may name a stem `X` of prefix `001`, inside the zero
/// stem's subtree. The attacker searches the zero stem's first value until the subtree's
/// left child `l1` ends in `0x00` with prefix `001`: `X = l1[0..31]` at depth 3 then reads
/// `root_Z = hash(l1 ‖ r1)` as `X`'s stem node, if an opening rebuilt `r1`, a node 7 levels
/// above its leaves (the opening has 8); and stems of that prefix deeper in the subtree.
#[test]
fn anchors_through_the_zero_stem_into_its_subtree_are_refused() {
    let w = [0x77; 32];
    let chain = |v: &[u8; 32]| sub_node(&[(0, *v)], 1, 0);
    // One value in 2048 gives l1 = 001… ‖ 0x00.
    let v0 = chosen_value(0x5a, "001", chain);
    let zero = [0u8; 31];
    let y = st("01", 0x55);
    let mut m = Model::new(vec![
        (zero, vec![(0, v0), (0x80, w)]),
        (y, vec![(0, [0x99; 32])]),
    ]);
    let l1 = sub_node(m.values(&zero), 1, 0);
    let r1 = sub_node(m.values(&zero), 1, 0x80);
    assert_eq!(m.view(&[0, 0, 1]), pair(&l1, &r1));
    let k = st("1", 0x44);
    let target = key(&k, 0);
    let honest = m.proven(&[(target, Write::Unchanged)]);
    assert_eq!(honest.anchors, vec![anchor_record(2, &zero, 0, &v0)]);

    let with = |anchor: [u8; 65], slots: &[[u8; 32]]| {
        let mut f = honest.clone();
        f.anchors = vec![anchor];
        set_siblings(&mut f, slots);
        f
    };
    let x: [u8; 31] = l1[..31].try_into().unwrap();
    // Openings aiming at r1: its leaf w at each sub-index, r1's own halves as value or slot.
    let r2 = sub_node(m.values(&zero), 2, 0x80);
    let mut openings: Vec<(u8, [u8; 32], Vec<[u8; 32]>)> = vec![
        (0x00, w, vec![ZERO; 8]),
        (0x80, w, vec![ZERO; 7]),
        (0x00, r2, vec![ZERO; 8]),
        (0xff, r1, vec![]),
        (0x7f, r2, vec![ZERO]),
    ];
    for i in [0x01u8, 0x40, 0xfe] {
        openings.push((i, w, vec![ZERO; i.count_zeros() as usize]));
    }
    for (i, v, opening) in &openings {
        let s = m.lone_path(&k, 1, true, &m.anchor_slots(&x, 3, 1, opening));
        let f = with(anchor_record(3, &x, *i, v), &s);
        assert_eq!(m.rejected(&f), "bw.root", "opening {i}");
    }
    // Stems of prefix 001 at every depth inside the subtree, opening the zero stem's leaves,
    // their descents' right sides read from the subtree.
    for fill in [0x00u8, 0xff, 0x5a] {
        let inside = st("001", fill);
        for depth in 3..=12usize {
            for (i, v) in [(0u8, v0), (0x80, w), (0, l1)] {
                let opening = vec![ZERO; i.count_zeros() as usize];
                let s = m.lone_path(&k, 1, true, &m.anchor_slots(&inside, depth, 1, &opening));
                let f = with(anchor_record(depth as u8, &inside, i, &v), &s);
                assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
            }
        }
    }
}

/// An internal node read as an anchor's stem node: `A` (`000…`), `B` (`001…`), `C` (`01…`),
/// nothing right of the root. The attacker searches `A`'s value until `A`'s stem node, the
/// left child of `P = hash(A's node ‖ B's node)` at position `00`, ends in `0x00` with prefix
/// `00`; `X = A's node[0..31]` at depth 2 reads `P` as `X`'s stem node if an opening rebuilt
/// `B`'s stem node, a 64-byte hash input 9 levels above no leaf.
#[test]
fn anchor_reading_an_internal_node_as_a_stem_node_by_a_chosen_last_byte_is_refused() {
    let a = st("000", 0x11);
    let b = st("001", 0x22);
    let c = st("01", 0x33);
    // One value in 1024 gives A's node = 00… ‖ 0x00.
    let va = chosen_value(0xa0, "00", |v| stem_node(&a, &sub_node(&[(0, *v)], 0, 0)));
    let vb = [0xbb; 32];
    let mut m = Model::new(vec![
        (a, vec![(0, va)]),
        (b, vec![(0, vb)]),
        (c, vec![(0, [0xcc; 32])]),
    ]);
    let (a_node, b_node) = (m.stem_node(&a), m.stem_node(&b));
    assert_eq!(m.view(&[0, 0]), pair(&a_node, &b_node));
    let k = st("1", 0x44);
    let honest = m.proven(&[(key(&k, 0), Write::Unchanged)]);
    assert_eq!(honest.anchors, vec![anchor_record(3, &a, 0, &va)]);
    let x: [u8; 31] = a_node[..31].try_into().unwrap();
    let root_b = sub_node(m.values(&b), 0, 0);
    let mut openings: Vec<(u8, [u8; 32], Vec<[u8; 32]>)> = vec![
        (0, vb, vec![ZERO; 8]),
        (0, vb, [vec![ZERO; 7], vec![root_b]].concat()),
        (0, root_b, vec![ZERO; 8]),
        (0xff, b_node, vec![]),
        (0xff, root_b, vec![]),
    ];
    openings.extend(top_slot_openings(&vb, &root_b));
    for (i, v, opening) in &openings {
        let mut f = honest.clone();
        f.anchors = vec![anchor_record(2, &x, *i, v)];
        let s = m.lone_path(&k, 1, true, &m.anchor_slots(&x, 2, 1, opening));
        set_siblings(&mut f, &s);
        assert_eq!(m.rejected(&f), "bw.root", "opening {i}");
    }
}

/// The zero stem as an anchor in place of an internal node whose left child is empty: `D`
/// (`0010…`), `E` (`0011…`), `C` (`01…`), nothing right of the root, so the node at `00` is
/// `hash(ZERO ‖ N001)`, the hash input of the zero stem's node with subtree root `N001`.
/// At depth 1, the anchored child's own depth, the zero stem is refused for its depth; at
/// depth 2 its opening would have to rebuild `N001`, an internal node.
#[test]
fn zero_stem_anchor_in_place_of_an_internal_node_with_an_empty_left_child_is_refused() {
    let (d, e, c) = (st("0010", 0x11), st("0011", 0x22), st("01", 0x33));
    let mut m = Model::new(vec![
        (d, vec![(0, [0xdd; 32])]),
        (e, vec![(0, [0xee; 32])]),
        (c, vec![(0, [0xcc; 32])]),
    ]);
    let n001 = m.view(&[0, 0, 1]);
    assert_eq!(m.view(&[0, 0]), pair(&ZERO, &n001));
    let k = st("1", 0x44);
    let honest = m.proven(&[(key(&k, 0), Write::Unchanged)]);
    assert_eq!(honest.anchors, vec![anchor_record(4, &d, 0, &[0xdd; 32])]);
    let zero = [0u8; 31];
    let (d_node, e_node) = (m.stem_node(&d), m.stem_node(&e));
    let root_d = sub_node(m.values(&d), 0, 0);
    let openings: Vec<(u8, [u8; 32], Vec<[u8; 32]>)> = vec![
        (0, [0xdd; 32], [vec![ZERO; 7], vec![e_node]].concat()),
        (0, [0xdd; 32], vec![ZERO; 8]),
        (0, root_d, [vec![ZERO; 7], vec![e_node]].concat()),
        (0x7f, d_node, vec![e_node]),
        (0xff, n001, vec![]),
    ];
    for depth in [1usize, 2, 3] {
        for (i, v, opening) in &openings {
            let mut f = honest.clone();
            f.anchors = vec![anchor_record(depth as u8, &zero, *i, v)];
            let s = m.lone_path(&k, 1, true, &m.anchor_slots(&zero, depth, 1, opening));
            set_siblings(&mut f, &s);
            let rule = if depth == 1 {
                "bw.anchor.depth"
            } else {
                "bw.root"
            };
            assert_eq!(m.rejected(&f), rule, "depth {depth} opening {i}");
        }
    }
}

/// The tree of the subtree tests: `A` (`0…`) and `S` (`111…`, leaves `0x00` and `0x20`) at
/// depth 1. Read as an internal node, `S`'s node has left child `S ‖ 0x00` and right child
/// `root_S = hash(l1 ‖ ZERO)`, `l1 = hash(l2 ‖ ZERO)`: a walk going right at depth 1 meets
/// empty regions at `111` and `1101`.
fn subtree_tree() -> (Model, [u8; 31], [u8; 31]) {
    let (a, s) = (st("0", 0x11), st("111", 0x22));
    let m = Model::new(vec![
        (a, vec![(0, [0xaa; 32])]),
        (s, vec![(0x00, [0x50; 32]), (0x20, [0x52; 32])]),
    ]);
    (m, a, s)
}

/// EMPTY ends at two depths inside a stem subtree: `S`'s present key claimed absent by an
/// EMPTY end at depth 3 (its bit 2 is 1: the subtree's empty right half), whose sibling `l1`
/// is walked by a second key (stem `1101…`, set) going on to an EMPTY end at depth 4; that
/// end's sibling `l2` needs an anchor, and no stem node is below it. Both false: `S`'s key
/// holds a value, and the set would land inside `S`'s subtree.
#[test]
fn empty_ends_at_two_depths_inside_a_stem_subtree_are_refused() {
    let (mut m, a, s) = subtree_tree();
    let s2 = st("1101", 0x33);
    let (present, new) = (key(&s, 0), key(&s2, 7));
    assert!(m.tree.get(&present).is_some());
    let writes = [(new, Write::Set([0x5e; 32])), (present, Write::Unchanged)];
    let honest = m.proven(&writes);
    assert_eq!(honest.ends, vec![[1, DIVERGENT], [1, PRESENT]]);
    let l2 = m.view(&[1, 1, 0, 0]);
    assert_eq!(l2, sub_node(m.values(&s), 2, 0));
    let mut f = honest.clone();
    f.keys = vec![new, present];
    f.flags = vec![0x02, 0x00];
    f.values = vec![[0x5e; 32]];
    f.ends = vec![[4, EMPTY], [3, EMPTY]];
    f.others.clear();
    f.anchors.clear();
    let prefix = [m.stem_node(&a), head(&s)];
    set_siblings(&mut f, &prefix);
    assert_eq!(m.rejected(&f), "bw.count.anchors");
    set_siblings(&mut f, &[&prefix[..], &[l2]].concat());
    assert_eq!(m.rejected(&f), "bw.count.anchors");
    // Anchors at l2's place (`1100`) at every depth inside the subtree, opening S's leaves.
    for fill in [0x00u8, 0xff] {
        let x = st("1100", fill);
        for depth in 5..=12usize {
            for (i, v) in [(0u8, [0x50; 32]), (0x20, [0x52; 32]), (0, l2)] {
                let opening = vec![ZERO; i.count_zeros() as usize];
                let anchor = m.anchor_slots(&x, depth, 4, &opening);
                f.anchors = vec![anchor_record(depth as u8, &x, i, &v)];
                set_siblings(&mut f, &[&prefix[..], &anchor].concat());
                assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
            }
        }
    }
}

/// An EMPTY end's sibling walked by a DIVERGENT end at a stem subtree node read as a stem
/// node: `A` (`0…`) and `S` (`1101…`, leaves `0x00` searched and `0x20`) at depth 1. `S`'s
/// present key walks through `S`'s node read as an internal node into its subtree and ends
/// EMPTY at depth 4 (sub-indices `01…`, empty); its sibling `l2 = hash(l3 ‖ l3')` (position
/// `1100`) is walked by a key of stem `1100…` ending DIVERGENT at `l2`, read as the stem node
/// of `X = l3[0..31]`. The attacker searches `S`'s first value until `l3` ends in `0x00` with
/// prefix `1100`; the opening must then rebuild `l3'`, five levels above its leaf.
#[test]
fn divergent_end_at_a_subtree_node_read_as_a_stem_node_by_a_chosen_last_byte_is_refused() {
    let v20 = [0x52; 32];
    let l3_of = |v: &[u8; 32]| sub_node(&[(0, *v)], 3, 0);
    // One value in 4096 gives l3 = 1100… ‖ 0x00.
    let v0 = chosen_value(0x50, "1100", l3_of);
    let (a, s) = (st("0", 0x11), st("1101", 0x22));
    let mut m = Model::new(vec![
        (a, vec![(0, [0xaa; 32])]),
        (s, vec![(0x00, v0), (0x20, v20)]),
    ]);
    let l3 = sub_node(m.values(&s), 3, 0x00);
    let l3b = sub_node(m.values(&s), 3, 0x20);
    assert_eq!(m.view(&[1, 1, 0, 0]), pair(&l3, &l3b));
    assert_eq!(m.view(&[1, 1, 0, 1]), ZERO);
    assert_eq!(m.view(&[1, 1, 1]), ZERO);
    let x: [u8; 31] = l3[..31].try_into().unwrap();
    let other = st("1100", 0x33);
    let (present, absent) = (key(&s, 0), key(&other, 1));
    let writes = [
        (absent, Write::Set([0x01; 32])),
        (present, Write::Unchanged),
    ];
    let honest = m.proven(&writes);
    assert_eq!(honest.ends, vec![[1, DIVERGENT], [1, PRESENT]]);
    let (a_node, l4b) = (m.stem_node(&a), sub_node(m.values(&s), 4, 0x20));
    let openings: Vec<(u8, [u8; 32], Vec<[u8; 32]>)> = vec![
        (0x00, v20, vec![ZERO; 8]),
        (0x20, v20, vec![ZERO; 7]),
        (0x00, v20, [vec![ZERO; 7], vec![l4b]].concat()),
        (0x40, v20, vec![ZERO; 7]),
        (0xff, l3b, vec![]),
        (0x07, l4b, vec![ZERO; 5]),
    ];
    for (i, v, opening) in &openings {
        let mut f = honest.clone();
        f.flags = vec![0x02, 0x00];
        f.values = vec![[0x01; 32]];
        f.ends = vec![[4, DIVERGENT], [4, EMPTY]];
        f.others = vec![other_record(&x, *i, v)];
        set_siblings(
            &mut f,
            &[&[a_node, head(&s)][..], opening, &[ZERO]].concat(),
        );
        assert_eq!(m.rejected(&f), "bw.root", "opening {i}");
    }
}

/// A PRESENT stem claimed at every depth but its own, down through its stem node read as an
/// internal node into its subtree, and above it at the root; the siblings read from the tree.
#[test]
fn present_stem_claimed_away_from_its_stem_node_is_refused() {
    let (mut m, _, s) = subtree_tree();
    let target = key(&s, 0x20);
    let honest = m.proven(&[(target, Write::Set([0x01; 32]))]);
    assert_eq!(honest.ends, vec![[1, PRESENT]]);
    let inner = subtree_slots(m.values(&s), 0x20);
    assert_eq!(slots_of(&honest), m.lone_path(&s, 1, false, &inner));
    for depth in (0..=10usize).filter(|&d| d != 1) {
        let mut f = honest.clone();
        f.ends = vec![[depth as u8, PRESENT]];
        set_siblings(&mut f, &m.lone_path(&s, depth, false, &inner));
        assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
    }
}

/// The zero stem's node read as an internal node with both sides touched: a key going left
/// (stem `0^30 ‖ 0x01`) ends EMPTY at depth 2 on the zero stem's `0^31 ‖ 0x00 = ZERO`, its
/// sibling `root_Z` walked by a key going right (stem `011…`) into the zero stem's subtree to
/// an EMPTY end at depth 3 (the subtree's empty right half), whose sibling `l1` needs an
/// anchor. Both absences are true, but both sets would land beside or inside the zero
/// stem's subtree instead of splitting from the zero stem.
#[test]
fn keys_on_both_sides_of_the_zero_stem_node_read_as_internal_are_refused() {
    let zero = [0u8; 31];
    let b = st("1", 0x22);
    let mut m = Model::new(vec![
        (zero, vec![(0, [0x10; 32])]),
        (b, vec![(0, [0xbb; 32])]),
    ]);
    let mut low = [0u8; 31];
    low[30] = 1;
    let right = st("011", 0x33);
    let writes = [
        (key(&low, 0), Write::Set([0x01; 32])),
        (key(&right, 0), Write::Set([0x02; 32])),
    ];
    let honest = m.proven(&writes);
    assert_eq!(honest.ends, vec![[1, DIVERGENT], [1, DIVERGENT]]);
    let l1 = m.view(&[0, 1, 0]);
    assert_eq!(l1, sub_node(m.values(&zero), 1, 0));
    assert_eq!(m.view(&[0, 1, 1]), ZERO);
    let b_node = m.stem_node(&b);
    let mut f = honest.clone();
    f.ends = vec![[2, EMPTY], [3, EMPTY]];
    f.others.clear();
    f.anchors.clear();
    set_siblings(&mut f, &[b_node]);
    assert_eq!(m.rejected(&f), "bw.count.anchors");
    set_siblings(&mut f, &[l1, b_node]);
    assert_eq!(m.rejected(&f), "bw.count.anchors");
    for fill in [0x00u8, 0xff] {
        let x = st("010", fill);
        for depth in 4..=11usize {
            let opening = vec![ZERO; 8];
            let anchor = m.anchor_slots(&x, depth, 3, &opening);
            f.anchors = vec![anchor_record(depth as u8, &x, 0, &[0x10; 32])];
            set_siblings(&mut f, &[&anchor[..], &[b_node]].concat());
            assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
        }
    }
}

/// An EMPTY end beside a stem node one level too deep: `T` (`1…`) at depth 1, a key `K`
/// whose stem parts from `T` at bit 1 (it ends DIVERGENT at `T`), claimed EMPTY at depth 2
/// beside `T` claimed PRESENT at depth 2 (both sides touched, so no anchor), and `K` EMPTY
/// at depth 2 beside `T` PRESENT at depth 3 (its sibling at depth 3 a slot), with `K` set.
#[test]
fn empty_end_beside_a_stem_node_claimed_one_level_deeper_is_refused() {
    let t = st("1", 0x44);
    let a = st("0", 0x11);
    let mut m = Model::new(vec![(a, vec![(0, [0xaa; 32])]), (t, vec![(0, [0x7e; 32])])]);
    let k = near_with(&t, 1, [0x99; 31]);
    let (kk, tk) = (key(&k, 0), key(&t, 0));
    let writes = [(kk, Write::Set([0x01; 32])), (tk, Write::Unchanged)];
    let honest = m.proven(&writes);
    let mut group = vec![[1, DIVERGENT], [1, PRESENT]];
    if k > t {
        group.reverse();
    }
    assert_eq!(honest.ends, group);
    let inner = subtree_slots(m.values(&t), 0);
    let a_node = m.stem_node(&a);
    assert!(k < t && bit(&t, 1) == 1);
    for t_depth in [2usize, 3] {
        let mut f = honest.clone();
        f.ends = vec![[2, EMPTY], [t_depth as u8, PRESENT]];
        // T's path below depth 2 inside its misread node, its siblings from the tree.
        let t_side = m.segment(&t, 3, t_depth, &inner);
        set_siblings(&mut f, &[&[a_node][..], &t_side].concat());
        assert_eq!(m.rejected(&f), "bw.root", "T at depth {t_depth}");
    }
}

/// Zero-valued leaves: a leaf holding `0^32` is present (`hash(0^32)`, not `ZERO`). A present
/// zero value claimed absent, an absent key claimed to hold zero, and an anchor whose stem's
/// first leaf holds zero opened at its second leaf (the zero one read as absent).
#[test]
fn zero_valued_leaves_are_bound() {
    let (a, s) = (st("0", 0x11), st("1", 0x22));
    let mut m = Model::new(vec![
        (a, vec![(0, ZERO)]),
        (s, vec![(5, ZERO), (7, [0x77; 32])]),
    ]);
    let honest = m.proven(&[(key(&s, 5), Write::Unchanged)]);
    assert_eq!(honest.values, vec![ZERO]);
    let mut f = honest.clone();
    f.flags = vec![0];
    f.values.clear();
    assert_eq!(m.rejected(&f), "bw.root");
    let honest = m.proven(&[(key(&s, 6), Write::Unchanged)]);
    assert!(honest.values.is_empty());
    let mut f = honest.clone();
    f.flags = vec![1];
    f.values = vec![ZERO];
    assert_eq!(m.rejected(&f), "bw.root");
    // Setting zero: a new present leaf, in a present stem and in a new stem.
    m.proven(&[(key(&s, 6), Write::Set(ZERO))]);
    m.proven(&[(key(&st("10", 0x33), 1), Write::Set(ZERO))]);

    let (b, c) = (st("00", 0x33), st("01", 0x44));
    let mut m = Model::new(vec![
        (b, vec![(2, ZERO), (4, [0x44; 32])]),
        (c, vec![(0, [0xcc; 32])]),
    ]);
    let k = st("1", 0x55);
    let honest = m.proven(&[(key(&k, 0), Write::Set(ZERO))]);
    assert_eq!(honest.anchors, vec![anchor_record(2, &b, 2, &ZERO)]);
    let later = opening_slots(m.values(&b), 4);
    let mut f = honest.clone();
    f.anchors = vec![anchor_record(2, &b, 4, &[0x44; 32])];
    set_siblings(
        &mut f,
        &m.lone_path(&k, 1, true, &m.anchor_slots(&b, 2, 1, &later)),
    );
    assert_eq!(m.rejected(&f), "bw.root");
}

/// Inserts at an EMPTY end beside an anchored sibling: two new stems sharing 200 bits, set
/// at the root's empty right child, land below new internal nodes down to bit 200 (the
/// honest witness's post-state root is the tree's). Forged: the EMPTY end one level deeper
/// (its new sibling, really empty, must be anchored; the old sibling becomes a slot), at
/// the root, or the two keys' ends at different depths.
#[test]
fn inserts_beside_an_anchored_sibling_land_at_the_empty_end() {
    let (mut m, ..) = anchored_tree();
    let k1 = st("1", 0x44);
    let k2 = near_with(&k1, 200, [0x0f; 31]);
    let writes = [
        (key(&k1, 0), Write::Set([0x01; 32])),
        (key(&k2, 3), Write::Set([0x02; 32])),
    ];
    let honest = m.proven(&writes);
    assert_eq!(honest.ends, vec![[1, EMPTY], [1, EMPTY]]);
    let n0 = m.view(&[0]);
    let mut f = honest.clone();
    f.ends = vec![[2, EMPTY], [2, EMPTY]];
    f.anchors.clear();
    set_siblings(&mut f, &[n0]);
    assert_eq!(m.rejected(&f), "bw.count.anchors");
    // The position beside depth 2 (`11`, K's bit 1 being 1) is empty: anchors there.
    assert_eq!(bit(&k1, 1), 1);
    for fill in [0x00u8, 0xff] {
        let x = st("10", fill);
        for depth in 3..=10usize {
            let anchor = m.anchor_slots(&x, depth, 2, &[ZERO; 8]);
            f.anchors = vec![anchor_record(depth as u8, &x, 0, &[0xa3; 32])];
            set_siblings(&mut f, &[&[n0][..], &anchor].concat());
            assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
        }
    }
    let mut f = honest.clone();
    f.ends = vec![[0, EMPTY], [0, EMPTY]];
    assert_eq!(m.rejected(&f), "bw.count.siblings");
    f.anchors.clear();
    set_siblings(&mut f, &[]);
    assert_eq!(m.rejected(&f), "bw.root");
    let mut f = honest.clone();
    f.ends = vec![[1, EMPTY], [2, EMPTY]];
    assert_eq!(m.rejected(&f), "bw.end.depth");
}

/// A DIVERGENT end whose other stem `X` shares 200 bits with a new stem set there: the
/// honest post-state splits them at bit 200. Forged: the end above `X`'s node (the root),
/// below it (through `X`'s node read as an internal node), `X` replaced by a stem one bit
/// further along the new one, the new stem as its own other stem, or claimed PRESENT.
#[test]
fn divergent_end_beside_a_stem_sharing_a_long_prefix() {
    let (a, x) = (st("0", 0x11), st("1", 0x44));
    let mut m = Model::new(vec![(a, vec![(0, [0xaa; 32])]), (x, vec![(0, [0x4a; 32])])]);
    let k = near_with(&x, 200, [0x0f; 31]);
    let writes = [(key(&k, 9), Write::Set([0x01; 32]))];
    let honest = m.proven(&writes);
    assert_eq!(honest.ends, vec![[1, DIVERGENT]]);
    assert_eq!(honest.others, vec![other_record(&x, 0, &[0x4a; 32])]);
    let opening = opening_slots(m.values(&x), 0);
    for depth in [0usize, 2, 3, 9] {
        let mut f = honest.clone();
        f.ends = vec![[depth as u8, DIVERGENT]];
        set_siblings(&mut f, &m.lone_path(&k, depth, false, &opening));
        assert_eq!(m.rejected(&f), "bw.root", "depth {depth}");
    }
    let mut f = honest.clone();
    f.others = vec![other_record(&near_with(&k, 201, x), 0, &[0x4a; 32])];
    assert_eq!(m.rejected(&f), "bw.root");
    f.others = vec![other_record(&k, 0, &[0x4a; 32])];
    assert_eq!(m.rejected(&f), "bw.other.touched");
    let mut f = honest.clone();
    f.ends = vec![[1, PRESENT]];
    f.others.clear();
    set_siblings(&mut f, &m.lone_path(&k, 1, false, &[ZERO; 8]));
    assert_eq!(m.rejected(&f), "bw.other.empty");
    let inner = subtree_slots(m.values(&x), 9);
    set_siblings(&mut f, &m.lone_path(&k, 1, false, &inner));
    assert_eq!(m.rejected(&f), "bw.root");
}

/// Groups of keys ending at one node: three new stems parting from `X` at bits 1, 30 and 247
/// end DIVERGENT at `X`'s node. Forged: one EMPTY, one PRESENT, one at another depth, all
/// EMPTY with the root's left child anchored.
#[test]
fn groups_of_keys_at_one_end_node() {
    let (a, x) = (st("0", 0x11), st("1", 0x44));
    let mut m = Model::new(vec![(a, vec![(0, [0xaa; 32])]), (x, vec![(0, [0x4a; 32])])]);
    let mut stems = [
        near_with(&x, 1, [0x01; 31]),
        near_with(&x, 30, [0x02; 31]),
        near_with(&x, 247, [0x03; 31]),
    ];
    stems.sort();
    let writes: Vec<([u8; 32], Write)> = stems
        .iter()
        .enumerate()
        .map(|(i, s)| (key(s, i as u8), Write::Set([i as u8 + 1; 32])))
        .collect();
    let honest = m.proven(&writes);
    assert_eq!(honest.ends, vec![[1, DIVERGENT]; 3]);
    // The first stem EMPTY makes the walk ask for the sibling's anchor before the group is
    // read.
    for (i, end, rule) in [
        (0, [1, EMPTY], "bw.count.anchors"),
        (2, [1, EMPTY], "bw.end.group"),
        (1, [1, PRESENT], "bw.other.empty"),
        (1, [2, DIVERGENT], "bw.end.depth"),
        (2, [0, DIVERGENT], "bw.end.depth"),
    ] {
        let mut f = honest.clone();
        f.ends[i] = end;
        assert_eq!(m.rejected(&f), rule, "end {i} as {end:?}");
    }
    // The middle stem PRESENT with X's subtree around its leaf.
    let mut f = honest.clone();
    f.ends[1] = [1, PRESENT];
    f.others.clear();
    let inner = subtree_slots(m.values(&x), 1);
    set_siblings(&mut f, &m.lone_path(&stems[1], 1, false, &inner));
    assert_eq!(m.rejected(&f), "bw.root");
    let mut f = honest.clone();
    f.ends = vec![[1, EMPTY]; 3];
    f.others.clear();
    let opening = opening_slots(m.values(&a), 0);
    assert_eq!(opening, vec![ZERO; 8]);
    let a_node = m.stem_node(&a);
    for (depth, rule) in [(1usize, "bw.anchor.depth"), (2, "bw.root"), (9, "bw.root")] {
        f.anchors = vec![anchor_record(depth as u8, &a, 0, &[0xaa; 32])];
        set_siblings(&mut f, &m.anchor_slots(&a, depth, 1, &opening));
        assert_eq!(m.rejected(&f), rule, "anchor at {depth}");
    }
    // The root's left child sent as a slot: the EMPTY end's sibling must be anchored.
    f.anchors.clear();
    set_siblings(&mut f, &[a_node]);
    assert_eq!(m.rejected(&f), "bw.count.anchors");
}

/// Random trees holding the zero stem (at a random depth, beside stems that share long
/// prefixes with it and each other) and blocks of reads and sets of present keys, new stems
/// near present ones and keys beside the zero stem: every honest witness verifies with true
/// claims and post-state root, anchors among them; each end record moved one level up or
/// down, or its kind changed, is rejected or still true.
#[test]
fn random_trees_holding_the_zero_stem_and_their_moved_ends() {
    let mut rng = Rng::new(0x7864_0003);
    let mut anchors = 0;
    let mut zero_anchors = 0;
    for round in 0..400 {
        let mut stems: Vec<([u8; 31], Values)> = Vec::new();
        let zero = [0u8; 31];
        let n = 2 + rng.below(10);
        let mut pool = vec![zero];
        for _ in 0..n {
            let base = pool[rng.below(pool.len())];
            let s = match rng.below(3) {
                0 => rng.bytes(),
                1 => near_with(&base, rng.below(12), rng.bytes()),
                _ => near_with(&base, rng.below(248), rng.bytes()),
            };
            if pool.contains(&s) {
                continue;
            }
            pool.push(s);
        }
        if round % 4 == 3 {
            pool.remove(0);
        }
        for s in &pool {
            let mut values: Values = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let i = rng.next_u64() as u8;
                if values.iter().all(|v| v.0 != i) {
                    let v = if rng.below(5) == 0 { ZERO } else { rng.bytes() };
                    values.push((i, v));
                }
            }
            stems.push((*s, values));
        }
        let mut m = Model::new(stems);
        let mut writes: Vec<([u8; 32], Write)> = Vec::new();
        for _ in 0..1 + rng.below(5) {
            let base = pool[rng.below(pool.len())];
            let s = match rng.below(4) {
                0 => base,
                1 => near_with(&base, rng.below(248), rng.bytes()),
                2 => near_with(&zero, rng.below(248), rng.bytes()),
                _ => rng.bytes(),
            };
            let k = key(&s, rng.next_u64() as u8);
            if s == zero || writes.iter().any(|w| w.0 == k) {
                continue;
            }
            let w = if rng.below(2) == 0 {
                Write::Unchanged
            } else {
                Write::Set(rng.bytes())
            };
            writes.push((k, w));
        }
        if writes.is_empty() {
            continue;
        }
        let honest = m.proven(&writes);
        anchors += honest.anchors.len();
        zero_anchors += honest
            .anchors
            .iter()
            .filter(|a| a[1..32] == [0u8; 31])
            .count();
        for i in 0..honest.ends.len() {
            let [depth, kind] = honest.ends[i];
            let moved = [
                [depth.wrapping_sub(1), kind],
                [depth + 1, kind],
                [depth, (kind + 1) % 3],
                [depth, (kind + 2) % 3],
            ];
            for end in moved.into_iter().filter(|e| e[0] <= 248) {
                let mut f = honest.clone();
                f.ends[i] = end;
                // Accepted only with true claims and post-state root.
                let _ = m.outcome(&f);
            }
        }
    }
    assert!(anchors > 20, "{anchors} anchors");
    assert!(zero_anchors > 0, "no anchor of the zero stem");
}
