//! The hostile prover of the structure-aware targets: it holds the polynomial of every node
//! of the true tree and, after editing a proof, proves the multiproof again over the
//! openings the verifier will check (`witness::fuzz::openings`) — possible exactly when
//! each of them is a true evaluation of a node it holds.

use std::collections::BTreeMap;

use banderwagon::Fr;
use ipa::{Committer, MultiProof, ProverQuery, Transcript};
use witness::fuzz::openings::CheckedOpening;
use witness::keys::{TreeKey, Value};
use witness::owned::OwnedExecutionWitness;

use crate::proof::{HypertreeProofError, OpenedNode};
use crate::store::NodeStore;
use crate::Tree;

/// Every node on the paths of a set of keys, by commitment.
pub struct Polys {
    nodes: BTreeMap<[u8; 32], OpenedNode>,
}

impl Polys {
    /// The nodes on the paths of `keys` in `tree` (the root, internal nodes, leaves and
    /// their suffix trees).
    ///
    /// # Errors
    /// The tree cannot be read.
    pub fn of_tree<S: NodeStore>(
        tree: &mut Tree<S>,
        keys: &[TreeKey],
    ) -> Result<Polys, HypertreeProofError> {
        let asked: Vec<(TreeKey, Option<Value>)> = keys.iter().map(|k| (*k, None)).collect();
        let opened = tree.hypertree_openings(&[], &asked)?;
        let nodes = opened
            .nodes
            .into_iter()
            .map(|n| (n.commitment.to_bytes(), n))
            .collect();
        Ok(Polys { nodes })
    }

    /// The multiproof over `openings` from `transcript`, or `None` when one of them is not a
    /// true evaluation of a node held (no prover could make one that verifies).
    pub fn prove(
        &self,
        openings: &[CheckedOpening],
        mut transcript: Transcript,
    ) -> Option<MultiProof> {
        let mut queries = Vec::with_capacity(openings.len());
        for o in openings {
            let node = self.nodes.get(&o.commitment)?;
            let y: &Fr = node.poly.get(usize::from(o.point))?;
            if *y != o.result {
                return None;
            }
            queries.push(ProverQuery {
                commitment: node.commitment,
                poly: &node.poly,
                point: o.point,
                result: o.result,
            });
        }
        Some(MultiProof::prove(
            Committer::eip6800(),
            &mut transcript,
            &queries,
        ))
    }
}

/// Puts `proof` into `w`'s Verkle proof (`d`, `cl`, `cr`, the final scalar).
pub fn set_multiproof(w: &mut OwnedExecutionWitness, proof: &MultiProof) {
    let bytes = proof.to_bytes();
    let vp = &mut w.verkle_proof;
    let word = |i: usize| -> [u8; 32] {
        let mut out = [0u8; 32];
        if let Some(b) = bytes.get(32 * i..32 * i + 32) {
            out.copy_from_slice(b);
        }
        out
    };
    vp.d = word(0);
    for i in 0..vp.ipa_proof.cl.len() {
        vp.ipa_proof.cl[i] = word(1 + i);
        vp.ipa_proof.cr[i] = word(9 + i);
    }
    vp.ipa_proof.final_evaluation = word(17);
}
