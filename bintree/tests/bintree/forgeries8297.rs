//! A hostile prover's forgeries of EIP-8297 witnesses (`spec/BINARY.md` §7–§8.1): each test
//! takes the crate's own honest witness for a small tree, rewrites its sections as an attacker
//! holding the whole state would (node kinds swapped under the same bytes, survivors replaced,
//! prefixes and depths moved, keys of other lengths) and checks the rule that rejects it, or
//! that what is accepted claims only the tree's own values and post-state root.

use bintree::eip8297::{witness, Tree};
use bintree::fuzz::edits::check_eip8297;
use bintree::fuzz::eip8297::{applied_root, Parts};
use bintree::fuzz::rng::Rng;
use bintree::witness::Write;
use bintree::{Blake3, TreeHash};

/// A 34-byte key of zone 0x00 whose bytes 1.. start with `head`, the rest `fill`.
fn key34(head: &[u8], fill: u8) -> Vec<u8> {
    let mut k = vec![fill; 34];
    k[0] = 0;
    k[1..1 + head.len()].copy_from_slice(head);
    k
}

/// A tree of `keys`, each set to a value derived from its bytes.
fn tree_of(keys: &[&[u8]]) -> Tree<Blake3> {
    let mut tree = Tree::<Blake3>::new();
    for (i, k) in keys.iter().enumerate() {
        let mut v = [0x5a; 32];
        v[0] = i as u8 + 1;
        v[31] = k[k.len() - 1] ^ 0xa5;
        tree.insert(k, &v).unwrap();
    }
    tree
}

/// The honest witness for `writes`, checked to verify with true claims and the tree's own
/// post-state root; its pre-state root and its sections.
fn honest(tree: &mut Tree<Blake3>, writes: &[(Vec<u8>, Write)]) -> ([u8; 32], Parts) {
    let root = tree.root();
    let bytes = tree.witness(writes).unwrap();
    check_eip8297(tree, &root, &bytes).unwrap();
    (root, Parts::parse(&bytes).unwrap())
}

/// The rule name with which `p` is rejected against `root`; a forgery that verifies fails
/// the test unless it claims only the tree's truths (then `"accepted"`).
fn verdict(tree: &Tree<Blake3>, root: &[u8; 32], p: &Parts) -> &'static str {
    match check_eip8297(tree, root, &p.encode()) {
        Ok(()) => "accepted",
        Err(name) => name,
    }
}

/// Reads of each key, unchanged.
fn reads(keys: &[&[u8]]) -> Vec<(Vec<u8>, Write)> {
    keys.iter()
        .map(|k| (k.to_vec(), Write::Unchanged))
        .collect()
}

/// An other record's hash preimage: a branch record is its preimage; a leaf record
/// `0x00 ‖ len ‖ key ‖ value` hashes as `0x00 ‖ key ‖ value`.
fn record_hash(record: &[u8]) -> [u8; 32] {
    if record[0] == witness::OTHER_BRANCH {
        Blake3::hash(&[record])
    } else {
        Blake3::hash(&[&[record[0]], &record[2..]])
    }
}

#[test]
fn a_branch_preimage_sent_as_a_leaf_record_fails_on_the_tag() {
    // Root branch: prefix 0001 (bits 0..3), split at bit 4. The key 0x90.. leaves it at bit 0.
    let (x1, x2) = ([0x10u8; 34], [0x18u8; 34]);
    let mut tree = tree_of(&[&x1, &x2]);
    let k = vec![0x90u8; 34];
    let (root, p) = honest(&mut tree, &reads(&[&k]));
    assert_eq!(p.ends[0], [0, 0, witness::END_AT_BRANCH]);
    let record = p.others[0].clone();
    assert_eq!(&record[..4], &[witness::OTHER_BRANCH, 0, 4, 0x10]);
    // The same 67 bytes after the tag, read as a leaf: a 35-byte key and a 32-byte value.
    let mut q = p.clone();
    q.ends[0][2] = witness::END_AT_LEAF;
    let mut leaf = vec![witness::OTHER_LEAF, 35];
    leaf.extend_from_slice(&record[1..]);
    q.others[0] = leaf;
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
    // Kept as a branch record but the end kind says leaf: the record's tag decides.
    let mut q = p.clone();
    q.ends[0][2] = witness::END_AT_LEAF;
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
}

