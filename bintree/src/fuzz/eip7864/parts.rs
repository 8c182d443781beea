//! An EIP-7864 witness split into its sections (`spec/BINARY.md` §3), to be edited and
//! encoded again. Read without the verifier's checks: only the lengths the counts give.

use std::vec::Vec;

use crate::fuzz::sections::{put_count, Cursor};

/// The sections of an EIP-7864 witness; [`Parts::encode`] writes the counts from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    /// Version, tree and hash bytes.
    pub head: [u8; 3],
    /// The keys.
    pub keys: Vec<[u8; 32]>,
    /// One flags byte per key.
    pub flags: Vec<u8>,
    /// One end record (depth, kind) per distinct stem.
    pub ends: Vec<[u8; 2]>,
    /// Pre-values and new values, in key order.
    pub values: Vec<[u8; 32]>,
    /// Other-stem records: stem ‖ sub-index ‖ value of the stem's first present leaf.
    pub others: Vec<[u8; 64]>,
    /// Anchors: depth ‖ stem ‖ sub-index ‖ value of the first stem below an empty end's
    /// untouched sibling.
    pub anchors: Vec<[u8; 65]>,
    /// The sibling slot count.
    pub slots: usize,
    /// The sibling bitmap.
    pub bitmap: Vec<u8>,
    /// The sibling hashes.
    pub hashes: Vec<[u8; 32]>,
}

/// Values (pre and new) a flags byte makes a key carry.
pub(crate) fn values_of(f: u8) -> usize {
    usize::from(f & 1) + usize::from((f >> 1) & 1)
}

impl Parts {
    /// The sections of `bytes`, when the counts in its header describe exactly its length.
    pub fn parse(bytes: &[u8]) -> Option<Parts> {
        let mut r = Cursor::new(bytes);
        let head: [u8; 3] = r.take(3)?.try_into().ok()?;
        let (k, o, s, h, a) = (r.count()?, r.count()?, r.count()?, r.count()?, r.count()?);
        let keys: Vec<[u8; 32]> = r.chunks(k)?;
        let flags = r.take(k)?.to_vec();
        let stems = (0..k)
            .filter(|&i| i == 0 || keys[i - 1][..31] != keys[i][..31])
            .count();
        let ends = r.chunks(stems)?;
        let v: usize = flags.iter().map(|&f| values_of(f)).sum();
        let values = r.chunks(v)?;
        let others = r.chunks(o)?;
        let anchors = r.chunks(a)?;
        let bitmap = r.take(s.div_ceil(8))?.to_vec();
        let hashes = r.chunks(h)?;
        r.is_done().then_some(Parts {
            head,
            keys,
            flags,
            ends,
            values,
            others,
            anchors,
            slots: s,
            bitmap,
            hashes,
        })
    }

    /// The witness bytes: the header with the sections' counts, then the sections.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.head.to_vec();
        put_count(&mut out, self.keys.len());
        put_count(&mut out, self.others.len());
        put_count(&mut out, self.slots);
        put_count(&mut out, self.hashes.len());
        put_count(&mut out, self.anchors.len());
        self.keys.iter().for_each(|x| out.extend_from_slice(x));
        out.extend_from_slice(&self.flags);
        self.ends.iter().for_each(|x| out.extend_from_slice(x));
        self.values.iter().for_each(|x| out.extend_from_slice(x));
        self.others.iter().for_each(|x| out.extend_from_slice(x));
        self.anchors.iter().for_each(|x| out.extend_from_slice(x));
        out.extend_from_slice(&self.bitmap);
        self.hashes.iter().for_each(|x| out.extend_from_slice(x));
        out
    }

    /// The index in `values` of key `i`'s first value.
    pub fn value_index(&self, i: usize) -> usize {
        self.flags.iter().take(i).map(|&f| values_of(f)).sum()
    }

    /// The index of key `i`'s stem among the distinct stems.
    pub fn stem_index(&self, i: usize) -> usize {
        (1..=i.min(self.keys.len().saturating_sub(1)))
            .filter(|&j| self.keys[j - 1][..31] != self.keys[j][..31])
            .count()
    }

    /// Bit `slot` of the bitmap.
    pub fn bit(&self, slot: usize) -> bool {
        self.bitmap
            .get(slot / 8)
            .is_some_and(|b| b & (0x80 >> (slot % 8)) != 0)
    }

    /// The number of 1 bits before `slot`: the index of the slot's hash when its bit is 1.
    pub fn rank(&self, slot: usize) -> usize {
        (0..slot).filter(|&j| self.bit(j)).count()
    }

    /// Flips bit `slot` of the bitmap (the bitmap grown when it is too short).
    pub fn flip_bit(&mut self, slot: usize) {
        if self.bitmap.len() <= slot / 8 {
            self.bitmap.resize(slot / 8 + 1, 0);
        }
        self.bitmap[slot / 8] ^= 0x80 >> (slot % 8);
    }
}
