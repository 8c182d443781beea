//! Verifying a fractional proof against a coordinator root (`spec/FRACTIONAL.md` §5).

use crate::prelude::*;

use alloc::collections::btree_map::Entry;
use alloc::collections::BTreeMap;

use banderwagon::arith::{One, Zero};
use banderwagon::{Element, Fr};
use bytes::Bytes;
use ipa::{Crs, MultiProof, Opening, Transcript};

use super::coordinator::{fold_multiproof, leaf_hash, MerkleProofError};
pub use super::result::{FractionalKey, VerifiedFractional};
pub use super::verify_error::FractionalVerifyError;
use super::wire::FractionalProof;
use crate::leaf::{stem_field, value_halves};
use crate::preset::{EXT_STATUS_ABSENT_EMPTY, EXT_STATUS_PRESENT, STEM_LEN};
use crate::verify::NodePath;

/// The Fiat–Shamir transcript label of a fractional proof's IPA multiproof.
pub const TRANSCRIPT_LABEL: &[u8] = b"fverkle-fractional";

/// The byte a leaf's path is extended with to reach `C1`; `C2` is one more.
const SUFFIX_TREE_BYTE: u8 = 2;

#[derive(Clone, Copy, Debug)]
enum Draft {
    Internal {
        children: [u64; 4],
    },
    Empty,
    Leaf {
        stem: Option<[u8; STEM_LEN]>,
        present: bool,
    },
    SuffixTree {
        stem_index: usize,
    },
}

/// A proven node's commitment, its map to the field and its encoding.
type Committed = (Element, Fr, [u8; 32]);

#[derive(Clone, Copy, Debug)]
struct Node {
    draft: Draft,
    /// `Some(entry)` for a shard top (its commitment is the entry's).
    top: Option<usize>,
}

/// Decodes `bytes` and verifies the proof against `coordinator_root`.
pub fn verify_fractional_bytes(
    coordinator_root: &[u8; 32],
    bytes: Bytes,
) -> Result<VerifiedFractional, FractionalVerifyError> {
    let proof = FractionalProof::from_bytes(bytes)?;
    verify_fractional(coordinator_root, &proof)
}

