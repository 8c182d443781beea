//! A 1M-key EIP-7864 tree on 250k stems, then rounds of 10k updates (7k changed values, 3k
//! new stems) to the new root, in `ubt` 0.5.1 (its fastest way: a full recompute) and in
//! `bintree` (batched apply, the root recomputed once over the written paths), on the same keys
//! with go-ethereum's SHA-256. Every root is compared between the two.
//!
//! Per round it prints both times, `bintree`'s hash count, the minimum hash count (one hash
//! per node on the union of the touched paths, read off the sorted stems), and the hash-time
//! floor (that count × one SHA-256 of 64 bytes by the tree's own hash, measured in the same run
//! on one core; the sha2 crate's incremental hasher is printed beside it).
//! `anchor-ubt eip8297 [ROUNDS]` runs a block of the shape of the EIP-8297 one in `cargo bench
//! -p bintree --bench tree` instead (BLAKE3; no ubt anchor), against its own hash floor.
//!
//! Run with `RAYON_NUM_THREADS=1` for the one-core figures. At the end it prints how much of
//! the process's memory the kernel backs with huge pages (`AnonHugePages`): none with the
//! system allocator on a kernel whose transparent huge pages are `madvise`, most of it with
//! `--features jemalloc` and `_RJEM_MALLOC_CONF=thp:always`.

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use bintree::{eip7864, Sha256, TreeHash};
use ubt::{Sha256Hasher, TreeKey, UnifiedBinaryTree, B256};

#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const SUBS: [u8; 4] = [0, 1, 64, 65];

/// splitmix64: a small deterministic generator, so both trees get the same keys.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for chunk in out.chunks_mut(8) {
            let word = self.next().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        out
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn key(stem: &[u8; 31], sub: u8) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..31].copy_from_slice(stem);
    key[31] = sub;
    key
}

fn bit(stem: &[u8; 31], i: usize) -> bool {
    stem[i / 8] >> (7 - i % 8) & 1 == 1
}

fn common_bits(a: &[u8; 31], b: &[u8; 31]) -> usize {
    (0..248).find(|&i| bit(a, i) != bit(b, i)).unwrap_or(248)
}

/// One hash per node on the union of the touched paths after the writes: the internal nodes
/// above each touched stem (a stem sits one level below its longest common prefix with its
/// neighbours in sorted order), the stem node, and in its 256-leaf subtree the written leaves
/// and the internal nodes above them.
fn minimum_hashes(all_stems: &[[u8; 31]], touched: &[([u8; 31], u8)]) -> u64 {
    let mut subs_of: std::collections::BTreeMap<[u8; 31], Vec<u8>> = Default::default();
    for (stem, sub) in touched {
        subs_of.entry(*stem).or_default().push(*sub);
    }
    let mut internal: HashSet<(usize, [u8; 31])> = HashSet::new();
    let mut count = 0u64;
    for (stem, subs) in &mut subs_of {
        let at = all_stems
            .binary_search(stem)
            .expect("touched stems are in the tree");
        let mut depth = 0;
        if at > 0 {
            depth = depth.max(common_bits(&all_stems[at - 1], stem) + 1);
        }
        if at + 1 < all_stems.len() {
            depth = depth.max(common_bits(&all_stems[at + 1], stem) + 1);
        }
        for len in 0..depth {
            let mut prefix = [0u8; 31];
            for i in 0..len {
                if bit(stem, i) {
                    prefix[i / 8] |= 0x80 >> (i % 8);
                }
            }
            internal.insert((len, prefix));
        }
        subs.sort_unstable();
        subs.dedup();
        // Stem node, leaves, and the subtree's internal nodes over the written sub-indices.
        count += 1 + subs.len() as u64;
        for level in 1..=8 {
            let mut parents: Vec<u16> = subs.iter().map(|&s| u16::from(s) >> level).collect();
            parents.dedup();
            count += parents.len() as u64;
        }
    }
    count + internal.len() as u64
}

/// One hash of `message` by the tree's own hash (the floor's unit), averaged over 2M calls.
fn hash_cost<H: TreeHash>(message: &[u8]) -> Duration {
    let n = 2_000_000u32;
    let start = Instant::now();
    for _ in 0..n {
        black_box(H::hash(&[black_box(message)]));
    }
    start.elapsed() / n
}