#[test]
fn a_leaf_preimage_sent_as_a_branch_record_fails_on_the_tag() {
    // A one-leaf tree whose key is a valid branch body prefix: u16be(8) ‖ 0x20 ‖ 32 bytes, so
    // `key ‖ value` is `encode_bit_prefix(0x20, 8 bits) ‖ left ‖ right` with both non-zero.
    let mut x = vec![0x00u8, 0x08, 0x20];
    x.extend_from_slice(&[0x33; 32]);
    let mut tree = tree_of(&[&x]);
    // A key that leaves the prefix 0x20 (bits 0..7) and ends at x's leaf.
    let mut k = x.clone();
    k[0] = 0x80;
    let (root, p) = honest(&mut tree, &reads(&[&k]));
    assert_eq!(p.ends[0], [0, 0, witness::END_AT_LEAF]);
    let leaf = p.others[0].clone();
    assert_eq!(leaf[1] as usize, x.len());
    let mut q = p.clone();
    q.ends[0][2] = witness::END_AT_BRANCH;
    let mut branch = vec![witness::OTHER_BRANCH];
    branch.extend_from_slice(&leaf[2..]);
    q.others[0] = branch;
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
}

/// Keys `b`, `c` under a left branch (prefix bits 9..15, split 16) and `a` alone on the right
/// of a root splitting at bit 8; deleting `a` makes the left branch rise.
fn left_survivor() -> (Tree<Blake3>, Vec<u8>, Vec<u8>, Vec<u8>) {
    let a = key34(&[0x90], 0x11);
    let b = key34(&[0x10, 0x00], 0x22);
    let c = key34(&[0x10, 0x80], 0x22);
    (tree_of(&[&a, &b, &c]), a, b, c)
}

#[test]
fn a_survivor_branch_sent_as_a_leaf_with_its_bytes_fails_on_the_hash() {
    let (mut tree, a, b, _) = left_survivor();
    let (root, p) = honest(&mut tree, &[(a.clone(), Write::Delete)]);
    assert_eq!(p.others.len(), 1);
    let record = p.others[0].clone();
    assert_eq!(&record[..4], &[witness::OTHER_BRANCH, 0, 7, 0x20]);
    // Read as a leaf: key `00 07 20 ‖ left` lies on side 0 below bits 0..7 = 0x00, so the
    // collapse's position check passes and only the tag in the hash can tell.
    let mut q = p.clone();
    let mut leaf = vec![witness::OTHER_LEAF, 35];
    leaf.extend_from_slice(&record[1..]);
    q.others[0] = leaf;
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
    // The survivor's left child (b's leaf) in its place: on the survivor's side, but another node.
    let mut q = p.clone();
    let mut leaf = vec![witness::OTHER_LEAF, 34];
    leaf.extend_from_slice(&b);
    leaf.extend_from_slice(tree.get(&b).unwrap());
    q.others[0] = leaf;
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
    // The deleted key's own leaf as its survivor: on the wrong side.
    let mut q = p.clone();
    let mut leaf = vec![witness::OTHER_LEAF, 34];
    leaf.extend_from_slice(&a);
    leaf.extend_from_slice(tree.get(&a).unwrap());
    q.others[0] = leaf;
    assert_eq!(verdict(&tree, &root, &q), "bw.collapse");
    // A branch record with another prefix length but the same children (shorter and longer).
    for len in [6u8, 8] {
        let mut q = p.clone();
        q.others[0][2] = len;
        assert_eq!(verdict(&tree, &root, &q), "bw.root");
    }
    // The survivor's children swapped.
    let mut q = p.clone();
    let r = &mut q.others[0];
    let (l, rr) = (r[4..36].to_vec(), r[36..68].to_vec());
    r[4..36].copy_from_slice(&rr);
    r[36..68].copy_from_slice(&l);
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
}

