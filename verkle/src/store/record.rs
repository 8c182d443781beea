//! The byte form of a stored node (store contents are untrusted: decoding is total).
//!
//! Format 2 (the tag byte's high bit marks it):
//!
//! ```text
//! internal: 0x81 ‖ C(64) ‖ mtf(C)(32, LE) ‖ n(u16 LE, ≤ 256)
//!           ‖ n × [index(1) ‖ kind(1: 1 internal, 2 leaf) ‖ mtf(child)(32, LE)]   (index ascending)
//! leaf:     0x83 ‖ stem(31) ‖ C ‖ mtf(C) ‖ halves(1)
//!           ‖ [C1 ‖ mtf(C1)]   (if halves bit 0)  ‖ [C2 ‖ mtf(C2)]   (if halves bit 1)
//!           ‖ n(u16 LE, 1..=256) ‖ n × [suffix(1) ‖ value(32)]                      (suffix ascending)
//! ```
//!
//! A suffix commitment left out is the identity, with map-to-field scalar 0 (a half with no
//! value): most stems have values in one half only, and each such leaf record is 96 bytes
//! (27 % for a one-value leaf) shorter than with both. Leaves of the first version of
//! format 2 (tag 0x82: all three commitments always present, no `halves` byte) still
//! decode; they are rewritten as 0x83 when their leaf next changes.
//!
//! A commitment is its affine Bandersnatch coordinates `x(32, LE) ‖ y(32, LE)`, both below
//! p, of the representative whose y is the larger of `y` and `-y`: decoding checks that the point is on the curve (a few multiplications) instead of
//! recovering y from x (a square root, tens of microseconds; a leaf has three). Format 1
//! (tags 0x01 and 0x02, compressed points) is rejected with [`RecordError::OldFormat`].
//!
//! The decoder does not repeat the subgroup check: records hold only points the tree
//! computed, a parent's record pins each child's map-to-field scalar, and a loaded node's
//! scalar is checked against it.

use ark_ed_on_bls12_381_bandersnatch::{EdwardsAffine, EdwardsProjective};
use ark_ff::{BigInt, PrimeField};
use banderwagon::arith::{batch_inversion, One};
use banderwagon::{fr_from_le_bytes_canonical, fr_to_le_bytes, Element, Fq, Fr};

use crate::keys::{Stem, Value, STEM_LEN};

/// Child kind bytes inside an internal record.
const TAG_INTERNAL: u8 = 1;
const TAG_LEAF: u8 = 2;
/// Record tags of format 2.
const RECORD_INTERNAL: u8 = 0x80 | TAG_INTERNAL;
const RECORD_LEAF_FULL: u8 = 0x80 | TAG_LEAF;
/// Leaf records that leave out empty halves.
const RECORD_LEAF: u8 = 0x83;
/// `halves` bits of a leaf record: C1 stored, C2 stored.
const HALF_C1: u8 = 1;
const HALF_C2: u8 = 2;
/// Bytes of a stored commitment.
const POINT_LEN: usize = 64;

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
    /// A record of the first format (compressed points), written by an older build.
    #[error(
        "node record of format 1 (tag {tag:#04x}): the datadir was written by an older \
         fverkle; rebuild it"
    )]
    OldFormat {
        /// The byte found.
        tag: u8,
    },
    /// A commitment's coordinates are not canonical or not a point of the curve.
    #[error("{field}: not a Bandersnatch point")]
    BadPoint {
        /// Which commitment.
        field: &'static str,
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
    /// A leaf's `halves` byte has bits other than its two.
    #[error("leaf halves byte {byte:#04x} has unknown bits")]
    BadHalves {
        /// The byte found.
        byte: u8,
    },
    /// Entries are not strictly ascending.
    #[error("entry {position} is not above the previous one")]
    NotAscending {
        /// Index of the entry.
        position: usize,
    },
}

/// An element of Fq from 32 little-endian bytes, if below p.
fn fq_from_le(bytes: &[u8]) -> Option<Fq> {
    let mut limbs = [0u64; 4];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        *limb = u64::from_le_bytes(w);
    }
    Fq::from_bigint(BigInt::new(limbs))
}

fn fq_to_le(v: &Fq, out: &mut [u8]) {
    for (limb, chunk) in v.into_bigint().0.iter().zip(out.chunks_exact_mut(8)) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
}

/// `x ‖ y` (little-endian) of each point's canonical affine representative, with one
/// inversion for all.
fn affine_points(points: &[Element]) -> Vec<[u8; POINT_LEN]> {
    let mut zs: Vec<Fq> = points.iter().map(|p| p.as_projective().z).collect();
    batch_inversion(&mut zs);
    points
        .iter()
        .zip(zs)
        .map(|(p, zi)| {
            let p: &EdwardsProjective = p.as_projective();
            let mut out = [0u8; POINT_LEN];
            // The identity is (0, 1); z is never zero for a point of the curve.
            let (x, y) = if zi == Fq::from(0u64) {
                (Fq::from(0u64), Fq::one())
            } else {
                (p.x * zi, p.y * zi)
            };
            // (x, y) and (-x, -y) are the same element: store the one whose y is the
            // larger of y and -y, so equal trees give byte-equal records.
            let (x, y) = if y.into_bigint() > (-y).into_bigint() {
                (x, y)
            } else {
                (-x, -y)
            };
            fq_to_le(&x, &mut out[..32]);
            fq_to_le(&y, &mut out[32..]);
            out
        })
        .collect()
}

