//! The coordinator tree, kept whole in memory and updated incrementally
//! (`spec/FRACTIONAL.md` §3): `2^h` leaves, one per shard, and every level above them.

use witness::fractional::coordinator::{leaf_hash, multiproof_siblings, node_hash};

/// The full binary SHA-256 tree over the shard commitments.
#[derive(Clone, Debug)]
pub struct Coordinator {
    /// `levels[0]`: the leaves; `levels[h]`: the root alone.
    levels: Vec<Vec<[u8; 32]>>,
}

impl Coordinator {
    /// The tree whose shards have the given compressed commitments (`2^h` of them).
    pub fn build(commitments: &[[u8; 32]]) -> Coordinator {
        let leaves: Vec<[u8; 32]> = commitments
            .iter()
            .enumerate()
            .map(|(i, c)| leaf_hash(i as u16, c))
            .collect();
        let mut levels = vec![leaves];
        while let Some(prev) = levels.last().filter(|l| l.len() > 1) {
            let next = prev
                .chunks_exact(2)
                .map(|p| node_hash(&p[0], &p[1]))
                .collect();
            levels.push(next);
        }
        Coordinator { levels }
    }

    /// The tree of `count` empty shards (every commitment the identity).
    pub fn empty(count: usize) -> Coordinator {
        Coordinator::build(&vec![[0u8; 32]; count])
    }

    /// The root.
    pub fn root(&self) -> [u8; 32] {
        self.levels
            .last()
            .and_then(|l| l.first())
            .copied()
            .unwrap_or([0u8; 32])
    }

    /// Sets the commitments of some shards (`(index, compressed C_i)`, indices ascending and
    /// distinct) and rehashes only their paths: `h` hashes per leaf at most, fewer where
    /// paths meet.
    pub fn update(&mut self, changed: &[(u16, [u8; 32])]) {
        let mut positions: Vec<usize> = Vec::with_capacity(changed.len());
        if let Some(leaves) = self.levels.first_mut() {
            for (i, c) in changed {
                if let Some(slot) = leaves.get_mut(usize::from(*i)) {
                    *slot = leaf_hash(*i, c);
                    positions.push(usize::from(*i));
                }
            }
        }
        for level in 1..self.levels.len() {
            for p in positions.iter_mut() {
                *p /= 2;
            }
            positions.dedup();
            let (below, above) = self.levels.split_at_mut(level);
            let (Some(children), Some(parents)) = (below.last(), above.first_mut()) else {
                break;
            };
            for &p in &positions {
                if let (Some(l), Some(r), Some(slot)) = (
                    children.get(2 * p),
                    children.get(2 * p + 1),
                    parents.get_mut(p),
                ) {
                    *slot = node_hash(l, r);
                }
            }
        }
    }

    /// The siblings of a multiproof for the shards `indices` (ascending, distinct).
    pub fn siblings(&self, indices: &[u16]) -> Vec<[u8; 32]> {
        let positions: Vec<u32> = indices.iter().map(|&i| u32::from(i)).collect();
        multiproof_siblings(&self.levels, &positions)
    }

    /// The leaf hash of shard `index`.
    pub fn leaf(&self, index: u16) -> Option<[u8; 32]> {
        self.levels.first()?.get(usize::from(index)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_equals_rebuild() {
        let mut commitments = vec![[0u8; 32]; 256];
        let mut c = Coordinator::empty(256);
        assert_eq!(c.root(), Coordinator::build(&commitments).root());
        let changed = [
            (0u16, [1u8; 32]),
            (1, [2u8; 32]),
            (77, [3u8; 32]),
            (255, [4u8; 32]),
        ];
        for (i, v) in changed {
            commitments[usize::from(i)] = v;
        }
        c.update(&changed);
        assert_eq!(c.root(), Coordinator::build(&commitments).root());
        assert_ne!(c.root(), Coordinator::empty(256).root());
        assert_eq!(c.leaf(77), Some(leaf_hash(77, &[3u8; 32])));
    }
}
