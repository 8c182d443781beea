//! Fuzzes fractional proofs structurally: stems dropped, duplicated and reordered, suffixes,
//! presence and deletion bits, commitments, internal witnesses and coordinator siblings
//! edited in an honest proof, its multiproof proven again where the edited openings are
//! true; whatever verifies under the canonical root or the coordinator root makes only true
//! claims, its post-state roots the true sharded tree's after its writes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = fractional::fuzz::fractional_edits(data);
});
