//! rust-verkle's bench key generator (so our figures compare with its): shared by the tree
//! benches and the examples, which include this file with `#[path]`.
//!
//! Initial keys are SHA-256(u32_be(i) ‖ 28 zero bytes ‖ "seed"), a 10k block's new keys
//! SHA-256(u32_be(i)); a key's initial value is the key itself.
#![allow(dead_code)]

use sha2::{Digest, Sha256};
use verkle::store::RocksStore;

/// The meta key under which `build_state` records its state's key count (4 bytes, BE).
pub const STATE_KEYS_META: &[u8] = b"build_state_keys";

/// The key count `build_state` recorded in `store`, or `default` for a state without one.
pub fn state_keys(store: &RocksStore, default: u32) -> u32 {
    store
        .get_meta(STATE_KEYS_META)
        .ok()
        .flatten()
        .and_then(|v| <[u8; 4]>::try_from(v.as_slice()).ok())
        .map_or(default, u32::from_be_bytes)
}

/// Keys of one update block.
pub const BLOCK: u32 = 10_000;

/// The `i`-th key of a block of new keys.
pub fn block_key(i: u32) -> [u8; 32] {
    Sha256::digest(i.to_be_bytes()).into()
}

/// The `i`-th key of the initial state.
pub fn initial_key(i: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(i.to_be_bytes());
    h.update([0u8; 28]);
    h.update(b"seed");
    h.finalize().into()
}

/// Round `round`'s block of [`BLOCK`] updates to existing keys of a `keys`-key state: keys
/// spread over the state (stride 97), each value the key with its first byte changed by the
/// round, so every round writes new values.
pub fn update_block(round: u32, keys: u32) -> Vec<([u8; 32], Option<[u8; 32]>)> {
    (0..BLOCK)
        .map(|i| {
            let j = (round.wrapping_mul(BLOCK) + i).wrapping_mul(97) % keys;
            let mut v = initial_key(j);
            v[0] ^= round as u8;
            (initial_key(j), Some(v))
        })
        .collect()
}

/// User + system CPU time of this process so far, in clock ticks (1/100 s); 0 where
/// `/proc/self/stat` cannot be read.
pub fn cpu_ticks() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    let Some(rest) = s.rfind(')').and_then(|p| s.get(p + 2..)) else {
        return 0;
    };
    let f: Vec<&str> = rest.split(' ').collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    tick(11) + tick(12)
}
