//! Mutants of a binary witness (`spec/BINARY.md`), each a pure function of its generator:
//! bytes of the whole encoding; bytes aimed at one section (header, key lengths, keys,
//! flags, ends, values, branches, others, bitmap, hashes); a header count off by one; edits
//! of the sections as lists written back with agreeing counts (keys changed, relabelled to
//! another key of the tree, given the all-zero stem, moved, removed, inserted or repeated, flags and writes, pre-values and new values, end depths and kinds,
//! other records, EIP-7864 anchors (dropped, repeated, swapped, inserted; their depth, stem,
//! sub-index or value changed), sibling slots, hashes, branch prefix lengths); and the
//! request's pre-state root, tree or hash changed.

use serde_json::{json, Value};

use crate::at::hex0x;

use bintree::eip7864::witness::{ANCHOR_LENGTH, MAX_DEPTH, OTHER_LENGTH};

use super::binary_wire::{read, KeyRecord, Layout, Sections, DELETE, PRE, SET};
use super::mutants::{byte_mutant, Rng};

/// Real items for the edits, gathered from the binary seeds.
#[derive(Debug, Clone, Default)]
pub(crate) struct BinaryDonors {
    pub(crate) values: Vec<[u8; 32]>,
    pub(crate) hashes: Vec<[u8; 32]>,
    pub(crate) keys: Vec<Vec<u8>>,
    /// Other records of each layout.
    pub(crate) others_7864: Vec<Vec<u8>>,
    pub(crate) others_8297: Vec<Vec<u8>>,
    /// EIP-7864 anchors.
    pub(crate) anchors: Vec<Vec<u8>>,
}

impl BinaryDonors {
    /// Adds the items of a witness's sections.
    pub(crate) fn add(&mut self, s: &Sections) {
        for k in &s.keys {
            self.keys.push(k.key.clone());
            if k.flags & PRE != 0 {
                self.values.push(k.pre);
            }
            if k.flags & SET != 0 {
                self.values.push(k.new);
            }
        }
        self.hashes.extend(&s.hashes);
        match s.layout {
            Layout::Eip7864 => self.others_7864.extend(s.others.iter().cloned()),
            Layout::Eip8297 => self.others_8297.extend(s.others.iter().cloned()),
        }
        self.anchors.extend(s.anchors.iter().cloned());
    }

    fn value(&self, rng: &mut Rng) -> [u8; 32] {
        rng.pick(&self.values)
            .copied()
            .unwrap_or_else(|| rng.bytes())
    }

    fn hash(&self, rng: &mut Rng) -> [u8; 32] {
        rng.pick(&self.hashes)
            .copied()
            .unwrap_or_else(|| rng.bytes())
    }
}

/// What a binary mutant starts from: a request's fields and, when known, the post-state
/// root of the honest witness.
#[derive(Debug, Clone)]
pub(crate) struct BinaryInput {
    pub(crate) tree: &'static str,
    pub(crate) hash: &'static str,
    pub(crate) pre_state_root: [u8; 32],
    pub(crate) witness: Vec<u8>,
    pub(crate) post_state_root: Option<[u8; 32]>,
}

impl BinaryInput {
    fn layout(&self) -> Layout {
        if self.tree == "eip8297" {
            Layout::Eip8297
        } else {
            Layout::Eip7864
        }
    }

    /// The request's input with another witness.
    pub(crate) fn with_witness(&self, witness: &[u8]) -> Value {
        request(self.tree, self.hash, &self.pre_state_root, witness)
    }
}

/// A `binary_witness` request's input.
pub(crate) fn request(tree: &str, hash: &str, root: &[u8; 32], witness: &[u8]) -> Value {
    json!({"tree": tree, "hash": hash, "pre_state_root": hex0x(root), "witness": hex0x(witness)})
}

/// The tree and hash pairs a binary witness exists for.
pub(crate) const CONFIGS: [(&str, &str); 3] = [
    ("eip7864", "sha256"),
    ("eip7864", "blake3"),
    ("eip8297", "blake3"),
];

