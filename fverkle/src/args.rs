//! Argument types several commands share, each mapped onto the library's type.

use chain::rules::Chain;
use chain::state::Mode;
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
        chain::genesis::layout_name((*self).into())
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

/// A chain whose history needs named rules (`chain::rules`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainArg {
    /// No rules: every block is exactly its witness's writes.
    None,
    /// Kaustinen6: at block 1 geth created the EIP-2935 history account (version 0,
    /// balance 0, nonce 0, code keccak = keccak("")) without listing its header leaves in
    /// the witness; they are written before block 1's own writes.
    Kaustinen6,
}

impl From<ChainArg> for Chain {
    fn from(c: ChainArg) -> Chain {
        match c {
            ChainArg::None => Chain::None,
            ChainArg::Kaustinen6 => Chain::Kaustinen6,
        }
    }
}

/// Which tree holds the state.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    /// One canonical tree.
    Single,
    /// The sharded tree (256 hypertrees by first stem byte), which also reports the
    /// coordinator root.
    Fractional,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Single => Mode::Single,
            ModeArg::Fractional => Mode::Fractional,
        }
    }
}

/// Which kind of tree `root` builds.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeArg {
    /// The EIP-6800 Verkle tree (32-byte keys).
    Verkle,
    /// The EIP-8297 partitioned binary tree (prefix-free keys of 1 to 8192 bytes), BLAKE3.
    Eip8297,
    /// The EIP-7864 unified binary tree (32-byte keys), as of `ethereum/EIPs@ca51874f`.
    Eip7864,
}

/// The hash of a binary tree.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashArg {
    /// SHA-256 (go-ethereum's EIP-7864 tree).
    Sha256,
    /// BLAKE3 (EIP-8297's reference hash; the EIP-7864 text's pseudo-code).
    Blake3,
}

/// A binary tree and its hash, as a witness's header names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// EIP-7864 with SHA-256.
    Eip7864Sha256,
    /// EIP-7864 with BLAKE3.
    Eip7864Blake3,
    /// EIP-8297 (BLAKE3).
    Eip8297,
}

impl Kind {
    /// The binary tree `--tree` and `--hash` name; `None` for the Verkle tree.
    pub fn of(tree: TreeArg, hash: Option<HashArg>) -> anyhow::Result<Option<Kind>> {
        Ok(match (tree, hash) {
            (TreeArg::Verkle, None) => None,
            (TreeArg::Verkle, Some(_)) => {
                anyhow::bail!(
                    "--hash chooses a binary tree's hash; the Verkle tree has none to choose"
                )
            }
            (TreeArg::Eip8297, None | Some(HashArg::Blake3)) => Some(Kind::Eip8297),
            (TreeArg::Eip8297, Some(HashArg::Sha256)) => anyhow::bail!(
                "--hash sha256: EIP-8297 trees hash with BLAKE3 (the EIP's reference hash); \
                 drop --hash or use --tree eip7864"
            ),
            (TreeArg::Eip7864, None | Some(HashArg::Sha256)) => Some(Kind::Eip7864Sha256),
            (TreeArg::Eip7864, Some(HashArg::Blake3)) => Some(Kind::Eip7864Blake3),
        })
    }

    /// The replay library's name of this tree and hash.
    pub fn binary(self) -> chain::binary::BinaryKind {
        match self {
            Kind::Eip7864Sha256 => chain::binary::BinaryKind::Eip7864Sha256,
            Kind::Eip7864Blake3 => chain::binary::BinaryKind::Eip7864Blake3,
            Kind::Eip8297 => chain::binary::BinaryKind::Eip8297,
        }
    }

    /// The `--tree` name.
    pub fn tree(self) -> &'static str {
        match self {
            Kind::Eip7864Sha256 | Kind::Eip7864Blake3 => "eip7864",
            Kind::Eip8297 => "eip8297",
        }
    }

    /// The hash's name.
    pub fn hash(self) -> &'static str {
        match self {
            Kind::Eip7864Sha256 => "sha256",
            Kind::Eip7864Blake3 | Kind::Eip8297 => "blake3",
        }
    }
}
