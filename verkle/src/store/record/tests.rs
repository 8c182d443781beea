use super::*;

fn sample_leaf() -> StoredNode {
    let g = Element::generator();
    StoredNode::Leaf(StoredLeaf {
        stem: [3; 31],
        commitment: g,
        mtf: Fr::from(5u64),
        c1: g.double(),
        c1_mtf: Fr::from(6u64),
        c2: Element::identity(),
        c2_mtf: Fr::from(0u64),
        values: vec![(0, [1; 32]), (200, [2; 32])],
    })
}

#[test]
fn round_trips() {
    let leaf = sample_leaf();
    assert_eq!(StoredNode::from_bytes(&leaf.to_bytes()).unwrap(), leaf);
    let internal = StoredNode::Internal(StoredInternal {
        commitment: Element::generator(),
        mtf: Fr::from(9u64),
        children: vec![
            StoredChild {
                index: 1,
                kind: NodeKind::Leaf,
                mtf: Fr::from(1u64),
            },
            StoredChild {
                index: 255,
                kind: NodeKind::Internal,
                mtf: Fr::from(2u64),
            },
        ],
    });
    assert_eq!(
        StoredNode::from_bytes(&internal.to_bytes()).unwrap(),
        internal
    );
}

/// The tag-0x82 bytes of a leaf (all three commitments, no `halves` byte).
fn full_leaf_bytes(l: &StoredLeaf) -> Vec<u8> {
    let points = affine_points(&[l.commitment, l.c1, l.c2]);
    let mut out = vec![RECORD_LEAF_FULL];
    out.extend_from_slice(&l.stem);
    for (p, m) in points.iter().zip([&l.mtf, &l.c1_mtf, &l.c2_mtf]) {
        out.extend_from_slice(p);
        out.extend_from_slice(&fr_to_le_bytes(m));
    }
    push_values(&mut out, &l.values);
    out
}

#[test]
fn empty_halves_are_left_out() {
    let g = Element::generator();
    let zero = Fr::from(0u64);
    let leaf = |c1: Element, c1_mtf: Fr, c2: Element, c2_mtf: Fr| StoredLeaf {
        stem: [4; 31],
        commitment: g,
        mtf: Fr::from(5u64),
        c1,
        c1_mtf,
        c2,
        c2_mtf,
        values: vec![(7, [1; 32])],
    };
    let id = Element::identity();
    let two = g.double();
    // (leaf, stored halves): record length = 1 + 31 + 96 + 1 + 96 × halves + 2 + 33.
    let cases = [
        (leaf(two, Fr::from(6u64), id, zero), 1),
        (leaf(id, zero, two, Fr::from(6u64)), 1),
        (leaf(two, Fr::from(6u64), two, Fr::from(7u64)), 2),
        (leaf(id, zero, id, zero), 0),
        // The identity with a non-zero scalar is kept as it is (not a state the tree
        // makes, but the record must not change it).
        (leaf(id, Fr::from(3u64), id, zero), 1),
    ];
    for (i, (l, halves)) in cases.into_iter().enumerate() {
        let node = StoredNode::Leaf(l.clone());
        let bytes = node.to_bytes();
        assert_eq!(
            bytes.len(),
            1 + 31 + 96 + 1 + 96 * halves + 2 + 33,
            "case {i}"
        );
        assert_eq!(bytes[0], RECORD_LEAF, "case {i}");
        assert_eq!(StoredNode::from_bytes(&bytes).unwrap(), node, "case {i}");
        assert_eq!(
            StoredNode::batch_to_bytes(std::slice::from_ref(&node)),
            vec![bytes]
        );
        // The earlier leaf form of the same node decodes to the same node.
        assert_eq!(
            StoredNode::from_bytes(&full_leaf_bytes(&l)).unwrap(),
            node,
            "case {i}"
        );
    }
    // A halves byte with unknown bits.
    let mut bad = StoredNode::Leaf(leaf(two, Fr::from(6u64), id, zero)).to_bytes();
    assert_eq!(bad[128], HALF_C1);
    bad[128] = 0x05;
    assert_eq!(
        StoredNode::from_bytes(&bad),
        Err(RecordError::BadHalves { byte: 0x05 })
    );
    // A halves byte claiming a half the record does not hold runs out of bytes.
    bad[128] = HALF_C1 | HALF_C2;
    assert!(StoredNode::from_bytes(&bad).is_err());
}

