//! Body of the `binary_store` fuzz target: stored trees read from a corrupted node store.
//!
//! An honest state of each tree (from a seed in the input: keys sharing long prefixes) is
//! written out as its node records, and the input's choices then edit those records: flip a
//! byte, cut one short, lengthen one, drop one, swap two, or copy one over another's
//! position. A stored tree opened on the honest root and length over the edited records
//! reads keys, proves a witness of a block and applies the block. Every answer is an error
//! or the in-memory tree's own answer: records are checked against the hashes their parents
//! hold, so a corrupt store can fail a read but never change a value, a root or a witness.
//! With no edit every answer is the honest one.

use alloc::collections::BTreeMap;
use core::convert::Infallible;

use super::choices::Choices;
use super::eip7864::{key, near};
use super::eip8297::random_key;
use super::rng::Rng;
use crate::prelude::*;
use crate::store::{NodeSource, StoreError};
use crate::witness::Write;
use crate::{eip7864, eip8297, Blake3, Sha256, TreeHash};

/// Node records by position: the store the body corrupts.
#[derive(Clone, Debug, Default)]
pub struct Records(pub BTreeMap<Vec<u8>, Vec<u8>>);

impl NodeSource for Records {
    type Error = Infallible;

    fn load(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Infallible> {
        Ok(self.0.get(key).cloned())
    }
}

/// What one input did: how many reads answered and how many failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The record edits applied.
    pub edits: usize,
    /// Reads, witnesses and batches that gave the honest answer.
    pub answered: usize,
    /// Reads, witnesses and batches that failed with a store error.
    pub failed: usize,
}

/// The body: a tree and hash chosen by the input, an honest state and block from its seed,
/// its records edited by its choices, each answer held to the in-memory tree's.
///
/// # Panics
///
/// On a broken invariant only: a stored tree over edited records that answers a value, a
/// witness or a root other than the honest tree's, or an unedited store that fails.
pub fn binary_store(data: &[u8]) -> Outcome {
    let mut choices = Choices::new(data);
    let tree = choices.below(3);
    let seed = (u64::from(choices.u32()) << 32) | u64::from(choices.u32());
    let mut rng = Rng::new(seed);
    match tree {
        0 => eip7864_store::<Sha256>(&mut rng, &mut choices),
        1 => eip7864_store::<Blake3>(&mut rng, &mut choices),
        _ => eip8297_store(&mut rng, &mut choices),
    }
}

/// Edits `records` as the input chooses (up to 8 edits, fewer once no record is left);
/// returns how many it made.
fn corrupt(records: &mut Records, choices: &mut Choices<'_>) -> usize {
    let mut made = 0;
    for _ in 0..choices.below(9) {
        let positions: Vec<Vec<u8>> = records.0.keys().cloned().collect();
        let Some(at) = positions.get(choices.below(positions.len().max(1))) else {
            break;
        };
        made += 1;
        let other = positions
            .get(choices.below(positions.len()))
            .cloned()
            .unwrap_or_default();
        let Some(record) = records.0.get_mut(at) else {
            continue;
        };
        match choices.below(6) {
            0 => {
                let i = choices.below(record.len().max(1));
                if let Some(b) = record.get_mut(i) {
                    *b ^= choices.byte() | 1;
                }
            }
            1 => record.truncate(choices.below(record.len().max(1))),
            2 => record.extend(core::iter::repeat_n(choices.byte(), 1 + choices.below(40))),
            3 => {
                records.0.remove(at);
            }
            4 => {
                let (a, b) = (records.0.get(at).cloned(), records.0.get(&other).cloned());
                if let (Some(a), Some(b)) = (a, b) {
                    records.0.insert(at.clone(), b);
                    records.0.insert(other, a);
                }
            }
            _ => {
                if let Some(b) = records.0.get(&other).cloned() {
                    records.0.insert(at.clone(), b);
                }
            }
        }
    }
    made
}

