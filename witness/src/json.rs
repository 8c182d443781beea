//! JSON as geth/go-verkle write it (`spec/WIRE.md`, "JSON"), and the variants found in real
//! data: snake_case names, `suffix` as a decimal string, hex without `0x`, odd-length hex,
//! a missing `newValue`, and the witness nested in a block, payload, header or beacon dump.

use crate::prelude::*;

use serde_json::{Map, Value};

use crate::error::JsonError;
use crate::execution_witness::ExecutionWitness;
use crate::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
use crate::preset::{IPA_PROOF_DEPTH, MAX_COMMITMENTS, MAX_STEMS, VERKLE_WIDTH};

/// Keys under which a witness is searched for, in any object of a document.
pub const WITNESS_KEYS: [&str; 3] = ["executionWitness", "execution_witness", "witness"];

/// How deep [`find_json_witnesses`] descends before giving up with [`JsonError::TooDeep`].
pub const MAX_SEARCH_DEPTH: usize = 64;

/// One step of a JSON path.
#[derive(Clone, Copy)]
enum Seg<'a> {
    /// An already rendered JSON Pointer prefix.
    Prefix(&'a str),
    Key(&'a str),
    Index(usize),
}

impl Seg<'_> {
    /// Appends this step to a JSON Pointer.
    fn push_to(self, out: &mut String) {
        match self {
            Seg::Prefix(s) => out.push_str(s),
            Seg::Key(k) => push_pointer_key(out, k),
            Seg::Index(i) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
}

/// A JSON path as a chain on the stack; rendered to a JSON Pointer only for an error.
#[derive(Clone, Copy)]
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
}

impl<'a> Path<'a> {
    fn root(prefix: &'a str) -> Self {
        Self {
            parent: None,
            seg: Seg::Prefix(prefix),
        }
    }

    fn key(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Key(key),
        }
    }

    fn index(&'a self, index: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Index(index),
        }
    }

    fn render(&self) -> String {
        let mut segs = Vec::new();
        let mut p = Some(self);
        while let Some(node) = p {
            segs.push(node.seg);
            p = node.parent;
        }
        let mut out = String::new();
        for seg in segs.into_iter().rev() {
            seg.push_to(&mut out);
        }
        out
    }
}

/// Appends `/key` with JSON Pointer escaping (`~` → `~0`, `/` → `~1`).
fn push_pointer_key(out: &mut String, key: &str) {
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Whether `v` is an object holding a state diff and a Verkle proof.
fn looks_like_witness(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        (o.contains_key("stateDiff") || o.contains_key("state_diff"))
            && (o.contains_key("verkleProof") || o.contains_key("verkle_proof"))
    })
}

/// The children of an object or array not yet visited, with the step that reaches each.
enum Children<'v> {
    Object(serde_json::map::Iter<'v>),
    Array(core::iter::Enumerate<core::slice::Iter<'v, Value>>),
}

impl<'v> Children<'v> {
    fn of(v: &'v Value) -> Option<Self> {
        match v {
            Value::Object(map) => Some(Children::Object(map.iter())),
            Value::Array(items) => Some(Children::Array(items.iter().enumerate())),
            _ => None,
        }
    }

    fn next(&mut self) -> Option<(Seg<'v>, &'v Value)> {
        match self {
            Children::Object(it) => it.next().map(|(k, v)| (Seg::Key(k.as_str()), v)),
            Children::Array(it) => it.next().map(|(i, v)| (Seg::Index(i), v)),
        }
    }
}

/// A container being walked: the step from its parent and its children left to visit.
struct Frame<'v> {
    seg: Seg<'v>,
    children: Children<'v>,
}

/// Where the search stands: the containers entered (the root first) and a last step.
/// Holds only borrowed keys, so the search's memory is one frame per level of nesting.
struct Location<'s, 'v> {
    frames: &'s [Frame<'v>],
    last: Option<Seg<'v>>,
}

impl Location<'_, '_> {
    fn render(&self) -> String {
        let mut out = String::new();
        for f in self.frames {
            f.seg.push_to(&mut out);
        }
        if let Some(seg) = self.last {
            seg.push_to(&mut out);
        }
        out
    }
}

