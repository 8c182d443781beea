//! What a tree kept in a key/value store needs, without the store: where a node's record
//! lives (its **position**, a short bit path), how a tree reads records it has not loaded
//! ([`NodeSource`]), the records one commit writes and removes ([`Changes`]), and the errors
//! of loading untrusted records ([`StoreError`], [`RecordError`]).
//!
//! A node is stored under its position: the bits of the path from the root to it, written
//! as the bit count (one byte for EIP-7864, four bytes big-endian for EIP-8297) then the
//! bits packed most significant first, zero-padded to a byte. An EIP-7864 key is at most
//! 32 bytes; an EIP-8297 key is four bytes plus the node's prefix length in bytes. Hashes
//! never appear in keys. A record's first byte is [`RECORD_VERSION`], its second the node's
//! kind; the layouts are in [`crate::eip7864::StoredTree`] and [`crate::eip8297::StoredTree`].
//!
//! A subtree not in memory is a stored handle carrying its hash, so a parent is rehashed
//! without loading it. Loading checks every record against the hash its parent holds: a
//! record that does not decode or does not hash to that value is an error naming its
//! position, never a panic. A batch of keys is loaded level by level, one
//! [`NodeSource::load_many`] for all the records a level needs.

use core::fmt;

use crate::bits::bit;
use crate::prelude::*;

/// Version byte of every node record.
pub const RECORD_VERSION: u8 = 1;

/// Where a stored tree reads the records it has not loaded. `Sync`: a batch may load
/// records from several threads.
pub trait NodeSource: Sync {
    /// The store's own failure (I/O, a closed database).
    type Error: fmt::Display + fmt::Debug + Send;

    /// The record stored under the position `key`, if any.
    fn load(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error>;

    /// The records stored under the positions `keys` (distinct, in any order), one answer per
    /// key in the keys' order (`None`: absent). The default reads them one after the other
    /// with [`NodeSource::load`]; a store that reads many records at once faster (one
    /// multi-get) overrides it. An answer list of another length than `keys` is an error of
    /// the tree that asked ([`StoreError::Answers`]).
    fn load_many(&self, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        keys.iter().map(|key| self.load(key)).collect()
    }
}

/// A source with no records: a tree built from nothing never reads one.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSource;

impl NodeSource for NoSource {
    type Error = core::convert::Infallible;

    fn load(&self, _key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        Ok(None)
    }
}

/// The records one commit writes: every node whose record changed or that moved, and the
/// positions no node holds any more. Apply both atomically (no key is in both).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// (position, record), positions distinct, in key order.
    pub puts: Vec<(Vec<u8>, Vec<u8>)>,
    /// Positions whose records are to be removed, in key order.
    pub deletes: Vec<Vec<u8>>,
    /// The root after the commit.
    pub root: [u8; 32],
    /// Values in the tree after the commit.
    pub len: u64,
}

/// Why a node record is not a valid record for its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The record is shorter than its layout says.
    #[error("{got} bytes; the layout needs {expected}")]
    Truncated {
        /// The record's length.
        got: usize,
        /// The length its header requires.
        expected: usize,
    },
    /// Bytes follow the layout's end.
    #[error("{got} bytes; the layout ends at {expected}")]
    Trailing {
        /// The record's length.
        got: usize,
        /// The length its header requires.
        expected: usize,
    },
    /// The version byte is not [`RECORD_VERSION`].
    #[error("version {got}; expected {RECORD_VERSION}")]
    Version {
        /// The version read.
        got: u8,
    },
    /// The kind byte names no node of this tree.
    #[error("unknown node kind {got}")]
    Kind {
        /// The kind byte read.
        got: u8,
    },
    /// A field breaks the tree's rules (a stem off its position, values out of order, a
    /// prefix shorter than the position, an empty child of a branch).
    #[error("field {field} is invalid")]
    Field {
        /// The field.
        field: &'static str,
    },
    /// The record hashes to another value than its parent holds for it.
    #[error("hashes to {}, its parent holds {}", Hex(got), Hex(expected))]
    Hash {
        /// The record's hash.
        got: [u8; 32],
        /// The hash the parent holds.
        expected: [u8; 32],
    },
}

