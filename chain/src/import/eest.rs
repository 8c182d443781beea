//! Execution-spec-tests (EEST) blockchain-test fixtures, replayed in memory (`fverkle replay
//! --eest FILE [--test NAME]`): [`load`] reads and decodes a file's tests, [`replay`] runs
//! one.
//!
//! A file (plain, gzip or zstd) holds either a map of test names to fixtures (as EEST
//! publishes them) or one bare fixture (an object with `pre`, `genesisBlockHeader` and
//! `blocks`). Per test: the genesis state is built from `pre` in the layout of its
//! `network`, its root must be `genesisBlockHeader.stateRoot`; then each block goes through
//! the same [`Replayer`] as an exported block (witness verified against the current root,
//! every `currentValue` checked against the state, the `newValue`s applied, the root
//! compared with `blockHeader.stateRoot`). No chain rule applies: a verkle fixture's
//! witness lists the system-contract writes (EIP-2935's history slot) itself.
//!
//! Every selected test is read and decoded before any is replayed, so unreadable input
//! ([`EestError`], exit 2) prints no results.

use std::fmt;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde_json::{Map, Value as Json};
use verkle::keys::Layout;
use witness::ExecutionWitness;

use crate::export::ExportedBlock;
use crate::hexarg::{parse_root, to_hex};
use crate::replayer::{Replayer, Step};
use crate::rules::Chain;
use crate::state::{meta, Mode};

/// Network names whose fixtures start from a Verkle genesis in the EIP-6800 layout.
pub const VERKLE_NETWORKS: &[&str] = &["Verkle", "EIP6800"];

/// How many test names an unknown `--test` lists.
const NAMES_SHOWN: usize = 5;

/// Why an EEST file cannot be replayed (exit 2). Each variant names the file; those about
/// one test name it, and those about one block give its index in `blocks`.
#[derive(Debug)]
#[non_exhaustive]
pub enum EestError {
    /// The file cannot be read, or it is compressed and its stream is truncated or corrupt.
    Read(crate::input::InputError),
    /// The file is not JSON.
    Json {
        /// The file.
        file: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The top level is neither a fixture nor a map of test names to fixtures.
    Shape {
        /// The file.
        file: String,
        /// What is wrong.
        what: String,
    },
    /// `--test` names no test of the file.
    UnknownTest {
        /// The file.
        file: String,
        /// The name asked for.
        name: String,
        /// A few of the names the file has.
        available: Vec<String>,
        /// How many tests the file has.
        count: usize,
    },
    /// The fixture's `network` is not one whose genesis is a Verkle tree.
    UnknownNetwork {
        /// The file.
        file: String,
        /// The test.
        test: String,
        /// The network named.
        network: String,
    },
    /// A field of a test is missing or wrong.
    Field {
        /// The file.
        file: String,
        /// The test.
        test: String,
        /// The block's index in `blocks`, when the field belongs to one.
        block: Option<usize>,
        /// The field's path (`pre`, `genesisBlockHeader.stateRoot`, `blockHeader.number`).
        field: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for EestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EestError::Read(e) => write!(f, "{e}"),
            EestError::Json { file, message } => write!(f, "{file}: not JSON: {message}"),
            EestError::Shape { file, what } => write!(f, "{file}: {what}"),
            EestError::UnknownTest {
                file,
                name,
                available,
                count,
            } => {
                write!(
                    f,
                    "{file}: no test named {name:?}; the file has {count} test{}: {}",
                    if *count == 1 { "" } else { "s" },
                    available.join(", ")
                )?;
                if *count > available.len() {
                    write!(f, ", …")?;
                }
                Ok(())
            }
            EestError::UnknownNetwork {
                file,
                test,
                network,
            } => write!(
                f,
                "{file}: test {test}: field network: unknown network {network:?} (replayed: {}, or no network for the EIP-6800 layout)",
                VERKLE_NETWORKS.join(", ")
            ),
            EestError::Field {
                file,
                test,
                block,
                field,
                reason,
            } => {
                write!(f, "{file}: test {test}: ")?;
                if let Some(i) = block {
                    write!(f, "blocks[{i}]: ")?;
                }
                write!(f, "field {field}: {reason}")
            }
        }
    }
}

impl std::error::Error for EestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EestError::Read(e) => Some(e),
            _ => None,
        }
    }
}

