//! Generated cases for points, commitments, tree keys and tree roots.

use banderwagon::{DecodeError, Element, Fr};
use ipa::Committer;
use serde_json::{json, Value};
use verkle::Tree;

use super::case::{fr_hex, invalid, suite_file, valid, SuiteFile};
use super::rng::Rng;
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::Kind;

/// The base-field modulus p, big-endian: the smallest x that is not canonical.
pub(crate) const P_BE: [u8; 32] = [
    0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
    0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
];

/// The first small big-endian x whose decoding fails with `wanted`.
pub(crate) fn first_x_failing_with(wanted: &DecodeError) -> Result<[u8; 32], VectorError> {
    for i in 1u16..4096 {
        let mut b = [0u8; 32];
        b[30..].copy_from_slice(&i.to_be_bytes());
        if Element::from_bytes(&b).as_ref().err() == Some(wanted) {
            return Ok(b);
        }
    }
    Err(VectorError::Generator(format!(
        "no small x fails with {wanted:?}"
    )))
}

pub(super) fn scalars_json(s: &[Fr]) -> Value {
    Value::Array(s.iter().map(|v| Value::String(fr_hex(v))).collect())
}

pub(super) fn point_codec() -> Result<SuiteFile, VectorError> {
    let mut rng = Rng::new(0x0001_0001);
    let mut cases = Vec::new();
    let minus_one = -Fr::from(1u64);
    let mut ks: Vec<(String, Fr)> = vec![
        ("identity".into(), Fr::from(0u64)),
        ("generator".into(), Fr::from(1u64)),
        ("two_g".into(), Fr::from(2u64)),
        ("minus_g".into(), minus_one),
    ];
    for i in 0..4 {
        ks.push((format!("random_{i}"), rng.scalar()));
    }
    for (name, k) in ks {
        let e = banderwagon::vartime_multi_scalar_mul(&[Element::generator()], &[k]);
        cases.push(valid(
            &name,
            "k·G encodes to these bytes; they decode back to k·G and map to this scalar",
            json!({"bytes": hex0x(&e.to_bytes())}),
            json!({
                "multiple_of_generator": fr_hex(&k),
                "map_to_scalar_field": fr_hex(&e.map_to_scalar_field()),
            }),
        ));
    }
    let g = Element::generator().to_bytes();
    let mut bad: Vec<(&str, &str, Vec<u8>, &str)> = vec![
        ("empty", "no bytes", vec![], "point.length"),
        (
            "31_bytes",
            "G's encoding without its last byte",
            g[..31].to_vec(),
            "point.length",
        ),
        (
            "33_bytes",
            "G's encoding and one more byte",
            [&g[..], &[0]].concat(),
            "point.length",
        ),
        (
            "x_equals_p",
            "x = p, not reduced",
            P_BE.to_vec(),
            "point.x_not_canonical",
        ),
        (
            "x_all_ones",
            "x = 2^256 - 1",
            vec![0xff; 32],
            "point.x_not_canonical",
        ),
    ];
    let not_on_curve = first_x_failing_with(&DecodeError::NotOnCurve)?;
    let not_in_subgroup = first_x_failing_with(&DecodeError::NotInSubgroup)?;
    bad.push((
        "not_on_curve",
        "the smallest x with no point on the curve",
        not_on_curve.to_vec(),
        "point.not_on_curve",
    ));
    bad.push((
        "not_in_subgroup",
        "the smallest x of a curve point outside the prime-order subgroup",
        not_in_subgroup.to_vec(),
        "point.not_in_subgroup",
    ));
    for (name, description, bytes, rule) in bad {
        cases.push(invalid(
            name,
            description,
            json!({"bytes": hex0x(&bytes)}),
            rule,
        ));
    }
    suite_file(
        "point_codec.json",
        Kind::PointCodec,
        "Compressed Banderwagon points (spec/WIRE.md §0.1): decode, re-encode, map_to_scalar_field; and encodings every decoder must reject",
        cases,
    )
}

