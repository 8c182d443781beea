//! Structured forgeries of binary witnesses: an attacker who holds the whole state starts
//! from an honest witness, rewrites its sections and recomputes everything it can; the
//! verifier must reject the result, or its claims and post-state root must still be true.
//!
//! EIP-7864's stem node `hash(X ‖ 0x00 ‖ root)` is a 64-byte hash input, as an internal node
//! `hash(L ‖ R)` is: the stem node of `X = L[0..31]` (when `L[31] = 0`) with subtree root `R`
//! is the internal node, and the all-zero stem's node is an internal node whose left child is
//! empty; and a stem node is an internal node whose left child is `X ‖ 0x00` and right child
//! `X`'s subtree root. The tests below try to pass one node off as the other. An other-stem
//! record opens its stem's first present leaf (a 32-byte hash input at the bottom), so its
//! subtree root is a real stem's; the untouched sibling of an empty path end is anchored by
//! the first stem node below it, which no stem subtree holds; a witness key never has the
//! zero stem.

use bintree::eip7864::{witness, Tree};
use bintree::fuzz::eip7864::{applied_root, key, Parts};
use bintree::witness::{Rule, Write, WriteRef};
use bintree::{Sha256, TreeHash};

const ZERO: [u8; 32] = [0; 32];

/// An other-stem record: the stem, the sub-index and value of the leaf it opens.
pub(super) fn other_record(stem: &[u8], index: u8, value: &[u8; 32]) -> [u8; 64] {
    let mut record = [0u8; 64];
    record[..31].copy_from_slice(&stem[..31]);
    record[31] = index;
    record[32..].copy_from_slice(value);
    record
}

/// An anchor: the depth of its stem node, then that stem's other-stem record.
pub(super) fn anchor_record(depth: u8, stem: &[u8], index: u8, value: &[u8; 32]) -> [u8; 65] {
    let mut anchor = [0u8; 65];
    anchor[0] = depth;
    anchor[1..].copy_from_slice(&other_record(stem, index, value));
    anchor
}

/// Sets the sibling slots of `p` to `slots`, in order (a zero hash is a 0 bit).
pub(super) fn set_siblings(p: &mut Parts, slots: &[[u8; 32]]) {
    p.slots = slots.len();
    p.bitmap = vec![0; slots.len().div_ceil(8)];
    p.hashes.clear();
    for (i, h) in slots.iter().enumerate() {
        if *h != ZERO {
            p.bitmap[i / 8] |= 0x80 >> (i % 8);
            p.hashes.push(*h);
        }
    }
}

/// `hash(left ‖ right)` with the zero rule.
pub(super) fn pair(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    if *left == ZERO && *right == ZERO {
        return ZERO;
    }
    Sha256::hash(&[left, right])
}

/// The subtree root of a stem holding one value at sub-index 0.
fn one_leaf_subtree(value: &[u8; 32]) -> [u8; 32] {
    let mut root = Sha256::hash(&[value]);
    for _ in 0..8 {
        root = pair(&root, &ZERO);
    }
    root
}

/// Openings of `value` at sub-indices `0x7f`, `0x80` and `0x01` whose slots (one per zero bit
/// of the sub-index, an empty left side per one bit) are zero up to `top` as the highest.
pub(super) fn top_slot_openings(
    value: &[u8; 32],
    top: &[u8; 32],
) -> impl Iterator<Item = (u8, [u8; 32], Vec<[u8; 32]>)> {
    let (value, top) = (*value, *top);
    [0x7fu8, 0x80, 0x01].into_iter().map(move |i| {
        let zeros = i.count_zeros() as usize;
        let mut slots = vec![ZERO; zeros];
        slots[zeros - 1] = top;
        (i, value, slots)
    })
}

/// `hash(stem ‖ 0x00 ‖ root)`.
pub(super) fn stem_node(stem: &[u8; 31], root: &[u8; 32]) -> [u8; 32] {
    let mut head = [0u8; 32];
    head[..31].copy_from_slice(stem);
    pair(&head, root)
}

/// Verifies `p` against `root` and fails the test if it is accepted; the error's name.
fn rejected(p: &Parts, root: &[u8; 32], tree: &Tree<Sha256>) -> &'static str {
    match witness::verify::<Sha256>(&p.encode(), root) {
        Ok((w, _)) => {
            let claim = w.claims().next().unwrap();
            panic!(
                "forged witness verified: key {:02x?} claimed {:?}, holds {:?}",
                claim.key,
                claim.pre,
                tree.get(claim.key)
            );
        }
        Err(e) => e.name(),
    }
}

