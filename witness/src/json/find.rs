//! The search for witnesses inside a JSON document (a block, payload, header, beacon dump),
//! as one depth-first walk of any JSON deserializer: the text as it streams, or a parsed value.
//!
//! Whether an object is a witness is known only at its end, once all its keys are seen. So
//! the walk enters every candidate (the root, or an object under one of [`WITNESS_KEYS`]) and
//! searches it as if it were not one; if it turns out to be a witness, what was found inside
//! it is forgotten — as if the walk had not entered it — and the candidate itself counts.

use crate::prelude::*;

use alloc::borrow::Cow;
use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::path::Path;
use super::read::{self, Others, Read};
use super::skip::{accept_scalars, Skip};
use crate::error::JsonError;

/// Keys under which a witness is searched for, in any object of a document.
pub const WITNESS_KEYS: [&str; 3] = ["executionWitness", "execution_witness", "witness"];

/// How deep [`find_json_witnesses`] descends before giving up with [`JsonError::TooDeep`].
pub const MAX_SEARCH_DEPTH: usize = 64;

/// What the walk found so far, in walk order.
pub(super) struct Findings {
    /// Witnesses found.
    pub(super) count: usize,
    /// JSON Pointers of the first witnesses found, at most `keep`.
    pub(super) paths: Vec<String>,
    keep: usize,
    /// Where the first witness is: its position in each container from the root down.
    pub(super) first_at: Vec<usize>,
    /// The first container past [`MAX_SEARCH_DEPTH`] outside any witness.
    pub(super) too_deep: Option<String>,
    /// A key on the way to the first witness comes again later in its object (a parsed
    /// document keeps only the later value).
    pub(super) repeated_key: bool,
    /// How reading the first witness went, when the walk reads candidates.
    pub(super) first_read: Option<Result<Read, JsonError>>,
    /// A candidate that is not a witness had a state diff or a Verkle proof, which the walk
    /// read as a witness's instead of searching it.
    pub(super) unsettled: bool,
}

/// The findings when a candidate was entered, to forget what was found inside it.
#[derive(Clone, Copy)]
struct Mark {
    count: usize,
    paths: usize,
    too_deep: bool,
    repeated_key: bool,
    unsettled: bool,
}

impl Findings {
    fn new(keep: usize) -> Self {
        Self {
            count: 0,
            paths: Vec::new(),
            keep,
            first_at: Vec::new(),
            too_deep: None,
            repeated_key: false,
            first_read: None,
            unsettled: false,
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            count: self.count,
            paths: self.paths.len(),
            too_deep: self.too_deep.is_some(),
            repeated_key: self.repeated_key,
            unsettled: self.unsettled,
        }
    }

    /// Counts a witness at `path`; whether it is the first.
    fn found(&mut self, path: &Path<'_>) -> bool {
        self.count += 1;
        if self.paths.len() < self.keep {
            self.paths.push(path.render());
        }
        let first = self.count == 1;
        if first {
            self.first_at = path.positions();
        }
        first
    }

    /// The candidate entered at `mark` and now at its end is a witness: forgets what was
    /// found inside it and counts it; whether it is the first.
    fn confirm(&mut self, mark: Mark, path: &Path<'_>) -> bool {
        self.count = mark.count;
        self.paths.truncate(mark.paths);
        if !mark.too_deep {
            self.too_deep = None;
        }
        self.repeated_key = mark.repeated_key;
        self.unsettled = mark.unsettled;
        self.found(path)
    }

    fn deep(&mut self, path: &Path<'_>) {
        if self.too_deep.is_none() {
            self.too_deep = Some(path.render());
        }
    }

    /// The one witness (its pointer and position) if no container was too deep.
    pub(super) fn one(self) -> Result<(String, Vec<usize>), JsonError> {
        if let Some(path) = self.too_deep {
            return Err(JsonError::TooDeep {
                path,
                max: MAX_SEARCH_DEPTH,
            });
        }
        let mut paths = self.paths.into_iter();
        match (paths.next(), paths.next()) {
            (None, _) => Err(JsonError::NotFound),
            (Some(first), None) if self.count == 1 => Ok((first, self.first_at)),
            (Some(first), second) => Err(JsonError::Ambiguous {
                count: self.count,
                first,
                second: second.unwrap_or_default(),
            }),
        }
    }
}

/// How the walk goes.
#[derive(Clone, Copy)]
pub(super) struct Walk {
    /// Pointers kept: those of the first `keep` witnesses.
    pub(super) keep: usize,
    /// Values the search need not enter (past the depth limit, or ignored by the reader) are
    /// still read through, so that the deserializer checks them as fully as the rest;
    /// without, they are skipped.
    pub(super) validate: bool,
    /// Candidates that may hold the first witness are read as witnesses as they are walked
    /// (their other fields searched), so the first witness is read in the same walk.
    pub(super) read: bool,
}

/// Walks the document `d` yields.
pub(super) fn search<'de, D: Deserializer<'de>>(d: D, walk: Walk) -> Result<Findings, D::Error> {
    let mut findings = Findings::new(walk.keep);
    let root = Path::root("");
    Node {
        findings: &mut findings,
        path: &root,
        level: 0,
        candidate: true,
        walk,
    }
    .deserialize(d)?;
    Ok(findings)
}

