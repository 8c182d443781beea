//! The witness's scalar values as JSON writes them: hex strings (with or without `0x`, odd
//! lengths left-padded with a `0`) and `suffix` (a JSON integer, a decimal string or short hex).
//! Each is read straight from the deserializer into bytes, with no JSON value in between.

use crate::prelude::*;

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::path::Path;
use super::skip::Skip;
use crate::error::JsonError;

/// What is wrong with a value, before it is placed at its path.
#[derive(Debug)]
pub(super) enum Bad {
    /// The value has the wrong JSON type; says what was expected.
    Type(&'static str),
    /// A hex string decodes to `got` bytes instead of `expected`.
    Length { got: usize, expected: usize },
    /// A string holds a character that is not a hex digit.
    Hex,
    /// An array or byte string is longer than its spec limit.
    TooMany { count: usize, max: usize },
    /// An array does not hold exactly `expected` entries.
    WrongCount { got: usize, expected: usize },
    /// A `suffix` outside the grammar, as the value is written in compact JSON.
    Suffix(String),
    /// A required field is missing (its camelCase name).
    Missing(&'static str),
    /// An object holds a field under both of its names.
    Duplicate {
        camel: &'static str,
        snake: &'static str,
    },
}

impl Bad {
    /// The error, naming `path`.
    pub(super) fn at(self, path: &Path<'_>) -> JsonError {
        let path = path.render();
        match self {
            Bad::Type(expected) => JsonError::Type { path, expected },
            Bad::Length { got, expected } => JsonError::Length {
                path,
                got,
                expected,
            },
            Bad::Hex => JsonError::Hex { path },
            Bad::TooMany { count, max } => JsonError::TooMany { path, count, max },
            Bad::WrongCount { got, expected } => JsonError::WrongCount {
                path,
                got,
                expected,
            },
            Bad::Suffix(got) => JsonError::Suffix { path, got },
            Bad::Missing(field) => JsonError::Missing { path, field },
            Bad::Duplicate { camel, snake } => JsonError::DuplicateField { path, camel, snake },
        }
    }
}

/// `0x`/`0X` stripped (once), leaving the digits.
fn digits(s: &str) -> &[u8] {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
        .as_bytes()
}

/// Hex digit values; 0xff marks a byte that is not a hex digit.
const NIBBLE: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

fn nibble(c: u8) -> Option<u8> {
    match NIBBLE[usize::from(c)] {
        0xff => None,
        n => Some(n),
    }
}

/// Decodes hex digits into `out`, whose length must be `ceil(digits / 2)`; an odd number of
/// digits is read as if left-padded with one `0`.
fn decode_hex(digits: &[u8], out: &mut [u8]) -> Result<(), Bad> {
    let (head, pairs) = digits.split_at(digits.len() % 2);
    let mut out = out.iter_mut();
    if let Some(&c) = head.first() {
        let slot = out.next().ok_or(Bad::Hex)?;
        *slot = nibble(c).ok_or(Bad::Hex)?;
    }
    // Invalid digits map to 0xff; OR-ing every lookup finds any of them with one test at the end.
    let mut seen = 0u8;
    for (slot, pair) in out.zip(pairs.chunks_exact(2)) {
        let (hi, lo) = match pair {
            [h, l] => (NIBBLE[usize::from(*h)], NIBBLE[usize::from(*l)]),
            _ => (0xff, 0xff),
        };
        seen |= hi | lo;
        *slot = (hi << 4) | (lo & 0x0f);
    }
    if seen & 0xf0 != 0 {
        return Err(Bad::Hex);
    }
    Ok(())
}

/// A hex string of exactly `N` bytes.
fn hex_fixed<const N: usize>(s: &str) -> Result<[u8; N], Bad> {
    let digits = digits(s);
    let got = digits.len().div_ceil(2);
    if got != N {
        return Err(Bad::Length { got, expected: N });
    }
    let mut out = [0u8; N];
    decode_hex(digits, &mut out)?;
    Ok(out)
}

const HEX_STRING: &str = "a hex string";

/// Implements the visits of types a visitor refuses: each consumes the value (through the
/// visitor's `skip`) and yields `$bad` (an expression of type `Bad`) as the value's outcome.
macro_rules! refuse_other_types {
    ($bad:expr) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Err($bad))
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Err($bad))
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Err($bad))
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Err($bad))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            self.skip.seq(seq)?;
            Ok(Err($bad))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            self.skip.map(map)?;
            Ok(Err($bad))
        }
    };
}

/// A hex string of exactly `N` bytes (a stem, a point, a scalar).
pub(super) struct HexFixed<const N: usize> {
    pub(super) skip: Skip,
}

impl<'de, const N: usize> DeserializeSeed<'de> for HexFixed<N> {
    type Value = Result<[u8; N], Bad>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for HexFixed<N> {
    type Value = Result<[u8; N], Bad>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(HEX_STRING)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(hex_fixed(s))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(Bad::Type(HEX_STRING)))
    }
    refuse_other_types!(Bad::Type(HEX_STRING));
}

