//! Trees written from `key,value` rows: the row files of `fverkle root` and `fverkle prove
//! --csv` ([`csv`]: hex keys and values, `delete`, errors naming file, line and field), the
//! trees they are applied to ([`RowTree`]: Verkle, EIP-8297, EIP-7864), and the binary trees'
//! witnesses for a keys file ([`WitnessTree`], `spec/BINARY.md`).

pub mod csv;

use anyhow::{Context, Result};
use bintree::witness::{WitnessError, Write};
use bintree::{eip7864, eip8297, TreeHash};

use csv::{parse_key_writes, parse_rows, CsvError, KeyRule, Row};

/// A tree the rows of a file are written to, in order.
pub trait RowTree {
    /// Parses `text` (the file `name`) and applies its rows; returns how many.
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize>;
    /// The root after every file applied so far.
    fn root(&mut self) -> [u8; 32];
}

impl RowTree for verkle::Tree {
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize> {
        let rows: Vec<Row<[u8; 32]>> = parse_rows(text, name, KeyRule::Verkle, None)?;
        let count = rows.len();
        self.apply(rows.into_iter().map(|r| (r.key, r.value)))
            .with_context(|| format!("{name}: applying leaves"))?;
        Ok(count)
    }

    fn root(&mut self) -> [u8; 32] {
        self.root_bytes()
    }
}

/// EIP-8297 rows one at a time, so that a key that is not prefix-free with a present key is
/// reported at its line; the root is rehashed once per file.
impl<H: TreeHash> RowTree for eip8297::Tree<H> {
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize> {
        let rule = KeyRule::Range {
            max: eip8297::MAX_KEY_LENGTH,
        };
        let rows: Vec<Row<Vec<u8>>> = parse_rows(text, name, rule, None)?;
        for row in &rows {
            // A zero value is stored as a present leaf (tree-level write, as the trie vectors).
            let written = match &row.value {
                Some(value) => self.insert(&row.key, value),
                None => self.remove(&row.key).map(drop),
            };
            written.map_err(|reason| CsvError::Tree {
                source_name: name.to_owned(),
                line: row.line,
                reason,
            })?;
        }
        Ok(rows.len())
    }

    fn root(&mut self) -> [u8; 32] {
        eip8297::Tree::root(self)
    }
}

impl<H: TreeHash> RowTree for eip7864::Tree<H> {
    fn apply_file(&mut self, text: &str, name: &str) -> Result<usize> {
        let rows: Vec<Row<[u8; 32]>> = parse_rows(text, name, KeyRule::Fixed32, Some("EIP-7864"))?;
        // `parse_rows` rejected every `delete`: each row has a value.
        self.apply(rows.iter().filter_map(|r| r.value.map(|v| (r.key, v))))
            .with_context(|| format!("{name}: applying leaves"))?;
        Ok(rows.len())
    }

    fn root(&mut self) -> [u8; 32] {
        eip7864::Tree::root(self)
    }
}

/// A binary tree that writes witnesses for the keys of a keys file.
pub trait WitnessTree: RowTree {
    /// The keys file's reads and writes, keys in this tree's form.
    fn key_writes(text: &str, name: &str) -> Result<Vec<(Vec<u8>, Write)>>;
    /// The witness for `writes` against the current state.
    fn witness_for(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>, WitnessError>;
}

impl<H: TreeHash> WitnessTree for eip7864::Tree<H> {
    fn key_writes(text: &str, name: &str) -> Result<Vec<(Vec<u8>, Write)>> {
        let keys: Vec<([u8; 32], Write)> =
            parse_key_writes(text, name, KeyRule::Fixed32, Some("EIP-7864"))?;
        Ok(keys.into_iter().map(|(k, w)| (k.to_vec(), w)).collect())
    }

    fn witness_for(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>, WitnessError> {
        self.witness(writes)
    }
}

impl<H: TreeHash> WitnessTree for eip8297::Tree<H> {
    fn key_writes(text: &str, name: &str) -> Result<Vec<(Vec<u8>, Write)>> {
        let rule = KeyRule::Range {
            max: eip8297::MAX_KEY_LENGTH,
        };
        Ok(parse_key_writes(text, name, rule, None)?)
    }

    fn witness_for(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>, WitnessError> {
        self.witness(writes)
    }
}
