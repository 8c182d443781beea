//! Integration tests of the fractional tree.
#![allow(clippy::unwrap_used)]

mod props;
