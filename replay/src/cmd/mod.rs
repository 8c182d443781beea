//! One module per subcommand.

pub mod demo;
pub mod gen;
pub mod genesis;
pub mod prove;
pub mod replay;
pub mod root;
pub mod vectors;
pub mod verify;
pub mod verify_fractional;
