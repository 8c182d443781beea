//! `fverkle verify --fractional (--pre-root R | --coordinator-root C) [--post-root R2]
//! [--post-coordinator-root C2] FILE`: a fractional proof checked against either anchor
//! (`spec/FRACTIONAL.md` §5), and its post-state roots (§5.1).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use witness::fractional::{verify_fractional, Anchor, FractionalProof};

use super::read_input;
use crate::outcome::Outcome;
use chain::hexarg::to_hex;

/// The proof's bytes: the `fractionalProof` hex of a JSON document (what `fverkle prove
/// --fractional` writes), or the file itself when it is not JSON.
fn proof_bytes(name: &str, bytes: Vec<u8>) -> Result<Vec<u8>> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Ok(bytes);
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&bytes).with_context(|| format!("{name}: not JSON"))?;
    let Some(hex) = doc.get("fractionalProof") else {
        bail!("{name}: field fractionalProof: missing (expected the output of `fverkle prove --fractional`)");
    };
    let Some(hex) = hex.as_str() else {
        bail!("{name}: field fractionalProof: not a string");
    };
    let digits = hex.strip_prefix("0x").unwrap_or(hex);
    hex::decode(digits).with_context(|| format!("{name}: field fractionalProof: not hex"))
}

/// A mismatch between a computed and an expected root.
fn mismatch(what: &str, got: &[u8; 32], expected: &[u8; 32]) -> Option<String> {
    (got != expected).then(|| {
        format!(
            "{what} mismatch: computed {}, expected {}",
            to_hex(got),
            to_hex(expected)
        )
    })
}

/// The roots a fractional proof is checked against (`fverkle verify --fractional`).
pub struct Anchors {
    /// `--pre-root`: the canonical state root.
    pub pre_root: Option<[u8; 32]>,
    /// `--coordinator-root`.
    pub coordinator_root: Option<[u8; 32]>,
    /// `--post-root`.
    pub post_root: Option<[u8; 32]>,
    /// `--post-coordinator-root`.
    pub post_coordinator_root: Option<[u8; 32]>,
}

/// Runs `fverkle verify --fractional` on the proof in `path`.
pub fn run(path: &Path, args: &Anchors, json: bool, out: &mut impl Write) -> Result<Outcome> {
    let file = path.display().to_string();
    let anchor = match (args.pre_root, args.coordinator_root) {
        (Some(r), None) => Anchor::StateRoot(r),
        (None, Some(c)) => Anchor::CoordinatorRoot(c),
        _ => bail!("--fractional takes one of --pre-root and --coordinator-root"),
    };
    let t0 = Instant::now();
    let bytes = proof_bytes(&file, read_input(path)?)?;
    let proof_len = bytes.len();
    let decoded = FractionalProof::from_bytes(bytes::Bytes::from(bytes));
    let decode_us = t0.elapsed().as_micros();
    let t1 = Instant::now();
    let verdict = decoded
        .map_err(witness::fractional::FractionalVerifyError::from)
        .and_then(|p| verify_fractional(&p, &anchor));
    let verify_us = t1.elapsed().as_micros();
    let mut reason = verdict.as_ref().err().map(|e| e.to_string());
    let mut post: (Option<[u8; 32]>, Option<[u8; 32]>) = (None, None);
    if let Ok(v) = &verdict {
        if args.post_root.is_some() || args.post_coordinator_root.is_some() {
            match v.post_roots() {
                Ok((state, coordinator)) => {
                    post = (Some(state), coordinator);
                    if let Some(expected) = &args.post_root {
                        reason = reason.or_else(|| mismatch("post-state root", &state, expected));
                    }
                    if let Some(expected) = &args.post_coordinator_root {
                        reason = reason.or_else(|| match &coordinator {
                            Some(c) => mismatch("post coordinator root", c, expected),
                            None => Some(
                                "the proof does not carry the coordinator path: no post coordinator root"
                                    .to_owned(),
                            ),
                        });
                    }
                }
                Err(e) => reason = Some(format!("post-state roots: {e}")),
            }
        }
    }
    let ok = reason.is_none();
    let (anchor_name, anchor_root) = match anchor {
        Anchor::StateRoot(r) => ("state_root", r),
        Anchor::CoordinatorRoot(c) => ("coordinator_root", c),
    };
    let (keys, stems, shards, written, deleted) = verdict.as_ref().map_or((0, 0, 0, 0, 0), |v| {
        let keys = v.keys();
        let written = keys.iter().filter(|k| k.new_value.is_some()).count();
        let deleted = keys.iter().filter(|k| k.deleted).count();
        (
            keys.len(),
            v.witness().stems().len(),
            v.shards().len(),
            written,
            deleted,
        )
    });
    let show = |r: Option<[u8; 32]>| r.map(|r| to_hex(&r));
    if json {
        let line = serde_json::json!({
            "file": file,
            "ok": ok,
            "fractional": true,
            "anchor": anchor_name,
            "root": to_hex(&anchor_root),
            "state_root": verdict.as_ref().ok().map(|v| to_hex(v.state_root())),
            "coordinator_root": verdict.as_ref().ok().and_then(|v| v.coordinator_root().map(|c| to_hex(c))),
            "post_state_root": show(post.0),
            "post_coordinator_root": show(post.1),
            "stems": stems,
            "keys": keys,
            "written": written,
            "deleted": deleted,
            "shards": shards,
            "proof_bytes": proof_len,
            "decode_us": decode_us,
            "verify_us": verify_us,
            "error": reason,
        });
        writeln!(out, "{line}")?;
    } else if ok {
        let mut posts = String::new();
        if let Some(p) = post.0 {
            posts.push_str(&format!("; post-state root {}", to_hex(&p)));
        }
        if let Some(p) = post.1 {
            posts.push_str(&format!("; post coordinator root {}", to_hex(&p)));
        }
        writeln!(
            out,
            "{file}: valid against the {} {} (fractional: {stems} stems, {keys} keys, {written} written, {deleted} deleted, {shards} shards, {proof_len} bytes; decode {decode_us} µs, verify {verify_us} µs){posts}",
            anchor_name.replace('_', " "),
            to_hex(&anchor_root),
        )?;
    } else {
        writeln!(out, "{file}: INVALID: {}", reason.unwrap_or_default())?;
    }
    Ok(if ok { Outcome::Ok } else { Outcome::Invalid })
}
