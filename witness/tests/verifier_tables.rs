//! A verifier builds no prover tables: `witness::verify` and the post-state root use the CRS
//! and its small verifier table only, never the Committer's (≈ 134 MiB). Alone in its
//! own test binary so that no other test in the process builds the Committer first.

#[allow(dead_code)]
#[path = "witness/common.rs"]
mod common;

fn hex32(s: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    hex::decode_to_slice(s.trim_start_matches("0x"), &mut out).expect("32-byte hex");
    out
}

#[test]
fn verify_and_post_state_root_build_no_committer() {
    let text = common::read_text("witness/valid_block_72.json");
    let w = witness::ExecutionWitness::from_json_str(&text).expect("decodes");
    let root = hex32("0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510");
    let proven = witness::verify(&root, &w).expect("valid against its parent root");
    assert!(!proven.keys().is_empty());
    let _ = proven.post_state_root().expect("post-state root");
    // A second verification takes the path that uses the CRS's verifier table.
    witness::verify(&root, &w).expect("valid again");
    assert!(
        ipa::Committer::eip6800_if_built().is_none(),
        "verification built the prover's Committer tables"
    );
    // The check itself can fail: building the committer is seen.
    let _ = ipa::Committer::eip6800();
    assert!(ipa::Committer::eip6800_if_built().is_some());
}
