//! Locating and reading the binary-tree vectors; small parsers.

use std::path::PathBuf;

use serde_json::Value;

/// `$FVERKLE_BINARY_VECTORS`, or `<workspace root>/../shared/binary-tree`.
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("FVERKLE_BINARY_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/binary-tree"),
    }
}

/// Reads and parses a vector file; a missing file fails the test, naming the path. Every bare
/// JSON number is read as its decimal text (a string), so that 77-digit slots and balances
/// above 2^64 keep every digit.
pub fn read_json(rel: &str) -> Value {
    let path = vectors_dir().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "vector file {} is missing or unreadable ({e}); set FVERKLE_BINARY_VECTORS to the binary-tree vectors directory",
            path.display()
        )
    });
    serde_json::from_str(&quote_numbers(&text))
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// The JSON text with every number outside strings turned into a string of its text.
fn quote_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == '-' || c.is_ascii_digit() {
            out.push('"');
            out.push(c);
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() || matches!(d, '.' | 'e' | 'E' | '+' | '-') {
                    out.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push('"');
        } else {
            out.push(c);
        }
    }
    out
}

/// Bytes of a hex string, with or without `0x`.
pub fn hex(value: &Value) -> Vec<u8> {
    let s = value
        .as_str()
        .unwrap_or_else(|| panic!("not a hex string: {value}"));
    let s = s.strip_prefix("0x").unwrap_or(s);
    assert!(s.len().is_multiple_of(2), "odd-length hex {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|_| panic!("bad hex {s}")))
        .collect()
}

/// A hex string of exactly `N` bytes.
pub fn hex_n<const N: usize>(value: &Value) -> [u8; N] {
    let bytes = hex(value);
    bytes
        .as_slice()
        .try_into()
        .unwrap_or_else(|_| panic!("expected {N} bytes, got {}: {value}", bytes.len()))
}

/// A non-negative integer given as decimal text or `0x` hex, as 32 bytes big-endian.
pub fn u256(value: &Value) -> [u8; 32] {
    let s = value
        .as_str()
        .unwrap_or_else(|| panic!("not a number: {value}"));
    let mut out = [0u8; 32];
    if let Some(h) = s.strip_prefix("0x") {
        let h = if h.len() % 2 == 1 {
            format!("0{h}")
        } else {
            h.to_string()
        };
        let bytes = hex(&Value::String(h));
        assert!(bytes.len() <= 32, "{s} exceeds 256 bits");
        out[32 - bytes.len()..].copy_from_slice(&bytes);
        return out;
    }
    for digit in s.bytes() {
        assert!(digit.is_ascii_digit(), "not a decimal integer: {s}");
        // out = out * 10 + digit
        let mut carry = u32::from(digit - b'0');
        for byte in out.iter_mut().rev() {
            let v = u32::from(*byte) * 10 + carry;
            *byte = v as u8;
            carry = v >> 8;
        }
        assert_eq!(carry, 0, "{s} exceeds 256 bits");
    }
    out
}

/// An integer of at most 128 bits (decimal or hex).
pub fn u128_of(value: &Value) -> u128 {
    let bytes = u256(value);
    assert!(
        bytes[..16].iter().all(|&b| b == 0),
        "{value} exceeds 128 bits"
    );
    u128::from_be_bytes(bytes[16..].try_into().unwrap())
}

/// An integer of at most 64 bits (decimal or hex).
pub fn u64_of(value: &Value) -> u64 {
    u64::try_from(u128_of(value)).unwrap_or_else(|_| panic!("{value} exceeds 64 bits"))
}

/// A JSON array field, failing with its name.
pub fn array<'a>(value: &'a Value, field: &str) -> &'a Vec<Value> {
    value[field]
        .as_array()
        .unwrap_or_else(|| panic!("missing array `{field}`"))
}

/// A case's name, for messages.
pub fn name(case: &Value) -> &str {
    case["name"].as_str().unwrap_or("<unnamed>")
}

/// Prints what a test checked and fails unless it read every case it was given.
pub fn report(file: &str, section: &str, checked: usize, total: usize, skipped: usize) {
    eprintln!("{file} {section}: {checked} checked, {skipped} skipped of {total}");
    assert_eq!(
        checked + skipped,
        total,
        "{file} {section}: a case was never read"
    );
    assert!(checked > 0, "{file} {section}: nothing checked");
}

#[test]
fn decimal_and_hex_integers() {
    let big = Value::String(
        "57896044618658097711785492504343953926634992332820282019728792003956564819968".into(),
    );
    let mut top = [0u8; 32];
    top[0] = 0x80;
    assert_eq!(u256(&big), top);
    assert_eq!(
        u128_of(&Value::String("0xde0b6b3a7640000".into())),
        1_000_000_000_000_000_000
    );
    assert_eq!(
        quote_numbers(r#"{"a": -1, "b": "7", "c": [2e3]}"#),
        r#"{"a": "-1", "b": "7", "c": ["2e3"]}"#
    );
}
