//! Fuzzes the binary witnesses (EIP-7864 over SHA-256 and BLAKE3, EIP-8297 over BLAKE3) as a
//! hostile prover edits an honest one (bytes, counts, and the sections' keys, flags, values,
//! end records, prefix lengths, other records, bitmap and hashes): whatever verifies against
//! the honest pre-state root claims only the tree's values and the tree's own post-state root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bintree::fuzz::edits::binary_witness(data);
});
