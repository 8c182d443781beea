//! A small EIP-8297 tree of keys like the embedding's (zone 0x00, 34 bytes; zone 0xff, 66
//! bytes), half of them near an earlier key (a long shared prefix: deep paths and
//! prefix-compressed branches), and a block over it: reads, sets and deletes of present keys,
//! of keys near them (inserts that split a compressed prefix) and of random keys, and at times
//! the deletion of most of the tree (branches collapsing in chains).

use std::vec::Vec;

use crate::eip8297::Tree;
use crate::fuzz::rng::Rng;
use crate::witness::Write;
use crate::TreeHash;

/// A tree, the keys it was built from, and a block of writes over it.
#[derive(Clone, Debug)]
pub struct Scenario<H: TreeHash> {
    /// The pre-state tree.
    pub tree: Tree<H>,
    /// Its keys, in the order they were inserted.
    pub keys: Vec<Vec<u8>>,
    /// The block: distinct keys, each read, set or deleted.
    pub writes: Vec<(Vec<u8>, Write)>,
}

/// A key like the embedding's: zone 0x00 (34 bytes) or 0xff (66 bytes), a random middle, or,
/// given `near`, a copy of it with one bit after the zone byte flipped and the bits after it
/// random (a long shared prefix).
pub fn random_key(rng: &mut Rng, near: Option<&[u8]>) -> Vec<u8> {
    if let Some(base) = near.filter(|b| b.len() > 1) {
        let mut k = base.to_vec();
        let bit = rng.below(8 * k.len() - 8) + 8;
        k[bit / 8] ^= 0x80 >> (bit % 8);
        for i in bit + 1..8 * k.len() {
            if rng.below(2) == 0 {
                k[i / 8] ^= 0x80 >> (i % 8);
            }
        }
        return k;
    }
    if rng.below(2) == 0 {
        let mut k = std::vec![0u8; 34];
        k[1..].copy_from_slice(&rng.bytes::<33>());
        k
    } else {
        let mut k = std::vec![0xffu8; 66];
        for b in &mut k[1..] {
            *b = rng.next_u64() as u8;
        }
        k
    }
}

/// Up to 29 keys and a block of 1 to 12 distinct keys (a quarter read, a quarter deleted,
/// half set); one block in four deletes most of the other keys of the tree as well.
pub fn scenario<H: TreeHash>(rng: &mut Rng) -> Scenario<H> {
    let mut tree = Tree::<H>::new();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for _ in 0..rng.below(30) {
        let near =
            (!keys.is_empty() && rng.below(2) == 0).then(|| keys[rng.below(keys.len())].clone());
        let k = random_key(rng, near.as_deref());
        tree.insert(&k, &rng.bytes())
            .expect("keys of one zone have one length, so the keys are prefix-free");
        keys.push(k);
    }
    let mut writes: Vec<(Vec<u8>, Write)> = Vec::new();
    for _ in 0..1 + rng.below(12) {
        let k = match rng.below(3) {
            0 if !keys.is_empty() => keys[rng.below(keys.len())].clone(),
            1 if !keys.is_empty() => {
                let base = keys[rng.below(keys.len())].clone();
                random_key(rng, Some(&base))
            }
            _ => random_key(rng, None),
        };
        if writes.iter().any(|(w, _)| *w == k) {
            continue;
        }
        let w = match rng.below(4) {
            0 => Write::Unchanged,
            1 => Write::Delete,
            _ => Write::Set(rng.bytes()),
        };
        writes.push((k, w));
    }
    if rng.below(4) == 0 {
        for k in &keys {
            if !writes.iter().any(|(w, _)| w == k) && rng.below(4) != 0 {
                writes.push((k.clone(), Write::Delete));
            }
        }
    }
    Scenario { tree, keys, writes }
}

/// The tree's own root after `writes` (sets and deletes), or `None` when the tree refuses
/// them (a key and a present key that are not prefix-free).
pub fn applied_root<H: TreeHash + Clone>(
    tree: &Tree<H>,
    writes: &[(Vec<u8>, Write)],
) -> Option<[u8; 32]> {
    let mut t = tree.clone();
    t.apply(writes.iter().filter_map(|(k, w)| match w {
        Write::Set(v) => Some((k.clone(), Some(*v))),
        Write::Delete => Some((k.clone(), None)),
        Write::Unchanged => None,
    }))
    .ok()?;
    Some(t.root())
}
