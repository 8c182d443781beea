//! The search for witnesses inside a JSON document (a block, payload, header, beacon dump).

use crate::prelude::*;

use serde_json::Value;

use super::path::Seg;
use crate::error::JsonError;

/// Keys under which a witness is searched for, in any object of a document.
pub const WITNESS_KEYS: [&str; 3] = ["executionWitness", "execution_witness", "witness"];

/// How deep [`find_json_witnesses`] descends before giving up with [`JsonError::TooDeep`].
pub const MAX_SEARCH_DEPTH: usize = 64;

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
