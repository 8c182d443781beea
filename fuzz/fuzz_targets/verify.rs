//! Fuzzes stateless verification: a 32-byte pre-state root then an SSZ witness; whatever
//! verifies has consistent proven keys and a post-state root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = witness::fuzz::verify(data);
});