/// Verifies a decoded fractional proof against a coordinator root: routing of every stem to
/// its entry's shard, the hypertree shapes below the shard tops, one IPA multiproof over all
/// their openings rooted at the shard commitments, then the shard commitments under
/// `coordinator_root` through the Merkle multiproof.
pub fn verify_fractional(
    coordinator_root: &[u8; 32],
    proof: &FractionalProof,
) -> Result<VerifiedFractional, FractionalVerifyError> {
    use FractionalVerifyError as E;
    let d = usize::from(proof.depth());
    check_routing(proof, d)?;
    let nodes = shapes(proof, d)?;

    // 4. Points: shard commitments, node commitments, then the multiproof.
    let shard_encodings: Vec<&[u8; 32]> = (0..proof.shard_count())
        .filter_map(|i| proof.shard(i).map(|(_, c)| c))
        .collect();
    let node_encodings: Vec<&[u8; 32]> = proof.commitments().collect();
    let decode = |list: &[&[u8; 32]], what: &'static str| -> Result<Vec<Element>, E> {
        list.iter()
            .enumerate()
            .map(|(index, c)| {
                Element::from_bytes(*c).map_err(|source| E::BadPoint {
                    what,
                    index,
                    source,
                })
            })
            .collect()
    };
    let shard_points = decode(&shard_encodings, "shard commitment")?;
    let node_points = decode(&node_encodings, "commitment")?;
    let shard_fields = Element::par_batch_map_to_scalar_field(&shard_points);
    let node_fields = Element::par_batch_map_to_scalar_field(&node_points);

    // 5. Openings in (path, z) order.
    let ordered: Vec<(NodePath, Node, Option<Committed>)> = {
        let mut next = 0usize;
        nodes
            .into_iter()
            .map(|(path, n)| {
                let c = match (n.top, n.draft) {
                    (_, Draft::Empty) => None,
                    (Some(entry), _) => shard_points
                        .get(entry)
                        .zip(shard_fields.get(entry))
                        .zip(shard_encodings.get(entry))
                        .map(|((p, f), e)| (*p, *f, **e)),
                    (None, _) => {
                        let i = next;
                        next += 1;
                        node_points
                            .get(i)
                            .zip(node_fields.get(i))
                            .zip(node_encodings.get(i))
                            .map(|((p, f), e)| (*p, *f, **e))
                    }
                };
                (path, n, c)
            })
            .collect()
    };
    let field_at = |path: Option<NodePath>| -> Fr {
        path.and_then(|p| ordered.binary_search_by(|(q, _, _)| q.cmp(&p)).ok())
            .and_then(|i| ordered.get(i))
            .and_then(|(_, _, c)| c.map(|(_, f, _)| f))
            .unwrap_or_else(Fr::zero)
    };
    // Each opened node's commitment once, the openings referring to it by index.
    let mut commitments: Vec<Element> = Vec::new();
    let mut encodings: Vec<[u8; 32]> = Vec::new();
    let mut openings: Vec<Opening> = Vec::new();
    for (path, n, c) in &ordered {
        let Some((commitment, _, enc)) = *c else {
            continue;
        };
        // A proof's node count fits its 16-bit fields.
        let index = u32::try_from(commitments.len()).expect("fewer than 2^32 nodes");
        let opened_before = openings.len();
        let mut open = |point: u8, result: Fr| {
            openings.push(Opening {
                commitment: index,
                point,
                result,
            });
        };
        match n.draft {
            Draft::Internal { children } => {
                for z in 0..=255u8 {
                    if children[usize::from(z >> 6)] & (1 << (z & 63)) != 0 {
                        open(z, field_at(path.child(z)));
                    }
                }
            }
            Draft::Leaf { stem, .. } => {
                let Some(stem) = stem else { continue };
                open(0, Fr::one());
                open(1, stem_field(&stem));
                for b in [SUFFIX_TREE_BYTE, SUFFIX_TREE_BYTE + 1] {
                    let child = path.child(b);
                    if child
                        .is_some_and(|p| ordered.binary_search_by(|(q, _, _)| q.cmp(&p)).is_ok())
                    {
                        open(b, field_at(child));
                    }
                }
            }
            Draft::SuffixTree { stem_index } => {
                let high = path.as_bytes().last() == Some(&(SUFFIX_TREE_BYTE + 1));
                for (suffix, value) in proof.suffixes(stem_index) {
                    if (suffix >= 128) != high {
                        continue;
                    }
                    let (low, hi) = value_halves(value);
                    let z = 2 * (suffix % 128);
                    open(z, low);
                    open(z + 1, hi);
                }
            }
            Draft::Empty => {}
        }
        if openings.len() > opened_before {
            commitments.push(commitment);
            encodings.push(enc);
        }
    }

    // 6. The IPA multiproof.
    let mp = proof.multiproof();
    if openings.is_empty() {
        if mp.iter().any(|&b| b != 0) {
            return Err(E::BadMultiproof);
        }
    } else {
        let multiproof = MultiProof::from_bytes(mp).map_err(|e| match e {
            ipa::ProofDecodeError::BadPoint { index, source } => E::BadPoint {
                what: "multiproof point",
                index,
                source,
            },
            _ => E::BadMultiproof,
        })?;
        multiproof
            .verify_openings(
                Crs::eip6800(),
                &mut Transcript::new(TRANSCRIPT_LABEL),
                &commitments,
                &encodings,
                &openings,
            )
            .map_err(|_| E::OpeningsRejected)?;
    }

    check_coordinator(proof, coordinator_root)?;
    Ok(VerifiedFractional {
        depth: proof.depth(),
        shards: (0..proof.shard_count())
            .filter_map(|i| proof.shard(i).map(|(x, c)| (x, *c)))
            .collect(),
        keys: proven_keys(proof),
        openings: openings.len(),
    })
}

/// The shard a stem routes to at shard depth `d` (§1).
fn route(d: usize, stem: &[u8; STEM_LEN]) -> u16 {
    if d == 1 {
        u16::from(stem[0])
    } else {
        u16::from_be_bytes([stem[0], stem[1]])
    }
}

