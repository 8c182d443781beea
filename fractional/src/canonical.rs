//! The canonical EIP-6800 root from the shard commitments (`spec/FRACTIONAL.md` §2).
//!
//! Depth 1: the root is the internal node `Σ mtf(C_i)·G_i` over the 256 shard tops.
//! Depth 2: the shard tops `C_{a,b}` sit below 256 depth-1 nodes `N_a = Σ_b mtf(C_{a,b})·G_b`;
//! the root's slot `a` holds `mtf(N_a)`, except that a prefix `a` holding one stem is that
//! stem's leaf (the tree is compact: a lone stem hangs at the shallowest free depth), and an
//! empty prefix is 0. All commitments move by deltas, only for the touched shards.

use banderwagon::arith::Zero;
use banderwagon::{Element, Fr};
use ipa::Committer;
use rayon::prelude::*;
use verkle::store::NodeKind;

use crate::shard::ShardDepth;

/// The top of one shard's hypertree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardTop {
    /// `None` for an empty shard, else the top node's kind (a leaf when the shard holds one
    /// stem).
    pub kind: Option<NodeKind>,
    /// `map_to_scalar_field(C_i)` (0 when empty).
    pub mtf: Fr,
    /// `compress(C_i)`.
    pub compressed: [u8; 32],
}

impl ShardTop {
    /// An empty shard.
    pub fn empty() -> ShardTop {
        ShardTop {
            kind: None,
            mtf: Fr::zero(),
            compressed: [0u8; 32],
        }
    }
}

/// What the root's slot `a` is (depth 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixShape {
    /// No stem starts with `a`.
    Empty,
    /// One stem starts with `a`: its leaf, held by this shard, is the root's child.
    Lone(u16),
    /// Two or more stems: the internal node `N_a`.
    Internal,
}

/// The canonical levels above the shard tops.
#[derive(Clone, Debug)]
pub struct CanonicalTop {
    depth: ShardDepth,
    root: Element,
    /// What the root commits to in each of its 256 slots.
    root_slots: Vec<Fr>,
    /// Depth 2: `N_a`, its map-to-field, and the shard scalars it commits to.
    level1: Vec<Element>,
    level1_mtf: Vec<Fr>,
    level1_slots: Vec<Fr>,
}

impl CanonicalTop {
    /// The levels over the given tops (one per shard), computed from scratch.
    pub fn from_tops(depth: ShardDepth, tops: &[ShardTop], committer: &Committer) -> CanonicalTop {
        let mut c = CanonicalTop::empty(depth);
        let non_empty: Vec<u16> = tops
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind.is_some())
            .map(|(i, _)| i as u16)
            .collect();
        c.update(tops, &non_empty, committer);
        c
    }

    /// The levels of a tree whose shards are all empty.
    pub fn empty(depth: ShardDepth) -> CanonicalTop {
        let (n1, slots) = match depth {
            ShardDepth::One => (0, 0),
            ShardDepth::Two => (256, 65_536),
        };
        CanonicalTop {
            depth,
            root: Element::identity(),
            root_slots: vec![Fr::zero(); 256],
            level1: vec![Element::identity(); n1],
            level1_mtf: vec![Fr::zero(); n1],
            level1_slots: vec![Fr::zero(); slots],
        }
    }

    /// The root commitment.
    pub fn root(&self) -> Element {
        self.root
    }

    /// The root's 256 slot values (its polynomial).
    pub fn root_slots(&self) -> &[Fr] {
        &self.root_slots
    }

    /// Depth 2: the node `N_a` and its 256 slot values.
    pub fn level1(&self, a: u8) -> Option<(Element, &[Fr])> {
        let a = usize::from(a);
        let c = *self.level1.get(a)?;
        let slots = self.level1_slots.get(a * 256..(a + 1) * 256)?;
        Some((c, slots))
    }

    /// Depth 2: the shape of the root's slot `a`, from the shard tops.
    pub fn prefix_shape(tops: &[ShardTop], a: u8) -> PrefixShape {
        let base = usize::from(a) * 256;
        let mut found: Option<(u16, Option<NodeKind>)> = None;
        for (b, t) in tops.iter().skip(base).take(256).enumerate() {
            if t.kind.is_some() {
                if found.is_some() {
                    return PrefixShape::Internal;
                }
                found = Some(((base + b) as u16, t.kind));
            }
        }
        match found {
            None => PrefixShape::Empty,
            Some((i, Some(NodeKind::Leaf))) => PrefixShape::Lone(i),
            Some(_) => PrefixShape::Internal,
        }
    }

    /// Moves the levels to the new tops of the shards `changed` (ascending, distinct);
    /// `tops` holds every shard's current top.
    pub fn update(&mut self, tops: &[ShardTop], changed: &[u16], committer: &Committer) {
        let mut root_terms: Vec<(usize, Fr)> = Vec::new();
        match self.depth {
            ShardDepth::One => {
                for &i in changed {
                    let (Some(t), Some(slot)) = (
                        tops.get(usize::from(i)),
                        self.root_slots.get_mut(usize::from(i)),
                    ) else {
                        continue;
                    };
                    if t.mtf != *slot {
                        root_terms.push((usize::from(i), t.mtf - *slot));
                        *slot = t.mtf;
                    }
                }
            }
            ShardDepth::Two => {
                // The slot deltas of the touched shards, grouped by their first byte (cheap,
                // here); each touched N_a then moves by its group's multiplications, the
                // groups in parallel.
                let mut groups: Vec<(u8, Vec<(usize, Fr)>)> = Vec::new();
                for &i in changed {
                    let a = (i >> 8) as u8;
                    if groups.last().map(|g| g.0) != Some(a) {
                        groups.push((a, Vec::new()));
                    }
                    let i = usize::from(i);
                    if let (Some(t), Some(slot), Some(g)) =
                        (tops.get(i), self.level1_slots.get_mut(i), groups.last_mut())
                    {
                        if t.mtf != *slot {
                            g.1.push((i & 0xff, t.mtf - *slot));
                            *slot = t.mtf;
                        }
                    }
                }
                let deltas: Vec<Element> = groups
                    .par_iter()
                    .map(|(_, terms)| committer.commit_sparse(terms))
                    .collect();
                let mut prefixes: Vec<u8> = Vec::with_capacity(groups.len());
                let mut points: Vec<Element> = Vec::with_capacity(groups.len());
                for ((a, _), d) in groups.iter().zip(deltas) {
                    let Some(n) = self.level1.get_mut(usize::from(*a)) else {
                        continue;
                    };
                    *n += d;
                    prefixes.push(*a);
                    points.push(*n);
                }
                let mtfs = Element::batch_map_to_scalar_field(&points);
                for (a, m) in prefixes.iter().zip(mtfs) {
                    let a = usize::from(*a);
                    self.level1_mtf[a] = m;
                    let slot_value = match CanonicalTop::prefix_shape(tops, a as u8) {
                        PrefixShape::Empty => Fr::zero(),
                        PrefixShape::Lone(i) => tops[usize::from(i)].mtf,
                        PrefixShape::Internal => m,
                    };
                    if slot_value != self.root_slots[a] {
                        root_terms.push((a, slot_value - self.root_slots[a]));
                        self.root_slots[a] = slot_value;
                    }
                }
            }
        }
        if !root_terms.is_empty() {
            self.root += commit_sparse_par(committer, &root_terms);
        }
    }
}

