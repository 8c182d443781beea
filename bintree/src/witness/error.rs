//! Why a binary witness was rejected: the rule broken (a stable name listed in
//! `spec/BINARY.md`) and where.

/// A canonical-form or structural rule of the binary witness (`spec/BINARY.md` §9). Each has
/// a stable name, [`Rule::name`], shared with the spec and the conformance vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// `bw.version`: the version byte is not [`crate::witness::VERSION`].
    Version,
    /// `bw.tree`: the tree byte names another tree than the verifier's.
    TreeKind,
    /// `bw.hash`: the hash byte names another hash than the verifier's.
    HashKind,
    /// `bw.keys.order`: keys are not strictly increasing (unsorted or duplicate).
    KeyOrder,
    /// `bw.keys.length`: an EIP-8297 key length is 0 or above the limit.
    KeyLength,
    /// `bw.keys.zero_stem`: an EIP-7864 key's stem is all zero (its stem node would hash as
    /// an internal node with an empty left child).
    ZeroStem,
    /// `bw.keys.prefix`: an EIP-8297 key is a proper prefix of the next key.
    KeyPrefix,
    /// `bw.keys.flags`: a flags byte has an unknown bit, a delete where the tree has none, or
    /// a delete of an absent key.
    KeyFlags,
    /// `bw.keys.noop`: a set writes the value the key already holds.
    NoopWrite,
    /// `bw.end.kind`: an end record's kind byte is unknown.
    EndKind,
    /// `bw.end.depth`: an end depth is above the limit or disagrees with the walk (a path
    /// that ends above an internal node, or continues below an end).
    EndDepth,
    /// `bw.end.group`: the end kinds of paths that meet at one node do not fit one node.
    EndGroup,
    /// `bw.end.absent_value`: a key claims a pre-value under a path that ends in an empty
    /// subtree or at another stem or leaf.
    AbsentValue,
    /// `bw.end.present_absent`: a key whose own leaf or stem ends its path claims absence.
    PresentAbsent,
    /// `bw.other.prefix`: an other stem or leaf does not share the path bits above its node.
    OtherPrefix,
    /// `bw.other.touched`: an other stem or leaf is one of the witness's own keys or stems.
    OtherTouched,
    /// `bw.other.empty`: a present stem's recomputed subtree root is zero (a stem node always
    /// holds a value).
    EmptyStem,
    /// `bw.path.empty_internal`: an internal node on a touched path hashes to zero.
    EmptyInternal,
    /// `bw.anchor.depth`: an EIP-7864 anchor's stem node is not below the side it anchors, or
    /// deeper than the limit.
    AnchorDepth,
    /// `bw.anchor.prefix`: an EIP-7864 anchor's stem does not lie below the side it anchors.
    AnchorPrefix,
    /// `bw.branch.prefix`: an EIP-8297 branch prefix does not match the keys below it, or is
    /// longer than the limit.
    BranchPrefix,
    /// `bw.collapse`: an EIP-8297 delete empties a branch side, and the surviving sibling's
    /// record is missing, malformed or false.
    Collapse,
    /// `bw.hash.zero`: a sent hash is 32 zero bytes (an empty sibling is a 0 bit instead).
    ZeroHash,
    /// `bw.bitmap.padding`: bits past the last sibling in the bitmap are not zero.
    BitmapPadding,
    /// `bw.count.hashes`: the hash count differs from the number of 1 bits in the bitmap.
    HashCount,
    /// `bw.count.siblings`: the walk needs more or fewer siblings than the count says.
    SiblingCount,
    /// `bw.count.others`: the walk needs more or fewer other-stem records than sent.
    OtherCount,
    /// `bw.count.anchors`: the walk needs more or fewer EIP-7864 anchors than sent.
    AnchorCount,
}