/// One test, decoded and ready to replay.
pub struct Fixture {
    /// The test's name.
    pub name: String,
    layout: Layout,
    genesis: Vec<(verkle::keys::TreeKey, verkle::keys::Value)>,
    genesis_root: [u8; 32],
    blocks: Vec<ExportedBlock>,
}

/// What one test concluded.
#[derive(Clone, Debug)]
pub struct TestResult {
    /// The test's name.
    pub name: String,
    /// Whether its genesis and every block matched.
    pub ok: bool,
    /// Blocks replayed.
    pub blocks: u64,
    /// The root of its `pre`.
    pub genesis_root: [u8; 32],
    /// The root after the last block replayed.
    pub root: [u8; 32],
    /// The index in `blocks` of the block that failed.
    pub failed_block: Option<usize>,
    /// Why it failed.
    pub error: Option<String>,
}

impl TestResult {
    /// The JSON Lines object.
    pub fn to_json(&self) -> Json {
        serde_json::json!({
            "name": self.name,
            "ok": self.ok,
            "blocks": self.blocks,
            "genesis_root": to_hex(&self.genesis_root),
            "root": to_hex(&self.root),
            "failed_block": self.failed_block,
            "error": self.error,
        })
    }

    /// One human-readable line.
    pub fn to_line(&self) -> String {
        if self.ok {
            format!(
                "{}: ok, {} block{}, genesis {} root {}",
                self.name,
                self.blocks,
                if self.blocks == 1 { "" } else { "s" },
                to_hex(&self.genesis_root),
                to_hex(&self.root)
            )
        } else {
            format!(
                "{}: FAIL: {}",
                self.name,
                self.error.as_deref().unwrap_or("")
            )
        }
    }
}

/// The tests of a parsed document, in file order: a bare fixture (named after the file's
/// stem) or the entries of a name → fixture map.
fn tests_of(file: &str, path: &Path, doc: Json) -> Result<Vec<(String, Json)>, EestError> {
    let Json::Object(top) = doc else {
        return Err(EestError::Shape {
            file: file.to_owned(),
            what: "top level is not an object".into(),
        });
    };
    let bare = ["pre", "genesisBlockHeader", "blocks"]
        .iter()
        .any(|k| top.contains_key(*k));
    if bare {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_owned());
        return Ok(vec![(name, Json::Object(top))]);
    }
    if top.is_empty() {
        return Err(EestError::Shape {
            file: file.to_owned(),
            what: "no tests: an empty object".into(),
        });
    }
    Ok(top.into_iter().collect())
}

/// A 32-byte root at `field` of `obj`.
fn root_field(obj: &Map<String, Json>, key: &str) -> Result<[u8; 32], String> {
    match obj.get(key) {
        None => Err("missing".into()),
        Some(Json::String(s)) => parse_root(s),
        Some(_) => Err("expected a hex string".into()),
    }
}

/// A block number written as a hex or decimal string, or a JSON integer.
fn block_number(v: &Json) -> Result<u64, String> {
    match v {
        Json::Number(n) => n
            .as_u64()
            .ok_or_else(|| format!("{n} is not a block number")),
        Json::String(s) => match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h) => u64::from_str_radix(h, 16),
            None => s.parse::<u64>(),
        }
        .map_err(|e| format!("{s:?} is not a block number: {e}")),
        _ => Err("expected a number string".into()),
    }
}

