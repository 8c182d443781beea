//! Tree roots published by rust-verkle, go-verkle and the Python reference
//! (`spec/WIRE.md` §12 and §13).

use banderwagon::fr_to_le_bytes;
use verkle::Tree;

use crate::common::{h32, hex0x};

fn bytes_1_to_32() -> [u8; 32] {
    let mut k = [0u8; 32];
    for (i, b) in k.iter_mut().enumerate() {
        *b = i as u8 + 1;
    }
    k
}

fn root_mtf(t: &mut Tree) -> String {
    hex::encode(fr_to_le_bytes(&t.commit().map_to_scalar_field()))
}

#[test]
fn simple_insert_key_equals_value() {
    let k = bytes_1_to_32();
    let mut t = Tree::new();
    t.insert(&k, k).unwrap();
    assert_eq!(
        hex::encode(t.root_bytes()),
        "6f5e7cfc3a158a64e5718b0d2f18f564171342380f5808f3d2a82f7e7f3c2778"
    );
    assert_eq!(
        root_mtf(&mut t),
        "029b6c4c8af9001f0ac76472766c6579f41eec84a73898da06eb97ebdab80a09"
    );
}

#[test]
fn simple_update_zero_then_key() {
    let k = bytes_1_to_32();
    let mut t = Tree::new();
    t.insert(&k, [0u8; 32]).unwrap();
    // Value 0^32 is present (2^128 marker), not absent.
    assert_eq!(
        root_mtf(&mut t),
        "77a0747bd526d9d9af60bd5665d24d6cb421f5c8e726b1de62f914f3ff9a361c"
    );
    // Overwrite after a commit: the delta path.
    t.insert(&k, k).unwrap();
    assert_eq!(
        root_mtf(&mut t),
        "029b6c4c8af9001f0ac76472766c6579f41eec84a73898da06eb97ebdab80a09"
    );
    let mut stem = [0u8; 31];
    stem.copy_from_slice(&k[..31]);
    let lc = t.leaf_commitments(&stem).unwrap().unwrap();
    assert_eq!(
        hex::encode(fr_to_le_bytes(&lc.c1.map_to_scalar_field())),
        "bb4ea329042701a82badf0da8d1ace7df0e290686e16b7bc89ee0f3c8fd7ab16"
    );
    assert_eq!(
        hex::encode(fr_to_le_bytes(&lc.commitment.map_to_scalar_field())),
        "b897ba52c5317acd75f5f3c3922f461357d4fb8b685fe63f20a3b2adb014370a"
    );
    assert_eq!(
        hex::encode(t.root_bytes()),
        "6f5e7cfc3a158a64e5718b0d2f18f564171342380f5808f3d2a82f7e7f3c2778"
    );
}

#[test]
fn longest_paths() {
    let a = [0u8; 32];
    let mut b = [0u8; 32];
    b[30] = 1;
    let mut c = [0u8; 32];
    c[29] = 1;
    let mut t = Tree::new();
    t.insert(&a, a).unwrap();
    t.insert(&b, b).unwrap();
    assert_eq!(
        root_mtf(&mut t),
        "fe2e17833b90719eddcad493c352ccd491730643ecee39060c7c1fff5fcc621a"
    );
    t.insert(&c, c).unwrap();
    assert_eq!(
        root_mtf(&mut t),
        "74ff8821eca20188de49340124f249dac94404efdb3838bb6b4d298e483cc20e"
    );
    // 30 shared bytes: internal nodes at depths 0..=30.
    assert_eq!(t.stats().internal_nodes_in_memory, 31);
    // Deleting back re-compacts to the two-key root.
    t.delete(&c).unwrap();
    assert_eq!(
        root_mtf(&mut t),
        "fe2e17833b90719eddcad493c352ccd491730643ecee39060c7c1fff5fcc621a"
    );
}

#[test]
fn go_rust_interop_root() {
    let stem = "f56e644224f4576490cfe0de1424a4532212529bfe374713d84e7d7e8e9272";
    let values = [
        [0u8; 32],
        h32("000064a7b3b6e00d000000000000000000000000000000000000000000000000"),
        [0u8; 32],
        h32("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
        [0u8; 32],
    ];
    let mut t = Tree::new();
    for (i, v) in values.iter().enumerate() {
        let k = h32(&format!("{stem}{i:02x}"));
        t.insert(&k, *v).unwrap();
    }
    assert_eq!(
        hex0x(&t.root_bytes()),
        "0x10ed89d89047bb168baa4e69b8607e260049e928ddbcb2fdd23ea0f4182b1f8a"
    );
}

#[test]
fn empty_code_hash_c1() {
    let mut k = [0u8; 32];
    k[31] = 3;
    let mut t = Tree::new();
    t.insert(
        &k,
        h32("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
    )
    .unwrap();
    let lc = t.leaf_commitments(&[0u8; 31]).unwrap().unwrap();
    assert_eq!(
        hex::encode(lc.c1.to_bytes()),
        "02cc97eafa76087f079d21792f051561d5f14212d75df1e812b8214bc044bb0f"
    );
    // C2 is untouched: identity.
    assert_eq!(lc.c2.to_bytes(), [0u8; 32]);
}
