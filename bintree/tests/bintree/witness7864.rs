//! The EIP-7864 binary witness: honest witnesses verify and give the tree's own post-state
//! root; every forgery is rejected with the rule it breaks.

use bintree::eip7864::{witness, Tree};
use bintree::fuzz::edits::check_eip7864;
use bintree::fuzz::eip7864::{applied_root, key, near, scenario, Parts, Scenario};
use bintree::fuzz::rng::Rng;
use bintree::witness::{Rule, WitnessError, Write, WriteRef, MAX_KEYS};
use bintree::{Blake3, Sha256, TreeHash};

fn check_honest<H: TreeHash + Clone>(rng: &mut Rng) {
    let Scenario {
        mut tree, writes, ..
    } = scenario::<H>(rng);
    let bytes = tree.witness(&writes).unwrap();
    let pre = tree.root();
    let (w, verified) = witness::verify::<H>(&bytes, &pre).unwrap();
    assert_eq!(verified.post_root, applied_root(&tree, &writes));
    let mut sorted = writes.clone();
    sorted.sort_by_key(|w| w.0);
    let claims: Vec<_> = w.claims().collect();
    assert_eq!(claims.len(), sorted.len());
    for (claim, (k, write)) in claims.iter().zip(&sorted) {
        assert_eq!(claim.key, k);
        assert_eq!(claim.pre, tree.get(k));
        match (claim.write, write) {
            (WriteRef::Set(v), Write::Set(x)) => assert_eq!(v, x),
            (WriteRef::Unchanged, Write::Unchanged) => {}
            (WriteRef::Unchanged, Write::Set(x)) => assert_eq!(tree.get(k), Some(x)),
            other => panic!("write {other:?}"),
        }
    }
}

#[test]
fn honest_witnesses_verify_and_give_the_trees_post_root() {
    let mut rng = Rng::new(7864);
    for _ in 0..400 {
        check_honest::<Sha256>(&mut rng);
    }
    for _ in 0..100 {
        check_honest::<Blake3>(&mut rng);
    }
}

/// A tree of a few random stems, each with values at 0, 1, 64, 65.
fn small_tree(rng: &mut Rng, n: usize) -> (Tree<Sha256>, Vec<[u8; 31]>) {
    let mut tree = Tree::<Sha256>::new();
    let stems: Vec<[u8; 31]> = (0..n).map(|_| rng.bytes()).collect();
    for s in &stems {
        for sub in [0u8, 1, 64, 65] {
            tree.insert(&key(s, sub), &rng.bytes()).unwrap();
        }
    }
    (tree, stems)
}

fn rejects(bytes: &[u8], root: &[u8; 32]) -> WitnessError {
    match witness::verify::<Sha256>(bytes, root) {
        Ok(_) => panic!("forged witness verified"),
        Err(e) => e,
    }
}

fn rule(e: &WitnessError) -> Option<Rule> {
    e.rule()
}

#[test]
fn new_stems_split_below_an_existing_stem() {
    let mut rng = Rng::new(1);
    let (mut tree, stems) = small_tree(&mut rng, 8);
    let mut writes = Vec::new();
    for (i, depth) in [200usize, 247, 30].iter().enumerate() {
        writes.push((
            key(&near(&stems[i], *depth, &mut rng), 3),
            Write::Set(rng.bytes()),
        ));
    }
    // Two new stems below one existing stem, splitting from it and from each other.
    let a = near(&stems[5], 100, &mut rng);
    writes.push((key(&a, 0), Write::Set(rng.bytes())));
    writes.push((key(&near(&a, 150, &mut rng), 9), Write::Set(rng.bytes())));
    let pre = tree.root();
    let bytes = tree.witness(&writes).unwrap();
    let (_, v) = witness::verify::<Sha256>(&bytes, &pre).unwrap();
    assert_eq!(v.post_root, applied_root(&tree, &writes));
    assert_ne!(v.post_root, pre);
}

