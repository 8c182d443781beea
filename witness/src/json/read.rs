//! A witness object read from any JSON deserializer (text as it streams, or a parsed value)
//! straight into a [`Builder`], accepting the variants found in real data: snake_case names,
//! `suffix` as a string, hex without `0x` or of odd length, a missing `newValue`.
//!
//! These are the only rules of what a witness object may hold. Fields may come in any order;
//! the error reported is the first the rules find in their fixed order (see [`super::rank`]).
//! Unknown fields are skipped; a field named twice under the same name (which a JSON value
//! keeps only the last of) is reported to the caller as [`Read::Repeated`].

use crate::prelude::*;

use alloc::borrow::Cow;
use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::builder::{Builder, DiffRecord, StemRecord};
use super::path::Path;
use super::rank::Rank;
use super::skip::Skip;
use super::value::{Bad, HexBytes, HexFixed, Optional32, Suffix};
use crate::error::JsonError;
use crate::preset::{IPA_PROOF_DEPTH, MAX_COMMITMENTS, MAX_STEMS, STEM_LEN, VERKLE_WIDTH};

/// How reading a witness object ended.
pub(super) enum Read {
    /// Every rule held.
    Witness(Box<Builder>),
    /// An object names a field twice under the same name.
    Repeated,
}

/// The state shared by every visitor of one read.
struct Reader {
    out: Builder,
    /// The lowest-ranked error so far.
    error: Option<(Rank, JsonError)>,
    repeated: bool,
    /// How values the rules do not look at are read through.
    skip: Skip,
}

impl Reader {
    fn new(skip: Skip) -> Self {
        Self {
            out: Builder::default(),
            error: None,
            repeated: false,
            skip,
        }
    }

    /// The outcome of the read.
    fn finish(self) -> Result<Read, JsonError> {
        if self.repeated {
            return Ok(Read::Repeated);
        }
        match self.error {
            Some((_, e)) => Err(e),
            None => Ok(Read::Witness(Box::new(self.out))),
        }
    }

    /// Whether an error already found ranks at or before `rank` (so nothing at `rank` or
    /// inside it can be the one reported).
    fn settled(&self, rank: Rank) -> bool {
        self.error.as_ref().is_some_and(|(r, _)| *r <= rank)
    }

    /// Keeps `bad` at `path` if it ranks before every error so far.
    fn fail(&mut self, rank: Rank, path: &Path<'_>, bad: Bad) {
        if !self.settled(rank) {
            self.error = Some((rank, bad.at(path)));
        }
    }

    /// Keeps the error of a value's outcome, or hands the value on.
    fn take<T>(&mut self, at: At<'_>, r: Result<T, Bad>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(bad) => {
                self.fail(at.rank, at.path, bad);
                None
            }
        }
    }
}

/// Where a value is: its path (for the error) and its rank.
#[derive(Clone, Copy)]
struct At<'p> {
    path: &'p Path<'p>,
    rank: Rank,
}

/// What the reader of a witness object does with the object's other fields.
pub(super) trait Others<'de> {
    /// Reads the value of `key`, the `entry`-th entry of the object at `path`.
    fn other<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        entry: usize,
        path: &Path<'_>,
        map: &mut A,
    ) -> Result<(), A::Error>;
}

/// Other fields read through and dropped.
struct Skipped(Skip);

impl<'de> Others<'de> for Skipped {
    fn other<A: MapAccess<'de>>(
        &mut self,
        _: Cow<'de, str>,
        _: usize,
        _: &Path<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        map.next_value_seed(self.0)
    }
}

/// Reads the witness object `d` yields; errors name paths under `prefix`. Other fields and
/// values the rules do not look at are read through with `skip`.
///
/// The outer error is the deserializer's; the inner, the first rule the witness breaks.
pub(super) fn read_witness<'de, D: Deserializer<'de>>(
    d: D,
    prefix: &str,
    skip: Skip,
) -> Result<Result<Read, JsonError>, D::Error> {
    let mut r = Reader::new(skip);
    let root = Path::root(prefix);
    Object {
        r: &mut r,
        at: At {
            path: &root,
            rank: Rank::WITNESS,
        },
        fields: WitnessFields {
            others: &mut Skipped(skip),
        },
    }
    .deserialize(d)?;
    Ok(r.finish())
}

/// An object at `path` read as a witness whose other fields go to `others`.
pub(super) struct Candidate {
    /// It has a state diff and a Verkle proof (under either name): it is a witness.
    pub(super) witness: bool,
    /// It has one of them (read as a witness's, not handed to `others`).
    pub(super) either: bool,
    /// How reading it as a witness went.
    pub(super) read: Result<Read, JsonError>,
}

