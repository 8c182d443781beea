//! Bodies of `fuzz/` targets, also run by this crate's tests: `store_record` (here, on the
//! records of a real tree) and, with the `fuzzing` feature, the structure-aware
//! `post_state::post_state` (edited suffix diffs of an honest witness, held to
//! the true tree by `witness::fuzz::oracle`).
//!
//! They take arbitrary bytes and must never panic except on a broken invariant (which is
//! what the assertions state).

#[cfg(feature = "fuzzing")]
pub mod choices;
#[cfg(feature = "fuzzing")]
pub mod corpus;
#[cfg(feature = "fuzzing")]
pub mod post_state;
#[cfg(feature = "fuzzing")]
pub mod prover;
#[cfg(feature = "fuzzing")]
pub mod state;

use crate::store::StoredNode;

/// Reads `data` as a stored node record; when it decodes, its encoding must decode to the
/// same node and re-encode to the same bytes. Returns whether it decoded.
///
/// # Panics
/// Only if that round trip changes the node or its bytes.
pub fn store_record(data: &[u8]) -> bool {
    let Ok(node) = StoredNode::from_bytes(data) else {
        return false;
    };
    let _ = (node.kind(), node.mtf());
    let bytes = node.to_bytes();
    let again = StoredNode::from_bytes(&bytes);
    assert_eq!(
        again.as_ref(),
        Ok(&node),
        "a re-encoded record decodes to its node"
    );
    if let Ok(again) = again {
        assert_eq!(again.to_bytes(), bytes, "encoding is stable");
    }
    assert_eq!(
        StoredNode::batch_to_bytes(std::slice::from_ref(&node)),
        [bytes],
        "batch encoding is the single encoding"
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tree;

    #[test]
    fn store_record_body_round_trips_a_trees_records() {
        let mut tree = Tree::new();
        for i in 0..300u32 {
            let mut key = [0u8; 32];
            key[..4].copy_from_slice(&i.wrapping_mul(2_654_435_761).to_be_bytes());
            key[31] = (i % 7) as u8 * 40;
            tree.insert(&key, [i as u8; 32]).unwrap();
        }
        tree.commit();
        tree.persist().unwrap();
        let records: Vec<Vec<u8>> = tree.store().records().map(|(_, r)| r.clone()).collect();
        assert!(records.len() > 300, "{} records", records.len());
        let mut decoded = 0;
        for r in &records {
            assert!(store_record(r), "a tree's record decodes");
            decoded += 1;
            // Cut and changed records never panic.
            for cut in [0, 1, r.len() / 2, r.len() - 1] {
                let _ = store_record(&r[..cut]);
            }
            let mut changed = r.clone();
            let at = r.len() / 3;
            changed[at] ^= 0x41;
            let _ = store_record(&changed);
        }
        assert_eq!(decoded, records.len());
    }
}
