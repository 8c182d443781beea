//! Batches and hypertrees give the root of the writes applied one at a time, in any order;
//! a batch's rehash computes the minimum number of hashes.

use std::collections::{BTreeMap, HashSet};

use bintree::eip8297::{root_of_entries, Tree, BRANCH_TAG, LEAF_TAG};
use bintree::witness::Write;
use bintree::{eip7864, Blake3, Sha256, TreeHash};
use proptest::prelude::*;

/// An EIP-8297-shaped key: header or code keys (34 bytes) and storage keys (66 bytes) over a
/// few stems, so that keys share long prefixes.
fn key8297(stem: u8, sub: u8, storage: bool) -> Vec<u8> {
    let h = Blake3::hash(&[&[stem % 5]]);
    if storage {
        let mut key = vec![0xff];
        key.extend_from_slice(&h);
        key.extend_from_slice(&Blake3::hash(&[&h, &[stem]]));
        key.push(sub);
        key
    } else {
        let mut key = vec![stem & 1];
        key.extend_from_slice(&h);
        key.push(sub);
        key
    }
}

type Op = (Vec<u8>, Option<[u8; 32]>);

fn ops8297() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        (
            any::<u8>(),
            0u8..8,
            any::<bool>(),
            prop::option::weighted(0.7, any::<[u8; 32]>()),
        ),
        0..300,
    )
    .prop_map(|ops| {
        ops.into_iter()
            .map(|(stem, sub, storage, value)| (key8297(stem, sub, storage), value))
            .collect()
    })
}

/// The entry set after `ops` in order.
fn entries(ops: &[Op]) -> BTreeMap<Vec<u8>, [u8; 32]> {
    let mut map = BTreeMap::new();
    for (key, value) in ops {
        match value {
            Some(v) => map.insert(key.clone(), *v),
            None => map.remove(key),
        };
    }
    map
}

