//! The verdict of a block's witness, reached ahead of the block by the read-ahead
//! ([`crate::pipeline`]) and used by the replayer when its root is the state's.

use std::time::Instant;

/// The verdict of a block's witness against a pre-state root, reached ahead of the block:
/// against the root the export claims before it (its `parentStateRoot`, else the block
/// before's `stateRoot`), while the block before is still being applied.
#[derive(Clone, Debug)]
pub struct EarlyVerdict {
    /// The root the witness was verified against.
    pub root: [u8; 32],
    /// `Ok`, or why it does not verify.
    pub result: Result<(), String>,
    /// Microseconds the verification took.
    pub us: u64,
}

impl EarlyVerdict {
    /// Whether `witness` verifies against `root`.
    pub fn verify(root: &[u8; 32], witness: &witness::ExecutionWitness) -> Result<(), String> {
        witness::verify(root, witness)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Verifies each witness against its root now, together ([`witness::verify_batch`]:
    /// the same verdicts, and errors, as one by one). Each verdict's time is its share of
    /// the batch's.
    pub fn of_batch(items: &[([u8; 32], &witness::ExecutionWitness)]) -> Vec<EarlyVerdict> {
        let t = Instant::now();
        let refs: Vec<(&[u8; 32], &witness::ExecutionWitness)> =
            items.iter().map(|(r, w)| (r, *w)).collect();
        let results = witness::verify_batch(&refs);
        let us = t.elapsed().as_micros() as u64 / items.len().max(1) as u64;
        items
            .iter()
            .zip(results)
            .map(|((root, _), result)| EarlyVerdict {
                root: *root,
                result: result.map(drop).map_err(|e| e.to_string()),
                us,
            })
            .collect()
    }
}
