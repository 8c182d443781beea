//! Properties: random witnesses round-trip through SSZ and JSON; mutated real witnesses and
//! random bytes never make the decoders panic (the fuzz targets' bodies, run here).

use proptest::array::{uniform31, uniform32};
use proptest::collection::vec;
use proptest::prelude::*;
use std::sync::OnceLock;
use witness::{
    fuzz,
    owned::{
        OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
        OwnedVerkleProof,
    },
    ExecutionWitness,
};

use crate::common::real_witnesses;

fn point() -> impl Strategy<Value = [u8; 32]> {
    uniform32(any::<u8>())
}

fn suffix_diff() -> impl Strategy<Value = OwnedSuffixStateDiff> {
    (
        any::<u8>(),
        proptest::option::of(point()),
        proptest::option::of(point()),
    )
        .prop_map(|(suffix, current_value, new_value)| OwnedSuffixStateDiff {
            suffix,
            current_value,
            new_value,
        })
}

fn owned_witness() -> impl Strategy<Value = OwnedExecutionWitness> {
    let stem_diff = (uniform31(any::<u8>()), vec(suffix_diff(), 0..6))
        .prop_map(|(stem, suffix_diffs)| OwnedStemStateDiff { stem, suffix_diffs });
    let proof = (
        vec(uniform31(any::<u8>()), 0..4),
        vec(any::<u8>(), 0..8),
        vec(point(), 0..6),
        point(),
        uniform8(point()),
        uniform8(point()),
        point(),
    )
        .prop_map(
            |(other_stems, ext, comms, d, cl, cr, fe)| OwnedVerkleProof {
                other_stems,
                depth_extension_present: ext,
                commitments_by_path: comms,
                d,
                ipa_proof: OwnedIpaProof {
                    cl,
                    cr,
                    final_evaluation: fe,
                },
            },
        );
    (vec(stem_diff, 0..8), proof).prop_map(|(state_diff, verkle_proof)| OwnedExecutionWitness {
        state_diff,
        verkle_proof,
    })
}

fn uniform8(p: impl Strategy<Value = [u8; 32]>) -> impl Strategy<Value = [[u8; 32]; 8]> {
    proptest::array::uniform8(p)
}

/// SSZ encodings of every real witness, computed once.
fn real_ssz() -> &'static [Vec<u8>] {
    static CELL: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CELL.get_or_init(|| {
        real_witnesses()
            .into_iter()
            .map(|(_, w)| w.as_ssz().to_vec())
            .collect()
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    FlipBit {
        at: usize,
        bit: u8,
    },
    Truncate {
        len: usize,
    },
    Duplicate {
        start: usize,
        len: usize,
        insert_at: usize,
    },
    Delete {
        start: usize,
        len: usize,
    },
    SetU32 {
        at: usize,
        value: u32,
    },
    SwapRegions {
        a: usize,
        b: usize,
        len: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let pos = any::<prop::sample::Index>();
    prop_oneof![
        (pos.clone(), 0u8..8).prop_map(|(i, bit)| Mutation::FlipBit {
            at: i.index(usize::MAX),
            bit
        }),
        pos.clone().prop_map(|i| Mutation::Truncate {
            len: i.index(usize::MAX)
        }),
        (pos.clone(), 1usize..200, pos.clone()).prop_map(|(s, len, at)| Mutation::Duplicate {
            start: s.index(usize::MAX),
            len,
            insert_at: at.index(usize::MAX),
        }),
        (pos.clone(), 1usize..100).prop_map(|(s, len)| Mutation::Delete {
            start: s.index(usize::MAX),
            len
        }),
        (pos.clone(), prop_oneof![any::<u32>(), 0u32..2048]).prop_map(|(i, value)| {
            Mutation::SetU32 {
                at: i.index(usize::MAX),
                value,
            }
        }),
        (pos.clone(), pos, 1usize..64).prop_map(|(a, b, len)| Mutation::SwapRegions {
            a: a.index(usize::MAX),
            b: b.index(usize::MAX),
            len,
        }),
    ]
}

/// Applies `m` to `bytes`, reducing every position modulo the length.
fn apply(m: &Mutation, mut bytes: Vec<u8>) -> Vec<u8> {
    let n = bytes.len().max(1);
    match *m {
        Mutation::FlipBit { at, bit } => {
            if let Some(b) = bytes.get_mut(at % n) {
                *b ^= 1 << bit;
            }
        }
        Mutation::Truncate { len } => bytes.truncate(len % n),
        Mutation::Duplicate {
            start,
            len,
            insert_at,
        } => {
            let s = start % n;
            let e = (s + len).min(bytes.len());
            let region = bytes.get(s..e).unwrap_or_default().to_vec();
            let at = (insert_at % n).min(bytes.len());
            bytes.splice(at..at, region);
        }
        Mutation::Delete { start, len } => {
            let s = (start % n).min(bytes.len());
            let e = (s + len).min(bytes.len());
            bytes.drain(s..e);
        }
        Mutation::SetU32 { at, value } => {
            let at = at % n;
            if let Some(slot) = bytes.get_mut(at..at + 4) {
                slot.copy_from_slice(&value.to_le_bytes());
            }
        }
        Mutation::SwapRegions { a, b, len } => {
            let (a, b) = ((a % n).min(b % n), (a % n).max(b % n));
            let len = len.min(b - a).min(bytes.len().saturating_sub(b));
            if len > 0 {
                let (left, right) = bytes.split_at_mut(b);
                left[a..a + len].swap_with_slice(&mut right[..len]);
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_witnesses_round_trip_through_ssz_and_json(w in owned_witness()) {
        let bytes = w.to_ssz().unwrap();
        let decoded = ExecutionWitness::from_ssz(bytes.clone().into()).unwrap();
        prop_assert_eq!(decoded.as_ssz().as_ref(), &bytes[..]);
        prop_assert_eq!(&decoded.to_owned_witness(), &w);
        let json = decoded.to_json_value();
        prop_assert_eq!(&OwnedExecutionWitness::from_json_witness(&json).unwrap(), &w);
        fuzz::ssz(&bytes);
        fuzz::json(decoded.to_json_string().as_bytes());
    }

    #[test]
    fn mutated_real_witnesses_never_panic(
        which in any::<prop::sample::Index>(),
        mutations in vec(mutation(), 1..4),
    ) {
        let all = real_ssz();
        let original = &all[which.index(all.len())];
        let mut bytes = original.clone();
        for m in &mutations {
            bytes = apply(m, bytes);
        }
        // Never panics; whatever decodes re-encodes to the same bytes (checked inside).
        fuzz::ssz(&bytes);
        if let Ok(w) = ExecutionWitness::from_ssz_slice(&bytes) {
            prop_assert_eq!(w.as_ssz().as_ref(), &bytes[..]);
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..2048)) {
        fuzz::ssz(&bytes);
        fuzz::json(&bytes);
    }

    #[test]
    fn random_json_never_panics(text in "[\\[\\]{}\":,0-9a-fx ]{0,300}|\\{\"stateDiff\":.{0,200}") {
        fuzz::json(text.as_bytes());
    }
}

#[test]
fn truncating_real_witnesses_at_every_fixed_part_boundary_fails() {
    // A cut inside the 8-byte header or the 588-byte proof header can never decode.
    for bytes in real_ssz().iter().take(10) {
        for len in 0..8 {
            assert!(
                ExecutionWitness::from_ssz_slice(&bytes[..len]).is_err(),
                "len {len}"
            );
        }
        let mut cut = bytes.clone();
        cut.truncate(bytes.len() - 1);
        fuzz::ssz(&cut);
    }
}
