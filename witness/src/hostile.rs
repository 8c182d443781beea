//! Witnesses a hostile prover can build, made with the real prover: the constructions of
//! `spec/WIRE.md` §6.6 ("What a verified witness proves"), for the tests of this crate and of
//! the tools built on it. Each is a true multiproof over commitments the prover chose; what
//! the verifier must do with it is stated on each constructor.
//!
//! The trees here are small and written out by hand (two leaves under the root), so every
//! commitment and every opening is visible in the code; the leaf and suffix-tree
//! polynomials follow `spec/WIRE.md` §13.

use crate::prelude::*;

use banderwagon::arith::{One, Zero};
use banderwagon::{fr_to_le_bytes, Element, Fr};
use ipa::{Committer, MultiProof, ProverQuery, Transcript};

use crate::leaf::{stem_field, value_halves};
use crate::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
use crate::preset::{EXT_STATUS_ABSENT_EMPTY, STEM_LEN};

/// A hostile witness with the facts to judge it by.
#[derive(Debug, Clone)]
pub struct Hostile {
    /// The pre-state root it is verified against.
    pub pre_state_root: [u8; 32],
    /// The witness.
    pub witness: OwnedExecutionWitness,
    /// The root a full node computes after the witness's writes: what an honest witness of
    /// the same writes gives.
    pub canonical_post_state_root: [u8; 32],
    /// The one key the witness proves absent, while in the pre-state it holds this value
    /// (`None` when the key really is absent).
    pub hidden_value: Option<[u8; 32]>,
}

/// A 256-wide polynomial with the given non-zero evaluations.
fn poly(terms: &[(u8, Fr)]) -> Vec<Fr> {
    let mut p = vec![Fr::zero(); 256];
    for &(i, v) in terms {
        if let Some(slot) = p.get_mut(usize::from(i)) {
            *slot = v;
        }
    }
    p
}

/// A committed polynomial.
struct Node {
    poly: Vec<Fr>,
    commitment: Element,
}

impl Node {
    fn new(terms: &[(u8, Fr)]) -> Node {
        let poly = poly(terms);
        let commitment = Committer::eip6800().commit(&poly);
        Node { poly, commitment }
    }

    fn field(&self) -> Fr {
        self.commitment.map_to_scalar_field()
    }

    fn at(&self, z: u8) -> Fr {
        self.poly
            .get(usize::from(z))
            .copied()
            .expect("a node's polynomial has all 256 evaluations (`poly`)")
    }
}

/// The suffix tree `C1` of values at suffixes below 128.
fn suffix_tree(values: &[(u8, [u8; 32])]) -> Node {
    let mut terms = Vec::new();
    for (suffix, v) in values {
        let (low, high) = value_halves(Some(v));
        terms.push((2 * (suffix % 128), low));
        terms.push((2 * (suffix % 128) + 1, high));
    }
    Node::new(&terms)
}

/// The leaf of `stem` with suffix tree `c1` (no values at suffixes ≥ 128).
fn leaf(stem: &[u8; STEM_LEN], c1: &Node) -> Node {
    Node::new(&[(0, Fr::one()), (1, stem_field(stem)), (2, c1.field())])
}

/// One multiproof over `openings` (node, z) in the verifier's order, transcript `"vt"`.
fn prove(openings: &[(&Node, u8)]) -> OwnedIpaProofParts {
    let queries: Vec<ProverQuery<'_>> = openings
        .iter()
        .map(|(n, z)| ProverQuery {
            commitment: n.commitment,
            poly: &n.poly,
            point: *z,
            result: n.at(*z),
        })
        .collect();
    let proof = MultiProof::prove(Committer::eip6800(), &mut Transcript::new(b"vt"), &queries);
    OwnedIpaProofParts::from(&proof)
}

/// The multiproof as the witness carries it.
struct OwnedIpaProofParts {
    d: [u8; 32],
    ipa_proof: OwnedIpaProof,
}

