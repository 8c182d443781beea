//! Fuzzes the SSZ decoder: never panics, and whatever decodes is canonical.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| witness::fuzz::ssz(data));
