//! The EIP-8297 binary witness: honest witnesses (inserts that split compressed prefixes,
//! deletes that collapse branches) verify and give the tree's own post-state root; forged
//! collapse records and claims are rejected with the rule they break.

use bintree::eip8297::{witness, Tree};
use bintree::fuzz::edits::check_eip8297;
use bintree::fuzz::eip8297::{scenario, Parts, Scenario};
use bintree::fuzz::rng::Rng;
use bintree::witness::{Rule, WitnessError, Write, WriteRef};
use bintree::{Blake3, TreeHash};

/// The tree's own root after the writes.
fn applied_root<H: TreeHash + Clone>(tree: &Tree<H>, writes: &[(Vec<u8>, Write)]) -> [u8; 32] {
    bintree::fuzz::eip8297::applied_root(tree, writes).unwrap()
}

fn check_honest<H: TreeHash + Clone>(rng: &mut Rng) {
    let Scenario {
        mut tree, writes, ..
    } = scenario::<H>(rng);
    let bytes = tree.witness(&writes).unwrap();
    let pre = tree.root();
    let (w, verified) = match witness::verify::<H>(&bytes, &pre) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(verified.post_root, applied_root(&tree, &writes));
    let mut sorted = writes.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (claim, (k, write)) in w.claims().zip(&sorted) {
        assert_eq!(claim.key, &k[..]);
        assert_eq!(claim.pre, tree.get(k));
        match (claim.write, write) {
            (WriteRef::Set(v), Write::Set(x)) => assert_eq!(v, x),
            (WriteRef::Delete, Write::Delete) => assert!(tree.get(k).is_some()),
            (WriteRef::Unchanged, Write::Unchanged) => {}
            (WriteRef::Unchanged, Write::Set(x)) => assert_eq!(tree.get(k), Some(x)),
            (WriteRef::Unchanged, Write::Delete) => assert!(tree.get(k).is_none()),
            other => panic!("write {other:?}"),
        }
    }
    assert_eq!(w.len(), sorted.len());
}

#[test]
fn honest_witnesses_verify_and_give_the_trees_post_root() {
    let mut rng = Rng::new(8297);
    for _ in 0..600 {
        check_honest::<Blake3>(&mut rng);
    }
    for _ in 0..100 {
        check_honest::<bintree::Sha256>(&mut rng);
    }
}

fn rejects(bytes: &[u8], root: &[u8; 32]) -> WitnessError {
    match witness::verify::<Blake3>(bytes, root) {
        Ok(_) => panic!("forged witness verified"),
        Err(e) => e,
    }
}

/// Keys `a` (left) and a branch of `b`, `c` (right) below one root branch: deleting `a` makes
/// the right branch rise, its prefix joined with the root's.
fn collapse_tree() -> (Tree<Blake3>, Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut a = vec![0u8; 34];
    a[1] = 0x10;
    let mut b = vec![0u8; 34];
    b[1] = 0x90;
    let mut c = b.clone();
    c[33] = 0x01;
    let mut tree = Tree::<Blake3>::new();
    for k in [&a, &b, &c] {
        tree.insert(k, &[k[1] ^ k[33]; 32]).unwrap();
    }
    (tree, a, b, c)
}

