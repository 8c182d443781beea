//! Meta keys a replay writes beside the nodes (atomically with the block's nodes).

/// The `--chain` rule set (`none` or `kaustinen6`).
pub const CHAIN: &[u8] = b"fverkle/chain";
/// The account layout (`legacy` or `eip6800`).
pub const LAYOUT: &[u8] = b"fverkle/layout";
/// The genesis state root (32 bytes).
pub const GENESIS_ROOT: &[u8] = b"fverkle/genesis_root";
/// The tree kind (`single` or `fractional`).
pub const MODE: &[u8] = b"fverkle/mode";
/// Prefix of the state root after each block: [`root_key`] (height 0 has none: its
/// root is [`GENESIS_ROOT`]).
pub const ROOT_PREFIX: &[u8] = b"fverkle/root/";

/// The meta key of the state root at block `height`: [`ROOT_PREFIX`] then the height as
/// 8 big-endian bytes; the value is the 32-byte root.
pub fn root_key(height: u64) -> Vec<u8> {
    let mut k = Vec::with_capacity(ROOT_PREFIX.len() + 8);
    k.extend_from_slice(ROOT_PREFIX);
    k.extend_from_slice(&height.to_be_bytes());
    k
}
