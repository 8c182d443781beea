use super::*;

#[test]
fn get_tree_key_known_answer() {
    // `spec/WIRE.md` §12: address bytes 1..=32, tree index bytes [64, 63, ..., 33], sub 0.
    let mut addr = [0u8; 32];
    for (i, b) in addr.iter_mut().enumerate() {
        *b = i as u8 + 1;
    }
    let mut idx_le = [0u8; 32];
    for (i, b) in idx_le.iter_mut().enumerate() {
        *b = 64 - i as u8;
    }
    let pos = TreePosition {
        tree_index: U256::from_le_bytes(&idx_le),
        sub_index: 0,
    };
    assert_eq!(
        hex::encode(tree_key_from_crs(&addr, &pos)),
        "ff7e3916badeb510dfcdad458726273319280742e553d8d229bd676428147300"
    );
    assert_eq!(
        AccountKeys::new(&addr).key(&pos),
        tree_key_from_crs(&addr, &pos)
    );
}

#[test]
fn storage_positions() {
    assert_eq!(
        TreePosition::storage_slot(&U256::ZERO),
        TreePosition::header(64)
    );
    assert_eq!(
        TreePosition::storage_slot(&U256::from_u64(63)),
        TreePosition::header(127)
    );
    // 64 goes to main storage: pos = 2^248 + 64 → (2^240, 64).
    let p = TreePosition::storage_slot(&U256::from_u64(64));
    assert_eq!(p.tree_index, U256::pow2(240).unwrap());
    assert_eq!(p.sub_index, 64);
    // 10001 = 0x2711 → (2^240 + 0x27, 0x11).
    let p = TreePosition::storage_slot(&U256::from_u64(10001));
    assert_eq!(
        p.tree_index,
        U256::pow2(240)
            .unwrap()
            .checked_add(&U256::from_u64(0x27))
            .unwrap()
    );
    assert_eq!(p.sub_index, 0x11);
    // The largest slot: pos would exceed 2^256; pos / 256 = 2^240 + (2^248 - 1).
    let p = TreePosition::storage_slot(&U256::MAX);
    let expect = U256::pow2(240)
        .unwrap()
        .checked_add(&U256::MAX.shr(8))
        .unwrap();
    assert_eq!(p.tree_index, expect);
    assert_eq!(p.sub_index, 0xff);
}

#[test]
fn code_positions() {
    assert_eq!(TreePosition::code_chunk(0), TreePosition::header(128));
    assert_eq!(TreePosition::code_chunk(127), TreePosition::header(255));
    let p = TreePosition::code_chunk(128);
    assert_eq!(p.tree_index, U256::from_u64(1));
    assert_eq!(p.sub_index, 0);
    let p = TreePosition::code_chunk(u64::MAX);
    // (2^64 - 1 + 128) / 256 = 2^56 (exactly: 2^64 + 127 >> 8).
    assert_eq!(p.tree_index, U256::pow2(56).unwrap());
    assert_eq!(p.sub_index, 127);
    let keys = AccountKeys::new(&[7u8; 32]);
    let batch = keys.code_chunk_keys(400);
    assert_eq!(batch.len(), 400);
    assert_eq!(batch[5], keys.code_chunk_key(5));
    assert_eq!(batch[200], keys.code_chunk_key(200));
    assert_eq!(batch[399], keys.code_chunk_key(399));
    assert_eq!(stem(&batch[0]), keys.header_stem());
    assert_ne!(stem(&batch[128]), keys.header_stem());
    // Chunks 128..384 share tree index 1; 384.. are at index 2.
    assert_eq!(stem(&batch[128]), stem(&batch[383]));
    assert_ne!(stem(&batch[128]), stem(&batch[384]));
}

#[test]
fn keys_of_positions_hashes_each_run_once() {
    let positions = [0u64, 1, 127, 128, 129, 383, 384, 0].map(TreePosition::code_chunk);
    let mut asked = Vec::new();
    let keys = keys_of_positions(positions, |i| {
        asked.push(*i);
        let mut s = [0u8; 31];
        s[0] = i.low_u8();
        s
    });
    // Runs of tree indices: 0 (chunks 0..128), 1 (128..384), 2 (384), 0 again.
    let idx = |v| U256::from_u64(v);
    assert_eq!(asked, [idx(0), idx(1), idx(2), idx(0)]);
    assert_eq!(keys.len(), positions.len());
    let mut stem1 = [0u8; 31];
    stem1[0] = 1;
    // Chunk 129: pos 257 = (1, 1).
    assert_eq!(keys[4], join_key(&stem1, 1));
    assert_eq!(keys[7], join_key(&[0u8; 31], 128));
}

#[test]
fn split_and_join() {
    let mut k = [0u8; 32];
    k[0] = 9;
    k[31] = 200;
    let (s, x) = split_key(&k);
    assert_eq!(x, 200);
    assert_eq!(suffix(&k), 200);
    assert_eq!(join_key(&s, x), k);
    assert_eq!(stem(&k)[0], 9);
    assert_eq!(address32(&[1u8; 20])[..12], [0u8; 12]);
}
