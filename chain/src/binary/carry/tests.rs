use std::path::PathBuf;

use serde_json::Value as Json;

use super::*;

/// `$FVERKLE_VECTORS`, or `<workspace root>/../shared/vectors`.
fn vectors_dir() -> PathBuf {
    match std::env::var_os("FVERKLE_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors"),
    }
}

/// The Kaustinen6 export, blocks 1..200; panics naming the path when it is missing.
fn kaustinen6() -> PathBuf {
    let path = vectors_dir().join("chain/kaustinen6_witness_chain_0001-0200.json");
    assert!(
        path.is_file(),
        "vector file {} is missing; set FVERKLE_VECTORS",
        path.display()
    );
    path
}

/// Every block of the Kaustinen6 export carried into `kind`, with the summary.
fn carried(kind: BinaryKind) -> (Vec<CarriedBlock>, CarrySummary) {
    let mut blocks = Vec::new();
    let summary = carry_export(&[kaustinen6()], kind, &mut |b| {
        blocks.push(b.clone());
        Ok(())
    })
    .expect("the Kaustinen6 export carries");
    (blocks, summary)
}

/// The blocks of the Kaustinen6 export as JSON values.
fn kaustinen6_json() -> Vec<Json> {
    let bytes = std::fs::read(kaustinen6()).expect("readable");
    let mut doc: Json = serde_json::from_slice(&bytes).expect("JSON");
    match doc["blocks"].take() {
        Json::Array(blocks) => blocks,
        _ => panic!("no blocks array"),
    }
}

/// The block numbered `number` of the Kaustinen6 export, renumbered `as_number`.
fn block_as(blocks: &[Json], number: u64, as_number: u64) -> Json {
    let mut b = blocks
        .iter()
        .find(|b| b["blockNumber"].as_u64() == Some(number))
        .expect("block in the export")
        .clone();
    b["blockNumber"] = Json::from(as_number);
    b
}

/// `block` with only its reads: the suffix diffs without a new value (its Verkle proof no
/// longer matches; carrying does not read it).
fn reads_only(mut block: Json) -> Json {
    if let Some(stems) = block["executionWitness"]["stateDiff"].as_array_mut() {
        for s in stems.iter_mut() {
            if let Some(diffs) = s["suffixDiffs"].as_array_mut() {
                diffs.retain(|d| d["newValue"].is_null());
            }
        }
        stems.retain(|s| s["suffixDiffs"].as_array().is_some_and(|d| !d.is_empty()));
    }
    block
}

/// Carries an export held in memory.
fn carry_json(blocks: &[Json]) -> Result<CarrySummary> {
    let doc = serde_json::json!({ "blocks": blocks })
        .to_string()
        .into_bytes();
    carry(
        &mut || ExportReader::from_bytes("crafted", doc.clone()),
        BinaryKind::Eip7864Sha256,
        &mut |_| Ok(()),
    )
}

