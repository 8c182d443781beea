//! What a verified fractional proof proves (`spec/FRACTIONAL.md` §5), and its post-state
//! roots (§5.1).

use crate::prelude::*;

use alloc::collections::BTreeMap;

use banderwagon::Element;

use super::shard::{fold_with, shard_of};
use super::verify_error::FractionalVerifyError;
use crate::post_state::{post_state_nodes, PostNode};
use crate::preset::STEM_LEN;
use crate::verify::{NodeKind, NodePath, VerifiedWitness};
use crate::PostStateError;

/// The root a fractional proof is verified against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The canonical EIP-6800 state root (compressed), as a block header carries it.
    StateRoot([u8; 32]),
    /// The sharded tree's SHA-256 coordinator root.
    CoordinatorRoot([u8; 32]),
}

/// One key of a verified fractional proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FractionalKey {
    /// The shard it routes to.
    pub shard: u16,
    /// The stem.
    pub stem: [u8; STEM_LEN],
    /// The suffix.
    pub suffix: u8,
    /// The proven value; `None` = proven absent.
    pub current_value: Option<[u8; 32]>,
    /// The value the proof writes; `None` = not written or deleted.
    pub new_value: Option<[u8; 32]>,
    /// Whether the proof deletes the key.
    pub deleted: bool,
}

impl FractionalKey {
    /// The tree key `stem ‖ suffix`.
    pub fn key(&self) -> [u8; 32] {
        let mut k = [0u8; 32];
        k[..STEM_LEN].copy_from_slice(&self.stem);
        k[STEM_LEN] = self.suffix;
        k
    }
}

/// What a fractional proof proves: the result of [`verify_fractional`](super::verify_fractional).
#[derive(Clone, Debug)]
pub struct VerifiedFractional {
    pub(super) depth: u8,
    pub(super) state_root: [u8; 32],
    pub(super) coordinator_root: Option<[u8; 32]>,
    pub(super) siblings: Vec<[u8; 32]>,
    pub(super) shards: Vec<(u16, [u8; 32])>,
    pub(super) witness: VerifiedWitness,
}

impl VerifiedFractional {
    /// The shard depth (1 or 2).
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The canonical state root the proof hangs from (under a `StateRoot` anchor, the
    /// anchor).
    pub fn state_root(&self) -> &[u8; 32] {
        &self.state_root
    }

    /// The coordinator root the proof's shards and siblings hash to, when it carries the
    /// path (under a `CoordinatorRoot` anchor, the anchor).
    pub fn coordinator_root(&self) -> Option<&[u8; 32]> {
        self.coordinator_root.as_ref()
    }

    /// The touched shards and their proven commitments (compressed; 32 zero bytes for an
    /// empty shard), index ascending.
    pub fn shards(&self) -> &[(u16, [u8; 32])] {
        &self.shards
    }

    /// The proven pre-state as the standard verifier reports it: nodes, stems, keys.
    pub fn witness(&self) -> &VerifiedWitness {
        &self.witness
    }

    /// Every proven key, ascending, with its shard and values.
    pub fn keys(&self) -> Vec<FractionalKey> {
        self.witness
            .keys()
            .iter()
            .map(|k| FractionalKey {
                shard: shard_of(self.depth, &k.stem),
                stem: k.stem,
                suffix: k.suffix,
                current_value: k.current_value,
                new_value: k.new_value,
                deleted: k.deleted,
            })
            .collect()
    }

    /// `Some(Some(v))` present with value `v`, `Some(None)` proven absent, `None` not covered.
    pub fn current_value(&self, key: &[u8; 32]) -> Option<Option<&[u8; 32]>> {
        self.witness.current_value(key)
    }

    /// Number of IPA openings checked (internal-witness openings included).
    pub fn opening_count(&self) -> usize {
        self.witness.opening_count()
    }

    /// The canonical state root after the proof's writes (`WIRE.md` §6.4).
    pub fn post_state_root(&self) -> Result<[u8; 32], PostStateError> {
        self.witness.post_state_root()
    }

    /// Both roots after the proof's writes: the canonical one and, when the proof carries
    /// the coordinator path, the coordinator one (`spec/FRACTIONAL.md` §5.1).
    pub fn post_roots(&self) -> Result<([u8; 32], Option<[u8; 32]>), FractionalVerifyError> {
        let (root, changed) = post_state_nodes(&self.witness).map_err(post_error)?;
        if self.coordinator_root.is_none() {
            return Ok((root.to_bytes(), None));
        }
        let post = PostTree {
            pre: &self.witness,
            changed: &changed,
        };
        let mut shards = Vec::with_capacity(self.shards.len());
        for (shard, _) in &self.shards {
            let c = post
                .shard_top(self.depth, *shard)
                .ok_or(FractionalVerifyError::ShardTopMissing { shard: *shard })?;
            shards.push((*shard, c));
        }
        let coordinator = fold_with(
            self.depth,
            &shards,
            |k| self.siblings.get(k),
            self.siblings.len(),
        )?;
        Ok((root.to_bytes(), Some(coordinator)))
    }
}

/// A post-state error inside a proof that verified: reported as the state root mismatch
/// it would cause (unreachable for an accepted proof).
fn post_error(e: PostStateError) -> FractionalVerifyError {
    FractionalVerifyError::PostState(e)
}

/// A node of the tree after the writes, as far as the proof covers it.
enum PostKind {
    Empty,
    Leaf([u8; STEM_LEN], Element),
    Internal { commitment: Element, fresh: bool },
}

/// The proven tree after the writes: the changed or built nodes over the proven ones.
struct PostTree<'a> {
    pre: &'a VerifiedWitness,
    changed: &'a BTreeMap<NodePath, PostNode>,
}