/// Decodes one test: layout, genesis leaves and root, and its blocks.
fn decode(file: &str, name: String, fixture: &Json) -> Result<Fixture, EestError> {
    let field_err = |block: Option<usize>, field: &str, reason: String| EestError::Field {
        file: file.to_owned(),
        test: name.clone(),
        block,
        field: field.to_owned(),
        reason,
    };
    let Some(obj) = fixture.as_object() else {
        return Err(EestError::Shape {
            file: file.to_owned(),
            what: format!("test {name}: expected a fixture object"),
        });
    };
    let layout = match obj.get("network") {
        None | Some(Json::Null) => Layout::Eip6800,
        Some(Json::String(n)) if VERKLE_NETWORKS.contains(&n.as_str()) => Layout::Eip6800,
        Some(Json::String(n)) => {
            return Err(EestError::UnknownNetwork {
                file: file.to_owned(),
                test: name,
                network: n.clone(),
            })
        }
        Some(_) => return Err(field_err(None, "network", "expected a string".into())),
    };
    let pre = match obj.get("pre") {
        None => return Err(field_err(None, "pre", "missing".into())),
        Some(Json::Object(m)) => m,
        Some(_) => return Err(field_err(None, "pre", "expected an object".into())),
    };
    let source = format!("{file}: test {name}: field pre");
    let genesis = genesis::alloc_leaves(pre, layout, &source)
        .map_err(|e| field_err(None, "pre", e.to_string()))?;
    let header = match obj.get("genesisBlockHeader") {
        None => return Err(field_err(None, "genesisBlockHeader", "missing".into())),
        Some(Json::Object(m)) => m,
        Some(_) => {
            return Err(field_err(
                None,
                "genesisBlockHeader",
                "expected an object".into(),
            ))
        }
    };
    let genesis_root = root_field(header, "stateRoot")
        .map_err(|e| field_err(None, "genesisBlockHeader.stateRoot", e))?;
    let raw_blocks = match obj.get("blocks") {
        None => return Err(field_err(None, "blocks", "missing".into())),
        Some(Json::Array(a)) => a,
        Some(_) => return Err(field_err(None, "blocks", "expected an array".into())),
    };
    let mut blocks = Vec::with_capacity(raw_blocks.len());
    for (i, b) in raw_blocks.iter().enumerate() {
        let t = Instant::now();
        let Some(b) = b.as_object() else {
            return Err(field_err(
                Some(i),
                "blocks",
                "expected a block object".into(),
            ));
        };
        if b.contains_key("expectException") {
            return Err(field_err(
                Some(i),
                "expectException",
                "a block the fixture expects to be rejected is not replayed".into(),
            ));
        }
        let h = match b.get("blockHeader") {
            None => return Err(field_err(Some(i), "blockHeader", "missing".into())),
            Some(Json::Object(m)) => m,
            Some(_) => {
                return Err(field_err(
                    Some(i),
                    "blockHeader",
                    "expected an object".into(),
                ))
            }
        };
        let number = match h.get("number") {
            None => Err("missing".to_string()),
            Some(v) => block_number(v),
        }
        .map_err(|e| field_err(Some(i), "blockHeader.number", e))?;
        // Blocks run consecutively from the genesis (block 0).
        let expected = i as u64 + 1;
        if number != expected {
            return Err(field_err(
                Some(i),
                "blockHeader.number",
                format!(
                    "block {number}, expected {expected}: blocks are consecutive from the genesis"
                ),
            ));
        }
        let state_root = root_field(h, "stateRoot")
            .map_err(|e| field_err(Some(i), "blockHeader.stateRoot", e))?;
        let w = b
            .get("witness")
            .ok_or_else(|| field_err(Some(i), "witness", "missing".into()))?;
        let witness = ExecutionWitness::from_json_value(w)
            .map_err(|e| field_err(Some(i), "witness", e.to_string()))?;
        let witness_bytes = witness.as_ssz().len();
        blocks.push(ExportedBlock {
            origin: format!("{file}: test {name}: blocks[{i}]"),
            number,
            parent_state_root: None,
            state_root,
            witness,
            witness_bytes,
            decode_us: t.elapsed().as_micros() as u64,
        });
    }
    Ok(Fixture {
        name,
        layout,
        genesis,
        genesis_root,
        blocks,
    })
}

/// Replays one decoded test in a fresh in-memory state of `mode`.
pub fn replay(f: &Fixture, mode: Mode) -> Result<TestResult> {
    let mut state = crate::state::in_memory(mode);
    let writes: Vec<_> = f.genesis.iter().map(|(k, v)| (*k, Some(*v))).collect();
    state.apply(&writes)?;
    let genesis = state.root();
    let mut result = TestResult {
        name: f.name.clone(),
        ok: false,
        blocks: 0,
        genesis_root: genesis,
        root: genesis,
        failed_block: None,
        error: None,
    };
    if genesis != f.genesis_root {
        result.error = Some(format!(
            "field genesisBlockHeader.stateRoot: the root of pre is {}, the fixture says {}",
            to_hex(&genesis),
            to_hex(&f.genesis_root)
        ));
        return Ok(result);
    }
    state.persist(0, &[(meta::GENESIS_ROOT, &genesis)])?;
    let mut replayer = Replayer::new(state.as_mut(), Chain::None, f.layout, Vec::new())?;
    for (i, b) in f.blocks.iter().enumerate() {
        match replayer.block(b)? {
            Step::Applied(r) => {
                result.blocks += 1;
                if let Some(root) = r.post_root {
                    result.root = root;
                }
            }
            Step::Skipped => {
                // A block at or below the state's height, which `decode` does not let
                // through.
                anyhow::bail!(
                    "{}: block {}: blocks must be consecutive from 1",
                    b.origin,
                    b.number
                );
            }
            Step::Mismatch(r) => {
                result.failed_block = Some(i);
                result.error = r.error;
                return Ok(result);
            }
        }
    }
    result.ok = true;
    Ok(result)
}

