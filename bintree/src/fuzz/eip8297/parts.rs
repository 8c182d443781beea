//! An EIP-8297 witness split into its sections (`spec/BINARY.md` §7), to be edited and
//! encoded again. Read without the verifier's checks: only the lengths the counts, the key
//! lengths and the other records' length fields give.

use std::vec::Vec;

use crate::fuzz::sections::{put_count, Cursor};

/// The sections of an EIP-8297 witness; [`Parts::encode`] writes the counts from them (the
/// sibling count equal to the hash count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    /// Version, tree and hash bytes.
    pub head: [u8; 3],
    /// The keys (their lengths are written before them).
    pub keys: Vec<Vec<u8>>,
    /// One flags byte per key.
    pub flags: Vec<u8>,
    /// One end record (u16be depth, kind) per key.
    pub ends: Vec<[u8; 3]>,
    /// Pre-values and new values, in key order.
    pub values: Vec<[u8; 32]>,
    /// The branch prefix lengths (u16be).
    pub branches: Vec<[u8; 2]>,
    /// The other records, each whole (tag first).
    pub others: Vec<Vec<u8>>,
    /// The sibling hashes.
    pub hashes: Vec<[u8; 32]>,
}

/// The size of the other record that starts `rest`, from its tag and length field.
pub(crate) fn other_size(rest: &[u8]) -> Option<usize> {
    match rest.first()? {
        0 => Some(2 + usize::from(*rest.get(1)?) + 32),
        1 => {
            let len = usize::from(u16::from_be_bytes([*rest.get(1)?, *rest.get(2)?]));
            Some(3 + len.div_ceil(8) + 64)
        }
        _ => None,
    }
}

impl Parts {
    /// The sections of `bytes`, when its counts and length fields describe exactly its
    /// length and its sibling and hash counts agree.
    pub fn parse(bytes: &[u8]) -> Option<Parts> {
        let mut r = Cursor::new(bytes);
        let head: [u8; 3] = r.take(3)?.try_into().ok()?;
        let (k, o, s, h, b) = (r.count()?, r.count()?, r.count()?, r.count()?, r.count()?);
        if s != h {
            return None;
        }
        let lengths = r.take(k)?;
        let mut keys = Vec::new();
        for &l in lengths {
            keys.push(r.take(usize::from(l))?.to_vec());
        }
        let flags = r.take(k)?.to_vec();
        let ends = r.chunks(k)?;
        let v: usize = flags
            .iter()
            .map(|&f| usize::from(f & 1) + usize::from((f >> 1) & 1))
            .sum();
        let values = r.chunks(v)?;
        let branches = r.chunks(b)?;
        let mut others = Vec::new();
        for _ in 0..o {
            let rest = r.peek();
            let size = other_size(rest)?;
            others.push(r.take(size)?.to_vec());
        }
        let hashes = r.chunks(h)?;
        r.is_done().then_some(Parts {
            head,
            keys,
            flags,
            ends,
            values,
            branches,
            others,
            hashes,
        })
    }

    /// The witness bytes: the header with the sections' counts, then the sections (a key
    /// longer than 255 bytes has its length byte cut to 8 bits).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.head.to_vec();
        let h = self.hashes.len();
        for n in [
            self.keys.len(),
            self.others.len(),
            h,
            h,
            self.branches.len(),
        ] {
            put_count(&mut out, n);
        }
        out.extend(self.keys.iter().map(|k| k.len() as u8));
        self.keys.iter().for_each(|x| out.extend_from_slice(x));
        out.extend_from_slice(&self.flags);
        self.ends.iter().for_each(|x| out.extend_from_slice(x));
        self.values.iter().for_each(|x| out.extend_from_slice(x));
        self.branches.iter().for_each(|x| out.extend_from_slice(x));
        self.others.iter().for_each(|x| out.extend_from_slice(x));
        self.hashes.iter().for_each(|x| out.extend_from_slice(x));
        out
    }

    /// The index in `values` of key `i`'s first value.
    pub fn value_index(&self, i: usize) -> usize {
        self.flags
            .iter()
            .take(i)
            .map(|&f| usize::from(f & 1) + usize::from((f >> 1) & 1))
            .sum()
    }
}