#[test]
fn empty_tree_and_empty_witness() {
    let mut tree = Tree::<Sha256>::new();
    let writes = [
        ([5u8; 32], Write::Set([1; 32])),
        ([6u8; 32], Write::Unchanged),
    ];
    let bytes = tree.witness(&writes).unwrap();
    let (_, v) = witness::verify::<Sha256>(&bytes, &[0; 32]).unwrap();
    assert_eq!(v.post_root, applied_root(&tree, &writes));
    let none: [([u8; 32], Write); 0] = [];
    let mut rng = Rng::new(2);
    let (mut tree, _) = small_tree(&mut rng, 3);
    let bytes = tree.witness(&none).unwrap();
    let root = tree.root();
    let (_, v) = witness::verify::<Sha256>(&bytes, &root).unwrap();
    assert_eq!(v.post_root, root);
}

#[test]
fn every_sub_index_verifies_and_bit_order_is_bound() {
    let mut rng = Rng::new(3);
    let (mut tree, _) = small_tree(&mut rng, 5);
    let stem: [u8; 31] = rng.bytes();
    for sub in 0..=255u8 {
        tree.insert(&key(&stem, sub), &[sub; 32]).unwrap();
    }
    let root = tree.root();
    for sub in 0..=255u8 {
        let bytes = tree
            .witness(&[(key(&stem, sub), Write::Unchanged)])
            .unwrap();
        let (w, _) = witness::verify::<Sha256>(&bytes, &root).unwrap();
        assert_eq!(w.claims().next().unwrap().pre, Some(&[sub; 32]));
    }
    // The proof of 0x01 presented as the proof of 0x80 (the bit order read reversed).
    let bytes = tree
        .witness(&[(key(&stem, 0x01), Write::Unchanged)])
        .unwrap();
    let mut p = Parts::parse(&bytes).unwrap();
    p.keys[0][31] = 0x80;
    assert!(matches!(
        rejects(&p.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
    // And with the value of 0x80 claimed as well.
    p.values[0] = [0x80; 32];
    assert!(matches!(
        rejects(&p.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
}

#[test]
fn a_proof_relabelled_to_another_stem_fails() {
    let mut rng = Rng::new(4);
    let (mut tree, stems) = small_tree(&mut rng, 20);
    let root = tree.root();
    let bytes = tree
        .witness(&[(key(&stems[3], 64), Write::Unchanged)])
        .unwrap();
    witness::verify::<Sha256>(&bytes, &root).unwrap();
    for other in [stems[4], near(&stems[3], 240, &mut rng), rng.bytes()] {
        let mut p = Parts::parse(&bytes).unwrap();
        p.keys[0][..31].copy_from_slice(&other);
        let e = rejects(&p.encode(), &root);
        assert!(matches!(e, WitnessError::RootMismatch { .. }), "{e}");
    }
}

#[test]
fn an_exclusion_at_another_stem_cannot_claim_a_value() {
    let mut rng = Rng::new(5);
    let (mut tree, stems) = small_tree(&mut rng, 20);
    let root = tree.root();
    let absent = key(&near(&stems[2], 60, &mut rng), 0);
    let bytes = tree.witness(&[(absent, Write::Unchanged)]).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    assert_eq!(p.ends[0][1], witness::END_DIVERGENT);
    let mut forged = p.clone();
    forged.flags[0] = 0x01;
    forged.values.insert(0, [7; 32]);
    assert_eq!(
        rule(&rejects(&forged.encode(), &root)),
        Some(Rule::AbsentValue)
    );
    // Claiming the divergent stem's own value under the divergent stem's key.
    let mut forged = p.clone();
    forged.keys[0][..31].copy_from_slice(&stems[2]);
    let e = rejects(&forged.encode(), &root);
    assert_eq!(rule(&e), Some(Rule::OtherTouched), "{e}");
    // Presenting it as present.
    let mut forged = p.clone();
    forged.ends[0][1] = witness::END_PRESENT;
    forged.others.clear();
    assert!(witness::verify::<Sha256>(&forged.encode(), &root).is_err());
}

#[test]
fn absence_of_a_present_key_and_presence_of_an_absent_key_fail() {
    let mut rng = Rng::new(6);
    let (mut tree, stems) = small_tree(&mut rng, 20);
    let root = tree.root();
    // Absent slot in a present stem.
    let bytes = tree
        .witness(&[(key(&stems[1], 64), Write::Unchanged)])
        .unwrap();
    let mut p = Parts::parse(&bytes).unwrap();
    p.flags[0] = 0;
    p.values.clear();
    assert!(matches!(
        rejects(&p.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
    // The present stem claimed as ending at another stem, or empty.
    let mut p = Parts::parse(&bytes).unwrap();
    p.flags[0] = 0;
    p.values.clear();
    p.ends[0][1] = witness::END_DIVERGENT;
    let mut record = [0u8; 64];
    record[..31].copy_from_slice(&stems[1]);
    record[32..].copy_from_slice(tree.get(&key(&stems[1], 0)).unwrap());
    p.others.push(record);
    assert_eq!(rule(&rejects(&p.encode(), &root)), Some(Rule::OtherTouched));
    let mut q = p.clone();
    q.others[0][30] ^= 1;
    assert!(witness::verify::<Sha256>(&q.encode(), &root).is_err());
    p.ends[0][1] = witness::END_EMPTY;
    p.others.clear();
    assert!(witness::verify::<Sha256>(&p.encode(), &root).is_err());
    // Presence of an absent slot.
    let bytes = tree
        .witness(&[(key(&stems[1], 7), Write::Unchanged)])
        .unwrap();
    let mut p = Parts::parse(&bytes).unwrap();
    p.flags[0] = 1;
    p.values.insert(0, [0; 32]);
    assert!(matches!(
        rejects(&p.encode(), &root),
        WitnessError::RootMismatch { .. }
    ));
}

/// Two PRESENT ends and a third end at another depth in one group: the depth rule is checked
/// for every stem of the group before the kinds (spec/BINARY.md §4 `end_node`), so the
/// answer is `bw.end.depth`, as the Python reference gives, not `bw.end.group`. Found by the
/// differential runner (the suite's `end_depth_above_a_split` with a new stem beside its
/// first key).
#[test]
fn a_group_with_a_wrong_depth_breaks_the_depth_rule_before_the_kinds() {
    let hex = concat!(
        "0301010400000000000000180000000300000000000000",
        "eb9ecfbc7a9995e8855baacf425d853d92eb851383f1b3de0c",
        "9f9753509d7f80eb9ecfbc7a9995e8855baacf425d853d92eb851383f1b3de0c9f9753509dff80fb9ecfbc7a",
        "9995e8855baacf425d853d92eb851383f1b3de0c9f9753509d7f00fb9ecfbc7a9995e8855baacf425d853d92",
        "eb851383f1b3de0c9f9753509d7f40010201010301030104010fee9369cde9958edf70ca513c213554c7a8ec",
        "943bdb3d5bdb8449a4df0c31cd99999999999999999999999999999999999999999999999999999999999999",
        "99dcef1421724bb2155e2e0f6269d2945954d0b38d4aeb3c72631ecc60317548a8b9aa7450f7d1c13b5a4729",
        "09875ce512661017617a6553635bafb307781383b3501000454c4fa6d74b87a6a7e42b4dd01f2038033f8507",
        "cb3360a51417d1f6809c7577f40abed174f1d635867eee6fece319d65dbead44ca5bc4d648db972a6841987a",
        "ddde7e0fc5efab650b7d0e2f43aefe233b891e9f151cbd32cdfde530f2678622",
    );
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let root: [u8; 32] = (0..32)
        .map(|i| {
            u8::from_str_radix(
                &"a68f18dc92c8262e5253b9a728f4bb229d346b7d75964163ee038f90339cb6dd"
                    [2 * i..2 * i + 2],
                16,
            )
            .unwrap()
        })
        .collect::<Vec<u8>>()
        .try_into()
        .unwrap();
    let e = rejects(&bytes, &root);
    assert_eq!(rule(&e), Some(Rule::EndDepth), "{e}");
}

#[test]
fn malformed_bytes_are_rejected_with_their_rule() {
    let mut rng = Rng::new(7);
    let (mut tree, stems) = small_tree(&mut rng, 30);
    let root = tree.root();
    let writes = [
        (key(&stems[0], 0), Write::Set([1; 32])),
        (key(&stems[0], 1), Write::Unchanged),
        (key(&stems[5], 9), Write::Set([2; 32])),
        (key(&rng.bytes(), 0), Write::Set([3; 32])),
    ];
    let bytes = tree.witness(&writes).unwrap();
    witness::verify::<Sha256>(&bytes, &root).unwrap();
    for len in 0..bytes.len() {
        assert!(witness::verify::<Sha256>(&bytes[..len], &root).is_err());
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        rejects(&longer, &root),
        WitnessError::Trailing { .. }
    ));
    assert_eq!(rejects(&bytes, &[1; 32]).name(), "bw.root");
    let p = Parts::parse(&bytes).unwrap();
    // Header bytes.
    for (at, r) in [(0, Rule::Version), (1, Rule::TreeKind), (2, Rule::HashKind)] {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        assert_eq!(rule(&rejects(&b, &root)), Some(r));
    }
    assert_eq!(
        witness::verify::<Blake3>(&bytes, &root).unwrap_err().rule(),
        Some(Rule::HashKind)
    );
    // Counts.
    for i in 0..4 {
        for delta in [1u32, u32::MAX] {
            let mut b = bytes.clone();
            let at = 3 + 4 * i;
            let c = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()).wrapping_add(delta);
            b[at..at + 4].copy_from_slice(&c.to_le_bytes());
            assert!(witness::verify::<Sha256>(&b, &root).is_err());
        }
    }
    // Unsorted and duplicate keys.
    let mut q = p.clone();
    q.keys.swap(0, 1);
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::KeyOrder));
    let mut q = p.clone();
    q.keys[1] = q.keys[0];
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::KeyOrder));
    // Unknown flags, no-op set.
    let mut q = p.clone();
    q.flags[1] |= 0x04;
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::KeyFlags));
    let both = p.flags.iter().position(|&f| f == 3).unwrap();
    let v: usize = p.flags[..both]
        .iter()
        .map(|f| f.count_ones() as usize)
        .sum();
    let mut q = p.clone();
    q.values[v + 1] = q.values[v];
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::NoopWrite));
    // Flipped hash bytes.
    for h in 0..p.hashes.len() {
        let mut q = p.clone();
        q.hashes[h][h % 32] ^= 1;
        assert!(matches!(
            rejects(&q.encode(), &root),
            WitnessError::RootMismatch { .. }
        ));
    }
    let mut q = p.clone();
    q.hashes[0] = [0; 32];
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::ZeroHash));
    // Wrong depth.
    for s in 0..p.ends.len() {
        for depth in [p.ends[s][0].wrapping_sub(1), p.ends[s][0] + 1, 249] {
            let mut q = p.clone();
            q.ends[s][0] = depth;
            assert!(witness::verify::<Sha256>(&q.encode(), &root).is_err());
        }
    }
    let mut q = p.clone();
    q.ends[0][0] = 249;
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::EndDepth));
    let mut q = p.clone();
    q.ends[0][1] = 3;
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::EndKind));
    // Bitmap padding and hash count.
    let mut q = p.clone();
    if !q.slots.is_multiple_of(8) {
        *q.bitmap.last_mut().unwrap() |= 1;
        assert!(matches!(
            rule(&rejects(&q.encode(), &root)),
            Some(Rule::BitmapPadding)
        ));
    }
    let mut q = p.clone();
    q.hashes.push([9; 32]);
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::HashCount));
    // A sibling slot too many or too few.
    let mut q = p.clone();
    q.slots += 8;
    q.bitmap.push(0);
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::SiblingCount));
}