#[test]
fn a_survivor_leaf_sent_as_a_branch_with_its_bytes_fails_on_the_hash() {
    // Left: the leaf of x = 00 07 20 ‖ 32 bytes (a valid branch body when read after tag 0x01);
    // right: a, deleted.
    let mut x = vec![0x00u8, 0x07, 0x20];
    x.extend_from_slice(&[0x44; 32]);
    let mut a = x.clone();
    a[1] = 0x87;
    let mut tree = tree_of(&[&x, &a]);
    let (root, p) = honest(&mut tree, &[(a.clone(), Write::Delete)]);
    assert_eq!(p.others.len(), 1);
    assert_eq!(p.others[0][0], witness::OTHER_LEAF);
    let mut q = p.clone();
    let mut branch = vec![witness::OTHER_BRANCH];
    branch.extend_from_slice(&p.others[0][2..]);
    q.others[0] = branch;
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
}

#[test]
fn a_survivor_record_is_needed_exactly_where_a_side_empties() {
    let (mut tree, a, b, c) = left_survivor();
    let (root, p) = honest(&mut tree, &[(a.clone(), Write::Delete)]);
    // The survivor as a bare hash: the record the collapse needs is missing.
    let mut q = p.clone();
    let record = q.others.pop().unwrap();
    q.hashes.push(record_hash(&record));
    assert_eq!(verdict(&tree, &root, &q), "bw.collapse");
    // Both the record and its hash: a hash left unused.
    let mut q = p.clone();
    q.hashes.push(record_hash(&record));
    assert_eq!(verdict(&tree, &root, &q), "bw.count.siblings");
    // A record where no side empties (a read of a): the hash is expected, and the record is
    // left over.
    let (root, p) = honest(&mut tree, &reads(&[&a]));
    assert_eq!(p.hashes.len(), 1);
    let mut q = p.clone();
    let h = q.hashes.pop().unwrap();
    q.others.push(record.clone());
    assert_eq!(record_hash(&record), h);
    assert_eq!(verdict(&tree, &root, &q), "bw.count.siblings");
    // Deleting b and c: the left branch empties, a's leaf rises; a record of a is needed.
    let writes = [(b.clone(), Write::Delete), (c.clone(), Write::Delete)];
    let (root, p) = honest(&mut tree, &writes);
    assert_eq!(p.others.len(), 1);
    assert_eq!(&p.others[0][2..36], &a[..]);
    let mut q = p.clone();
    q.others[0][40] ^= 1;
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
}

#[test]
fn a_branch_survivor_joins_its_prefix_through_a_chain_of_collapses() {
    // Root split at bit 8: left a; right a branch (start 9) splitting at bit 16 over a branch
    // of d, e (splitting at bit 271) and the leaf f. Deleting a and f lifts the d/e branch two
    // levels: its prefix becomes bits 0..270.
    let a = key34(&[0x10], 0x01);
    let d = key34(&[0x90, 0x00], 0x02);
    let mut e = d.clone();
    e[33] ^= 1;
    let f = key34(&[0x90, 0x80], 0x03);
    let mut tree = tree_of(&[&a, &d, &e, &f]);
    let writes = [(a.clone(), Write::Delete), (f.clone(), Write::Delete)];
    let (root, p) = honest(&mut tree, &writes);
    assert_eq!(p.others.len(), 1);
    assert_eq!(p.others[0][0], witness::OTHER_BRANCH);
    // The survivor's prefix bits changed (keeping length and padding): the hash fails.
    for at in [3, 10, 35] {
        let mut q = p.clone();
        q.others[0][at] ^= 0x40;
        assert_eq!(verdict(&tree, &root, &q), "bw.root");
    }
    // With a new key set where the chain ends, leaving the joined prefix at bit 100.
    let mut g = d.clone();
    g[12] ^= 0x08;
    let mut writes = writes.to_vec();
    writes.push((g, Write::Set([9; 32])));
    honest(&mut tree, &writes);
}

