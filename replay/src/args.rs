//! Argument types several commands and the datadir share.

use verkle::keys::Layout;

/// The account layout a genesis is written in.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum LayoutArg {
    /// Version / balance / nonce / code keccak / code size leaves (Kaustinen 2–6, devnet6).
    Legacy,
    /// BASIC_DATA + code hash (current EIP-6800; devnet-7, EEST fixtures).
    Eip6800,
}

impl LayoutArg {
    /// The name on the command line and in a datadir's meta.
    pub fn name(&self) -> &'static str {
        match self {
            LayoutArg::Legacy => "legacy",
            LayoutArg::Eip6800 => "eip6800",
        }
    }
}

impl From<LayoutArg> for Layout {
    fn from(l: LayoutArg) -> Layout {
        match l {
            LayoutArg::Legacy => Layout::Legacy,
            LayoutArg::Eip6800 => Layout::Eip6800,
        }
    }
}