#[test]
fn over_limit_counts_are_rejected_before_reading() {
    let fields = [
        "key_count",
        "other_count",
        "sibling_count",
        "hash_count",
        "anchor_count",
    ];
    for (i, field) in fields.iter().enumerate() {
        let mut b = vec![bintree::witness::VERSION, 1, 1];
        b.extend_from_slice(&[0; 20]);
        let at = 3 + 4 * i;
        b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        match witness::Witness::decode::<Sha256>(&b) {
            Err(WitnessError::Limit { field: f, .. }) => assert_eq!(f, *field),
            other => panic!("{other:?}"),
        }
    }
    let mut b = vec![bintree::witness::VERSION, 1, 1];
    b.extend_from_slice(&(MAX_KEYS as u32).to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    assert!(matches!(
        witness::Witness::decode::<Sha256>(&b),
        Err(WitnessError::Truncated {
            section: "keys",
            ..
        })
    ));
}

#[test]
fn single_byte_mutants_are_rejected_or_claim_the_same() {
    let mut rng = Rng::new(8);
    let (mut tree, stems) = small_tree(&mut rng, 40);
    let root = tree.root();
    let writes = [
        (key(&stems[0], 0), Write::Set([1; 32])),
        (key(&stems[0], 200), Write::Unchanged),
        (key(&stems[9], 64), Write::Unchanged),
        (key(&near(&stems[3], 90, &mut rng), 4), Write::Set([3; 32])),
        (key(&rng.bytes(), 0), Write::Unchanged),
    ];
    let bytes = tree.witness(&writes).unwrap();
    let (honest, _) = witness::verify::<Sha256>(&bytes, &root).unwrap();
    let honest: Vec<_> = honest
        .claims()
        .map(|c| (c.key.to_vec(), c.pre.copied()))
        .collect();
    // Bytes that are claims rather than proof: the keys and the new values.
    let p = Parts::parse(&bytes).unwrap();
    let header = witness::HEADER_LENGTH;
    let keys = header..header + 32 * p.keys.len();
    let values_at = header + 33 * p.keys.len() + 2 * p.ends.len();
    let mut new_values = Vec::new();
    let mut v = 0;
    for &f in &p.flags {
        v += (f & 1) as usize;
        if f & 2 != 0 {
            new_values.push(values_at + 32 * v..values_at + 32 * v + 32);
            v += 1;
        }
    }
    let (mut accepted, mut other_keys) = (0, 0);
    for trial in 0..6000 {
        let mut b = bytes.clone();
        let at = rng.below(b.len());
        if trial % 2 == 0 {
            b[at] ^= 1 << rng.below(8);
        } else {
            b[at] = rng.next_u64() as u8;
        }
        if b == bytes {
            continue;
        }
        if let Ok((w, v)) = witness::verify::<Sha256>(&b, &root) {
            accepted += 1;
            let claims: Vec<_> = w
                .claims()
                .map(|c| (c.key.to_vec(), c.pre.copied()))
                .collect();
            if keys.contains(&at) {
                // Another key set: accepted only if every claim about it is true.
                other_keys += 1;
                for (k, pre) in &claims {
                    assert_eq!(
                        pre.as_ref(),
                        tree.get(k),
                        "mutant at byte {at} made a false claim"
                    );
                }
            } else {
                assert_eq!(
                    claims, honest,
                    "mutant at byte {at} changed a pre-state claim"
                );
                assert!(
                    new_values.iter().any(|r| r.contains(&at)),
                    "proof byte {at} ignored"
                );
            }
            // Only a new value may differ; the post-state root follows it.
            let writes: Vec<([u8; 32], Write)> = w
                .claims()
                .map(|c| {
                    let k: [u8; 32] = c.key.try_into().unwrap();
                    match c.write {
                        WriteRef::Set(v) => (k, Write::Set(*v)),
                        _ => (k, Write::Unchanged),
                    }
                })
                .collect();
            assert_eq!(v.post_root, applied_root(&tree, &writes));
        }
    }
    // The new values are 64 of the witness's bytes: some mutants land there.
    assert!(accepted > other_keys);
}

#[test]
fn the_deepest_stems_verify_on_a_small_stack() {
    // Stems that differ only in their last bit: stem nodes 248 internal nodes deep.
    let a = [0x5au8; 31];
    let mut b = a;
    b[30] ^= 1;
    let mut tree = Tree::<Blake3>::new();
    tree.insert(&key(&a, 0), &[1; 32]).unwrap();
    let root = tree.root();
    let writes = vec![
        (key(&a, 255), Write::Unchanged),
        (key(&b, 0), Write::Set([2; 32])),
    ];
    let expected = applied_root(&tree, &writes);
    let bytes = tree.witness(&writes).unwrap();
    let got = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            witness::verify::<Blake3>(&bytes, &root)
                .unwrap()
                .1
                .post_root
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(got, expected);
}

#[test]
fn mutants_of_many_witnesses_never_panic_nor_lie() {
    let mut rng = Rng::new(64);
    let mut accepted = 0;
    for _ in 0..60 {
        let Scenario {
            mut tree, writes, ..
        } = scenario::<Sha256>(&mut rng);
        let root = tree.root();
        let bytes = tree.witness(&writes).unwrap();
        for _ in 0..300 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len());
                b[at] ^= 1 << rng.below(8);
            }
            // Claims and post-state root held to the tree when accepted.
            accepted += usize::from(check_eip7864(&tree, &root, &b).is_ok());
        }
    }
    assert!(accepted > 0);
}

