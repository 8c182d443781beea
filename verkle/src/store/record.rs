//! The byte form of a stored node (store contents are untrusted: decoding is total).
//!
//! ```text
//! internal: 0x01 ‖ C(32, compressed) ‖ mtf(C)(32, LE) ‖ n(u16 LE, ≤ 256)
//!           ‖ n × [index(1) ‖ kind(1: 1 internal, 2 leaf) ‖ mtf(child)(32, LE)]   (index ascending)
//! leaf:     0x02 ‖ stem(31) ‖ C ‖ mtf(C) ‖ C1 ‖ mtf(C1) ‖ C2 ‖ mtf(C2)
//!           ‖ n(u16 LE, 1..=256) ‖ n × [suffix(1) ‖ value(32)]                      (suffix ascending)
//! ```

use banderwagon::{fr_from_le_bytes_canonical, fr_to_le_bytes, DecodeError, Element, Fr};

use crate::keys::{Stem, Value, STEM_LEN};

const TAG_INTERNAL: u8 = 1;
const TAG_LEAF: u8 = 2;

/// Whether a node is internal or a leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// An internal node (256 children).
    Internal,
    /// A leaf node (one stem, up to 256 values).
    Leaf,
}

impl NodeKind {
    fn to_byte(self) -> u8 {
        match self {
            NodeKind::Internal => TAG_INTERNAL,
            NodeKind::Leaf => TAG_LEAF,
        }
    }
}

/// A child of a stored internal node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredChild {
    /// Position in the parent (a stem byte).
    pub index: u8,
    /// What the child is.
    pub kind: NodeKind,
    /// `map_to_scalar_field` of the child's commitment (what the parent commits to).
    pub mtf: Fr,
}

/// A stored internal node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredInternal {
    /// `C = Σ mtf(child_i)·G_i`.
    pub commitment: Element,
    /// `map_to_scalar_field(C)`.
    pub mtf: Fr,
    /// Non-empty children, index ascending.
    pub children: Vec<StoredChild>,
}

/// A stored leaf node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredLeaf {
    /// The stem.
    pub stem: Stem,
    /// `C = G0 + stem·G1 + mtf(C1)·G2 + mtf(C2)·G3`.
    pub commitment: Element,
    /// `map_to_scalar_field(C)`.
    pub mtf: Fr,
    /// Commitment to suffixes 0..128.
    pub c1: Element,
    /// `map_to_scalar_field(C1)`.
    pub c1_mtf: Fr,
    /// Commitment to suffixes 128..256.
    pub c2: Element,
    /// `map_to_scalar_field(C2)`.
    pub c2_mtf: Fr,
    /// Present values, suffix ascending.
    pub values: Vec<(u8, Value)>,
}

/// A stored node.
// A decoded record is short-lived (decoded, then moved into the tree): no box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredNode {
    /// An internal node.
    Internal(StoredInternal),
    /// A leaf node.
    Leaf(StoredLeaf),
}

/// Why bytes are not a node record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The first byte is not a known node tag.
    #[error("unknown node tag {tag:#04x}")]
    UnknownTag {
        /// The byte found.
        tag: u8,
    },
    /// The record ends early.
    #[error("record truncated: {field} needs {needed} bytes at offset {offset}, {available} left")]
    Truncated {
        /// The field being read.
        field: &'static str,
        /// Offset of the field.
        offset: usize,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// Bytes follow the record.
    #[error("{extra} trailing bytes after the record")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// A commitment is not a valid point encoding.
    #[error("{field}: {source}")]
    BadPoint {
        /// Which commitment.
        field: &'static str,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// A scalar is not below the group order.
    #[error("{field}: scalar not canonical")]
    BadScalar {
        /// Which scalar.
        field: &'static str,
    },
    /// A child kind byte is neither 1 nor 2.
    #[error("child {position}: unknown kind byte {byte:#04x}")]
    BadKind {
        /// Index of the child entry.
        position: usize,
        /// The byte found.
        byte: u8,
    },
    /// Entry count out of range.
    #[error("entry count {count} out of range {min}..={max}")]
    BadCount {
        /// Count found.
        count: usize,
        /// Smallest allowed.
        min: usize,
        /// Largest allowed.
        max: usize,
    },
    /// Entries are not strictly ascending.
    #[error("entry {position} is not above the previous one")]
    NotAscending {
        /// Index of the entry.
        position: usize,
    },
}

struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], RecordError> {
        let available = self.bytes.len() - self.offset;
        if available < n {
            return Err(RecordError::Truncated {
                field,
                offset: self.offset,
                needed: n,
                available,
            });
        }
        let s = &self.bytes[self.offset..self.offset + n];
        self.offset += n;
        Ok(s)
    }

    fn byte(&mut self, field: &'static str) -> Result<u8, RecordError> {
        Ok(self.take(1, field)?[0])
    }

    fn point(&mut self, field: &'static str) -> Result<Element, RecordError> {
        Element::from_bytes(self.take(32, field)?)
            .map_err(|source| RecordError::BadPoint { field, source })
    }

    fn scalar(&mut self, field: &'static str) -> Result<Fr, RecordError> {
        fr_from_le_bytes_canonical(self.take(32, field)?)
            .map_err(|_| RecordError::BadScalar { field })
    }

    fn count(&mut self, min: usize) -> Result<usize, RecordError> {
        let b = self.take(2, "entry count")?;
        let count = usize::from(u16::from_le_bytes([b[0], b[1]]));
        if !(min..=256).contains(&count) {
            return Err(RecordError::BadCount {
                count,
                min,
                max: 256,
            });
        }
        Ok(count)
    }
}

