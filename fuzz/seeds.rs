//! Writes the fuzz targets' seed corpora: `seeds VECTORS_DIR SUITE_DIR OUT_DIR` reads the
//! shared vectors (`../shared/vectors`) and our suite (`vectors/suite`) in place and writes
//! `OUT_DIR/<target>/<name>` files, one input each, in each target's input format:
//!
//! | target | input | seeds |
//! |---|---|---|
//! | `decode_ssz` | SSZ witness | the 200 chain blocks and the 5 witness files |
//! | `decode_json` | JSON witness | the same, as JSON text |
//! | `verify` | pre-state root ‖ SSZ witness | the chain blocks with their parent roots |
//! | `fractional` | coordinator root ‖ proof | our suite's valid and invalid fractional proofs |
//! | `genesis` | genesis JSON or CSV | the genesis files, the EEST fixture's `pre` |
//! | `store_record` | node record | the records of the devnet6 genesis tree |
//! | `block_export` | export file | single blocks, 3-block JSON Lines, the beacon dump |
//!
//! Large inputs make slow fuzzing: the chain is cut into blocks rather than given whole.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use witness::ExecutionWitness;

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_json(path: &Path) -> Json {
    serde_json::from_slice(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim_start_matches("0x")).unwrap_or_else(|e| panic!("{s}: {e}"))
}

struct Out {
    dir: PathBuf,
    written: usize,
}

impl Out {
    fn put(&mut self, target: &str, name: &str, bytes: &[u8]) {
        let dir = self.dir.join(target);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.written += 1;
    }
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [vectors, suite, out] = args.as_slice() else {
        eprintln!("usage: seeds VECTORS_DIR SUITE_DIR OUT_DIR");
        std::process::exit(2);
    };
    let mut out = Out {
        dir: out.clone(),
        written: 0,
    };

    // Witnesses: the chain's blocks and the witness files.
    let chain = read_json(&vectors.join("chain/kaustinen6_witness_chain_0001-0200.json"));
    let blocks = chain["blocks"].as_array().expect("chain: blocks");
    let mut witnesses: Vec<(String, Json)> = blocks
        .iter()
        .map(|b| {
            let n = b["blockNumber"].as_u64().expect("blockNumber");
            (format!("chain_{n:03}"), b["executionWitness"].clone())
        })
        .collect();
    for file in [
        "valid_block_1",
        "valid_block_72",
        "invalid_block_72",
        "beacon.block.15.test",
        "eest_verkleBlock",
    ] {
        let doc = read_json(&vectors.join(format!("witness/{file}.json")));
        witnesses.push((file.replace('.', "_"), doc));
    }
    for (name, doc) in &witnesses {
        let w = ExecutionWitness::from_json_value(doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.put("decode_ssz", name, w.as_ssz());
        out.put("decode_json", name, w.to_json_string().as_bytes());
    }
    for (b, (name, doc)) in blocks.iter().zip(&witnesses) {
        let w = ExecutionWitness::from_json_value(doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut input = unhex(b["parentStateRoot"].as_str().expect("parentStateRoot"));
        input.extend_from_slice(w.as_ssz());
        out.put("verify", name, &input);
    }

    // Fractional proofs.
    for file in ["fractional_valid", "fractional_invalid"] {
        let doc = read_json(&suite.join(format!("{file}.json")));
        for (i, case) in doc["cases"].as_array().expect("cases").iter().enumerate() {
            let input = &case["input"];
            let mut bytes = unhex(input["root"].as_str().expect("root"));
            bytes.extend(unhex(input["proof"].as_str().expect("proof")));
            out.put("fractional", &format!("{file}_{i:02}"), &bytes);
        }
    }

    // Geneses: JSON and CSV files, and the EEST fixture's bare alloc.
    let genesis_dir = vectors.join("genesis");
    let mut genesis_files: Vec<PathBuf> = std::fs::read_dir(&genesis_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", genesis_dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    genesis_files.sort();
    for path in &genesis_files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        // The two big CSV files are cut to their first 40 lines.
        let bytes = read(path);
        let bytes = if bytes.len() > 64 * 1024 {
            let text = String::from_utf8_lossy(&bytes);
            text.lines()
                .take(40)
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        } else {
            bytes
        };
        out.put("genesis", name, &bytes);
    }
    let eest = read_json(&vectors.join("witness/eest_verkleBlock.json"));
    let pre = eest.get("pre").expect("EEST fixture: pre");
    out.put("genesis", "eest_pre.json", pre.to_string().as_bytes());

    // Node records of the devnet6 genesis tree (memory store).
    let text = String::from_utf8(read(&genesis_dir.join("devnet6_genesis.json"))).expect("UTF-8");
    let leaves = genesis::genesis_leaves(&text, verkle::keys::Layout::Legacy, "devnet6")
        .expect("devnet6");
    let mut tree = verkle::Tree::new();
    tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
        .expect("apply genesis");
    tree.commit();
    tree.persist().expect("persist");
    for (i, (_, record)) in tree.store().records().enumerate().step_by(7) {
        out.put("store_record", &format!("devnet6_{i:04}"), record);
    }

    // Block exports: single blocks, 3-block JSON Lines, the beacon dump.
    for b in blocks.iter().step_by(5) {
        let n = b["blockNumber"].as_u64().expect("blockNumber");
        let doc = serde_json::json!({ "blocks": [b] });
        out.put(
            "block_export",
            &format!("doc_{n:03}.json"),
            doc.to_string().as_bytes(),
        );
    }
    for (k, three) in blocks.chunks(3).enumerate().step_by(9) {
        let lines: String = three.iter().map(|b| format!("{b}\n")).collect();
        out.put(
            "block_export",
            &format!("lines_{k:02}.jsonl"),
            lines.as_bytes(),
        );
    }
    out.put(
        "block_export",
        "beacon_block_15.json",
        &read(&vectors.join("witness/beacon.block.15.test.json")),
    );
    println!("{} seed files in {}", out.written, out.dir.display());
}
