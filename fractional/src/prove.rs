//! Proofs from the sharded tree: standard execution witnesses (byte-identical to a single
//! tree's) and fractional proofs (`spec/FRACTIONAL.md` §4).

use banderwagon::arith::{One, Zero};
use verkle::keys::{TreeKey, Value, STEM_LEN};
use verkle::proof::{
    execution_witness, multiproof_bytes_with, HypertreeOpenings, HypertreeProofError, OpenedNode,
    StemOpening, MULTIPROOF_LEN,
};
use verkle::Tree;
use witness::fractional::{
    start_transcript, OwnedFractionalProof, OwnedFractionalStem, OwnedFractionalSuffix,
};
use witness::owned::OwnedExecutionWitness;

use crate::canonical::{CanonicalTop, PrefixShape};
use crate::error::FractionalError;
use crate::shard::ShardDepth;
use crate::sharded::{ShardedTree, Write};

/// Splits sorted `(key, new value)` pairs into runs with the same `group(key)`.
fn runs<K: PartialEq + Copy>(keys: &[Write], group: impl Fn(&TreeKey) -> K) -> Vec<(K, &[Write])> {
    let mut out = Vec::new();
    let mut start = 0;
    while let Some((k, _)) = keys.get(start) {
        let g = group(k);
        let len = keys[start..]
            .iter()
            .take_while(|(k, _)| group(k) == g)
            .count();
        out.push((g, &keys[start..start + len]));
        start += len;
    }
    out
}

fn internal_node(
    path: Vec<u8>,
    commitment: banderwagon::Element,
    slots: &[banderwagon::Fr],
    points: Vec<u8>,
) -> OpenedNode {
    OpenedNode {
        path,
        commitment,
        poly: slots.to_vec(),
        points,
    }
}

impl ShardedTree {
    /// The openings of `keys` (all in shard `shard`) in the hypertree under `prefix` of that
    /// shard's tree.
    fn shard_openings(
        &mut self,
        shard: u16,
        prefix: &[u8],
        keys: &[(TreeKey, Option<Value>)],
    ) -> Result<HypertreeOpenings, FractionalError> {
        self.ensure_open(&[shard])?;
        let map = |e: HypertreeProofError| match e {
            HypertreeProofError::Tree(source) => FractionalError::Tree { shard, source },
            other => FractionalError::Store(Box::new(other)),
        };
        match self
            .shards
            .get_mut(usize::from(shard))
            .and_then(|s| s.as_deref_mut())
        {
            Some(t) => t.hypertree_openings(prefix, keys).map_err(map),
            None => Tree::new().hypertree_openings(prefix, keys).map_err(map),
        }
    }

    /// The standard execution witness of `keys` (duplicates allowed, any order) against
    /// [`ShardedTree::canonical_root`]: byte for byte what a single `verkle::Tree` over the
    /// same key/value set proves.
    pub fn prove(&mut self, keys: &[TreeKey]) -> Result<OwnedExecutionWitness, FractionalError> {
        let keys: Vec<(TreeKey, Option<Value>)> = keys.iter().map(|k| (*k, None)).collect();
        self.prove_with_new_values(&keys)
    }

    /// [`ShardedTree::prove`], carrying the block's new values into the state diff (as
    /// `verkle::Tree::prove_with_new_values`).
    pub fn prove_with_new_values(
        &mut self,
        keys: &[(TreeKey, Option<Value>)],
    ) -> Result<OwnedExecutionWitness, FractionalError> {
        let (stems, nodes, other_stems) = self.proven_tree(keys)?;
        let all: Vec<&OpenedNode> = nodes.iter().collect();
        Ok(execution_witness(&stems, &all, other_stems))
    }

