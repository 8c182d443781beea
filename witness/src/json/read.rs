//! A witness object read into the owned form, accepting the variants found in real data.

use crate::prelude::*;

use serde_json::{Map, Value};

use super::path::Path;
use crate::error::JsonError;
use crate::owned::{
    OwnedExecutionWitness, OwnedIpaProof, OwnedStemStateDiff, OwnedSuffixStateDiff,
    OwnedVerkleProof,
};
use crate::preset::{IPA_PROOF_DEPTH, MAX_COMMITMENTS, MAX_STEMS, VERKLE_WIDTH};

fn object<'v>(v: &'v Value, path: &Path<'_>) -> Result<&'v Map<String, Value>, JsonError> {
    v.as_object().ok_or_else(|| JsonError::Type {
        path: path.render(),
        expected: "an object",
    })
}

fn array<'v>(v: &'v Value, path: &Path<'_>, max: usize) -> Result<&'v [Value], JsonError> {
    let a = v.as_array().ok_or_else(|| JsonError::Type {
        path: path.render(),
        expected: "an array",
    })?;
    if a.len() > max {
        return Err(JsonError::TooMany {
            path: path.render(),
            count: a.len(),
            max,
        });
    }
    Ok(a)
}

/// Looks a field up by its camelCase or its snake_case name; an object holding both is
/// refused, since either could be the one meant.
fn lookup<'v>(
    obj: &'v Map<String, Value>,
    camel: &'static str,
    snake: &'static str,
    path: &Path<'_>,
) -> Result<Option<(&'static str, &'v Value)>, JsonError> {
    match (obj.get(camel), obj.get(snake)) {
        (Some(_), Some(_)) if camel != snake => Err(JsonError::DuplicateField {
            path: path.render(),
            camel,
            snake,
        }),
        (Some(v), _) => Ok(Some((camel, v))),
        (None, Some(v)) => Ok(Some((snake, v))),
        (None, None) => Ok(None),
    }
}

fn required<'v>(
    obj: &'v Map<String, Value>,
    camel: &'static str,
    snake: &'static str,
    path: &Path<'_>,
) -> Result<(&'static str, &'v Value), JsonError> {
    lookup(obj, camel, snake, path)?.ok_or_else(|| JsonError::Missing {
        path: path.render(),
        field: camel,
    })
}

fn hex_str<'v>(v: &'v Value, path: &Path<'_>) -> Result<&'v [u8], JsonError> {
    let s = v.as_str().ok_or_else(|| JsonError::Type {
        path: path.render(),
        expected: "a hex string",
    })?;
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    Ok(s.as_bytes())
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes hex digits into `out`, whose length must be `ceil(digits / 2)`; an odd number of
/// digits is read as if left-padded with one `0`.
fn decode_hex(digits: &[u8], out: &mut [u8], path: &Path<'_>) -> Result<(), JsonError> {
    let bad = || JsonError::Hex {
        path: path.render(),
    };
    let (head, pairs) = if digits.len() % 2 == 1 {
        digits.split_at(1)
    } else {
        digits.split_at(0)
    };
    let mut out_iter = out.iter_mut();
    if let Some(&c) = head.first() {
        let slot = out_iter.next().ok_or_else(bad)?;
        *slot = nibble(c).ok_or_else(bad)?;
    }
    for (slot, pair) in out_iter.zip(pairs.chunks_exact(2)) {
        let (hi, lo) = match pair {
            [h, l] => (nibble(*h), nibble(*l)),
            _ => (None, None),
        };
        *slot = (hi.ok_or_else(bad)? << 4) | lo.ok_or_else(bad)?;
    }
    Ok(())
}

fn hex_fixed<const N: usize>(v: &Value, path: &Path<'_>) -> Result<[u8; N], JsonError> {
    let digits = hex_str(v, path)?;
    let got = digits.len().div_ceil(2);
    if got != N {
        return Err(JsonError::Length {
            path: path.render(),
            got,
            expected: N,
        });
    }
    let mut out = [0u8; N];
    decode_hex(digits, &mut out, path)?;
    Ok(out)
}

fn hex_vec(v: &Value, path: &Path<'_>, max: usize) -> Result<Vec<u8>, JsonError> {
    let digits = hex_str(v, path)?;
    let len = digits.len().div_ceil(2);
    if len > max {
        return Err(JsonError::TooMany {
            path: path.render(),
            count: len,
            max,
        });
    }
    let mut out = vec![0u8; len];
    decode_hex(digits, &mut out, path)?;
    Ok(out)
}

fn optional32(v: Option<&Value>, path: &Path<'_>) -> Result<Option<[u8; 32]>, JsonError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => hex_fixed::<32>(v, path).map(Some),
    }
}

/// `suffix`, in 0..=255: a JSON integer (go-verkle), a string of decimal digits without
/// sign, space or leading zero (the beacon API's `"78"`), or `0x` and one or two hex digits.
fn suffix(v: &Value, path: &Path<'_>) -> Result<u8, JsonError> {
    let parsed = match v {
        Value::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()),
        Value::String(s) => suffix_str(s),
        _ => None,
    };
    parsed.ok_or_else(|| JsonError::Suffix {
        path: path.render(),
        got: v.to_string(),
    })
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

