//! A hostile prover's structural edits of an EIP-7864 witness, one per call, each on one
//! section of `spec/BINARY.md` §3 and chosen by the fuzzer's input: a key relabelled, a flag
//! changed (its values added or removed with it), a value replaced, an end record's depth or
//! kind changed, an other-stem record changed (stem, sub-index, value), added or dropped, an
//! anchor changed (depth, stem, sub-index, value), added or dropped, a hash replaced, dropped
//! or duplicated, a bitmap bit flipped (its hash added or removed, or not), the slot count
//! changed, a key added or removed, two items of a section swapped. Material is taken from
//! the true tree where a prover would take it (its stems, its values, the witness's hashes).

use super::parts::{values_of, Parts};
use super::scenario::{key, near_with, Scenario};
use crate::fuzz::choices::Choices;
use crate::fuzz::sections::{self, insert_at, reflag, remove_at, swap_at};
use crate::TreeHash;

/// A stem chosen by `c`: one of the tree's, a key's of the witness, one near either, or any.
fn stem_choice<H: TreeHash>(c: &mut Choices, p: &Parts, s: &Scenario<H>) -> [u8; 31] {
    let own = |c: &mut Choices| -> [u8; 31] {
        let mut st = [0u8; 31];
        if let Some(k) = p.keys.get(c.below(p.keys.len())) {
            st.copy_from_slice(&k[..31]);
        }
        st
    };
    let tree = |c: &mut Choices| s.stems.get(c.below(s.stems.len())).copied();
    match c.below(5) {
        0 => tree(c).unwrap_or_else(|| own(c)),
        1 => own(c),
        2 => {
            let base = tree(c).unwrap_or_else(|| own(c));
            let bits = c.below(249);
            let fill: [u8; 31] = c.value()[..31].try_into().unwrap_or([0; 31]);
            near_with(&base, bits, fill)
        }
        3 => {
            let base = own(c);
            let bits = c.below(249);
            let fill: [u8; 31] = c.value()[..31].try_into().unwrap_or([0; 31]);
            near_with(&base, bits, fill)
        }
        _ => c.value()[..31].try_into().unwrap_or([0; 31]),
    }
}

/// A value chosen by `c` for `key`: its true value, another value of the witness, or a fresh
/// one.
fn value_choice<H: TreeHash>(
    c: &mut Choices,
    p: &Parts,
    s: &Scenario<H>,
    key: &[u8; 32],
) -> [u8; 32] {
    sections::value_choice(c, &p.values, s.tree.get(key).copied())
}

/// A hash chosen by `c`: one of the witness's, or a fresh one.
fn hash_choice(c: &mut Choices, p: &Parts) -> [u8; 32] {
    match p.hashes.get(c.below(p.hashes.len() + 1)) {
        Some(h) => *h,
        None => c.value(),
    }
}

/// One edit of `p`, chosen by `c`, with material from the scenario's tree.
pub fn edit<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    match c.below(10) {
        0 => relabel(c, p, s),
        1 => flags(c, p, s),
        2 => {
            let i = c.below(p.values.len());
            let k = p
                .keys
                .get(c.below(p.keys.len()))
                .copied()
                .unwrap_or([0; 32]);
            let v = if c.flag() {
                value_choice(c, p, s, &k)
            } else {
                let mut v = p.values.get(i).copied().unwrap_or([0; 32]);
                c.flip(&mut v);
                v
            };
            if let Some(x) = p.values.get_mut(i) {
                *x = v;
            }
        }
        3 => {
            let e = c.below(p.ends.len());
            let op = c.below(4);
            let arg = c.byte();
            if let Some(end) = p.ends.get_mut(e) {
                match op {
                    0 => end[0] = end[0].wrapping_add(1),
                    1 => end[0] = end[0].wrapping_sub(1),
                    2 => end[0] = arg,
                    _ => end[1] = arg % 4,
                }
            }
        }
        4 if c.flag() => others(c, p, s),
        4 => anchors(c, p, s),
        5 => hashes(c, p),
        6 => {
            let slot = c.below(p.slots);
            let keep = c.flag();
            let was = p.bit(slot);
            let rank = p.rank(slot);
            p.flip_bit(slot);
            if keep {
                if was {
                    remove_at(&mut p.hashes, rank);
                } else {
                    let h = hash_choice(c, p);
                    insert_at(&mut p.hashes, rank, h);
                }
            }
        }
        7 => match c.below(3) {
            0 => {
                p.slots += 1;
                p.bitmap.resize(p.slots.div_ceil(8), 0);
            }
            1 => {
                if p.slots > 0 {
                    let last = p.slots - 1;
                    if p.bit(last) {
                        let rank = p.rank(last);
                        p.flip_bit(last);
                        remove_at(&mut p.hashes, rank);
                    }
                    p.slots = last;
                    p.bitmap.truncate(p.slots.div_ceil(8));
                }
            }
            _ => p.slots = p.slots.wrapping_add(1 + c.below(16)),
        },
        8 => keys(c, p, s),
        _ => {
            let (a, b) = (c.byte() as usize, c.byte() as usize);
            match c.below(5) {
                0 => swap_at(&mut p.keys, a, b),
                1 => swap_at(&mut p.ends, a, b),
                2 => swap_at(&mut p.others, a, b),
                3 => swap_at(&mut p.values, a, b),
                _ => swap_at(&mut p.hashes, a, b),
            }
        }
    }
}