/// Reads the object `map` walks as a witness at `path`, handing the fields a witness does
/// not have to `others`.
pub(super) fn read_candidate<'de, A: MapAccess<'de>, O: Others<'de>>(
    map: A,
    path: &Path<'_>,
    skip: Skip,
    others: &mut O,
) -> Result<Candidate, A::Error> {
    let mut r = Reader::new(skip);
    let seen = Object {
        r: &mut r,
        at: At {
            path,
            rank: Rank::WITNESS,
        },
        fields: WitnessFields { others },
    }
    .visit_map(map)?;
    let [state_diff, verkle_proof, ..] = seen;
    Ok(Candidate {
        witness: state_diff != 0 && verkle_proof != 0,
        either: state_diff != 0 || verkle_proof != 0,
        read: r.finish(),
    })
}

// ---------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------

/// The fields of one kind of object, in the order their errors rank.
trait Fields<'de> {
    /// `(camelCase, snake_case)` names; the two are equal for one-word names.
    const NAMES: &'static [(&'static str, &'static str)];
    /// Whether field `i` must be present.
    fn required(i: usize) -> bool;
    /// Reads field `i`'s value from `map`.
    fn value<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error>;
    /// Reads the value of a key that is none of the fields, the `entry`-th of the object at
    /// `path`: read through and dropped.
    fn other<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        key: Cow<'de, str>,
        entry: usize,
        path: &Path<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let _ = (key, entry, path);
        map.next_value_seed(r.skip)
    }
    /// Called once the object's fields are all read (even with errors).
    fn end(self, r: &mut Reader);
}

/// Which of a field's names an object has used (bit 0: camelCase, bit 1: snake_case).
const CAMEL: u8 = 1;
const SNAKE: u8 = 2;

/// A key resolved against a kind of object's field names.
enum KeyOf<'de> {
    /// Field `.0`, under its camelCase (`CAMEL`) or snake_case (`SNAKE`) name.
    Field(usize, u8),
    /// None of the fields.
    Other(Cow<'de, str>),
}

/// A key resolved against the field names of `F`.
struct Key<F>(core::marker::PhantomData<F>);

impl<F> Key<F> {
    fn field<'de>(key: &str) -> Option<KeyOf<'de>>
    where
        F: Fields<'de>,
    {
        F::NAMES.iter().enumerate().find_map(|(i, (camel, snake))| {
            if key == *camel {
                Some(KeyOf::Field(i, CAMEL))
            } else if key == *snake {
                Some(KeyOf::Field(i, SNAKE))
            } else {
                None
            }
        })
    }
}

impl<'de, F: Fields<'de>> DeserializeSeed<'de> for Key<F> {
    type Value = KeyOf<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, F: Fields<'de>> Visitor<'de> for Key<F> {
    type Value = KeyOf<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Self::field(key).unwrap_or(KeyOf::Other(Cow::Borrowed(key))))
    }
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Self::field(key).unwrap_or_else(|| KeyOf::Other(Cow::Owned(key.to_owned()))))
    }
}

/// An object of kind `F` at `at`.
struct Object<'r, 'p, F> {
    r: &'r mut Reader,
    at: At<'p>,
    fields: F,
}

impl<'de, F: Fields<'de>> DeserializeSeed<'de> for Object<'_, '_, F> {
    /// Which names each field was met under (bit 0: camelCase, bit 1: snake_case).
    type Value = [u8; 5];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[u8; 5], D::Error> {
        d.deserialize_any(self)
    }
}

/// Implements the visits of every type but `$accepted`: each consumes the value and keeps a
/// type error (`$expected`) at the value's own rank.
macro_rules! only {
    (map, $expected:expr) => {
        only!(@scalars $expected);
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            self.r.skip.seq(seq)?;
            self.wrong_type($expected);
            Ok(Default::default())
        }
    };
    (seq, $expected:expr) => {
        only!(@scalars $expected);
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            self.r.skip.map(map)?;
            self.wrong_type($expected);
            Ok(Default::default())
        }
    };
    (@scalars $expected:expr) => {
        fn visit_bool<Er: serde::de::Error>(self, _: bool) -> Result<Self::Value, Er> {
            self.wrong_type($expected);
            Ok(Default::default())
        }
        fn visit_i64<Er: serde::de::Error>(self, _: i64) -> Result<Self::Value, Er> {
            self.wrong_type($expected);
            Ok(Default::default())
        }
        fn visit_u64<Er: serde::de::Error>(self, _: u64) -> Result<Self::Value, Er> {
            self.wrong_type($expected);
            Ok(Default::default())
        }
        fn visit_f64<Er: serde::de::Error>(self, _: f64) -> Result<Self::Value, Er> {
            self.wrong_type($expected);
            Ok(Default::default())
        }
        fn visit_str<Er: serde::de::Error>(self, _: &str) -> Result<Self::Value, Er> {
            self.wrong_type($expected);
            Ok(Default::default())
        }
        fn visit_unit<Er: serde::de::Error>(self) -> Result<Self::Value, Er> {
            self.wrong_type($expected);
            Ok(Default::default())
        }
    };
}

