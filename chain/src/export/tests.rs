use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn empty_witness_json() -> Json {
    let w = witness::OwnedExecutionWitness::default()
        .to_witness()
        .expect("empty witness encodes");
    w.to_json_value()
}

#[test]
fn reads_the_three_shapes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let root = format!("0x{}", "11".repeat(32));
    let b =
        |n: u64| serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
    let doc = serde_json::json!({"blocks": [b(1), b(2)]});
    let f1 = write(
        dir.path(),
        "doc.json",
        &serde_json::to_string_pretty(&doc).expect("json"),
    );
    let f2 = write(
        dir.path(),
        "lines.jsonl",
        &format!("{}\n\n{}\n", b(3), b(4)),
    );
    let beacon = serde_json::json!({"data": {"message": {"body": {"execution_payload": {
        "block_number": "5", "state_root": root, "execution_witness": w}}}}});
    let f3 = write(
        dir.path(),
        "beacon.json",
        &serde_json::to_string_pretty(&beacon).expect("json"),
    );
    let got: Vec<u64> = ExportReader::new(&[f1, f2, f3])
        .map(|b| b.expect("block decodes").number)
        .collect();
    assert_eq!(got, [1, 2, 3, 4, 5]);
}

#[test]
fn errors_name_file_line_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let good = serde_json::json!({"blockNumber": 1, "stateRoot": format!("0x{}", "11".repeat(32)), "executionWitness": w});
    let bad = serde_json::json!({"blockNumber": 2, "stateRoot": "0xzz", "executionWitness": w});
    let f = write(dir.path(), "x.jsonl", &format!("{good}\n{bad}\n{{\"trunc"));
    let mut r = ExportReader::new(&[f]);
    assert_eq!(r.next().expect("one").expect("ok").number, 1);
    let e = format!("{:#}", r.next().expect("two").expect_err("bad root"));
    assert!(
        e.contains("x.jsonl: line 2: block 2: field stateRoot"),
        "{e}"
    );
    let e = format!("{:#}", r.next().expect("three").expect_err("truncated"));
    assert!(e.contains("x.jsonl: line 3: not JSON"), "{e}");
    assert!(r.next().is_none());
}

/// A block as a verkle-era geth returns it from `eth_getBlockByNumber`: quantities as
/// `0x` strings, `number` (not `blockNumber`), no `parentStateRoot`.
fn geth_block(n: u64, w: &Json) -> Json {
    serde_json::json!({
        "baseFeePerGas": "0x7",
        "difficulty": "0x0",
        "extraData": "0x",
        "gasLimit": "0x1c9c380",
        "gasUsed": "0x0",
        "hash": format!("0x{}", "ab".repeat(32)),
        "logsBloom": format!("0x{}", "00".repeat(256)),
        "miner": "0xf97e180c050e5ab072211ad2c213eb5aee4df134",
        "mixHash": format!("0x{}", "cd".repeat(32)),
        "nonce": "0x0000000000000000",
        "number": format!("0x{n:x}"),
        "parentHash": format!("0x{}", "ef".repeat(32)),
        "receiptsRoot": format!("0x{}", "56".repeat(32)),
        "sha3Uncles": format!("0x{}", "1d".repeat(32)),
        "size": "0x2ba",
        "stateRoot": format!("0x{}", "22".repeat(32)),
        "timestamp": "0x66193c3c",
        "totalDifficulty": "0x1",
        "transactions": [],
        "transactionsRoot": format!("0x{}", "56".repeat(32)),
        "uncles": [],
        "withdrawals": [],
        "withdrawalsRoot": format!("0x{}", "56".repeat(32)),
        "executionWitness": w,
    })
}

