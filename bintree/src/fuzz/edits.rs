//! Body of the `binary_witness` fuzz target: an honest binary witness that a hostile prover
//! edits, verified against the honest pre-state root and, when it verifies, held to the true
//! tree.
//!
//! The input is a sequence of choices ([`Choices`]): the tree (EIP-7864 over SHA-256 or
//! BLAKE3, EIP-8297 over BLAKE3), a 32-bit seed of the scenario (a small tree with stems or
//! keys sharing long prefixes and a block of reads, sets, new stems or keys and deletes), then
//! up to 16 edits of the honest witness: a bit flipped or a byte set anywhere, a header count
//! changed, or a structural edit of one section ([`super::eip7864::edit`],
//! [`super::eip8297::edit`]). A rejection is a typed [`crate::witness::WitnessError`]; an
//! accepted witness must claim only truths.

use std::vec::Vec;

use super::choices::Choices;
use super::rng::Rng;
use super::{eip7864 as f7864, eip8297 as f8297};
use crate::eip7864::{witness as w7864, Tree as Tree7864};
use crate::eip8297::{witness as w8297, Tree as Tree8297};
use crate::witness::{Write, WriteRef};
use crate::{Blake3, Sha256, TreeHash};

/// Most edits applied to one honest witness.
pub const MAX_EDITS: usize = 16;

/// What became of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Decoding or verification rejected the witness, with the rule named (`bw.…`).
    Rejected(&'static str),
    /// It verified and every claim is true; `edited` when its bytes are not the honest
    /// witness's.
    Accepted {
        /// Whether the edits changed the bytes.
        edited: bool,
    },
}

/// Runs one input: picks the tree and the scenario, proves the honest witness, applies the
/// edits the input chooses, verifies against the honest pre-state root and holds an accepted
/// witness to the tree.
///
/// # Panics
/// When an accepted witness claims a pre-value other than the tree's at its key (or a value
/// for an absent key, or absence for a present one), or a post-state root other than the
/// tree's own root after the claimed writes (or writes the tree refuses).
pub fn binary_witness(data: &[u8]) -> Outcome {
    let mut c = Choices::new(data);
    let tree = c.below(3);
    let mut rng = Rng::new(u64::from(c.u32()));
    match tree {
        0 => run7864::<Sha256>(&mut c, &mut rng),
        1 => run7864::<Blake3>(&mut c, &mut rng),
        _ => run8297::<Blake3>(&mut c, &mut rng),
    }
}

/// Up to [`MAX_EDITS`] edits, while the input lasts: a bit flipped, a byte set, one of the
/// header's `counts` counts changed, or (five times in eight) a `structural` edit.
fn edit_all(
    c: &mut Choices,
    bytes: &mut Vec<u8>,
    counts: usize,
    mut structural: impl FnMut(&mut Choices, &mut Vec<u8>),
) {
    for _ in 0..MAX_EDITS {
        if c.is_exhausted() {
            break;
        }
        match c.below(8) {
            0 => {
                let at = c.below(bytes.len());
                let bit = c.byte() % 8;
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= 0x80 >> bit;
                }
            }
            1 => {
                let at = c.below(bytes.len());
                let x = c.byte();
                if let Some(b) = bytes.get_mut(at) {
                    *b = x;
                }
            }
            2 => {
                let at = 3 + 4 * c.below(counts);
                let op = c.below(4);
                let Some(field) = bytes.get_mut(at..at + 4) else {
                    continue;
                };
                let n = u32::from_le_bytes([field[0], field[1], field[2], field[3]]);
                let n = match op {
                    0 => n.wrapping_add(1),
                    1 => n.wrapping_sub(1),
                    2 => n ^ (1 << c.below(32)),
                    _ => c.u32(),
                };
                field.copy_from_slice(&n.to_le_bytes());
            }
            _ => structural(c, bytes),
        }
    }
}

fn outcome(checked: Result<(), &'static str>, bytes: &[u8], honest: &[u8]) -> Outcome {
    match checked {
        Ok(()) => Outcome::Accepted {
            edited: bytes != honest,
        },
        Err(name) => Outcome::Rejected(name),
    }
}

fn run7864<H: TreeHash + Clone>(c: &mut Choices, rng: &mut Rng) -> Outcome {
    let mut s = f7864::scenario::<H>(rng);
    let honest = s
        .tree
        .witness(&s.writes)
        .expect("the scenario's keys are distinct and it deletes nothing");
    let root = s.tree.root();
    let mut bytes = honest.clone();
    edit_all(c, &mut bytes, 4, |c, b| {
        if let Some(mut p) = f7864::Parts::parse(b) {
            f7864::edit(c, &mut p, &s);
            *b = p.encode();
        }
    });
    outcome(check_eip7864(&s.tree, &root, &bytes), &bytes, &honest)
}