/// A stem whose first byte is `first` and whose other bytes are `fill`.
fn stem(first: u8, fill: u8) -> [u8; 31] {
    let mut s = [fill; 31];
    s[0] = first;
    s
}

/// The parsed honest witness for `writes` against `tree`'s state.
fn honest(tree: &mut Tree<Sha256>, writes: &[([u8; 32], Write)]) -> Parts {
    let bytes = tree.witness(writes).unwrap();
    Parts::parse(&bytes).unwrap()
}

/// Two stems whose first bit is 1 and that part at bit 7: the root is an internal node with
/// an empty left child, `hash(ZERO ‖ N1)`, with `N1 = hash(N2 ‖ ZERO)`.
fn right_heavy_tree() -> (Tree<Sha256>, [u8; 31]) {
    let mut tree = Tree::<Sha256>::new();
    let a = stem(0x80, 0x11);
    let b = stem(0x81, 0x22);
    tree.insert(&key(&a, 0), &[0xaa; 32]).unwrap();
    tree.insert(&key(&b, 0), &[0xbb; 32]).unwrap();
    (tree, a)
}

/// The node at depth `depth` (1 to 7) on the right-heavy tree's common path: `N7 = hash(A's
/// node ‖ B's node)`, and each node above it has an empty right child.
fn right_heavy_node(depth: usize) -> [u8; 32] {
    let a = stem_node(&stem(0x80, 0x11), &one_leaf_subtree(&[0xaa; 32]));
    let b = stem_node(&stem(0x81, 0x22), &one_leaf_subtree(&[0xbb; 32]));
    let mut n = pair(&a, &b);
    for _ in depth..7 {
        n = pair(&n, &ZERO);
    }
    n
}

/// The root's right child `N1`, checked against the tree's root.
fn root_right_child(tree: &mut Tree<Sha256>) -> [u8; 32] {
    let n1 = right_heavy_node(1);
    assert_eq!(pair(&ZERO, &n1), tree.root());
    n1
}

/// The generic form: a real internal node `hash(L ‖ R)` whose left child's hash `L` ends in
/// a zero byte is the same hash input as the stem node of `X = L[0..31]` with subtree root
/// `R`. At the root (depth 0, no prefix for `X` to agree with) one state in 256 has such a
/// left child; a forged other stem `X` whose subtree root were `R` would prove every key of
/// the tree absent. The attacker searches states (here: the value of one key) until the root's
/// left child ends in `0x00`, then opens a leaf for `X` with any sub-index, value and
/// siblings, aiming at `R` (here `B`'s stem node, `hash(B ‖ 0x00 ‖ root_B)`): the opening's
/// bottom is a 32-byte hash input, so its root is never `R`.
#[test]
fn absence_of_present_keys_by_other_stem_made_of_internal_nodes_left_child() {
    let s = stem(0x00, 0x11);
    let b = stem(0x80, 0x22);
    let found = (0u32..20_000).find_map(|i| {
        let mut tree = Tree::<Sha256>::new();
        let mut v = [0x5au8; 32];
        v[..4].copy_from_slice(&i.to_le_bytes());
        tree.insert(&key(&s, 0), &v).unwrap();
        tree.insert(&key(&b, 0), &[0xbb; 32]).unwrap();
        // The honest proof of B's key: S's stem node is its last sibling, the root's left
        // child (the 8 before it are B's empty subtree siblings).
        let left = *honest(&mut tree, &[(key(&b, 0), Write::Unchanged)])
            .hashes
            .last()
            .unwrap();
        (left[31] == 0).then_some((tree, left))
    });
    let (mut tree, left) = found.expect("one state in 256 has a root left child ending in 0x00");
    let root = tree.root();
    let right = *honest(&mut tree, &[(key(&s, 0), Write::Unchanged)])
        .hashes
        .last()
        .unwrap();
    assert_eq!(Sha256::hash(&[&left, &right]), root);
    let root_b = one_leaf_subtree(&[0xbb; 32]);
    assert_eq!(stem_node(&b, &root_b), right);
    let x: [u8; 31] = left[..31].try_into().unwrap();
    // (sub-index, value, the opening's sibling slots, deepest first).
    let mut openings: Vec<(u8, [u8; 32], Vec<[u8; 32]>)> = vec![
        // B's real leaf opened: B's subtree root, not B's stem node.
        (0, [0xbb; 32], vec![ZERO; 8]),
        // R's right half as the top sibling.
        (0, [0xbb; 32], [vec![ZERO; 7], vec![root_b]].concat()),
        // R's halves as the value and the top sibling.
        (0, root_b, [vec![ZERO; 7], vec![root_b]].concat()),
        // No sibling at all: the leaf at the last sub-index.
        (0xff, right, vec![]),
    ];
    openings.extend(top_slot_openings(&right, &root_b));
    for target in [key(&s, 0), key(&b, 0)] {
        assert!(tree.get(&target).is_some());
        for (i, v, slots) in &openings {
            let mut forged = honest(&mut tree, &[(target, Write::Unchanged)]);
            forged.flags = vec![0];
            forged.ends = vec![[0, 2]];
            forged.values.clear();
            forged.others = vec![other_record(&x, *i, v)];
            forged.anchors.clear();
            set_siblings(&mut forged, slots);
            assert_eq!(rejected(&forged, &root, &tree), "bw.root", "opening {i}");
        }
    }
}

