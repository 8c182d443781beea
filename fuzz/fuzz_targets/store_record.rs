//! Fuzzes the node-record decoder (database contents are untrusted): never panics, and
//! whatever decodes re-encodes to a record that decodes to the same node.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = verkle::fuzz::store_record(data);
});
