//! A small EIP-7864 tree whose stems are random or share long prefixes with each other (deep
//! paths, stem nodes deep below internal nodes), and a block over it: present keys, absent
//! slots of present stems, new stems (random, and near existing ones, splitting below them).

use std::vec::Vec;

use crate::eip7864::Tree;
use crate::fuzz::rng::Rng;
use crate::witness::Write;
use crate::TreeHash;

/// A tree, the stems it was built from, and a block of writes over it.
#[derive(Clone, Debug)]
pub struct Scenario<H: TreeHash> {
    /// The pre-state tree.
    pub tree: Tree<H>,
    /// Its stems, in the order they were made.
    pub stems: Vec<[u8; 31]>,
    /// The block: distinct keys, each read or set.
    pub writes: Vec<([u8; 32], Write)>,
}

/// The key of `stem` at sub-index `sub`.
pub fn key(stem: &[u8; 31], sub: u8) -> [u8; 32] {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = sub;
    k
}

/// `fill` with its first `bits` bits taken from `base` and bit `bits` the opposite of
/// `base`'s: a stem that meets `base` at depth `bits` (equal to `base` when `bits` is 248).
pub fn near_with(base: &[u8; 31], bits: usize, fill: [u8; 31]) -> [u8; 31] {
    let mut s = fill;
    let bits = bits.min(248);
    for i in 0..bits {
        let mask = 0x80u8 >> (i % 8);
        s[i / 8] = (s[i / 8] & !mask) | (base[i / 8] & mask);
    }
    if bits < 248 {
        let mask = 0x80u8 >> (bits % 8);
        s[bits / 8] = (s[bits / 8] & !mask) | (!base[bits / 8] & mask);
    }
    s
}

/// A stem that agrees with `base` on its first `bits` bits and differs at bit `bits`.
pub fn near(base: &[u8; 31], bits: usize, rng: &mut Rng) -> [u8; 31] {
    near_with(base, bits, rng.bytes())
}

/// Up to 39 stems (half of them near an earlier one) with 1 to 4 values each, and 1 to 12
/// distinct keys: present stems at any sub-index, new stems near present ones, random stems;
/// a third read, the rest set.
pub fn scenario<H: TreeHash>(rng: &mut Rng) -> Scenario<H> {
    let mut tree = Tree::<H>::new();
    let n = rng.below(40);
    let mut stems: Vec<[u8; 31]> = Vec::new();
    for _ in 0..n {
        let s = if stems.is_empty() || rng.below(2) == 0 {
            rng.bytes()
        } else {
            let base = stems[rng.below(stems.len())];
            near(&base, rng.below(248), rng)
        };
        stems.push(s);
        for _ in 0..1 + rng.below(4) {
            tree.insert(&key(&s, rng.next_u64() as u8), &rng.bytes())
                .expect("a 32-byte key");
        }
    }
    let mut writes: Vec<([u8; 32], Write)> = Vec::new();
    for _ in 0..1 + rng.below(12) {
        let k = match rng.below(4) {
            0 if !stems.is_empty() => key(&stems[rng.below(stems.len())], rng.next_u64() as u8),
            1 if !stems.is_empty() => {
                let base = stems[rng.below(stems.len())];
                key(&near(&base, rng.below(248), rng), rng.next_u64() as u8)
            }
            _ => key(&rng.bytes(), rng.next_u64() as u8),
        };
        if writes.iter().any(|(w, _)| *w == k) {
            continue;
        }
        let w = match rng.below(3) {
            0 => Write::Unchanged,
            _ => Write::Set(rng.bytes()),
        };
        writes.push((k, w));
    }
    Scenario {
        tree,
        stems,
        writes,
    }
}

/// The tree's own root after the sets of `writes` (reads and deletes ignored: EIP-7864 has
/// no deletion).
pub fn applied_root<H: TreeHash + Clone>(tree: &Tree<H>, writes: &[([u8; 32], Write)]) -> [u8; 32] {
    let mut t = tree.clone();
    t.apply(writes.iter().filter_map(|(k, w)| match w {
        Write::Set(v) => Some((*k, *v)),
        _ => None,
    }))
    .expect("32-byte keys");
    t.root()
}