#[test]
fn batch_encoding_matches_single_and_round_trips() {
    let g = Element::generator();
    let mut records = vec![sample_leaf()];
    let mut p = g;
    for i in 0..20u64 {
        p = p.double() + g;
        records.push(StoredNode::Internal(StoredInternal {
            commitment: if i == 3 { Element::identity() } else { p },
            mtf: p.map_to_scalar_field(),
            children: vec![],
        }));
    }
    let batch = StoredNode::batch_to_bytes(&records);
    for (r, b) in records.iter().zip(&batch) {
        assert_eq!(&r.to_bytes(), b);
        assert_eq!(&StoredNode::from_bytes(b).unwrap(), r);
    }
    // The other representative of an element encodes to the same bytes.
    let torsion = Element::from_projective_unchecked(
        ark_ed_on_bls12_381_bandersnatch::EdwardsProjective::new_unchecked(
            Fq::from(0u64),
            -Fq::one(),
            Fq::from(0u64),
            Fq::one(),
        ),
    );
    let q = g.double() + g;
    assert_eq!(affine_points(&[q]), affine_points(&[q + torsion]));
}

#[test]
fn rejects_every_malformation() {
    let good = sample_leaf().to_bytes();
    assert!(matches!(
        StoredNode::from_bytes(&[]),
        Err(RecordError::Truncated { field: "tag", .. })
    ));
    assert_eq!(
        StoredNode::from_bytes(&[9]),
        Err(RecordError::UnknownTag { tag: 9 })
    );
    // Every strict prefix fails without panicking.
    for n in 0..good.len() {
        assert!(StoredNode::from_bytes(&good[..n]).is_err(), "prefix {n}");
    }
    let mut extra = good.clone();
    extra.push(0);
    assert_eq!(
        StoredNode::from_bytes(&extra),
        Err(RecordError::TrailingBytes { extra: 1 })
    );
    // Values out of order.
    let mut swapped = good.clone();
    let first = good.len() - 66;
    swapped[first] = 201;
    assert_eq!(
        StoredNode::from_bytes(&swapped),
        Err(RecordError::NotAscending { position: 1 })
    );
    // A commitment that is not a point (x = p).
    // Coordinates not below p, or not a point of the curve.
    let mut bad_point = good.clone();
    bad_point[32..64].copy_from_slice(&[0xff; 32]);
    assert_eq!(
        StoredNode::from_bytes(&bad_point),
        Err(RecordError::BadPoint {
            field: "commitment"
        })
    );
    let mut off_curve = good.clone();
    off_curve[32..96].copy_from_slice(&[1; 64]);
    assert_eq!(
        StoredNode::from_bytes(&off_curve),
        Err(RecordError::BadPoint {
            field: "commitment"
        })
    );
    // A scalar >= r.
    let mut bad_scalar = good.clone();
    bad_scalar[96..128].copy_from_slice(&[0xff; 32]);
    assert_eq!(
        StoredNode::from_bytes(&bad_scalar),
        Err(RecordError::BadScalar {
            field: "commitment mtf"
        })
    );
    // A record of the first format.
    let mut old = good.clone();
    old[0] = 2;
    assert_eq!(
        StoredNode::from_bytes(&old),
        Err(RecordError::OldFormat { tag: 2 })
    );
    assert!(RecordError::OldFormat { tag: 1 }
        .to_string()
        .contains("older fverkle"));
    // A leaf with no values.
    let mut empty = good[..good.len() - 2 * 33 - 2].to_vec();
    empty.extend_from_slice(&0u16.to_le_bytes());
    assert_eq!(
        StoredNode::from_bytes(&empty),
        Err(RecordError::BadCount {
            count: 0,
            min: 1,
            max: 256
        })
    );
}