pub(super) fn commitment() -> Result<SuiteFile, VectorError> {
    let mut rng = Rng::new(0x0002_0001);
    let zero = Fr::from(0u64);
    let unit = |i: usize| {
        let mut v = vec![zero; 256];
        v[i] = Fr::from(1u64);
        v
    };
    let mut vectors: Vec<(String, &str, Vec<Fr>)> = vec![
        (
            "all_zero".into(),
            "the zero vector commits to the identity (32 zero bytes)",
            vec![zero; 256],
        ),
        (
            "unit_0".into(),
            "1 at index 0: the CRS generator G_0",
            unit(0),
        ),
        ("unit_255".into(), "1 at index 255: G_255", unit(255)),
        (
            "i_mod_32_plus_1".into(),
            "v[i] = i mod 32 + 1 (the IPA consistency polynomial)",
            (0..256u64).map(|i| Fr::from(i % 32 + 1)).collect(),
        ),
    ];
    for i in 0..2 {
        vectors.push((
            format!("random_dense_{i}"),
            "256 random scalars",
            (0..256).map(|_| rng.scalar()).collect(),
        ));
    }
    let mut sparse = vec![zero; 256];
    for _ in 0..5 {
        let at = rng.below(256) as usize;
        sparse[at] = rng.scalar();
    }
    vectors.push((
        "random_sparse".into(),
        "5 random scalars at random indices, the rest 0",
        sparse,
    ));
    let committer = Committer::eip6800();
    let cases = vectors
        .into_iter()
        .map(|(name, description, v)| {
            let c = committer.commit(&v);
            valid(
                &name,
                description,
                json!({"scalars": scalars_json(&v)}),
                json!({"commitment": hex0x(&c.to_bytes()), "map_to_scalar_field": fr_hex(&c.map_to_scalar_field())}),
            )
        })
        .collect();
    suite_file(
        "commitment.json",
        Kind::Commitment,
        "Pedersen commitments Σ v_i·G_i over the EIP-6800 CRS; scalars little-endian",
        cases,
    )
}

pub(super) fn tree_key() -> Result<SuiteFile, VectorError> {
    let mut rng = Rng::new(0x0003_0001);
    let mut inputs: Vec<(String, [u8; 32], [u8; 32], u8)> = vec![
        ("zero".into(), [0; 32], [0; 32], 0),
        (
            "rust_verkle_reference".into(),
            std::array::from_fn(|i| i as u8 + 1),
            std::array::from_fn(|i| 64 - i as u8),
            0,
        ),
        (
            "index_high_half".into(),
            [0x11; 32],
            {
                let mut b = [0u8; 32];
                b[31] = 0x80;
                b
            },
            255,
        ),
    ];
    for i in 0..6 {
        let mut address = [0u8; 32];
        address[12..].copy_from_slice(&rng.bytes::<20>());
        let mut index = [0u8; 32];
        let n = rng.below(33) as usize;
        index[..n].copy_from_slice(&rng.bytes::<32>()[..n]);
        inputs.push((format!("random_{i}"), address, index, rng.below(256) as u8));
    }
    let committer = Committer::eip6800();
    let cases = inputs
        .into_iter()
        .map(|(name, address, index, sub)| {
            valid(
                &name,
                "get_tree_key(address32, tree_index (32 bytes little-endian), sub_index)",
                json!({"address": hex0x(&address), "tree_index": hex0x(&index), "sub_index": sub}),
                json!({"tree_key": hex0x(&ipa::get_tree_key(committer, &address, &index, sub))}),
            )
        })
        .collect();
    suite_file(
        "tree_key.json",
        Kind::TreeKey,
        "EIP-6800 tree keys: pedersen_hash(address32 ‖ LE32(tree_index))[..31] ‖ sub_index",
        cases,
    )
}

