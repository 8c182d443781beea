//! Fuzzes a standard witness's suffix diffs as a hostile prover edits them (new values,
//! current values, suffix diffs added and removed), its multiproof proven again where the
//! edited openings are true: whatever verifies makes only true claims, its post-state root
//! the true tree's after its writes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = verkle::fuzz::post_state::post_state(data);
});
