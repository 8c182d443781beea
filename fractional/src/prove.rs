//! Proofs from the sharded tree: standard execution witnesses (byte-identical to a single
//! tree's) and fractional proofs (`spec/FRACTIONAL.md` §4).

use verkle::keys::{TreeKey, Value};
use verkle::proof::{
    execution_witness, multiproof_bytes, HypertreeOpenings, HypertreeProofError, OpenedNode,
    MULTIPROOF_LEN,
};
use verkle::Tree;
use witness::fractional::{
    OwnedFractionalProof, OwnedFractionalStem, OwnedFractionalSuffix, OwnedShardEntry,
    TRANSCRIPT_LABEL,
};
use witness::OwnedExecutionWitness;

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
        let all: Vec<&OpenedNode> = std::iter::once(&root).chain(nodes.iter()).collect();
        Ok(execution_witness(&stems, &all, other_stems))
    }

    /// The fractional proof of `keys` (duplicates allowed, any order) against
    /// [`ShardedTree::coordinator_root`]: the touched shards' commitments, the coordinator
    /// multiproof for them, and one IPA multiproof over the openings inside their
    /// hypertrees. Encode it with [`OwnedFractionalProof::to_bytes`]; a light client checks
    /// it with `witness::verify_fractional`.
    pub fn prove_fractional(
        &mut self,
        keys: &[TreeKey],
    ) -> Result<OwnedFractionalProof, FractionalError> {
        if keys.is_empty() {
            return Err(FractionalError::NoKeys);
        }
        let mut keys: Vec<(TreeKey, Option<Value>)> = keys.iter().map(|k| (*k, None)).collect();
        keys.sort_by_key(|w| w.0);
        let depth = self.config.depth;
        let mut shards = Vec::new();
        let mut nodes: Vec<OpenedNode> = Vec::new();
        let mut other_stems = Vec::new();
        for (s, group) in runs(&keys, |k| depth.shard_of(k)) {
            let o = self.shard_openings(s, depth.prefix(s), group)?;
            shards.push(OwnedShardEntry {
                index: s,
                commitment: self.shard_commitment(s),
                stems: o
                    .stems
                    .into_iter()
                    .map(|st| OwnedFractionalStem {
                        stem: st.stem,
                        ext: st.ext,
                        suffixes: st
                            .suffixes
                            .into_iter()
                            .map(|(suffix, current_value, _)| OwnedFractionalSuffix {
                                suffix,
                                current_value,
                            })
                            .collect(),
                    })
                    .collect(),
            });
            nodes.extend(o.nodes);
            other_stems.extend(o.other_stems);
        }
        other_stems.sort_unstable();
        other_stems.dedup();
        let top_len = depth.bytes();
        let commitments: Vec<banderwagon::Element> = nodes
            .iter()
            .filter(|n| n.path.len() > top_len)
            .map(|n| n.commitment)
            .collect();
        let multiproof = if nodes.iter().all(|n| n.points.is_empty()) {
            [0u8; MULTIPROOF_LEN]
        } else {
            multiproof_bytes(TRANSCRIPT_LABEL, &nodes)
        };
        let indices: Vec<u16> = shards.iter().map(|s| s.index).collect();
        let proof = OwnedFractionalProof {
            depth: depth.to_byte(),
            siblings: self.coordinator.siblings(&indices),
            shards,
            other_stems,
            commitments: banderwagon::Element::batch_to_bytes(&commitments),
            multiproof,
        };
        check_representable(&proof)?;
        Ok(proof)
    }
}

/// Refuses a proof whose counts do not fit the wire format's 16-bit fields, which
/// [`OwnedFractionalProof::to_bytes`] would refuse to encode.
fn check_representable(proof: &OwnedFractionalProof) -> Result<(), FractionalError> {
    let max = usize::from(u16::MAX);
    let stems = proof
        .shards
        .iter()
        .map(|s| s.stems.len())
        .max()
        .unwrap_or(0);
    for (what, count) in [
        ("shards", proof.shards.len()),
        ("stems in one shard", stems),
        ("siblings", proof.siblings.len()),
        ("other stems", proof.other_stems.len()),
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
            shards: Vec::new(),
            siblings: Vec::new(),
            other_stems: vec![[0u8; 31]; n],
            commitments: Vec::new(),
            multiproof: [0u8; MULTIPROOF_LEN],
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