/// Verifies `bytes` against `root` and holds an accepted witness to `tree`; a rejection is
/// the rule's name.
///
/// # Panics
/// As [`binary_witness`], on a false claim of an accepted witness.
pub fn check_eip7864<H: TreeHash + Clone>(
    tree: &Tree7864<H>,
    root: &[u8; 32],
    bytes: &[u8],
) -> Result<(), &'static str> {
    let (w, v) = match w7864::verify::<H>(bytes, root) {
        Ok(x) => x,
        Err(e) => return Err(e.name()),
    };
    let mut writes: Vec<([u8; 32], Write)> = Vec::new();
    for claim in w.claims() {
        assert_eq!(
            claim.pre,
            tree.get(claim.key),
            "an accepted EIP-7864 witness claims a false pre-value at key {:02x?}",
            claim.key
        );
        let key: [u8; 32] = claim.key.try_into().expect("EIP-7864 keys are 32 bytes");
        match claim.write {
            WriteRef::Set(x) => writes.push((key, Write::Set(*x))),
            WriteRef::Unchanged => {}
            WriteRef::Delete => panic!("an accepted EIP-7864 witness deletes key {key:02x?}"),
        }
    }
    assert_eq!(
        v.post_root,
        f7864::applied_root(tree, &writes),
        "an accepted EIP-7864 witness claims a false post-state root"
    );
    Ok(())
}

fn run8297<H: TreeHash + Clone>(c: &mut Choices, rng: &mut Rng) -> Outcome {
    let mut s = f8297::scenario::<H>(rng);
    let honest = s
        .tree
        .witness(&s.writes)
        .expect("the scenario's keys are distinct, prefix-free and of witness lengths");
    let root = s.tree.root();
    let mut bytes = honest.clone();
    edit_all(c, &mut bytes, 5, |c, b| {
        if let Some(mut p) = f8297::Parts::parse(b) {
            f8297::edit(c, &mut p, &s);
            *b = p.encode();
        }
    });
    outcome(check_eip8297(&s.tree, &root, &bytes), &bytes, &honest)
}

/// Verifies `bytes` against `root` and holds an accepted witness to `tree`; a rejection is
/// the rule's name.
///
/// # Panics
/// As [`binary_witness`], on a false claim of an accepted witness.
pub fn check_eip8297<H: TreeHash + Clone>(
    tree: &Tree8297<H>,
    root: &[u8; 32],
    bytes: &[u8],
) -> Result<(), &'static str> {
    let (w, v) = match w8297::verify::<H>(bytes, root) {
        Ok(x) => x,
        Err(e) => return Err(e.name()),
    };
    let mut writes: Vec<(Vec<u8>, Write)> = Vec::new();
    for claim in w.claims() {
        assert_eq!(
            claim.pre,
            tree.get(claim.key),
            "an accepted EIP-8297 witness claims a false pre-value at key {:02x?}",
            claim.key
        );
        let write = match claim.write {
            WriteRef::Set(x) => Write::Set(*x),
            WriteRef::Delete => Write::Delete,
            WriteRef::Unchanged => continue,
        };
        writes.push((claim.key.to_vec(), write));
    }
    let Some(post) = f8297::applied_root(tree, &writes) else {
        panic!("an accepted EIP-8297 witness writes keys the tree refuses: {writes:02x?}");
    };
    assert_eq!(
        v.post_root, post,
        "an accepted EIP-8297 witness claims a false post-state root"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fuzz::corpus;

    #[test]
    fn honest_witnesses_of_every_tree_are_accepted_unedited() {
        for tree in 0..3u8 {
            for seed in 0..40u32 {
                let mut input = std::vec![tree];
                input.extend_from_slice(&seed.to_le_bytes());
                assert_eq!(
                    binary_witness(&input),
                    Outcome::Accepted { edited: false },
                    "tree {tree}, seed {seed}"
                );
            }
        }
    }

    #[test]
    fn seeded_edits_are_rejected_by_their_rules_or_accepted_with_true_claims() {
        let inputs = corpus::inputs("binary_witness", 4000, 48);
        let mut rejected: BTreeMap<&str, usize> = BTreeMap::new();
        let mut accepted_edited = 0;
        for input in &inputs {
            match binary_witness(input) {
                Outcome::Rejected(name) => *rejected.entry(name).or_default() += 1,
                Outcome::Accepted { edited } => accepted_edited += usize::from(edited),
            }
        }
        // Edits that keep every claim true (a new value changed, a true value restated) are
        // accepted, and the oracle held their post-state roots to the trees'.
        assert!(
            accepted_edited >= 40,
            "{accepted_edited} edited witnesses accepted"
        );
        for rule in [
            "bw.root",
            "bw.length.truncated",
            "bw.keys.order",
            "bw.keys.flags",
            "bw.end.depth",
            "bw.end.group",
            "bw.end.absent_value",
            "bw.count.siblings",
            "bw.count.others",
            "bw.hash.zero",
            "bw.other.prefix",
            "bw.branch.prefix",
            "bw.anchor.depth",
            "bw.anchor.prefix",
            "bw.count.anchors",
        ] {
            let n = rejected.get(rule).copied().unwrap_or(0);
            assert!(n >= 5, "{rule}: {n} rejections of {rejected:?}");
        }
        // Deletes that collapse a branch, with the survivor's record edited or dropped.
        assert!(rejected.get("bw.collapse").copied().unwrap_or(0) >= 3);
    }
}