#[test]
fn absence_of_a_present_key_by_moving_bytes_between_key_and_value_fails() {
    // K and a neighbour; the read of K ends at K's leaf.
    let k = key34(&[0x40, 0x01], 0x77);
    let mut n = k.clone();
    n[20] ^= 0x01;
    let mut tree = tree_of(&[&k, &n]);
    let (root, p) = honest(&mut tree, &reads(&[&k]));
    assert_eq!(p.ends[0][2], witness::END_PRESENT);
    let v = p.values[0];
    // K's leaf preimage is 0x00 ‖ K ‖ v. Other leaves whose fields cut it elsewhere: K's
    // last byte moved into the value, or v's first byte moved into the key.
    let mut cut = vec![witness::OTHER_LEAF, 33];
    cut.extend_from_slice(&k[..33]);
    cut.push(k[33]);
    cut.extend_from_slice(&v[..31]);
    let mut grown = vec![witness::OTHER_LEAF, 35];
    grown.extend_from_slice(&k);
    grown.extend_from_slice(&v);
    grown.push(0);
    for forged in [cut, grown] {
        let mut q = p.clone();
        q.flags[0] = 0;
        q.values.clear();
        q.ends[0][2] = witness::END_AT_LEAF;
        q.others.push(forged);
        assert_eq!(verdict(&tree, &root, &q), "bw.root");
    }
    // A key length field that runs into the value (66 bytes of key, no room for a value).
    let mut q = p.clone();
    q.flags[0] = 0;
    q.values.clear();
    q.ends[0][2] = witness::END_AT_LEAF;
    let mut forged = vec![witness::OTHER_LEAF, 66];
    forged.extend_from_slice(&k);
    forged.extend_from_slice(&v);
    q.others.push(forged);
    assert_eq!(verdict(&tree, &root, &q), "bw.length.truncated");
}

#[test]
fn keys_of_other_lengths_on_one_path_are_bound() {
    // A 66-byte key and a 34-byte key sharing 33 bytes, and a 1-byte key elsewhere.
    let long: Vec<u8> = (0..66u8).map(|i| i.wrapping_mul(37)).collect();
    let mut short = long[..34].to_vec();
    short[33] ^= 0x01;
    let one = [0xf0u8];
    let mut tree = tree_of(&[&long, &short, &one]);
    // Each key's prefix or extension is absent; setting one is refused by the tree and by the
    // witness (the post-state would not be prefix-free).
    for k in [
        long[..34].to_vec(),
        long[..65].to_vec(),
        short[..20].to_vec(),
        [&short[..], &[0u8; 32][..]].concat(),
        vec![0xf0, 0x00],
    ] {
        let (root, p) = honest(&mut tree, &reads(&[&k]));
        assert_ne!(p.ends[0][2], witness::END_PRESENT);
        // Presence claimed with the value of the key it shares bits with.
        let owner = [&long[..], &short[..], &one[..]]
            .into_iter()
            .find(|o| o.starts_with(&k) || k.starts_with(o))
            .unwrap();
        let mut q = p.clone();
        q.flags[0] = 1;
        q.values = vec![*tree.get(owner).unwrap()];
        q.ends[0][2] = witness::END_PRESENT;
        q.others.clear();
        assert_eq!(verdict(&tree, &root, &q), "bw.root");
        let writes = [(k.clone(), Write::Set([1; 32]))];
        assert!(applied_root(&tree, &writes).is_none());
        let bytes = tree.witness(&writes).unwrap();
        let e = witness::verify::<Blake3>(&bytes, &root).unwrap_err();
        assert_eq!(e.name(), "bw.keys.prefix", "{k:02x?}");
    }
    // The present keys relabelled to a prefix or an extension of themselves.
    let (root, p) = honest(&mut tree, &reads(&[&long]));
    for k in [long[..34].to_vec(), long[..65].to_vec()] {
        let mut q = p.clone();
        q.keys[0] = k;
        assert_eq!(verdict(&tree, &root, &q), "bw.root");
    }
    // Keys longer than the witness allows.
    let mut q = p.clone();
    q.keys[0] = [&long[..], &[0u8][..]].concat();
    assert_eq!(verdict(&tree, &root, &q), "bw.keys.length");
    // Two keys of one path in one witness: a key and its extension.
    let mut q = p.clone();
    q.keys.insert(0, long[..34].to_vec());
    q.flags.insert(0, 0);
    q.ends.insert(0, q.ends[0]);
    assert_eq!(verdict(&tree, &root, &q), "bw.keys.prefix");
}

