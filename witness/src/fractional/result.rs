//! What a verified fractional proof proves (`spec/FRACTIONAL.md` §5).

use crate::prelude::*;

use crate::preset::STEM_LEN;

#[cfg(doc)]
use super::verify_fractional;

/// One key of a verified fractional proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FractionalKey {
    /// The shard it routes to.
    pub shard: u16,
    /// The stem.
    pub stem: [u8; STEM_LEN],
    /// The suffix.
    pub suffix: u8,
    /// The proven value; `None` = proven absent.
    pub current_value: Option<[u8; 32]>,
}

impl FractionalKey {
    /// The tree key `stem ‖ suffix`.
    pub fn key(&self) -> [u8; 32] {
        let mut k = [0u8; 32];
        k[..STEM_LEN].copy_from_slice(&self.stem);
        k[STEM_LEN] = self.suffix;
        k
    }
}

/// What a fractional proof proves: the result of [`verify_fractional`].
#[derive(Clone, Debug)]
pub struct VerifiedFractional {
    pub(super) depth: u8,
    pub(super) shards: Vec<(u16, [u8; 32])>,
    pub(super) keys: Vec<FractionalKey>,
    pub(super) openings: usize,
}

impl VerifiedFractional {
    /// The shard depth (1 or 2).
    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The touched shards and their proven commitments, index ascending.
    pub fn shards(&self) -> &[(u16, [u8; 32])] {
        &self.shards
    }

    /// Every proven key, ascending.
    pub fn keys(&self) -> &[FractionalKey] {
        &self.keys
    }

    /// `Some(Some(v))` present with value `v`, `Some(None)` proven absent, `None` not covered.
    pub fn current_value(&self, key: &[u8; 32]) -> Option<Option<&[u8; 32]>> {
        let i = self.keys.binary_search_by(|k| k.key().cmp(key)).ok()?;
        self.keys.get(i).map(|k| k.current_value.as_ref())
    }

    /// Number of IPA openings checked.
    pub fn opening_count(&self) -> usize {
        self.openings
    }
}