impl PostTree<'_> {
    /// The node at `path`; `parent_fresh` when its parent was built by the writes (then a
    /// child the writes did not build is an empty slot).
    fn node(&self, path: &[u8], parent_fresh: bool) -> Option<PostKind> {
        let p = NodePath::new(path)?;
        if let Some(n) = self.changed.get(&p) {
            return Some(match *n {
                PostNode::Empty => PostKind::Empty,
                PostNode::Leaf { stem, commitment } => PostKind::Leaf(stem, commitment),
                PostNode::Internal { commitment, fresh } => {
                    PostKind::Internal { commitment, fresh }
                }
            });
        }
        if parent_fresh {
            return Some(PostKind::Empty);
        }
        let n = self.pre.node(path)?;
        Some(match (n.kind, n.leaf_stem) {
            (NodeKind::Empty, _) => PostKind::Empty,
            (NodeKind::Leaf, Some(stem)) => PostKind::Leaf(stem, n.commitment),
            (NodeKind::Internal, _) => PostKind::Internal {
                commitment: n.commitment,
                fresh: false,
            },
            _ => return None,
        })
    }

    /// `compress(C_i)` of shard `shard` after the writes (§4.2 over this tree).
    fn shard_top(&self, depth: u8, shard: u16) -> Option<[u8; 32]> {
        let [hi, lo] = shard.to_be_bytes();
        let first = if depth == 1 { lo } else { hi };
        let encode = |e: Element| e.to_bytes();
        match (self.node(&[first], false)?, depth) {
            (PostKind::Empty, _) => Some([0u8; 32]),
            (PostKind::Leaf(_, c), 1) | (PostKind::Internal { commitment: c, .. }, 1) => {
                Some(encode(c))
            }
            (PostKind::Leaf(stem, c), _) => Some(if stem[..2] == [hi, lo] {
                encode(c)
            } else {
                [0u8; 32]
            }),
            (PostKind::Internal { fresh, .. }, _) => match self.node(&[hi, lo], fresh)? {
                PostKind::Empty => Some([0u8; 32]),
                PostKind::Leaf(_, c) | PostKind::Internal { commitment: c, .. } => Some(encode(c)),
            },
        }
    }
}
