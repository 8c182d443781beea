//! `tree_key,value` CSV files.

use verkle::keys::{TreeKey, Value};

use super::{account::*, error::*};

/// Parses `tree_key,value` lines (32-byte hex each, `0x` optional). A line may end with one
/// extra comma; blank lines and a missing final newline are fine; `\r\n` is accepted.
pub fn parse_leaf_csv(text: &str, source_name: &str) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let err = |field: &'static str, reason: FieldError| ImportError::Csv {
            source_name: source_name.to_owned(),
            line: i + 1,
            field,
            reason,
        };
        let mut fields = line.split(',');
        let key_text = fields.next().unwrap_or("").trim();
        let value_text = fields
            .next()
            .ok_or_else(|| err("value", FieldError::Missing))?
            .trim();
        match (fields.next(), fields.next()) {
            (None, _) => {}
            (Some(last), None) if last.trim().is_empty() => {}
            _ => return Err(err("line", FieldError::ExtraField)),
        }
        let key: TreeKey = hex_fixed(key_text).map_err(|e| err("key", e))?;
        let value: Value = hex_fixed(value_text).map_err(|e| err("value", e))?;
        out.push((key, value));
    }
    Ok(out)
}
