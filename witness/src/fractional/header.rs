//! The header of an encoded fractional proof (`spec/FRACTIONAL.md` §4): version, shard
//! depth, flags.

/// The only version this crate reads and writes.
pub const VERSION: u8 = 2;

/// Flags bit 0: the coordinator path is carried.
pub const FLAG_COORDINATOR: u8 = 1;

/// Version, shard depth, flags, `compress(R)`.
pub(super) const HEADER_LEN: usize = 3 + 32;
