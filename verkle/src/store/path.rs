//! [`NodePath`]: where a node is stored, the bytes of the stem prefix that lead to it.

use std::fmt;

/// The path of a node from the root: at most 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodePath {
    len: u8,
    bytes: [u8; NodePath::MAX_LEN],
}

impl NodePath {
    /// The longest path (a shard byte plus a 31-byte stem).
    pub const MAX_LEN: usize = 32;

    /// The root's (empty) path.
    pub const fn root() -> NodePath {
        NodePath {
            len: 0,
            bytes: [0; NodePath::MAX_LEN],
        }
    }

    /// A path from bytes; `None` if longer than [`NodePath::MAX_LEN`].
    pub fn new(bytes: &[u8]) -> Option<NodePath> {
        if bytes.len() > NodePath::MAX_LEN {
            return None;
        }
        let mut p = NodePath::root();
        p.bytes[..bytes.len()].copy_from_slice(bytes);
        p.len = bytes.len() as u8;
        Some(p)
    }

    /// The path bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Number of bytes (the node's depth).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the path is empty (the root's).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether this is the root's path.
    pub fn is_root(&self) -> bool {
        self.len == 0
    }

    /// The path of child `index`; `None` past [`NodePath::MAX_LEN`].
    pub fn child(&self, index: u8) -> Option<NodePath> {
        let n = usize::from(self.len);
        if n >= NodePath::MAX_LEN {
            return None;
        }
        let mut p = *self;
        p.bytes[n] = index;
        p.len += 1;
        Some(p)
    }
}

impl Ord for NodePath {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for NodePath {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodePath(0x{})", hex::encode(self.as_bytes()))
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let r = NodePath::root();
        assert!(r.is_root());
        let c = r.child(7).unwrap().child(9).unwrap();
        assert_eq!(c.as_bytes(), &[7, 9]);
        assert_eq!(c.len(), 2);
        assert_eq!(NodePath::new(&[7, 9]), Some(c));
        assert!(NodePath::new(&[0; 33]).is_none());
        assert!(NodePath::new(&[0; 32]).unwrap().child(0).is_none());
        // Lexicographic order, not length-first.
        assert!(NodePath::new(&[1]).unwrap() > NodePath::new(&[0, 5]).unwrap());
        assert_eq!(format!("{c}"), "0x0709");
    }
}