#[test]
fn a_key_running_out_inside_a_branch_prefix_is_absent_and_cannot_pass() {
    // x, y differ at bit 300: the root's prefix is bits 0..299; a 34-byte prefix of x runs
    // out inside it, and the 37-byte one (296 bits) too.
    let x = vec![0xffu8; 66];
    let mut y = x.clone();
    y[37] ^= 0x08;
    let mut tree = tree_of(&[&x, &y]);
    for len in [34, 37] {
        let k = x[..len].to_vec();
        let (root, p) = honest(&mut tree, &reads(&[&k]));
        assert_eq!(p.ends[0], [0, 0, witness::END_AT_BRANCH]);
        // Passing instead: it has too few bits for the branch's split.
        let mut q = p.clone();
        q.ends[0] = [0, 1, witness::END_AT_LEAF];
        q.branches.push([1, 44]);
        q.others[0] = [&[witness::OTHER_LEAF, 66][..], &x[..], &[0; 32][..]].concat();
        q.hashes.push([1; 32]);
        assert_eq!(verdict(&tree, &root, &q), "bw.branch.prefix");
    }
}

#[test]
fn an_honest_key_running_out_at_a_split_verifies() {
    // The same key at a branch with an empty prefix (start 8, split 8) and with a 7-bit prefix
    // (start 1, split 8).
    for keys in [
        vec![vec![0x10u8, 0x00], vec![0x10, 0x80], vec![0x11]],
        vec![vec![0x10u8, 0x00], vec![0x10, 0x80], vec![0x90]],
    ] {
        let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        let mut tree = tree_of(&refs);
        let (root, p) = honest(&mut tree, &reads(&[&[0x10]]));
        assert_eq!(p.ends[0][2], witness::END_AT_BRANCH);
        assert_eq!(verdict(&tree, &root, &p), "accepted");
    }
}

#[test]
fn a_key_that_passes_a_branch_cannot_end_at_it() {
    // x, y, z: the root (prefix bits 0..7, split 8) over x and a branch of y, z.
    let x = key34(&[0x10], 0x01);
    let y = key34(&[0x90, 0x00], 0x02);
    let z = key34(&[0x90, 0x80], 0x03);
    let mut tree = tree_of(&[&x, &y, &z]);
    // The root branch's record, from the read of a key that leaves its prefix.
    let w = vec![0x80u8; 34];
    let (_, pw) = honest(&mut tree, &reads(&[&w]));
    let root_record = pw.others[0].clone();
    // The read of y: depth 2, present. Claimed to end at the root instead, absent.
    let (root, p) = honest(&mut tree, &reads(&[&y]));
    assert_eq!(p.ends[0], [0, 2, witness::END_PRESENT]);
    let mut q = p.clone();
    q.flags[0] = 0;
    q.values.clear();
    q.ends[0] = [0, 0, witness::END_AT_BRANCH];
    q.branches.clear();
    q.hashes.clear();
    q.others = vec![root_record.clone()];
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
    // With x passing the root, y claimed to end at it.
    let (root, p) = honest(&mut tree, &reads(&[&x, &y]));
    assert_eq!(p.ends[0], [0, 1, witness::END_PRESENT]);
    let mut q = p.clone();
    q.flags[1] = 0;
    q.values.truncate(1);
    q.ends[1] = [0, 0, witness::END_AT_BRANCH];
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
    // y claimed one level deeper than it is, through a branch entry the walk did not need.
    let (root, p) = honest(&mut tree, &reads(&[&y]));
    let mut q = p.clone();
    q.ends[0][1] = 3;
    q.branches.push([0, 1]);
    assert_eq!(verdict(&tree, &root, &q), "bw.count.siblings");
    q.hashes.insert(0, [1; 32]);
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
}