/// Why a stored tree could not read or use a record.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError<E: fmt::Display + fmt::Debug> {
    /// The source failed.
    #[error("loading node record {}: {cause}", Hex(key))]
    Source {
        /// The record's position.
        key: Vec<u8>,
        /// The source's error.
        cause: E,
    },
    /// The source failed reading several records at once.
    #[error("loading {count} node records from {}: {cause}", Hex(first))]
    SourceMany {
        /// The first position asked for.
        first: Vec<u8>,
        /// The number of positions asked for.
        count: usize,
        /// The source's error.
        cause: E,
    },
    /// The source answered another number of records than positions asked for.
    #[error("{got} answers for {asked} node records from {}", Hex(first))]
    Answers {
        /// The first position asked for.
        first: Vec<u8>,
        /// The number of positions asked for.
        asked: usize,
        /// The number of answers.
        got: usize,
    },
    /// A record the tree refers to is absent.
    #[error("node record {} is missing", Hex(key))]
    Missing {
        /// The record's position.
        key: Vec<u8>,
    },
    /// A record is corrupt.
    #[error("node record {}: {error}", Hex(key))]
    Corrupt {
        /// The record's position.
        key: Vec<u8>,
        /// What is wrong with it.
        error: RecordError,
    },
    /// A key or value handed to the tree is invalid.
    #[error(transparent)]
    Key(#[from] crate::Error),
    /// The witness asked for is invalid.
    #[error(transparent)]
    Witness(#[from] crate::witness::WitnessError),
}

/// Bytes as lower-case hex, for messages.
pub(crate) struct Hex<'a>(pub(crate) &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The position key of the node reached by the first `bits` bits of `path`, with bit
/// `flip` (if any, below `bits`) inverted; the bit count takes `width` bytes (1, else 4).
pub(crate) fn position(path: &[u8], bits: usize, flip: Option<usize>, width: usize) -> Vec<u8> {
    let mut key = Vec::with_capacity(width + bits.div_ceil(8));
    position_into(path, bits, flip, width, &mut key);
    key
}

/// Appends [`position`]`(path, bits, flip, width)` to `out`.
pub(crate) fn position_into(
    path: &[u8],
    bits: usize,
    flip: Option<usize>,
    width: usize,
    out: &mut Vec<u8>,
) {
    let from = out.len();
    if width == 1 {
        out.push(bits as u8);
    } else {
        out.extend_from_slice(&(bits as u32).to_be_bytes());
    }
    out.extend_from_slice(&path[..bits.div_ceil(8)]);
    if let Some(last) = out.last_mut().filter(|_| !bits.is_multiple_of(8)) {
        *last &= 0xffu8 << (8 - bits % 8);
    }
    if let Some(i) = flip {
        out[from + width + i / 8] ^= 0x80 >> (i % 8);
    }
}

/// How many depths from the root fit `budget` nodes whole, of loaded-node `counts` by depth:
/// the levels an eviction keeps.
pub(crate) fn kept_depths(counts: &[usize], budget: usize) -> usize {
    let mut kept = 0usize;
    let mut keep = 0;
    for count in counts {
        if kept + count > budget {
            break;
        }
        kept += count;
        keep += 1;
    }
    keep
}

/// `Some(keep)` when `counts` hold no loaded node at depth `keep` or below (what an eviction
/// to `keep` depths leaves known cleared), else `None`.
pub(crate) fn cleared_from(counts: &[usize], keep: usize) -> Option<usize> {
    counts
        .iter()
        .skip(keep)
        .all(|&count| count == 0)
        .then_some(keep)
}

/// Adds `n` to the count at `depth` of `counts` (by depth), growing it to hold `depth`.
pub(crate) fn add_at(counts: &mut Vec<usize>, depth: usize, n: usize) {
    if counts.len() <= depth {
        counts.resize(depth + 1, 0);
    }
    if let Some(count) = counts.get_mut(depth) {
        *count += n;
    }
}

/// Whether the first `bits` bits of `a` and `b` agree (both hold at least that many).
pub(crate) fn same_bits(a: &[u8], b: &[u8], bits: usize) -> bool {
    let whole = bits / 8;
    if a[..whole] != b[..whole] {
        return false;
    }
    (whole * 8..bits).all(|i| bit(a, i) == bit(b, i))
}

/// A record's bytes, read front to back with typed errors.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Checks the version byte and returns the reader past it and the kind byte.
    pub(crate) fn open(bytes: &'a [u8]) -> Result<(Reader<'a>, u8), RecordError> {
        let mut r = Reader { bytes, at: 0 };
        let head = r.take(2)?;
        if head[0] != RECORD_VERSION {
            return Err(RecordError::Version { got: head[0] });
        }
        Ok((r, head[1]))
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], RecordError> {
        let end = self.at.saturating_add(n);
        let out = self.bytes.get(self.at..end).ok_or(RecordError::Truncated {
            got: self.bytes.len(),
            expected: end,
        })?;
        self.at = end;
        Ok(out)
    }

    /// The next 32 bytes.
    pub(crate) fn hash(&mut self) -> Result<[u8; 32], RecordError> {
        let mut out = [0u8; 32];
        out.copy_from_slice(self.take(32)?);
        Ok(out)
    }

    /// Checks that nothing follows.
    pub(crate) fn end(self) -> Result<(), RecordError> {
        if self.at != self.bytes.len() {
            return Err(RecordError::Trailing {
                got: self.bytes.len(),
                expected: self.at,
            });
        }
        Ok(())
    }
}