/// A key relabelled: a bit flipped, another sub-index, another stem (the tree's, a key's,
/// near one), or another key's stem with its own sub-index.
fn relabel<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    let i = c.below(p.keys.len());
    let Some(mut k) = p.keys.get(i).copied() else {
        return;
    };
    match c.below(3) {
        0 => c.flip(&mut k),
        1 => k[31] = c.byte(),
        _ => k = key(&stem_choice(c, p, s), k[31]),
    }
    p.keys[i] = k;
}

/// A flags byte changed (a delete bit included), its values added or removed with it.
fn flags<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    let i = c.below(p.keys.len());
    let new = c.byte() & 0x07;
    let Some(&old) = p.flags.get(i) else {
        return;
    };
    let k = p.keys[i];
    let v = p.value_index(i);
    reflag(&mut p.values, v, old, new, |values| {
        sections::value_choice(c, values, s.tree.get(&k).copied())
    });
    p.flags[i] = new;
}

/// An other-stem record's leaf: the first present one of `stem` in the tree (its sub-index
/// and value), or a sub-index and value chosen by `c`.
fn other_leaf<H: TreeHash>(
    c: &mut Choices,
    p: &Parts,
    s: &Scenario<H>,
    stem: &[u8; 31],
) -> [u8; 33] {
    let mut leaf = [0u8; 33];
    let first = (0..=255u8).find_map(|i| s.tree.get(&key(stem, i)).map(|v| (i, *v)));
    match first {
        Some((i, v)) if c.flag() => {
            leaf[0] = i;
            leaf[1..].copy_from_slice(&v);
        }
        _ => {
            leaf[0] = c.byte();
            leaf[1..].copy_from_slice(&sections::value_choice(c, &p.values, None));
        }
    }
    leaf
}

/// An other-stem record added (a tree's or key's stem with its first present leaf, or a
/// chosen sub-index and value), or one changed (its stem, sub-index or value, a bit flipped
/// or replaced), dropped or duplicated.
fn others<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    let o = c.below(p.others.len() + 1);
    if o == p.others.len() {
        let stem = stem_choice(c, p, s);
        let mut record = [0u8; 64];
        record[..31].copy_from_slice(&stem);
        record[31..].copy_from_slice(&other_leaf(c, p, s, &stem));
        let at = c.below(p.others.len() + 1);
        insert_at(&mut p.others, at, record);
        return;
    }
    match c.below(7) {
        0 => c.flip(&mut p.others[o][..31]),
        1 => c.flip(&mut p.others[o][31..32]),
        2 => c.flip(&mut p.others[o][32..]),
        3 => p.others[o][31] = c.byte(),
        4 => {
            let v = sections::value_choice(c, &p.values, None);
            p.others[o][32..].copy_from_slice(&v);
        }
        5 => {
            p.others.remove(o);
        }
        _ => {
            let r = p.others[o];
            p.others.insert(o, r);
        }
    }
}