fn points<const N: usize>(
    v: &Value,
    path: &Path<'_>,
    max: usize,
) -> Result<Vec<[u8; N]>, JsonError> {
    let items = array(v, path, max)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(hex_fixed::<N>(item, &path.index(i))?);
    }
    Ok(out)
}

fn ipa_points(v: &Value, path: &Path<'_>) -> Result<[[u8; 32]; IPA_PROOF_DEPTH], JsonError> {
    let items = array(v, path, usize::MAX)?;
    if items.len() != IPA_PROOF_DEPTH {
        return Err(JsonError::WrongCount {
            path: path.render(),
            got: items.len(),
            expected: IPA_PROOF_DEPTH,
        });
    }
    let mut out = [[0u8; 32]; IPA_PROOF_DEPTH];
    for (i, (slot, item)) in out.iter_mut().zip(items).enumerate() {
        *slot = hex_fixed::<32>(item, &path.index(i))?;
    }
    Ok(out)
}

pub(super) fn read_owned(v: &Value, path: &Path<'_>) -> Result<OwnedExecutionWitness, JsonError> {
    let obj = object(v, path)?;
    let (k, sd) = required(obj, "stateDiff", "state_diff", path)?;
    let sd_path = path.key(k);
    let stems = array(sd, &sd_path, MAX_STEMS)?;
    let mut state_diff = Vec::with_capacity(stems.len());
    for (i, s) in stems.iter().enumerate() {
        let sp = sd_path.index(i);
        let so = object(s, &sp)?;
        let (k, stem) = required(so, "stem", "stem", &sp)?;
        let stem = hex_fixed::<31>(stem, &sp.key(k))?;
        let (k, diffs) = required(so, "suffixDiffs", "suffix_diffs", &sp)?;
        let dp = sp.key(k);
        let diffs = array(diffs, &dp, VERKLE_WIDTH)?;
        let mut suffix_diffs = Vec::with_capacity(diffs.len());
        for (j, d) in diffs.iter().enumerate() {
            let p = dp.index(j);
            let o = object(d, &p)?;
            let (k, sfx) = required(o, "suffix", "suffix", &p)?;
            let suffix = suffix(sfx, &p.key(k))?;
            let cur = lookup(o, "currentValue", "current_value", &p)?;
            let current_value = optional32(cur.map(|c| c.1), &p.key(cur.map_or("", |c| c.0)))?;
            let new = lookup(o, "newValue", "new_value", &p)?;
            let new_value = optional32(new.map(|c| c.1), &p.key(new.map_or("", |c| c.0)))?;
            suffix_diffs.push(OwnedSuffixStateDiff {
                suffix,
                current_value,
                new_value,
            });
        }
        state_diff.push(OwnedStemStateDiff { stem, suffix_diffs });
    }

    let (k, vp) = required(obj, "verkleProof", "verkle_proof", path)?;
    let vpp = path.key(k);
    let vpo = object(vp, &vpp)?;
    let (k, other) = required(vpo, "otherStems", "other_stems", &vpp)?;
    let other_stems = points::<31>(other, &vpp.key(k), MAX_STEMS)?;
    let (k, ext) = required(
        vpo,
        "depthExtensionPresent",
        "depth_extension_present",
        &vpp,
    )?;
    let depth_extension_present = hex_vec(ext, &vpp.key(k), MAX_STEMS)?;
    let (k, comms) = required(vpo, "commitmentsByPath", "commitments_by_path", &vpp)?;
    let commitments_by_path = points::<32>(comms, &vpp.key(k), MAX_COMMITMENTS)?;
    let (k, d) = required(vpo, "d", "d", &vpp)?;
    let d = hex_fixed::<32>(d, &vpp.key(k))?;
    let (k, ipa) = required(vpo, "ipaProof", "ipa_proof", &vpp)?;
    let ip = vpp.key(k);
    let io = object(ipa, &ip)?;
    let (k, cl) = required(io, "cl", "cl", &ip)?;
    let cl = ipa_points(cl, &ip.key(k))?;
    let (k, cr) = required(io, "cr", "cr", &ip)?;
    let cr = ipa_points(cr, &ip.key(k))?;
    let (k, fe) = required(io, "finalEvaluation", "final_evaluation", &ip)?;
    // JSON carries the scalar big-endian; the model keeps the SSZ/multiproof little-endian.
    let mut final_evaluation = hex_fixed::<32>(fe, &ip.key(k))?;
    final_evaluation.reverse();

    Ok(OwnedExecutionWitness {
        state_diff,
        verkle_proof: OwnedVerkleProof {
            other_stems,
            depth_extension_present,
            commitments_by_path,
            d,
            ipa_proof: OwnedIpaProof {
                cl,
                cr,
                final_evaluation,
            },
        },
    })
}