/// Loads the record at `key` through `source`; an absent record is [`StoreError::Missing`].
pub(crate) fn load<S: NodeSource>(source: &S, key: &[u8]) -> Result<Vec<u8>, StoreError<S::Error>> {
    match source.load(key) {
        Ok(Some(record)) => Ok(record),
        Ok(None) => Err(StoreError::Missing { key: key.to_vec() }),
        Err(cause) => Err(StoreError::Source {
            key: key.to_vec(),
            cause,
        }),
    }
}

/// Loads the records at `keys` through one [`NodeSource::load_many`] (one
/// [`NodeSource::load`] for a single key), in the keys' order; an absent record is
/// [`StoreError::Missing`], an answer list of another length [`StoreError::Answers`].
pub(crate) fn load_many<S: NodeSource>(
    source: &S,
    keys: &[Vec<u8>],
) -> Result<Vec<Vec<u8>>, StoreError<S::Error>> {
    let [first, ..] = keys else {
        return Ok(Vec::new());
    };
    if let [key] = keys {
        return Ok(vec![load(source, key)?]);
    }
    let asked: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let answers = source
        .load_many(&asked)
        .map_err(|cause| StoreError::SourceMany {
            first: first.clone(),
            count: keys.len(),
            cause,
        })?;
    if answers.len() != keys.len() {
        return Err(StoreError::Answers {
            first: first.clone(),
            asked: keys.len(),
            got: answers.len(),
        });
    }
    keys.iter()
        .zip(answers)
        .map(|(key, answer)| answer.ok_or_else(|| StoreError::Missing { key: key.clone() }))
        .collect()
}

/// `error` about the record at `key`.
pub(crate) fn corrupt<E: fmt::Display + fmt::Debug>(
    key: &[u8],
    error: RecordError,
) -> StoreError<E> {
    StoreError::Corrupt {
        key: key.to_vec(),
        error,
    }
}

/// Records in a map, for the stored trees' tests: a [`NodeSource`] that takes the
/// [`Changes`] of a commit.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct MapSource {
    pub(crate) records: std::sync::Mutex<alloc::collections::BTreeMap<Vec<u8>, Vec<u8>>>,
}

#[cfg(test)]
impl NodeSource for MapSource {
    type Error = core::convert::Infallible;
    fn load(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        Ok(self.records.lock().unwrap().get(key).cloned())
    }
}

#[cfg(test)]
impl MapSource {
    /// Applies a commit's changes: deletes (none of them also written), then puts.
    pub(crate) fn write(&self, changes: &Changes) {
        let mut records = self.records.lock().unwrap();
        for key in &changes.deletes {
            assert!(!changes.puts.iter().any(|(k, _)| k == key));
            records.remove(key);
        }
        for (key, value) in &changes.puts {
            records.insert(key.clone(), value.clone());
        }
    }
}

/// A [`MapSource`] that notes every read, for the stored trees' tests: the keys of each
/// [`NodeSource::load_many`] and of each [`NodeSource::load`] (a batch of one), and answers
/// `skew` fewer records than asked (negative: more) to a multi-key read.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Batches {
    pub(crate) map: MapSource,
    pub(crate) calls: std::sync::Mutex<Vec<Vec<Vec<u8>>>>,
    pub(crate) skew: isize,
}