fn definition_root(map: &BTreeMap<Vec<u8>, [u8; 32]>) -> [u8; 32] {
    let refs: Vec<(&[u8], [u8; 32])> = map.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
    root_of_entries::<Blake3>(&refs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// One at a time, as one batch on a populated tree, and in a shuffled order of the final
    /// writes: one root, the definition's.
    #[test]
    fn eip8297_batches_match_one_at_a_time(base in ops8297(), ops in ops8297(), seed in any::<u64>()) {
        let mut single = Tree::<Blake3>::new();
        for (key, value) in base.iter().chain(&ops) {
            match value {
                Some(v) => single.insert(key, v).unwrap(),
                None => { single.remove(key).unwrap(); }
            }
        }
        let after = entries(&[base.clone(), ops.clone()].concat());
        let expected = definition_root(&after);
        prop_assert_eq!(single.root(), expected);
        prop_assert_eq!(single.len(), after.len());

        let mut sharded = Tree::<Blake3>::new();
        sharded.apply(base.iter().cloned()).unwrap();
        let _ = sharded.root();
        sharded.apply(ops.iter().cloned()).unwrap();
        prop_assert_eq!(sharded.root(), expected);
        prop_assert_eq!(sharded.len(), after.len());

        // The net write per key, in a shuffled order, one at a time and in two batches.
        let mut net: Vec<Op> = entries(&base).into_iter().map(|(k, v)| (k, Some(v))).collect();
        let touched: BTreeMap<Vec<u8>, Option<[u8; 32]>> = ops.iter().cloned().collect();
        let mut writes: Vec<Op> = touched.into_iter().collect();
        shuffle(&mut writes, seed);
        let mut shuffled = Tree::<Blake3>::new();
        shuffle(&mut net, seed ^ 1);
        for (key, value) in net.iter().chain(&writes) {
            match value {
                Some(v) => shuffled.insert(key, v).unwrap(),
                None => { shuffled.remove(key).unwrap(); }
            }
        }
        prop_assert_eq!(shuffled.root(), expected);
        let (first, second) = writes.split_at(writes.len() / 2);
        let mut halves = Tree::<Blake3>::new();
        halves.apply(net.iter().cloned()).unwrap();
        halves.apply(first.iter().cloned()).unwrap();
        let _ = halves.root();
        halves.apply(second.iter().cloned()).unwrap();
        prop_assert_eq!(halves.root(), expected);
        // Single writes left unhashed, then a batch (which hashes below its groups at once):
        // the batch's walk meets branches the single writes left without a hash.
        let mut mixed = Tree::<Blake3>::new();
        for (key, value) in &net {
            if let Some(v) = value {
                mixed.insert(key, v).unwrap();
            }
        }
        mixed.apply(writes.iter().cloned()).unwrap();
        prop_assert_eq!(mixed.root(), expected);
    }

    /// EIP-7864: one at a time in order, one batch, and shuffled batches agree.
    #[test]
    fn eip7864_batches_match_one_at_a_time(
        writes in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<[u8; 32]>()), 0..400),
        seed in any::<u64>(),
    ) {
        // Stems over a few prefixes: long shared runs, one-sided internal nodes.
        let writes: Vec<([u8; 32], [u8; 32])> = writes
            .into_iter()
            .map(|(a, b, sub, value)| {
                let mut key = [0u8; 32];
                key[0] = a & 0x83;
                key[30] = b;
                key[31] = sub;
                (key, value)
            })
            .collect();
        let mut single = eip7864::Tree::<Sha256>::new();
        for (key, value) in &writes {
            single.insert(key, value).unwrap();
        }
        let expected = single.root();
        let mut batch = eip7864::Tree::<Sha256>::new();
        batch.apply(writes.iter().map(|(k, v)| (k, *v))).unwrap();
        prop_assert_eq!(batch.root(), expected);
        let last: BTreeMap<[u8; 32], [u8; 32]> = writes.iter().cloned().collect();
        let mut net: Vec<([u8; 32], [u8; 32])> = last.into_iter().collect();
        shuffle(&mut net, seed);
        let (first, second) = net.split_at(net.len() / 3);
        let mut halves = eip7864::Tree::<Sha256>::new();
        halves.apply(first.iter().cloned()).unwrap();
        let _ = halves.root();
        halves.apply(second.iter().cloned()).unwrap();
        prop_assert_eq!(halves.root(), expected);
        prop_assert_eq!(halves.len(), single.len());
        // Single writes left unhashed, then a batch (which rehashes its own paths at once):
        // the batch's walk meets nodes the single writes left without a hash.
        let mut mixed = eip7864::Tree::<Sha256>::new();
        for (key, value) in first {
            mixed.insert(key, value).unwrap();
        }
        mixed.apply(second.iter().cloned()).unwrap();
        prop_assert_eq!(mixed.root(), expected);
    }
}

fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed | 1;
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

/// Every node hash of the EIP-8297 tree of `map`, by an independent transcription of
/// `binarize` and `merkelize`.
fn node_hashes(map: &BTreeMap<Vec<u8>, [u8; 32]>) -> HashSet<[u8; 32]> {
    fn bits(key: &[u8]) -> Vec<u8> {
        key.iter()
            .flat_map(|b| (0..8).map(move |i| (b >> (7 - i)) & 1))
            .collect()
    }
    fn walk(
        entries: &[(Vec<u8>, Vec<u8>, [u8; 32])],
        depth: usize,
        out: &mut HashSet<[u8; 32]>,
    ) -> [u8; 32] {
        if let [(key, _, value)] = entries {
            let h = Blake3::hash(&[&[LEAF_TAG], key, value]);
            out.insert(h);
            return h;
        }
        let mut split = depth;
        while entries.iter().all(|e| e.1[split] == entries[0].1[split]) {
            split += 1;
        }
        let (left, right): (Vec<_>, Vec<_>) =
            entries.iter().cloned().partition(|e| e.1[split] == 0);
        let l = walk(&left, split + 1, out);
        let r = walk(&right, split + 1, out);
        let prefix = &entries[0].1[depth..split];
        let mut packed = vec![0u8; prefix.len().div_ceil(8)];
        for (i, b) in prefix.iter().enumerate() {
            packed[i / 8] |= b << (7 - i % 8);
        }
        let len = (prefix.len() as u16).to_be_bytes();
        let h = Blake3::hash(&[&[BRANCH_TAG], &len, &packed, &l, &r]);
        out.insert(h);
        h
    }
    let entries: Vec<_> = map.iter().map(|(k, v)| (k.clone(), bits(k), *v)).collect();
    let mut out = HashSet::new();
    if !entries.is_empty() {
        walk(&entries, 0, &mut out);
    }
    out
}

