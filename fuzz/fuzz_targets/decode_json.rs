//! Fuzzes the JSON reader: never panics, and whatever reads round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| witness::fuzz::json(data));
