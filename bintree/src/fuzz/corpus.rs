//! Inputs for the tests that run the fuzz bodies: a target's corpus kept in the repository
//! (`fuzz/corpus/<target>/`, minimised by `cargo fuzz cmin`), then seeded inputs.

use std::path::PathBuf;
use std::vec::Vec;

use super::rng::Rng;

/// The corpus directory of `target` in this repository.
pub fn dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target)
}

/// The files of `target`'s committed corpus (none when the directory is missing), then
/// `seeded` inputs of 0 to `max_len` bytes drawn from a fixed seed.
pub fn inputs(target: &str, seeded: usize, max_len: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir(target)) {
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        out.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    let mut rng = Rng::new(0x5eed);
    for _ in 0..seeded {
        let len = rng.below(max_len + 1);
        out.push((0..len).map(|_| rng.next_u64() as u8).collect());
    }
    out
}
