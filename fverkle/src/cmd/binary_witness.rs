//! Binary witnesses (`spec/BINARY.md`) for `fverkle prove --tree eip7864|eip8297` and
//! `fverkle verify --tree eip7864|eip8297`: a state from `key,value` files or from a binary
//! datadir proved for a keys file, and a witness's bytes checked against a pre-state root.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use bintree::witness::{Claim, Verified, WitnessError, Write, WriteRef};
use bintree::{eip7864, eip8297, Blake3, Sha256};

use super::read_input;
use crate::args::Kind;
use crate::outcome::Outcome;
use chain::binary::rocks::RocksBinaryState;
use chain::binary::BinaryState;
use chain::hexarg::to_hex;
use chain::rows::WitnessTree;

/// A proved witness: its bytes, the pre-state root and the number of keys.
struct Proved {
    bytes: Vec<u8>,
    pre_root: [u8; 32],
    keys: usize,
}

/// The state a binary witness is proved against.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// `key,value` files applied in order to a tree in memory.
    Csv(&'a [PathBuf]),
    /// A binary datadir (`replay --tree T --datadir DIR`) at its last block.
    Datadir(&'a Path),
}

/// The keys file's reads and writes, keys in `kind`'s form.
fn key_writes(kind: Kind, keys_text: &str, keys_name: &str) -> Result<Vec<(Vec<u8>, Write)>> {
    match kind {
        Kind::Eip7864Sha256 | Kind::Eip7864Blake3 => {
            eip7864::Tree::<Sha256>::key_writes(keys_text, keys_name)
        }
        Kind::Eip8297 => eip8297::Tree::<Blake3>::key_writes(keys_text, keys_name),
    }
}

/// Proves the keys file's keys against the binary datadir `dir` of `kind`, at its last block,
/// without changing the tree in it. A directory that holds no datadir (left as it was), an
/// empty datadir and a datadir of another tree are errors.
fn prove_datadir(kind: Kind, dir: &Path, keys_text: &str, keys_name: &str) -> Result<Proved> {
    let dd = dir.display();
    if !dir.is_dir() {
        bail!("{dd}: no such datadir");
    }
    if !dir.join("CURRENT").is_file() {
        bail!("{dd}: not a datadir (no RocksDB CURRENT file)");
    }
    let mut state = RocksBinaryState::open(dir, kind.binary())
        .with_context(|| format!("{dd}: opening the binary datadir"))?;
    let Some(height) = state.height() else {
        bail!("{dd}: empty datadir (no genesis written)");
    };
    let writes = key_writes(kind, keys_text, keys_name)?;
    let pre_root = state
        .root()
        .with_context(|| format!("{dd}: the root at block {height}"))?;
    let bytes = state.witness(&writes).with_context(|| {
        format!(
            "{keys_name}: proving {} keys at block {height} of {dd}",
            writes.len()
        )
    })?;
    Ok(Proved {
        bytes,
        pre_root,
        keys: writes.len(),
    })
}

/// Applies the state files to `tree` and proves the keys file's keys.
fn prove_in<T: WitnessTree>(
    mut tree: T,
    state: &[PathBuf],
    keys_text: &str,
    keys_name: &str,
) -> Result<Proved> {
    let writes = T::key_writes(keys_text, keys_name)?;
    for path in state {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
        tree.apply_file(&text, &name)?;
    }
    let pre_root = tree.root();
    let bytes = tree
        .witness_for(&writes)
        .map_err(|e| anyhow!("{keys_name}: proving {} keys: {e}", writes.len()))?;
    Ok(Proved {
        bytes,
        pre_root,
        keys: writes.len(),
    })
}

/// Where `prove` writes a binary witness, and whether it also prints a JSON summary.
pub struct ProveOutput<'a> {
    /// The witness file, or stdout.
    pub out: Option<&'a Path>,
    /// Print a JSON line (needs `out`: stdout would hold the witness).
    pub json: bool,
}