/// Walks `doc` depth-first in document order and calls `found` with each witness and where
/// it is (rendered only if `found` asks). The root, if a witness, is the only one. The
/// walk keeps one frame per level, does not enter a witness and stops at
/// [`MAX_SEARCH_DEPTH`].
fn search<'v>(
    doc: &'v Value,
    mut found: impl FnMut(&Location<'_, 'v>, &'v Value),
) -> Result<(), JsonError> {
    if looks_like_witness(doc) {
        found(
            &Location {
                frames: &[],
                last: None,
            },
            doc,
        );
        return Ok(());
    }
    let Some(children) = Children::of(doc) else {
        return Ok(());
    };
    // The root's frame is at depth 0; a child of `stack.last()` is at depth `stack.len()`.
    let mut stack = vec![Frame {
        seg: Seg::Prefix(""),
        children,
    }];
    while let Some(top) = stack.last_mut() {
        let Some((seg, child)) = top.children.next() else {
            stack.pop();
            continue;
        };
        if matches!(seg, Seg::Key(k) if WITNESS_KEYS.contains(&k)) && looks_like_witness(child) {
            found(
                &Location {
                    frames: &stack,
                    last: Some(seg),
                },
                child,
            );
            continue;
        }
        let Some(children) = Children::of(child) else {
            continue;
        };
        if stack.len() > MAX_SEARCH_DEPTH {
            return Err(JsonError::TooDeep {
                path: Location {
                    frames: &stack,
                    last: Some(seg),
                }
                .render(),
                max: MAX_SEARCH_DEPTH,
            });
        }
        stack.push(Frame { seg, children });
    }
    Ok(())
}

/// Finds every execution witness in a JSON document, in document order, with its JSON
/// Pointer: the root itself if it is a witness, else every object under one of
/// [`WITNESS_KEYS`] that holds a state diff and a Verkle proof (an MPT-style
/// `executionWitness {state, codes, headers}` does not count). The search does not enter a
/// witness, walks iteratively and stops at [`MAX_SEARCH_DEPTH`].
///
/// The search itself keeps one frame per level of nesting; the result holds one rendered
/// pointer per witness found.
pub fn find_json_witnesses(doc: &Value) -> Result<Vec<(String, &Value)>, JsonError> {
    let mut out = Vec::new();
    search(doc, |at, w| out.push((at.render(), w)))?;
    Ok(out)
}

/// The one witness in `doc` and its JSON Pointer: [`JsonError::NotFound`] if there is none,
/// [`JsonError::Ambiguous`] (naming the first two) if there are several. Renders at most
/// two pointers, however many witnesses the document holds.
pub(crate) fn find_one_witness(doc: &Value) -> Result<(String, &Value), JsonError> {
    let mut count = 0usize;
    let mut first: Option<(String, &Value)> = None;
    let mut second: Option<String> = None;
    search(doc, |at, w| {
        count += 1;
        if first.is_none() {
            first = Some((at.render(), w));
        } else if second.is_none() {
            second = Some(at.render());
        }
    })?;
    match (first, second) {
        (None, _) => Err(JsonError::NotFound),
        (Some(one), None) => Ok(one),
        (Some((first, _)), Some(second)) => Err(JsonError::Ambiguous {
            count,
            first,
            second,
        }),
    }
}

/// Reads the witness object `v` (found at JSON Pointer `at`) into an [`ExecutionWitness`].
pub(crate) fn read_witness(v: &Value, at: &str) -> Result<ExecutionWitness, JsonError> {
    Ok(read_owned(v, &Path::root(at))?.to_witness()?)
}

impl OwnedExecutionWitness {
    /// Reads a bare witness object (go-verkle JSON or its snake_case variant), with no search.
    pub fn from_json_witness(v: &Value) -> Result<Self, JsonError> {
        read_owned(v, &Path::root(""))
    }
}

