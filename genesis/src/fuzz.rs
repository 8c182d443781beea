//! Body of the `fuzz/` target `genesis`, also run by this crate's tests on the shared
//! vectors.
//!
//! It takes arbitrary bytes and must never panic except on a broken invariant of this crate
//! (which is what the assertions state).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;
use verkle::keys::{Layout, TreeKey, Value};

use crate::{genesis_leaves, parse_leaf_csv, stream_genesis_leaves, ImportError};

/// Accounts per batch of the streaming parser here: small, so batching is exercised.
const STREAM_BATCH: usize = 2;

/// Reads `data` as a genesis file with the one-shot parser ([`genesis_leaves`]) and the
/// streaming one ([`stream_genesis_leaves`]), in both layouts, and as `tree_key,value`
/// CSV ([`parse_leaf_csv`]). Returns the number of leaves of the one-shot legacy parse.
///
/// # Panics
/// Only if the two genesis parsers both accept a document without duplicate addresses but
/// give different leaves, or the streamer's counts do not match what it handed out.
pub fn genesis(data: &[u8]) -> usize {
    let text = std::str::from_utf8(data).ok();
    let distinct = text.and_then(distinct_accounts);
    let mut legacy_leaves = 0;
    for layout in [Layout::Legacy, Layout::Eip6800] {
        let mut streamed: Vec<(TreeKey, Value)> = Vec::new();
        let mut batches = 0u64;
        let counts = stream_genesis_leaves(data, layout, "input", STREAM_BATCH, |b| {
            batches += 1;
            streamed.extend(b);
            Ok::<(), ImportError>(())
        });
        let Some(text) = text else { continue };
        let whole = genesis_leaves(text, layout, "input");
        if let Ok(w) = &whole {
            if layout == Layout::Legacy {
                legacy_leaves = w.len();
            }
        }
        let (Ok(counts), Ok(whole)) = (counts, whole) else {
            continue;
        };
        assert_eq!(counts.leaves, streamed.len() as u64, "leaf count");
        assert_eq!(counts.batches, batches, "batch count");
        if distinct == Some(counts.accounts) {
            // No address twice: the same leaves, whatever the order.
            assert_eq!(by_key(&whole), by_key(&streamed), "{layout:?} leaves");
        }
    }
    if let Some(text) = text {
        let _ = parse_leaf_csv(text, "input");
    }
    legacy_leaves
}

/// The number of accounts of a genesis document (its `alloc`, or the top level), if every
/// account key is a distinct address once normalised (`0x`, case, odd length) — that is,
/// when the one-shot and streaming parsers must agree.
fn distinct_accounts(text: &str) -> Option<u64> {
    let doc: Json = serde_json::from_str(text).ok()?;
    let top = doc.as_object()?;
    let alloc = match top.get("alloc") {
        Some(a) => a.as_object()?,
        None => top,
    };
    let normalised: BTreeSet<String> = alloc
        .keys()
        .map(|k| {
            let h = k
                .strip_prefix("0x")
                .or_else(|| k.strip_prefix("0X"))
                .unwrap_or(k)
                .to_ascii_lowercase();
            if h.len() % 2 == 1 {
                format!("0{h}")
            } else {
                h
            }
        })
        .collect();
    (normalised.len() == alloc.len()).then_some(alloc.len() as u64)
}

fn by_key(leaves: &[(TreeKey, Value)]) -> BTreeMap<TreeKey, Value> {
    leaves.iter().copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors_file(rel: &str) -> Vec<u8> {
        let dir = match std::env::var_os("FVERKLE_VECTORS") {
            Some(d) => std::path::PathBuf::from(d),
            None => {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors")
            }
        };
        let path = dir.join(rel);
        std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (set FVERKLE_VECTORS)", path.display()))
    }

    #[test]
    fn genesis_body_agrees_on_the_devnet6_genesis() {
        let text = vectors_file("genesis/devnet6_genesis.json");
        // The file's 278 accounts give 1354 leaves in the legacy layout.
        assert_eq!(genesis(&text), 1354);
        assert_eq!(
            distinct_accounts(std::str::from_utf8(&text).unwrap()),
            Some(278)
        );
    }

    #[test]
    fn genesis_body_survives_cut_and_changed_geneses() {
        let text = vectors_file("genesis/devnet6_genesis.json");
        let mut parsed = 0;
        for cut in (0..text.len()).step_by(1999) {
            let _ = genesis(&text[..cut]);
            let mut changed = text.clone();
            changed[cut] = b"0x\"{}:,9f"[cut % 9];
            parsed += usize::from(genesis(&changed) > 0);
        }
        assert!(parsed > 0, "some changed geneses still parse");
        // Duplicate addresses (in two spellings) are refused by neither parser, and the
        // agreement check steps aside.
        let dup = r#"{"alloc": {"0x00000000000000000000000000000000000000aa": {"balance": "1"},
                     "0x00000000000000000000000000000000000000AA": {"balance": "2"}}}"#;
        assert_eq!(distinct_accounts(dup), None);
        let _ = genesis(dup.as_bytes());
        // CSV lines go through the CSV reader.
        let _ = genesis(&vectors_file("genesis/devnet-7-block-1.csv"));
    }
}