/// One mutant of `seed`: its family, kind, description and request input.
pub(crate) fn mutate(
    rng: &mut Rng,
    seed: &BinaryInput,
    donors: &BinaryDonors,
) -> (&'static str, &'static str, String, Value) {
    let sections = read(seed.layout(), &seed.witness);
    let choice = rng.below(100);
    match (choice, sections) {
        (0..=5, _) => (
            "none",
            "seed",
            "the seed unchanged".into(),
            seed.with_witness(&seed.witness),
        ),
        (20..=39, Some(s)) => {
            let (kind, d, b) = section_bytes(rng, &s);
            ("section", kind, d, seed.with_witness(&b))
        }
        (40..=89, Some(mut s)) => {
            let (kind, d) = edit(rng, &mut s, donors);
            ("edit", kind, d, seed.with_witness(&s.write().0))
        }
        (90..=94, Some(s)) => {
            let (d, b) = count_off_by_one(rng, &s);
            ("header", "count", d, seed.with_witness(&b))
        }
        (95..=99, _) => {
            let (kind, d, v) = input_change(rng, seed, donors);
            ("input", kind, d, v)
        }
        _ => {
            let (kind, d, b) = byte_mutant(rng, &seed.witness);
            ("bytes", kind, d, seed.with_witness(&b))
        }
    }
}

/// A bit flipped or a byte set inside one section.
fn section_bytes(rng: &mut Rng, s: &Sections) -> (&'static str, String, Vec<u8>) {
    let (mut bytes, map) = s.write();
    let Some((name, range)) = rng.pick(&map).cloned() else {
        return ("none", "no section".into(), bytes);
    };
    let at = range.start + rng.below(range.len());
    let old = bytes[at];
    let d = if rng.chance(1, 2) {
        let bit = rng.below(8);
        bytes[at] ^= 1 << bit;
        format!("{name}: bit {bit} of byte {at} flipped")
    } else {
        bytes[at] = [
            0,
            0xff,
            old.wrapping_add(1),
            old.wrapping_sub(1),
            rng.byte(),
        ][rng.below(5)];
        format!(
            "{name}: byte {at} set from {old:#04x} to {:#04x}",
            bytes[at]
        )
    };
    (name, d, bytes)
}

/// One header count one more or one less than its list, the sections unchanged.
fn count_off_by_one(rng: &mut Rng, s: &Sections) -> (String, Vec<u8>) {
    let (mut bytes, _) = s.write();
    let fifth = match s.layout {
        Layout::Eip8297 => "branch_count",
        Layout::Eip7864 => "anchor_count",
    };
    let names = [
        "key_count",
        "other_count",
        "sibling_count",
        "hash_count",
        fifth,
    ];
    let c = rng.below(names.len());
    let at = 3 + 4 * c;
    let Some(field) = bytes.get(at..at + 4) else {
        return ("no header".into(), bytes);
    };
    let old = u32::from_le_bytes([field[0], field[1], field[2], field[3]]);
    let new = if rng.chance(1, 2) {
        old.wrapping_add(1)
    } else {
        old.wrapping_sub(1)
    };
    bytes[at..at + 4].copy_from_slice(&new.to_le_bytes());
    (format!("{} {old} -> {new}", names[c]), bytes)
}

/// The request's root, tree or hash changed, the witness unchanged.
fn input_change(
    rng: &mut Rng,
    seed: &BinaryInput,
    donors: &BinaryDonors,
) -> (&'static str, String, Value) {
    let (tree, hash, w) = (seed.tree, seed.hash, &seed.witness);
    let mut root = seed.pre_state_root;
    let d = match rng.below(5) {
        0 => {
            let at = rng.below(32);
            root[at] ^= 1 << rng.below(8);
            format!("pre_state_root: a bit of byte {at} flipped")
        }
        1 => match seed.post_state_root {
            Some(post) => {
                root = post;
                "pre_state_root: the post-state root".into()
            }
            None => {
                root = donors.hash(rng);
                "pre_state_root: another hash".into()
            }
        },
        2 => {
            root = [0; 32];
            "pre_state_root: the empty tree's".into()
        }
        3 => {
            root = donors.hash(rng);
            "pre_state_root: another hash".into()
        }
        _ => {
            let others: Vec<&(&str, &str)> =
                CONFIGS.iter().filter(|c| **c != (tree, hash)).collect();
            let Some((t, h)) = rng.pick(&others).copied().copied() else {
                return ("root", "no other tree".into(), seed.with_witness(w));
            };
            return (
                "tree_hash",
                format!("{tree}/{hash} -> {t}/{h}"),
                request(t, h, &root, w),
            );
        }
    };
    ("root", d, request(tree, hash, &root, w))
}

/// A key with its end record (EIP-7864: its stem's), the unit the key edits move.
type KeyWithEnd = (KeyRecord, Vec<u8>);