impl From<&MultiProof> for OwnedIpaProofParts {
    fn from(p: &MultiProof) -> Self {
        let mut cl = [[0u8; 32]; 8];
        let mut cr = [[0u8; 32]; 8];
        for (dst, e) in cl.iter_mut().zip(&p.ipa.l) {
            *dst = e.to_bytes();
        }
        for (dst, e) in cr.iter_mut().zip(&p.ipa.r) {
            *dst = e.to_bytes();
        }
        OwnedIpaProofParts {
            d: p.d.to_bytes(),
            ipa_proof: OwnedIpaProof {
                cl,
                cr,
                final_evaluation: fr_to_le_bytes(&p.ipa.a),
            },
        }
    }
}

/// A witness of one stem with one suffix diff.
fn one_key_witness(
    stem: [u8; STEM_LEN],
    suffix: u8,
    new_value: [u8; 32],
    status: u8,
    commitments: Vec<[u8; 32]>,
    proof: OwnedIpaProofParts,
) -> OwnedExecutionWitness {
    OwnedExecutionWitness {
        state_diff: vec![OwnedStemStateDiff {
            stem,
            suffix_diffs: vec![OwnedSuffixStateDiff {
                suffix,
                current_value: None,
                new_value: Some(new_value),
            }],
        }],
        verkle_proof: OwnedVerkleProof {
            other_stems: Vec::new(),
            depth_extension_present: vec![status],
            commitments_by_path: commitments,
            d: proof.d,
            ipa_proof: proof.ipa_proof,
        },
    }
}

/// The extension-status byte of an absent-empty stem at `depth`.
fn absent_empty(depth: u8) -> u8 {
    (depth << 3) | EXT_STATUS_ABSENT_EMPTY
}

/// The stem `[first, second, third, 0x5a, 0x5a, …]`.
fn stem3(first: u8, second: u8, third: u8) -> [u8; STEM_LEN] {
    let mut s = [0x5a; STEM_LEN];
    s[0] = first;
    s[1] = second;
    s[2] = third;
    s
}

/// A present value, distinct per tag.
fn value(tag: u8) -> [u8; 32] {
    let mut v = [tag; 32];
    v[0] = 0x01;
    v
}

/// **Identity as an internal node** (reject). The empty pre-state (root = the identity,
/// 32 zero bytes) and a stem claimed absent-empty at depth 2, with the identity as the
/// "internal node" at `stem[0]`: the openings (root, `stem[0]`, 0) and (identity,
/// `stem[1]`, 0) are true (all polynomials are zero), and writing a value under it would
/// give a one-child internal node. The honest witness of the same write is absent-empty at
/// depth 1 ([`identity_internal_node_honest`]).
pub fn identity_internal_node() -> Hostile {
    let stem = stem3(0x11, 0x22, 0x33);
    let empty = Node::new(&[]);
    let proof = prove(&[(&empty, stem[0]), (&empty, stem[1])]);
    let written = value(7);
    Hostile {
        pre_state_root: [0u8; 32],
        witness: one_key_witness(
            stem,
            7,
            written,
            absent_empty(2),
            vec![Element::identity().to_bytes()],
            proof,
        ),
        canonical_post_state_root: one_leaf_root(&stem, 7, &written),
        hidden_value: None,
    }
}

/// The honest witness of [`identity_internal_node`]'s write: the stem absent-empty at
/// depth 1, one opening (root, `stem[0]`, 0).
pub fn identity_internal_node_honest() -> Hostile {
    let stem = stem3(0x11, 0x22, 0x33);
    let empty = Node::new(&[]);
    let proof = prove(&[(&empty, stem[0])]);
    let written = value(7);
    Hostile {
        pre_state_root: [0u8; 32],
        witness: one_key_witness(stem, 7, written, absent_empty(1), Vec::new(), proof),
        canonical_post_state_root: one_leaf_root(&stem, 7, &written),
        hidden_value: None,
    }
}

