//! JSON paths kept on the stack and rendered as JSON Pointers (RFC 6901) only for errors.

use crate::prelude::*;

/// One step of a JSON path.
#[derive(Clone, Copy)]
pub(super) enum Seg<'a> {
    /// An already rendered JSON Pointer prefix.
    Prefix(&'a str),
    Key(&'a str),
    Index(usize),
}

impl Seg<'_> {
    /// Appends this step to a JSON Pointer.
    pub(super) fn push_to(self, out: &mut String) {
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

    pub(super) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Key(key),
        }
    }

    pub(super) fn index(&'a self, index: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Index(index),
        }
    }

    pub(super) fn render(&self) -> String {
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
pub(super) fn push_pointer_key(out: &mut String, key: &str) {
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}