/// Applies `f` to the keys with their ends, then writes the ends back: per key (EIP-8297),
/// or per run of one stem, the end of its first key (EIP-7864).
fn edit_keys<T>(s: &mut Sections, f: impl FnOnce(&mut Vec<KeyWithEnd>) -> T) -> T {
    let mut items: Vec<KeyWithEnd> = (0..s.keys.len())
        .map(|i| {
            let end = s.ends.get(s.end_of(i)).cloned().unwrap_or_default();
            (s.keys[i].clone(), end)
        })
        .collect();
    let out = f(&mut items);
    s.keys = items.iter().map(|(k, _)| k.clone()).collect();
    s.ends = match s.layout {
        Layout::Eip8297 => items.into_iter().map(|(_, e)| e).collect(),
        Layout::Eip7864 => {
            let stem = |k: &KeyRecord| k.key.get(..31).map(<[u8]>::to_vec);
            (0..items.len())
                .filter(|&i| i == 0 || stem(&items[i - 1].0) != stem(&items[i].0))
                .map(|i| items[i].1.clone())
                .collect()
        }
    };
    s.fit_ends();
    out
}

/// The number of leading bits `a` and `b` share.
fn shared_bits(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .map_or(8 * a.len().min(b.len()), |i| {
            8 * i + (a[i] ^ b[i]).leading_zeros() as usize
        })
}

fn sort_keys(items: &mut [KeyWithEnd]) {
    items.sort_by(|a, b| a.0.key.cmp(&b.0.key));
}

fn flip_bit(rng: &mut Rng, bytes: &mut [u8]) -> String {
    if bytes.is_empty() {
        return "nothing to flip".into();
    }
    let at = rng.below(bytes.len());
    let bit = rng.below(8);
    bytes[at] ^= 1 << bit;
    format!("bit {bit} of byte {at} flipped")
}

/// A bit position to flip in a key: mostly deep, where keys of one subtree part.
fn key_bit(rng: &mut Rng, len: usize) -> usize {
    let bits = 8 * len;
    if rng.chance(1, 2) {
        bits.saturating_sub(1 + rng.below(bits.min(64)))
    } else {
        rng.below(bits)
    }
}

