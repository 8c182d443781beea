//! A hostile prover's structural edits of an EIP-8297 witness, one per call, each on one
//! section of `spec/BINARY.md` §7 and chosen by the fuzzer's input: a key relabelled
//! (a bit flipped, cut, extended, another key of the tree or near one), a flag changed (a
//! delete included; its values added or removed with it), a value replaced, an end record's
//! depth or kind changed, a branch prefix length changed, added or dropped, an other record
//! changed (its key, value, prefix bits or length, a child, its tag), added, dropped,
//! duplicated or sent as its bare hash, a hash replaced, dropped or duplicated, a key added or
//! removed, two items of a section swapped.

use std::vec::Vec;

use super::parts::Parts;
use super::scenario::{random_key, Scenario};
use crate::fuzz::choices::Choices;
use crate::fuzz::rng::Rng;
use crate::fuzz::sections::{self, insert_at, reflag, remove_at, swap_at};
use crate::TreeHash;

/// A key chosen by `c`: one of the tree's, a key's of the witness, one near either, a fresh
/// one of either zone.
fn key_choice<H: TreeHash>(c: &mut Choices, p: &Parts, s: &Scenario<H>) -> Vec<u8> {
    let tree = |c: &mut Choices| s.keys.get(c.below(s.keys.len())).cloned();
    let own = |c: &mut Choices| p.keys.get(c.below(p.keys.len())).cloned();
    let mut rng = Rng::new(u64::from(c.u32()));
    match c.below(4) {
        0 => tree(c)
            .or_else(|| own(c))
            .unwrap_or_else(|| random_key(&mut rng, None)),
        1 => own(c).unwrap_or_else(|| random_key(&mut rng, None)),
        2 => {
            let base = tree(c).or_else(|| own(c));
            random_key(&mut rng, base.as_deref())
        }
        _ => random_key(&mut rng, None),
    }
}

/// A value chosen by `c` for `key`: its true value, another value of the witness, or a fresh
/// one.
fn value_choice<H: TreeHash>(c: &mut Choices, p: &Parts, s: &Scenario<H>, key: &[u8]) -> [u8; 32] {
    sections::value_choice(c, &p.values, s.tree.get(key).copied())
}

/// One edit of `p`, chosen by `c`, with material from the scenario's tree.
pub fn edit<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    match c.below(9) {
        0 => relabel(c, p, s),
        1 => flags(c, p, s),
        2 => {
            let i = c.below(p.values.len());
            let k = p
                .keys
                .get(c.below(p.keys.len()))
                .cloned()
                .unwrap_or_default();
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
            let arg = c.below(600) as u16;
            if let Some(end) = p.ends.get_mut(e) {
                let depth = u16::from_be_bytes([end[0], end[1]]);
                let depth = match op {
                    0 => depth.wrapping_add(1),
                    1 => depth.wrapping_sub(1),
                    2 => arg,
                    _ => {
                        end[2] = (arg % 5) as u8;
                        depth
                    }
                };
                end[..2].copy_from_slice(&depth.to_be_bytes());
            }
        }
        4 => {
            let b = c.below(p.branches.len() + 1);
            let op = c.below(5);
            let arg = c.below(600) as u16;
            let Some(&entry) = p.branches.get(b) else {
                insert_at(&mut p.branches, b, arg.to_be_bytes());
                return;
            };
            let len = u16::from_be_bytes(entry);
            match op {
                0 => p.branches[b] = len.wrapping_add(1).to_be_bytes(),
                1 => p.branches[b] = len.wrapping_sub(1).to_be_bytes(),
                2 => p.branches[b] = arg.to_be_bytes(),
                3 => {
                    p.branches.remove(b);
                }
                _ => p.branches.insert(b, entry),
            }
        }
        5 => others(c, p, s),
        6 => hashes(c, p),
        7 => keys(c, p, s),
        _ => {
            let (a, b) = (c.byte() as usize, c.byte() as usize);
            match c.below(6) {
                0 => swap_at(&mut p.keys, a, b),
                1 => swap_at(&mut p.ends, a, b),
                2 => swap_at(&mut p.others, a, b),
                3 => swap_at(&mut p.values, a, b),
                4 => swap_at(&mut p.branches, a, b),
                _ => swap_at(&mut p.hashes, a, b),
            }
        }
    }
}

/// A key relabelled: a bit flipped, its last byte dropped, a byte appended, or another key.
fn relabel<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    let i = c.below(p.keys.len());
    let Some(mut k) = p.keys.get(i).cloned() else {
        return;
    };
    match c.below(4) {
        0 => c.flip(&mut k),
        1 => {
            k.pop();
        }
        2 => k.push(c.byte()),
        _ => k = key_choice(c, p, s),
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
    let k = p.keys[i].clone();
    let v = p.value_index(i);
    reflag(&mut p.values, v, old, new, |values| {
        sections::value_choice(c, values, s.tree.get(&k).copied())
    });
    p.flags[i] = new;
}

/// A leaf record of `key` with `value`.
fn leaf_record(key: &[u8], value: &[u8; 32]) -> Vec<u8> {
    let mut r = std::vec![0u8, key.len() as u8];
    r.extend_from_slice(key);
    r.extend_from_slice(value);
    r
}