#[cfg(test)]
impl NodeSource for Batches {
    type Error = core::convert::Infallible;
    fn load(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        self.calls.lock().unwrap().push(vec![key.to_vec()]);
        self.map.load(key)
    }
    fn load_many(&self, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        self.calls
            .lock()
            .unwrap()
            .push(keys.iter().map(|key| key.to_vec()).collect());
        let mut answers = keys
            .iter()
            .map(|key| self.map.load(key))
            .collect::<Result<Vec<_>, _>>()?;
        let len = answers.len().saturating_add_signed(-self.skew);
        answers.resize(len, None);
        Ok(answers)
    }
}

#[cfg(test)]
impl Batches {
    /// A source of a copy of `records` that answers `skew` fewer records than asked.
    pub(crate) fn over(
        records: &alloc::collections::BTreeMap<Vec<u8>, Vec<u8>>,
        skew: isize,
    ) -> Self {
        Batches {
            map: MapSource {
                records: std::sync::Mutex::new(records.clone()),
            },
            skew,
            ..Batches::default()
        }
    }

    /// The reads so far, each a list of keys, and forgets them.
    pub(crate) fn take(&self) -> Vec<Vec<Vec<u8>>> {
        core::mem::take(&mut *self.calls.lock().unwrap())
    }
}

/// A source whose every read fails.
#[cfg(test)]
pub(crate) struct Failing;

#[cfg(test)]
impl NodeSource for Failing {
    type Error = &'static str;
    fn load(&self, _key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        Err("closed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_records_load_in_the_keys_order_with_typed_errors() {
        let source = Batches::default();
        source.map.records.lock().unwrap().extend([
            (vec![1], vec![10]),
            (vec![2], vec![20]),
            (vec![3], vec![30]),
        ]);
        let keys = [vec![3], vec![1], vec![2]];
        assert_eq!(
            load_many(&source, &keys).unwrap(),
            [vec![30], vec![10], vec![20]]
        );
        assert_eq!(source.take(), [keys.to_vec()]);
        // A single key is one plain load.
        assert_eq!(load_many(&source, &keys[..1]).unwrap(), [vec![30]]);
        assert_eq!(source.take(), [vec![vec![3]]]);
        assert!(load_many(&source, &[]).unwrap().is_empty());
        assert!(source.take().is_empty());
        match load_many(&source, &[vec![1], vec![4], vec![2]]) {
            Err(StoreError::Missing { key }) => assert_eq!(key, [4]),
            other => panic!("{other:?}"),
        }
        for skew in [1, -1, 3] {
            let source = Batches {
                skew,
                ..Batches::default()
            };
            match load_many(&source, &keys) {
                Err(StoreError::Answers { first, asked, got }) => {
                    assert_eq!((first, asked), (vec![3], 3));
                    assert_eq!(got, 3usize.saturating_add_signed(-skew));
                }
                other => panic!("{other:?}"),
            }
        }
        match load_many(&Failing, &keys) {
            Err(StoreError::SourceMany {
                first,
                count,
                cause,
            }) => assert_eq!((first, count, cause), (vec![3], 3, "closed")),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            load_many(&Failing, &keys[..1]),
            Err(StoreError::Source { .. })
        ));
    }

    #[test]
    fn positions_are_masked_bit_paths() {
        assert_eq!(position(&[0xff, 0xff], 0, None, 1), [0]);
        assert_eq!(position(&[0xff, 0xff], 3, None, 1), [3, 0xe0]);
        assert_eq!(position(&[0xff, 0xff], 3, Some(2), 1), [3, 0xc0]);
        assert_eq!(
            position(&[0xab, 0xff], 9, None, 4),
            [0, 0, 0, 9, 0xab, 0x80]
        );
        assert!(same_bits(&[0xf0], &[0xf7], 4));
        assert!(!same_bits(&[0xf0], &[0xf8], 5));
    }

    #[test]
    fn readers_report_truncation_and_trailing_bytes() {
        assert_eq!(
            Reader::open(&[1]).err(),
            Some(RecordError::Truncated {
                got: 1,
                expected: 2
            })
        );
        assert_eq!(
            Reader::open(&[2, 0]).err(),
            Some(RecordError::Version { got: 2 })
        );
        let (mut r, kind) = Reader::open(&[1, 7, 0, 0]).unwrap();
        assert_eq!(kind, 7);
        assert!(r.take(3).is_err());
        let (r, _) = Reader::open(&[1, 7, 0]).unwrap();
        assert!(matches!(r.end(), Err(RecordError::Trailing { .. })));
    }
}
