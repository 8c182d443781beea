//! The real witnesses of `shared/vectors`: they parse, carry the facts we know, round-trip
//! JSON → SSZ → decode → JSON unchanged, and are canonical.

use serde_json::{Map, Value};
use witness::{canonical::check_canonical, json::find_json_witnesses, ExecutionWitness, JsonError};

use crate::common::{
    read_json, read_text, real_witness_objects, real_witnesses, vectors_dir, CHAIN_FILE,
    WITNESS_FILES,
};

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

fn from_file(rel: &str) -> ExecutionWitness {
    ExecutionWitness::from_json_str(&read_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn valid_block_1_facts() {
    let w = from_file("witness/valid_block_1.json");
    let sd = w.state_diff();
    assert_eq!(sd.len(), 1);
    let s = sd.get(0).unwrap();
    assert_eq!(
        hex::encode(s.stem),
        "5b5fdfedd6a0e932da408ac7d772a36513d1eee9b9926e52620c43a433aad7"
    );
    assert_eq!(s.suffix_diffs.len(), 1);
    let d = s.suffix_diffs.get(0).unwrap();
    assert_eq!(d.suffix, 64);
    assert_eq!(d.current_value, None);
    assert_eq!(
        d.new_value,
        Some(&hex32(
            "0x3fe165c03e7a77d1e3759362ebeeb16fd964cb411ce11fbe35c7032fab5b9a8a"
        ))
    );
    let vp = w.verkle_proof();
    assert_eq!(vp.depth_extension_present(), &[0x09]);
    assert_eq!(vp.other_stems().len(), 1);
    assert_eq!(
        hex::encode(vp.other_stems().get(0).unwrap()),
        "5bdf12f5e17d2911dac2d2b0fc9e64a3ddc1d1ea4fc2568fe7e741ff2daa18"
    );
    assert_eq!(vp.commitments_by_path().len(), 1);
    assert_eq!(
        vp.d(),
        &hex32("0x5af46ab3e8676b9d4de8ae0be9670c45e9afd43cc11524c7946728268652028a")
    );
    let ipa = vp.ipa_proof();
    assert_eq!(
        ipa.cl[0],
        &hex32("0x6e3104792843f10a7236b6648f0d32d9ede087d55a3c8705038ed5358e073904")
    );
    assert_eq!(
        ipa.cr[7],
        &hex32("0x48585ea2484b2b902f38297e14491311d8c74002f3eaeca9ac43bf03cfc090b5")
    );
    // JSON finalEvaluation is big-endian; the view holds the SSZ little-endian bytes.
    let mut be = hex32("0x08a3079093df751fc850f3805e10cc898314688111df75aa20511c32198a93e3");
    be.reverse();
    assert_eq!(ipa.final_evaluation, &be);
    assert_eq!(ipa.final_evaluation[0], 0xe3);
}

#[test]
fn multiproof_bytes_are_d_cl_cr_final_le() {
    let w = from_file("witness/valid_block_1.json");
    let vp = w.verkle_proof();
    let ipa = vp.ipa_proof();
    let mp = vp.multiproof_bytes();
    assert_eq!(&mp[..32], vp.d());
    for i in 0..8 {
        assert_eq!(&mp[32 + 32 * i..64 + 32 * i], ipa.cl[i], "cl[{i}]");
        assert_eq!(&mp[288 + 32 * i..320 + 32 * i], ipa.cr[i], "cr[{i}]");
    }
    assert_eq!(&mp[544..], ipa.final_evaluation);
    assert_eq!(mp[544], 0xe3, "a is little-endian in the multiproof");
    assert_eq!(&mp[32..], ipa.as_bytes());
}

#[test]
fn valid_block_72_facts() {
    let w = from_file("witness/valid_block_72.json");
    assert_eq!(w.state_diff().len(), 5);
    assert_eq!(w.state_diff().suffix_diff_count(), 21);
    let vp = w.verkle_proof();
    assert_eq!(
        vp.depth_extension_present(),
        &[0x0a, 0x12, 0x0a, 0x12, 0x12]
    );
    assert_eq!(vp.other_stems().len(), 0);
    assert_eq!(vp.commitments_by_path().len(), 13);
    assert_eq!(w.state_diff().get(0).unwrap().stem[0], 0x24);
}

#[test]
fn invalid_block_72_parses_with_its_changed_stem() {
    let w = from_file("witness/invalid_block_72.json");
    let valid = from_file("witness/valid_block_72.json");
    assert_eq!(w.state_diff().get(0).unwrap().stem[0], 0x34);
    assert_ne!(w, valid);
    // Only that one byte differs.
    let diff = w
        .as_ssz()
        .iter()
        .zip(valid.as_ssz().iter())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(w.as_ssz().len(), valid.as_ssz().len());
    assert_eq!(diff, 1);
}

#[test]
fn beacon_block_15_facts() {
    let doc = read_json("witness/beacon.block.15.test.json");
    let found = find_json_witnesses(&doc).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].0,
        "/data/message/body/execution_payload/execution_witness"
    );
    let w = ExecutionWitness::from_json_value(&doc).unwrap();
    assert_eq!(w.state_diff().len(), 1);
    let d = w.state_diff().get(0).unwrap().suffix_diffs.get(0).unwrap();
    assert_eq!(d.suffix, 78, "suffix written as the string \"78\"");
    assert_eq!(d.current_value, None);
    assert!(d.new_value.is_some());
    assert_eq!(w.verkle_proof().depth_extension_present(), &[0x12]);
    assert_eq!(w.verkle_proof().commitments_by_path().len(), 3);
}