/// After a batch of value changes, new keys and deletions, the rehash computes one hash per
/// node whose hash changed (the union of the touched paths, and the branches whose prefix
/// a split or a collapse changed), and no other.
#[test]
fn eip8297_batch_rehash_is_minimal() {
    let mut map = BTreeMap::new();
    for i in 0..200u32 {
        map.insert(
            key8297(i as u8, (i / 37) as u8, i % 3 == 0),
            [i as u8 + 1; 32],
        );
    }
    let mut tree = Tree::<Blake3>::new();
    tree.apply(map.iter().map(|(k, v)| (k.clone(), Some(*v))))
        .unwrap();
    let _ = tree.root();
    assert_eq!(
        tree.hash_count() as usize,
        node_hashes(&map).len(),
        "a first build hashes every node once"
    );

    let keys: Vec<Vec<u8>> = map.keys().cloned().collect();
    let mut batch: Vec<Op> = vec![
        (keys[3].clone(), Some([0xa1; 32])),
        (keys[90].clone(), Some([0xa2; 32])),
        (keys[100].clone(), Some([0xa3; 32])),
        (keys[17].clone(), None),
        (keys[18].clone(), None),
        (keys[110].clone(), None),
        (key8297(7, 200, false), Some([0xb1; 32])),
        (key8297(9, 201, true), Some([0xb2; 32])),
    ];
    // A rewrite of a value to itself touches nothing.
    batch.push((keys[60].clone(), Some(map[&keys[60]])));
    let before = node_hashes(&map);
    for (key, value) in &batch {
        match value {
            Some(v) => map.insert(key.clone(), *v),
            None => map.remove(key),
        };
    }
    let after = node_hashes(&map);
    let minimum = after.difference(&before).count();
    let counted = tree.hash_count();
    tree.apply(batch).unwrap();
    let root = tree.root();
    let used = (tree.hash_count() - counted) as usize;
    eprintln!(
        "batch of 9 writes on {} keys: {used} hashes, minimum {minimum}, tree of {} nodes",
        keys.len(),
        after.len()
    );
    assert_eq!(root, definition_root(&map));
    assert_eq!(used, minimum, "hashes for the batch");
    // Reading the root again computes nothing.
    let _ = tree.root();
    assert_eq!((tree.hash_count() - counted) as usize, minimum);
}

/// Every computed node hash of the EIP-7864 tree of `map`, by an independent transcription of
/// the EIP's `merkelize` (hashes of 64 zero bytes are zero by rule and not computed).
fn node_hashes_7864(map: &BTreeMap<[u8; 32], [u8; 32]>) -> HashSet<[u8; 32]> {
    fn pair(l: [u8; 32], r: [u8; 32], out: &mut HashSet<[u8; 32]>) -> [u8; 32] {
        if l == [0; 32] && r == [0; 32] {
            return [0; 32];
        }
        let h = Sha256::hash(&[&l, &r]);
        out.insert(h);
        h
    }
    type Stem = ([u8; 31], Vec<Option<[u8; 32]>>);
    fn walk(stems: &[Stem], depth: usize, out: &mut HashSet<[u8; 32]>) -> [u8; 32] {
        match stems {
            [] => [0; 32],
            [(stem, values)] => {
                let mut level: Vec<[u8; 32]> = values
                    .iter()
                    .map(|v| {
                        v.map_or([0; 32], |v| {
                            let h = Sha256::hash(&[&v]);
                            out.insert(h);
                            h
                        })
                    })
                    .collect();
                while level.len() > 1 {
                    level = level.chunks(2).map(|p| pair(p[0], p[1], out)).collect();
                }
                let mut head = [0u8; 32];
                head[..31].copy_from_slice(stem);
                pair(head, level[0], out)
            }
            _ => {
                let (l, r): (Vec<Stem>, Vec<Stem>) = stems
                    .iter()
                    .cloned()
                    .partition(|(s, _)| (s[depth / 8] >> (7 - depth % 8)) & 1 == 0);
                let (l, r) = (walk(&l, depth + 1, out), walk(&r, depth + 1, out));
                pair(l, r, out)
            }
        }
    }
    let mut stems: BTreeMap<[u8; 31], Vec<Option<[u8; 32]>>> = BTreeMap::new();
    for (key, value) in map {
        let stem: [u8; 31] = key[..31].try_into().unwrap();
        stems.entry(stem).or_insert_with(|| vec![None; 256])[key[31] as usize] = Some(*value);
    }
    let stems: Vec<Stem> = stems.into_iter().collect();
    let mut out = HashSet::new();
    walk(&stems, 0, &mut out);
    out
}

