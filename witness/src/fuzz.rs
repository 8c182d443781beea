//! Bodies of the `witness/fuzz` targets, also run by this crate's property tests.
//!
//! Each takes arbitrary bytes and must never panic except on a broken invariant of this
//! crate (which is what the assertions below state).

use crate::{check_canonical, ExecutionWitness};

/// Decodes `data` as SSZ; when it decodes, checks that it is canonical (re-encoding gives
/// the same bytes), that JSON written from it reads back to the same witness, and exercises
/// every accessor.
///
/// # Panics
/// Only if one of those invariants breaks.
pub fn ssz(data: &[u8]) {
    let Ok(w) = ExecutionWitness::from_ssz_slice(data) else {
        return;
    };
    let reencoded = w.to_owned_witness().to_ssz();
    assert_eq!(
        reencoded.as_deref().ok(),
        Some(data),
        "decode then encode must give back the input bytes"
    );
    exercise(&w);
    let json = w.to_json_value();
    let back = ExecutionWitness::from_json_value(&json);
    assert_eq!(
        back.ok().as_ref(),
        Some(&w),
        "JSON round trip changed the witness"
    );
}

/// Reads `data` as a JSON document holding one witness; when it reads, checks that the JSON
/// written from it reads back to the same witness, and that its SSZ decodes to it.
///
/// # Panics
/// Only if one of those invariants breaks.
pub fn json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(w) = ExecutionWitness::from_json_str(text) else {
        return;
    };
    exercise(&w);
    let back = ExecutionWitness::from_json_str(&w.to_json_string());
    assert_eq!(
        back.ok().as_ref(),
        Some(&w),
        "JSON round trip changed the witness"
    );
    let again = ExecutionWitness::from_ssz(w.as_ssz().clone());
    assert_eq!(
        again.ok().as_ref(),
        Some(&w),
        "SSZ round trip changed the witness"
    );
}

/// Touches every view, so a bad index table would show.
fn exercise(w: &ExecutionWitness) {
    let _ = check_canonical(w);
    let mut diffs = 0usize;
    for s in w.state_diff() {
        for d in s.suffix_diffs {
            diffs += 1;
            let _ = (d.suffix, d.current_value, d.new_value);
        }
    }
    assert_eq!(diffs, w.state_diff().suffix_diff_count());
    let proof = w.verkle_proof();
    let multiproof = proof.multiproof_bytes();
    assert_eq!(multiproof.get(..32), Some(&proof.d()[..]));
    assert_eq!(
        proof.other_stems().iter().count(),
        proof.other_stems().len()
    );
    assert_eq!(
        proof.commitments_by_path().iter().count(),
        proof.commitments_by_path().len()
    );
}