/// A structural edit, written back with agreeing counts.
fn edit(rng: &mut Rng, s: &mut Sections, donors: &BinaryDonors) -> (&'static str, String) {
    const KINDS: [&str; 21] = [
        "key_bit",
        "key_zero_stem",
        "key_relabel",
        "key_relabel",
        "key_move",
        "key_remove",
        "key_insert",
        "key_repeat",
        "key_swap",
        "flags",
        "pre_value",
        "new_value",
        "write",
        "end_depth",
        "end_kind",
        "other",
        "other_field",
        "anchor",
        "anchor_field",
        "siblings",
        "hash",
    ];
    let mut kind = KINDS[rng.below(KINDS.len())];
    if s.keys.is_empty()
        && !matches!(
            kind,
            "key_insert" | "other" | "anchor" | "anchor_field" | "siblings" | "hash"
        )
    {
        kind = "key_insert";
    }
    if s.layout == Layout::Eip8297 {
        kind = match kind {
            "siblings" => "branches",
            "anchor" => "other",
            "anchor_field" => "other_field",
            k => k,
        };
    }
    let n = s.keys.len();
    let d = match kind {
        "key_bit" => edit_keys(s, |items| {
            let i = rng.below(n);
            let key = &mut items[i].0.key;
            if key.is_empty() {
                // An earlier edit left no byte to flip: give the key one.
                key.push(0x80);
                return format!("key {i}: empty, one byte added");
            }
            let at = key_bit(rng, key.len());
            key[at / 8] ^= 0x80 >> (at % 8);
            format!("key {i}: bit {at} flipped")
        }),
        "key_relabel" => {
            let layout = s.layout;
            edit_keys(s, |items| {
                let i = rng.below(n);
                let old = items[i].0.key.clone();
                let fits = |k: &&Vec<u8>| {
                    **k != old && (layout == Layout::Eip8297 || k.len() == old.len())
                };
                let pool: Vec<&Vec<u8>> = donors.keys.iter().filter(fits).collect();
                // Half the time the donor key nearest to this one (the longest shared prefix).
                let nearest = pool.iter().copied().max_by_key(|k| shared_bits(k, &old));
                let key = match (rng.chance(1, 2), nearest) {
                    (true, Some(k)) => Some(k),
                    _ => rng.pick(&pool).copied(),
                };
                let Some(key) = key else {
                    return format!("key {i}: no other key to relabel it to");
                };
                items[i].0.key = key.clone();
                sort_keys(items);
                format!("key {i} relabelled to {} (keys sorted)", hex0x(key))
            })
        }
        "key_zero_stem" => edit_keys(s, |items| {
            let i = rng.below(n);
            let key = &mut items[i].0.key;
            let len = key.len().min(31);
            key[..len].fill(0);
            let d =
                format!("key {i}: first {len} bytes set to zero (the all-zero stem), keys sorted");
            sort_keys(items);
            d
        }),
        "key_move" => edit_keys(s, |items| {
            let i = rng.below(n);
            let key = &mut items[i].0.key;
            let last = key.len() - 1;
            let old = key[last];
            key[last] = match rng.below(3) {
                0 => old.reverse_bits(),
                1 => old.wrapping_add(1),
                _ => rng.byte(),
            };
            let d = format!(
                "key {i}: last byte {old:#04x} -> {:#04x}, keys sorted",
                key[last]
            );
            sort_keys(items);
            d
        }),
        "key_remove" => edit_keys(s, |items| {
            let i = rng.below(n);
            items.remove(i);
            format!("key {i} removed")
        }),
        "key_insert" => {
            let layout = s.layout;
            edit_keys(s, |items| {
                let (mut key, end) = match rng.pick(items).cloned() {
                    Some((k, e)) if rng.chance(3, 4) => (k.key, e),
                    _ => (
                        rng.pick(&donors.keys)
                            .cloned()
                            .unwrap_or_else(|| vec![0; 32]),
                        match layout {
                            Layout::Eip7864 => vec![0, 0],
                            Layout::Eip8297 => vec![0, 0, 2],
                        },
                    ),
                };
                if layout == Layout::Eip7864 {
                    key.resize(32, 0);
                }
                let at = key_bit(rng, key.len());
                key[at / 8] ^= 0x80 >> (at % 8);
                let (flags, new) = if rng.chance(1, 2) {
                    (0, [0; 32])
                } else {
                    (SET, donors.value(rng))
                };
                items.push((
                    KeyRecord {
                        key,
                        flags,
                        pre: [0; 32],
                        new,
                    },
                    end,
                ));
                sort_keys(items);
                format!("a key inserted (bit {at} of another), flags {flags:#04x}")
            })
        }
        "key_repeat" => edit_keys(s, |items| {
            let i = rng.below(n);
            items.insert(i, items[i].clone());
            format!("key {i} repeated")
        }),
        "key_swap" if n >= 2 => edit_keys(s, |items| {
            let i = rng.below(n - 1);
            items.swap(i, i + 1);
            format!("keys {i} and {} swapped", i + 1)
        }),
        "flags" | "key_swap" => {
            let i = rng.below(n);
            let k = &mut s.keys[i];
            let old = k.flags;
            k.flags = match rng.below(4) {
                0 => old ^ PRE,
                1 => old ^ SET,
                2 => old ^ DELETE,
                _ => rng.byte() & 0x0f,
            };
            if k.flags & PRE != 0 && old & PRE == 0 {
                k.pre = donors.value(rng);
            }
            if k.flags & SET != 0 && old & SET == 0 {
                k.new = donors.value(rng);
            }
            format!("key {i}: flags {old:#04x} -> {:#04x}", k.flags)
        }
        "pre_value" => {
            let with: Vec<usize> = (0..n).filter(|&i| s.keys[i].flags & PRE != 0).collect();
            match rng.pick(&with).copied() {
                None => {
                    let i = rng.below(n);
                    s.keys[i].flags |= PRE;
                    s.keys[i].pre = donors.value(rng);
                    format!("key {i}: a pre-value claimed")
                }
                Some(i) => match rng.below(3) {
                    0 => format!("key {i}: pre-value {}", flip_bit(rng, &mut s.keys[i].pre)),
                    1 => {
                        s.keys[i].pre = donors.value(rng);
                        format!("key {i}: pre-value replaced by another value")
                    }
                    _ => {
                        let j = *rng.pick(&with).unwrap_or(&i);
                        let (a, b) = (s.keys[i].pre, s.keys[j].pre);
                        s.keys[i].pre = b;
                        s.keys[j].pre = a;
                        format!("pre-values of keys {i} and {j} swapped")
                    }
                },
            }
        }
        "new_value" => {
            let i = rng.below(n);
            let k = &mut s.keys[i];
            if k.flags & SET == 0 {
                k.flags |= SET;
                k.new = donors.value(rng);
                format!("key {i}: a set added")
            } else if rng.chance(1, 3) && k.flags & PRE != 0 {
                k.new = k.pre;
                format!("key {i}: set to its pre-value")
            } else {
                format!("key {i}: new value {}", flip_bit(rng, &mut k.new))
            }
        }
        "write" => {
            let i = rng.below(n);
            let k = &mut s.keys[i];
            let old = k.flags;
            let pre = k.flags & PRE;
            k.flags = match rng.below(4) {
                0 => pre,
                1 => pre | SET,
                2 => pre | DELETE,
                _ => PRE ^ pre | DELETE,
            };
            if k.flags & SET != 0 && old & SET == 0 {
                k.new = donors.value(rng);
            }
            if k.flags & PRE != 0 && old & PRE == 0 {
                k.pre = donors.value(rng);
            }
            format!("key {i}: write flags {old:#04x} -> {:#04x}", k.flags)
        }
        "end_depth" | "end_kind" => {
            let j = rng.below(s.ends.len());
            let Some(e) = s.ends.get_mut(j) else {
                return (kind, "no end record".into());
            };
            let wide = e.len() == 3;
            let (max_depth, max_kind) = if wide { (528u16, 3u8) } else { (248, 2) };
            let old_depth = if wide {
                u16::from_be_bytes([e[0], e[1]])
            } else {
                u16::from(e[0])
            };
            let k = e.len() - 1;
            if kind == "end_kind" {
                let old = e[k];
                e[k] = match rng.below(3) {
                    0 => (old + 1 + rng.below(usize::from(max_kind)) as u8) % (max_kind + 1),
                    1 => max_kind + 1,
                    _ => rng.byte(),
                };
                format!("ends[{j}]: kind {old} -> {}", e[k])
            } else {
                let depth = match rng.below(6) {
                    0 => old_depth.wrapping_add(1),
                    1 => old_depth.wrapping_sub(1),
                    2 => 0,
                    3 => max_depth,
                    4 => max_depth + 1,
                    _ => rng.below(usize::from(max_depth) + 1) as u16,
                };
                if wide {
                    e[..2].copy_from_slice(&depth.to_be_bytes());
                } else {
                    e[0] = depth as u8;
                }
                format!("ends[{j}]: depth {old_depth} -> {depth}")
            }
        }
        "other" => {
            let pool = match s.layout {
                Layout::Eip7864 => &donors.others_7864,
                Layout::Eip8297 => &donors.others_8297,
            };
            let m = s.others.len();
            match if m == 0 { 3 } else { rng.below(5) } {
                0 => {
                    let i = rng.below(m);
                    format!("others[{i}]: {}", flip_bit(rng, &mut s.others[i]))
                }
                1 => {
                    let i = rng.below(m);
                    s.others.remove(i);
                    format!("others[{i}] removed")
                }
                2 => {
                    let i = rng.below(m);
                    s.others.insert(i, s.others[i].clone());
                    format!("others[{i}] repeated")
                }
                4 if m >= 2 => {
                    let i = rng.below(m - 1);
                    s.others.swap(i, i + 1);
                    format!("others[{i}] and [{}] swapped", i + 1)
                }
                _ => match rng.pick(pool).cloned() {
                    Some(o) => {
                        let i = rng.below(m + 1);
                        s.others.insert(i, o);
                        format!("another witness's other record inserted at {i}")
                    }
                    None => "no other record to insert".into(),
                },
            }
        }
        "other_field" => other_field(rng, s),
        "anchor" => anchor(rng, s, donors),
        "anchor_field" => anchor_field(rng, s, donors),
        "siblings" => siblings(rng, s, donors),
        "branches" => branches(rng, s),
        _ => hash_edit(rng, s, donors),
    };
    (kind, d)
}