/// F-ROUTE: every stem of an entry routes to the entry's shard.
fn check_routing(proof: &FractionalProof, d: usize) -> Result<(), FractionalVerifyError> {
    use FractionalVerifyError as E;
    // 1. Routing.
    for (entry, s) in proof.shards.iter().enumerate() {
        let stems = s.first_stem..s.first_stem + s.stem_count;
        let routes: Vec<u16> = stems
            .clone()
            .filter_map(|i| proof.stem(i).map(|(st, _)| route(d, st)))
            .collect();
        let first = routes.first().copied().unwrap_or(s.index);
        if first != s.index && routes.iter().all(|&r| r == first) {
            return Err(E::ShardIndexMismatch {
                entry,
                index: s.index,
                routes_to: first,
            });
        }
        if let Some((k, &r)) = routes.iter().enumerate().find(|(_, &r)| r != s.index) {
            return Err(E::KeyRoutedToWrongShard {
                stem_index: s.first_stem + k,
                index: s.index,
                routes_to: r,
            });
        }
    }
    Ok(())
}

/// F-SHAPE: the proven nodes below (and at) the shard tops, in path order, each leaf reached
/// only by absent-other stems given its stem from `other_stems`.
fn shapes(
    proof: &FractionalProof,
    d: usize,
) -> Result<BTreeMap<NodePath, Node>, FractionalVerifyError> {
    use FractionalVerifyError as E;
    // 2. Shapes.
    let limit = proof.commitments().len();
    let mut nodes: BTreeMap<NodePath, Node> = BTreeMap::new();
    let mut committed = 0usize;
    for (entry, s) in proof.shards.iter().enumerate() {
        let (_, commitment) = proof.shard(entry).unwrap_or((0, &[0u8; 32]));
        let empty = *commitment == [0u8; 32];
        for stem_index in s.first_stem..s.first_stem + s.stem_count {
            let Some((stem, byte)) = proof.stem(stem_index) else {
                continue;
            };
            let status = byte & 0b111;
            let depth = usize::from(byte >> 3);
            if status > EXT_STATUS_PRESENT || depth < d || depth > STEM_LEN {
                return Err(E::BadExtension { stem_index, byte });
            }
            let absent_empty_top = status == EXT_STATUS_ABSENT_EMPTY && depth == d;
            if empty != absent_empty_top {
                return Err(E::EmptyShardMismatch {
                    stem_index,
                    index: s.index,
                });
            }
            if status != EXT_STATUS_PRESENT {
                if let Some((suffix, _)) = proof.suffixes(stem_index).find(|(_, v)| v.is_some()) {
                    return Err(E::AbsentStemHasValue { stem_index, suffix });
                }
            }
            if empty {
                continue;
            }
            let conflict = |depth| E::PathConflict { stem_index, depth };
            for k in d..depth {
                let path = NodePath::new(&stem[..k]).ok_or(conflict(k))?;
                let index = stem[k];
                match nodes.entry(path) {
                    Entry::Vacant(v) => {
                        let mut children = [0u64; 4];
                        children[usize::from(index >> 6)] |= 1 << (index & 63);
                        v.insert(Node {
                            draft: Draft::Internal { children },
                            top: (k == d).then_some(entry),
                        });
                        committed += usize::from(k > d);
                    }
                    Entry::Occupied(mut o) => match &mut o.get_mut().draft {
                        Draft::Internal { children } => {
                            children[usize::from(index >> 6)] |= 1 << (index & 63)
                        }
                        _ => return Err(conflict(k)),
                    },
                }
            }
            let path = NodePath::new(&stem[..depth]).ok_or(conflict(depth))?;
            let top = (depth == d).then_some(entry);
            match status {
                EXT_STATUS_ABSENT_EMPTY => match nodes.entry(path) {
                    Entry::Vacant(v) => {
                        v.insert(Node {
                            draft: Draft::Empty,
                            top: None,
                        });
                    }
                    Entry::Occupied(o) => {
                        if !matches!(o.get().draft, Draft::Empty) {
                            return Err(conflict(depth));
                        }
                    }
                },
                _ => {
                    let present = status == EXT_STATUS_PRESENT;
                    match nodes.entry(path) {
                        Entry::Vacant(v) => {
                            v.insert(Node {
                                draft: Draft::Leaf {
                                    stem: present.then_some(*stem),
                                    present,
                                },
                                top,
                            });
                            committed += usize::from(top.is_none());
                        }
                        Entry::Occupied(mut o) => match &mut o.get_mut().draft {
                            Draft::Leaf { present: true, .. } if present => {
                                return Err(conflict(depth))
                            }
                            Draft::Leaf {
                                stem: st,
                                present: p,
                            } => {
                                if present {
                                    *st = Some(*stem);
                                    *p = true;
                                }
                            }
                            _ => return Err(conflict(depth)),
                        },
                    }
                    if present {
                        let (mut c1, mut c2) = (false, false);
                        for (suffix, _) in proof.suffixes(stem_index) {
                            if suffix < 128 {
                                c1 = true;
                            } else {
                                c2 = true;
                            }
                        }
                        for (wanted, b) in [(c1, SUFFIX_TREE_BYTE), (c2, SUFFIX_TREE_BYTE + 1)] {
                            if !wanted {
                                continue;
                            }
                            let p = path.child(b).ok_or(conflict(depth + 1))?;
                            match nodes.entry(p) {
                                Entry::Vacant(v) => {
                                    v.insert(Node {
                                        draft: Draft::SuffixTree { stem_index },
                                        top: None,
                                    });
                                    committed += 1;
                                }
                                Entry::Occupied(_) => return Err(conflict(depth + 1)),
                            }
                        }
                    }
                }
            }
            if committed > limit {
                return Err(E::CommitmentCount {
                    expected: committed,
                    got: limit,
                });
            }
        }
    }
    if committed != limit {
        return Err(E::CommitmentCount {
            expected: committed,
            got: limit,
        });
    }

    // 3. Other stems, in path order, to the leaves no present stem holds.
    let needed = nodes
        .values()
        .filter(|n| matches!(n.draft, Draft::Leaf { stem: None, .. }))
        .count();
    if needed != proof.other_stems().len() {
        return Err(E::OtherStemCount {
            expected: needed,
            got: proof.other_stems().len(),
        });
    }
    let stem_count = proof.stems.len();
    let is_proven_stem = |s: &[u8; STEM_LEN]| -> bool {
        let (mut lo, mut hi) = (0usize, stem_count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match proof.stem(mid).map(|(st, _)| st.cmp(s)) {
                Some(core::cmp::Ordering::Less) => lo = mid + 1,
                Some(core::cmp::Ordering::Greater) => hi = mid,
                _ => return true,
            }
        }
        false
    };
    let mut others = proof.other_stems().enumerate();
    for (path, n) in nodes.iter_mut() {
        if let Draft::Leaf {
            stem: st @ None, ..
        } = &mut n.draft
        {
            let Some((index, other)) = others.next() else {
                break;
            };
            if !other.starts_with(path.as_bytes()) || is_proven_stem(other) {
                return Err(E::BadOtherStem { index });
            }
            *st = Some(*other);
        }
    }
    Ok(nodes)
}