impl<F> Object<'_, '_, F> {
    /// Any type but an object: an error at the object's own rank (before its fields').
    fn wrong_type(self, expected: &'static str) {
        self.r
            .fail(self.at.rank.then(0), self.at.path, Bad::Type(expected));
    }
}

impl<'de, F: Fields<'de>> Visitor<'de> for Object<'_, '_, F> {
    type Value = [u8; 5];
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<[u8; 5], A::Error> {
        let Object { r, at, mut fields } = self;
        // Which names each field was met under; no kind of object has more than 5 fields.
        let mut seen = [0u8; 5];
        let mut entry = 0;
        while let Some(key) = map.next_key_seed(Key::<F>(core::marker::PhantomData))? {
            entry += 1;
            let (i, name) = match key {
                KeyOf::Field(i, name) => (i, name),
                KeyOf::Other(key) => {
                    fields.other(r, key, entry - 1, at.path, &mut map)?;
                    continue;
                }
            };
            let (Some(used), Some(&(camel, snake))) = (seen.get_mut(i), F::NAMES.get(i)) else {
                map.next_value_seed(r.skip)?;
                continue;
            };
            if *used & name != 0 {
                // The same name twice: a parsed value keeps the last; leave it to the caller.
                r.repeated = true;
                map.next_value_seed(r.skip)?;
                continue;
            }
            *used |= name;
            let field = at.rank.then(1 + i);
            if *used == CAMEL | SNAKE {
                r.fail(field.then(0), at.path, Bad::Duplicate { camel, snake });
            }
            let child = at.path.key(if name == CAMEL { camel } else { snake });
            let value_at = At {
                path: &child,
                rank: field.then(1),
            };
            fields.value(r, i, value_at, &mut map)?;
        }
        for (i, ((camel, _), used)) in F::NAMES.iter().zip(seen).enumerate() {
            if used == 0 && F::required(i) {
                r.fail(at.rank.then(1 + i).then(0), at.path, Bad::Missing(camel));
            }
        }
        fields.end(r);
        Ok(seen)
    }

    only!(map, "an object");
}

// ---------------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------------

/// The elements of one kind of array.
trait Elements {
    /// Elements read; those past it are only counted.
    const READ: usize;
    /// The error for an array of `count` elements, if that count is refused.
    fn count_error(count: usize) -> Option<Bad>;
    /// Reads element `k` (below [`READ`](Self::READ)) if there is one; `false` at the end.
    fn next<'de, A: SeqAccess<'de>>(
        &mut self,
        r: &mut Reader,
        k: usize,
        at: At<'_>,
        seq: &mut A,
    ) -> Result<bool, A::Error>;
}

/// An array of `E` at `at`.
struct Array<'r, 'p, E> {
    r: &'r mut Reader,
    at: At<'p>,
    elements: E,
}

impl<'de, E: Elements> DeserializeSeed<'de> for Array<'_, '_, E> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<E> Array<'_, '_, E> {
    /// Any type but an array: an error at the array's rank (before its elements').
    fn wrong_type(self, expected: &'static str) {
        self.r
            .fail(self.at.rank.then(0), self.at.path, Bad::Type(expected));
    }
}

impl<'de, E: Elements> Visitor<'de> for Array<'_, '_, E> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Array {
            r,
            at,
            mut elements,
        } = self;
        let mut count = 0usize;
        loop {
            let rank = at.rank.then(1 + count);
            let more = if count < E::READ && !r.settled(rank) {
                let child = at.path.index(count);
                elements.next(r, count, At { path: &child, rank }, &mut seq)?
            } else {
                seq.next_element_seed(r.skip)?.is_some()
            };
            if !more {
                break;
            }
            count += 1;
        }
        if let Some(bad) = E::count_error(count) {
            r.fail(at.rank.then(0), at.path, bad);
        }
        Ok(())
    }

    only!(seq, "an array");
}

/// An array of at most `MAX` elements.
fn at_most<const MAX: usize>(count: usize) -> Option<Bad> {
    (count > MAX).then_some(Bad::TooMany { count, max: MAX })
}

/// `stateDiff`: the stems.
struct Stems;

