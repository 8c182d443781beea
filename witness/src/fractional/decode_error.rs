//! Why bytes are not a fractional proof in canonical form (`spec/FRACTIONAL.md` §4, F-DEC).

/// Why bytes are not a fractional proof in canonical form. Offsets count from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalDecodeError {
    /// The bytes end before a field.
    #[error("{field} at offset {offset} needs {needed} bytes, {available} left")]
    Truncated {
        /// The field.
        field: &'static str,
        /// Where it starts.
        offset: usize,
        /// Bytes it needs (for a list, at least).
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// Bytes are left after the multiproof.
    #[error("{extra} bytes after the end of the proof")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The version byte is not [`VERSION`].
    #[error("version {0} (this decoder reads version 1)")]
    BadVersion(u8),
    /// The shard depth is not 1 or 2.
    #[error("shard depth {0} (must be 1 or 2)")]
    BadDepth(u8),
    /// The proof lists no shard.
    #[error("the proof lists no shard")]
    NoShards,
    /// A shard index does not exist at this depth (≥ 256 at depth 1).
    #[error("shard entry {entry}: index {index} is out of range for shard depth {depth}")]
    ShardOutOfRange {
        /// Entry position.
        entry: usize,
        /// The index.
        index: u16,
        /// The shard depth.
        depth: u8,
    },
    /// Two shard entries have the same index.
    #[error("shard entries {entry} and {} both have index {index}", entry - 1)]
    DuplicateShard {
        /// Position of the second entry.
        entry: usize,
        /// The index.
        index: u16,
    },
    /// Shard entries are not in ascending index order.
    #[error("shard entry {entry} (index {index}) is below the entry before it")]
    ShardsNotAscending {
        /// Entry position.
        entry: usize,
        /// The index.
        index: u16,
    },
    /// A shard entry proves no stem.
    #[error("shard entry {entry} has no stems")]
    EmptyShardEntry {
        /// Entry position.
        entry: usize,
    },
    /// Stems are not strictly ascending (over the whole proof).
    #[error("stem {stem_index} is not above the stem before it")]
    StemsNotAscending {
        /// Index over all stems.
        stem_index: usize,
    },
    /// A stem proves no suffix.
    #[error("stem {stem_index} has no suffixes")]
    EmptyStem {
        /// Index over all stems.
        stem_index: usize,
    },
    /// Suffixes of a stem are not strictly ascending, or there are more than 256.
    #[error("stem {stem_index}: suffix {position} is not above the one before it")]
    SuffixesNotAscending {
        /// Index over all stems.
        stem_index: usize,
        /// Position within the stem.
        position: usize,
    },
    /// A presence byte is neither 0 nor 1.
    #[error("stem {stem_index}, suffix {suffix}: presence byte {byte} (must be 0 or 1)")]
    BadPresence {
        /// Index over all stems.
        stem_index: usize,
        /// The suffix.
        suffix: u8,
        /// The byte.
        byte: u8,
    },
    /// `other_stems` is not strictly ascending.
    #[error("other_stems[{index}] is not above the one before it")]
    OtherStemsNotAscending {
        /// Its index.
        index: usize,
    },
}