/// Finds every execution witness in a JSON document, in document order, with its JSON
/// Pointer: the root itself if it is a witness, else every object under one of
/// [`WITNESS_KEYS`] that holds a state diff and a Verkle proof (an MPT-style
/// `executionWitness {state, codes, headers}` does not count). The search does not enter a
/// witness and stops at [`MAX_SEARCH_DEPTH`].
///
/// The search itself keeps one frame per level of nesting; the result holds one rendered
/// pointer per witness found.
pub fn find_json_witnesses(doc: &Value) -> Result<Vec<(String, &Value)>, JsonError> {
    let walk = Walk {
        keep: usize::MAX,
        validate: false,
        read: false,
    };
    let found = search(doc, walk)?;
    if let Some(path) = found.too_deep {
        return Err(JsonError::TooDeep {
            path,
            max: MAX_SEARCH_DEPTH,
        });
    }
    Ok(found
        .paths
        .into_iter()
        .filter_map(|p| {
            let w = doc.pointer(&p)?;
            Some((p, w))
        })
        .collect())
}

/// The key of an object entry, borrowed from the document when it holds no escape.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
}

/// A value of the document at `path`, `level` containers below the root.
struct Node<'f, 'p> {
    findings: &'f mut Findings,
    path: &'p Path<'p>,
    level: usize,
    /// The root, or the value of a witness key: a witness if it is an object with a state
    /// diff and a Verkle proof.
    candidate: bool,
    walk: Walk,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    /// Whether the first witness found so far lies in this value.
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    accept_scalars!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let skip = Skip {
            validate: self.walk.validate,
        };
        if self.level > MAX_SEARCH_DEPTH {
            self.findings.deep(self.path);
            skip.seq(seq)?;
            return Ok(false);
        }
        let mut holds_first = false;
        let mut i = 0;
        loop {
            let child = self.path.index(i);
            let node = Node {
                findings: &mut *self.findings,
                path: &child,
                level: self.level + 1,
                candidate: false,
                walk: self.walk,
            };
            match seq.next_element_seed(node)? {
                Some(first) => holds_first |= first,
                None => break,
            }
            i += 1;
        }
        Ok(holds_first)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let skip = Skip {
            validate: self.walk.validate,
        };
        // Past the depth limit, only a witness (known at the end) is not an error.
        let deep = self.level > MAX_SEARCH_DEPTH;
        if deep && !self.candidate {
            self.findings.deep(self.path);
            skip.map(map)?;
            return Ok(false);
        }
        let mark = self.findings.mark();
        if self.candidate && self.walk.read && mark.count == 0 {
            return self.read_candidate(mark, deep, map);
        }
        let (mut state_diff, mut verkle_proof) = (false, false);
        // The key under which the first witness lies, once it does.
        let mut first_under: Option<Cow<'de, str>> = None;
        let mut entry = 0;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            state_diff |= key == "stateDiff" || key == "state_diff";
            verkle_proof |= key == "verkleProof" || key == "verkle_proof";
            if first_under.as_ref().is_some_and(|k| *k == key) {
                self.findings.repeated_key = true;
            }
            if deep {
                map.next_value_seed(skip)?;
            } else {
                let first = {
                    let child = self.path.entry(&key, entry);
                    map.next_value_seed(Node {
                        findings: &mut *self.findings,
                        path: &child,
                        level: self.level + 1,
                        candidate: WITNESS_KEYS.contains(&&*key),
                        walk: self.walk,
                    })?
                };
                if first {
                    first_under = Some(key);
                }
            }
            entry += 1;
        }
        if self.candidate && state_diff && verkle_proof {
            return Ok(self.findings.confirm(mark, self.path));
        }
        if deep {
            self.findings.deep(self.path);
        }
        Ok(first_under.is_some())
    }
}

impl Node<'_, '_> {
    /// Reads a candidate that may hold the first witness as a witness, searching its other
    /// fields; at its end, keeps the read if it is one.
    fn read_candidate<'de, A: MapAccess<'de>>(
        self,
        mark: Mark,
        deep: bool,
        map: A,
    ) -> Result<bool, A::Error> {
        let skip = Skip {
            validate: self.walk.validate,
        };
        let mut others = Search {
            findings: &mut *self.findings,
            level: self.level,
            deep,
            walk: self.walk,
            first_under: None,
        };
        let c = read::read_candidate(map, self.path, skip, &mut others)?;
        let holds_first = others.first_under.is_some();
        if c.witness {
            let first = self.findings.confirm(mark, self.path);
            if first {
                self.findings.first_read = Some(c.read);
            }
            return Ok(first);
        }
        self.findings.unsettled |= c.either;
        if deep {
            self.findings.deep(self.path);
        }
        Ok(holds_first)
    }
}

/// The search of a candidate's fields that a witness does not have, while the candidate is
/// read as a witness.
struct Search<'f, 'de> {
    findings: &'f mut Findings,
    /// The candidate's level.
    level: usize,
    /// The candidate is past the depth limit: its fields are not searched.
    deep: bool,
    walk: Walk,
    /// The key under which the first witness lies, once it does.
    first_under: Option<Cow<'de, str>>,
}

impl<'de> Others<'de> for Search<'_, 'de> {
    fn other<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        entry: usize,
        path: &Path<'_>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if self.first_under.as_ref().is_some_and(|k| *k == key) {
            self.findings.repeated_key = true;
        }
        if self.deep {
            return map.next_value_seed(Skip {
                validate: self.walk.validate,
            });
        }
        let first = {
            let child = path.entry(&key, entry);
            map.next_value_seed(Node {
                findings: &mut *self.findings,
                path: &child,
                level: self.level + 1,
                candidate: WITNESS_KEYS.contains(&&*key),
                walk: self.walk,
            })?
        };
        if first {
            self.first_under = Some(key);
        }
        Ok(())
    }
}
