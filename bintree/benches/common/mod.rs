//! The block shape the binary-tree benches share: a 1M-key tree of 250k stems (EIP-7864) or
//! accounts (EIP-8297, 34-byte account-header keys), 4 keys each, and its keys.
#![allow(dead_code)] // each bench uses part of it

use std::time::Duration;

use bintree::{eip7864, eip8297, Blake3, Sha256};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};

pub const STEMS: usize = 250_000;
pub const KEYS_PER_STEM: usize = 4;
/// The sub-indices of a stem's (an account's) keys: basic data, code hash and two header
/// storage slots, as an account would have.
pub const SUB_INDICES: [u8; KEYS_PER_STEM] = [0, 1, 64, 65];
pub const CHANGED: usize = 7_000;
pub const NEW_STEMS: usize = 3_000;

/// The EIP-7864 key of `stem` and `sub_index`.
pub fn key(stem: &[u8; 31], sub_index: u8) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..31].copy_from_slice(stem);
    key[31] = sub_index;
    key
}

/// The EIP-8297 account-header key of `account` and `sub_index`.
pub fn key8297(account: &[u8; 32], sub_index: u8) -> Vec<u8> {
    let mut key = vec![0u8; 34];
    key[1..33].copy_from_slice(account);
    key[33] = sub_index;
    key
}

/// The 1M-key EIP-7864 tree over `stems`, hashed.
pub fn tree7864(stems: &[[u8; 31]]) -> eip7864::Tree<Sha256> {
    let mut tree = eip7864::Tree::<Sha256>::new();
    tree.apply(
        stems
            .iter()
            .flat_map(|stem| SUB_INDICES.map(|sub| (key(stem, sub), [sub ^ stem[0]; 32]))),
    )
    .expect("32-byte keys");
    tree.root();
    tree
}

/// The 1M-key EIP-8297 tree over `accounts`, hashed.
pub fn tree8297(accounts: &[[u8; 32]]) -> eip8297::Tree<Blake3> {
    let mut tree = eip8297::Tree::<Blake3>::new();
    tree.apply(accounts.iter().flat_map(|account| {
        SUB_INDICES.map(|sub| (key8297(account, sub), Some([sub ^ account[0]; 32])))
    }))
    .expect("34-byte keys");
    tree.root();
    tree
}

/// A group of a few long samples (each runs a 10k-update block).
pub fn block_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    group
}