    /// The proven tree of `keys` over the canonical tree: the stems (ascending, with their
    /// new values), the opened nodes (path order, the root first) and the other stems.
    fn proven_tree(
        &mut self,
        keys: &[(TreeKey, Option<Value>)],
    ) -> Result<ProvenTree, FractionalError> {
        let mut keys = keys.to_vec();
        // Stable: a key listed twice keeps its last new value last.
        keys.sort_by_key(|w| w.0);
        let depth = self.config.depth;
        let mut root_points: Vec<u8> = Vec::new();
        let mut nodes: Vec<OpenedNode> = Vec::new();
        let mut stems = Vec::new();
        let mut other_stems = Vec::new();
        let mut take = |o: HypertreeOpenings, nodes: &mut Vec<OpenedNode>| {
            nodes.extend(o.nodes);
            stems.extend(o.stems);
            other_stems.extend(o.other_stems);
        };
        for (a, group) in runs(&keys, |k| k[0]) {
            root_points.push(a);
            match depth {
                ShardDepth::One => {
                    let o = self.shard_openings(u16::from(a), &[a], group)?;
                    take(o, &mut nodes);
                }
                ShardDepth::Two => match CanonicalTop::prefix_shape(&self.tops, a) {
                    PrefixShape::Empty => {
                        let o = self.shard_openings(u16::from(a) << 8, &[a], group)?;
                        take(o, &mut nodes);
                    }
                    PrefixShape::Lone(i) => {
                        let o = self.shard_openings(i, &[a], group)?;
                        take(o, &mut nodes);
                    }
                    PrefixShape::Internal => {
                        let sub = runs(group, |k| k[1]);
                        if let Some((c, slots)) = self.canonical.level1(a) {
                            let points = sub.iter().map(|(b, _)| *b).collect();
                            nodes.push(internal_node(vec![a], c, slots, points));
                        }
                        for (b, g) in sub {
                            let shard = u16::from_be_bytes([a, b]);
                            let o = self.shard_openings(shard, &[a, b], g)?;
                            take(o, &mut nodes);
                        }
                    }
                },
            }
        }
        let root = internal_node(
            Vec::new(),
            self.canonical.root(),
            self.canonical.root_slots(),
            root_points,
        );
        nodes.insert(0, root);
        Ok((stems, nodes, other_stems))
    }

    /// The fractional proof of `keys` (duplicates allowed, any order; `Some` = the value the
    /// block writes, `None` = a read) against both [`ShardedTree::canonical_root`] and, when
    /// `coordinator_path`, [`ShardedTree::coordinator_root`] (`spec/FRACTIONAL.md` §4.4).
    /// [`ShardedTree::prove_fractional_ops`] can delete keys as well.
    pub fn prove_fractional(
        &mut self,
        keys: &[(TreeKey, Option<Value>)],
        coordinator_path: bool,
    ) -> Result<OwnedFractionalProof, FractionalError> {
        let ops: Vec<(TreeKey, KeyOp)> = keys
            .iter()
            .map(|(k, v)| (*k, v.map_or(KeyOp::Read, KeyOp::Set)))
            .collect();
        self.prove_fractional_ops(&ops, coordinator_path)
    }