/// An other record added (a leaf of a tree's or witness's key with its true or another
/// value, or a branch of fresh children), changed, dropped, duplicated, or replaced by its
/// hash among the sibling hashes.
fn others<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    let o = c.below(p.others.len() + 1);
    if o == p.others.len() {
        let record = if c.flag() {
            let k = key_choice(c, p, s);
            let v = value_choice(c, p, s, &k);
            leaf_record(&k, &v)
        } else {
            let len = c.below(300);
            let mut r = std::vec![1u8];
            r.extend_from_slice(&(len as u16).to_be_bytes());
            let mut bits = std::vec![0u8; len.div_ceil(8)];
            for b in &mut bits {
                *b = c.byte();
            }
            if let Some(last) = bits.last_mut() {
                if !len.is_multiple_of(8) {
                    *last &= !(0xffu8 >> (len % 8));
                }
            }
            r.extend_from_slice(&bits);
            r.extend_from_slice(&c.value());
            r.extend_from_slice(&c.value());
            r
        };
        let at = c.below(p.others.len() + 1);
        insert_at(&mut p.others, at, record);
        return;
    }
    let op = c.below(7);
    let record = &mut p.others[o];
    let leaf = record.first() == Some(&0);
    match op {
        // A bit of the key or the prefix (after the tag and length field).
        0 => {
            let head = if leaf { 2 } else { 3 };
            let body = record
                .len()
                .saturating_sub(head + if leaf { 32 } else { 64 });
            let bit = c.below(8 * body);
            if let Some(b) = record.get_mut(head + bit / 8) {
                *b ^= 0x80 >> (bit % 8);
            }
        }
        // A bit of the value or a child.
        1 => {
            let tail = if leaf { 32 } else { 64 };
            let at = record.len().saturating_sub(tail);
            c.flip(&mut record[at..]);
        }
        // The length field, the record resized to it.
        2 => {
            if let Some(r) = resized(c, record, leaf) {
                *record = r;
            }
        }
        3 => {
            let x = c.byte() | 1;
            if let Some(tag) = record.first_mut() {
                *tag ^= x;
            }
        }
        4 => {
            p.others.remove(o);
        }
        5 => {
            let r = record.clone();
            p.others.insert(o, r);
        }
        _ => {
            // Sent as a bare hash: what a verifier that took the sibling's hash would see.
            let h = if leaf {
                H::hash(&[&[0u8], record.get(2..).unwrap_or(&[])])
            } else {
                H::hash(&[record])
            };
            p.others.remove(o);
            let at = c.below(p.hashes.len() + 1);
            insert_at(&mut p.hashes, at, h);
        }
    }
}

/// `record` with its length field one more or one less, its key or prefix bits grown or cut
/// to match; `None` when the record is too short for its tag.
fn resized(c: &mut Choices, record: &[u8], leaf: bool) -> Option<Vec<u8>> {
    if leaf {
        let v: [u8; 32] = record
            .get(record.len().checked_sub(32)?..)?
            .try_into()
            .ok()?;
        let mut k = record.get(2..record.len() - 32)?.to_vec();
        if c.flag() {
            k.push(c.byte());
        } else {
            k.pop();
        }
        return Some(leaf_record(&k, &v));
    }
    let len = usize::from(u16::from_be_bytes([*record.get(1)?, *record.get(2)?]));
    let new = if c.flag() {
        len + 1
    } else {
        len.saturating_sub(1)
    };
    let children = record.get(record.len().checked_sub(64)?..)?;
    let mut bits = record.get(3..3 + len.div_ceil(8))?.to_vec();
    bits.resize(new.div_ceil(8), 0);
    if !new.is_multiple_of(8) {
        if let Some(last) = bits.last_mut() {
            *last &= !(0xffu8 >> (new % 8));
        }
    }
    let mut r = std::vec![1u8];
    r.extend_from_slice(&(new as u16).to_be_bytes());
    r.extend_from_slice(&bits);
    r.extend_from_slice(children);
    Some(r)
}

/// A hash replaced (fresh, another of the witness's, zero, a bit flipped), dropped,
/// duplicated, or swapped with another.
fn hashes(c: &mut Choices, p: &mut Parts) {
    let j = c.below(p.hashes.len());
    let op = c.below(6);
    let other = match p.hashes.get(c.below(p.hashes.len() + 1)) {
        Some(h) => *h,
        None => c.value(),
    };
    let Some(mut h) = p.hashes.get(j).copied() else {
        p.hashes.push(other);
        return;
    };
    match op {
        0 => h = other,
        1 => h = [0; 32],
        2 => c.flip(&mut h),
        3 => {
            p.hashes.remove(j);
            return;
        }
        4 => {
            p.hashes.insert(j, h);
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

/// A key removed (with its flags, end record and values), or one added (flags 0, a read of
/// an absence, with an end record of a chosen depth and kind).
fn keys<H: TreeHash>(c: &mut Choices, p: &mut Parts, s: &Scenario<H>) {
    if c.flag() && !p.keys.is_empty() {
        let i = c.below(p.keys.len());
        let v = p.value_index(i);
        let f = p.flags[i];
        for _ in 0..usize::from(f & 1) + usize::from((f >> 1) & 1) {
            remove_at(&mut p.values, v);
        }
        p.keys.remove(i);
        p.flags.remove(i);
        remove_at(&mut p.ends, i);
        return;
    }
    let k = key_choice(c, p, s);
    let at = if c.flag() {
        p.keys.partition_point(|x| *x < k)
    } else {
        c.below(p.keys.len() + 1)
    };
    let depth = c.below(40) as u16;
    let kind = c.byte() % 4;
    insert_at(&mut p.keys, at, k);
    insert_at(&mut p.flags, at, 0);
    let [hi, lo] = depth.to_be_bytes();
    insert_at(&mut p.ends, at, [hi, lo, kind]);
}
