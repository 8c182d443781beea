//! `fverkle verify --pre-root 0x… [--post-root 0x…] FILE`, and for fractional proofs
//! `fverkle verify --fractional (--pre-root R | --coordinator-root C) [--post-root R2]
//! [--post-coordinator-root C2] FILE` (`fractional.rs`), and for binary witnesses
//! `fverkle verify --tree eip7864|eip8297 [--hash H] --pre-root R [--post-root R2] FILE`
//! (`binary_witness.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use witness::ExecutionWitness;

use super::binary_witness;
use super::read_input;
use super::verify_fractional::Anchors;
use crate::args::{HashArg, Kind, TreeArg};
use crate::outcome::Outcome;
use chain::hexarg::{parse_root, to_hex};

/// Arguments of `fverkle verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tree the witness is for: a binary tree's witness (`spec/BINARY.md`) is its bytes.
    #[arg(long, value_enum, default_value = "verkle")]
    tree: TreeArg,
    /// A binary tree's hash, as for `fverkle root`.
    #[arg(long, value_enum)]
    hash: Option<HashArg>,
    /// The state root the witness must prove against (the parent block's state root).
    #[arg(long, value_parser = parse_root, required_unless_present = "coordinator_root")]
    pre_root: Option<[u8; 32]>,
    /// Also check the post-state root computed from the witness's new values alone.
    #[arg(long, value_parser = parse_root)]
    post_root: Option<[u8; 32]>,
    /// FILE is a fractional proof (`spec/FRACTIONAL.md`): the `fverkle prove --fractional`
    /// JSON (its `fractionalProof` hex) or the proof's bytes. It is checked against
    /// --pre-root (the canonical state root a header carries) or --coordinator-root.
    #[arg(long)]
    fractional: bool,
    /// With --fractional: check the proof against this coordinator root instead of a
    /// state root.
    #[arg(long, value_parser = parse_root, requires = "fractional", conflicts_with = "pre_root")]
    coordinator_root: Option<[u8; 32]>,
    /// With --fractional: also check the coordinator root after the proof's writes.
    #[arg(long, value_parser = parse_root, requires = "fractional")]
    post_coordinator_root: Option<[u8; 32]>,
    /// Treat an unbound absence (a key proven absent in a way a hostile prover could fake
    /// within the EIP-6800 format, `spec/WIRE.md` §6.6) as a verdict of invalid.
    #[arg(long)]
    strict: bool,
    /// A JSON document holding one execution witness (bare, or inside a block, engine
    /// payload, header or beacon-API block), or an `.ssz` file; `-` reads stdin.
    file: PathBuf,
}

fn decode(path: &Path, bytes: Vec<u8>) -> Result<ExecutionWitness> {
    let name = path.display();
    let is_ssz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ssz"));
    if is_ssz {
        return ExecutionWitness::from_ssz(bytes::Bytes::from(bytes))
            .with_context(|| format!("{name}: not an SSZ execution witness"));
    }
    let text = std::str::from_utf8(&bytes).with_context(|| format!("{name}: not UTF-8 JSON"))?;
    ExecutionWitness::from_json_str(text)
        .with_context(|| format!("{name}: no usable execution witness"))
}

/// Runs the subcommand.
pub fn run(args: &Args, json: bool, out: &mut impl Write) -> Result<Outcome> {
    if let Some(kind) = Kind::of(args.tree, args.hash)? {
        if args.fractional || args.strict {
            anyhow::bail!(
                "--fractional and --strict are for Verkle witnesses, not --tree {}",
                kind.tree()
            );
        }
        let Some(pre_root) = args.pre_root else {
            anyhow::bail!("--pre-root is required");
        };
        let anchors = binary_witness::Anchors {
            pre_root,
            post_root: args.post_root,
        };
        return binary_witness::verify(kind, &anchors, &args.file, json, out);
    }
    if args.fractional {
        let anchors = Anchors {
            pre_root: args.pre_root,
            coordinator_root: args.coordinator_root,
            post_root: args.post_root,
            post_coordinator_root: args.post_coordinator_root,
        };
        return super::verify_fractional::run(&args.file, &anchors, json, out);
    }
    let Some(pre_root) = args.pre_root else {
        anyhow::bail!("--pre-root is required (--coordinator-root is for --fractional)");
    };
    let t0 = Instant::now();
    let bytes = read_input(&args.file)?;
    let witness_bytes = bytes.len();
    let w = decode(&args.file, bytes)?;
    let decode_us = t0.elapsed().as_micros();
    let t1 = Instant::now();
    let verdict = witness::verify(&pre_root, &w);
    let verify_us = t1.elapsed().as_micros();
    let file = args.file.display().to_string();
    let unbound = verdict.as_ref().map_or(0, |v| v.unbound_absences());
    let unbound_writes = verdict.as_ref().map_or(0, |v| v.unbound_writes());
    let mut post_state_us = None;
    let (ok, reason, post) = match &verdict {
        Ok(_) if args.strict && unbound > 0 => (
            false,
            Some(format!(
                "{unbound} unbound absences (--strict): the proof does not rule out that those keys exist"
            )),
            None,
        ),
        Err(e) => (false, Some(e.to_string()), None),
        Ok(v) => match args.post_root {
            None => (true, None, None),
            Some(expected) => {
                let t2 = Instant::now();
                let post = v.post_state_root();
                post_state_us = Some(t2.elapsed().as_micros());
                match post {
                    Ok(got) if got == expected => (true, None, Some(got)),
                    Ok(got) => (
                        false,
                        Some(format!(
                            "post-state root mismatch: computed {}, expected {}",
                            to_hex(&got),
                            to_hex(&expected)
                        )),
                        Some(got),
                    ),
                    Err(e) => (false, Some(format!("post-state root: {e}")), None),
                }
            }
        },
    };
    let stems = w.state_diff().len();
    let keys = w.state_diff().suffix_diff_count();
    if json {
        let line = serde_json::json!({
            "file": file,
            "ok": ok,
            "pre_root": to_hex(&pre_root),
            "post_root": post.map(|p| to_hex(&p)),
            "stems": stems,
            "keys": keys,
            "unbound_absences": unbound,
            "unbound_writes": unbound_writes,
            "witness_bytes": witness_bytes,
            "ssz_bytes": w.as_ssz().len(),
            "proof_bytes": chain::binary::carry::verkle_proof_bytes(&w),
            "decode_us": decode_us,
            "verify_us": verify_us,
            "post_state_us": post_state_us,
            "error": reason,
        });
        writeln!(out, "{line}")?;
    } else if ok {
        writeln!(
            out,
            "{file}: valid ({stems} stems, {keys} keys, {witness_bytes} bytes; decode {decode_us} µs, verify {verify_us} µs){}",
            post.map(|p| format!("; post-state root {}", to_hex(&p))).unwrap_or_default()
        )?;
        if unbound > 0 {
            writeln!(
                out,
                "{file}: {unbound} unbound absences ({unbound_writes} written): the EIP-6800 proof does not rule out that those keys exist; --strict rejects them"
            )?;
        }
    } else {
        writeln!(out, "{file}: INVALID: {}", reason.unwrap_or_default())?;
    }
    Ok(if ok { Outcome::Ok } else { Outcome::Invalid })
}
