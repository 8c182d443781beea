//! Shards: which hypertree a stem belongs to (`spec/FRACTIONAL.md` §1).

use verkle::keys::Stem;

/// How many leading stem bytes name a shard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ShardDepth {
    /// 256 shards, by `stem[0]` (the default).
    #[default]
    One,
    /// 65,536 shards, by `stem[0..2]`.
    Two,
}

impl ShardDepth {
    /// Number of prefix bytes: 1 or 2.
    pub fn bytes(self) -> usize {
        match self {
            ShardDepth::One => 1,
            ShardDepth::Two => 2,
        }
    }

    /// Number of shards: 256 or 65,536.
    pub fn shard_count(self) -> usize {
        1 << (8 * self.bytes())
    }

    /// Height of the coordinator tree: 8 or 16.
    pub fn coordinator_height(self) -> u8 {
        8 * self.bytes() as u8
    }

    /// The shard of `stem`: `stem[0]`, or `u16_be(stem[0..2])`.
    pub fn shard_of(self, stem: &[u8]) -> u16 {
        let b0 = stem.first().copied().unwrap_or(0);
        match self {
            ShardDepth::One => u16::from(b0),
            ShardDepth::Two => u16::from_be_bytes([b0, stem.get(1).copied().unwrap_or(0)]),
        }
    }

    /// The stem prefix of shard `index` (1 or 2 bytes).
    pub fn prefix(self, index: u16) -> &'static [u8] {
        // Both tables are small and static: 256 and 65,536 two-byte prefixes.
        static ONE: [[u8; 1]; 256] = {
            let mut t = [[0u8; 1]; 256];
            let mut i = 0;
            while i < 256 {
                t[i][0] = i as u8;
                i += 1;
            }
            t
        };
        match self {
            ShardDepth::One => ONE.get(usize::from(index)).map_or(&[][..], |p| &p[..]),
            ShardDepth::Two => two_byte_prefix(index),
        }
    }

    /// The wire byte: 1 or 2.
    pub fn to_byte(self) -> u8 {
        self.bytes() as u8
    }

    /// From the wire byte.
    pub fn from_byte(b: u8) -> Option<ShardDepth> {
        match b {
            1 => Some(ShardDepth::One),
            2 => Some(ShardDepth::Two),
            _ => None,
        }
    }
}

fn two_byte_prefix(index: u16) -> &'static [u8] {
    use std::sync::OnceLock;
    static TWO: OnceLock<Vec<[u8; 2]>> = OnceLock::new();
    let t = TWO.get_or_init(|| (0..=u16::MAX).map(u16::to_be_bytes).collect());
    t.get(usize::from(index)).map_or(&[][..], |p| &p[..])
}

/// The shard of a stem under `depth` (shorthand for [`ShardDepth::shard_of`]).
pub fn shard_of(depth: ShardDepth, stem: &Stem) -> u16 {
    depth.shard_of(stem)
}

/// Configuration of a [`ShardedTree`](crate::ShardedTree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardConfig {
    /// Shard depth (default [`ShardDepth::One`]).
    pub depth: ShardDepth,
    /// Node-cache budget of the whole store-backed tree, in nodes, shared equally by the
    /// shards ([`ShardConfig::shard_cache_nodes`]): after each `ShardedTree::persist`
    /// every shard holds at most its share (between persists a shard also holds the nodes
    /// the block touched). `usize::MAX`: never evict.
    pub cache_nodes: usize,
    /// Node-cache budget of the whole store-backed tree, in bytes (as
    /// [`verkle::TreeConfig::cache_bytes`] counts them), shared equally by the shards
    /// ([`ShardConfig::shard_cache_bytes`]), applied beside `cache_nodes`. `usize::MAX`: no
    /// byte limit.
    pub cache_bytes: usize,
}

impl ShardConfig {
    /// One shard's share of [`ShardConfig::cache_bytes`].
    pub fn shard_cache_bytes(&self) -> usize {
        if self.cache_bytes == usize::MAX {
            return usize::MAX;
        }
        (self.cache_bytes / self.depth.shard_count()).max(1)
    }

    /// One shard's share of [`ShardConfig::cache_nodes`]: the budget divided by the shard
    /// count, at least 1 node (the shard's root).
    pub fn shard_cache_nodes(&self) -> usize {
        if self.cache_nodes == usize::MAX {
            return usize::MAX;
        }
        (self.cache_nodes / self.depth.shard_count()).max(1)
    }
}

impl Default for ShardConfig {
    fn default() -> Self {
        ShardConfig {
            depth: ShardDepth::One,
            cache_nodes: 4_000_000,
            cache_bytes: usize::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_and_prefixes() {
        let mut stem = [0u8; 31];
        stem[0] = 0xab;
        stem[1] = 0xcd;
        assert_eq!(ShardDepth::One.shard_of(&stem), 0xab);
        assert_eq!(ShardDepth::Two.shard_of(&stem), 0xabcd);
        assert_eq!(ShardDepth::One.prefix(0xab), &[0xab]);
        assert_eq!(ShardDepth::Two.prefix(0xabcd), &[0xab, 0xcd]);
        assert_eq!(ShardDepth::One.prefix(256), &[] as &[u8]);
        assert_eq!(ShardDepth::Two.shard_count(), 65_536);
        assert_eq!(ShardDepth::Two.coordinator_height(), 16);
        assert_eq!(
            ShardDepth::from_byte(ShardDepth::Two.to_byte()),
            Some(ShardDepth::Two)
        );
        assert_eq!(ShardDepth::from_byte(3), None);
    }
}
