//! Parsing of hex command-line arguments.

/// Parses a 32-byte value written as hex, with or without `0x`.
pub fn parse_root(s: &str) -> Result<[u8; 32], String> {
    let h = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if h.len() != 64 {
        return Err(format!(
            "expected 32 bytes as 64 hex digits, got {} digits",
            h.len()
        ));
    }
    let bytes = hex::decode(h).map_err(|e| format!("not hex: {e}"))?;
    bytes
        .try_into()
        .map_err(|_| "expected 32 bytes".to_string())
}

/// `0x`-prefixed lowercase hex.
pub fn to_hex(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}