    /// The fractional proof of `ops` (duplicates allowed, any order; for a key listed more
    /// than once the last op counts) against both [`ShardedTree::canonical_root`] and, when
    /// `coordinator_path`, [`ShardedTree::coordinator_root`] (`spec/FRACTIONAL.md` §4.4).
    /// Encode it with [`OwnedFractionalProof::to_bytes`]; a light client checks it with
    /// `witness::fractional::verify_fractional` and computes the roots after its writes
    /// with `post_roots`.
    ///
    /// Deleting a key that is absent proves its absence and writes nothing. When deletions
    /// empty the proven children of an internal node that has others, the proof reads one
    /// more key, `P ‖ j ‖ 0…0` with suffix 0 under one of those children `j`, so that the
    /// verifier can tell whether the node gives way to a lone leaf (§5.1); the proof then
    /// covers that key too.
    pub fn prove_fractional_ops(
        &mut self,
        ops: &[(TreeKey, KeyOp)],
        coordinator_path: bool,
    ) -> Result<OwnedFractionalProof, FractionalError> {
        if ops.is_empty() {
            return Err(FractionalError::NoKeys);
        }
        let mut last: std::collections::BTreeMap<TreeKey, KeyOp> = Default::default();
        for (k, op) in ops {
            last.insert(*k, *op);
        }
        let deletes: Vec<TreeKey> = last
            .iter()
            .filter(|(_, op)| matches!(op, KeyOp::Delete))
            .map(|(k, _)| *k)
            .collect();
        let mut keys: Vec<(TreeKey, Option<Value>)> = last
            .iter()
            .map(|(k, op)| match op {
                KeyOp::Set(v) => (*k, Some(*v)),
                KeyOp::Read | KeyOp::Delete => (*k, None),
            })
            .collect();
        // Each round adds a read under a node the previous proof left undecided; a node
        // is decided once one of its children is proven, so the rounds are bounded by the
        // internal nodes above the deleted stems.
        let rounds = deletes.len().saturating_mul(STEM_LEN) + 1;
        for _ in 0..rounds {
            let (proof, nodes) = self.fractional_proof(&keys, &deletes, coordinator_path)?;
            if !proof
                .stems
                .iter()
                .any(|s| s.suffixes.iter().any(|d| d.deleted))
            {
                return Ok(proof);
            }
            let Some(path) = undecided_node(&proof)? else {
                return Ok(proof);
            };
            let node = nodes
                .iter()
                .find(|n| n.path == path)
                .ok_or_else(|| FractionalError::UndecidedCollapse { path: path.clone() })?;
            // The children some proven path already reaches.
            let mut proven = [false; 256];
            for n in &nodes {
                if let Some((&j, parent)) = n.path.split_last() {
                    if parent == path.as_slice() {
                        proven[usize::from(j)] = true;
                    }
                }
            }
            let child = (0..=255u8)
                .find(|&j| {
                    !proven[usize::from(j)]
                        && node.poly.get(usize::from(j)).is_some_and(|y| !y.is_zero())
                })
                .ok_or_else(|| FractionalError::UndecidedCollapse { path: path.clone() })?;
            let mut key: TreeKey = [0u8; 32];
            let at = path.len();
            if at >= STEM_LEN {
                return Err(FractionalError::UndecidedCollapse { path });
            }
            key[..at].copy_from_slice(&path);
            key[at] = child;
            keys.push((key, None));
            keys.sort_by_key(|w| w.0);
        }
        Err(FractionalError::UndecidedCollapse { path: Vec::new() })
    }

    /// One fractional proof of `keys`, the keys of `deletes` that are present marked
    /// deleted, with the opened nodes it was built from.
    fn fractional_proof(
        &mut self,
        keys: &[(TreeKey, Option<Value>)],
        deletes: &[TreeKey],
        coordinator_path: bool,
    ) -> Result<(OwnedFractionalProof, Vec<OpenedNode>), FractionalError> {
        let depth = self.config.depth;
        let (stems, mut nodes, other_stems) = self.proven_tree(keys)?;
        let internal_witnesses = add_internal_witnesses(&stems, &mut nodes)?;
        let mut shards: Vec<u16> = stems.iter().map(|s| depth.shard_of(&s.stem)).collect();
        shards.dedup();
        let commitments: Vec<banderwagon::Element> =
            nodes.iter().skip(1).map(|n| n.commitment).collect();
        let mut other_stems = other_stems;
        other_stems.sort_unstable();
        other_stems.dedup();
        let mut proof = OwnedFractionalProof {
            depth: depth.to_byte(),
            root: self.canonical_root(),
            stems: stems
                .into_iter()
                .map(|st| OwnedFractionalStem {
                    stem: st.stem,
                    ext: st.ext,
                    suffixes: st
                        .suffixes
                        .into_iter()
                        .map(|(suffix, current_value, new_value)| {
                            let mut key: TreeKey = [0u8; 32];
                            key[..STEM_LEN].copy_from_slice(&st.stem);
                            key[STEM_LEN] = suffix;
                            OwnedFractionalSuffix {
                                suffix,
                                current_value,
                                new_value,
                                // Deleting an absent key writes nothing.
                                deleted: current_value.is_some()
                                    && deletes.binary_search(&key).is_ok(),
                            }
                        })
                        .collect(),
                })
                .collect(),
            other_stems,
            commitments: banderwagon::Element::batch_to_bytes(&commitments),
            internal_witnesses,
            siblings: coordinator_path.then(|| self.coordinator.siblings(&shards)),
            multiproof: [0u8; MULTIPROOF_LEN],
        };
        check_representable(&proof)?;
        // The transcript absorbs every byte before the multiproof.
        let body = proof.to_bytes().map_err(FractionalError::Encode)?;
        let body = body.get(..body.len() - MULTIPROOF_LEN).unwrap_or(&[]);
        proof.multiproof = multiproof_bytes_with(&mut start_transcript(body), &nodes);
        Ok((proof, nodes))
    }
}