/// The root of the tree holding only `stem`'s `suffix` = `v` (a leaf at depth 1).
fn one_leaf_root(stem: &[u8; STEM_LEN], suffix: u8, v: &[u8; 32]) -> [u8; 32] {
    let c1 = suffix_tree(&[(suffix, *v)]);
    let l = leaf(stem, &c1);
    Node::new(&[(stem[0], l.field())]).commitment.to_bytes()
}

/// **A leaf posing as an internal node** (accept, report unbound). Two leaves under the
/// root: stem `A = [0x10, second, third, …]` holding `value(1)` at suffix 0, and stem
/// `B = [0x20, …]`. The witness claims `A` absent-empty at depth `depth` (2 or 3) and writes
/// suffix 0:
///
/// - depth 2: `commitments_by_path = [leaf(A)]` as the "internal node" at `[0x10]`,
///   openings (root, 0x10, mtf(leaf A)) and (leaf A, `second`, 0) — true, because a leaf's
///   polynomial is zero at every index ≥ 4 (`second` is 5);
/// - depth 3: the leaf hands its own suffix tree down as the next "internal node":
///   `second` is 2, `commitments_by_path = [leaf(A), C1(A)]` at `[0x10]` and `[0x10, 2]`,
///   openings (root, 0x10, mtf(leaf A)), (leaf A, 2, mtf(C1)), (C1, 0x80, 0) — true, as
///   `C1` is zero at index 0x80 (suffix 64 holds nothing).
///
/// Every EIP-6800 verifier accepts it. Its absence is unbound: no node on the path is
/// opened at an index a leaf could not satisfy. The post-state root computed from it
/// places a second leaf for `A` where the proof says the slot is empty: not the canonical
/// root, which updates `A`'s leaf in place.
///
/// # Panics
/// If `depth` is not 2 or 3.
pub fn leaf_posing_as_internal(depth: u8) -> Hostile {
    let (second, third) = match depth {
        2 => (5, 0x77),
        3 => (2, 0x80),
        _ => panic!("leaf_posing_as_internal: depth {depth} is not 2 or 3"),
    };
    let a = stem3(0x10, second, third);
    let b = stem3(0x20, 0x01, 0x02);
    let held = value(1);
    let c1a = suffix_tree(&[(0, held)]);
    let la = leaf(&a, &c1a);
    let c1b = suffix_tree(&[(0, value(2))]);
    let lb = leaf(&b, &c1b);
    let root = Node::new(&[(a[0], la.field()), (b[0], lb.field())]);

    let (commitments, proof) = if depth == 2 {
        (
            vec![la.commitment.to_bytes()],
            prove(&[(&root, a[0]), (&la, a[1])]),
        )
    } else {
        (
            vec![la.commitment.to_bytes(), c1a.commitment.to_bytes()],
            prove(&[(&root, a[0]), (&la, a[1]), (&c1a, a[2])]),
        )
    };
    let written = value(9);
    // The canonical post-state: A's leaf updated in place.
    let c1a_after = suffix_tree(&[(0, written)]);
    let la_after = leaf(&a, &c1a_after);
    let root_after = Node::new(&[(a[0], la_after.field()), (b[0], lb.field())]);
    Hostile {
        pre_state_root: root.commitment.to_bytes(),
        witness: one_key_witness(a, 0, written, absent_empty(depth), commitments, proof),
        canonical_post_state_root: root_after.commitment.to_bytes(),
        hidden_value: Some(held),
    }
}