#[test]
fn a_delete_collapses_with_the_survivors_record_and_forgeries_fail() {
    let (mut tree, a, b, c) = collapse_tree();
    let root = tree.root();
    let writes = [(a.clone(), Write::Delete)];
    let bytes = tree.witness(&writes).unwrap();
    let (_, v) = witness::verify::<Blake3>(&bytes, &root).unwrap();
    assert_eq!(
        v.post_root,
        applied_root(&tree, &[(a.clone(), Write::Delete)])
    );
    let p = Parts::parse(&bytes).unwrap();
    assert_eq!(p.others.len(), 1, "the surviving branch's record");
    assert_eq!(p.others[0][0], witness::OTHER_BRANCH);
    assert!(p.hashes.is_empty());
    // Omitted: the survivor sent as a bare hash.
    let mut q = p.clone();
    let record = q.others.pop().unwrap();
    q.hashes.push(bintree::Blake3::hash(&[&record]));
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::Collapse));
    // Omitted entirely.
    let mut q = p.clone();
    q.others.clear();
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::Collapse));
    // Lies about the prefix, a child hash, or the kind.
    for at in [3, 5, 20, record.len() - 1] {
        let mut q = p.clone();
        q.others[0][at] ^= 0x01;
        let e = rejects(&q.encode(), &root);
        assert!(
            matches!(
                e,
                WitnessError::RootMismatch { .. } | WitnessError::Rule { .. }
            ),
            "{e}"
        );
    }
    let mut q = p.clone();
    let mut leaf = vec![witness::OTHER_LEAF, 34];
    leaf.extend_from_slice(&b);
    leaf.extend_from_slice(&[1; 32]);
    q.others[0] = leaf;
    assert!(matches!(
        rejects(&q.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
    // A leaf survivor needs its record too: delete b, leaving c under the right branch.
    let bytes = tree.witness(&[(b.clone(), Write::Delete)]).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    assert_eq!(p.others.len(), 1);
    assert_eq!(p.others[0][0], witness::OTHER_LEAF);
    assert_eq!(&p.others[0][2..36], &c[..]);
    witness::verify::<Blake3>(&bytes, &root).unwrap();
    let mut q = p.clone();
    q.others[0][2 + 33] ^= 0x01;
    let e = rejects(&q.encode(), &root);
    assert_eq!(e.rule(), Some(Rule::Collapse), "{e}");
    let mut q = p.clone();
    q.others[0][40] ^= 0x01;
    assert!(matches!(
        rejects(&q.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
}

#[test]
fn an_insert_splits_a_compressed_prefix() {
    let (mut tree, _, b, _) = collapse_tree();
    let root = tree.root();
    // Leaves the right branch's prefix in its middle (bit 200 of 272).
    let mut d = b.clone();
    d[25] ^= 0x80;
    let writes = [(d.clone(), Write::Set([7; 32]))];
    let bytes = tree.witness(&writes).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    assert_eq!(p.ends[0][2], witness::END_AT_BRANCH);
    let (_, v) = witness::verify::<Blake3>(&bytes, &root).unwrap();
    assert_eq!(v.post_root, applied_root(&tree, &writes));
    // The other branch's prefix forged so that the key follows it.
    let mut q = p.clone();
    let rec = &mut q.others[0];
    let len = u16::from_be_bytes([rec[1], rec[2]]) as usize;
    for i in 0..len {
        let bit = (d[(i + 9) / 8] >> (7 - (i + 9) % 8)) & 1;
        let byte = &mut rec[3 + i / 8];
        *byte = (*byte & !(0x80 >> (i % 8))) | (bit << (7 - i % 8));
    }
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::EndGroup));
    // Claiming a value for it.
    let mut q = p.clone();
    q.flags[0] |= 0x01;
    q.values.insert(0, [1; 32]);
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::AbsentValue));
}

#[test]
fn absence_and_presence_forgeries_fail() {
    let (mut tree, a, b, c) = collapse_tree();
    let root = tree.root();
    // Absence claimed for a present key.
    let bytes = tree.witness(&[(b.clone(), Write::Unchanged)]).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    assert_eq!(p.ends[0][2], witness::END_PRESENT);
    let mut q = p.clone();
    q.flags[0] = 0;
    q.values.clear();
    assert_eq!(
        rejects(&q.encode(), &root).rule(),
        Some(Rule::PresentAbsent)
    );
    // ... as ending at another leaf (its own, relabelled).
    let mut q = p.clone();
    q.flags[0] = 0;
    let mut leaf = vec![witness::OTHER_LEAF, 34];
    leaf.extend_from_slice(&b);
    leaf.extend_from_slice(&q.values[0]);
    q.values.clear();
    q.ends[0][2] = witness::END_AT_LEAF;
    q.others.push(leaf.clone());
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::OtherTouched));
    // Another key's leaf (c differs from b in the last bit) does not lie on b's path.
    let mut forged = leaf.clone();
    forged[35] ^= 1;
    q.others[0] = forged;
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::OtherPrefix));
    // A leaf on b's path under another key (b extended by a byte): only the hash can fail.
    let mut forged = vec![witness::OTHER_LEAF, 35];
    forged.extend_from_slice(&b);
    forged.push(0);
    forged.extend_from_slice(&leaf[36..]);
    q.others[0] = forged;
    let e = rejects(&q.encode(), &root);
    assert!(matches!(e, WitnessError::RootMismatch { .. }), "{e}");
    // A proof of one key relabelled to another.
    let mut q = p.clone();
    q.keys[0] = c.clone();
    assert!(matches!(
        rejects(&q.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
    // Presence claimed for an absent key ending at another leaf.
    let mut e_key = a.clone();
    e_key[33] = 9;
    let bytes = tree.witness(&[(e_key.clone(), Write::Unchanged)]).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    assert_eq!(p.ends[0][2], witness::END_AT_LEAF);
    let mut q = p.clone();
    q.flags[0] = 1;
    q.values.push([5; 32]);
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::AbsentValue));
    let mut q = p.clone();
    q.ends[0][2] = witness::END_PRESENT;
    q.flags[0] = 1;
    let other = q.others.pop().unwrap();
    q.values.push(other[36..].try_into().unwrap());
    assert!(matches!(
        rejects(&q.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
}

#[test]
fn malformed_bytes_are_rejected() {
    let (mut tree, a, b, _) = collapse_tree();
    let root = tree.root();
    let mut n = b.clone();
    n[20] ^= 4;
    let writes = [
        (a.clone(), Write::Delete),
        (b.clone(), Write::Set([3; 32])),
        (n, Write::Set([4; 32])),
    ];
    let bytes = tree.witness(&writes).unwrap();
    witness::verify::<Blake3>(&bytes, &root).unwrap();
    for len in 0..bytes.len() {
        assert!(witness::verify::<Blake3>(&bytes[..len], &root).is_err());
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        rejects(&longer, &root),
        WitnessError::Trailing { .. }
    ));
    let p = Parts::parse(&bytes).unwrap();
    let mut q = p.clone();
    q.keys.swap(0, 1);
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::KeyOrder));
    let mut q = p.clone();
    q.keys[1] = q.keys[0].clone();
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::KeyOrder));
    let mut q = p.clone();
    q.keys[1] = q.keys[1][..10].to_vec();
    q.keys[0] = q.keys[1][..5].to_vec();
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::KeyPrefix));
    let mut q = p.clone();
    q.flags[0] = 0x04;
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::KeyFlags));
    for e in 0..p.ends.len() {
        let mut q = p.clone();
        q.ends[e][1] ^= 1;
        assert!(witness::verify::<Blake3>(&q.encode(), &root).is_err());
    }
    for i in 0..p.branches.len() {
        let mut q = p.clone();
        q.branches[i][1] ^= 1;
        assert!(witness::verify::<Blake3>(&q.encode(), &root).is_err());
    }
    let mut q = p.clone();
    q.branches.push([0, 0]);
    assert!(witness::verify::<Blake3>(&q.encode(), &root).is_err());
}