/// Notes an answer: the honest one counts as answered, a store error as failed; anything
/// else, or a failure of an unedited store, breaks the invariant.
fn check<T: PartialEq + core::fmt::Debug>(
    outcome: &mut Outcome,
    what: &str,
    got: Result<T, StoreError<Infallible>>,
    honest: &T,
) {
    match got {
        Ok(got) => {
            assert_eq!(&got, honest, "{what}: a corrupt store changed the answer");
            outcome.answered += 1;
        }
        Err(e) => {
            assert!(outcome.edits > 0, "{what}: an honest store failed: {e}");
            outcome.failed += 1;
        }
    }
}

fn eip7864_store<H: TreeHash + Clone>(rng: &mut Rng, choices: &mut Choices<'_>) -> Outcome {
    let mut stems: Vec<[u8; 31]> = Vec::new();
    let mut entries: Vec<([u8; 32], [u8; 32])> = Vec::new();
    for _ in 0..1 + rng.below(30) {
        let stem = match stems.get(rng.below(stems.len().max(1))) {
            Some(base) if rng.below(2) == 0 => near(base, rng.below(248), rng),
            _ => rng.bytes(),
        };
        stems.push(stem);
        for _ in 0..1 + rng.below(4) {
            entries.push((key(&stem, rng.next_u64() as u8), rng.bytes()));
        }
    }
    let mut memory = eip7864::Tree::<H>::new();
    memory.apply(entries.iter().copied()).expect("32-byte keys");
    let root = memory.root();
    let mut writer = eip7864::StoredTree::<H>::new();
    writer
        .apply(&Records::default(), entries.iter().copied())
        .expect("a new tree loads nothing");
    let changes = writer.changes();
    assert_eq!(changes.root, root, "the stored tree's root is the tree's");
    let mut records = Records(changes.puts.into_iter().collect());

    let mut block: Vec<([u8; 32], Write)> = Vec::new();
    for _ in 0..1 + rng.below(8) {
        let k = match (rng.below(3), stems.get(rng.below(stems.len()))) {
            (0, Some(stem)) => key(stem, rng.next_u64() as u8),
            (1, Some(stem)) => key(&near(stem, rng.below(248), rng), rng.next_u64() as u8),
            _ => key(&rng.bytes(), rng.next_u64() as u8),
        };
        if block.iter().all(|(b, _)| *b != k) {
            let w = if rng.below(2) == 0 {
                Write::Unchanged
            } else {
                Write::Set(rng.bytes())
            };
            block.push((k, w));
        }
    }
    let honest_witness = memory.clone().witness(&block).expect("a valid block");
    let sets: Vec<([u8; 32], [u8; 32])> = block
        .iter()
        .filter_map(|(k, w)| match w {
            Write::Set(v) => Some((*k, *v)),
            _ => None,
        })
        .collect();
    let mut after = memory.clone();
    after.apply(sets.iter().copied()).expect("32-byte keys");
    let honest_after = after.root();

    let mut outcome = Outcome {
        edits: corrupt(&mut records, choices),
        ..Outcome::default()
    };
    let open = || eip7864::StoredTree::<H>::open(root, entries.len() as u64);
    let mut reader = open();
    let probes =
        (entries.iter().take(4).map(|(k, _)| k)).chain(block.iter().take(4).map(|(k, _)| k));
    for k in probes {
        let got = reader.get(&records, k);
        check(&mut outcome, "get", got, &memory.get(k).copied());
    }
    let got = open().witness(&records, &block);
    check(&mut outcome, "witness", got, &honest_witness);
    let mut applied = open();
    let got = applied
        .apply(&records, sets.iter().copied())
        .map(|()| applied.root());
    check(&mut outcome, "apply", got, &honest_after);
    outcome
}