/// `hash(left ‖ right)` with the zero rule.
fn pair(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    if *left == [0; 32] && *right == [0; 32] {
        return [0; 32];
    }
    Sha256::hash(&[left, right])
}

/// Node `n` (numbered left to right from 0) at `level` of the stem subtree holding `values`
/// (level 0: the subtree root, 8: the leaves).
fn subtree_node(values: &[(u8, [u8; 32])], level: u32, n: u16) -> [u8; 32] {
    if level == 8 {
        return values
            .iter()
            .find(|(i, _)| u16::from(*i) == n)
            .map_or([0; 32], |(_, v)| Sha256::hash(&[v]));
    }
    pair(
        &subtree_node(values, level + 1, 2 * n),
        &subtree_node(values, level + 1, 2 * n + 1),
    )
}

/// The sibling slots of the opening of leaf `i` in the stem subtree of `values`: the right
/// side off the path at each level, the deepest first.
fn opening_slots(values: &[(u8, [u8; 32])], i: u8) -> Vec<[u8; 32]> {
    (0..8u32)
        .rev()
        .filter_map(|level| {
            let n = u16::from(i) >> (7 - level);
            (n & 1 == 0).then(|| subtree_node(values, level + 1, n + 1))
        })
        .collect()
}

/// The sibling slots of `p`, in order.
fn slots_of(p: &Parts) -> Vec<[u8; 32]> {
    let mut hashes = p.hashes.iter();
    (0..p.slots)
        .map(|s| match p.bit(s) {
            true => *hashes.next().unwrap(),
            false => [0; 32],
        })
        .collect()
}

