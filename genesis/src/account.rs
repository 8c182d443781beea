//! One genesis account: its JSON fields, checked one by one.

use serde_json::Value as Json;

use verkle::keys::{address32, Value};
use verkle::U256;

use super::error::*;

/// Decodes hex with an optional `0x` prefix (odd length allowed: a leading zero nibble).
pub fn hex_bytes(s: &str) -> Result<Vec<u8>, FieldError> {
    let h = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let padded;
    let h = if h.len() % 2 == 1 {
        padded = format!("0{h}");
        padded.as_str()
    } else {
        h
    };
    hex::decode(h).map_err(|e| FieldError::BadHex {
        message: e.to_string(),
    })
}

/// Exactly `N` bytes of hex.
pub(super) fn hex_fixed<const N: usize>(s: &str) -> Result<[u8; N], FieldError> {
    let b = hex_bytes(s)?;
    b.as_slice()
        .try_into()
        .map_err(|_| FieldError::WrongLength {
            expected: N,
            got: b.len(),
        })
}

/// Up to 32 bytes of hex, left-padded (geth's genesis storage keys and values).
pub fn hex_word(s: &str) -> Result<[u8; 32], FieldError> {
    let b = hex_bytes(s)?;
    if b.len() > 32 {
        return Err(FieldError::TooLong {
            max: 32,
            got: b.len(),
        });
    }
    let mut w = [0u8; 32];
    w[32 - b.len()..].copy_from_slice(&b);
    Ok(w)
}

/// A number given as a decimal or `0x` string, or as a JSON integer.
pub fn number(v: &Json) -> Result<U256, FieldError> {
    match v {
        Json::String(s) => Ok(U256::parse(s)?),
        Json::Number(n) => n.as_u64().map(U256::from_u64).ok_or(FieldError::WrongType {
            expected: "a non-negative integer or a number string",
        }),
        _ => Err(FieldError::WrongType {
            expected: "a number string",
        }),
    }
}

pub(super) fn string(v: &Json) -> Result<&str, FieldError> {
    v.as_str().ok_or(FieldError::WrongType {
        expected: "a string",
    })
}

/// One account, parsed.
pub(super) struct ParsedAccount {
    pub(super) name: String,
    pub(super) address: [u8; 32],
    pub(super) balance: U256,
    pub(super) nonce: u64,
    pub(super) code: Vec<u8>,
    pub(super) storage: Vec<(U256, Value)>,
}

pub(super) fn parse_account(
    name: &str,
    body: &Json,
) -> Result<ParsedAccount, (String, FieldError)> {
    let field = |f: &str| f.to_owned();
    let addr: [u8; 20] = hex_fixed(name).map_err(|e| (field("address"), e))?;
    let obj = body.as_object().ok_or((
        field("account"),
        FieldError::WrongType {
            expected: "an object",
        },
    ))?;
    let balance = number(
        obj.get("balance")
            .ok_or((field("balance"), FieldError::Missing))?,
    )
    .map_err(|e| (field("balance"), e))?;
    let nonce = match obj.get("nonce") {
        None => 0,
        Some(v) => number(v)
            .map_err(|e| (field("nonce"), e))?
            .to_u64()
            .ok_or((field("nonce"), FieldError::NonceTooLarge))?,
    };
    let code = match obj.get("code") {
        None => Vec::new(),
        Some(v) => string(v)
            .and_then(hex_bytes)
            .map_err(|e| (field("code"), e))?,
    };
    let mut storage = Vec::new();
    if let Some(s) = obj.get("storage") {
        let map = s.as_object().ok_or((
            field("storage"),
            FieldError::WrongType {
                expected: "an object",
            },
        ))?;
        for (k, v) in map {
            let slot = hex_word(k).map_err(|e| (format!("storage key {k}"), e))?;
            let value = string(v)
                .and_then(hex_word)
                .map_err(|e| (format!("storage[{k}]"), e))?;
            // geth's SetState of zero on a new account is a no-op: no leaf.
            if value != [0u8; 32] {
                storage.push((U256::from_be_bytes(&slot), value));
            }
        }
    }
    Ok(ParsedAccount {
        name: name.to_owned(),
        address: address32(&addr),
        balance,
        nonce,
        code,
        storage,
    })
}