fn object<'v>(v: &'v Value, path: &Path<'_>) -> Result<&'v Map<String, Value>, JsonError> {
    v.as_object().ok_or_else(|| JsonError::Type {
        path: path.render(),
        expected: "an object",
    })
}

fn array<'v>(v: &'v Value, path: &Path<'_>, max: usize) -> Result<&'v [Value], JsonError> {
    let a = v.as_array().ok_or_else(|| JsonError::Type {
        path: path.render(),
        expected: "an array",
    })?;
    if a.len() > max {
        return Err(JsonError::TooMany {
            path: path.render(),
            count: a.len(),
            max,
        });
    }
    Ok(a)
}

/// Looks a field up by its camelCase or its snake_case name; an object holding both is
/// refused, since either could be the one meant.
fn lookup<'v>(
    obj: &'v Map<String, Value>,
    camel: &'static str,
    snake: &'static str,
    path: &Path<'_>,
) -> Result<Option<(&'static str, &'v Value)>, JsonError> {
    match (obj.get(camel), obj.get(snake)) {
        (Some(_), Some(_)) if camel != snake => Err(JsonError::DuplicateField {
            path: path.render(),
            camel,
            snake,
        }),
        (Some(v), _) => Ok(Some((camel, v))),
        (None, Some(v)) => Ok(Some((snake, v))),
        (None, None) => Ok(None),
    }
}

fn required<'v>(
    obj: &'v Map<String, Value>,
    camel: &'static str,
    snake: &'static str,
    path: &Path<'_>,
) -> Result<(&'static str, &'v Value), JsonError> {
    lookup(obj, camel, snake, path)?.ok_or_else(|| JsonError::Missing {
        path: path.render(),
        field: camel,
    })
}

fn hex_str<'v>(v: &'v Value, path: &Path<'_>) -> Result<&'v [u8], JsonError> {
    let s = v.as_str().ok_or_else(|| JsonError::Type {
        path: path.render(),
        expected: "a hex string",
    })?;
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    Ok(s.as_bytes())
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes hex digits into `out`, whose length must be `ceil(digits / 2)`; an odd number of
/// digits is read as if left-padded with one `0`.
fn decode_hex(digits: &[u8], out: &mut [u8], path: &Path<'_>) -> Result<(), JsonError> {
    let bad = || JsonError::Hex {
        path: path.render(),
    };
    let (head, pairs) = if digits.len() % 2 == 1 {
        digits.split_at(1)
    } else {
        digits.split_at(0)
    };
    let mut out_iter = out.iter_mut();
    if let Some(&c) = head.first() {
        let slot = out_iter.next().ok_or_else(bad)?;
        *slot = nibble(c).ok_or_else(bad)?;
    }
    for (slot, pair) in out_iter.zip(pairs.chunks_exact(2)) {
        let (hi, lo) = match pair {
            [h, l] => (nibble(*h), nibble(*l)),
            _ => (None, None),
        };
        *slot = (hi.ok_or_else(bad)? << 4) | lo.ok_or_else(bad)?;
    }
    Ok(())
}

fn hex_fixed<const N: usize>(v: &Value, path: &Path<'_>) -> Result<[u8; N], JsonError> {
    let digits = hex_str(v, path)?;
    let got = digits.len().div_ceil(2);
    if got != N {
        return Err(JsonError::Length {
            path: path.render(),
            got,
            expected: N,
        });
    }
    let mut out = [0u8; N];
    decode_hex(digits, &mut out, path)?;
    Ok(out)
}

fn hex_vec(v: &Value, path: &Path<'_>, max: usize) -> Result<Vec<u8>, JsonError> {
    let digits = hex_str(v, path)?;
    let len = digits.len().div_ceil(2);
    if len > max {
        return Err(JsonError::TooMany {
            path: path.render(),
            count: len,
            max,
        });
    }
    let mut out = vec![0u8; len];
    decode_hex(digits, &mut out, path)?;
    Ok(out)
}

fn optional32(v: Option<&Value>, path: &Path<'_>) -> Result<Option<[u8; 32]>, JsonError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => hex_fixed::<32>(v, path).map(Some),
    }
}