/// F-COORD: the shard commitments under the coordinator root.
fn check_coordinator(
    proof: &FractionalProof,
    coordinator_root: &[u8; 32],
) -> Result<(), FractionalVerifyError> {
    use FractionalVerifyError as E;
    // 7. The shard commitments under the coordinator root.
    let leaves: Vec<(u32, [u8; 32])> = (0..proof.shard_count())
        .filter_map(|i| proof.shard(i))
        .map(|(index, c)| (u32::from(index), leaf_hash(index, c)))
        .collect();
    let height = 8 * proof.depth();
    let (computed, used) =
        fold_multiproof(height, &leaves, |k| proof.sibling(k)).map_err(E::Siblings)?;
    let given = proof.siblings().len();
    if used != given {
        return Err(E::Siblings(MerkleProofError::TooManySiblings {
            got: given,
            used,
        }));
    }
    if computed != *coordinator_root {
        return Err(E::CoordinatorRootMismatch {
            computed,
            expected: *coordinator_root,
        });
    }
    Ok(())
}

/// Every proven key with its value, in proof order.
fn proven_keys(proof: &FractionalProof) -> Vec<FractionalKey> {
    let mut keys = Vec::with_capacity(proof.diffs.len());
    for s in &proof.shards {
        for stem_index in s.first_stem..s.first_stem + s.stem_count {
            let Some((stem, _)) = proof.stem(stem_index) else {
                continue;
            };
            keys.extend(proof.suffixes(stem_index).map(|(suffix, v)| FractionalKey {
                shard: s.index,
                stem: *stem,
                suffix,
                current_value: v.copied(),
            }));
        }
    }
    keys
}