#[test]
fn kaustinen6_carries_into_eip7864_with_every_witness_verified() {
    let (blocks, summary) = carried(BinaryKind::Eip7864Sha256);
    assert_eq!(summary.blocks, 200);
    assert_eq!(summary.range, Some((1, 200)));
    assert_eq!(
        blocks.iter().map(|b| b.number).collect::<Vec<_>>(),
        (1..=200).collect::<Vec<_>>()
    );
    // The revealed state: every touched key present or absent at first touch, some of each.
    let r = &summary.revealed;
    assert_eq!(r.present + r.absent, r.keys);
    assert!(r.present > 0 && r.absent > 0);
    // The roots chain from the revealed genesis through every block.
    let mut root = summary.genesis_root;
    for b in &blocks {
        assert_eq!(b.pre_root, root, "block {}", b.number);
        root = b.post_root;
    }
    assert_eq!(summary.final_root, root);
    assert_ne!(summary.genesis_root, summary.final_root);
    // Every pre-value a binary witness proves is the Verkle witness's, key by key.
    let mut keys = 0;
    for (exported, b) in ExportReader::new(&[kaustinen6()]).zip(&blocks) {
        let exported = exported.expect("block decodes");
        assert_eq!(exported.number, b.number);
        let verkle = block_keys(b.number, &exported.witness).expect("distinct keys");
        let verified =
            verify_carried(summary.kind, b, &verkle).expect("an honest witness verifies");
        assert_eq!(verified.post_root, b.post_root, "block {}", b.number);
        let witness = Witness::decode::<Sha256>(&b.witness).expect("decodes");
        let claims: Vec<_> = witness.claims().collect();
        assert_eq!(claims.len(), verkle.len(), "block {}", b.number);
        for (claim, d) in claims.iter().zip(&verkle) {
            assert_eq!(claim.key, &d.key[..]);
            assert_eq!(
                claim.pre.copied(),
                d.pre,
                "block {} key {:02x?}",
                b.number,
                d.key
            );
        }
        assert_eq!(b.keys_read + b.keys_written, verkle.len());
        assert_eq!(b.verkle_witness_bytes, exported.witness.as_ssz().len());
        assert!(b.verkle_proof_bytes < b.verkle_witness_bytes);
        assert!(b.binary_proof_bytes < b.binary_witness_bytes);
        keys += verkle.len();
    }
    let c = &summary.columns;
    assert_eq!(c.keys_read.total() + c.keys_written.total(), keys as u64);
    assert!(summary.final_keys >= r.present);
}

#[test]
fn kaustinen6_carries_into_eip7864_blake3_with_other_roots() {
    let (sha, sha_summary) = carried(BinaryKind::Eip7864Sha256);
    let (blake, summary) = carried(BinaryKind::Eip7864Blake3);
    assert_eq!(summary.blocks, 200);
    assert_ne!(summary.genesis_root, sha_summary.genesis_root);
    let exported = ExportReader::new(&[kaustinen6()]);
    for ((b, s), e) in blake.iter().zip(&sha).zip(exported) {
        let keys = block_keys(b.number, &e.expect("block decodes").witness).expect("distinct keys");
        verify_carried(BinaryKind::Eip7864Blake3, b, &keys).expect("an honest witness verifies");
        assert!(verify_carried(BinaryKind::Eip7864Sha256, b, &keys).is_err());
        assert_eq!(b.keys_written, s.keys_written);
    }
    assert_eq!(summary.revealed, sha_summary.revealed);
}

#[test]
fn a_tampered_binary_witness_fails_at_every_byte() {
    let (blocks, summary) = carried(BinaryKind::Eip7864Sha256);
    // The block with the most keys whose witness is at most 8 KiB.
    let honest = blocks
        .iter()
        .filter(|b| b.witness.len() <= 8192)
        .max_by_key(|b| b.keys_read + b.keys_written)
        .expect("a block");
    assert!(honest.keys_read + honest.keys_written > 1);
    let exported = ExportReader::new(&[kaustinen6()])
        .map(|b| b.expect("block decodes"))
        .find(|b| b.number == honest.number)
        .expect("the block is in the export");
    let keys = block_keys(honest.number, &exported.witness).expect("distinct keys");
    verify_carried(summary.kind, honest, &keys).expect("the honest witness verifies");
    for at in 0..honest.witness.len() {
        let mut tampered = honest.clone();
        tampered.witness[at] ^= 0x01;
        assert!(
            verify_carried(summary.kind, &tampered, &keys).is_err(),
            "block {}: a flip at byte {at} went unnoticed",
            honest.number
        );
    }
}

