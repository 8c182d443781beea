//! Structured forgeries of binary witnesses: an attacker who holds the whole state starts
//! from an honest witness, rewrites its sections and recomputes everything it can; the
//! verifier must reject the result, or its claims and post-state root must still be true.
//!
//! EIP-7864's stem node of the all-zero stem, `hash(0^31 ‖ 0x00 ‖ root)`, is the same hash
//! input as an internal node whose left child is empty, `hash(ZERO ‖ root)`. The tests below
//! use that to pass one node off as the other.

use bintree::eip7864::{witness, Tree};
use bintree::fuzz::eip7864::{applied_root, key, Parts};
use bintree::witness::{Write, WriteRef};
use bintree::{Sha256, TreeHash};

const ZERO: [u8; 32] = [0; 32];

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

/// The root's right child `N1`: the one hash of the honest absence proof of a key whose
/// first bit is 0 (its path ends empty at depth 1).
fn root_right_child(tree: &mut Tree<Sha256>) -> [u8; 32] {
    let p = honest(tree, &[(key(&stem(0x00, 0x33), 0), Write::Unchanged)]);
    assert_eq!(p.ends, vec![[1, 0]]);
    assert_eq!(p.hashes.len(), 1);
    p.hashes[0]
}

/// The generic form: a real internal node `hash(L ‖ R)` whose left child's hash `L` ends in
/// a zero byte is the same hash input as the stem node of `X = L[0..31]` with subtree root
/// `R`. At the root (depth 0, no prefix for `X` to agree with) one state in 256 has such a
/// left child; the forged other stem `X` then proves every key of the tree absent. The
/// attacker searches states (here: the value of one key) until the root's left child ends
/// in `0x00`.
#[test]
#[ignore = "soundness bug: an other stem X = L[0..31] passes an internal node hash(L ‖ R) with L[31] = 0 off as a stem node"]
fn absence_of_present_keys_by_other_stem_made_of_internal_nodes_left_child() {
    let s = stem(0x00, 0x11);
    let b = stem(0x80, 0x22);
    let found = (0u32..20_000).find_map(|i| {
        let mut tree = Tree::<Sha256>::new();
        let mut v = [0x5au8; 32];
        v[..4].copy_from_slice(&i.to_le_bytes());
        tree.insert(&key(&s, 0), &v).unwrap();
        tree.insert(&key(&b, 0), &[0xbb; 32]).unwrap();
        // The honest proof of B's key: S's subtree siblings are empty, so its one hash is
        // the root's left child, S's stem node.
        let left = honest(&mut tree, &[(key(&b, 0), Write::Unchanged)]).hashes[0];
        (left[31] == 0).then_some((tree, left))
    });
    let (mut tree, left) = found.expect("one state in 256 has a root left child ending in 0x00");
    let root = tree.root();
    let right = honest(&mut tree, &[(key(&s, 0), Write::Unchanged)]).hashes[0];
    assert_eq!(Sha256::hash(&[&left, &right]), root);
    for target in [key(&s, 0), key(&b, 0)] {
        assert!(tree.get(&target).is_some());
        let mut forged = honest(&mut tree, &[(target, Write::Unchanged)]);
        forged.flags = vec![0];
        forged.ends = vec![[0, 2]];
        forged.values.clear();
        let mut other = [0u8; 63];
        other[..31].copy_from_slice(&left[..31]);
        other[31..].copy_from_slice(&right);
        forged.others = vec![other];
        forged.slots = 0;
        forged.bitmap.clear();
        forged.hashes.clear();
        if let Ok((w, _)) = witness::verify::<Sha256>(&forged.encode(), &root) {
            let claim = w.claims().next().unwrap();
            panic!(
                "forged witness verified: key {:02x?} claimed {:?}, holds {:?}; other stem {:02x?}",
                claim.key,
                claim.pre,
                tree.get(&target),
                &left[..31]
            );
        }
    }
}

/// A present key proven absent by an "other stem" `0^31` at the root, whose subtree root is
/// the real root's right child: `hash(0^31 ‖ 0x00 ‖ N1) = hash(ZERO ‖ N1)` is the real root.
/// No zero stem exists in the tree; any internal node on the all-zero path with an empty left
/// child serves.
#[test]
#[ignore = "soundness bug: an other stem 0^31 passes an internal node with an empty left child off as a stem node"]
fn absence_of_present_key_by_zero_other_stem_in_place_of_internal_node() {
    let (mut tree, a) = right_heavy_tree();
    let root = tree.root();
    let n1 = root_right_child(&mut tree);
    let target = key(&a, 0);
    assert_eq!(tree.get(&target), Some(&[0xaa; 32]));
    let mut forged = honest(&mut tree, &[(target, Write::Unchanged)]);
    forged.flags = vec![0];
    forged.ends = vec![[0, 2]];
    forged.values.clear();
    let mut other = [0u8; 63];
    other[31..].copy_from_slice(&n1);
    forged.others = vec![other];
    forged.slots = 0;
    forged.bitmap.clear();
    forged.hashes.clear();
    match witness::verify::<Sha256>(&forged.encode(), &root) {
        Ok((w, _)) => {
            let claim = w.claims().next().unwrap();
            panic!(
                "forged witness verified: key {:02x?} claimed {:?}, holds {:?}",
                claim.key,
                claim.pre,
                tree.get(&target)
            );
        }
        Err(e) => assert_eq!(e.name(), "bw.other.touched", "{e}"),
    }
}