/// A present key proven absent by an "other stem" `0^31` at the root, in place of the real
/// root `hash(ZERO ‖ N1)` (`hash(0^31 ‖ 0x00 ‖ N1)`): the opening follows the real nodes
/// below `N1` with their real right children as siblings, down to `A`'s stem node, which
/// would have to be the opening's level 7 node `hash(hash(v) ‖ root_A)`; no value `v` hashes
/// to `A ‖ 0x00`.
#[test]
fn absence_of_present_key_by_zero_other_stem_in_place_of_internal_node() {
    let (mut tree, a) = right_heavy_tree();
    let root = tree.root();
    let n1 = root_right_child(&mut tree);
    let root_a = one_leaf_subtree(&[0xaa; 32]);
    let b_node = stem_node(&stem(0x81, 0x22), &one_leaf_subtree(&[0xbb; 32]));
    // The real nodes below N1: N7 = hash(A's node ‖ B's node), N1 = N7 with six empty
    // right children above it; were the opening's level 7 node A's stem node, its root
    // would be N1.
    let mut n = pair(&stem_node(&a, &root_a), &b_node);
    for _ in 0..6 {
        n = pair(&n, &ZERO);
    }
    assert_eq!(n, n1);
    assert_eq!(pair(&ZERO, &n1), root);
    let target = key(&a, 0);
    assert_eq!(tree.get(&target), Some(&[0xaa; 32]));
    let slots = [vec![root_a, b_node], vec![ZERO; 6]].concat();
    for v in [[0xaa; 32], root_a, b_node] {
        let mut forged = honest(&mut tree, &[(target, Write::Unchanged)]);
        forged.flags = vec![0];
        forged.ends = vec![[0, 2]];
        forged.values.clear();
        forged.others = vec![other_record(&[0; 31], 0, &v)];
        forged.anchors.clear();
        set_siblings(&mut forged, &slots);
        assert_eq!(rejected(&forged, &root, &tree), "bw.root");
    }
}

/// The zero stem claimed PRESENT at the root, whose subtree is really the internal node `N1`:
/// every claim is true (the key is absent), but the set would be applied inside `N1` instead
/// of creating the new stem, so the post-state root would not be the tree's. No witness key
/// has the zero stem: the prover refuses it and the decoder rejects it.
#[test]
fn zero_stem_claimed_present_in_place_of_internal_node_gives_wrong_post_root() {
    let (mut tree, _) = right_heavy_tree();
    let root = tree.root();
    // N2, the left child of N1.
    let n2 = right_heavy_node(2);
    let n1 = root_right_child(&mut tree);
    assert_eq!(Sha256::hash(&[&n2, &ZERO]), n1);
    // Key 0^31 ‖ 0x80: sub-index bit 0 is 1, so the subtree root is hash(N2 ‖ right), and the
    // right side, all empty, hashes to ZERO by the zero rule.
    let target = key(&[0; 31], 0x80);
    let new = [0x5a; 32];
    let writes = [(target, Write::Set(new))];
    let refused = tree.witness(&writes).unwrap_err();
    assert_eq!(refused.rule(), Some(Rule::ZeroStem), "{refused}");
    // The forgery, from the honest witness of the same write to another absent key.
    let mut forged = honest(
        &mut tree,
        &[(key(&stem(0x00, 0x33), 0x80), Write::Set(new))],
    );
    forged.keys = vec![target];
    forged.ends = vec![[0, 1]];
    forged.others.clear();
    forged.anchors.clear();
    forged.slots = 8;
    forged.bitmap = vec![0x80];
    forged.hashes = vec![n2];
    let e = witness::Witness::decode::<Sha256>(&forged.encode()).unwrap_err();
    assert_eq!(e.rule(), Some(Rule::ZeroStem), "{e}");
    match witness::verify::<Sha256>(&forged.encode(), &root) {
        Ok((w, v)) => {
            let claim = w.claims().next().unwrap();
            assert_eq!(claim.pre, None);
            assert_eq!(claim.write, WriteRef::Set(&new));
            assert_eq!(
                v.post_root,
                applied_root(&tree, &writes),
                "forged witness verified with a false post-state root"
            );
        }
        Err(e) => assert_eq!(e.name(), "bw.keys.zero_stem", "{e}"),
    }
}

