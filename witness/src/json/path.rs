//! JSON paths kept on the stack and rendered as JSON Pointers (RFC 6901) only when needed.

use crate::prelude::*;

/// One step of a JSON path.
#[derive(Clone, Copy)]
pub(super) enum Seg<'a> {
    /// An already rendered JSON Pointer prefix.
    Prefix(&'a str),
    /// The value of a key, the `entry`-th of its object in the order the object is read.
    Key { key: &'a str, entry: usize },
    /// An element of an array.
    Index(usize),
}

impl Seg<'_> {
    /// Appends this step to a JSON Pointer.
    fn push_to(self, out: &mut String) {
        match self {
            Seg::Prefix(s) => out.push_str(s),
            Seg::Key { key, .. } => push_pointer_key(out, key),
            Seg::Index(i) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }

    /// The position this step takes inside its container (none for a prefix).
    fn position(self) -> Option<usize> {
        match self {
            Seg::Prefix(_) => None,
            Seg::Key { entry, .. } => Some(entry),
            Seg::Index(i) => Some(i),
        }
    }
}

/// A JSON path as a chain on the stack; rendered to a JSON Pointer only when asked.
#[derive(Clone, Copy)]
pub(super) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
}

impl<'a> Path<'a> {
    pub(super) fn root(prefix: &'a str) -> Self {
        Self {
            parent: None,
            seg: Seg::Prefix(prefix),
        }
    }

    /// The value of `key`, met as the `entry`-th entry of this object.
    pub(super) fn entry(&'a self, key: &'a str, entry: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Key { key, entry },
        }
    }

    /// The value of `key` (where the entry's position does not matter).
    pub(super) fn key(&'a self, key: &'a str) -> Path<'a> {
        self.entry(key, 0)
    }

    pub(super) fn index(&'a self, index: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Index(index),
        }
    }

    /// The steps from the root down to this one.
    fn segs(&self) -> Vec<Seg<'a>> {
        let mut segs = Vec::new();
        let mut p = Some(self);
        while let Some(node) = p {
            segs.push(node.seg);
            p = node.parent;
        }
        segs.reverse();
        segs
    }

    pub(super) fn render(&self) -> String {
        let mut out = String::new();
        for seg in self.segs() {
            seg.push_to(&mut out);
        }
        out
    }

    /// The position of each step inside its container, from the root down: where a second
    /// read of the same document finds this value again.
    pub(super) fn positions(&self) -> Vec<usize> {
        self.segs().into_iter().filter_map(Seg::position).collect()
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