/// What a fractional proof does with one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOp {
    /// Prove its current value (or absence).
    Read,
    /// Prove its current value and write this one.
    Set(Value),
    /// Prove its current value and delete it.
    Delete,
}

/// The internal node whose collapse the proof's writes leave undecided, if any: the
/// verifier's own post-state computation over the proof, verified against its own root.
fn undecided_node(proof: &OwnedFractionalProof) -> Result<Option<Vec<u8>>, FractionalError> {
    use witness::fractional::{verify_fractional_bytes, Anchor, FractionalVerifyError};
    let bytes = proof.to_bytes().map_err(FractionalError::Encode)?;
    let verified = verify_fractional_bytes(bytes.into(), &Anchor::StateRoot(proof.root))
        .map_err(|e| FractionalError::SelfCheck(Box::new(e)))?;
    match verified.post_roots() {
        Ok(_) => Ok(None),
        Err(FractionalVerifyError::PostState(witness::PostStateError::CollapseUnresolved {
            path,
        })) => Ok(Some(path.as_bytes().to_vec())),
        Err(e) => Err(FractionalError::SelfCheck(Box::new(e))),
    }
}

/// Stems, opened nodes (root first), other stems.
type ProvenTree = (Vec<StemOpening>, Vec<OpenedNode>, Vec<verkle::keys::Stem>);

/// Whether the opened points of a node prove it internal: a value other than 1 at index 0,
/// or other than 0 at an index ≥ 4 (`spec/FRACTIONAL.md` §4.3).
fn proves_internal(n: &OpenedNode) -> bool {
    n.points.iter().any(|&z| {
        n.poly
            .get(usize::from(z))
            .is_some_and(|y| witness::leaf::rules_out_leaf(z, y))
    })
}

/// Opens every internal node but the root that its paths do not prove internal at index 0
/// as well, and returns those values (the internal witnesses, path order). A node is
/// internal when a proven stem goes below it.
fn add_internal_witnesses(
    stems: &[StemOpening],
    nodes: &mut [OpenedNode],
) -> Result<Vec<[u8; 32]>, FractionalError> {
    let mut out = Vec::new();
    for n in nodes.iter_mut().skip(1) {
        let len = n.path.len();
        let first = stems.partition_point(|s| s.stem[..len.min(31)] < n.path[..]);
        let internal = stems
            .get(first)
            .is_some_and(|s| s.stem.starts_with(&n.path) && usize::from(s.ext >> 3) > len);
        if !internal || proves_internal(n) {
            continue;
        }
        let w = n.poly.first().copied().unwrap_or_default();
        if w.is_one() {
            return Err(FractionalError::UnprovableInternal {
                path: n.path.clone(),
            });
        }
        n.points.insert(0, 0);
        out.push(banderwagon::fr_to_le_bytes(&w));
    }
    Ok(out)
}

/// Refuses a proof whose counts do not fit the wire format's 16-bit fields, which
/// [`OwnedFractionalProof::to_bytes`] would refuse to encode.
fn check_representable(proof: &OwnedFractionalProof) -> Result<(), FractionalError> {
    let max = usize::from(u16::MAX);
    for (what, count) in [
        ("stems", proof.stems.len()),
        ("siblings", proof.siblings.as_ref().map_or(0, Vec::len)),
        ("other stems", proof.other_stems.len()),
        ("internal witnesses", proof.internal_witnesses.len()),
    ] {
        if count > max {
            return Err(FractionalError::ProofTooLarge { what, count });
        }
    }
    Ok(())
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    fn proof_with_other_stems(n: usize) -> OwnedFractionalProof {
        OwnedFractionalProof {
            depth: 1,
            root: [0u8; 32],
            stems: Vec::new(),
            other_stems: vec![[0u8; 31]; n],
            commitments: Vec::new(),
            internal_witnesses: Vec::new(),
            siblings: None,
            multiproof: [0u8; verkle::proof::MULTIPROOF_LEN],
        }
    }

    #[test]
    fn counts_beyond_the_wire_format_are_refused() {
        assert!(check_representable(&proof_with_other_stems(65_535)).is_ok());
        match check_representable(&proof_with_other_stems(65_536)) {
            Err(FractionalError::ProofTooLarge { what, count }) => {
                assert_eq!((what, count), ("other stems", 65_536));
            }
            other => panic!("expected ProofTooLarge, got {other:?}"),
        }
    }
}