/// `fverkle prove --tree eip7864|eip8297`: the witness bytes for the keys file (`keys_text`,
/// named `keys_name`) against the state `source` gives; the pre-state root is logged, and
/// with `--json` printed.
pub fn prove(
    kind: Kind,
    source: Source<'_>,
    keys_text: &str,
    keys_name: &str,
    to: &ProveOutput<'_>,
    out: &mut impl std::io::Write,
) -> Result<Outcome> {
    if to.json && to.out.is_none() {
        bail!("--json with a binary witness needs --out (stdout holds the witness bytes)");
    }
    let proved = match (source, kind) {
        (Source::Datadir(dir), _) => prove_datadir(kind, dir, keys_text, keys_name),
        (Source::Csv(state), Kind::Eip7864Sha256) => {
            prove_in(eip7864::Tree::<Sha256>::new(), state, keys_text, keys_name)
        }
        (Source::Csv(state), Kind::Eip7864Blake3) => {
            prove_in(eip7864::Tree::<Blake3>::new(), state, keys_text, keys_name)
        }
        (Source::Csv(state), Kind::Eip8297) => {
            prove_in(eip8297::Tree::<Blake3>::new(), state, keys_text, keys_name)
        }
    }?;
    match to.out {
        Some(p) => std::fs::write(p, &proved.bytes)
            .with_context(|| format!("{}: cannot write", p.display()))?,
        None => out.write_all(&proved.bytes)?,
    }
    let names: Vec<String> = match source {
        Source::Csv(state) => state.iter().map(|p| p.display().to_string()).collect(),
        Source::Datadir(dir) => vec![dir.display().to_string()],
    };
    let root = to_hex(&proved.pre_root);
    if let (true, Some(p)) = (to.json, to.out) {
        let line = serde_json::json!({
            "file": p.display().to_string(),
            "tree": kind.tree(),
            "hash": kind.hash(),
            "pre_root": root,
            "keys": proved.keys,
            "witness_bytes": proved.bytes.len(),
        });
        writeln!(out, "{line}")?;
    }
    tracing::info!(
        "{}: proved {} keys on the {} tree ({}) against root {root}",
        names.join(", "),
        proved.keys,
        kind.tree(),
        kind.hash()
    );
    Ok(Outcome::Ok)
}

/// A claim as JSON: key, pre-value (null: absent), write and new value.
fn claim_json(c: Claim<'_>) -> serde_json::Value {
    let (write, new_value) = match c.write {
        WriteRef::Unchanged => ("unchanged", None),
        WriteRef::Set(v) => ("set", Some(to_hex(v))),
        WriteRef::Delete => ("delete", None),
    };
    serde_json::json!({
        "key": to_hex(c.key),
        "pre_value": c.pre.map(|v| to_hex(v)),
        "write": write,
        "new_value": new_value,
    })
}

/// Decodes and verifies `bytes` as a `kind` witness; its claims as JSON and what it proves.
fn check(
    kind: Kind,
    bytes: &[u8],
    pre_root: &[u8; 32],
) -> Result<(Vec<serde_json::Value>, Verified), WitnessError> {
    Ok(match kind {
        Kind::Eip7864Sha256 => {
            let (w, v) = eip7864::witness::verify::<Sha256>(bytes, pre_root)?;
            (w.claims().map(claim_json).collect(), v)
        }
        Kind::Eip7864Blake3 => {
            let (w, v) = eip7864::witness::verify::<Blake3>(bytes, pre_root)?;
            (w.claims().map(claim_json).collect(), v)
        }
        Kind::Eip8297 => {
            let (w, v) = eip8297::witness::verify::<Blake3>(bytes, pre_root)?;
            (w.claims().map(claim_json).collect(), v)
        }
    })
}

/// The roots a binary witness is checked against.
pub struct Anchors {
    /// The pre-state root.
    pub pre_root: [u8; 32],
    /// The post-state root, if given.
    pub post_root: Option<[u8; 32]>,
}

/// `fverkle verify --tree eip7864|eip8297`: exit 0 valid, 1 invalid (the rule and message),
/// 2 unreadable.
pub fn verify(
    kind: Kind,
    anchors: &Anchors,
    path: &Path,
    json: bool,
    out: &mut impl std::io::Write,
) -> Result<Outcome> {
    let bytes = read_input(path)?;
    let file = path.display().to_string();
    let t = Instant::now();
    let verdict = check(kind, &bytes, &anchors.pre_root);
    let verify_us = t.elapsed().as_micros();
    let (claims, post, rule, reason) = match verdict {
        Err(e) => (Vec::new(), None, Some(e.name()), Some(e.to_string())),
        Ok((claims, v)) => match anchors.post_root {
            Some(expected) if expected != v.post_root => {
                let reason = format!(
                    "--post-root mismatch: computed {}, expected {}",
                    to_hex(&v.post_root),
                    to_hex(&expected)
                );
                (claims, Some(v.post_root), None, Some(reason))
            }
            _ => (claims, Some(v.post_root), None, None),
        },
    };
    let ok = reason.is_none();
    if json {
        let line = serde_json::json!({
            "file": file,
            "ok": ok,
            "tree": kind.tree(),
            "hash": kind.hash(),
            "pre_root": to_hex(&anchors.pre_root),
            "post_root": post.map(|p| to_hex(&p)),
            "keys": claims.len(),
            "claims": claims,
            "witness_bytes": bytes.len(),
            "verify_us": verify_us,
            "rule": rule,
            "error": reason,
        });
        writeln!(out, "{line}")?;
    } else if let (true, Some(p)) = (ok, post) {
        writeln!(
            out,
            "{file}: valid ({} keys, {} bytes; verify {verify_us} µs); post-state root {}",
            claims.len(),
            bytes.len(),
            to_hex(&p)
        )?;
    } else {
        writeln!(out, "{file}: INVALID: {}", reason.unwrap_or_default())?;
    }
    Ok(if ok { Outcome::Ok } else { Outcome::Invalid })
}