/// An anchor added (a tree's or key's stem at a chosen depth with its first present leaf, or
/// a chosen sub-index and value), or one changed (its depth moved by one or replaced, its
/// stem, sub-index or value changed), dropped or duplicated.
fn anchors<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    let a = c.below(p.anchors.len() + 1);
    if a == p.anchors.len() {
        let stem = stem_choice(c, p, s);
        let mut anchor = [0u8; 65];
        anchor[0] = c.byte() % 250;
        anchor[1..32].copy_from_slice(&stem);
        anchor[32..].copy_from_slice(&other_leaf(c, p, s, &stem));
        let at = c.below(p.anchors.len() + 1);
        insert_at(&mut p.anchors, at, anchor);
        return;
    }
    match c.below(8) {
        0 => p.anchors[a][0] = p.anchors[a][0].wrapping_add(1),
        1 => p.anchors[a][0] = p.anchors[a][0].wrapping_sub(1),
        2 => p.anchors[a][0] = c.byte(),
        3 => {
            let stem = stem_choice(c, p, s);
            p.anchors[a][1..32].copy_from_slice(&stem);
            let leaf = other_leaf(c, p, s, &stem);
            p.anchors[a][32..].copy_from_slice(&leaf);
        }
        4 => c.flip(&mut p.anchors[a][1..]),
        5 => {
            let v = sections::value_choice(c, &p.values, None);
            p.anchors[a][33..].copy_from_slice(&v);
        }
        6 => {
            p.anchors.remove(a);
        }
        _ => {
            let r = p.anchors[a];
            p.anchors.insert(a, r);
        }
    }
}

/// A hash replaced (fresh, another of the witness's, zero, a bit flipped), dropped or
/// duplicated, with its bitmap bit cleared or set to match, or not.
fn hashes(c: &mut Choices, p: &mut Parts) {
    let j = c.below(p.hashes.len());
    let op = c.below(6);
    let keep = c.flag();
    let other = hash_choice(c, p);
    let Some(mut h) = p.hashes.get(j).copied() else {
        p.hashes.push(other);
        return;
    };
    let slot = (0..p.slots).filter(|&t| p.bit(t)).nth(j);
    match op {
        0 => h = other,
        1 => h = [0; 32],
        2 => c.flip(&mut h),
        3 => {
            p.hashes.remove(j);
            if let (true, Some(t)) = (keep, slot) {
                p.flip_bit(t);
            }
            return;
        }
        4 => {
            p.hashes.insert(j, h);
            // The next empty slot after this hash's holds the copy.
            if let (true, Some(t)) = (keep, slot) {
                if let Some(free) = (t + 1..p.slots).find(|&u| !p.bit(u)) {
                    p.flip_bit(free);
                }
            }
            return;
        }
        _ => {
            let n = p.hashes.len();
            p.hashes.swap(j, c.below(n));
            return;
        }
    }
    p.hashes[j] = h;
}

/// A key removed (with its flags and values, and its end record when its stem goes with it),
/// or one added (flags 0, a read of an absence; an end record for a new stem, or not).
fn keys<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    if c.flag() && !p.keys.is_empty() {
        let i = c.below(p.keys.len());
        let v = p.value_index(i);
        let e = p.stem_index(i);
        let alone = |j: Option<&[u8; 32]>| j.is_none_or(|k| k[..31] != p.keys[i][..31]);
        let lone = alone(i.checked_sub(1).and_then(|j| p.keys.get(j))) && alone(p.keys.get(i + 1));
        for _ in 0..values_of(p.flags[i]) {
            remove_at(&mut p.values, v);
        }
        p.keys.remove(i);
        p.flags.remove(i);
        if lone && c.flag() {
            remove_at(&mut p.ends, e);
        }
        return;
    }
    let k = key(&stem_choice(c, p, s), c.byte());
    let at = if c.flag() {
        p.keys.partition_point(|x| *x < k)
    } else {
        c.below(p.keys.len() + 1)
    };
    let new_stem = !p.keys.iter().any(|x| x[..31] == k[..31]);
    insert_at(&mut p.keys, at, k);
    insert_at(&mut p.flags, at, 0);
    if new_stem && c.flag() {
        let e = p.stem_index(at);
        insert_at(&mut p.ends, e, [c.byte(), c.byte() % 3]);
    }
}
