//! The body of the `block_export` fuzz target (`fuzz/`), also run by this crate's
//! tests on the shared vectors.

use crate::export::{block_json, ExportReader};

/// Blocks read from one input at most (each error counts as one).
const MAX_BLOCKS: usize = 1024;

/// Reads `data` as an export file (a `{"blocks": [...]}` document, JSON Lines or a beacon
/// dump); every block that reads is written back as `fverkle gen` writes it and read again,
/// and must come back unchanged. Returns the number of blocks read.
///
/// # Panics
/// Only if that round trip changes a block, or a block's recorded witness size is not its
/// SSZ length.
pub fn block_export(data: &[u8]) -> usize {
    let mut read = 0;
    for block in ExportReader::from_bytes("input", data.to_vec()).take(MAX_BLOCKS) {
        let Ok(b) = block else { continue };
        read += 1;
        assert_eq!(b.witness_bytes, b.witness.as_ssz().len(), "{}", b.origin);
        let parent = b.parent_state_root.unwrap_or_default();
        let line = block_json(b.number, &parent, &b.state_root, &b.witness).to_string();
        let mut again = ExportReader::from_bytes("written", line.into_bytes());
        let back = match again.next() {
            Some(Ok(back)) => back,
            Some(Err(e)) => panic!("{}: written back, does not read: {e:#}", b.origin),
            None => panic!("{}: written back, no block", b.origin),
        };
        assert!(again.next().is_none(), "{}: one block written", b.origin);
        assert_eq!(back.number, b.number, "{}", b.origin);
        assert_eq!(back.state_root, b.state_root, "{}", b.origin);
        assert_eq!(back.parent_state_root, Some(parent), "{}", b.origin);
        assert_eq!(back.witness, b.witness, "{}", b.origin);
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// `$FVERKLE_VECTORS`, or `<workspace root>/../shared/vectors`.
    fn vectors_dir() -> PathBuf {
        match std::env::var_os("FVERKLE_VECTORS") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
        }
    }

    fn read(rel: &str) -> Vec<u8> {
        let path = vectors_dir().join(rel);
        std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "vector file {} is missing or unreadable ({e}); set FVERKLE_VECTORS",
                path.display()
            )
        })
    }

    #[test]
    fn block_export_reads_the_kaustinen6_chain_and_its_lines() {
        let chain = read("chain/kaustinen6_witness_chain_0001-0200.json");
        assert_eq!(block_export(&chain), 200);
        // The same blocks as JSON Lines, one per line, and one block alone.
        let doc: serde_json::Value = serde_json::from_slice(&chain).expect("chain is JSON");
        let blocks = doc["blocks"].as_array().expect("blocks array");
        let lines: String = blocks.iter().take(20).map(|b| format!("{b}\n")).collect();
        assert_eq!(block_export(lines.as_bytes()), 20);
        let one = serde_json::to_string_pretty(&blocks[71]).expect("JSON");
        assert_eq!(block_export(one.as_bytes()), 1);
    }

    #[test]
    fn block_export_reads_a_beacon_dump() {
        let dump = read("witness/beacon.block.15.test.json");
        assert_eq!(block_export(&dump), 1);
    }

    #[test]
    fn block_export_survives_cut_and_garbled_exports() {
        let chain = read("chain/kaustinen6_witness_chain_0001-0200.json");
        let doc: serde_json::Value = serde_json::from_slice(&chain).expect("chain is JSON");
        let lines: String = doc["blocks"]
            .as_array()
            .expect("blocks array")
            .iter()
            .take(3)
            .map(|b| format!("{b}\n"))
            .collect();
        let bytes = lines.as_bytes();
        let mut readable = 0;
        for cut in (0..bytes.len()).step_by(97) {
            readable += block_export(&bytes[..cut]);
            let mut garbled = bytes.to_vec();
            garbled[cut] ^= 0x20;
            readable += block_export(&garbled);
        }
        // Cuts after the first line keep it readable; most garbled copies keep two lines.
        assert!(readable > bytes.len() / 97, "{readable} blocks read");
    }
}