/// A field of one other record changed: EIP-7864, its stem made a touched one or all zero, its
/// sub-index or its value changed; EIP-8297, a leaf's key length or a branch's prefix length
/// or bits.
fn other_field(rng: &mut Rng, s: &mut Sections) -> String {
    let m = s.others.len();
    if m == 0 {
        return "no other record".into();
    }
    let i = rng.below(m);
    let touched = rng.pick(&s.keys).map(|k| k.key.clone());
    let o = &mut s.others[i];
    match s.layout {
        Layout::Eip7864 => match (rng.below(6), touched) {
            (0, Some(k)) if k.len() >= 31 && o.len() == OTHER_LENGTH => {
                o[..31].copy_from_slice(&k[..31]);
                format!("others[{i}]: stem set to a touched key's")
            }
            (1, _) if o.len() == OTHER_LENGTH => {
                o[..31].fill(0);
                format!("others[{i}]: stem set to 0^31")
            }
            (2, _) if o.len() == OTHER_LENGTH => {
                let (old, new) = (o[31], rng.byte());
                o[31] = new;
                format!("others[{i}]: sub-index {old:#04x} -> {new:#04x}")
            }
            (3, _) if o.len() == OTHER_LENGTH => {
                let at = rng.below(256);
                o[32 + at / 8] ^= 0x80 >> (at % 8);
                format!("others[{i}]: value bit {at} flipped")
            }
            _ if o.is_empty() => {
                o.push(0x80);
                format!("others[{i}]: empty, one byte added")
            }
            _ => {
                let at = key_bit(rng, 31.min(o.len()));
                o[at / 8] ^= 0x80 >> (at % 8);
                format!("others[{i}]: stem bit {at} flipped")
            }
        },
        Layout::Eip8297 => match o.first().copied() {
            Some(0) if o.len() > 34 => {
                let len = usize::from(o[1]);
                let grow = rng.chance(1, 2) || len <= 1;
                if grow {
                    o.insert(2 + len, rng.byte());
                } else {
                    o.remove(1 + len);
                }
                o[1] = (o.len() - 34) as u8;
                format!("others[{i}]: leaf key {len} -> {} bytes", o[1])
            }
            Some(1) if o.len() >= 67 => {
                let len = usize::from(u16::from_be_bytes([o[1], o[2]]));
                match rng.below(3) {
                    0 => {
                        let at = rng.below(len.max(1));
                        if let Some(b) = o.get_mut(3 + at / 8) {
                            *b ^= 0x80 >> (at % 8);
                        }
                        format!("others[{i}]: branch prefix bit {at} flipped")
                    }
                    1 => {
                        let child = o.len() - 32 * (1 + rng.below(2));
                        o[child..child + 32].fill(0);
                        format!("others[{i}]: a branch child set to ZERO")
                    }
                    _ => {
                        let new = if rng.chance(1, 2) || len == 0 {
                            len + 1
                        } else {
                            len - 1
                        };
                        let (old_bytes, new_bytes) = (len.div_ceil(8), new.div_ceil(8));
                        let mut bits = o[3..3 + old_bytes].to_vec();
                        bits.resize(new_bytes, 0);
                        if new % 8 != 0 {
                            if let Some(last) = bits.last_mut() {
                                *last &= 0xffu8 << (8 - new % 8);
                            }
                        }
                        let children = o[3 + old_bytes..].to_vec();
                        let mut r = vec![1];
                        r.extend_from_slice(&(new as u16).to_be_bytes());
                        r.extend_from_slice(&bits);
                        r.extend_from_slice(&children);
                        *o = r;
                        format!("others[{i}]: branch prefix length {len} -> {new}")
                    }
                }
            }
            _ => format!("others[{i}]: {}", flip_bit(rng, o)),
        },
    }
}

