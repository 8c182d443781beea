//! Fuzzes the binary stored trees over a corrupted node store: an honest state of each tree
//! written as its node records, the records edited by the input; every read, witness and
//! batch over them fails with a store error or gives the honest tree's answer.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bintree::fuzz::store::binary_store(data);
});
