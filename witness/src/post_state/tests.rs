use super::*;

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s).unwrap().try_into().unwrap()
}

/// A verified witness over the empty tree writing `writes` (sorted by key): every stem
/// absent, its slot in the root empty.
fn over_empty_tree(writes: &[([u8; 32], [u8; 32])]) -> VerifiedWitness {
    let identity = Element::identity();
    let mut nodes = vec![ProvenNode {
        path: NodePath::ROOT,
        kind: NodeKind::Internal,
        leaf_stem: None,
        commitment: identity,
        field: Fr::zero(),
        proven_internal: true,
    }];
    let mut stems: Vec<ProvenStem> = Vec::new();
    let mut keys = Vec::new();
    for (key, value) in writes {
        let stem: [u8; 31] = key[..31].try_into().unwrap();
        if stems.last().map(|s| s.stem) != Some(stem) {
            stems.push(ProvenStem {
                stem,
                depth: 1,
                status: ExtensionStatus::AbsentEmpty,
                leaf_stem: None,
                bound: true,
            });
            let path = NodePath::new(&stem[..1]).unwrap();
            if nodes.iter().all(|n| n.path != path) {
                nodes.push(ProvenNode {
                    path,
                    kind: NodeKind::Empty,
                    leaf_stem: None,
                    commitment: identity,
                    field: Fr::zero(),
                    proven_internal: false,
                });
            }
        }
        keys.push(ProvenKey {
            stem_index: stems.len() - 1,
            stem,
            suffix: key[31],
            current_value: None,
            new_value: Some(*value),
            bound: true,
        });
    }
    nodes.sort_by_key(|n| n.path);
    VerifiedWitness {
        pre_state_root: identity.to_bytes(),
        nodes,
        stems,
        keys,
        openings: 0,
    }
}

fn root_field(v: &VerifiedWitness) -> [u8; 32] {
    banderwagon::fr_to_le_bytes(&post_state_commitment(v).unwrap().map_to_scalar_field())
}

/// rust-verkle `simple_insert` / verkle-trie-ref: key = value = bytes 1..=32.
#[test]
fn one_key_from_the_empty_tree() {
    let kv: [u8; 32] = core::array::from_fn(|i| i as u8 + 1);
    let v = over_empty_tree(&[(kv, kv)]);
    assert_eq!(
        hex::encode(v.post_state_root().unwrap()),
        "6f5e7cfc3a158a64e5718b0d2f18f564171342380f5808f3d2a82f7e7f3c2778"
    );
    assert_eq!(
        hex::encode(root_field(&v)),
        "029b6c4c8af9001f0ac76472766c6579f41eec84a73898da06eb97ebdab80a09"
    );
}

/// rust-verkle `insert_longest_path` and `insert_and_traverse_longest_path`: stems that
/// share 30 and 29 bytes, all under one empty slot — a chain of internal nodes.
#[test]
fn stems_sharing_long_prefixes_under_one_empty_slot() {
    let k0 = [0u8; 32];
    let mut k1 = [0u8; 32];
    k1[30] = 1;
    let mut k2 = [0u8; 32];
    k2[29] = 1;
    let v = over_empty_tree(&[(k0, k0), (k1, k1)]);
    assert_eq!(
        hex::encode(root_field(&v)),
        "fe2e17833b90719eddcad493c352ccd491730643ecee39060c7c1fff5fcc621a"
    );
    let mut three = [(k0, k0), (k1, k1), (k2, k2)];
    three.sort();
    let v = over_empty_tree(&three);
    assert_eq!(
        hex::encode(root_field(&v)),
        "74ff8821eca20188de49340124f249dac94404efdb3838bb6b4d298e483cc20e"
    );
}

/// go-verkle `TestWithRustCompatibility` / rust-verkle `golang_interop`: one stem, five
/// values (zeros included: a written zero is not an absent value).
#[test]
fn go_rust_interop_account() {
    let stem =
        hex::decode("f56e644224f4576490cfe0de1424a4532212529bfe374713d84e7d7e8e9272").unwrap();
    let mut nonce = [0u8; 32];
    nonce[2..8].copy_from_slice(&hex::decode("64a7b3b6e00d").unwrap());
    let values = [
        [0u8; 32],
        nonce,
        [0u8; 32],
        hex32("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
        [0u8; 32],
    ];
    let writes: Vec<_> = values
        .iter()
        .enumerate()
        .map(|(suffix, value)| {
            let mut key = [0u8; 32];
            key[..31].copy_from_slice(&stem);
            key[31] = suffix as u8;
            (key, *value)
        })
        .collect();
    let v = over_empty_tree(&writes);
    assert_eq!(
        hex::encode(v.post_state_root().unwrap()),
        "10ed89d89047bb168baa4e69b8607e260049e928ddbcb2fdd23ea0f4182b1f8a"
    );
}

#[test]
fn a_mismatch_names_both_roots() {
    let kv = [7u8; 32];
    let v = over_empty_tree(&[(kv, kv)]);
    let got = v.post_state_root().unwrap();
    let err = v.check_post_state_root(&[0; 32]).unwrap_err();
    assert_eq!(
        err,
        PostStateError::RootMismatch {
            got,
            expected: [0; 32]
        }
    );
    assert!(err.to_string().contains(&hex::encode(got)));
    v.check_post_state_root(&got).unwrap();
}