impl Elements for Stems {
    const READ: usize = MAX_STEMS;
    fn count_error(count: usize) -> Option<Bad> {
        at_most::<MAX_STEMS>(count)
    }
    fn next<'de, A: SeqAccess<'de>>(
        &mut self,
        r: &mut Reader,
        _: usize,
        at: At<'_>,
        seq: &mut A,
    ) -> Result<bool, A::Error> {
        let first_diff = r.out.diffs.len();
        let stem = Object {
            r,
            at,
            fields: StemFields {
                stem: [0; STEM_LEN],
                first_diff,
            },
        };
        Ok(seq.next_element_seed(stem)?.is_some())
    }
}

/// `suffixDiffs`: the suffix diffs of one stem.
struct Diffs;

impl Elements for Diffs {
    const READ: usize = VERKLE_WIDTH;
    fn count_error(count: usize) -> Option<Bad> {
        at_most::<VERKLE_WIDTH>(count)
    }
    fn next<'de, A: SeqAccess<'de>>(
        &mut self,
        r: &mut Reader,
        _: usize,
        at: At<'_>,
        seq: &mut A,
    ) -> Result<bool, A::Error> {
        let diff = Object {
            r,
            at,
            fields: DiffFields(DiffRecord::default()),
        };
        Ok(seq.next_element_seed(diff)?.is_some())
    }
}

/// `otherStems` (`N` = 31) or `commitmentsByPath` (`N` = 32): byte strings of `N` bytes,
/// appended to a list of the builder.
struct Points<const N: usize, const MAX: usize> {
    list: fn(&mut Builder) -> &mut Vec<u8>,
}

impl<const N: usize, const MAX: usize> Elements for Points<N, MAX> {
    const READ: usize = MAX;
    fn count_error(count: usize) -> Option<Bad> {
        at_most::<MAX>(count)
    }
    fn next<'de, A: SeqAccess<'de>>(
        &mut self,
        r: &mut Reader,
        _: usize,
        at: At<'_>,
        seq: &mut A,
    ) -> Result<bool, A::Error> {
        let Some(point) = seq.next_element_seed(HexFixed::<N> { skip: r.skip })? else {
            return Ok(false);
        };
        if let Some(p) = r.take(at, point) {
            (self.list)(&mut r.out).extend_from_slice(&p);
        }
        Ok(true)
    }
}

/// `cl` or `cr`: exactly [`IPA_PROOF_DEPTH`] points.
struct IpaPoints {
    side: fn(&mut Builder) -> &mut [[u8; 32]; IPA_PROOF_DEPTH],
}

impl Elements for IpaPoints {
    const READ: usize = IPA_PROOF_DEPTH;
    fn count_error(count: usize) -> Option<Bad> {
        (count != IPA_PROOF_DEPTH).then_some(Bad::WrongCount {
            got: count,
            expected: IPA_PROOF_DEPTH,
        })
    }
    fn next<'de, A: SeqAccess<'de>>(
        &mut self,
        r: &mut Reader,
        k: usize,
        at: At<'_>,
        seq: &mut A,
    ) -> Result<bool, A::Error> {
        let Some(point) = seq.next_element_seed(HexFixed::<32> { skip: r.skip })? else {
            return Ok(false);
        };
        if let Some(p) = r.take(at, point) {
            if let Some(slot) = (self.side)(&mut r.out).get_mut(k) {
                *slot = p;
            }
        }
        Ok(true)
    }
}

// ---------------------------------------------------------------------------------------
// The witness's objects
// ---------------------------------------------------------------------------------------

/// `ExecutionWitness`; its other fields go to `others`.
struct WitnessFields<'o, O> {
    others: &'o mut O,
}

impl<'de, O: Others<'de>> Fields<'de> for WitnessFields<'_, O> {
    const NAMES: &'static [(&'static str, &'static str)] =
        &[("stateDiff", "state_diff"), ("verkleProof", "verkle_proof")];
    fn required(_: usize) -> bool {
        true
    }
    fn value<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match i {
            0 => map.next_value_seed(Array {
                r,
                at,
                elements: Stems,
            }),
            _ => map
                .next_value_seed(Object {
                    r,
                    at,
                    fields: ProofFields,
                })
                .map(drop),
        }
    }
    fn other<A: MapAccess<'de>>(
        &mut self,
        _: &mut Reader,
        key: Cow<'de, str>,
        entry: usize,
        path: &Path<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        self.others.other(key, entry, path, map)
    }
    fn end(self, _: &mut Reader) {}
}

/// `StemStateDiff`; its suffix diffs are those appended from `first_diff` on.
struct StemFields {
    stem: [u8; STEM_LEN],
    first_diff: usize,
}