/// An anchor for the sibling of a touched key's path at a depth from 1 to 16, with a first stem
/// below it (the bits past the sibling's random), a depth below the sibling and a leaf; or
/// another witness's anchor.
fn new_anchor(rng: &mut Rng, s: &Sections, donors: &BinaryDonors) -> Option<Vec<u8>> {
    let key = match rng.pick(&s.keys) {
        Some(k) if k.key.len() >= 31 && rng.chance(1, 2) => k.key.clone(),
        _ => return rng.pick(&donors.anchors).cloned(),
    };
    let e = 1 + rng.below(16);
    let mut stem: Vec<u8> = key[..31].to_vec();
    stem[(e - 1) / 8] ^= 0x80 >> ((e - 1) % 8);
    for bit in e..248 {
        if rng.chance(1, 2) {
            stem[bit / 8] ^= 0x80 >> (bit % 8);
        }
    }
    let mut a = vec![(e + 1 + rng.below(8)) as u8];
    a.extend_from_slice(&stem);
    a.push(if rng.chance(1, 2) { 0 } else { rng.byte() });
    a.extend_from_slice(&donors.value(rng));
    Some(a)
}

/// The EIP-7864 anchors list: one dropped, repeated, swapped with the next, or one inserted
/// (another witness's, or made for a touched key's sibling).
fn anchor(rng: &mut Rng, s: &mut Sections, donors: &BinaryDonors) -> String {
    let m = s.anchors.len();
    match if m == 0 { 3 } else { rng.below(4) } {
        0 => {
            let i = rng.below(m);
            s.anchors.remove(i);
            format!("anchors[{i}] removed")
        }
        1 => {
            let i = rng.below(m);
            s.anchors.insert(i, s.anchors[i].clone());
            format!("anchors[{i}] repeated")
        }
        2 if m >= 2 => {
            let i = rng.below(m - 1);
            s.anchors.swap(i, i + 1);
            format!("anchors[{i}] and [{}] swapped", i + 1)
        }
        _ => match new_anchor(rng, s, donors) {
            Some(a) => {
                let i = rng.below(m + 1);
                s.anchors.insert(i, a);
                format!("an anchor inserted at {i}")
            }
            None => "no anchor to insert".into(),
        },
    }
}

