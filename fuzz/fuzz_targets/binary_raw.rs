//! Fuzzes binary-witness decoding and verification: a 32-byte pre-state root then a witness,
//! read as each tree and hash; what decodes has counts consistent with its bytes, and what
//! verifies without writes keeps its root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bintree::fuzz::raw::binary_raw(data);
});
