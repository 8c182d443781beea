//! Inputs for the tests that run the structure-aware targets' bodies: the target's corpus
//! kept in the repository (`fuzz/corpus/<target>/`, minimised by `cargo fuzz cmin`) and a
//! number of seeded inputs of every length up to 64 bytes.

use std::path::PathBuf;

use super::choices::mix;

/// The corpus directory of `target` in this repository.
pub fn dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target)
}

/// The files of `target`'s committed corpus (none when the directory is missing), then
/// `seeded` inputs drawn from a fixed seed.
pub fn inputs(target: &str, seeded: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir(target)) {
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        out.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    let mut x = 0x5eed_u64;
    for i in 0..seeded {
        let len = i % 65;
        out.push(
            (0..len)
                .map(|_| {
                    x = mix(x);
                    x as u8
                })
                .collect(),
        );
    }
    out
}
