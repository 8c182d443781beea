//! `vectors/code/` (besu): chunking and code-chunk keys.

use verkle::keys::{address32, chunkify_code, AccountKeys};

use crate::common::{hex0x, read_json, unhex};

fn check_chunking(file: &str) {
    let doc = read_json(file);
    let cases = doc.as_array().unwrap();
    assert!(!cases.is_empty(), "{file}: no cases");
    for (i, case) in cases.iter().enumerate() {
        let code = unhex(case["bytecode"].as_str().unwrap());
        let want: Vec<Vec<u8>> = case["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| unhex(c.as_str().unwrap()))
            .collect();
        let got = chunkify_code(&code);
        assert_eq!(got.len(), want.len(), "{file} case {i}: chunk count");
        for (j, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(&g[..], &w[..], "{file} case {i}: chunk {j}");
        }
    }
}

#[test]
fn chunkify_code_vector() {
    check_chunking("code/chunkifyCode.json");
}

#[test]
fn chunkify_push32_on_31st_byte_vector() {
    check_chunking("code/chukifyCodePush32on31stByte.json");
    // The vector really exercises the cap: some chunk starts with 31 bytes of push data.
    let doc = read_json("code/chukifyCodePush32on31stByte.json");
    let code = unhex(doc[0]["bytecode"].as_str().unwrap());
    assert!(chunkify_code(&code).iter().any(|c| c[0] == 31));
}

#[test]
fn contract_code_chunk_keys_and_values() {
    let doc = read_json("code/contractCode.json");
    let cases = doc.as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let addr = address32(&unhex(case["address"].as_str().unwrap()).try_into().unwrap());
        let code = unhex(case["bytecode"].as_str().unwrap());
        let chunks = chunkify_code(&code);
        let keys = AccountKeys::new(&addr).code_chunk_keys(chunks.len() as u64);
        let want = case["chunks"].as_array().unwrap();
        assert_eq!(chunks.len(), want.len(), "chunk count");
        for (i, w) in want.iter().enumerate() {
            assert_eq!(
                hex0x(&keys[i]),
                w["key"].as_str().unwrap(),
                "key of chunk {i}"
            );
            assert_eq!(hex0x(&chunks[i]), w["value"].as_str().unwrap(), "chunk {i}");
        }
    }
}
