//! The sections of a binary witness (`spec/BINARY.md` §2, §3, §7) as owned lists, so a
//! mutant can change one item and be written back with counts that agree with its lists.
//!
//! Reading is lenient: it takes only the lengths the counts give and checks no rule but
//! the layout itself (every section present, nothing after the last); a witness whose
//! sections do not line up is not read, and gets byte mutants only.

/// Which layout: EIP-7864 (§3) or EIP-8297 (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Eip7864,
    Eip8297,
}

/// Flags bit: the key has a pre-value (§2.1).
pub(crate) const PRE: u8 = 0x01;
/// Flags bit: the block sets the key.
pub(crate) const SET: u8 = 0x02;
/// Flags bit: the block deletes the key (EIP-8297).
pub(crate) const DELETE: u8 = 0x04;

/// One key with its flags and values (a value is on the wire only when its flag is set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyRecord {
    pub(crate) key: Vec<u8>,
    pub(crate) flags: u8,
    pub(crate) pre: [u8; 32],
    pub(crate) new: [u8; 32],
}

/// A binary witness's sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sections {
    pub(crate) layout: Layout,
    /// Version, tree and hash bytes.
    pub(crate) header: [u8; 3],
    pub(crate) keys: Vec<KeyRecord>,
    /// End records: per distinct stem (EIP-7864, 2 bytes) or per key (EIP-8297, 3 bytes).
    pub(crate) ends: Vec<Vec<u8>>,
    /// EIP-8297 branches entries (prefix lengths, big-endian).
    pub(crate) branches: Vec<[u8; 2]>,
    /// Other records: stem ‖ sub-index ‖ value of the stem's first present leaf (EIP-7864, 64
    /// bytes) or tagged records (EIP-8297).
    pub(crate) others: Vec<Vec<u8>>,
    /// EIP-7864 anchors: depth ‖ stem ‖ sub-index ‖ value of the first stem below an EMPTY
    /// end's untouched sibling (65 bytes); EIP-8297 has none.
    pub(crate) anchors: Vec<Vec<u8>>,
    /// EIP-7864 sibling slots (bitmap bits); EIP-8297 has none.
    pub(crate) slots: Vec<bool>,
    pub(crate) hashes: Vec<[u8; 32]>,
}

/// Where each section lies in an encoding, by name.
pub(crate) type SectionMap = Vec<(&'static str, std::ops::Range<usize>)>;

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u32le(&mut self) -> Option<usize> {
        let b: [u8; 4] = self.take(4)?.try_into().ok()?;
        usize::try_from(u32::from_le_bytes(b)).ok()
    }

    fn u16be(&mut self) -> Option<usize> {
        let b: [u8; 2] = self.take(2)?.try_into().ok()?;
        Some(usize::from(u16::from_be_bytes(b)))
    }

    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }
}

/// The number of distinct stems (first 31 bytes) among the keys, in order.
pub(crate) fn distinct_stems(keys: &[KeyRecord]) -> usize {
    let stem = |k: &KeyRecord| k.key.get(..31).map(<[u8]>::to_vec);
    (0..keys.len())
        .filter(|&i| i == 0 || stem(&keys[i - 1]) != stem(&keys[i]))
        .count()
}

