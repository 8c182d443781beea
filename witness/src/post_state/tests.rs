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
            deleted: false,
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

/// A tree `root → P (path [0x10]) → leaves at P's slots`, `leaves` being `(slot, stem
/// byte 1, value at suffix 0)`; the proof covers the root, `P`, and the leaves whose slots
/// are in `proven` (present stems, each read or deleted at suffix 0). Returns the witness
/// and each leaf's commitment.
fn two_level(
    leaves: &[(u8, [u8; 32])],
    proven: &[u8],
    deleted: &[u8],
) -> (VerifiedWitness, Vec<Element>) {
    let g = &Crs::eip6800().g;
    let stem_of = |slot: u8| -> [u8; 31] {
        let mut s = [0x33u8; 31];
        s[0] = 0x10;
        s[1] = slot;
        s
    };
    let mut commitments = Vec::new();
    let mut suffix_trees = Vec::new();
    for (slot, value) in leaves {
        let (lo, hi) = value_halves(Some(value));
        let c1 = vartime_multi_scalar_mul(&[g[0], g[1]], &[lo, hi]);
        let leaf = vartime_multi_scalar_mul(
            &[g[0], g[1], g[2]],
            &[
                Fr::one(),
                stem_field(&stem_of(*slot)),
                c1.map_to_scalar_field(),
            ],
        );
        commitments.push(leaf);
        suffix_trees.push(c1);
    }
    let p = vartime_multi_scalar_mul(
        &leaves
            .iter()
            .map(|(slot, _)| g[usize::from(*slot)])
            .collect::<Vec<_>>(),
        &commitments
            .iter()
            .map(|c| c.map_to_scalar_field())
            .collect::<Vec<_>>(),
    );
    let root = g[0x10] * p.map_to_scalar_field();
    let node = |path: &[u8], kind, leaf_stem, commitment: Element| ProvenNode {
        path: NodePath::new(path).unwrap(),
        kind,
        leaf_stem,
        commitment,
        field: commitment.map_to_scalar_field(),
        proven_internal: kind == NodeKind::Internal,
    };
    let mut nodes = vec![
        node(&[], NodeKind::Internal, None, root),
        node(&[0x10], NodeKind::Internal, None, p),
    ];
    let mut stems = Vec::new();
    let mut keys = Vec::new();
    for (i, (slot, value)) in leaves.iter().enumerate() {
        if !proven.contains(slot) {
            continue;
        }
        let stem = stem_of(*slot);
        nodes.push(node(
            &[0x10, *slot],
            NodeKind::Leaf,
            Some(stem),
            commitments[i],
        ));
        nodes.push(node(
            &[0x10, *slot, 2],
            NodeKind::SuffixTree,
            None,
            suffix_trees[i],
        ));
        stems.push(ProvenStem {
            stem,
            depth: 2,
            status: ExtensionStatus::Present,
            leaf_stem: Some(stem),
            bound: true,
        });
        keys.push(ProvenKey {
            stem_index: stems.len() - 1,
            stem,
            suffix: 0,
            current_value: Some(*value),
            new_value: None,
            deleted: deleted.contains(slot),
            bound: true,
        });
    }
    nodes.sort_by_key(|n| n.path);
    let witness = VerifiedWitness {
        pre_state_root: root.to_bytes(),
        nodes,
        stems,
        keys,
        openings: 0,
    };
    (witness, commitments)
}

/// A proof that empties the only proven child of an internal node with other children
/// cannot have its post-state root computed: whether the node gives way to a lone leaf is
/// not decided by what the proof opens.
#[test]
fn a_deletion_leaving_unopened_children_is_undecided() {
    let (v, _) = two_level(&[(1, [1; 32]), (2, [2; 32])], &[1], &[1]);
    assert_eq!(
        v.post_state_root(),
        Err(PostStateError::CollapseUnresolved {
            path: NodePath::new(&[0x10]).unwrap()
        })
    );
    // With a third child the node stays internal, but the proof still cannot tell.
    let (v, _) = two_level(&[(1, [1; 32]), (2, [2; 32]), (3, [3; 32])], &[1], &[1]);
    assert!(matches!(
        v.post_state_root(),
        Err(PostStateError::CollapseUnresolved { .. })
    ));
}

/// The sibling is opened: alone, it takes the internal node's place in the root; with an
/// unopened third child beside it, the node stays and loses the deleted leaf.
#[test]
fn a_lone_leaf_rises_and_a_leaf_with_siblings_stays() {
    let g = &Crs::eip6800().g;
    let (v, leaves) = two_level(&[(1, [1; 32]), (2, [2; 32])], &[1, 2], &[1]);
    let risen = g[0x10] * leaves[1].map_to_scalar_field();
    assert_eq!(v.post_state_root().unwrap(), risen.to_bytes());

    let (v, leaves) = two_level(&[(1, [1; 32]), (2, [2; 32]), (3, [3; 32])], &[1, 2], &[1]);
    let p = g[2] * leaves[1].map_to_scalar_field() + g[3] * leaves[2].map_to_scalar_field();
    let kept = g[0x10] * p.map_to_scalar_field();
    assert_eq!(v.post_state_root().unwrap(), kept.to_bytes());

    // Both leaves deleted: the node is removed and the root is empty.
    let (v, _) = two_level(&[(1, [1; 32]), (2, [2; 32])], &[1, 2], &[1, 2]);
    assert_eq!(v.post_state_root().unwrap(), [0u8; 32]);
}