/// A field of one EIP-7864 anchor changed: its depth (one off, 0, 248, 249 or any), its stem
/// (a bit flipped near the top, where the prefix rule reads, or deep; a touched key's; all
/// zero), its sub-index or its value. Without an anchor, one is inserted.
fn anchor_field(rng: &mut Rng, s: &mut Sections, donors: &BinaryDonors) -> String {
    let m = s.anchors.len();
    if m == 0 {
        return anchor(rng, s, donors);
    }
    let i = rng.below(m);
    let touched = rng.pick(&s.keys).map(|k| k.key.clone());
    let value = donors.value(rng);
    let a = &mut s.anchors[i];
    if a.len() != ANCHOR_LENGTH {
        return format!("anchors[{i}]: {}", flip_bit(rng, a));
    }
    match rng.below(9) {
        0 | 1 => {
            let old = a[0];
            a[0] = match rng.below(6) {
                0 => old.wrapping_add(1),
                1 => old.wrapping_sub(1),
                2 => 0,
                3 => MAX_DEPTH,
                4 => MAX_DEPTH + 1,
                _ => rng.byte(),
            };
            format!("anchors[{i}]: depth {old} -> {}", a[0])
        }
        2 => {
            let at = rng.below(16);
            a[1 + at / 8] ^= 0x80 >> (at % 8);
            format!("anchors[{i}]: stem bit {at} flipped")
        }
        3 => {
            let at = key_bit(rng, 31);
            a[1 + at / 8] ^= 0x80 >> (at % 8);
            format!("anchors[{i}]: stem bit {at} flipped")
        }
        4 => match touched {
            Some(k) if k.len() >= 31 => {
                a[1..32].copy_from_slice(&k[..31]);
                format!("anchors[{i}]: stem set to a touched key's")
            }
            _ => {
                a[1..32].fill(0);
                format!("anchors[{i}]: stem set to 0^31")
            }
        },
        5 => {
            a[1..32].fill(0);
            format!("anchors[{i}]: stem set to 0^31")
        }
        6 => {
            let old = a[32];
            a[32] = match rng.below(3) {
                0 => old.wrapping_add(1),
                1 => old.wrapping_sub(1),
                _ => rng.byte(),
            };
            format!("anchors[{i}]: sub-index {old:#04x} -> {:#04x}", a[32])
        }
        7 => {
            let at = rng.below(256);
            a[33 + at / 8] ^= 0x80 >> (at % 8);
            format!("anchors[{i}]: value bit {at} flipped")
        }
        _ => {
            a[33..].copy_from_slice(&value);
            format!("anchors[{i}]: value replaced by another value")
        }
    }
}

/// EIP-7864 sibling slots: one turned from empty to a hash or back (the hash added or
/// removed), or an empty slot added or removed.
fn siblings(rng: &mut Rng, s: &mut Sections, donors: &BinaryDonors) -> String {
    let n = s.slots.len();
    let j = rng.below(n + 1);
    let hash_at = s.slots[..j].iter().filter(|&&x| x).count();
    match (rng.below(3), s.slots.get(j).copied()) {
        (0, Some(true)) => {
            s.slots[j] = false;
            s.hashes.remove(hash_at);
            format!("slot {j}: hash -> empty")
        }
        (0, Some(false)) => {
            s.slots[j] = true;
            s.hashes.insert(hash_at, donors.hash(rng));
            format!("slot {j}: empty -> another hash")
        }
        (1, Some(x)) => {
            s.slots.remove(j);
            if x {
                s.hashes.remove(hash_at);
            }
            format!("slot {j} removed")
        }
        _ => {
            s.slots.insert(j, false);
            format!("an empty slot inserted at {j}")
        }
    }
}

/// EIP-8297 branches entries: one off by one, zero, removed, repeated or inserted.
fn branches(rng: &mut Rng, s: &mut Sections) -> String {
    let n = s.branches.len();
    if n == 0 {
        s.branches.push([0, rng.below(16) as u8]);
        return "a branches entry added".into();
    }
    let i = rng.below(n);
    let old = u16::from_be_bytes(s.branches[i]);
    let new = match rng.below(6) {
        0 => old.wrapping_add(1),
        1 => old.wrapping_sub(1),
        2 => 0,
        3 => {
            s.branches.remove(i);
            return format!("branches[{i}] removed");
        }
        4 => {
            s.branches.insert(i, s.branches[i]);
            return format!("branches[{i}] repeated");
        }
        _ => 529,
    };
    s.branches[i] = new.to_be_bytes();
    format!("branches[{i}]: {old} -> {new}")
}