#[test]
fn an_insert_cannot_be_shown_passing_a_prefix_it_splits() {
    // x and y differ at bit 271 below a root prefix of bits 0..270; d leaves it at bit 100.
    let x = key34(&[0x33], 0x44);
    let mut y = x.clone();
    y[33] ^= 1;
    let mut tree = tree_of(&[&x, &y]);
    let mut d = x.clone();
    d[12] ^= 0x08;
    let writes = [(d.clone(), Write::Set([6; 32]))];
    let (root, p) = honest(&mut tree, &writes);
    assert_eq!(p.ends[0], [0, 0, witness::END_AT_BRANCH]);
    // The root claimed to split at bit 100 (where d leaves), d's side ending at a leaf (d's
    // own, relabelled as another's; or an invented one) and the real root standing as the
    // other side's hash.
    let mut q = p.clone();
    q.ends[0] = [0, 1, witness::END_AT_LEAF];
    q.branches = vec![100u16.to_be_bytes()];
    q.others = vec![[&[witness::OTHER_LEAF, 34][..], &d[..], &[1; 32][..]].concat()];
    q.hashes = vec![record_hash(&p.others[0])];
    assert_eq!(verdict(&tree, &root, &q), "bw.other.touched");
    let mut e = d.clone();
    e[33] ^= 0x80;
    q.others = vec![[&[witness::OTHER_LEAF, 34][..], &e[..], &[1; 32][..]].concat()];
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
    // The record's prefix shortened to end where d leaves: d follows it and must not end.
    let mut q = p.clone();
    let rec = &mut q.others[0];
    rec[1..3].copy_from_slice(&100u16.to_be_bytes());
    let body: Vec<u8> = rec[3 + 34..].to_vec();
    rec.truncate(3);
    rec.extend_from_slice(&x[..13]);
    rec[3 + 12] &= 0xf0;
    rec.extend_from_slice(&body);
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
}

#[test]
fn records_swapped_between_end_nodes_or_kinds_fail() {
    // Left of the root (split at bit 8): a branch of x1, x2 with a 10-bit prefix (bits 9..18);
    // right: a branch of y, z splitting at bit 9. kb leaves the left prefix at bit 10; ky and
    // kz end at the leaves of y and z.
    let x1 = key34(&[0x10, 0x00], 0x01);
    let x2 = key34(&[0x10, 0x10], 0x01);
    let y = key34(&[0x90], 0x02);
    let z = key34(&[0xd0], 0x03);
    let mut tree = tree_of(&[&x1, &x2, &y, &z]);
    let kb = key34(&[0x30], 0x04);
    let mut ky = y.clone();
    ky[30] ^= 1;
    let mut kz = z.clone();
    kz[30] ^= 1;
    let (root, p) = honest(&mut tree, &reads(&[&kb, &ky, &kz]));
    assert_eq!(p.others.len(), 3);
    assert_eq!(p.others[0][..3], [witness::OTHER_BRANCH, 0, 10]);
    let mut q = p.clone();
    q.others.swap(1, 2);
    assert_eq!(verdict(&tree, &root, &q), "bw.other.prefix");
    let mut q = p.clone();
    q.others.swap(0, 1);
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
    // An unknown tag; a branch record with padding bits set, a zero child, an over-long prefix.
    let at_branch = 0;
    let mut q = p.clone();
    q.others[at_branch][0] = 2;
    assert_eq!(verdict(&tree, &root, &q), "bw.end.kind");
    let rec = &p.others[at_branch];
    let len = usize::from(u16::from_be_bytes([rec[1], rec[2]]));
    let mut q = p.clone();
    q.others[at_branch][2 + len.div_ceil(8)] |= 1;
    assert_eq!(verdict(&tree, &root, &q), "bw.branch.prefix");
    let mut q = p.clone();
    let n = q.others[at_branch].len();
    q.others[at_branch][n - 32..].fill(0);
    assert_eq!(verdict(&tree, &root, &q), "bw.hash.zero");
    let mut q = p.clone();
    q.others[at_branch][1..3].copy_from_slice(&529u16.to_be_bytes());
    assert_eq!(verdict(&tree, &root, &q), "bw.branch.prefix");
    // A leaf record's key length 0 or above 66.
    for l in [0u8, 67] {
        let mut q = p.clone();
        q.others[1][1] = l;
        assert_eq!(verdict(&tree, &root, &q), "bw.keys.length");
    }
    // One record too many, or too few.
    let mut q = p.clone();
    q.others.push(p.others[0].clone());
    assert_eq!(verdict(&tree, &root, &q), "bw.count.others");
    let mut q = p.clone();
    q.others.pop();
    assert_eq!(verdict(&tree, &root, &q), "bw.count.others");
}

