//! Body of the `binary_raw` fuzz target: arbitrary bytes read as a 32-byte pre-state root
//! followed by a witness, decoded and verified as a witness of each tree and hash (EIP-7864
//! and EIP-8297, SHA-256 and BLAKE3). Nothing panics; what decodes has counts consistent with
//! its length (an independent reading of the sections by their counts, [`super::eip7864::Parts`]
//! and [`super::eip8297::Parts`], takes exactly its bytes and writes them back unchanged, and
//! the lengths of `spec/BINARY.md` §3 and §7 add up to it), claims its keys in order with the
//! values its flags count; what verifies without a write has its pre-state root as its
//! post-state root, and verifies again the same.

use std::vec::Vec;

use super::rng::Rng;
use super::{eip7864 as f7864, eip8297 as f8297};
use crate::eip7864::witness as w7864;
use crate::eip8297::witness as w8297;
use crate::witness::WriteRef;
use crate::{Blake3, Sha256, TreeHash};

/// How far the input got under each of the four readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawOutcome {
    /// Readings under which the witness decoded.
    pub decoded: usize,
    /// Readings under which it verified against the root.
    pub verified: usize,
}

impl RawOutcome {
    fn add(&mut self, (decoded, verified): (bool, bool)) {
        self.decoded += usize::from(decoded);
        self.verified += usize::from(verified);
    }
}

/// Runs one input: the first 32 bytes (zero-padded) are the pre-state root, the rest the
/// witness.
///
/// # Panics
/// When a decoded witness's counts disagree with its bytes, its claims with its sections, or
/// a verified witness without writes has a post-state root other than its pre-state root.
pub fn binary_raw(data: &[u8]) -> RawOutcome {
    let cut = data.len().min(32);
    let mut root = [0u8; 32];
    root[..cut].copy_from_slice(&data[..cut]);
    let bytes = &data[cut..];
    let mut out = RawOutcome::default();
    out.add(raw7864::<Sha256>(&root, bytes));
    out.add(raw7864::<Blake3>(&root, bytes));
    out.add(raw8297::<Blake3>(&root, bytes));
    out.add(raw8297::<Sha256>(&root, bytes));
    out
}

/// An honest input: the pre-state root and witness of scenario `seed` of tree `tree` (0:
/// EIP-7864 over SHA-256, 1: over BLAKE3, else EIP-8297 over BLAKE3).
pub fn honest_input(tree: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let (root, witness) = match tree {
        0 => honest7864::<Sha256>(&mut rng),
        1 => honest7864::<Blake3>(&mut rng),
        _ => {
            let mut s = f8297::scenario::<Blake3>(&mut rng);
            let w = s.tree.witness(&s.writes).expect("an honest scenario");
            (s.tree.root(), w)
        }
    };
    let mut out = root.to_vec();
    out.extend_from_slice(&witness);
    out
}

fn honest7864<H: TreeHash>(rng: &mut Rng) -> ([u8; 32], Vec<u8>) {
    let mut s = f7864::scenario::<H>(rng);
    let w = s.tree.witness(&s.writes).expect("an honest scenario");
    (s.tree.root(), w)
}

fn raw7864<H: TreeHash>(root: &[u8; 32], bytes: &[u8]) -> (bool, bool) {
    let Ok(w) = w7864::Witness::decode::<H>(bytes) else {
        return (false, false);
    };
    let p = f7864::Parts::parse(bytes).expect("a decoded EIP-7864 witness's counts fit its length");
    assert_eq!(p.encode(), bytes, "its sections are its bytes");
    let (k, o, h, a) = (
        p.keys.len(),
        p.others.len(),
        p.hashes.len(),
        p.anchors.len(),
    );
    assert_eq!(
        (w.len(), w.other_count(), w.hash_count(), w.anchor_count()),
        (k, o, h, a)
    );
    let stems = (0..k)
        .filter(|&i| i == 0 || p.keys[i - 1][..31] != p.keys[i][..31])
        .count();
    let length = w7864::HEADER_LENGTH
        + 33 * k
        + 2 * stems
        + 32 * p.values.len()
        + w7864::OTHER_LENGTH * o
        + w7864::ANCHOR_LENGTH * a
        + p.slots.div_ceil(8)
        + 32 * h;
    assert_eq!(length, bytes.len(), "§3's section lengths add up");
    let ones: usize = p.bitmap.iter().map(|b| b.count_ones() as usize).sum();
    assert!(h <= p.slots && ones == h, "one hash per 1 bit");
    assert!(p.keys.windows(2).all(|x| x[0] < x[1]), "keys increase");
    let writes = claims_match(w.claims(), p.keys.iter().map(|x| &x[..]), &p.values);
    verified(root, writes, |r| w.verify::<H>(r).map(|v| v.post_root))
}

