//! Times the stages of `witness::verify` on synthetic witnesses shaped like the
//! `verify witness N openings` bench (`verkle/benches/witness_openings.rs`): the first `k`
//! keys of a 100k-key tree of keys `SHA-256(u32_be(i) ‖ 28 zero bytes ‖ "seed")`, each key
//! present with its own stem, leaves at the depth the whole tree puts them.
//!
//! The commitments and the proof are valid Banderwagon points but not a real proof, so
//! verification does every step (decode, canonical checks, point decoding, opening rebuild,
//! the multiproof check) and then rejects; it costs what an accepted witness costs.
//!
//! `cargo run --release -p tools --example synthetic_verify -- [KEYS...]`
//! (default 128 2320 19228: the key counts of the bench's 1k, 16k and 128k witnesses, which
//! hold 970, 15,992 and 128,159 openings).
//! Prints the best of `$REPS` (default 3) runs of each stage; with `VERIFY_ONLY` set it skips
//! the single-threaded decompression timing (for profiling `verify` alone).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;
use std::time::Instant;

use banderwagon::Element;
use bytes::Bytes;
use sha2::{Digest, Sha256};
use witness::{
    canonical::check_canonical,
    owned::{
        OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
        OwnedVerkleProof,
    },
    ExecutionWitness, VerifyError,
};

#[path = "../../banderwagon/benches/support/field_env.rs"]
mod field_env;

const STATE_KEYS: u32 = 100_000;

fn initial_key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}

fn lcp(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `n` distinct valid point encodings: multiples of the generator.
fn points(n: usize) -> Vec<[u8; 32]> {
    let g = Element::generator();
    let step = g.double() + g;
    let mut p = g;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(p);
        p += step;
    }
    Element::batch_to_bytes(&out)
}

/// The synthetic witness for the first `k` keys, and its root.
fn synthetic(k: u32) -> ([u8; 32], OwnedExecutionWitness) {
    let mut all: Vec<[u8; 31]> = (0..STATE_KEYS)
        .map(|i| initial_key(i)[..31].try_into().unwrap())
        .collect();
    all.sort_unstable();
    let mut keys: Vec<[u8; 32]> = (0..k).map(initial_key).collect();
    keys.sort_unstable();
    let mut paths: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut state_diff = Vec::new();
    let mut ext = Vec::new();
    for key in &keys {
        let stem: [u8; 31] = key[..31].try_into().unwrap();
        let at = all.binary_search(&stem).unwrap();
        let mut depth = 1;
        if at > 0 {
            depth = depth.max(lcp(&all[at - 1], &stem) + 1);
        }
        if at + 1 < all.len() {
            depth = depth.max(lcp(&all[at + 1], &stem) + 1);
        }
        for d in 1..=depth {
            paths.insert(stem[..d].to_vec());
        }
        let mut suffix_tree = stem[..depth].to_vec();
        suffix_tree.push(if key[31] < 128 { 2 } else { 3 });
        paths.insert(suffix_tree);
        ext.push(((depth as u8) << 3) | 2);
        state_diff.push(OwnedStemStateDiff {
            stem,
            suffix_diffs: vec![OwnedSuffixStateDiff {
                suffix: key[31],
                current_value: Some(*key),
                new_value: None,
            }],
        });
    }
    let pts = points(paths.len() + 1 + 17);
    let root = pts[0];
    let commitments_by_path = pts[1..=paths.len()].to_vec();
    let proof_pts = &pts[paths.len() + 1..];
    let mut cl = [[0u8; 32]; 8];
    let mut cr = [[0u8; 32]; 8];
    cl.copy_from_slice(&proof_pts[1..9]);
    cr.copy_from_slice(&proof_pts[9..17]);
    let w = OwnedExecutionWitness {
        state_diff,
        verkle_proof: OwnedVerkleProof {
            other_stems: Vec::new(),
            depth_extension_present: ext,
            commitments_by_path,
            d: proof_pts[0],
            ipa_proof: OwnedIpaProof {
                cl,
                cr,
                final_evaluation: [1; 32],
            },
        },
    };
    (root, w)
}

fn main() {
    field_env::field_backend_from_env();
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("key count"))
        .collect();
    let counts = if args.is_empty() {
        vec![128, 2320, 19228]
    } else {
        args
    };
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    for k in counts {
        let (root, owned) = synthetic(k);
        let ssz = Bytes::from(owned.to_ssz().unwrap());
        let n_points = owned.verkle_proof.commitments_by_path.len();
        let mut best = [f64::MAX; 5];
        // Every non-root node is opened in its parent; a leaf also at 0 and 1; a key twice.
        let openings = n_points + 4 * k as usize;
        for _ in 0..reps {
            let t = Instant::now();
            let w = ExecutionWitness::from_ssz(ssz.clone()).unwrap();
            let t_decode = t.elapsed().as_secs_f64();
            let t = Instant::now();
            check_canonical(&w).unwrap();
            let t_canon = t.elapsed().as_secs_f64();
            let verify_only = std::env::var_os("VERIFY_ONLY").is_some();
            let t = Instant::now();
            let els: Vec<Element> = if verify_only {
                Vec::new()
            } else {
                w.verkle_proof()
                    .commitments_by_path()
                    .iter()
                    .map(|c| Element::from_bytes(c).unwrap())
                    .collect()
            };
            let t_points = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let f = Element::batch_map_to_scalar_field(&els);
            std::hint::black_box(f);
            let t_map = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let r = witness::verify(&root, &w);
            let t_verify = t.elapsed().as_secs_f64();
            assert!(matches!(r, Err(VerifyError::ProofRejected)), "{r:?}");
            for (b, v) in best
                .iter_mut()
                .zip([t_decode, t_canon, t_points, t_map, t_verify])
            {
                *b = b.min(v);
            }
        }
        println!(
            "keys {k}: {openings} openings, {} commitments, {} bytes SSZ | decode {:.3} ms, canonical {:.3} ms, \
             from_bytes (1 thread) {:.1} ms, batch map {:.3} ms | verify (to reject) {:.1} ms",
            n_points,
            ssz.len(),
            best[0] * 1e3,
            best[1] * 1e3,
            best[2] * 1e3,
            best[3] * 1e3,
            best[4] * 1e3
        );
    }
}
