//! The README's Rust light-client example is this crate's code: the first ```rust block of
//! README.md is, line for line, the body of `example` below (between its markers), which runs
//! here on a real Kaustinen6 block.

use crate::verify::chain;

/// The README's example, with the names it uses bound to a block.
#[rustfmt::skip]
fn example(text: String, parent_state_root: [u8; 32], state_root: [u8; 32]) -> Result<(), witness::WitnessError> {
    // README example begins
    let witness = witness::ExecutionWitness::from_json_str(&text)?; // or ::from_ssz(bytes)
    let proven = witness::verify(&parent_state_root, &witness)?;    // Err: rejected, with why
    assert_eq!(proven.unbound_absences(), 0);                        // see "What verify proves"
    proven.check_post_state_root(&state_root)?;                      // root from the witness alone
    for key in proven.keys() { println!("{:02x?} = {:02x?}", key.key(), key.current_value); }
    // README example ends
    Ok(())
}

#[test]
fn readme_rust_example_is_this_code_and_runs() {
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let readme = std::fs::read_to_string(readme_path).expect("README.md beside the workspace");
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .expect("README.md has a ```rust block");
    let here = include_str!("readme.rs");
    let ours: String = here
        .split("// README example begins\n")
        .nth(1)
        .and_then(|rest| rest.split("    // README example ends").next())
        .expect("markers")
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
        .collect();
    assert_eq!(block, ours, "README's example and this test's code differ");

    let b = &chain()[4];
    let text = b.witness.to_json_string();
    example(text.clone(), b.parent_state_root, b.state_root).expect("the example on block 5");
    // The same lines refuse the witness against another root.
    assert!(example(text, chain()[5].parent_state_root, b.state_root).is_err());
}