#[test]
fn single_byte_mutants_are_rejected_or_claim_only_truths() {
    let mut rng = Rng::new(82970);
    let (mut tree, writes) = loop {
        let Scenario { tree, writes, .. } = scenario::<Blake3>(&mut rng);
        if tree.len() > 15 && writes.len() > 6 {
            break (tree, writes);
        }
    };
    let root = tree.root();
    let bytes = tree.witness(&writes).unwrap();
    let (honest, _) = witness::verify::<Blake3>(&bytes, &root).unwrap();
    let honest: Vec<_> = honest
        .claims()
        .map(|c| (c.key.to_vec(), c.pre.copied()))
        .collect();
    for trial in 0..5000 {
        let mut b = bytes.clone();
        let at = rng.below(b.len());
        if trial % 2 == 0 {
            b[at] ^= 1 << rng.below(8);
        } else {
            b[at] = rng.next_u64() as u8;
        }
        if let Ok((w, v)) = witness::verify::<Blake3>(&b, &root) {
            let claims: Vec<_> = w
                .claims()
                .map(|c| (c.key.to_vec(), c.pre.copied()))
                .collect();
            for (k, pre) in &claims {
                assert_eq!(
                    pre.as_ref(),
                    tree.get(k),
                    "mutant at byte {at} made a false claim"
                );
            }
            if claims.iter().map(|c| &c.0).eq(honest.iter().map(|c| &c.0)) {
                assert_eq!(claims, honest);
            }
            let writes: Vec<(Vec<u8>, Write)> = w
                .claims()
                .map(|c| {
                    let w = match c.write {
                        WriteRef::Set(v) => Write::Set(*v),
                        WriteRef::Delete => Write::Delete,
                        WriteRef::Unchanged => Write::Unchanged,
                    };
                    (c.key.to_vec(), w)
                })
                .collect();
            assert_eq!(v.post_root, applied_root(&tree, &writes));
        }
    }
}

