//! A witness object read from any JSON deserializer (text as it streams, or a parsed value)
//! straight into a [`Builder`], accepting the variants found in real data: snake_case names,
//! `suffix` as a string, hex without `0x` or of odd length, a missing `newValue`.
//!
//! These are the only rules of what a witness object may hold. Fields may come in any order;
//! the error reported is the first the rules find in their fixed order (see [`super::rank`]).
//! Unknown fields are skipped; a field named twice under the same name (which a JSON value
//! keeps only the last of) is reported to the caller as [`Read::Repeated`].

use crate::prelude::*;

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::builder::{Builder, DiffRecord, StemRecord};
use super::path::Path;
use super::rank::Rank;
use super::value::{drain_map, drain_seq, Bad, HexBytes, HexFixed, Optional32, Suffix};
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
#[derive(Default)]
struct Reader {
    out: Builder,
    /// The lowest-ranked error so far.
    error: Option<(Rank, JsonError)>,
    repeated: bool,
}

impl Reader {
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

/// Reads the witness object `d` yields; errors name paths under `prefix`.
///
/// The outer error is the deserializer's; the inner, the first rule the witness breaks.
pub(super) fn read_witness<'de, D: Deserializer<'de>>(
    d: D,
    prefix: &str,
) -> Result<Result<Read, JsonError>, D::Error> {
    let mut r = Reader::default();
    let root = Path::root(prefix);
    Object {
        r: &mut r,
        at: At {
            path: &root,
            rank: Rank::WITNESS,
        },
        fields: WitnessFields,
    }
    .deserialize(d)?;
    if r.repeated {
        return Ok(Ok(Read::Repeated));
    }
    Ok(match r.error {
        Some((_, e)) => Err(e),
        None => Ok(Read::Witness(Box::new(r.out))),
    })
}

// ---------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------

/// The fields of one kind of object, in the order their errors rank.
trait Fields {
    /// `(camelCase, snake_case)` names; the two are equal for one-word names.
    const NAMES: &'static [(&'static str, &'static str)];
    /// Whether field `i` must be present.
    fn required(i: usize) -> bool;
    /// Reads field `i`'s value from `map`.
    fn value<'de, A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error>;
    /// Called once the object's fields are all read (even with errors).
    fn end(self, r: &mut Reader);
}

/// Which of a field's names an object has used (bit 0: camelCase, bit 1: snake_case).
const CAMEL: u8 = 1;
const SNAKE: u8 = 2;

/// A key resolved against a kind of object's field names: its index and which name it is.
struct Key<F>(core::marker::PhantomData<F>);

impl<'de, F: Fields> DeserializeSeed<'de> for Key<F> {
    type Value = Option<(usize, u8)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, F: Fields> Visitor<'de> for Key<F> {
    type Value = Option<(usize, u8)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(F::NAMES.iter().enumerate().find_map(|(i, (camel, snake))| {
            if key == *camel {
                Some((i, CAMEL))
            } else if key == *snake {
                Some((i, SNAKE))
            } else {
                None
            }
        }))
    }
}

/// An object of kind `F` at `at`.
struct Object<'r, 'p, F> {
    r: &'r mut Reader,
    at: At<'p>,
    fields: F,
}