fn response(id: u64, result: Json) -> Json {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn numbers(files: &[PathBuf]) -> Vec<u64> {
    ExportReader::new(files)
        .map(|b| b.expect("block decodes").number)
        .collect()
}

#[test]
fn reads_json_rpc_responses_batches_and_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let one = write(
        dir.path(),
        "one.json",
        &serde_json::to_string_pretty(&response(1, geth_block(0x10, &w))).expect("json"),
    );
    let batch = serde_json::json!([
        response(2, geth_block(0x11, &w)),
        response(3, geth_block(0x12, &w))
    ]);
    let batch = write(
        dir.path(),
        "batch.json",
        &serde_json::to_string_pretty(&batch).expect("json"),
    );
    let lines = write(
        dir.path(),
        "lines.jsonl",
        &format!(
            "{}\n{}\n",
            response(4, geth_block(0x13, &w)),
            response(5, geth_block(0x14, &w))
        ),
    );
    let batch_line = write(
        dir.path(),
        "batch-line.json",
        &format!(
            "{}\n",
            serde_json::json!([response(6, geth_block(0x15, &w))])
        ),
    );
    assert_eq!(
        numbers(&[one.clone(), batch, lines, batch_line]),
        [0x10, 0x11, 0x12, 0x13, 0x14, 0x15]
    );
    let b = ExportReader::new(&[one])
        .next()
        .expect("one block")
        .expect("decodes");
    assert_eq!(b.state_root, [0x22; 32]);
    assert_eq!(b.parent_state_root, None);
    assert!(b.origin.ends_with("one.json"), "{}", b.origin);
}

#[test]
fn a_json_rpc_error_names_file_line_code_and_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let err = serde_json::json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32000, "message": "header not found"}});
    let f = write(
        dir.path(),
        "rpc.jsonl",
        &format!("{}\n{err}\n", response(7, geth_block(1, &w))),
    );
    let mut r = ExportReader::new(&[f]);
    assert_eq!(r.next().expect("one").expect("ok").number, 1);
    let e = format!("{:#}", r.next().expect("two").expect_err("rpc error"));
    assert!(
        e.contains("rpc.jsonl: line 2: JSON-RPC error -32000: header not found (request id 8)"),
        "{e}"
    );
    let null = write(
        dir.path(),
        "null.json",
        &serde_json::json!({"jsonrpc": "2.0", "id": 9, "result": null}).to_string(),
    );
    let e = format!(
        "{:#}",
        ExportReader::new(&[null])
            .next()
            .expect("one")
            .expect_err("null result")
    );
    assert!(
        e.contains("null.json: line 1: JSON-RPC response (request id 9): field result: null"),
        "{e}"
    );
}

#[test]
fn number_and_block_number_must_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let root = format!("0x{}", "11".repeat(32));
    let same = serde_json::json!({"blockNumber": 3, "number": "0x3", "stateRoot": root, "executionWitness": w});
    let differ = serde_json::json!({"blockNumber": 3, "number": "0x4", "stateRoot": root, "executionWitness": w});
    let f = write(dir.path(), "n.jsonl", &format!("{same}\n{differ}\n"));
    let mut r = ExportReader::new(&[f]);
    assert_eq!(r.next().expect("one").expect("agree").number, 3);
    let e = format!("{:#}", r.next().expect("two").expect_err("disagree"));
    assert!(
        e.contains("n.jsonl: line 2: fields blockNumber and number disagree: 3 and 4"),
        "{e}"
    );
}

#[test]
fn reads_a_top_level_array_of_blocks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let root = format!("0x{}", "11".repeat(32));
    let b =
        |n: u64| serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
    let arr = serde_json::json!([b(1), b(2), b(3)]);
    let pretty = write(
        dir.path(),
        "arr.json",
        &serde_json::to_string_pretty(&arr).expect("json"),
    );
    let compact = write(dir.path(), "arr1.json", &arr.to_string());
    assert_eq!(numbers(&[pretty.clone(), compact]), [1, 2, 3, 1, 2, 3]);
    let origins: Vec<String> = ExportReader::new(&[pretty])
        .map(|b| b.expect("decodes").origin)
        .collect();
    assert!(origins[2].ends_with("arr.json: [2]"), "{origins:?}");
}

