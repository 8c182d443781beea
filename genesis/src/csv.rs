//! `tree_key,value` CSV files, and the line reading every `key,value` file shares.

use verkle::keys::{TreeKey, Value};

use super::{account::*, error::*};

/// What is wrong with the shape of a `key,value` line, before its fields are read (a closed
/// set: a line has a key, a value and at most an empty third field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineShape {
    /// No comma: the value is missing (reported on the field `value`).
    MissingValue,
    /// More fields than `key,value[,]` (reported on the field `line`).
    ExtraField,
}

impl From<LineShape> for FieldError {
    fn from(shape: LineShape) -> Self {
        match shape {
            LineShape::MissingValue => FieldError::Missing,
            LineShape::ExtraField => FieldError::ExtraField,
        }
    }
}

/// A rejected line of a `key,value` file: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError<F> {
    /// 1-based line number.
    pub line: usize,
    /// `key`, `value` or `line`.
    pub field: &'static str,
    /// What is wrong.
    pub reason: F,
}

/// Reads the `key,value` lines of `text` in order and calls `row` with each line's 1-based
/// number and its trimmed key and value text, collecting what it returns.
///
/// Surrounding spaces, `\r\n`, blank lines and a missing final newline are fine, and a line
/// may end with one extra comma. A line without a value or with more fields is rejected as
/// its [`LineShape`]; `row` rejects a field by returning the field's name and the reason.
pub fn read_key_value_lines<T, F: From<LineShape>>(
    text: &str,
    mut row: impl FnMut(usize, &str, &str) -> Result<T, (&'static str, F)>,
) -> Result<Vec<T>, LineError<F>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let at = |field: &'static str, reason: F| LineError {
            line: i + 1,
            field,
            reason,
        };
        let mut fields = line.split(',');
        let key_text = fields.next().unwrap_or("").trim();
        let value_text = fields
            .next()
            .ok_or_else(|| at("value", LineShape::MissingValue.into()))?
            .trim();
        match (fields.next(), fields.next()) {
            (None, _) => {}
            (Some(last), None) if last.trim().is_empty() => {}
            _ => return Err(at("line", LineShape::ExtraField.into())),
        }
        out.push(row(i + 1, key_text, value_text).map_err(|(field, reason)| at(field, reason))?);
    }
    Ok(out)
}

/// Parses `tree_key,value` lines (32-byte hex each, `0x` optional). A line may end with one
/// extra comma; blank lines and a missing final newline are fine; `\r\n` is accepted.
pub fn parse_leaf_csv(text: &str, source_name: &str) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    read_key_value_lines(text, |_, key_text, value_text| {
        let key: TreeKey = hex_fixed(key_text).map_err(|e| ("key", e))?;
        let value: Value = hex_fixed(value_text).map_err(|e| ("value", e))?;
        Ok((key, value))
    })
    .map_err(
        |LineError {
             line,
             field,
             reason,
         }| ImportError::Csv {
            source_name: source_name.to_owned(),
            line,
            field,
            reason,
        },
    )
}
