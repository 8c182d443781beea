//! Typed, located reads from untrusted JSON: every failure names the JSON Pointer.

use serde_json::Value;

use crate::error::VectorError;

/// Longest hex string we read (a 2.5 MB witness in SSZ is 5 M digits; our suite stays far
/// below). Bounds allocation from a single field.
const MAX_HEX_DIGITS: usize = 1 << 24;

/// A JSON value and where it is (`file/pointer` or `file: case/pointer`).
pub(crate) struct Loc<'a> {
    pub value: &'a Value,
    pub at: String,
}

impl<'a> Loc<'a> {
    /// A value at the place named `at`.
    pub fn root(value: &'a Value, at: impl Into<String>) -> Loc<'a> {
        Loc {
            value,
            at: at.into(),
        }
    }

    /// The member `key`; missing is an error.
    pub fn get(&self, key: &str) -> Result<Loc<'a>, VectorError> {
        self.opt(key)
            .ok_or_else(|| VectorError::field(&self.at, format!("missing field `{key}`")))
    }

    /// The member `key`, if present and not null.
    pub fn opt(&self, key: &str) -> Option<Loc<'a>> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(Loc {
                value: v,
                at: format!("{}/{key}", self.at),
            }),
        }
    }

    /// The elements of an array.
    pub fn items(&self) -> Result<Vec<Loc<'a>>, VectorError> {
        let arr = self
            .value
            .as_array()
            .ok_or_else(|| VectorError::field(&self.at, "expected an array"))?;
        Ok(arr
            .iter()
            .enumerate()
            .map(|(i, v)| Loc {
                value: v,
                at: format!("{}/{i}", self.at),
            })
            .collect())
    }

    /// A string.
    pub fn str(&self) -> Result<&'a str, VectorError> {
        self.value
            .as_str()
            .ok_or_else(|| VectorError::field(&self.at, "expected a string"))
    }

    /// An unsigned integer (a JSON number, or a decimal string).
    pub fn u64(&self) -> Result<u64, VectorError> {
        match self.value {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
        .ok_or_else(|| VectorError::field(&self.at, "expected an unsigned integer"))
    }

    /// A boolean.
    pub fn bool(&self) -> Result<bool, VectorError> {
        self.value
            .as_bool()
            .ok_or_else(|| VectorError::field(&self.at, "expected true or false"))
    }

    /// Hex bytes, `0x` optional, an odd digit count read as left-padded with one `0`.
    pub fn hex(&self) -> Result<Vec<u8>, VectorError> {
        parse_hex(self.str()?).map_err(|reason| VectorError::field(&self.at, reason))
    }

    /// Hex of exactly `N` bytes.
    pub fn hex_n<const N: usize>(&self) -> Result<[u8; N], VectorError> {
        let bytes = self.hex()?;
        let len = bytes.len();
        bytes
            .try_into()
            .map_err(|_| VectorError::field(&self.at, format!("expected {N} bytes, got {len}")))
    }

    /// A decimal string (at most 78 digits) as 32 little-endian bytes.
    pub fn decimal_le(&self) -> Result<[u8; 32], VectorError> {
        decimal_le(self.str()?).map_err(|reason| VectorError::field(&self.at, reason))
    }
}

/// Parses hex (see [`Loc::hex`]).
pub(crate) fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    if digits.len() > MAX_HEX_DIGITS {
        return Err(format!("hex string of {} digits is too long", digits.len()));
    }
    let padded;
    let digits = if digits.len() % 2 == 1 {
        padded = format!("0{digits}");
        padded.as_str()
    } else {
        digits
    };
    hex::decode(digits).map_err(|e| format!("bad hex: {e}"))
}

/// A decimal string as 32 little-endian bytes; more than 256 bits is an error.
pub(crate) fn decimal_le(s: &str) -> Result<[u8; 32], String> {
    if s.is_empty() || s.len() > 78 {
        return Err(format!("`{s}` is not a decimal number below 2^256"));
    }
    let mut out = [0u8; 32];
    for ch in s.bytes() {
        if !ch.is_ascii_digit() {
            return Err(format!("`{s}` is not a decimal number"));
        }
        let mut carry = u32::from(ch - b'0');
        for b in out.iter_mut() {
            let v = u32::from(*b) * 10 + carry;
            *b = (v & 0xff) as u8;
            carry = v >> 8;
        }
        if carry != 0 {
            return Err(format!("`{s}` does not fit in 256 bits"));
        }
    }
    Ok(out)
}

/// `0x`-prefixed lowercase hex.
pub(crate) fn hex0x(bytes: &[u8]) -> String {
    format!("0x{}", hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_and_hex_parse_and_reject() {
        let mut one = [0u8; 32];
        one[0] = 1;
        assert_eq!(decimal_le("1"), Ok(one));
        assert_eq!(decimal_le("256").map(|b| (b[0], b[1])), Ok((0, 1)));
        assert!(decimal_le("1x").is_err());
        assert!(decimal_le(&"9".repeat(78)).is_err(), "above 2^256");
        assert_eq!(parse_hex("0xa0a0808"), Ok(vec![0x0a, 0x0a, 0x08, 0x08]));
        assert!(parse_hex("0xzz").is_err());
    }
}