/// Reads the tests of the file at `path` (only the one named `test`, when given) and
/// decodes every one of them: unreadable input is an error before any test is replayed.
pub fn load(path: &Path, test: Option<&str>) -> Result<Vec<Fixture>> {
    let file = path.display().to_string();
    let text = crate::input::read_to_string(path).map_err(EestError::Read)?;
    let doc: Json = serde_json::from_str(&text).map_err(|e| EestError::Json {
        file: file.clone(),
        message: e.to_string(),
    })?;
    drop(text);
    let mut tests = tests_of(&file, path, doc)?;
    if let Some(want) = test {
        let count = tests.len();
        match tests.iter().position(|(n, _)| n == want) {
            Some(i) => {
                let one = tests.swap_remove(i);
                tests = vec![one];
            }
            None => {
                return Err(EestError::UnknownTest {
                    file,
                    name: want.to_owned(),
                    available: tests
                        .iter()
                        .take(NAMES_SHOWN)
                        .map(|(n, _)| n.clone())
                        .collect(),
                    count,
                }
                .into())
            }
        }
    }
    let fixtures: Vec<Fixture> = tests
        .into_iter()
        .map(|(name, fx)| decode(&file, name, &fx))
        .collect::<Result<_, _>>()?;
    Ok(fixtures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_fixture_is_one_test_named_after_the_file() {
        let doc = serde_json::json!({"pre": {}, "genesisBlockHeader": {}, "blocks": []});
        let t = tests_of("x/y.json", Path::new("x/y.json"), doc).expect("a fixture");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].0, "y");
    }

    #[test]
    fn a_map_is_its_tests_and_an_empty_one_is_refused() {
        let doc = serde_json::json!({"a": {"pre": {}}, "b": {"pre": {}}});
        let t = tests_of("f", Path::new("f"), doc).expect("a map");
        assert_eq!(
            t.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        let e = tests_of("f", Path::new("f"), serde_json::json!({})).expect_err("empty");
        assert!(e.to_string().contains("no tests"), "{e}");
    }

    #[test]
    fn blocks_must_count_up_from_the_genesis() {
        let root = format!("0x{}", "00".repeat(32));
        let fx = serde_json::json!({
            "pre": {},
            "genesisBlockHeader": {"stateRoot": root},
            "blocks": [{"blockHeader": {"number": "0x02", "stateRoot": root}}],
        });
        let e = match decode("f.json", "t1".into(), &fx) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("block 2 first accepted"),
        };
        assert!(
            e.starts_with(
                "f.json: test t1: blocks[0]: field blockHeader.number: block 2, expected 1"
            ),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_network_is_named() {
        let fx = serde_json::json!({"network": "Cancun", "pre": {}, "genesisBlockHeader": {}, "blocks": []});
        let e = match decode("f.json", "t1".into(), &fx) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("Cancun accepted"),
        };
        assert!(e.contains("test t1") && e.contains("\"Cancun\""), "{e}");
    }

    #[test]
    fn field_errors_name_test_block_and_field() {
        let fx = serde_json::json!({
            "pre": {},
            "genesisBlockHeader": {"stateRoot": format!("0x{}", "00".repeat(32))},
            "blocks": [{"blockHeader": {"number": "0x01"}}],
        });
        let e = match decode("f.json", "t1".into(), &fx) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a block without stateRoot accepted"),
        };
        assert_eq!(
            e,
            "f.json: test t1: blocks[0]: field blockHeader.stateRoot: missing"
        );
    }
}