/// A tree holding the zero stem: a key of it proven absent by an EMPTY end one level below
/// the zero stem's node, whose right sibling is the zero stem's subtree root, so the walk
/// rebuilds `hash(ZERO ‖ root) = hash(0^31 ‖ 0x00 ‖ root)`. No witness key has the zero stem.
#[test]
fn absence_of_zero_stem_key_by_empty_end_below_its_stem_node() {
    let (mut tree, root, zero, b) = tree_with_the_zero_stem();
    let target = key(&zero, 0);
    let refused = tree.witness(&[(target, Write::Unchanged)]).unwrap_err();
    assert_eq!(refused.rule(), Some(Rule::ZeroStem), "{refused}");
    // The zero stem's node at depth 1, B's the root's right child.
    let subtree_root = one_leaf_subtree(&[0xaa; 32]);
    let b_node = stem_node(&b, &one_leaf_subtree(&[0xbb; 32]));
    assert_eq!(pair(&pair(&ZERO, &subtree_root), &b_node), root);
    // The forgery, from the honest witness of a key absent under B's prefix.
    let mut forged = honest(&mut tree, &[(key(&stem(0xc0, 0x44), 0), Write::Unchanged)]);
    forged.keys = vec![target];
    forged.flags = vec![0];
    forged.values.clear();
    forged.ends = vec![[2, 0]];
    forged.others.clear();
    forged.anchors.clear();
    set_siblings(&mut forged, &[subtree_root, b_node]);
    assert_eq!(rejected(&forged, &root, &tree), "bw.keys.zero_stem");
}

/// A tree holding the zero stem at depth 1: a key beside it (stem `0^30 ‖ 0x01`, whose path
/// goes through the zero stem's node) proven absent by an EMPTY end at depth 2, whose right
/// sibling is the zero stem's subtree root, so the walk rebuilds the zero stem's node as
/// `hash(ZERO ‖ root)`. The absence is true, but a set of the key lands beside the subtree
/// root instead of splitting from the zero stem: the post-state root must not verify. The
/// EMPTY end's sibling, the subtree root, holds no stem node to anchor it.
#[test]
fn set_beside_the_zero_stem_by_empty_end_below_its_stem_node() {
    let (mut tree, root, _, b) = tree_with_the_zero_stem();
    let mut beside = [0u8; 31];
    beside[30] = 1;
    let target = key(&beside, 0);
    let new = [0x5a; 32];
    let writes = [(target, Write::Set(new))];
    let mut forged = honest(&mut tree, &writes);
    assert_eq!(forged.ends, vec![[1, 2]]);
    let subtree_root = one_leaf_subtree(&[0xaa; 32]);
    let b_node = stem_node(&b, &one_leaf_subtree(&[0xbb; 32]));
    forged.ends = vec![[2, 0]];
    forged.others.clear();
    forged.anchors.clear();
    set_siblings(&mut forged, &[subtree_root, b_node]);
    assert_eq!(rejected(&forged, &root, &tree), "bw.count.anchors");
    // Anchors in the subtree root's place (position `01`): a stem of that prefix at each
    // depth below it, opening the zero stem's own leaf or the subtree root as a value.
    let below = stem(0x40, 0x00);
    for depth in 3..=10u8 {
        for value in [[0xaa; 32], subtree_root] {
            forged.anchors = vec![anchor_record(depth, &below, 0, &value)];
            // The opening's 8 slots and one right side per level of the descent.
            let slots = 8 + usize::from(depth) - 2;
            set_siblings(&mut forged, &[vec![ZERO; slots], vec![b_node]].concat());
            assert_eq!(rejected(&forged, &root, &tree), "bw.root", "depth {depth}");
        }
    }
    // The honest witness splits the zero stem's node and verifies with the tree's root.
    let bytes = tree.witness(&writes).unwrap();
    let (_, v) = witness::verify::<Sha256>(&bytes, &root).unwrap();
    assert_eq!(v.post_root, applied_root(&tree, &writes));
}

