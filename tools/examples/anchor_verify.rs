//! The same fractional proof verified against each anchor, alternating, in one process:
//! `anchor_verify [state keys] [proved keys] [rounds]` (defaults 100,000, 10,000, 3) builds
//! an in-memory sharded tree of state keys `SHA-256(u32_be(i) ‖ 28 zero bytes ‖ "seed")` (as
//! the fractional bench does), proves the first keys with the coordinator path, and prints
//! the decode and verify times of each round under the state root and the coordinator root.
#![allow(missing_docs, clippy::unwrap_used)]
use bytes::Bytes;
use fractional::{ShardConfig, ShardedTree};
use sha2::{Digest, Sha256};
use witness::fractional::{verify_fractional, Anchor, FractionalProof};
fn key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}
fn arg(i: usize, default: u32) -> u32 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let (state, proved, rounds) = (arg(1, 100_000), arg(2, 10_000), arg(3, 3));
    let mut t = ShardedTree::in_memory(ShardConfig::default());
    let writes: Vec<_> = (0..state).map(|i| (key(i), Some(key(i)))).collect();
    t.apply(&writes).unwrap();
    let keys: Vec<_> = (0..proved).map(|i| (key(i), None)).collect();
    let p = t.prove_fractional(&keys, true).unwrap().to_bytes().unwrap();
    let b = Bytes::from(p);
    for round in 0..rounds {
        for (name, a) in [
            ("state", Anchor::StateRoot(t.canonical_root())),
            ("coord", Anchor::CoordinatorRoot(t.coordinator_root())),
        ] {
            let s = std::time::Instant::now();
            let proof = FractionalProof::from_bytes(b.clone()).unwrap();
            let d0 = s.elapsed();
            let v = verify_fractional(&proof, &a).unwrap();
            let d1 = s.elapsed();
            drop(v);
            let d2 = s.elapsed();
            println!(
                "round {round} {name}: decode {:?} verify {:?} drop {:?}",
                d0,
                d1 - d0,
                d2 - d1
            );
        }
    }
}