/// `suffix`, in 0..=255: a JSON integer (go-verkle), a string of decimal digits without
/// sign, space or leading zero (the beacon API's `"78"`), or `0x` and one or two hex digits.
fn suffix(v: &Value, path: &Path<'_>) -> Result<u8, JsonError> {
    let parsed = match v {
        Value::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()),
        Value::String(s) => suffix_str(s),
        _ => None,
    };
    parsed.ok_or_else(|| JsonError::Suffix {
        path: path.render(),
        got: v.to_string(),
    })
}

fn suffix_str(s: &str) -> Option<u8> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if !(1..=2).contains(&h.len()) {
            return None;
        }
        return h
            .bytes()
            .try_fold(0u8, |acc, c| Some((acc << 4) | nibble(c)?));
    }
    let b = s.as_bytes();
    let canonical = match b {
        [] => false,
        [b'0'] => true,
        [first, ..] => *first != b'0' && b.len() <= 3 && b.iter().all(u8::is_ascii_digit),
    };
    if !canonical {
        return None;
    }
    b.iter()
        .try_fold(0u8, |acc, d| acc.checked_mul(10)?.checked_add(d - b'0'))
}

fn points<const N: usize>(
    v: &Value,
    path: &Path<'_>,
    max: usize,
) -> Result<Vec<[u8; N]>, JsonError> {
    let items = array(v, path, max)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(hex_fixed::<N>(item, &path.index(i))?);
    }
    Ok(out)
}

fn ipa_points(v: &Value, path: &Path<'_>) -> Result<[[u8; 32]; IPA_PROOF_DEPTH], JsonError> {
    let items = array(v, path, usize::MAX)?;
    if items.len() != IPA_PROOF_DEPTH {
        return Err(JsonError::WrongCount {
            path: path.render(),
            got: items.len(),
            expected: IPA_PROOF_DEPTH,
        });
    }
    let mut out = [[0u8; 32]; IPA_PROOF_DEPTH];
    for (i, (slot, item)) in out.iter_mut().zip(items).enumerate() {
        *slot = hex_fixed::<32>(item, &path.index(i))?;
    }
    Ok(out)
}

