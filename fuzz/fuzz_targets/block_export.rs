//! Fuzzes the block-export reader of `fverkle replay` (documents, JSON Lines, beacon
//! dumps): never panics, and every block it reads is written and read back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = chain::fuzz::block_export(data);
});
