//! `fverkle replay` on the shapes operators have: JSON-RPC responses as a verkle-era geth
//! returns `eth_getBlockByNumber`, top-level arrays, and gzip or zstd compressed files.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value as Json};

use crate::common::{chain_blocks, devnet6_genesis, fverkle, json_lines, show, vectors};

/// Blocks 1..=n of the Kaustinen6 export as geth's `eth_getBlockByNumber(n, false)` result:
/// quantities as `0x` strings, `number` rather than `blockNumber`, the header's names,
/// `executionWitness` as go-verkle marshals it (`suffix` a JSON number), no
/// `parentStateRoot`.
fn geth_blocks(n: usize) -> Vec<Json> {
    chain_blocks()
        .into_iter()
        .take(n)
        .map(|b| {
            let number = b["blockNumber"].as_u64().unwrap();
            let timestamp: u64 = b["timestamp"].as_str().unwrap().parse().unwrap();
            let gas_used: u64 = b["gasUsed"].as_str().unwrap().parse().unwrap();
            let mut witness = b["executionWitness"].clone();
            for stem in witness["stateDiff"].as_array_mut().unwrap() {
                for d in stem["suffixDiffs"].as_array_mut().unwrap() {
                    let s: u64 = d["suffix"].as_str().unwrap().parse().unwrap();
                    d["suffix"] = json!(s);
                }
            }
            json!({
                "baseFeePerGas": "0x7",
                "difficulty": "0x0",
                "extraData": "0xd883010d0c846765746888676f312e32312e36856c696e7578",
                "gasLimit": "0x1c9c380",
                "gasUsed": format!("0x{gas_used:x}"),
                "hash": b["blockHash"],
                "logsBloom": format!("0x{}", "00".repeat(256)),
                "miner": "0xf97e180c050e5ab072211ad2c213eb5aee4df134",
                "mixHash": format!("0x{}", "00".repeat(32)),
                "nonce": "0x0000000000000000",
                "number": format!("0x{number:x}"),
                "parentBeaconBlockRoot": format!("0x{}", "00".repeat(32)),
                "parentHash": b["parentHash"],
                "receiptsRoot": "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
                "sha3Uncles": "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
                "size": "0x5d4",
                "stateRoot": b["stateRoot"],
                "timestamp": format!("0x{timestamp:x}"),
                "totalDifficulty": "0x1",
                "transactions": [],
                "transactionsRoot": "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
                "uncles": [],
                "withdrawals": [],
                "withdrawalsRoot": "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
                "executionWitness": witness,
            })
        })
        .collect()
}