impl<'de> Fields<'de> for StemFields {
    const NAMES: &'static [(&'static str, &'static str)] =
        &[("stem", "stem"), ("suffixDiffs", "suffix_diffs")];
    fn required(_: usize) -> bool {
        true
    }
    fn value<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match i {
            0 => {
                let stem = map.next_value_seed(HexFixed::<STEM_LEN> { skip: r.skip })?;
                if let Some(s) = r.take(at, stem) {
                    self.stem = s;
                }
                Ok(())
            }
            _ => map.next_value_seed(Array {
                r,
                at,
                elements: Diffs,
            }),
        }
    }
    fn end(self, r: &mut Reader) {
        let diff_count = r.out.diffs.len().saturating_sub(self.first_diff);
        r.out.stems.push(StemRecord {
            stem: self.stem,
            first_diff: self.first_diff,
            diff_count,
        });
    }
}

/// `SuffixStateDiff`; an absent `currentValue` or `newValue` is `null`.
struct DiffFields(DiffRecord);

impl<'de> Fields<'de> for DiffFields {
    const NAMES: &'static [(&'static str, &'static str)] = &[
        ("suffix", "suffix"),
        ("currentValue", "current_value"),
        ("newValue", "new_value"),
    ];
    fn required(i: usize) -> bool {
        i == 0
    }
    fn value<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match i {
            0 => {
                let suffix = map.next_value_seed(Suffix)?;
                if let Some(s) = r.take(at, suffix) {
                    self.0.suffix = s;
                }
            }
            1 => {
                let v = map.next_value_seed(Optional32 { skip: r.skip })?;
                self.0.current_value = r.take(at, v).flatten();
            }
            _ => {
                let v = map.next_value_seed(Optional32 { skip: r.skip })?;
                self.0.new_value = r.take(at, v).flatten();
            }
        }
        Ok(())
    }
    fn end(self, r: &mut Reader) {
        r.out.diffs.push(self.0);
    }
}

/// `VerkleProof`.
struct ProofFields;

impl<'de> Fields<'de> for ProofFields {
    const NAMES: &'static [(&'static str, &'static str)] = &[
        ("otherStems", "other_stems"),
        ("depthExtensionPresent", "depth_extension_present"),
        ("commitmentsByPath", "commitments_by_path"),
        ("d", "d"),
        ("ipaProof", "ipa_proof"),
    ];
    fn required(_: usize) -> bool {
        true
    }
    fn value<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match i {
            0 => map.next_value_seed(Array {
                r,
                at,
                elements: Points::<STEM_LEN, MAX_STEMS> {
                    list: |b| &mut b.other_stems,
                },
            }),
            1 => {
                let ext = map.next_value_seed(HexBytes {
                    out: &mut r.out.depth_extension_present,
                    max: MAX_STEMS,
                    skip: r.skip,
                })?;
                r.take(at, ext);
                Ok(())
            }
            2 => map.next_value_seed(Array {
                r,
                at,
                elements: Points::<32, MAX_COMMITMENTS> {
                    list: |b| &mut b.commitments_by_path,
                },
            }),
            3 => {
                let d = map.next_value_seed(HexFixed::<32> { skip: r.skip })?;
                if let Some(d) = r.take(at, d) {
                    r.out.d = d;
                }
                Ok(())
            }
            _ => map
                .next_value_seed(Object {
                    r,
                    at,
                    fields: IpaFields,
                })
                .map(drop),
        }
    }
    fn end(self, _: &mut Reader) {}
}

/// `IPAProof`.
struct IpaFields;

impl<'de> Fields<'de> for IpaFields {
    const NAMES: &'static [(&'static str, &'static str)] = &[
        ("cl", "cl"),
        ("cr", "cr"),
        ("finalEvaluation", "final_evaluation"),
    ];
    fn required(_: usize) -> bool {
        true
    }
    fn value<A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match i {
            0 => map.next_value_seed(Array {
                r,
                at,
                elements: IpaPoints {
                    side: |b| &mut b.cl,
                },
            }),
            1 => map.next_value_seed(Array {
                r,
                at,
                elements: IpaPoints {
                    side: |b| &mut b.cr,
                },
            }),
            _ => {
                let fe = map.next_value_seed(HexFixed::<32> { skip: r.skip })?;
                if let Some(mut fe) = r.take(at, fe) {
                    // JSON carries the scalar big-endian; SSZ holds it little-endian.
                    fe.reverse();
                    r.out.final_evaluation = fe;
                }
                Ok(())
            }
        }
    }
    fn end(self, _: &mut Reader) {}
}