/// Root slots per parallel task of [`commit_sparse_par`].
const SLOTS_PER_TASK: usize = 32;

/// `committer.commit_sparse(terms)`, in parallel chunks: a block touching every shard moves
/// all 256 root slots, each on its own generator.
fn commit_sparse_par(committer: &Committer, terms: &[(usize, Fr)]) -> Element {
    if terms.len() <= SLOTS_PER_TASK {
        return committer.commit_sparse(terms);
    }
    terms
        .par_chunks(SLOTS_PER_TASK)
        .map(|c| committer.commit_sparse(c))
        .reduce(Element::identity, |a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard top with an internal node and a made-up scalar.
    fn top(seed: u64) -> ShardTop {
        ShardTop {
            kind: Some(NodeKind::Internal),
            mtf: Fr::from(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
            compressed: [0u8; 32],
        }
    }

    /// Every root slot moved at once (the parallel chunks of `commit_sparse_par`), then a
    /// few: the root equals the commitment to its slots computed directly.
    #[test]
    fn depth_1_root_after_all_shards_move() {
        let committer = Committer::eip6800();
        let mut tops = vec![ShardTop::empty(); 256];
        let mut c = CanonicalTop::empty(ShardDepth::One);
        for round in 0..3u64 {
            let changed: Vec<u16> = if round == 2 {
                vec![3, 77, 200]
            } else {
                (0..256).collect()
            };
            for &i in &changed {
                tops[usize::from(i)] = top(round * 1000 + u64::from(i));
            }
            c.update(&tops, &changed, committer);
            let slots: Vec<(usize, Fr)> = tops.iter().map(|t| t.mtf).enumerate().collect();
            assert_eq!(c.root(), committer.commit_sparse(&slots), "round {round}");
        }
    }

    /// Depth 2, shards under many first bytes moved at once (the groups in parallel): each
    /// `N_a` and the root equal the commitments computed directly.
    #[test]
    fn depth_2_levels_after_many_shards_move() {
        let committer = Committer::eip6800();
        let mut tops = vec![ShardTop::empty(); 65_536];
        let mut c = CanonicalTop::empty(ShardDepth::Two);
        for round in 0..2u64 {
            // Two shards under each of 40 first bytes (so each N_a is internal).
            let changed: Vec<u16> = (0..40u16)
                .flat_map(|a| [a * 6 * 256 + round as u16, a * 6 * 256 + 9])
                .collect();
            for &i in &changed {
                tops[usize::from(i)] = top(round * 100_000 + u64::from(i));
            }
            c.update(&tops, &changed, committer);
            let mut root_slots: Vec<(usize, Fr)> = Vec::new();
            for a in 0..256usize {
                let slots: Vec<(usize, Fr)> = (0..256)
                    .map(|b| (b, tops[a * 256 + b].mtf))
                    .filter(|(_, m)| !m.is_zero())
                    .collect();
                if slots.is_empty() {
                    continue;
                }
                let n = committer.commit_sparse(&slots);
                assert_eq!(
                    c.level1(a as u8).map(|l| l.0),
                    Some(n),
                    "round {round} N_{a}"
                );
                root_slots.push((a, n.map_to_scalar_field()));
            }
            assert_eq!(
                c.root(),
                committer.commit_sparse(&root_slots),
                "round {round}"
            );
        }
    }
}