/// A hash flipped, zeroed, replaced, swapped with the next, removed or repeated (the
/// EIP-7864 slots follow half the time).
fn hash_edit(rng: &mut Rng, s: &mut Sections, donors: &BinaryDonors) -> String {
    let n = s.hashes.len();
    if n == 0 {
        s.hashes.push(donors.hash(rng));
        return "a hash appended".into();
    }
    let i = rng.below(n);
    let slot = (0..s.slots.len())
        .filter(|&j| s.slots[j])
        .nth(i)
        .filter(|_| rng.chance(1, 2));
    match rng.below(6) {
        0 => format!("hashes[{i}]: {}", flip_bit(rng, &mut s.hashes[i])),
        1 => {
            s.hashes[i] = [0; 32];
            format!("hashes[{i}] set to ZERO")
        }
        2 => {
            s.hashes[i] = donors.hash(rng);
            format!("hashes[{i}] replaced by another hash")
        }
        3 if n >= 2 => {
            let j = (i + 1) % n;
            s.hashes.swap(i, j);
            format!("hashes[{i}] and [{j}] swapped")
        }
        4 => {
            s.hashes.remove(i);
            if let Some(j) = slot {
                s.slots.remove(j);
            }
            format!("hashes[{i}] removed (slot too: {})", slot.is_some())
        }
        _ => {
            s.hashes.insert(i, s.hashes[i]);
            if let Some(j) = slot {
                s.slots.insert(j, true);
            }
            format!("hashes[{i}] repeated (slot too: {})", slot.is_some())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bintree::witness::Write;
    use std::collections::BTreeSet;

    fn honest() -> Vec<(Layout, Vec<u8>)> {
        let mut t7 = bintree::eip7864::Tree::<bintree::Sha256>::new();
        let mut t8 = bintree::eip8297::Tree::<bintree::Blake3>::new();
        for i in 0u8..6 {
            let mut k = [i.wrapping_mul(37); 32];
            k[30] = i & 1;
            t7.insert(&k, &[i + 1; 32]).expect("insert");
            t8.insert(&[i.wrapping_mul(37); 34], &[i + 1; 32])
                .expect("insert");
        }
        // A key beside the all-zero stem (a witness key never has it), whose path ends there.
        let mut beside = [0; 32];
        beside[29] = 1;
        let w7: Vec<([u8; 32], Write)> = vec![
            (beside, Write::Set([9; 32])),
            ([37; 32], Write::Unchanged),
            ([200; 32], Write::Set([9; 32])),
        ];
        let w8: Vec<([u8; 34], Write)> = vec![
            ([0; 34], Write::Delete),
            ([74; 34], Write::Set([9; 32])),
            ([201; 34], Write::Unchanged),
        ];
        vec![
            (Layout::Eip7864, t7.witness(&w7).expect("witness")),
            (Layout::Eip8297, t8.witness(&w8).expect("witness")),
        ]
    }

    #[test]
    fn edits_are_written_with_counts_that_agree() {
        let mut kinds = BTreeSet::new();
        for (layout, bytes) in honest() {
            let s = read(layout, &bytes).expect("sections");
            // Key 200…'s path ends EMPTY at depth 2 beside the untouched node of stems
            // 0x94… and 0xb9…: anchored.
            assert_eq!(s.anchors.len(), usize::from(layout == Layout::Eip7864));
            let mut donors = BinaryDonors::default();
            donors.add(&s);
            for i in 0..400 {
                let mut m = s.clone();
                let mut rng = Rng::new(i);
                let (kind, d) = edit(&mut rng, &mut m, &donors);
                kinds.insert(kind);
                let (out, _) = m.write();
                // Read back, the edited sections are written byte for byte again; only a
                // flipped tag of an EIP-8297 other record makes them unreadable.
                match read(layout, &out) {
                    Some(again) => assert_eq!(again.write().0, out, "{kind}: {d}"),
                    None => assert!(
                        layout == Layout::Eip8297 && kind.starts_with("other"),
                        "{kind}: {d}"
                    ),
                }
            }
        }
        assert_eq!(kinds.len(), 21, "{kinds:?}");
    }

    #[test]
    fn shared_bits_counts_the_leading_bits_two_keys_share() {
        assert_eq!(shared_bits(&[0xf0], &[0xf8]), 4);
        assert_eq!(shared_bits(&[1, 2], &[1, 2]), 16);
        assert_eq!(shared_bits(&[1, 2], &[1]), 8);
    }
}
