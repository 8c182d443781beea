//! Writes hostile witnesses to a directory, to run the CLI on them by hand
//! (`RELIABILITY.md` has the commands and figures):
//!
//! - `identity_internal_node.json`, `leaf_posing_as_internal.json` (`spec/WIRE.md` §6.6),
//!   with their pre-state roots in `roots.txt`;
//! - `two_million_commitments.ssz`: one stem and 2,000,000 valid commitments (about 64 MB),
//!   which the verifier refuses on its commitment count before decompressing a point.
//!
//! `cargo run --release -p witness --example hostile_files -- DIR`
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::path::PathBuf;

use witness::hostile::{identity_internal_node, leaf_posing_as_internal, many_commitments};

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut roots = String::new();
    for (name, h) in [
        ("identity_internal_node", identity_internal_node()),
        ("leaf_posing_as_internal", leaf_posing_as_internal(2)),
    ] {
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, h.witness.to_witness().unwrap().to_json_string()).unwrap();
        writeln!(roots, "{name} 0x{}", hex::encode(h.pre_state_root)).unwrap();
    }
    std::fs::write(dir.join("roots.txt"), roots).unwrap();

    let bomb = many_commitments(2_000_000);
    std::fs::write(
        dir.join("two_million_commitments.ssz"),
        bomb.to_ssz().unwrap(),
    )
    .unwrap();
    println!("wrote {}", dir.display());
}
