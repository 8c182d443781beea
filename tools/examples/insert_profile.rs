//! Times `apply` and `commit` of 10k-key blocks into a growing in-memory tree (for profiling).
//!
//! ```text
//! cargo run --release -p tools --example insert_profile -- [initial keys] [blocks] [fresh]
//! ```
//!
//! The committer's tables are built before the first block (so a profiler started with a
//! delay sees only the blocks). With `fresh`, every block goes into a new empty tree.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use verkle::Tree;

#[path = "../../verkle/benches/support/keys.rs"]
mod keys;
use keys::{block_key, initial_key};

fn main() {
    let mut args = std::env::args().skip(1);
    let initial: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let blocks: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let fresh = args.next().as_deref() == Some("fresh");
    let s = Instant::now();
    let _ = ipa::Committer::eip6800();
    eprintln!("tables built in {:?}", s.elapsed());
    let mut t = Tree::new();
    t.apply((0..initial).map(|i| {
        let k = initial_key(i);
        (k, Some(k))
    }))
    .unwrap();
    t.commit();
    for b in 0..blocks {
        let keys: Vec<[u8; 32]> = (b * 10_000..(b + 1) * 10_000).map(block_key).collect();
        if fresh {
            t = Tree::new();
        }
        let s = Instant::now();
        t.apply(keys.iter().map(|k| (*k, Some(*k)))).unwrap();
        let a = s.elapsed();
        t.commit();
        println!(
            "block {b}: apply {:?} commit {:?} total {:?}",
            a,
            s.elapsed() - a,
            s.elapsed()
        );
    }
    println!("{:?}", t.stats());
}
