//! One module per subcommand.

pub mod genesis;
pub mod root;
pub mod vectors;
pub mod verify;