/// `p` with its sibling slots set to `slots`.
fn with_slots(p: &Parts, slots: &[[u8; 32]]) -> Parts {
    let mut q = p.clone();
    q.slots = slots.len();
    q.bitmap = vec![0; slots.len().div_ceil(8)];
    q.hashes.clear();
    for (s, h) in slots.iter().enumerate() {
        if *h != [0; 32] {
            q.bitmap[s / 8] |= 0x80 >> (s % 8);
            q.hashes.push(*h);
        }
    }
    q
}

/// An other-stem record opens its stem's first present leaf: the prover writes its
/// sub-index, value and right-side siblings; the opening of another present leaf (a true
/// leaf with its true siblings, left sides taken as empty) or a changed value gives another
/// root.
#[test]
fn an_other_stem_opens_its_first_present_leaf_and_nothing_else() {
    let mut rng = Rng::new(9);
    let (mut tree, stems) = small_tree(&mut rng, 20);
    let root = tree.root();
    let values: Vec<(u8, [u8; 32])> = [0u8, 1, 64, 65]
        .iter()
        .map(|&i| (i, *tree.get(&key(&stems[2], i)).unwrap()))
        .collect();
    let absent = near(&stems[2], 60, &mut rng);
    let bytes = tree
        .witness(&[(key(&absent, 0), Write::Unchanged)])
        .unwrap();
    witness::verify::<Sha256>(&bytes, &root).unwrap();
    let p = Parts::parse(&bytes).unwrap();
    let [depth, kind] = p.ends[0];
    assert_eq!(kind, witness::END_DIVERGENT);
    assert_eq!(p.others.len(), 1);
    assert_eq!(&p.others[0][..31], &stems[2]);
    assert_eq!((p.others[0][31], &p.others[0][32..]), (0, &values[0].1[..]));
    // The path's left siblings come before the opening's slots, its right siblings after.
    let before = (0..usize::from(depth))
        .filter(|&d| absent[d / 8] & (0x80 >> (d % 8)) != 0)
        .count();
    let slots = slots_of(&p);
    let opening = opening_slots(&values, 0);
    assert_eq!(&slots[before..before + 8], &opening[..]);
    for (i, value) in &values[1..] {
        let mut forged = [
            &slots[..before],
            &opening_slots(&values, *i)[..],
            &slots[before + 8..],
        ];
        let joined: Vec<[u8; 32]> = forged.iter_mut().flat_map(|s| s.iter().copied()).collect();
        let mut q = with_slots(&p, &joined);
        q.others[0][31] = *i;
        q.others[0][32..].copy_from_slice(value);
        let e = rejects(&q.encode(), &root);
        assert!(
            matches!(e, WitnessError::RootMismatch { .. }),
            "leaf {i}: {e}"
        );
    }
    // The first leaf's value changed, or its sub-index with the same slots.
    let mut q = p.clone();
    q.others[0][63] ^= 1;
    let e = rejects(&q.encode(), &root);
    assert!(matches!(e, WitnessError::RootMismatch { .. }), "{e}");
    let mut q = p.clone();
    q.others[0][32..].copy_from_slice(&values[1].1);
    let e = rejects(&q.encode(), &root);
    assert!(matches!(e, WitnessError::RootMismatch { .. }), "{e}");
    let mut q = p.clone();
    q.others[0][31] = 0x40;
    assert!(witness::verify::<Sha256>(&q.encode(), &root).is_err());
}