/// A leaf's value count and `suffix ‖ value` entries.
fn push_values(out: &mut Vec<u8>, values: &[(u8, Value)]) {
    out.extend_from_slice(&(values.len() as u16).to_le_bytes());
    for (s, v) in values {
        out.push(*s);
        out.extend_from_slice(v);
    }
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
        let b = self.take(POINT_LEN, field)?;
        let bad = || RecordError::BadPoint { field };
        let x = fq_from_le(&b[..32]).ok_or_else(bad)?;
        let y = fq_from_le(&b[32..]).ok_or_else(bad)?;
        let p = EdwardsAffine::new_unchecked(x, y);
        if !p.is_on_curve() {
            return Err(bad());
        }
        Ok(Element::from_projective_unchecked(p.into()))
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
        let points = affine_points(&self.points());
        self.encode(&points)
    }

    /// Encodes many records, normalising all their commitments with one field inversion.
    pub fn batch_to_bytes(records: &[StoredNode]) -> Vec<Vec<u8>> {
        let all: Vec<Element> = records.iter().flat_map(|r| r.points()).collect();
        let affine = affine_points(&all);
        let mut at = 0;
        records
            .iter()
            .map(|r| {
                let n = r.points().len();
                let out = r.encode(&affine[at..at + n]);
                at += n;
                out
            })
            .collect()
    }

    /// The commitments of the record, in encoding order.
    fn points(&self) -> Vec<Element> {
        match self {
            StoredNode::Internal(n) => vec![n.commitment],
            StoredNode::Leaf(l) => vec![l.commitment, l.c1, l.c2],
        }
    }

    /// Encodes the record given its commitments' affine encodings (as [`StoredNode::points`]).
    fn encode(&self, points: &[[u8; POINT_LEN]]) -> Vec<u8> {
        match self {
            StoredNode::Internal(n) => {
                let mut out = Vec::with_capacity(99 + 34 * n.children.len());
                out.push(RECORD_INTERNAL);
                if let Some(p) = points.first() {
                    out.extend_from_slice(p);
                }
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
                let mut out = Vec::with_capacity(1 + 31 + 3 * 96 + 3 + 33 * l.values.len());
                out.push(RECORD_LEAF);
                out.extend_from_slice(&l.stem);
                // A half is left out when its commitment is the identity with scalar 0.
                let halves = [(&l.c1, &l.c1_mtf, HALF_C1), (&l.c2, &l.c2_mtf, HALF_C2)]
                    .into_iter()
                    .filter(|(c, m, _)| !(c.is_identity() && **m == Fr::from(0u64)))
                    .fold(0u8, |acc, (_, _, bit)| acc | bit);
                if let Some(p) = points.first() {
                    out.extend_from_slice(p);
                }
                out.extend_from_slice(&fr_to_le_bytes(&l.mtf));
                out.push(halves);
                for (i, (m, bit)) in [(&l.c1_mtf, HALF_C1), (&l.c2_mtf, HALF_C2)]
                    .into_iter()
                    .enumerate()
                {
                    if halves & bit != 0 {
                        if let Some(p) = points.get(i + 1) {
                            out.extend_from_slice(p);
                        }
                        out.extend_from_slice(&fr_to_le_bytes(m));
                    }
                }
                push_values(&mut out, &l.values);
                out
            }
        }
    }

    /// Decodes a record, checking every field; never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<StoredNode, RecordError> {
        let mut r = Reader { bytes, offset: 0 };
        let node = match r.byte("tag")? {
            tag @ (TAG_INTERNAL | TAG_LEAF) => return Err(RecordError::OldFormat { tag }),
            RECORD_INTERNAL => {
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
            tag @ (RECORD_LEAF | RECORD_LEAF_FULL) => {
                let mut stem = [0u8; STEM_LEN];
                stem.copy_from_slice(r.take(STEM_LEN, "stem")?);
                let commitment = r.point("commitment")?;
                let mtf = r.scalar("commitment mtf")?;
                let halves = if tag == RECORD_LEAF {
                    let byte = r.byte("halves")?;
                    if byte & !(HALF_C1 | HALF_C2) != 0 {
                        return Err(RecordError::BadHalves { byte });
                    }
                    byte
                } else {
                    HALF_C1 | HALF_C2
                };
                let mut half = |bit: u8, point: &'static str, scalar: &'static str| {
                    if halves & bit == 0 {
                        return Ok((Element::identity(), Fr::from(0u64)));
                    }
                    Ok::<_, RecordError>((r.point(point)?, r.scalar(scalar)?))
                };
                let (c1, c1_mtf) = half(HALF_C1, "C1", "C1 mtf")?;
                let (c2, c2_mtf) = half(HALF_C2, "C2", "C2 mtf")?;
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
mod tests;