/// One SHA-256 of 64 bytes through the sha2 crate's incremental hasher (`Digest`), beside the
/// tree's own one-call path that [`hash_cost`] measures.
fn incremental_hash_cost() -> Duration {
    use sha2::Digest;
    let data = [0x5au8; 64];
    let n = 2_000_000u32;
    let start = Instant::now();
    for _ in 0..n {
        black_box(sha2::Sha256::digest(black_box(&data)));
    }
    start.elapsed() / n
}

/// A block of the shape of the EIP-8297 one in `cargo bench -p bintree --bench tree` (BLAKE3):
/// a tree of 1M 34-byte account-header keys of 250k accounts, then per round 5k changed
/// values, 2k deletes of present keys and 3k new accounts, to the new root; no `ubt` anchor
/// (ubt is EIP-7864), the hash floor (one BLAKE3 of a leaf's 67 bytes by the tree's own hash)
/// beside it.
fn eip8297_rounds(rounds: usize) {
    use bintree::{eip8297, Blake3};
    let key = |account: &[u8; 32], sub: u8| {
        let mut key = [0u8; 34];
        key[1..33].copy_from_slice(account);
        key[33] = sub;
        key
    };
    let mut rng = Rng(8297);
    let accounts: Vec<[u8; 32]> = (0..250_000).map(|_| rng.bytes()).collect();
    let mut present: Vec<[u8; 34]> = accounts
        .iter()
        .flat_map(|account| SUBS.map(|sub| key(account, sub)))
        .collect();
    let mut tree = eip8297::Tree::<Blake3>::new();
    let start = Instant::now();
    let initial = present.iter().map(|k| (*k, Some([k[1] ^ k[33] | 1; 32])));
    tree.apply(initial).expect("34-byte keys");
    tree.root();
    println!(
        "built {} keys of 250000 accounts: {:.2?}",
        tree.len(),
        start.elapsed()
    );
    let cost = hash_cost::<Blake3>(&[0x5a; 67]);
    println!("one BLAKE3 of 67 bytes: {:.1} ns", cost.as_secs_f64() * 1e9);
    for round in 0..rounds {
        // 7k distinct present keys, two in seven deleted (2k), the others changed (5k); 3k
        // new accounts.
        let mut chosen = HashSet::new();
        while chosen.len() < 7_000 {
            chosen.insert(rng.below(present.len()));
        }
        let mut chosen: Vec<usize> = chosen.into_iter().collect();
        chosen.sort_unstable();
        let mut batch: Vec<([u8; 34], Option<[u8; 32]>)> = chosen
            .iter()
            .enumerate()
            .map(|(i, &at)| (present[at], (i % 7 >= 2).then(|| rng.bytes())))
            .collect();
        let deleted: HashSet<[u8; 34]> = batch
            .iter()
            .filter(|(_, value)| value.is_none())
            .map(|(k, _)| *k)
            .collect();
        present.retain(|k| !deleted.contains(k));
        for _ in 0..3_000 {
            let k = key(&rng.bytes(), 0);
            batch.push((k, Some(rng.bytes())));
            present.push(k);
        }
        let (before, start) = (tree.hash_count(), Instant::now());
        tree.apply(batch.iter().copied()).expect("34-byte keys");
        tree.root();
        let time = start.elapsed();
        let hashes = tree.hash_count() - before;
        println!(
            "eip8297 round {round}: {:.2} ms; hashes {hashes}; time / (hashes x one 67-byte BLAKE3) {:.2}x",
            time.as_secs_f64() * 1e3,
            time.as_secs_f64() / (cost.as_secs_f64() * hashes as f64),
        );
    }
    print_huge_pages();
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("eip8297") {
        let rounds = std::env::args().nth(2).and_then(|a| a.parse().ok());
        eip8297_rounds(rounds.unwrap_or(3));
        return;
    }
    let arg = |i: usize, default: usize| -> usize {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    // ROUNDS, then a smaller shape for checks: STEMS CHANGED NEW_STEMS.
    let (rounds, stems_n) = (arg(1, 3), arg(2, 250_000));
    let (changed, new_stems) = (arg(3, 7_000), arg(4, 3_000));
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into());
    let mut rng = Rng(7864);
    let mut stems: Vec<[u8; 31]> = (0..stems_n).map(|_| rng.bytes()).collect();

    let mut ours = eip7864::Tree::<Sha256>::new();
    let mut theirs: UnifiedBinaryTree<Sha256Hasher> = UnifiedBinaryTree::with_capacity(stems_n);
    let initial: Vec<([u8; 32], [u8; 32])> = stems
        .iter()
        .flat_map(|stem| SUBS.map(|sub| (key(stem, sub), [sub ^ stem[0] | 1; 32])))
        .collect();
    let start = Instant::now();
    ours.apply(initial.iter().copied()).expect("32-byte keys");
    let root = ours.root();
    let ours_build = start.elapsed();
    let start = Instant::now();
    theirs
        .insert_batch(
            initial
                .iter()
                .map(|(k, v)| (TreeKey::from_bytes(B256::from(*k)), B256::from(*v))),
        )
        .expect("ubt insert");
    let their_root = theirs.root_hash().expect("ubt root");
    let their_build = start.elapsed();
    assert_eq!(root, their_root.0, "initial roots differ");
    println!(
        "threads {threads}; built {} keys on {stems_n} stems: bintree {ours_build:.2?}, ubt {their_build:.2?}; roots equal",
        ours.len()
    );

    let cost = hash_cost::<Sha256>(&[0x5a; 64]);
    println!(
        "one SHA-256 of 64 bytes: {:.1} ns (the sha2 crate's incremental hasher: {:.1} ns)",
        cost.as_secs_f64() * 1e9,
        incremental_hash_cost().as_secs_f64() * 1e9
    );
    stems.sort_unstable();
    for round in 0..rounds {
        let mut batch: Vec<([u8; 32], [u8; 32])> = (0..changed)
            .map(|_| {
                let stem = stems[rng.below(stems.len())];
                (key(&stem, SUBS[rng.below(SUBS.len())]), rng.bytes())
            })
            .collect();
        let new: Vec<[u8; 31]> = (0..new_stems).map(|_| rng.bytes()).collect();
        batch.extend(new.iter().map(|stem| (key(stem, 0), rng.bytes())));
        stems.extend(new);
        stems.sort_unstable();
        let touched: Vec<([u8; 31], u8)> = batch
            .iter()
            .map(|(k, _)| {
                let mut stem = [0u8; 31];
                stem.copy_from_slice(&k[..31]);
                (stem, k[31])
            })
            .collect();
        let minimum = minimum_hashes(&stems, &touched);

        let (before, start) = (ours.hash_count(), Instant::now());
        ours.apply(batch.iter().copied()).expect("32-byte keys");
        let root = ours.root();
        let ours_time = start.elapsed();
        let hashes = ours.hash_count() - before;

        let start = Instant::now();
        theirs
            .insert_batch(
                batch
                    .iter()
                    .map(|(k, v)| (TreeKey::from_bytes(B256::from(*k)), B256::from(*v))),
            )
            .expect("ubt insert");
        let their_root = theirs.root_hash().expect("ubt root");
        let their_time = start.elapsed();
        assert_eq!(root, their_root.0, "roots differ after round {round}");

        let floor = cost * hashes as u32;
        println!(
            "round {round}: bintree {:.2} ms, ubt {:.1} ms ({:.1}x); hashes {hashes}, minimum {minimum} ({:.3}x); \
             time / (hashes x one hash) {:.2}x",
            ours_time.as_secs_f64() * 1e3,
            their_time.as_secs_f64() * 1e3,
            their_time.as_secs_f64() / ours_time.as_secs_f64(),
            hashes as f64 / minimum as f64,
            ours_time.as_secs_f64() / floor.as_secs_f64(),
        );
    }
    print_huge_pages();
}

/// How much of the resident memory the kernel backs with huge pages, and the allocator.
fn print_huge_pages() {
    let huge = std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|text| {
            let field = |name: &str| {
                text.lines()
                    .find(|line| line.starts_with(name))
                    .and_then(|line| line.split_whitespace().nth(1)?.parse::<u64>().ok())
            };
            Some((field("AnonHugePages:")?, field("Rss:")?))
        });
    match huge {
        Some((huge, rss)) => println!(
            "allocator: {}; huge pages back {} of {} MiB resident",
            if cfg!(feature = "jemalloc") {
                "jemalloc"
            } else {
                "system"
            },
            huge / 1024,
            rss / 1024
        ),
        None => println!("huge pages: /proc/self/smaps_rollup not readable"),
    }
}