/// Other stems whose first present leaf is anywhere in the subtree: honest witnesses of keys
/// ending at them verify, with reads and writes.
#[test]
fn other_stems_open_first_leaves_at_every_position() {
    let mut rng = Rng::new(10);
    for first in [0u8, 1, 0x5a, 0x7f, 0x80, 0xfe, 0xff] {
        let (mut tree, _) = small_tree(&mut rng, 6);
        let stem: [u8; 31] = rng.bytes();
        for i in [first, first | 0x21, 0xff] {
            tree.insert(&key(&stem, i), &rng.bytes()).unwrap();
        }
        let root = tree.root();
        let writes = [
            (key(&near(&stem, 200, &mut rng), 7), Write::Unchanged),
            (key(&near(&stem, 100, &mut rng), 0), Write::Set([first; 32])),
        ];
        let bytes = tree.witness(&writes).unwrap();
        let p = Parts::parse(&bytes).unwrap();
        assert!(p.others.iter().any(|o| o[..31] == stem && o[31] == first));
        let (_, v) = witness::verify::<Sha256>(&bytes, &root).unwrap();
        assert_eq!(v.post_root, applied_root(&tree, &writes));
    }
}

/// A key whose stem is all zero is refused by the prover and rejected at decode, right after
/// the key order.
#[test]
fn a_zero_stem_key_is_refused_and_rejected() {
    let mut rng = Rng::new(11);
    let (mut tree, stems) = small_tree(&mut rng, 5);
    let root = tree.root();
    let zero = key(&[0; 31], 9);
    for writes in [
        vec![(zero, Write::Unchanged)],
        vec![
            (key(&stems[0], 0), Write::Unchanged),
            (zero, Write::Set([1; 32])),
        ],
    ] {
        let e = tree.witness(&writes).unwrap_err();
        assert_eq!(rule(&e), Some(Rule::ZeroStem), "{e}");
        assert_eq!(
            e,
            WitnessError::Rule {
                rule: Rule::ZeroStem,
                what: "key",
                index: writes.len() - 1
            }
        );
    }
    let mut beside = key(&[0; 31], 9);
    beside[30] = 1;
    let bytes = tree.witness(&[(beside, Write::Unchanged)]).unwrap();
    let mut p = Parts::parse(&bytes).unwrap();
    p.keys[0] = zero;
    let e = witness::Witness::decode::<Sha256>(&p.encode()).unwrap_err();
    assert_eq!(
        e,
        WitnessError::Rule {
            rule: Rule::ZeroStem,
            what: "key",
            index: 0
        }
    );
    assert_eq!(rule(&rejects(&p.encode(), &root)), Some(Rule::ZeroStem));
    // Key order is checked first.
    let mut q = p.clone();
    q.keys.push(zero);
    q.flags.push(0);
    assert_eq!(rule(&rejects(&q.encode(), &root)), Some(Rule::KeyOrder));
}