fn read_owned(v: &Value, path: &Path<'_>) -> Result<OwnedExecutionWitness, JsonError> {
    let obj = object(v, path)?;
    let (k, sd) = required(obj, "stateDiff", "state_diff", path)?;
    let sd_path = path.key(k);
    let stems = array(sd, &sd_path, MAX_STEMS)?;
    let mut state_diff = Vec::with_capacity(stems.len());
    for (i, s) in stems.iter().enumerate() {
        let sp = sd_path.index(i);
        let so = object(s, &sp)?;
        let (k, stem) = required(so, "stem", "stem", &sp)?;
        let stem = hex_fixed::<31>(stem, &sp.key(k))?;
        let (k, diffs) = required(so, "suffixDiffs", "suffix_diffs", &sp)?;
        let dp = sp.key(k);
        let diffs = array(diffs, &dp, VERKLE_WIDTH)?;
        let mut suffix_diffs = Vec::with_capacity(diffs.len());
        for (j, d) in diffs.iter().enumerate() {
            let p = dp.index(j);
            let o = object(d, &p)?;
            let (k, sfx) = required(o, "suffix", "suffix", &p)?;
            let suffix = suffix(sfx, &p.key(k))?;
            let cur = lookup(o, "currentValue", "current_value", &p)?;
            let current_value = optional32(cur.map(|c| c.1), &p.key(cur.map_or("", |c| c.0)))?;
            let new = lookup(o, "newValue", "new_value", &p)?;
            let new_value = optional32(new.map(|c| c.1), &p.key(new.map_or("", |c| c.0)))?;
            suffix_diffs.push(OwnedSuffixStateDiff {
                suffix,
                current_value,
                new_value,
            });
        }
        state_diff.push(OwnedStemStateDiff { stem, suffix_diffs });
    }

    let (k, vp) = required(obj, "verkleProof", "verkle_proof", path)?;
    let vpp = path.key(k);
    let vpo = object(vp, &vpp)?;
    let (k, other) = required(vpo, "otherStems", "other_stems", &vpp)?;
    let other_stems = points::<31>(other, &vpp.key(k), MAX_STEMS)?;
    let (k, ext) = required(
        vpo,
        "depthExtensionPresent",
        "depth_extension_present",
        &vpp,
    )?;
    let depth_extension_present = hex_vec(ext, &vpp.key(k), MAX_STEMS)?;
    let (k, comms) = required(vpo, "commitmentsByPath", "commitments_by_path", &vpp)?;
    let commitments_by_path = points::<32>(comms, &vpp.key(k), MAX_COMMITMENTS)?;
    let (k, d) = required(vpo, "d", "d", &vpp)?;
    let d = hex_fixed::<32>(d, &vpp.key(k))?;
    let (k, ipa) = required(vpo, "ipaProof", "ipa_proof", &vpp)?;
    let ip = vpp.key(k);
    let io = object(ipa, &ip)?;
    let (k, cl) = required(io, "cl", "cl", &ip)?;
    let cl = ipa_points(cl, &ip.key(k))?;
    let (k, cr) = required(io, "cr", "cr", &ip)?;
    let cr = ipa_points(cr, &ip.key(k))?;
    let (k, fe) = required(io, "finalEvaluation", "final_evaluation", &ip)?;
    // JSON carries the scalar big-endian; the model keeps the SSZ/multiproof little-endian.
    let mut final_evaluation = hex_fixed::<32>(fe, &ip.key(k))?;
    final_evaluation.reverse();

    Ok(OwnedExecutionWitness {
        state_diff,
        verkle_proof: OwnedVerkleProof {
            other_stems,
            depth_extension_present,
            commitments_by_path,
            d,
            ipa_proof: OwnedIpaProof {
                cl,
                cr,
                final_evaluation,
            },
        },
    })
}

fn hex0x(bytes: &[u8]) -> Value {
    Value::String(format!("0x{}", hex::encode(bytes)))
}

fn obj<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// Writes a witness as go-verkle does: camelCase names, `0x` hex, `suffix` as a number,
/// `null` for absent values and `finalEvaluation` big-endian.
pub(crate) fn write_witness(w: &ExecutionWitness) -> Value {
    let state_diff = w
        .state_diff()
        .iter()
        .map(|s| {
            let diffs = s
                .suffix_diffs
                .iter()
                .map(|d| {
                    obj([
                        ("suffix", Value::from(d.suffix)),
                        (
                            "currentValue",
                            d.current_value.map_or(Value::Null, |v| hex0x(v)),
                        ),
                        ("newValue", d.new_value.map_or(Value::Null, |v| hex0x(v))),
                    ])
                })
                .collect();
            obj([
                ("stem", hex0x(s.stem)),
                ("suffixDiffs", Value::Array(diffs)),
            ])
        })
        .collect();
    let vp = w.verkle_proof();
    let ipa = vp.ipa_proof();
    let mut final_be = *ipa.final_evaluation;
    final_be.reverse();
    let proof = obj([
        (
            "otherStems",
            Value::Array(vp.other_stems().iter().map(|s| hex0x(s)).collect()),
        ),
        ("depthExtensionPresent", hex0x(vp.depth_extension_present())),
        (
            "commitmentsByPath",
            Value::Array(vp.commitments_by_path().iter().map(|c| hex0x(c)).collect()),
        ),
        ("d", hex0x(vp.d())),
        (
            "ipaProof",
            obj([
                (
                    "cl",
                    Value::Array(ipa.cl.iter().map(|p| hex0x(*p)).collect()),
                ),
                (
                    "cr",
                    Value::Array(ipa.cr.iter().map(|p| hex0x(*p)).collect()),
                ),
                ("finalEvaluation", hex0x(&final_be)),
            ]),
        ),
    ]);
    obj([
        ("stateDiff", Value::Array(state_diff)),
        ("verkleProof", proof),
    ])
}