#[test]
fn a_contradicting_pre_value_is_a_typed_error() {
    let blocks = kaustinen6_json();
    // Block 55's reads, twice; the second copy changes the pre-value of a present key.
    let first = reads_only(block_as(&blocks, 55, 1));
    let mut second = reads_only(block_as(&blocks, 55, 2));
    let stems = second["executionWitness"]["stateDiff"]
        .as_array_mut()
        .expect("a stateDiff array");
    let (stem, diff) = stems
        .iter_mut()
        .find_map(|s| {
            let stem = s["stem"].as_str()?.to_owned();
            let diff = s["suffixDiffs"]
                .as_array_mut()?
                .iter_mut()
                .find(|d| d["currentValue"].is_string() && d["newValue"].is_null())?;
            Some((stem, diff))
        })
        .expect("block 55 reads a present key");
    let suffix: u8 = diff["suffix"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("a decimal suffix");
    diff["currentValue"] = Json::from(format!("0x{}", "ab".repeat(32)));
    let control = carry_json(&[first.clone(), first.clone()])
        .expect("a block that only reads agrees with itself when given twice");
    assert!(control.revealed.present > 0);
    assert_eq!(
        control.revealed.rechecked,
        control.revealed.present + control.revealed.absent
    );
    let err = carry_json(&[first, second]).expect_err("the export contradicts itself");
    match err.downcast_ref::<CarryError>() {
        Some(CarryError::Contradiction {
            block,
            key,
            revealed_by,
            revealed,
            got,
        }) => {
            assert_eq!((*block, *revealed_by), (2, 1));
            assert_eq!(crate::hexarg::to_hex(&key[..31]), stem);
            assert_eq!(key[31], suffix);
            assert_eq!(*got, Some([0xab; 32]));
            assert_ne!(*revealed, *got);
        }
        other => panic!("expected a contradiction, got {other:?} ({err})"),
    }
}

#[test]
fn a_pre_value_that_is_not_the_written_value_is_a_typed_error() {
    let blocks = kaustinen6_json();
    // Block 54 writes keys it reads; given again, its pre-values are the old ones.
    let err = carry_json(&[block_as(&blocks, 54, 1), block_as(&blocks, 54, 2)])
        .expect_err("the state changed outside the witnesses");
    match err.downcast_ref::<CarryError>() {
        Some(CarryError::Unwritten {
            block,
            written_by,
            written,
            got,
            ..
        }) => {
            assert_eq!((*block, *written_by), (2, 1));
            assert_ne!(Some(*written), *got);
        }
        other => {
            panic!("expected a pre-value that is not the written value, got {other:?} ({err})")
        }
    }
}

#[test]
fn eip8297_has_no_room_for_verkle_keys() {
    // The kind is refused before anything is read.
    let mut opened = 0;
    let err = carry(
        &mut || {
            opened += 1;
            ExportReader::new(&[])
        },
        BinaryKind::Eip8297,
        &mut |_| Ok(()),
    )
    .expect_err("EIP-8297 keys are not 32-byte stems");
    assert!(matches!(
        err.downcast_ref::<CarryError>(),
        Some(CarryError::Kind(BinaryKind::Eip8297))
    ));
    assert_eq!(opened, 0);
}

#[test]
fn a_write_of_the_own_value_is_a_read_and_zero_is_a_set() {
    let d = |pre, new| KeyDiff {
        key: [1; 32],
        pre,
        new,
    };
    assert_eq!(d(None, Some([0; 32])).write(), Write::Set([0; 32]));
    assert_eq!(d(Some([5; 32]), Some([0; 32])).write(), Write::Set([0; 32]));
    assert_eq!(d(Some([5; 32]), Some([5; 32])).write(), Write::Unchanged);
    assert_eq!(d(None, None).write(), Write::Unchanged);
}

#[test]
fn medians_take_the_middle_of_the_sorted_figures() {
    let mut c = Column::default();
    assert_eq!(c.median(), 0.0);
    for v in [9, 1, 5] {
        c.push(v);
    }
    assert_eq!((c.total(), c.median()), (15, 5.0));
    c.push(7);
    assert_eq!(c.median(), 6.0);
}

#[test]
fn an_export_without_blocks_carries_the_empty_tree() {
    let summary = carry_json(&[]).expect("no blocks, nothing to contradict");
    assert_eq!(
        (summary.blocks, summary.range, summary.final_keys),
        (0, None, 0)
    );
    assert_eq!(summary.genesis_root, summary.final_root);
}