#[test]
fn the_branches_section_is_bound() {
    let (mut tree, a, b, c) = left_survivor();
    let (root, p) = honest(&mut tree, &reads(&[&a, &b, &c]));
    assert_eq!(p.branches, vec![[0, 8], [0, 7]]);
    let mut q = p.clone();
    q.branches.swap(0, 1);
    // The root split at bit 7 sends all three keys left, where a (present, depth 1) meets a
    // branch it does not leave.
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
    let mut q = p.clone();
    q.branches.pop();
    assert_eq!(verdict(&tree, &root, &q), "bw.end.depth");
    let mut q = p.clone();
    q.branches.push([0, 0]);
    assert_eq!(verdict(&tree, &root, &q), "bw.end.depth");
    // A prefix length the passing keys disagree on (b and c differ at bit 16).
    let mut q = p.clone();
    q.branches[1] = [0, 8];
    assert_eq!(verdict(&tree, &root, &q), "bw.branch.prefix");
    let mut q = p.clone();
    q.branches[1] = [2, 17];
    assert_eq!(verdict(&tree, &root, &q), "bw.branch.prefix");
    // A shorter prefix the keys agree on (bits 9..14): both keys then end at one node...
    let mut q = p.clone();
    q.branches[1] = [0, 6];
    assert_eq!(verdict(&tree, &root, &q), "bw.end.group");
    // ... unless a further branch with an empty prefix parts them at bit 16 and a hash
    // stands for the empty side of bit 15: another tree, another root.
    q.branches.push([0, 0]);
    q.ends[0][1] = 3;
    q.ends[1][1] = 3;
    q.hashes = vec![[1; 32]];
    assert_eq!(verdict(&tree, &root, &q), "bw.root");
    // No key: branch entries and records are left over.
    let none: [(Vec<u8>, Write); 0] = [];
    let (root, p) = honest(&mut tree, &none);
    let mut q = p.clone();
    q.branches.push([0, 8]);
    assert_eq!(verdict(&tree, &root, &q), "bw.end.depth");
    let mut q = p.clone();
    q.others
        .push([&[witness::OTHER_LEAF, 34][..], &a[..], &[1; 32][..]].concat());
    assert_eq!(verdict(&tree, &root, &q), "bw.count.others");
}

#[test]
fn flags_and_values_cannot_claim_what_the_ends_deny() {
    let (mut tree, a, b, _) = left_survivor();
    let mut n = a.clone();
    n[33] ^= 0x40;
    // Delete of an absent key: a forged pre-value under an end at another key's leaf.
    let (root, p) = honest(&mut tree, &reads(&[&n]));
    assert_eq!(p.ends[0][2], witness::END_AT_LEAF);
    let mut q = p.clone();
    q.flags[0] = 0x05;
    q.values = vec![[3; 32]];
    assert_eq!(verdict(&tree, &root, &q), "bw.end.absent_value");
    let mut q = p.clone();
    q.flags[0] = 0x04;
    assert_eq!(verdict(&tree, &root, &q), "bw.keys.flags");
    // A present key's delete turned into a set to its own value, or its pre-value dropped.
    let (root, p) = honest(&mut tree, &[(b.clone(), Write::Delete)]);
    let mut q = p.clone();
    q.flags[0] = 0x03;
    q.values.push(q.values[0]);
    assert_eq!(verdict(&tree, &root, &q), "bw.keys.noop");
    let mut q = p.clone();
    q.flags[0] = 0x02;
    assert_eq!(verdict(&tree, &root, &q), "bw.end.present_absent");
    // The same key twice (a read and a delete).
    let mut q = p.clone();
    q.keys.push(b.clone());
    q.flags.push(0x01);
    q.ends.push(q.ends[0]);
    q.values.push(q.values[0]);
    assert_eq!(verdict(&tree, &root, &q), "bw.keys.order");
}