/// EIP-7864: a batch of changed values and new stems rehashes each changed node once, inside
/// the stems' subtrees too, and no other.
#[test]
fn eip7864_batch_rehash_is_minimal() {
    let key = |stem: u32, sub: u8| {
        let mut key = Sha256::hash(&[&stem.to_be_bytes()]);
        key[0] &= 0x0f; // a shared prefix: one-sided internal nodes near the root
        key[31] = sub;
        key
    };
    let value = |k: &[u8; 32], round: u8| Sha256::hash(&[k, &[round]]);
    let mut map = BTreeMap::new();
    for stem in 0..60u32 {
        for sub in [0u8, 1, 64, 65, 130] {
            let k = key(stem, sub);
            map.insert(k, value(&k, 0));
        }
    }
    let mut tree = eip7864::Tree::<Sha256>::new();
    tree.apply(map.iter().map(|(k, v)| (*k, *v))).unwrap();
    let _ = tree.root();
    assert_eq!(
        tree.hash_count() as usize,
        node_hashes_7864(&map).len(),
        "a first build hashes every node once"
    );

    let mut batch: Vec<([u8; 32], [u8; 32])> = Vec::new();
    for (stem, sub) in [(3u32, 0u8), (3, 65), (17, 130), (44, 1)] {
        let k = key(stem, sub);
        batch.push((k, value(&k, 1)));
    }
    for (stem, sub) in [(1000u32, 0u8), (1001, 7), (3, 200)] {
        let k = key(stem, sub);
        batch.push((k, value(&k, 1)));
    }
    let unchanged = key(5, 64);
    batch.push((unchanged, map[&unchanged]));
    let before = node_hashes_7864(&map);
    map.extend(batch.iter().cloned());
    let after = node_hashes_7864(&map);
    let minimum = after.difference(&before).count();
    let counted = tree.hash_count();
    tree.apply(batch).unwrap();
    let _ = tree.root();
    let used = (tree.hash_count() - counted) as usize;
    eprintln!(
        "eip7864 batch of 8 writes on {} keys: {used} hashes, minimum {minimum}",
        map.len()
    );
    assert_eq!(used, minimum, "hashes for the batch");
}