#[test]
fn eest_verkle_block_facts() {
    let w = from_file("witness/eest_verkleBlock.json");
    assert_eq!(w.state_diff().len(), 4);
    assert_eq!(
        w.verkle_proof().depth_extension_present(),
        &[0x0a, 0x0a, 0x08, 0x08],
        "odd-length 0xa0a0808 is left-padded"
    );
    assert_eq!(w.verkle_proof().other_stems().len(), 0);
    assert_eq!(w.verkle_proof().commitments_by_path().len(), 4);
    let last = w.state_diff().get(3).unwrap();
    assert_eq!(last.suffix_diffs.len(), 2);
    assert!(last
        .suffix_diffs
        .iter()
        .all(|d| d.current_value.is_none() && d.new_value.is_none()));
}

#[test]
fn kaustinen6_chain_all_200_blocks_parse() {
    let doc = read_json(CHAIN_FILE);
    let found = find_json_witnesses(&doc).unwrap();
    assert_eq!(found.len(), 200);
    for (i, (path, _)) in found.iter().enumerate() {
        assert_eq!(
            path,
            &format!("/blocks/{i}/executionWitness"),
            "document order"
        );
    }
    match ExecutionWitness::from_json_value(&doc) {
        Err(JsonError::Ambiguous { count, first, .. }) => {
            assert_eq!(count, 200);
            assert_eq!(first, "/blocks/0/executionWitness");
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
    let (mut stems, mut diffs, mut others, mut comms) = (0, 0, 0, 0);
    for (path, v) in &found {
        let w = ExecutionWitness::from_json_value(v).unwrap_or_else(|e| panic!("{path}: {e}"));
        stems += w.state_diff().len();
        diffs += w.state_diff().suffix_diff_count();
        others += w.verkle_proof().other_stems().len();
        comms += w.verkle_proof().commitments_by_path().len();
        assert_eq!(
            w.verkle_proof().depth_extension_present().len(),
            w.state_diff().len()
        );
    }
    assert_eq!((stems, diffs, others, comms), (5329, 18300, 864, 5191));
    let block_100 = ExecutionWitness::from_json_value(found[99].1).unwrap();
    assert_eq!(block_100.state_diff().len(), 97);
}

#[test]
fn every_witness_vector_file_is_read() {
    let dir = vectors_dir().join("witness");
    let listed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| format!("witness/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    for f in &listed {
        assert!(
            WITNESS_FILES.iter().any(|(known, _)| known == f),
            "{f} is not read by any test"
        );
    }
    assert_eq!(listed.len(), WITNESS_FILES.len());
}

#[test]
fn real_witnesses_are_canonical() {
    for (name, w) in real_witnesses() {
        check_canonical(&w).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn ssz_decode_encode_is_identity_on_real_witnesses() {
    for (name, w) in real_witnesses() {
        let bytes = w.as_ssz().clone();
        let again =
            ExecutionWitness::from_ssz(bytes.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again.to_owned_witness().to_ssz().unwrap(), bytes, "{name}");
        witness::fuzz::ssz(&bytes);
    }
}

/// go-verkle's field names by their snake_case spelling.
const NAMES: [(&str, &str); 15] = [
    ("state_diff", "stateDiff"),
    ("stem", "stem"),
    ("suffix_diffs", "suffixDiffs"),
    ("suffix", "suffix"),
    ("current_value", "currentValue"),
    ("new_value", "newValue"),
    ("verkle_proof", "verkleProof"),
    ("other_stems", "otherStems"),
    ("depth_extension_present", "depthExtensionPresent"),
    ("commitments_by_path", "commitmentsByPath"),
    ("d", "d"),
    ("ipa_proof", "ipaProof"),
    ("cl", "cl"),
    ("cr", "cr"),
    ("final_evaluation", "finalEvaluation"),
];

fn normalize_hex(s: &str) -> String {
    let digits = s.trim_start_matches("0x").to_ascii_lowercase();
    if digits.len() % 2 == 1 {
        format!("0x0{digits}")
    } else {
        format!("0x{digits}")
    }
}

/// Normalizes a witness as written by any producer to go-verkle's form, independently of
/// the crate's reader: camelCase names, unknown fields dropped, `suffix` a number, hex
/// lowercase with `0x` and an even number of digits, a missing value `null`.
fn normalize(v: &Value, key: &str) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, child) in map {
                let Some((_, camel)) = NAMES.iter().find(|(s, c)| k == s || k == c) else {
                    continue; // e.g. "comment" in invalid_block_72.json
                };
                out.insert((*camel).to_owned(), normalize(child, camel));
            }
            if out.contains_key("suffix") {
                out.entry("currentValue").or_insert(Value::Null);
                out.entry("newValue").or_insert(Value::Null);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| normalize(i, key)).collect()),
        Value::String(s) if key == "suffix" => Value::from(s.parse::<u64>().unwrap()),
        Value::String(s) => Value::String(normalize_hex(s)),
        other => other.clone(),
    }
}

#[test]
fn json_ssz_json_is_identity_on_all_real_witnesses() {
    let all = real_witness_objects();
    assert_eq!(all.len(), 205);
    for (name, v) in all {
        let w = ExecutionWitness::from_json_value(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
        let decoded = ExecutionWitness::from_ssz(w.as_ssz().clone()).unwrap();
        let expected = normalize(&v, "");
        assert_eq!(decoded.to_json_value(), expected, "{name}");
        // And the writer's output reads back to the same bytes.
        let back = ExecutionWitness::from_json_str(&decoded.to_json_string()).unwrap();
        assert_eq!(back.as_ssz(), w.as_ssz(), "{name}");
    }
}