/// A value of 32 bytes or `null` (absent); a missing field is read as `null` by the caller.
pub(super) struct Optional32 {
    pub(super) skip: Skip,
}

impl<'de> DeserializeSeed<'de> for Optional32 {
    type Value = Result<Option<[u8; 32]>, Bad>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Optional32 {
    type Value = Result<Option<[u8; 32]>, Bad>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a hex string or null")
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(hex_fixed(s).map(Some))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Ok(None))
    }
    refuse_other_types!(Bad::Type(HEX_STRING));
}

/// A hex string of at most `max` bytes, decoded into `out` (replacing what it held).
pub(super) struct HexBytes<'o> {
    pub(super) out: &'o mut Vec<u8>,
    pub(super) max: usize,
    pub(super) skip: Skip,
}

impl<'de> DeserializeSeed<'de> for HexBytes<'_> {
    type Value = Result<(), Bad>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HexBytes<'_> {
    type Value = Result<(), Bad>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(HEX_STRING)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        let digits = digits(s);
        let len = digits.len().div_ceil(2);
        if len > self.max {
            return Ok(Err(Bad::TooMany {
                count: len,
                max: self.max,
            }));
        }
        self.out.clear();
        self.out.resize(len, 0);
        Ok(decode_hex(digits, self.out))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(Bad::Type(HEX_STRING)))
    }
    refuse_other_types!(Bad::Type(HEX_STRING));
}

/// `suffix`, in 0..=255: a JSON integer (go-verkle), a string of decimal digits without
/// sign, space or leading zero (the beacon API's `"78"`), or `0x` and one or two hex digits.
/// Anything else is refused with the value as compact JSON.
pub(super) struct Suffix;

impl<'de> DeserializeSeed<'de> for Suffix {
    type Value = Result<u8, Bad>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// The refusal of a suffix written as `v`.
fn bad_suffix(v: Value) -> Result<u8, Bad> {
    Err(Bad::Suffix(v.to_string()))
}

impl<'de> Visitor<'de> for Suffix {
    type Value = Result<u8, Bad>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a suffix")
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
        Ok(u8::try_from(n).or_else(|_| bad_suffix(Value::from(n))))
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
        Ok(bad_suffix(Value::from(n)))
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Self::Value, E> {
        Ok(bad_suffix(Value::from(n)))
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Self::Value, E> {
        Ok(bad_suffix(Value::Bool(b)))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(bad_suffix(Value::Null))
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(suffix_str(s).ok_or_else(|| Bad::Suffix(Value::String(s.to_owned()).to_string())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            items.push(v);
        }
        Ok(bad_suffix(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Map::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            entries.insert(k, v);
        }
        Ok(bad_suffix(Value::Object(entries)))
    }
}

fn suffix_str(s: &str) -> Option<u8> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if !(1..=2).contains(&h.len()) {
            return None;
        }
        return h
            .bytes()
            .try_fold(0u8, |acc, c| Some((acc << 4) | nibble(c)?));
    }
    let b = s.as_bytes();
    let canonical = match b {
        [] => false,
        [b'0'] => true,
        [first, ..] => *first != b'0' && b.len() <= 3 && b.iter().all(u8::is_ascii_digit),
    };
    if !canonical {
        return None;
    }
    b.iter()
        .try_fold(0u8, |acc, d| acc.checked_mul(10)?.checked_add(d - b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_hex_is_left_padded_and_bad_digits_are_refused() {
        assert!(matches!(hex_fixed::<2>("0x123"), Ok([0x01, 0x23])));
        assert!(matches!(hex_fixed::<2>("ABCD"), Ok([0xab, 0xcd])));
        assert!(matches!(hex_fixed::<2>("0x12g4"), Err(Bad::Hex)));
        assert!(matches!(hex_fixed::<2>("0xg23"), Err(Bad::Hex)));
        assert!(matches!(
            hex_fixed::<2>("0x12345"),
            Err(Bad::Length {
                got: 3,
                expected: 2
            })
        ));
        // Every byte that is not one of the 22 hex digits is refused, in either nibble.
        for c in 0..=255u8 {
            let is_digit = c.is_ascii_hexdigit();
            let mut text = [b'0'; 4];
            text[1] = c;
            text[2] = c;
            let r = core::str::from_utf8(&text).map(hex_fixed::<2>);
            if let Ok(r) = r {
                assert_eq!(r.is_ok(), is_digit, "{c:#04x}");
            }
        }
    }

    #[test]
    fn suffix_strings_follow_the_grammar() {
        assert_eq!(suffix_str("0"), Some(0));
        assert_eq!(suffix_str("255"), Some(255));
        assert_eq!(suffix_str("0xff"), Some(255));
        assert_eq!(suffix_str("256"), None);
        assert_eq!(suffix_str("05"), None);
        assert_eq!(suffix_str("0x"), None);
    }
}