fn response(id: usize, result: &Json) -> Json {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    e.include_checksum(true).unwrap();
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn replay(genesis: &Path, files: &[PathBuf]) -> std::process::Output {
    fverkle()
        .args([
            "--json",
            "replay",
            "--layout",
            "legacy",
            "--chain",
            "kaustinen6",
        ])
        .arg("--genesis")
        .arg(genesis)
        .args(files)
        .output()
        .unwrap()
}

/// The block reports of a run: (number, post_root).
fn reports(out: &std::process::Output) -> Vec<(u64, Json)> {
    json_lines(out)
        .into_iter()
        .filter(|l| l.get("number").is_some())
        .map(|l| {
            assert_eq!(l["ok"], true, "{l}");
            (l["number"].as_u64().unwrap(), l["post_root"].clone())
        })
        .collect()
}

#[test]
fn geth_json_rpc_blocks_replay_as_one_response_a_batch_and_lines_compressed_or_not() {
    let blocks = geth_blocks(12);
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    let text = |v: &Json| serde_json::to_string_pretty(v).unwrap();
    let one = write(
        dir.path(),
        "b1.json",
        text(&response(1, &blocks[0])).as_bytes(),
    );
    let batch: Vec<Json> = (1..4).map(|i| response(i + 1, &blocks[i])).collect();
    let batch = write(
        dir.path(),
        "b2-4.json.zst",
        &zstd(text(&json!(batch)).as_bytes()),
    );
    let lines: String = (4..8)
        .map(|i| format!("{}\n", response(i + 1, &blocks[i])))
        .collect();
    let lines = write(dir.path(), "b5-8.jsonl.gz", &gzip(lines.as_bytes()));
    let plain_lines: String = (8..12)
        .map(|i| format!("{}\n", response(i + 1, &blocks[i])))
        .collect();
    let plain_lines = write(dir.path(), "b9-12.jsonl", plain_lines.as_bytes());
    // The genesis too, gzip compressed under a name that does not say so.
    let genesis = write(
        dir.path(),
        "genesis.json",
        &gzip(&std::fs::read(devnet6_genesis()).unwrap()),
    );
    let out = replay(&genesis, &[one, batch, lines, plain_lines]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let got = reports(&out);
    assert_eq!(got.len(), 12, "{}", show(&out));
    for ((n, root), b) in got.iter().zip(&chain) {
        assert_eq!(*n, b["blockNumber"].as_u64().unwrap());
        assert_eq!(*root, b["stateRoot"], "block {n}");
    }
    let summary = json_lines(&out).pop().unwrap();
    assert_eq!(summary["root"], chain[11]["stateRoot"]);
}

#[test]
fn a_top_level_array_of_blocks_replays() {
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    let arr = write(
        dir.path(),
        "arr.json",
        serde_json::to_string_pretty(&json!(chain[..5]))
            .unwrap()
            .as_bytes(),
    );
    let out = replay(&devnet6_genesis(), &[arr]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let got = reports(&out);
    assert_eq!(got.len(), 5);
    assert_eq!(got[4].1, chain[4]["stateRoot"]);
}

#[test]
fn a_json_rpc_error_exits_2_naming_file_line_code_and_message() {
    let blocks = geth_blocks(2);
    let dir = tempfile::tempdir().unwrap();
    let err = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "header not found"}});
    let f = write(
        dir.path(),
        "rpc.jsonl",
        format!("{}\n{err}\n", response(1, &blocks[0])).as_bytes(),
    );
    let out = replay(&devnet6_genesis(), std::slice::from_ref(&f));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: line 2: JSON-RPC error -32000: header not found (request id 2)",
            f.display()
        )),
        "{}",
        show(&out)
    );
    // Block 1 was replayed before the error was met.
    assert_eq!(reports(&out).len(), 1, "{}", show(&out));
}

#[test]
fn a_block_saying_number_and_block_number_differently_exits_2() {
    let mut b = geth_blocks(1).remove(0);
    b["blockNumber"] = json!(2);
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "both.json", b.to_string().as_bytes());
    let out = replay(&devnet6_genesis(), std::slice::from_ref(&f));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("fields blockNumber and number disagree: 2 and 1"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_truncated_compressed_export_exits_2_naming_the_file() {
    let chain = chain_blocks();
    let dir = tempfile::tempdir().unwrap();
    let lines: String = chain[..20].iter().map(|b| format!("{b}\n")).collect();
    for (name, packed) in [
        ("cut.jsonl.gz", gzip(lines.as_bytes())),
        ("cut.jsonl.zst", zstd(lines.as_bytes())),
    ] {
        let f = write(dir.path(), name, &packed[..packed.len() * 2 / 3]);
        let out = replay(&devnet6_genesis(), std::slice::from_ref(&f));
        assert_eq!(out.status.code(), Some(2), "{name}: {}", show(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{}: truncated or corrupt", f.display())),
            "{name}: {}",
            show(&out)
        );
    }
}

#[test]
fn a_compressed_eest_fixture_replays() {
    let fixture = vectors().join("witness/eest_verkleBlock.json");
    let text = std::fs::read(&fixture).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, packed) in [
        ("eest_verkleBlock.json.zst", zstd(&text)),
        ("eest_verkleBlock.json.gz", gzip(&text)),
    ] {
        let f = write(dir.path(), name, &packed);
        let out = fverkle()
            .args(["--json", "replay", "--eest"])
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", show(&out));
        let lines = json_lines(&out);
        assert_eq!(lines.len(), 1, "{name}");
        assert_eq!(lines[0]["ok"], true, "{name}");
        let cut = write(
            dir.path(),
            &format!("cut-{name}"),
            &packed[..packed.len() / 2],
        );
        let out = fverkle()
            .args(["--json", "replay", "--eest"])
            .arg(&cut)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains(&format!("{}: truncated or corrupt", cut.display())),
            "{name}: {}",
            show(&out)
        );
    }
}