fn raw8297<H: TreeHash>(root: &[u8; 32], bytes: &[u8]) -> (bool, bool) {
    let Ok(w) = w8297::Witness::decode::<H>(bytes) else {
        return (false, false);
    };
    let p = f8297::Parts::parse(bytes).expect("a decoded EIP-8297 witness's counts fit its length");
    assert_eq!(p.encode(), bytes, "its sections are its bytes");
    let (k, o, h) = (p.keys.len(), p.others.len(), p.hashes.len());
    assert_eq!((w.len(), w.other_count(), w.hash_count()), (k, o, h));
    let key_bytes: usize = p.keys.iter().map(Vec::len).sum();
    let other_bytes: usize = p.others.iter().map(Vec::len).sum();
    let length = w8297::HEADER_LENGTH
        + k
        + key_bytes
        + k
        + 3 * k
        + 32 * p.values.len()
        + 2 * p.branches.len()
        + other_bytes
        + 32 * h;
    assert_eq!(length, bytes.len(), "§7's section lengths add up");
    assert!(
        p.keys
            .windows(2)
            .all(|x| x[0] < x[1] && !x[1].starts_with(&x[0])),
        "keys increase and are prefix-free"
    );
    let writes = claims_match(w.claims(), p.keys.iter().map(|x| &x[..]), &p.values);
    verified(root, writes, |r| w.verify::<H>(r).map(|v| v.post_root))
}

/// Checks that `claims` name `keys` in order and take `values` in order (a pre-value, then
/// a new value), each once, a delete only of a present key; returns whether any writes.
fn claims_match<'a>(
    claims: impl Iterator<Item = crate::witness::Claim<'a>>,
    keys: impl Iterator<Item = &'a [u8]>,
    values: &[[u8; 32]],
) -> bool {
    let mut taken = values.iter();
    let mut keys = keys;
    let mut writes = false;
    for claim in claims {
        assert_eq!(
            Some(claim.key),
            keys.next(),
            "claims name the keys in order"
        );
        if let Some(pre) = claim.pre {
            assert_eq!(Some(pre), taken.next(), "a pre-value is the next value");
        }
        match claim.write {
            WriteRef::Set(x) => {
                assert_eq!(Some(x), taken.next(), "a new value is the next value");
                assert_ne!(claim.pre, Some(x), "a set changes the value");
                writes = true;
            }
            WriteRef::Delete => {
                assert!(claim.pre.is_some(), "a delete removes a present key");
                writes = true;
            }
            WriteRef::Unchanged => {}
        }
    }
    assert!(keys.next().is_none(), "a claim per key");
    assert!(taken.next().is_none(), "every value claimed");
    writes
}

/// Verifies against `root`; a witness that verifies without writes has `root` as its
/// post-state root, and verifies again to the same root. Returns (decoded, verified).
fn verified<E: core::fmt::Display>(
    root: &[u8; 32],
    writes: bool,
    verify: impl Fn(&[u8; 32]) -> Result<[u8; 32], E>,
) -> (bool, bool) {
    match verify(root) {
        Ok(post) => {
            if !writes {
                assert_eq!(&post, root, "a witness without writes keeps its root");
            }
            assert_eq!(verify(root).ok(), Some(post), "verification is repeatable");
            (true, true)
        }
        Err(e) => {
            assert!(
                e.to_string().starts_with("bw."),
                "a rejection names its rule: {e}"
            );
            (true, false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::corpus;

    #[test]
    fn honest_inputs_decode_and_verify_under_their_own_reading_only() {
        for tree in 0..3 {
            for seed in 0..60 {
                let input = honest_input(tree, seed);
                let one = RawOutcome {
                    decoded: 1,
                    verified: 1,
                };
                assert_eq!(binary_raw(&input), one, "tree {tree}, seed {seed}");
                let mut other_root = input.clone();
                other_root[0] ^= 1;
                assert_eq!(binary_raw(&other_root).verified, 0);
            }
        }
    }

    #[test]
    fn cut_and_changed_honest_inputs_never_panic_and_some_still_decode() {
        let mut rng = Rng::new(7);
        let (mut decoded, mut verified, mut runs) = (0, 0, 0);
        for tree in 0..3 {
            for seed in 0..30 {
                let input = honest_input(tree, seed);
                for _ in 0..40 {
                    let mut b = input.clone();
                    if rng.below(4) == 0 {
                        b.truncate(rng.below(b.len()));
                    } else {
                        for _ in 0..1 + rng.below(2) {
                            let at = 32 + rng.below(b.len() - 32);
                            b[at] ^= 1 << rng.below(8);
                        }
                    }
                    let out = binary_raw(&b);
                    decoded += out.decoded;
                    verified += out.verified;
                    runs += 1;
                }
            }
        }
        // Bit flips in values, hashes and end records decode; flips in new values verify.
        assert!(decoded > runs / 4, "{decoded} of {runs} decoded");
        assert!(
            verified > 0 && verified < decoded,
            "{verified} of {decoded} verified"
        );
        for input in corpus::inputs("binary_raw", 2000, 120) {
            binary_raw(&input);
        }
    }
}
