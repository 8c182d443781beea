//! Fuzzes fractional proofs: a 32-byte coordinator root then a proof; whatever decodes is
//! canonical, and whatever verifies has ascending, findable keys.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = witness::fuzz::fractional(data);
});