/// A key of 1 to 66 bytes: random, or near `base` (a prefix of it, an extension, or a copy of
/// its first bytes with one bit flipped), for trees whose keys share long prefixes across
/// lengths.
fn mixed_key(rng: &mut Rng, base: Option<&[u8]>) -> Vec<u8> {
    let lengths = [1usize, 2, 3, 33, 34, 35, 65, 66];
    let len = if rng.below(3) == 0 {
        1 + rng.below(66)
    } else {
        lengths[rng.below(lengths.len())]
    };
    let mut k: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    if let Some(base) = base {
        match rng.below(4) {
            0 => return base[..1 + rng.below(base.len())].to_vec(),
            1 => {
                let mut e = base.to_vec();
                for _ in 0..1 + rng.below(3) {
                    e.push(rng.next_u64() as u8);
                }
                e.truncate(66);
                return e;
            }
            _ => {
                let n = len.min(base.len());
                k[..n].copy_from_slice(&base[..n]);
                let bit = rng.below(8 * len);
                k[bit / 8] ^= 0x80 >> (bit % 8);
            }
        }
    }
    k
}

#[test]
fn keys_of_mixed_lengths_verify_and_mutants_claim_only_truths() {
    let mut rng = Rng::new(829_766);
    let (mut verified, mut refused, mut accepted) = (0, 0, 0);
    for round in 0..3000 {
        let mut tree = Tree::<Blake3>::new();
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for _ in 0..rng.below(20) {
            let near = (!keys.is_empty() && rng.below(4) != 0)
                .then(|| keys[rng.below(keys.len())].clone());
            let k = mixed_key(&mut rng, near.as_deref());
            if !keys.contains(&k) && tree.insert(&k, &rng.bytes()).is_ok() {
                keys.push(k);
            }
        }
        let mut writes: Vec<(Vec<u8>, Write)> = Vec::new();
        for _ in 0..1 + rng.below(8) {
            let k = match rng.below(3) {
                0 if !keys.is_empty() => keys[rng.below(keys.len())].clone(),
                1 if !keys.is_empty() => {
                    let base = keys[rng.below(keys.len())].clone();
                    mixed_key(&mut rng, Some(&base))
                }
                _ => mixed_key(&mut rng, None),
            };
            if !writes.iter().any(|(w, _)| *w == k) {
                let w = match rng.below(4) {
                    0 => Write::Unchanged,
                    1 => Write::Delete,
                    _ => Write::Set(rng.bytes()),
                };
                writes.push((k, w));
            }
        }
        if rng.below(3) == 0 {
            for k in &keys {
                if !writes.iter().any(|(w, _)| w == k) && rng.below(3) != 0 {
                    writes.push((k.clone(), Write::Delete));
                }
            }
        }
        let root = tree.root();
        let Ok(bytes) = tree.witness(&writes) else {
            continue;
        };
        match check_eip8297(&tree, &root, &bytes) {
            Ok(()) => verified += 1,
            Err(name) => {
                assert!(
                    applied_root(&tree, &writes).is_none(),
                    "{name} {writes:02x?}"
                );
                assert_eq!(name, "bw.keys.prefix");
                refused += 1;
            }
        }
        if round % 4 == 0 {
            for _ in 0..100 {
                let mut b = bytes.clone();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(b.len());
                    b[at] ^= 1 << rng.below(8);
                }
                accepted += usize::from(check_eip8297(&tree, &root, &b).is_ok());
            }
        }
    }
    assert!(verified > 1000 && refused > 100 && accepted > 0);
}
