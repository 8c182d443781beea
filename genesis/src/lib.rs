//! Initial state from outside the tree: a geth genesis `alloc` (read whole or streamed) and
//! `tree_key,value` CSV files, turned into EIP-6800 tree writes for `verkle`'s tree.
//!
//! Both are untrusted: every failure is an [`ImportError`] naming the source, the account or
//! line, and the field.
//!
//! ```no_run
//! use verkle::{keys::Layout, Tree};
//! let text = std::fs::read_to_string("devnet6_genesis.json").unwrap();
//! let leaves = genesis::genesis_leaves(&text, Layout::Legacy, "devnet6_genesis.json").unwrap();
//! let mut tree = Tree::new();
//! tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v)))).unwrap();
//! println!("0x{}", hex::encode(tree.root_bytes()));
//! ```

#![forbid(unsafe_code)]

mod account;
mod csv;
mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
mod leaves;
mod stream;

pub use account::{hex_bytes, hex_word, number};
pub use csv::{parse_leaf_csv, read_key_value_lines, LineError, LineShape};
pub use error::{FieldError, ImportError};
pub use stream::{
    stream_genesis_accounts, stream_genesis_leaves, StreamCounts, STREAM_BATCH_ACCOUNTS,
};

use serde_json::{Map, Value as Json};

use verkle::keys::{Layout, TreeKey, Value};

use account::{parse_account, ParsedAccount};
use leaves::parsed_leaves;

/// The leaves of a genesis `alloc` (an object mapping addresses to accounts), in `layout`.
///
/// Per account, as geth wrote them: the header leaves of [`Layout::header_leaves`] (nonce
/// defaults to 0; the code hash of an account without code is `keccak256("")`), then the
/// code chunks and non-zero storage slots (only accounts with code or storage have them).
pub fn alloc_leaves(
    alloc: &Map<String, Json>,
    layout: Layout,
    source_name: &str,
) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    let accounts: Vec<ParsedAccount> = alloc
        .iter()
        .map(|(name, body)| {
            parse_account(name, body).map_err(|(field, reason)| ImportError::Account {
                source_name: source_name.to_owned(),
                account: name.clone(),
                field,
                reason,
            })
        })
        .collect::<Result<_, _>>()?;
    parsed_leaves(&accounts, layout, source_name)
}