/// Reads of `extra` keys beside the last write of each key in `ops`, each key once.
fn witness_writes(ops: &[Op], extra: &[Vec<u8>]) -> Vec<(Vec<u8>, Write)> {
    let mut last: BTreeMap<Vec<u8>, Write> = BTreeMap::new();
    for (key, value) in ops {
        last.insert(key.clone(), value.map_or(Write::Delete, Write::Set));
    }
    for key in extra {
        last.entry(key.clone()).or_insert(Write::Unchanged);
    }
    last.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// EIP-8297: a batch's rehash hashes every node on the union of the changed keys' paths
    /// (`path_nodes`), and at most one more per inserted key (the branch a new key's branch
    /// lands above, whose prefix shortens); a verification hashes at least the nodes on the
    /// touched paths of the pre-state tree and the changed paths of the post-state tree.
    #[test]
    fn eip8297_hashes_against_path_nodes(base in ops8297(), ops in ops8297(), reads in ops8297()) {
        let mut tree = Tree::<Blake3>::new();
        tree.apply(base.iter().map(|(k, v)| (k, *v))).unwrap();
        let pre_root = tree.root();
        let reads: Vec<Vec<u8>> = reads.into_iter().map(|(k, _)| k).collect();
        let writes = witness_writes(&ops, &reads);
        let bytes = tree.witness(&writes).unwrap();
        let verified = bintree::eip8297::witness::Witness::decode::<Blake3>(&bytes)
            .unwrap()
            .verify::<Blake3>(&pre_root)
            .unwrap();
        let touched = tree.path_nodes(writes.iter().map(|(k, _)| k)).unwrap();
        prop_assert!(verified.pre_hashes >= touched, "pre {} < {touched}", verified.pre_hashes);

        let mut changed = Vec::new();
        let mut inserted = 0u64;
        for (key, write) in &writes {
            let held = tree.get(key).copied();
            match write {
                Write::Set(v) if held != Some(*v) => {
                    inserted += u64::from(held.is_none());
                    changed.push(key.clone());
                }
                Write::Delete if held.is_some() => changed.push(key.clone()),
                _ => {}
            }
        }
        let counted = tree.hash_count();
        tree.apply(writes.iter().filter_map(|(k, w)| match w {
            Write::Set(v) => Some((k, Some(*v))),
            Write::Delete => Some((k, None)),
            Write::Unchanged => None,
        }))
        .unwrap();
        prop_assert_eq!(tree.root(), verified.post_root);
        let used = tree.hash_count() - counted;
        let minimum = tree.path_nodes(&changed).unwrap();
        prop_assert!(
            minimum <= used && used <= minimum + inserted,
            "rehash {used}, path nodes {minimum}, inserted {inserted}"
        );
        prop_assert!(verified.post_hashes >= minimum, "post {} < {minimum}", verified.post_hashes);
    }

    /// EIP-7864: a batch's rehash hashes exactly the nodes on the union of the changed keys'
    /// paths (`path_nodes`: no prefix compression, so nothing off those paths changes), and a
    /// verification exactly the nodes on the touched paths (with each other stem's opening)
    /// for the pre-state root and at least those on the changed paths for the post-state root.
    #[test]
    fn eip7864_hashes_are_the_path_nodes(
        base in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..300),
        ops in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<bool>()), 0..200),
    ) {
        // Stems over a few prefixes: long shared runs, one-sided internal nodes. Bit 5 is set
        // in every stem: a witness key never has the all-zero stem.
        let key = |a: u8, b: u8, sub: u8| {
            let mut key = [0u8; 32];
            key[0] = a & 0x83 | 0x04;
            key[30] = b;
            key[31] = sub;
            key
        };
        let mut tree = eip7864::Tree::<Sha256>::new();
        tree.apply(base.iter().map(|&(a, b, sub)| (key(a, b, sub), [a ^ b; 32]))).unwrap();
        let pre_root = tree.root();
        // A write whose flag is false writes the value the key would hold from `base`: an
        // unchanged value where the key is present.
        let mut last: BTreeMap<[u8; 32], Write> = BTreeMap::new();
        for &(a, b, sub, new) in &ops {
            let value = if new { [sub | 1; 32] } else { [a ^ b; 32] };
            last.insert(key(a, b, sub), Write::Set(value));
        }
        let writes: Vec<([u8; 32], Write)> = last.into_iter().collect();
        let bytes = tree.witness(&writes).unwrap();
        let verified = eip7864::witness::Witness::decode::<Sha256>(&bytes)
            .unwrap()
            .verify::<Sha256>(&pre_root)
            .unwrap();
        let touched = tree.path_nodes(writes.iter().map(|(k, _)| k)).unwrap();
        prop_assert_eq!(verified.pre_hashes, touched);

        let changed: Vec<[u8; 32]> = writes
            .iter()
            .filter(|(k, w)| matches!(w, Write::Set(v) if tree.get(k) != Some(v)))
            .map(|(k, _)| *k)
            .collect();
        let counted = tree.hash_count();
        tree.apply(writes.iter().filter_map(|(k, w)| match w {
            Write::Set(v) => Some((k, *v)),
            _ => None,
        }))
        .unwrap();
        prop_assert_eq!(tree.root(), verified.post_root);
        let used = tree.hash_count() - counted;
        prop_assert_eq!(used, tree.path_nodes(&changed).unwrap());
        prop_assert!(verified.post_hashes >= used, "post {} < {used}", verified.post_hashes);
    }
}

#[test]
fn path_nodes_rejects_keys_of_the_wrong_length() {
    let tree = eip7864::Tree::<Sha256>::new();
    assert!(tree.path_nodes([[0u8; 31]]).is_err());
    assert_eq!(tree.path_nodes([[0u8; 32]]).unwrap(), 0);
    let tree = Tree::<Blake3>::new();
    assert!(tree.path_nodes([Vec::<u8>::new()]).is_err());
    assert_eq!(tree.path_nodes([[1u8; 34]]).unwrap(), 0);
}
