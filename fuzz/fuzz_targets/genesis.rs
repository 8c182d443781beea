//! Fuzzes the genesis importers: the one-shot and the streaming `alloc` parsers in both
//! layouts, and the `tree_key,value` CSV reader; never panic, and agree where they must.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = genesis::fuzz::genesis(data);
});