impl<'de, F: Fields> DeserializeSeed<'de> for Object<'_, '_, F> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Implements the visits of every type but `$accepted`: each consumes the value and keeps a
/// type error (`$expected`) at the value's own rank.
macro_rules! only {
    (map, $expected:expr) => {
        only!(@scalars $expected);
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
            drain_seq(seq)?;
            self.wrong_type($expected);
            Ok(())
        }
    };
    (seq, $expected:expr) => {
        only!(@scalars $expected);
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            drain_map(map)?;
            self.wrong_type($expected);
            Ok(())
        }
    };
    (@scalars $expected:expr) => {
        fn visit_bool<Er: serde::de::Error>(self, _: bool) -> Result<(), Er> {
            self.wrong_type($expected);
            Ok(())
        }
        fn visit_i64<Er: serde::de::Error>(self, _: i64) -> Result<(), Er> {
            self.wrong_type($expected);
            Ok(())
        }
        fn visit_u64<Er: serde::de::Error>(self, _: u64) -> Result<(), Er> {
            self.wrong_type($expected);
            Ok(())
        }
        fn visit_f64<Er: serde::de::Error>(self, _: f64) -> Result<(), Er> {
            self.wrong_type($expected);
            Ok(())
        }
        fn visit_str<Er: serde::de::Error>(self, _: &str) -> Result<(), Er> {
            self.wrong_type($expected);
            Ok(())
        }
        fn visit_unit<Er: serde::de::Error>(self) -> Result<(), Er> {
            self.wrong_type($expected);
            Ok(())
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

impl<'de, F: Fields> Visitor<'de> for Object<'_, '_, F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Object { r, at, mut fields } = self;
        // Which names each field was met under; no kind of object has more than 5 fields.
        let mut seen = [0u8; 5];
        while let Some(key) = map.next_key_seed(Key::<F>(core::marker::PhantomData))? {
            let Some((i, name)) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let (Some(used), Some(&(camel, snake))) = (seen.get_mut(i), F::NAMES.get(i)) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if *used & name != 0 {
                // The same name twice: a parsed value keeps the last; leave it to the caller.
                r.repeated = true;
                map.next_value::<IgnoredAny>()?;
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
        Ok(())
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
                seq.next_element::<IgnoredAny>()?.is_some()
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
        let Some(point) = seq.next_element_seed(HexFixed::<N>)? else {
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
        let Some(point) = seq.next_element_seed(HexFixed::<32>)? else {
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

/// `ExecutionWitness`.
struct WitnessFields;

impl Fields for WitnessFields {
    const NAMES: &'static [(&'static str, &'static str)] =
        &[("stateDiff", "state_diff"), ("verkleProof", "verkle_proof")];
    fn required(_: usize) -> bool {
        true
    }
    fn value<'de, A: MapAccess<'de>>(
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
            _ => map.next_value_seed(Object {
                r,
                at,
                fields: ProofFields,
            }),
        }
    }
    fn end(self, _: &mut Reader) {}
}

/// `StemStateDiff`; its suffix diffs are those appended from `first_diff` on.
struct StemFields {
    stem: [u8; STEM_LEN],
    first_diff: usize,
}

impl Fields for StemFields {
    const NAMES: &'static [(&'static str, &'static str)] =
        &[("stem", "stem"), ("suffixDiffs", "suffix_diffs")];
    fn required(_: usize) -> bool {
        true
    }
    fn value<'de, A: MapAccess<'de>>(
        &mut self,
        r: &mut Reader,
        i: usize,
        at: At<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match i {
            0 => {
                let stem = map.next_value_seed(HexFixed::<STEM_LEN>)?;
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

impl Fields for DiffFields {
    const NAMES: &'static [(&'static str, &'static str)] = &[
        ("suffix", "suffix"),
        ("currentValue", "current_value"),
        ("newValue", "new_value"),
    ];
    fn required(i: usize) -> bool {
        i == 0
    }
    fn value<'de, A: MapAccess<'de>>(
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
                let v = map.next_value_seed(Optional32)?;
                self.0.current_value = r.take(at, v).flatten();
            }
            _ => {
                let v = map.next_value_seed(Optional32)?;
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

impl Fields for ProofFields {
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
    fn value<'de, A: MapAccess<'de>>(
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
                let d = map.next_value_seed(HexFixed::<32>)?;
                if let Some(d) = r.take(at, d) {
                    r.out.d = d;
                }
                Ok(())
            }
            _ => map.next_value_seed(Object {
                r,
                at,
                fields: IpaFields,
            }),
        }
    }
    fn end(self, _: &mut Reader) {}
}

/// `IPAProof`.
struct IpaFields;

impl Fields for IpaFields {
    const NAMES: &'static [(&'static str, &'static str)] = &[
        ("cl", "cl"),
        ("cr", "cr"),
        ("finalEvaluation", "final_evaluation"),
    ];
    fn required(_: usize) -> bool {
        true
    }
    fn value<'de, A: MapAccess<'de>>(
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
                let fe = map.next_value_seed(HexFixed::<32>)?;
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