impl StoredNode {
    /// The node's kind.
    pub fn kind(&self) -> NodeKind {
        match self {
            StoredNode::Internal(_) => NodeKind::Internal,
            StoredNode::Leaf(_) => NodeKind::Leaf,
        }
    }

    /// `map_to_scalar_field` of the node's commitment.
    pub fn mtf(&self) -> Fr {
        match self {
            StoredNode::Internal(n) => n.mtf,
            StoredNode::Leaf(l) => l.mtf,
        }
    }

    /// Encodes the record.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            StoredNode::Internal(n) => {
                let mut out = Vec::with_capacity(67 + 34 * n.children.len());
                out.push(TAG_INTERNAL);
                out.extend_from_slice(&n.commitment.to_bytes());
                out.extend_from_slice(&fr_to_le_bytes(&n.mtf));
                out.extend_from_slice(&(n.children.len() as u16).to_le_bytes());
                for c in &n.children {
                    out.push(c.index);
                    out.push(c.kind.to_byte());
                    out.extend_from_slice(&fr_to_le_bytes(&c.mtf));
                }
                out
            }
            StoredNode::Leaf(l) => {
                let mut out = Vec::with_capacity(1 + 31 + 6 * 32 + 2 + 33 * l.values.len());
                out.push(TAG_LEAF);
                out.extend_from_slice(&l.stem);
                for (p, s) in [
                    (&l.commitment, &l.mtf),
                    (&l.c1, &l.c1_mtf),
                    (&l.c2, &l.c2_mtf),
                ] {
                    out.extend_from_slice(&p.to_bytes());
                    out.extend_from_slice(&fr_to_le_bytes(s));
                }
                out.extend_from_slice(&(l.values.len() as u16).to_le_bytes());
                for (s, v) in &l.values {
                    out.push(*s);
                    out.extend_from_slice(v);
                }
                out
            }
        }
    }

    /// Decodes a record, checking every field; never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<StoredNode, RecordError> {
        let mut r = Reader { bytes, offset: 0 };
        let node = match r.byte("tag")? {
            TAG_INTERNAL => {
                let commitment = r.point("commitment")?;
                let mtf = r.scalar("commitment mtf")?;
                let n = r.count(0)?;
                let mut children = Vec::with_capacity(n);
                for position in 0..n {
                    let index = r.byte("child index")?;
                    let kind = match r.byte("child kind")? {
                        TAG_INTERNAL => NodeKind::Internal,
                        TAG_LEAF => NodeKind::Leaf,
                        byte => return Err(RecordError::BadKind { position, byte }),
                    };
                    let mtf = r.scalar("child mtf")?;
                    if children
                        .last()
                        .is_some_and(|p: &StoredChild| p.index >= index)
                    {
                        return Err(RecordError::NotAscending { position });
                    }
                    children.push(StoredChild { index, kind, mtf });
                }
                StoredNode::Internal(StoredInternal {
                    commitment,
                    mtf,
                    children,
                })
            }
            TAG_LEAF => {
                let mut stem = [0u8; STEM_LEN];
                stem.copy_from_slice(r.take(STEM_LEN, "stem")?);
                let commitment = r.point("commitment")?;
                let mtf = r.scalar("commitment mtf")?;
                let c1 = r.point("C1")?;
                let c1_mtf = r.scalar("C1 mtf")?;
                let c2 = r.point("C2")?;
                let c2_mtf = r.scalar("C2 mtf")?;
                let n = r.count(1)?;
                let mut values: Vec<(u8, Value)> = Vec::with_capacity(n);
                for position in 0..n {
                    let s = r.byte("suffix")?;
                    let mut v = [0u8; 32];
                    v.copy_from_slice(r.take(32, "value")?);
                    if values.last().is_some_and(|(p, _)| *p >= s) {
                        return Err(RecordError::NotAscending { position });
                    }
                    values.push((s, v));
                }
                StoredNode::Leaf(StoredLeaf {
                    stem,
                    commitment,
                    mtf,
                    c1,
                    c1_mtf,
                    c2,
                    c2_mtf,
                    values,
                })
            }
            tag => return Err(RecordError::UnknownTag { tag }),
        };
        let extra = bytes.len() - r.offset;
        if extra != 0 {
            return Err(RecordError::TrailingBytes { extra });
        }
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_leaf() -> StoredNode {
        let g = Element::generator();
        StoredNode::Leaf(StoredLeaf {
            stem: [3; 31],
            commitment: g,
            mtf: Fr::from(5u64),
            c1: g.double(),
            c1_mtf: Fr::from(6u64),
            c2: Element::identity(),
            c2_mtf: Fr::from(0u64),
            values: vec![(0, [1; 32]), (200, [2; 32])],
        })
    }

    #[test]
    fn round_trips() {
        let leaf = sample_leaf();
        assert_eq!(StoredNode::from_bytes(&leaf.to_bytes()).unwrap(), leaf);
        let internal = StoredNode::Internal(StoredInternal {
            commitment: Element::generator(),
            mtf: Fr::from(9u64),
            children: vec![
                StoredChild {
                    index: 1,
                    kind: NodeKind::Leaf,
                    mtf: Fr::from(1u64),
                },
                StoredChild {
                    index: 255,
                    kind: NodeKind::Internal,
                    mtf: Fr::from(2u64),
                },
            ],
        });
        assert_eq!(
            StoredNode::from_bytes(&internal.to_bytes()).unwrap(),
            internal
        );
    }

    #[test]
    fn rejects_every_malformation() {
        let good = sample_leaf().to_bytes();
        assert!(matches!(
            StoredNode::from_bytes(&[]),
            Err(RecordError::Truncated { field: "tag", .. })
        ));
        assert_eq!(
            StoredNode::from_bytes(&[9]),
            Err(RecordError::UnknownTag { tag: 9 })
        );
        // Every strict prefix fails without panicking.
        for n in 0..good.len() {
            assert!(StoredNode::from_bytes(&good[..n]).is_err(), "prefix {n}");
        }
        let mut extra = good.clone();
        extra.push(0);
        assert_eq!(
            StoredNode::from_bytes(&extra),
            Err(RecordError::TrailingBytes { extra: 1 })
        );
        // Values out of order.
        let mut swapped = good.clone();
        let first = good.len() - 66;
        swapped[first] = 201;
        assert_eq!(
            StoredNode::from_bytes(&swapped),
            Err(RecordError::NotAscending { position: 1 })
        );
        // A commitment that is not a point (x = p).
        let mut bad_point = good.clone();
        bad_point[32..64].copy_from_slice(
            &hex::decode("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")
                .unwrap(),
        );
        assert!(matches!(
            StoredNode::from_bytes(&bad_point),
            Err(RecordError::BadPoint {
                field: "commitment",
                ..
            })
        ));
        // A scalar >= r.
        let mut bad_scalar = good.clone();
        bad_scalar[64..96].copy_from_slice(&[0xff; 32]);
        assert_eq!(
            StoredNode::from_bytes(&bad_scalar),
            Err(RecordError::BadScalar {
                field: "commitment mtf"
            })
        );
        // A leaf with no values.
        let mut empty = good[..good.len() - 2 * 33 - 2].to_vec();
        empty.extend_from_slice(&0u16.to_le_bytes());
        assert_eq!(
            StoredNode::from_bytes(&empty),
            Err(RecordError::BadCount {
                count: 0,
                min: 1,
                max: 256
            })
        );
    }
}