/// A tree holding the zero stem: keys whose paths end at its stem node prove it as an other
/// stem (the record `0^31` is allowed: the opening binds it), with reads and writes.
#[test]
fn a_tree_holding_the_zero_stem_proves_keys_ending_at_it() {
    let mut rng = Rng::new(12);
    let (mut tree, _) = small_tree(&mut rng, 8);
    let zero = [0u8; 31];
    tree.insert(&key(&zero, 3), &[0xaa; 32]).unwrap();
    tree.insert(&key(&zero, 200), &[0xbb; 32]).unwrap();
    let root = tree.root();
    let mut ended = 0;
    for bits in [1usize, 8, 100, 247] {
        let mut neighbour = zero;
        neighbour[bits / 8] |= 0x80 >> (bits % 8);
        for write in [Write::Unchanged, Write::Set([0x5c; 32])] {
            let writes = [(key(&neighbour, 3), write)];
            let bytes = tree.witness(&writes).unwrap();
            let p = Parts::parse(&bytes).unwrap();
            if p.ends[0][1] == witness::END_DIVERGENT {
                assert_eq!(
                    p.others,
                    vec![{
                        let mut r = [0u8; 64];
                        r[31] = 3;
                        r[32..].fill(0xaa);
                        r
                    }]
                );
                ended += 1;
            }
            let (w, v) = witness::verify::<Sha256>(&bytes, &root).unwrap();
            assert_eq!(w.claims().next().unwrap().pre, None);
            assert_eq!(v.post_root, applied_root(&tree, &writes));
        }
    }
    assert!(ended >= 4, "{ended} paths ended at the zero stem");
}
