//! Conformance vectors for fverkle and for other clients.
//!
//! - Our format (`vectors/README.md`): one JSON schema across kinds — point codec,
//!   commitment, tree key, tree root, IPA, multiproof, witness and fractional proof (valid,
//!   and invalid with the rule broken).
//!   [`generate_suite`] writes it deterministically from fixed seeds.
//! - One runner, [`check_paths`], checks our suite and the upstream data of go-ipa,
//!   geth/go-verkle, rust-verkle, besu and ethereumjs read in place, in their original
//!   formats, and accounts for every file it is given.
//! - [`check_impl`] runs every case of the suite through another implementation (a command
//!   speaking the JSON protocol of `vectors/README.md`) and compares its answers.
//!
//! The call a user makes first:
//!
//! ```no_run
//! let report = vectors::check_paths(&["vectors".into(), "../shared/vectors".into()])?;
//! for file in &report.files {
//!     println!("{} {}", file.status, file.path.display());
//! }
//! assert_eq!(report.failed(), 0);
//! # Ok::<(), vectors::VectorError>(())
//! ```
#![forbid(unsafe_code)]

mod at;
mod coverage;
pub mod differential;
mod error;
mod external;
mod generate;
mod ours;
mod runner;
pub mod schema;
mod upstream;

pub use coverage::{coverage_table, rule_coverage, wire_rule_ids, RuleCoverage};
pub use error::VectorError;
pub use external::{check_impl, CaseOutcome, CaseReport, ImplConfig, ImplReport};
pub use generate::audit::audit_suite_document;
pub use generate::{generate_suite, write_suite, SuiteFile};
pub use ours::check_suite_document;
pub use runner::{check_file, check_paths, FileReport, Format, Report, Status};