/// A tree of two stems: the zero stem (sub-index 0: `aa…`) and `80 ‖ 22…` (sub-index 0:
/// `bb…`), each at depth 1; with its root, the zero stem and the other stem.
fn tree_with_the_zero_stem() -> (Tree<Sha256>, [u8; 32], [u8; 31], [u8; 31]) {
    let mut tree = Tree::<Sha256>::new();
    let zero = [0u8; 31];
    let b = stem(0x80, 0x22);
    tree.insert(&key(&zero, 0), &[0xaa; 32]).unwrap();
    tree.insert(&key(&b, 0), &[0xbb; 32]).unwrap();
    let root = tree.root();
    (tree, root, zero, b)
}

/// The converse of the forgeries above: a real stem node read as an internal node whose left
/// child is `S ‖ 0x00` (an opaque sibling) and right child `S`'s subtree root. A present key
/// of `S` whose stem goes right at `S`'s depth then walks into `S`'s subtree as if its nodes
/// were internal nodes, and ends EMPTY where the subtree is empty; every hash is real. The
/// sibling of an EMPTY end must be anchored by a stem node rebuilt below it: none is there.
#[test]
fn absence_of_present_key_by_its_stem_node_read_as_internal_node() {
    let mut tree = Tree::<Sha256>::new();
    let a = stem(0x00, 0x11);
    // Bits 1 1 1: S's node sits at depth 1 and the key goes right there and at depth 2.
    let s = stem(0xe0, 0x11);
    tree.insert(&key(&a, 0), &[0xaa; 32]).unwrap();
    tree.insert(&key(&s, 0), &[0xbb; 32]).unwrap();
    let root = tree.root();
    let a_node = stem_node(&a, &one_leaf_subtree(&[0xaa; 32]));
    // S's subtree holds leaf 0 only: its root is hash(N2 ‖ ZERO), N2 the left half.
    let mut n2 = Sha256::hash(&[&[0xbb; 32]]);
    for _ in 0..7 {
        n2 = pair(&n2, &ZERO);
    }
    let subtree_root = pair(&n2, &ZERO);
    assert_eq!(pair(&a_node, &stem_node(&s, &subtree_root)), root);
    let mut head = [0u8; 32];
    head[..31].copy_from_slice(&s);
    let target = key(&s, 0);
    assert!(tree.get(&target).is_some());
    // The walk: A's node left of the root, `S ‖ 0x00` left at depth 1, N2 left at depth 2,
    // the end EMPTY at depth 3.
    let mut forged = honest(&mut tree, &[(target, Write::Unchanged)]);
    forged.flags = vec![0];
    forged.values.clear();
    forged.ends = vec![[3, 0]];
    forged.others.clear();
    forged.anchors.clear();
    set_siblings(&mut forged, &[a_node, head, n2]);
    assert_eq!(rejected(&forged, &root, &tree), "bw.count.anchors");
    // Anchors an attacker can write for the untouched side at depth 3 (position `110`): a
    // stem of that prefix at each depth below it, opening the leaf S really holds, or N2
    // itself as the value; the stems beside it fail their prefix.
    let beside = stem(0xc0, 0x11);
    for depth in 4..=10u8 {
        for value in [[0xbb; 32], n2] {
            forged.anchors = vec![anchor_record(depth, &beside, 0, &value)];
            // In N2's place: the opening's 8 slots and the descent's right sides, all empty.
            let slots = 8
                + (3..usize::from(depth))
                    .filter(|&l| (beside[l / 8] >> (7 - l % 8)) & 1 == 0)
                    .count();
            set_siblings(
                &mut forged,
                &[vec![a_node, head], vec![ZERO; slots]].concat(),
            );
            assert_eq!(rejected(&forged, &root, &tree), "bw.root", "depth {depth}");
        }
    }
    for (other, rule) in [(a, "bw.anchor.prefix"), (s, "bw.anchor.prefix")] {
        forged.anchors = vec![anchor_record(4, &other, 0, &[0xbb; 32])];
        assert_eq!(rejected(&forged, &root, &tree), rule);
    }
    forged.anchors = vec![anchor_record(3, &beside, 0, &[0xbb; 32])];
    assert_eq!(rejected(&forged, &root, &tree), "bw.anchor.depth");
}