/// Reads `bytes` as the sections of `layout`; `None` when they do not line up exactly.
pub(crate) fn read(layout: Layout, bytes: &[u8]) -> Option<Sections> {
    let mut c = Cursor { bytes, at: 0 };
    let header: [u8; 3] = c.take(3)?.try_into().ok()?;
    let key_count = c.u32le()?;
    let other_count = c.u32le()?;
    let sibling_count = c.u32le()?;
    let hash_count = c.u32le()?;
    // The fifth count at offset 19: EIP-8297's branch_count, EIP-7864's anchor_count.
    let fifth = c.u32le()?;
    let (branch_count, anchor_count) = match layout {
        Layout::Eip8297 => (fifth, 0),
        Layout::Eip7864 => (0, fifth),
    };
    // Every item takes at least one byte (a slot one bit): no list longer than the input.
    let most = bytes.len();
    let counts = [
        key_count,
        other_count,
        hash_count,
        branch_count,
        anchor_count,
    ];
    if counts.iter().any(|&n| n > most) {
        return None;
    }
    if sibling_count > 8 * most {
        return None;
    }
    let lengths: Vec<usize> = match layout {
        Layout::Eip7864 => vec![32; key_count],
        Layout::Eip8297 => c.take(key_count)?.iter().map(|&n| usize::from(n)).collect(),
    };
    let mut keys = Vec::with_capacity(key_count);
    for n in lengths {
        keys.push(KeyRecord {
            key: c.take(n)?.to_vec(),
            flags: 0,
            pre: [0; 32],
            new: [0; 32],
        });
    }
    for (k, &f) in keys.iter_mut().zip(c.take(key_count)?) {
        k.flags = f;
    }
    let (end_count, end_size) = match layout {
        Layout::Eip7864 => (distinct_stems(&keys), 2),
        Layout::Eip8297 => (key_count, 3),
    };
    let ends = c
        .take(end_count * end_size)?
        .chunks(end_size)
        .map(<[u8]>::to_vec)
        .collect();
    for k in &mut keys {
        if k.flags & PRE != 0 {
            k.pre = c.take(32)?.try_into().ok()?;
        }
        if k.flags & SET != 0 {
            k.new = c.take(32)?.try_into().ok()?;
        }
    }
    let branches = match layout {
        Layout::Eip8297 => c
            .take(2 * branch_count)?
            .chunks(2)
            .map(|b| [b[0], b[1]])
            .collect(),
        Layout::Eip7864 => Vec::new(),
    };
    let mut others = Vec::with_capacity(other_count.min(c.left()));
    for _ in 0..other_count {
        let record = match layout {
            Layout::Eip7864 => c.take(bintree::eip7864::witness::OTHER_LENGTH)?,
            Layout::Eip8297 => {
                let start = c.at;
                match *c.take(1)?.first()? {
                    0 => {
                        let n = usize::from(*c.take(1)?.first()?);
                        c.take(n + 32)?;
                    }
                    1 => {
                        let n = c.u16be()?;
                        c.take(n.div_ceil(8) + 64)?;
                    }
                    _ => return None,
                }
                c.bytes.get(start..c.at)?
            }
        };
        others.push(record.to_vec());
    }
    let anchors = c
        .take(anchor_count * bintree::eip7864::witness::ANCHOR_LENGTH)?
        .chunks(bintree::eip7864::witness::ANCHOR_LENGTH)
        .map(<[u8]>::to_vec)
        .collect();
    let slots = match layout {
        Layout::Eip7864 => {
            let bitmap = c.take(sibling_count.div_ceil(8))?;
            (0..sibling_count)
                .map(|j| bitmap[j / 8] >> (7 - j % 8) & 1 == 1)
                .collect()
        }
        Layout::Eip8297 => Vec::new(),
    };
    let hashes = c
        .take(32 * hash_count)?
        .chunks(32)
        .filter_map(|h| h.try_into().ok())
        .collect();
    (c.left() == 0).then_some(Sections {
        layout,
        header,
        keys,
        ends,
        branches,
        others,
        anchors,
        slots,
        hashes,
    })
}

