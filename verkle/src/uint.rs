//! `U256`: the 256-bit unsigned integers of tree positions, balances and storage slots,
//! defined with the position math in [`witness::keys`] (the light clients' copy).

pub use witness::keys::{ParseU256Error, U256};
