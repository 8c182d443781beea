//! Fuzzes fractional proofs: a 32-byte root then a proof; whatever decodes is canonical,
//! and whatever verifies against the root as a state root or as a coordinator root has
//! ascending, findable keys, every absence bound, and post-state roots.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = witness::fuzz::fractional(data);
});