/// One tree operation: a key and `Some(value)` to insert or `None` to delete.
type Op = ([u8; 32], Option<[u8; 32]>);

fn tree_case(name: &str, description: &str, ops: &[Op]) -> Result<Value, VectorError> {
    let mut tree = Tree::new();
    let mut ops_json = Vec::new();
    let mut roots = Vec::new();
    for (key, value) in ops {
        match value {
            Some(v) => {
                tree.insert(key, *v)
                    .map_err(|e| VectorError::Generator(e.to_string()))?;
                ops_json.push(json!({"op": "insert", "key": hex0x(key), "value": hex0x(v)}));
            }
            None => {
                tree.delete(key)
                    .map_err(|e| VectorError::Generator(e.to_string()))?;
                ops_json.push(json!({"op": "delete", "key": hex0x(key)}));
            }
        }
        roots.push(hex0x(&tree.root_bytes()));
    }
    Ok(valid(
        name,
        description,
        json!({"operations": ops_json}),
        json!({"roots": roots}),
    ))
}

pub(super) fn tree_root() -> Result<SuiteFile, VectorError> {
    let mut rng = Rng::new(0x0004_0001);
    let seq: [u8; 32] = std::array::from_fn(|i| i as u8 + 1);
    let zero = [0u8; 32];
    let mut k2 = [0u8; 32];
    k2[30] = 1;
    let mut k3 = [0u8; 32];
    k3[29] = 1;
    let mut cases = vec![
        tree_case("single_insert", "key = value = 01 02 … 20", &[(seq, Some(seq))])?,
        tree_case("overwrite", "insert 0^32 at a key, then overwrite it", &[(seq, Some(zero)), (seq, Some(seq))])?,
        tree_case(
            "longest_path",
            "keys 0^32 and 0^30 01 00 share 30 bytes, then 0^29 01 00 00",
            &[(zero, Some(zero)), (k2, Some(k2)), (k3, Some(k3))],
        )?,
        tree_case(
            "zero_value_is_not_absent",
            "a zero value is stored (the suffix's marker 2^128 is set): the root is not the empty root",
            &[(seq, Some(zero))],
        )?,
        tree_case(
            "delete_absent_key_changes_nothing",
            "deleting a key of an absent stem creates nothing",
            &[(seq, Some(seq)), (zero, None)],
        )?,
    ];
    // 40 inserts over 8 stems (some sharing a 2-byte prefix), then deletes.
    let mut stems: Vec<[u8; 31]> = (0..6).map(|_| rng.bytes::<31>()).collect();
    let mut near = stems[0];
    near[2] ^= 0x5a;
    stems.push(near);
    let mut near2 = stems[1];
    near2[30] ^= 1;
    stems.push(near2);
    let mut ops: Vec<Op> = Vec::new();
    for _ in 0..40 {
        let stem = stems[rng.below(stems.len() as u64) as usize];
        let mut key = [0u8; 32];
        key[..31].copy_from_slice(&stem);
        key[31] = rng.below(256) as u8;
        ops.push((key, Some(rng.bytes::<32>())));
    }
    let written: Vec<[u8; 32]> = ops.iter().map(|(k, _)| *k).collect();
    for i in 0..10 {
        ops.push((written[(i * 7) % written.len()], None));
    }
    // Delete every key of one stem.
    for k in written.iter().filter(|k| k[..31] == stems[7][..]) {
        ops.push((*k, None));
    }
    cases.push(tree_case(
        "random_inserts_then_deletes",
        "40 random inserts on 8 stems (two pairs sharing 2 and 30 bytes), 10 deletes, then every key of one stem deleted",
        &ops,
    )?);
    suite_file(
        "tree_root.json",
        Kind::TreeRoot,
        "Root commitment of an EIP-6800 tree after each operation of a sequence (insert = set a 32-byte value, delete = make the key absent)",
        cases,
    )
}