#[test]
fn every_shape_reads_the_same_gzip_or_zstd_compressed() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let root = format!("0x{}", "11".repeat(32));
    let b =
        |n: u64| serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
    let shapes = [
        serde_json::to_string_pretty(&serde_json::json!({"blocks": [b(1), b(2)]})).expect("json"),
        format!("{}\n{}\n", b(1), b(2)),
        serde_json::to_string_pretty(&serde_json::json!([b(1), b(2)])).expect("json"),
        format!(
            "{}\n{}\n",
            response(1, geth_block(1, &w)),
            response(2, geth_block(2, &w))
        ),
        serde_json::json!([
            response(1, geth_block(1, &w)),
            response(2, geth_block(2, &w))
        ])
        .to_string(),
    ];
    for (i, text) in shapes.iter().enumerate() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text.as_bytes()).expect("gzip");
        let gz = gz.finish().expect("gzip");
        let zst = zstd::encode_all(text.as_bytes(), 3).expect("zstd");
        // Names do not decide: a gzip file named `.zst` and a zstd file named `.json`.
        let fg = dir.path().join(format!("{i}.zst"));
        std::fs::write(&fg, &gz).expect("write");
        let fz = dir.path().join(format!("{i}.json"));
        std::fs::write(&fz, &zst).expect("write");
        assert_eq!(numbers(&[fg, fz]), [1, 2, 1, 2], "shape {i}");
        let from_bytes: Vec<u64> = ExportReader::from_bytes("mem", gz)
            .map(|b| b.expect("decodes").number)
            .collect();
        assert_eq!(from_bytes, [1, 2], "shape {i} from bytes");
    }
}

#[test]
fn a_truncated_compressed_export_is_a_typed_error_naming_the_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let w = empty_witness_json();
    let root = format!("0x{}", "11".repeat(32));
    let text: String = (1..=200)
        .map(|n| {
            let b = serde_json::json!({"blockNumber": n, "stateRoot": root, "executionWitness": w});
            format!("{b}\n")
        })
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).expect("gzip");
    let gz = gz.finish().expect("gzip");
    let zst = zstd::encode_all(text.as_bytes(), 3).expect("zstd");
    for (name, packed) in [("cut.jsonl.gz", gz), ("cut.jsonl.zst", zst)] {
        let f = write(dir.path(), name, "");
        std::fs::write(&f, &packed[..packed.len() * 3 / 4]).expect("write");
        let results: Vec<Result<ExportedBlock>> = ExportReader::new(&[f]).collect();
        let (last, good) = results.split_last().expect("some results");
        assert!(good.iter().all(|b| b.is_ok()), "{name}");
        let e = last.as_ref().expect_err("truncated");
        let typed = e
            .downcast_ref::<input::InputError>()
            .unwrap_or_else(|| panic!("{name}: not an InputError: {e:#}"));
        assert!(
            matches!(typed, input::InputError::Corrupt { file, .. } if file.ends_with(name)),
            "{typed:?}"
        );
    }
}

#[test]
fn a_parent_state_root_inside_the_witness_is_read_and_must_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = empty_witness_json();
    w["parentStateRoot"] = serde_json::json!(format!("0x{}", "33".repeat(32)));
    let inner = response(1, geth_block(5, &w));
    let mut agree = geth_block(6, &w);
    agree["parentStateRoot"] = serde_json::json!(format!("0x{}", "33".repeat(32)));
    let mut differ = geth_block(7, &w);
    differ["parentStateRoot"] = serde_json::json!(format!("0x{}", "44".repeat(32)));
    let f = write(
        dir.path(),
        "p.jsonl",
        &format!("{inner}\n{agree}\n{differ}\n"),
    );
    let mut r = ExportReader::new(&[f]);
    let b = r.next().expect("one").expect("ok");
    assert_eq!(b.parent_state_root, Some([0x33; 32]));
    let b = r.next().expect("two").expect("ok");
    assert_eq!(b.parent_state_root, Some([0x33; 32]));
    let e = format!("{:#}", r.next().expect("three").expect_err("disagree"));
    assert!(
        e.contains("p.jsonl: line 3: block 7: fields parentStateRoot and executionWitness.parentStateRoot disagree"),
        "{e}"
    );
}

#[test]
fn a_binary_export_line_is_named_and_refused() {
    let line = crate::binary::export::block_line(
        crate::binary::BinaryKind::Eip8297,
        1,
        &[1; 32],
        &[2; 32],
        &[1, 2, 0, 0],
    );
    let mut r = ExportReader::from_bytes("bin.jsonl", format!("{line}\n").into_bytes());
    let e = r.next().expect("an item").expect_err("refused");
    let msg = format!("{e:#}");
    assert!(msg.contains("bin.jsonl: line 1"), "{msg}");
    assert!(
        msg.contains("binary-tree block") && msg.contains("--tree"),
        "{msg}"
    );
}
