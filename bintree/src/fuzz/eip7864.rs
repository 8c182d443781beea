//! EIP-7864 for the fuzz bodies and the tests: the scenario generator, the tree's own
//! post-state root, the witness's sections and a hostile prover's edits of them.

mod edit;
mod parts;
mod scenario;

pub use edit::edit;
pub use parts::Parts;
pub use scenario::{applied_root, key, near, near_with, scenario, Scenario};
