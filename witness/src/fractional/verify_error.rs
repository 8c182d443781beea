//! Why a fractional proof does not verify (`spec/FRACTIONAL.md` §5).

use banderwagon::DecodeError;

use super::coordinator::MerkleProofError;
use super::wire::FractionalDecodeError;

/// Why a fractional proof does not verify. The checks run in the order of the variants.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FractionalVerifyError {
    /// The bytes are not a fractional proof in canonical form.
    #[error("fractional proof encoding: {0}")]
    Decode(#[from] FractionalDecodeError),
    /// Every stem of a shard entry routes to one other shard: the entry is another shard's
    /// proof presented under this index.
    #[error("shard entry {entry} has index {index}, but its stems belong to shard {routes_to}")]
    ShardIndexMismatch {
        /// Entry position.
        entry: usize,
        /// The entry's index.
        index: u16,
        /// The shard its stems route to.
        routes_to: u16,
    },
    /// A stem listed under a shard entry routes to another shard.
    #[error("stem {stem_index} is listed under shard {index} but routes to shard {routes_to}")]
    KeyRoutedToWrongShard {
        /// Index over all stems.
        stem_index: usize,
        /// The entry's shard index.
        index: u16,
        /// The shard it routes to.
        routes_to: u16,
    },
    /// An extension byte has an unknown status or a depth above the shard top or beyond 31.
    #[error(
        "stem {stem_index}: extension byte {byte:#04x} is not a status at a depth within the shard"
    )]
    BadExtension {
        /// Index over all stems.
        stem_index: usize,
        /// The byte.
        byte: u8,
    },
    /// A shard's commitment is the identity but a stem is not absent-empty at the shard
    /// top, or a stem claims the shard is empty while its commitment is not the identity.
    #[error("stem {stem_index} disagrees with the emptiness of shard {index}")]
    EmptyShardMismatch {
        /// Index over all stems.
        stem_index: usize,
        /// The shard.
        index: u16,
    },
    /// A stem proven absent carries a current value.
    #[error("stem {stem_index} is proven absent but suffix {suffix} has a current value")]
    AbsentStemHasValue {
        /// Index over all stems.
        stem_index: usize,
        /// The suffix.
        suffix: u8,
    },
    /// A stem's path needs a node another stem placed as something else, or two present
    /// stems claim one leaf.
    #[error("stem {stem_index}: its path conflicts with an earlier stem's at depth {depth}")]
    PathConflict {
        /// Index over all stems.
        stem_index: usize,
        /// Depth of the conflict.
        depth: usize,
    },
    /// `other_stems` does not hold one stem per absent-other leaf.
    #[error("other_stems has {got} entries; the absent-other leaves need {expected}")]
    OtherStemCount {
        /// Needed.
        expected: usize,
        /// Given.
        got: usize,
    },
    /// An other stem does not lie at its leaf's path, or is one of the proven stems.
    #[error("other_stems[{index}] is off its leaf's path or is a proven stem")]
    BadOtherStem {
        /// Its index.
        index: usize,
    },
    /// The commitments do not match the proven nodes below the shard tops.
    #[error("the proof has {got} commitments; the proven paths need {expected}")]
    CommitmentCount {
        /// Needed (counting stops early when it exceeds `got`).
        expected: usize,
        /// Given.
        got: usize,
    },
    /// A shard commitment, a node commitment or a multiproof point does not decode.
    #[error("{what}[{index}] is not a Banderwagon element: {source}")]
    BadPoint {
        /// `"shard commitment"`, `"commitment"` or `"multiproof point"`.
        what: &'static str,
        /// Its index.
        index: usize,
        /// The decoder's reason.
        source: DecodeError,
    },
    /// The multiproof's final scalar is not canonical, or a proof without openings carries
    /// a non-zero multiproof.
    #[error("the multiproof encoding is not canonical")]
    BadMultiproof,
    /// The IPA multiproof does not open the hypertrees, rooted at the given shard
    /// commitments, to the proven values (a value, a commitment or a shard commitment —
    /// for example a stale one — is wrong).
    #[error("the multiproof does not prove the openings under the shard commitments")]
    OpeningsRejected,
    /// The coordinator multiproof has too few or too many siblings.
    #[error("coordinator multiproof: {0}")]
    Siblings(MerkleProofError),
    /// The shard commitments and siblings hash to another coordinator root.
    #[error(
        "the shard commitments hash to coordinator root 0x{}, not 0x{}",
        hex::encode(computed),
        hex::encode(expected)
    )]
    CoordinatorRootMismatch {
        /// What the proof hashes to.
        computed: [u8; 32],
        /// The trusted root.
        expected: [u8; 32],
    },
}