/// An honest absence below a real internal node. The tree of [`leaf_posing_as_internal`]
/// with a third stem `C` under `A`'s first byte, so `[0x10]` is a real internal node
/// holding `A` (at index 5) and `C` (at index 0x30); the witness proves the stem
/// `[0x10, 0x07, …]` absent-empty at depth 2.
///
/// With `read_sibling`, it also reads `C` (present at depth 2): `C`'s opening of the
/// internal node at index 0x30 (non-zero, ≥ 4) proves the node internal and the absence is
/// bound. Without, the node is opened only at the empty slot 0x07 — to 0, which a leaf
/// would satisfy too — and the absence, though true, is unbound. Nothing is hidden and
/// nothing written: the canonical post-state root is the pre-state root.
pub fn absence_under_internal(read_sibling: bool) -> Hostile {
    let a = stem3(0x10, 5, 0x77);
    let c = stem3(0x10, 0x30, 0x01);
    let b = stem3(0x20, 0x01, 0x02);
    let absent = stem3(0x10, 0x07, 0x00);
    let c1a = suffix_tree(&[(0, value(1))]);
    let la = leaf(&a, &c1a);
    let c1c = suffix_tree(&[(3, value(3))]);
    let lc = leaf(&c, &c1c);
    let inner = Node::new(&[(a[1], la.field()), (c[1], lc.field())]);
    let c1b = suffix_tree(&[(0, value(2))]);
    let lb = leaf(&b, &c1b);
    let root = Node::new(&[(0x10, inner.field()), (b[0], lb.field())]);
    let absent_diff = OwnedStemStateDiff {
        stem: absent,
        suffix_diffs: vec![OwnedSuffixStateDiff {
            suffix: 0,
            current_value: None,
            new_value: None,
        }],
    };
    // Path order: root; [0x10]; [0x10, 0x07] (empty, no commitment); [0x10, 0x30] = leaf C;
    // [0x10, 0x30, 2] = C1 of C.
    let (state_diff, statuses, commitments, proof) = if read_sibling {
        let proof = prove(&[
            (&root, 0x10),
            (&inner, 0x07),
            (&inner, 0x30),
            (&lc, 0),
            (&lc, 1),
            (&lc, 2),
            (&c1c, 6),
            (&c1c, 7),
        ]);
        let read = OwnedStemStateDiff {
            stem: c,
            suffix_diffs: vec![OwnedSuffixStateDiff {
                suffix: 3,
                current_value: Some(value(3)),
                new_value: None,
            }],
        };
        (
            vec![absent_diff, read],
            vec![
                absent_empty(2),
                (2 << 3) | crate::preset::EXT_STATUS_PRESENT,
            ],
            vec![
                inner.commitment.to_bytes(),
                lc.commitment.to_bytes(),
                c1c.commitment.to_bytes(),
            ],
            proof,
        )
    } else {
        let proof = prove(&[(&root, 0x10), (&inner, 0x07)]);
        (
            vec![absent_diff],
            vec![absent_empty(2)],
            vec![inner.commitment.to_bytes()],
            proof,
        )
    };
    let witness = OwnedExecutionWitness {
        state_diff,
        verkle_proof: OwnedVerkleProof {
            other_stems: Vec::new(),
            depth_extension_present: statuses,
            commitments_by_path: commitments,
            d: proof.d,
            ipa_proof: proof.ipa_proof,
        },
    };
    let pre_state_root = root.commitment.to_bytes();
    Hostile {
        pre_state_root,
        witness,
        canonical_post_state_root: pre_state_root,
        hidden_value: None,
    }
}

/// **Many commitments, the wrong shape** (reject before any point work). One stem
/// absent-empty at depth 1, which needs no commitment, with `commitments` copies of a valid
/// commitment (the generator) and a proof made of valid points. Every point decodes, so
/// only the shape says it is wrong: the verifier must say so before decompressing any.
pub fn many_commitments(commitments: usize) -> OwnedExecutionWitness {
    let g = Element::generator().to_bytes();
    OwnedExecutionWitness {
        state_diff: vec![OwnedStemStateDiff {
            stem: [0x42; STEM_LEN],
            suffix_diffs: vec![OwnedSuffixStateDiff {
                suffix: 0,
                current_value: None,
                new_value: None,
            }],
        }],
        verkle_proof: OwnedVerkleProof {
            other_stems: Vec::new(),
            depth_extension_present: vec![absent_empty(1)],
            commitments_by_path: vec![g; commitments],
            d: g,
            ipa_proof: OwnedIpaProof {
                cl: [g; 8],
                cr: [g; 8],
                final_evaluation: [0; 32],
            },
        },
    }
}