/// The leaves of a genesis file: a geth genesis (an object with `alloc`) or a bare alloc
/// object (as in execution-spec-test fixtures' `pre`).
pub fn genesis_leaves(
    text: &str,
    layout: Layout,
    source_name: &str,
) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    let doc: Json = serde_json::from_str(text).map_err(|e| ImportError::Json {
        source_name: source_name.to_owned(),
        message: e.to_string(),
    })?;
    let top = doc.as_object().ok_or_else(|| ImportError::Shape {
        source_name: source_name.to_owned(),
        what: "top level is not an object",
    })?;
    let alloc = match top.get("alloc") {
        Some(a) => a.as_object().ok_or_else(|| ImportError::Shape {
            source_name: source_name.to_owned(),
            what: "`alloc` is not an object",
        })?,
        None => top,
    };
    alloc_leaves(alloc, layout, source_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use verkle::keys::LayoutError;
    use verkle::ParseU256Error;

    const K: &str = "0x472ff986f68a631d48c2906c31ae447beb63b54da5070293e30dc5063572af01";
    const V: &str = "0x000000e83c80d09f3c2e3b030000000000000000000000000000000000000000";

    #[test]
    fn csv_accepts_trailing_comma_and_missing_newline() {
        let text = format!("{K},{V},\r\n\n{K},{V}");
        let leaves = parse_leaf_csv(&text, "t.csv").unwrap();
        assert_eq!(leaves.len(), 2);
        assert_eq!(leaves[0].0[31], 1);
        assert_eq!(leaves[0].1[3], 0xe8);
    }

    #[test]
    fn csv_errors_name_line_and_field() {
        let text = format!("{K},{V}\n{K},0x12\n");
        assert_eq!(
            parse_leaf_csv(&text, "t.csv"),
            Err(ImportError::Csv {
                source_name: "t.csv".into(),
                line: 2,
                field: "value",
                reason: FieldError::WrongLength {
                    expected: 32,
                    got: 1
                }
            })
        );
        let e = parse_leaf_csv(&format!("{K}\n"), "t.csv").unwrap_err();
        assert!(matches!(
            e,
            ImportError::Csv {
                line: 1,
                field: "value",
                reason: FieldError::Missing,
                ..
            }
        ));
        let e = parse_leaf_csv(&format!("{K},{V},{V}\n"), "t.csv").unwrap_err();
        assert!(matches!(
            e,
            ImportError::Csv {
                reason: FieldError::ExtraField,
                ..
            }
        ));
        let e = parse_leaf_csv(&format!("0xzz,{V}\n"), "t.csv").unwrap_err();
        assert!(matches!(
            e,
            ImportError::Csv {
                field: "key",
                reason: FieldError::BadHex { .. },
                ..
            }
        ));
    }

    #[test]
    fn alloc_errors_name_account_and_field() {
        let bad =
            r#"{"alloc": {"0x00000000000000000000000000000000000000aa": {"balance": "12x"}}}"#;
        let e = genesis_leaves(bad, Layout::Legacy, "g.json").unwrap_err();
        assert_eq!(
            e,
            ImportError::Account {
                source_name: "g.json".into(),
                account: "0x00000000000000000000000000000000000000aa".into(),
                field: "balance".into(),
                reason: FieldError::Number(ParseU256Error::InvalidDigit {
                    position: 2,
                    found: 'x'
                })
            }
        );
        let short_addr = r#"{"0xaa": {"balance": "1"}}"#;
        assert!(matches!(
            genesis_leaves(short_addr, Layout::Legacy, "g.json"),
            Err(ImportError::Account { ref field, reason: FieldError::WrongLength { expected: 20, got: 1 }, .. }) if field == "address"
        ));
        let no_balance = r#"{"0x00000000000000000000000000000000000000aa": {}}"#;
        assert!(matches!(
            genesis_leaves(no_balance, Layout::Legacy, "g.json"),
            Err(ImportError::Account {
                reason: FieldError::Missing,
                ..
            })
        ));
        let huge_nonce = r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "nonce": "0x10000000000000000"}}"#;
        assert!(matches!(
            genesis_leaves(huge_nonce, Layout::Legacy, "g.json"),
            Err(ImportError::Account {
                reason: FieldError::NonceTooLarge,
                ..
            })
        ));
        let rich = format!(
            r#"{{"0x00000000000000000000000000000000000000aa": {{"balance": "0x1{}"}}}}"#,
            "0".repeat(32)
        );
        assert!(matches!(
            genesis_leaves(&rich, Layout::Eip6800, "g.json"),
            Err(ImportError::Account {
                reason: FieldError::Layout(LayoutError::BalanceTooLarge { bits: 129 }),
                ..
            })
        ));
        assert!(matches!(
            genesis_leaves("[1]", Layout::Eip6800, "g.json"),
            Err(ImportError::Shape { .. })
        ));
        assert!(matches!(
            genesis_leaves("{", Layout::Eip6800, "g.json"),
            Err(ImportError::Json { .. })
        ));
    }

    #[test]
    fn alloc_leaf_counts_per_layout() {
        let doc = r#"{
            "0x00000000000000000000000000000000000000aa": {"balance": "1"},
            "0x00000000000000000000000000000000000000bb": {"balance": "0x2", "nonce": "3",
                "code": "0x6000", "storage": {"0x01": "0x05", "0x02": "0x00"}}
        }"#;
        // Legacy: 4 + (4 + code size + 1 chunk + 1 non-zero slot).
        assert_eq!(genesis_leaves(doc, Layout::Legacy, "g").unwrap().len(), 11);
        // EIP-6800: 2 + (2 + 1 chunk + 1 slot).
        assert_eq!(genesis_leaves(doc, Layout::Eip6800, "g").unwrap().len(), 6);
    }

    type Batches = Vec<Vec<(TreeKey, Value)>>;

    /// Streams `text` with batches of `batch` accounts, collecting the batches.
    fn streamed(
        text: &str,
        layout: Layout,
        batch: usize,
    ) -> Result<(Batches, StreamCounts), ImportError> {
        let mut batches = Vec::new();
        let counts = stream_genesis_leaves(text.as_bytes(), layout, "g.json", batch, |b| {
            batches.push(b);
            Ok::<(), ImportError>(())
        })?;
        Ok((batches, counts))
    }

    fn root_of(leaves: &[(TreeKey, Value)]) -> [u8; 32] {
        let mut t = verkle::Tree::new();
        t.apply(leaves.iter().map(|(k, v)| (*k, Some(*v)))).unwrap();
        t.root_bytes()
    }

    /// A genesis of `n` accounts, every seventh with code and storage (one slot zero).
    fn sample_genesis(n: u64) -> String {
        let mut alloc = Vec::new();
        for i in 0..n {
            let mut a = [0u8; 20];
            a[..8].copy_from_slice(&(i * 0x9e37_79b9_7f4a_7c15).to_be_bytes());
            let body = if i % 7 == 3 {
                format!(
                    r#"{{"balance": "{}", "nonce": "0x{:x}", "code": "0x{}", "storage": {{"0x01": "0x{:x}", "0x2": "0x0", "0x{:x}": "0xff"}}}}"#,
                    i * 1000 + 1,
                    i,
                    "60".repeat(40 + i as usize),
                    i + 5,
                    i + 10
                )
            } else {
                format!(r#"{{"balance": "0x{:x}"}}"#, i + 1)
            };
            alloc.push(format!(r#""0x{}": {body}"#, hex::encode(a)));
        }
        format!(
            r#"{{"config": {{"chainId": 1, "alloc": 5}}, "nonce": "0x0", "alloc": {{{}}}, "extraData": "0x"}}"#,
            alloc.join(",\n")
        )
    }

    #[test]
    fn streaming_gives_the_one_shot_leaves_and_root() {
        let text = sample_genesis(50);
        for layout in [Layout::Eip6800, Layout::Legacy] {
            let one_shot = genesis_leaves(&text, layout, "g.json").unwrap();
            let want_root = root_of(&one_shot);
            for batch in [1, 3, 16, 1000] {
                let (batches, counts) = streamed(&text, layout, batch).unwrap();
                assert!(batches.iter().all(|b| !b.is_empty()));
                assert_eq!(counts.accounts, 50);
                assert_eq!(counts.batches, batches.len() as u64);
                if batch == 1 {
                    assert_eq!(batches.len(), 50);
                }
                let mut all: Vec<_> = batches.concat();
                assert_eq!(counts.leaves, all.len() as u64);
                // Applied batch by batch, committing between them, as an import does.
                let mut tree = verkle::Tree::new();
                for b in &batches {
                    tree.apply(b.iter().map(|(k, v)| (*k, Some(*v)))).unwrap();
                    tree.commit();
                }
                assert_eq!(tree.root_bytes(), want_root, "batch {batch}");
                let mut want = one_shot.clone();
                all.sort();
                want.sort();
                assert_eq!(all, want);
            }
        }
        // A bare alloc streams the same leaves.
        let bare = sample_genesis(20);
        let start = bare.rfind(r#""alloc": "#).unwrap() + r#""alloc": "#.len();
        let end = bare.rfind(r#", "extraData""#).unwrap();
        let bare = &bare[start..end];
        let (batches, _) = streamed(bare, Layout::Eip6800, 4).unwrap();
        assert_eq!(
            root_of(&batches.concat()),
            root_of(&genesis_leaves(bare, Layout::Eip6800, "g").unwrap())
        );
        // An empty alloc and an empty object give nothing.
        for empty in ["{}", r#"{"alloc": {}}"#, r#"{"config": {}, "alloc": {}}"#] {
            let (batches, counts) = streamed(empty, Layout::Eip6800, 4).unwrap();
            assert!(batches.is_empty());
            assert_eq!(counts, StreamCounts::default());
        }
    }

    #[test]
    fn streaming_errors_match_the_one_shot_ones() {
        let cases = [
            r#"{"alloc": {"0x00000000000000000000000000000000000000aa": {"balance": "12x"}}}"#,
            r#"{"0xaa": {"balance": "1"}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "nonce": "0x10000000000000000"}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "storage": {"0x01": 5}}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": {"balance": "1", "code": "0xzz"}}"#,
            r#"{"0x00000000000000000000000000000000000000aa": 7}"#,
            r#"{"config": {}}"#,
            "[1]",
            "7",
            "null",
            r#"{"alloc": [1]}"#,
            r#"{"alloc": "x"}"#,
        ];
        for text in cases {
            let want = genesis_leaves(text, Layout::Legacy, "g.json").unwrap_err();
            let got = streamed(text, Layout::Legacy, 2).unwrap_err();
            assert_eq!(got, want, "{text}");
        }
        let rich = format!(
            r#"{{"0x00000000000000000000000000000000000000aa": {{"balance": "0x1{}"}}}}"#,
            "0".repeat(32)
        );
        assert_eq!(
            streamed(&rich, Layout::Eip6800, 2).unwrap_err(),
            genesis_leaves(&rich, Layout::Eip6800, "g.json").unwrap_err()
        );
        // Syntax errors carry serde's line and column.
        for text in ["{", "{\"alloc\": {\n\"0x00000000000000000000000000000000000000aa\": {\"balance\": \"1\"},\n}}", "{} x"] {
            match streamed(text, Layout::Eip6800, 2).unwrap_err() {
                ImportError::Json { source_name, message } => {
                    assert_eq!(source_name, "g.json");
                    assert!(message.contains("line"), "{message}");
                }
                e => panic!("{text}: {e}"),
            }
        }
        // Ambiguous documents are refused.
        let addr = r#""0x00000000000000000000000000000000000000aa": {"balance": "1"}"#;
        for text in [
            format!(r#"{{{addr}, "alloc": {{}}}}"#),
            r#"{"alloc": {}, "alloc": {}}"#.to_owned(),
        ] {
            assert!(matches!(
                streamed(&text, Layout::Eip6800, 2),
                Err(ImportError::Shape { .. })
            ));
        }
    }

    #[test]
    fn a_sink_error_stops_the_stream() {
        #[derive(Debug, PartialEq)]
        enum E {
            Import(ImportError),
            Full,
        }
        impl From<ImportError> for E {
            fn from(e: ImportError) -> E {
                E::Import(e)
            }
        }
        let text = sample_genesis(10);
        let mut calls = 0;
        let got = stream_genesis_leaves(text.as_bytes(), Layout::Eip6800, "g", 2, |_| {
            calls += 1;
            if calls == 2 {
                Err(E::Full)
            } else {
                Ok(())
            }
        });
        assert_eq!(got, Err(E::Full));
        assert_eq!(calls, 2);
    }

    #[test]
    fn devnet6_genesis_streams_to_its_root() {
        let dir = match std::env::var_os("FVERKLE_VECTORS") {
            Some(d) => std::path::PathBuf::from(d),
            None => {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors")
            }
        };
        let path = dir.join("genesis/devnet6_genesis.json");
        let file = std::fs::File::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (set FVERKLE_VECTORS)", path.display()));
        let mut tree = verkle::Tree::new();
        let counts = stream_genesis_leaves(file, Layout::Legacy, "devnet6", 7, |b| {
            tree.apply(b.into_iter().map(|(k, v)| (k, Some(v))))
                .map_err(|_| ImportError::Shape {
                    source_name: "devnet6".into(),
                    what: "apply failed",
                })?;
            tree.commit();
            Ok::<(), ImportError>(())
        })
        .unwrap();
        assert_eq!(counts.leaves, 1354);
        assert!(counts.batches > 1);
        assert_eq!(
            hex::encode(tree.root_bytes()),
            "1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee"
        );
    }
}