impl Rule {
    /// The stable name of the rule, as in `spec/BINARY.md` §9.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Version => "bw.version",
            Rule::TreeKind => "bw.tree",
            Rule::HashKind => "bw.hash",
            Rule::KeyOrder => "bw.keys.order",
            Rule::KeyLength => "bw.keys.length",
            Rule::ZeroStem => "bw.keys.zero_stem",
            Rule::KeyPrefix => "bw.keys.prefix",
            Rule::KeyFlags => "bw.keys.flags",
            Rule::NoopWrite => "bw.keys.noop",
            Rule::EndKind => "bw.end.kind",
            Rule::EndDepth => "bw.end.depth",
            Rule::EndGroup => "bw.end.group",
            Rule::AbsentValue => "bw.end.absent_value",
            Rule::PresentAbsent => "bw.end.present_absent",
            Rule::OtherPrefix => "bw.other.prefix",
            Rule::OtherTouched => "bw.other.touched",
            Rule::EmptyStem => "bw.other.empty",
            Rule::EmptyInternal => "bw.path.empty_internal",
            Rule::AnchorDepth => "bw.anchor.depth",
            Rule::AnchorPrefix => "bw.anchor.prefix",
            Rule::BranchPrefix => "bw.branch.prefix",
            Rule::Collapse => "bw.collapse",
            Rule::ZeroHash => "bw.hash.zero",
            Rule::BitmapPadding => "bw.bitmap.padding",
            Rule::HashCount => "bw.count.hashes",
            Rule::SiblingCount => "bw.count.siblings",
            Rule::OtherCount => "bw.count.others",
            Rule::AnchorCount => "bw.count.anchors",
        }
    }
}

/// A binary witness that was not decoded or did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WitnessError {
    /// `bw.length.truncated`: a section runs past the end of the input.
    #[error("bw.length.truncated: {section} needs {needed} bytes at offset {offset}; {available} remain")]
    Truncated {
        /// The section being read.
        section: &'static str,
        /// Its byte offset.
        offset: usize,
        /// Bytes it needs.
        needed: usize,
        /// Bytes left from `offset`.
        available: usize,
    },
    /// `bw.length.trailing`: bytes follow the last section.
    #[error("bw.length.trailing: {extra} bytes after the witness ends at offset {offset}")]
    Trailing {
        /// Where the witness ends.
        offset: usize,
        /// Bytes after it.
        extra: usize,
    },
    /// `bw.limit`: a count is above its limit (checked before anything is read or allocated).
    #[error("bw.limit: {field} = {count} is above the limit {max}")]
    Limit {
        /// The count's field.
        field: &'static str,
        /// Its value.
        count: u64,
        /// The limit.
        max: u64,
    },
    /// A canonical-form or structural rule is broken.
    #[error("{}: broken at {what} {index}", rule.name())]
    Rule {
        /// The rule.
        rule: Rule,
        /// What `index` counts: "offset", "key", "stem", "other", "anchor", "sibling", "hash",
        /// "depth".
        what: &'static str,
        /// Where.
        index: usize,
    },
    /// `bw.root`: the root recomputed from the witness is not the expected pre-state root.
    #[error("bw.root: recomputed pre-state root {got:02x?}, expected {expected:02x?}")]
    RootMismatch {
        /// The recomputed root.
        got: [u8; 32],
        /// The root the witness was checked against.
        expected: [u8; 32],
    },
}

impl WitnessError {
    /// The rule broken, if the error is a [`WitnessError::Rule`].
    pub fn rule(&self) -> Option<Rule> {
        match self {
            WitnessError::Rule { rule, .. } => Some(*rule),
            _ => None,
        }
    }

    /// The stable name of what was broken (`bw.…`), for every error.
    pub fn name(&self) -> &'static str {
        match self {
            WitnessError::Truncated { .. } => "bw.length.truncated",
            WitnessError::Trailing { .. } => "bw.length.trailing",
            WitnessError::Limit { .. } => "bw.limit",
            WitnessError::Rule { rule, .. } => rule.name(),
            WitnessError::RootMismatch { .. } => "bw.root",
        }
    }
}

/// A [`WitnessError::Rule`].
pub(crate) fn broken(rule: Rule, what: &'static str, index: usize) -> WitnessError {
    WitnessError::Rule { rule, what, index }
}