/// The zero stem claimed PRESENT at the root, whose subtree is really the internal node `N1`:
/// every claim is true (the key is absent), but the set is applied inside `N1` instead of
/// creating the new stem, so the post-state root is not the tree's.
#[test]
#[ignore = "soundness bug: a touched stem 0^31 claimed present in place of an internal node with an empty left child gives a false post-state root"]
fn zero_stem_claimed_present_in_place_of_internal_node_gives_wrong_post_root() {
    let (mut tree, _) = right_heavy_tree();
    let root = tree.root();
    // N2, the left child of N1: the one hash of the honest absence proof of a key under
    // prefix `11` (it ends empty at depth 2).
    let p = honest(&mut tree, &[(key(&stem(0xc0, 0x44), 0), Write::Unchanged)]);
    assert_eq!((p.ends.clone(), p.hashes.len()), (vec![[2, 0]], 1));
    let n2 = p.hashes[0];
    let n1 = root_right_child(&mut tree);
    assert_eq!(Sha256::hash(&[&n2, &ZERO]), n1);
    // Key 0^31 ‖ 0x80: sub-index bit 0 is 1, so the subtree root is hash(N2 ‖ right), and the
    // right side, all empty, hashes to ZERO by the zero rule.
    let target = key(&[0; 31], 0x80);
    let new = [0x5a; 32];
    let writes = [(target, Write::Set(new))];
    let mut forged = honest(&mut tree, &writes);
    forged.ends = vec![[0, 1]];
    forged.others.clear();
    forged.slots = 8;
    forged.bitmap = vec![0x80];
    forged.hashes = vec![n2];
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
        Err(e) => assert_eq!(e.name(), "bw.root", "{e}"),
    }
}

/// A tree holding the zero stem: a key of it proven absent by an EMPTY end one level below
/// the zero stem's node, whose right sibling is the zero stem's subtree root, so the walk
/// rebuilds `hash(ZERO ‖ root) = hash(0^31 ‖ 0x00 ‖ root)`.
#[test]
#[ignore = "soundness bug: an empty end below the zero stem's node passes the stem node off as an internal node"]
fn absence_of_zero_stem_key_by_empty_end_below_its_stem_node() {
    let mut tree = Tree::<Sha256>::new();
    let zero = [0u8; 31];
    let b = stem(0x80, 0x22);
    tree.insert(&key(&zero, 0), &[0xaa; 32]).unwrap();
    tree.insert(&key(&b, 0), &[0xbb; 32]).unwrap();
    let root = tree.root();
    let target = key(&zero, 0);
    let mut honest_parts = honest(&mut tree, &[(target, Write::Unchanged)]);
    // Honest: the zero stem at depth 1, PRESENT; its subtree's 8 empty right siblings, then
    // the root's right child (B's stem node), the only hash.
    assert_eq!(honest_parts.ends, vec![[1, 1]]);
    assert_eq!(honest_parts.hashes.len(), 1);
    let b_node = honest_parts.hashes[0];
    // The zero stem's subtree root: its one leaf at sub-index 0, hashed up with empty right
    // siblings.
    let mut subtree_root = Sha256::hash(&[&[0xaa; 32]]);
    for _ in 0..8 {
        subtree_root = Sha256::hash(&[&subtree_root, &ZERO]);
    }
    honest_parts.flags = vec![0];
    honest_parts.values.clear();
    honest_parts.ends = vec![[2, 0]];
    honest_parts.slots = 2;
    honest_parts.bitmap = vec![0xc0];
    honest_parts.hashes = vec![subtree_root, b_node];
    match witness::verify::<Sha256>(&honest_parts.encode(), &root) {
        Ok((w, _)) => {
            let claim = w.claims().next().unwrap();
            panic!(
                "forged witness verified: key {:02x?} claimed {:?}, holds {:?}",
                claim.key,
                claim.pre,
                tree.get(&target)
            );
        }
        Err(e) => assert_eq!(e.name(), "bw.root", "{e}"),
    }
}