fn count(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

impl Sections {
    /// The bytes, with the header's counts those of the lists, and where each section lies.
    pub(crate) fn write(&self) -> (Vec<u8>, SectionMap) {
        let mut out = Vec::new();
        let mut map = SectionMap::new();
        let mut mark = |name: &'static str, out: &Vec<u8>, start: usize| {
            if out.len() > start {
                map.push((name, start..out.len()));
            }
        };
        out.extend_from_slice(&self.header);
        count(&mut out, self.keys.len());
        count(&mut out, self.others.len());
        let siblings = match self.layout {
            Layout::Eip7864 => self.slots.len(),
            Layout::Eip8297 => self.hashes.len(),
        };
        count(&mut out, siblings);
        count(&mut out, self.hashes.len());
        match self.layout {
            Layout::Eip8297 => count(&mut out, self.branches.len()),
            Layout::Eip7864 => count(&mut out, self.anchors.len()),
        }
        mark("header", &out, 0);
        if self.layout == Layout::Eip8297 {
            let start = out.len();
            out.extend(self.keys.iter().map(|k| k.key.len() as u8));
            mark("key_lengths", &out, start);
        }
        let start = out.len();
        for k in &self.keys {
            out.extend_from_slice(&k.key);
        }
        mark("keys", &out, start);
        let start = out.len();
        out.extend(self.keys.iter().map(|k| k.flags));
        mark("flags", &out, start);
        let start = out.len();
        for e in &self.ends {
            out.extend_from_slice(e);
        }
        mark("ends", &out, start);
        let start = out.len();
        for k in &self.keys {
            if k.flags & PRE != 0 {
                out.extend_from_slice(&k.pre);
            }
            if k.flags & SET != 0 {
                out.extend_from_slice(&k.new);
            }
        }
        mark("values", &out, start);
        let start = out.len();
        for b in &self.branches {
            out.extend_from_slice(b);
        }
        mark("branches", &out, start);
        let start = out.len();
        for o in &self.others {
            out.extend_from_slice(o);
        }
        mark("others", &out, start);
        let start = out.len();
        for a in &self.anchors {
            out.extend_from_slice(a);
        }
        mark("anchors", &out, start);
        let start = out.len();
        let mut bitmap = vec![0u8; self.slots.len().div_ceil(8)];
        for (j, &s) in self.slots.iter().enumerate() {
            if s {
                bitmap[j / 8] |= 1 << (7 - j % 8);
            }
        }
        out.extend_from_slice(&bitmap);
        mark("bitmap", &out, start);
        let start = out.len();
        for h in &self.hashes {
            out.extend_from_slice(h);
        }
        mark("hashes", &out, start);
        (out, map)
    }

    /// Fits the EIP-7864 end records to the keys' distinct stems after a key edit: missing
    /// records copy the last one, extra ones are dropped.
    pub(crate) fn fit_ends(&mut self) {
        if self.layout != Layout::Eip7864 {
            return;
        }
        let want = distinct_stems(&self.keys);
        let last = self.ends.last().cloned().unwrap_or_else(|| vec![0, 0]);
        self.ends.resize(want, last);
    }

    /// Index of the end record of key `i`: its stem's (EIP-7864) or its own (EIP-8297).
    pub(crate) fn end_of(&self, i: usize) -> usize {
        match self.layout {
            Layout::Eip8297 => i,
            Layout::Eip7864 => distinct_stems(&self.keys[..=i.min(self.keys.len() - 1)]) - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honest_witnesses_read_and_write_back_byte_for_byte() {
        use bintree::witness::Write;
        let mut t = bintree::eip7864::Tree::<bintree::Sha256>::new();
        t.insert(&[1; 32], &[7; 32]).expect("insert");
        t.insert(&[9; 32], &[8; 32]).expect("insert");
        let bytes = t
            .witness(&[
                ([1u8; 32], Write::Set([3; 32])),
                ([2u8; 32], Write::Unchanged),
            ])
            .expect("witness");
        let s = read(Layout::Eip7864, &bytes).expect("sections");
        assert_eq!(s.keys.len(), 2);
        assert_eq!(s.keys[0].flags, PRE | SET);
        assert_eq!(s.write().0, bytes);
        let names: Vec<&str> = s.write().1.iter().map(|(n, _)| *n).collect();
        assert!(
            names.contains(&"values") && names.contains(&"bitmap"),
            "{names:?}"
        );
        assert!(s.anchors.is_empty());
        // A key alone in the root's empty right child: the left child is anchored.
        let bytes = t
            .witness(&[([0xf0u8; 32], Write::Set([4; 32]))])
            .expect("witness");
        let s = read(Layout::Eip7864, &bytes).expect("sections");
        assert_eq!(s.anchors.len(), 1);
        assert_eq!(
            s.anchors[0][1..32],
            [1; 31],
            "the first stem below the left child"
        );
        assert_eq!(s.write().0, bytes);
        assert!(s.write().1.iter().any(|(n, _)| *n == "anchors"));
        assert!(read(Layout::Eip7864, &bytes[..bytes.len() - 1]).is_none());

        let mut t = bintree::eip8297::Tree::<bintree::Blake3>::new();
        for k in [[1u8; 34], [2; 34], [3; 34]] {
            t.insert(&k, &[5; 32]).expect("insert");
        }
        let bytes = t
            .witness(&[([1u8; 34], Write::Delete), ([4u8; 34], Write::Set([6; 32]))])
            .expect("witness");
        let s = read(Layout::Eip8297, &bytes).expect("sections");
        assert_eq!(s.keys[0].flags, PRE | DELETE);
        assert_eq!(s.write().0, bytes);
        // A witness one byte short or long does not line up.
        assert!(read(Layout::Eip8297, &bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read(Layout::Eip8297, &longer).is_none());
    }
}