#[test]
fn the_deepest_path_verifies() {
    // Keys that leave one base key at every bit after the zone byte: a path of 520 branches.
    let base = vec![0xffu8; 66];
    let mut tree = Tree::<Blake3>::new();
    tree.insert(&base, &[1; 32]).unwrap();
    for i in 8..8 * base.len() {
        let mut k = base.clone();
        k[i / 8] ^= 0x80 >> (i % 8);
        tree.insert(&k, &[2; 32]).unwrap();
    }
    let root = tree.root();
    let writes = [(base.clone(), Write::Delete)];
    // Both walks recurse once per branch; each fits a 1 MiB stack (WebAssembly's default).
    let small = |f: Box<dyn FnOnce() -> Vec<u8> + Send>| {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    };
    let expected = applied_root(&tree, &writes);
    let bytes = small(Box::new(move || tree.witness(&writes).unwrap()));
    let post = small(Box::new(move || {
        let (_, v) = witness::verify::<Blake3>(&bytes, &root).unwrap();
        v.post_root.to_vec()
    }));
    let got: [u8; 32] = post.try_into().unwrap();
    assert_eq!(got, expected);
}

#[test]
fn hashes_counts_limits_and_the_empty_witness() {
    let mut rng = Rng::new(3);
    let (mut tree, bytes) = loop {
        let Scenario {
            mut tree, writes, ..
        } = scenario::<Blake3>(&mut rng);
        let bytes = tree.witness(&writes).unwrap();
        if Parts::parse(&bytes).unwrap().hashes.len() > 2 {
            break (tree, bytes);
        }
    };
    let root = tree.root();
    witness::verify::<Blake3>(&bytes, &root).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    for h in 0..p.hashes.len() {
        let mut q = p.clone();
        q.hashes[h][31 - h % 32] ^= 0x10;
        assert!(matches!(
            rejects(&q.encode(), &root),
            WitnessError::RootMismatch { .. }
        ));
    }
    let mut q = p.clone();
    q.hashes[0] = [0; 32];
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::ZeroHash));
    let mut q = p.clone();
    q.hashes.push([1; 32]);
    assert_eq!(rejects(&q.encode(), &root).rule(), Some(Rule::SiblingCount));
    // Counts: sibling and hash counts must agree; each count past its limit.
    let mut b = bytes.clone();
    b[11] ^= 1;
    assert_eq!(rejects(&b, &root).rule(), Some(Rule::HashCount));
    for (i, field) in [
        "key_count",
        "other_count",
        "sibling_count",
        "hash_count",
        "branch_count",
    ]
    .iter()
    .enumerate()
    {
        let mut b = vec![bintree::witness::VERSION, 2, 2];
        b.extend_from_slice(&[0; 20]);
        b[3 + 4 * i..7 + 4 * i].copy_from_slice(&u32::MAX.to_le_bytes());
        match witness::Witness::decode::<Blake3>(&b) {
            Err(WitnessError::Limit { field: f, .. }) => assert_eq!(f, *field),
            other => panic!("{other:?}"),
        }
    }
    // No keys: the witness is the root (one hash), or nothing for the empty tree.
    let none: [(Vec<u8>, Write); 0] = [];
    let bytes = tree.witness(&none).unwrap();
    assert_eq!(
        witness::verify::<Blake3>(&bytes, &root)
            .unwrap()
            .1
            .post_root,
        root
    );
    assert!(witness::verify::<Blake3>(&bytes, &[0; 32]).is_err());
    let bytes = Tree::<Blake3>::new().witness(&none).unwrap();
    assert_eq!(
        witness::verify::<Blake3>(&bytes, &[0; 32])
            .unwrap()
            .1
            .post_root,
        [0; 32]
    );
}

#[test]
fn mutants_of_many_witnesses_never_panic_nor_lie() {
    let mut rng = Rng::new(97);
    let mut accepted = 0;
    for _ in 0..60 {
        let Scenario {
            mut tree, writes, ..
        } = scenario::<Blake3>(&mut rng);
        let root = tree.root();
        let bytes = tree.witness(&writes).unwrap();
        for _ in 0..300 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len());
                b[at] ^= 1 << rng.below(8);
            }
            // Claims and post-state root held to the tree when accepted.
            accepted += usize::from(check_eip8297(&tree, &root, &b).is_ok());
        }
    }
    assert!(accepted > 0);
}
