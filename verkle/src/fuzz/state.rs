//! The honest pre-state of the structure-aware targets: a small deterministic tree whose
//! stems share prefixes (internal nodes below the root, leaves at depths 1 to 6), a lone
//! leaf under its own first byte, and keys to read and write that are present, absent in a
//! present stem, absent under an empty slot and absent under another stem's leaf.

use std::collections::BTreeMap;

use witness::keys::{TreeKey, Value, STEM_LEN};

use super::choices::bytes32;

/// First byte of each group's stems: three groups under 0x10, one under 0x80, two under
/// 0xc3, and a lone leaf under 0xe0.
const GROUP_FIRST: [u8; 7] = [0x10, 0x10, 0x10, 0x80, 0xc3, 0xc3, 0xe0];
/// The suffixes every stem holds.
const SUFFIXES: [u8; 5] = [0, 1, 2, 64, 200];

fn key(stem: &[u8; STEM_LEN], suffix: u8) -> TreeKey {
    let mut k = [0u8; 32];
    k[..STEM_LEN].copy_from_slice(stem);
    k[STEM_LEN] = suffix;
    k
}

/// The stems of the state, ascending.
pub fn stems() -> Vec<[u8; STEM_LEN]> {
    let mut out = Vec::new();
    for (g, first) in GROUP_FIRST.iter().enumerate() {
        let mut base = [0u8; STEM_LEN];
        base.copy_from_slice(&bytes32(g as u64)[..STEM_LEN]);
        base[0] = *first;
        out.push(base);
        if g == GROUP_FIRST.len() - 1 {
            break;
        }
        // Siblings deeper down: differing at byte 2 and at byte 5.
        for at in [2, 5] {
            let mut s = base;
            s[at] ^= 0x5a;
            out.push(s);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The whole pre-state: every stem with [`SUFFIXES`], deterministic values.
pub fn state() -> BTreeMap<TreeKey, Value> {
    let mut out = BTreeMap::new();
    for (i, stem) in stems().iter().enumerate() {
        for (j, suffix) in SUFFIXES.iter().enumerate() {
            out.insert(key(stem, *suffix), bytes32(1000 + 16 * i as u64 + j as u64));
        }
    }
    out
}

/// Keys a block might name that the state does not hold: in a present stem, under an empty
/// slot of the root, under an empty slot of an internal node, and past another stem's leaf
/// (a stem sharing a leaf's path prefix), the lone leaf's included.
pub fn absent_keys() -> Vec<TreeKey> {
    let s = stems();
    let mut out = Vec::new();
    if let (Some(first), Some(last)) = (s.first(), s.last()) {
        out.push(key(first, 100));
        let mut empty_root_slot = *first;
        empty_root_slot[0] = 0x55;
        out.push(key(&empty_root_slot, 0));
        let mut empty_inner_slot = *first;
        empty_inner_slot[1] ^= 0xff;
        out.push(key(&empty_inner_slot, 1));
        let mut past_leaf = *first;
        past_leaf[20] ^= 0x01;
        out.push(key(&past_leaf, 0));
        let mut past_lone_leaf = *last;
        past_lone_leaf[STEM_LEN - 1] ^= 0x80;
        out.push(key(&past_lone_leaf, 2));
    }
    out
}

/// The present keys of stem `i` (of [`stems`]).
pub fn stem_keys(i: usize) -> Vec<TreeKey> {
    stems()
        .get(i)
        .map(|s| SUFFIXES.iter().map(|x| key(s, *x)).collect())
        .unwrap_or_default()
}