fn eip8297_store(rng: &mut Rng, choices: &mut Choices<'_>) -> Outcome {
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for _ in 0..1 + rng.below(40) {
        let base = keys.get(rng.below(keys.len().max(1))).cloned();
        let near_base = rng.below(2) == 0;
        let k = random_key(rng, base.as_deref().filter(|_| near_base));
        // Prefix-free: a key that is a prefix of another, or has one, is left out.
        if keys.iter().all(|o| !o.starts_with(&k) && !k.starts_with(o)) {
            keys.push(k);
        }
    }
    let entries: Vec<(Vec<u8>, Option<[u8; 32]>)> = keys
        .iter()
        .map(|k| (k.clone(), Some(rng.bytes())))
        .collect();
    let mut memory = eip8297::Tree::<Blake3>::new();
    memory
        .apply(entries.iter().cloned())
        .expect("prefix-free keys");
    let root = memory.root();
    let mut writer = eip8297::StoredTree::<Blake3>::new();
    writer
        .apply(&Records::default(), entries.iter().cloned())
        .expect("a new tree loads nothing");
    let changes = writer.changes();
    assert_eq!(changes.root, root, "the stored tree's root is the tree's");
    let mut records = Records(changes.puts.into_iter().collect());

    let mut block: Vec<(Vec<u8>, Write)> = Vec::new();
    for _ in 0..1 + rng.below(8) {
        let k = match (rng.below(3), keys.get(rng.below(keys.len()))) {
            (0, Some(k)) => k.clone(),
            (1, Some(k)) => random_key(rng, Some(k)),
            _ => random_key(rng, None),
        };
        let fits = keys
            .iter()
            .all(|o| *o == k || (!o.starts_with(&k) && !k.starts_with(o)));
        if fits && block.iter().all(|(b, _)| *b != k) {
            let present = memory.get(&k).is_some();
            let w = match rng.below(3) {
                0 => Write::Unchanged,
                1 if present => Write::Delete,
                _ => Write::Set(rng.bytes()),
            };
            block.push((k, w));
        }
    }
    let honest_witness = memory.clone().witness(&block).expect("a valid block");
    let writes: Vec<(Vec<u8>, Option<[u8; 32]>)> = block
        .iter()
        .filter_map(|(k, w)| match w {
            Write::Set(v) => Some((k.clone(), Some(*v))),
            Write::Delete => Some((k.clone(), None)),
            Write::Unchanged => None,
        })
        .collect();
    let mut after = memory.clone();
    after
        .apply(writes.iter().cloned())
        .expect("prefix-free keys");
    let honest_after = after.root();

    let mut outcome = Outcome {
        edits: corrupt(&mut records, choices),
        ..Outcome::default()
    };
    let open = || eip8297::StoredTree::<Blake3>::open(root, entries.len() as u64);
    let mut reader = open();
    for k in keys
        .iter()
        .take(4)
        .chain(block.iter().map(|(k, _)| k).take(4))
    {
        let got = reader.get(&records, k);
        check(&mut outcome, "get", got, &memory.get(k).copied());
    }
    let got = open().witness(&records, &block);
    check(&mut outcome, "witness", got, &honest_witness);
    let mut applied = open();
    let got = applied
        .apply(&records, writes.iter().cloned())
        .map(|()| applied.root());
    check(&mut outcome, "apply", got, &honest_after);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs from a counter: both trees, stores left honest and stores edited, reads that
    /// answer and reads that fail; no answer differs from the honest tree's.
    #[test]
    fn a_corrupt_store_fails_reads_and_never_changes_an_answer() {
        let mut total = Outcome::default();
        let mut rng = Rng::new(8);
        for i in 0..600u32 {
            let mut data: Vec<u8> = (0..64).map(|_| rng.next_u64() as u8).collect();
            data[0] = (i % 3) as u8;
            if i % 5 == 0 {
                // No edits: the ninth byte after the seed picks the edit count.
                data[9] = 0;
            }
            let o = binary_store(&data);
            total.edits += o.edits;
            total.answered += o.answered;
            total.failed += o.failed;
        }
        assert!(total.edits > 500, "{total:?}");
        assert!(total.answered > 1000, "{total:?}");
        assert!(total.failed > 100, "{total:?}");
    }
}
