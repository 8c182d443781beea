//! What a subcommand concluded, mapped to the exit code by `main`.

/// A finished run's verdict. Errors (exit 2) travel as `anyhow::Error` instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Success, or a verdict of valid: exit 0.
    Ok,
    /// A verdict of invalid or a root mismatch: exit 1.
    Invalid,
}
