//! Prints the openings and the first transcript challenges of one witness of our suite, for
//! the worked example of `spec/WIRE.md` §8:
//! `cargo run --release -p vectors --example worked_example [CASE]` (default `present_one_key`).
#![allow(clippy::unwrap_used)]

use banderwagon::arith::One;
use banderwagon::{fr_from_le_bytes_mod_order, fr_from_u128, fr_to_le_bytes, Element, Fr};
use ipa::{Crs, MultiProof, Transcript, VerifierQuery};
use witness::{ExecutionWitness, NodeKind};

fn hex(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

fn main() {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "present_one_key".into());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/suite/witness_valid.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name.as_str())
        .unwrap();
    let root: [u8; 32] = hex::decode(
        case["input"]["pre_state_root"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
    )
    .unwrap()
    .try_into()
    .unwrap();
    let w = ExecutionWitness::from_json_value(&case["input"]["json"]).unwrap();
    let v = witness::verify(&root, &w).unwrap();
    // Openings in (path, z) order, rebuilt from the proven nodes (§6.3).
    let mut openings: Vec<(Vec<u8>, [u8; 32], u8, Fr)> = Vec::new();
    for n in v.nodes() {
        let p = n.path.as_bytes().to_vec();
        let c = if n.path.is_empty() {
            root
        } else {
            n.commitment.to_bytes()
        };
        match n.kind {
            NodeKind::Internal => {
                let mut children: Vec<u8> = v
                    .stems()
                    .iter()
                    .filter(|s| s.stem.starts_with(&p) && usize::from(s.depth) > p.len())
                    .map(|s| s.stem[p.len()])
                    .collect();
                children.sort();
                children.dedup();
                for c_i in children {
                    let mut cp = p.clone();
                    cp.push(c_i);
                    let y = v.node(&cp).map_or(Fr::from(0u64), |n| n.field);
                    openings.push((p.clone(), c, c_i, y));
                }
            }
            NodeKind::Leaf => {
                let stem = n.leaf_stem.unwrap();
                openings.push((p.clone(), c, 0, Fr::one()));
                openings.push((p.clone(), c, 1, fr_from_le_bytes_mod_order(&stem)));
                for (z, b) in [(2u8, 2u8), (3, 3)] {
                    let mut cp = p.clone();
                    cp.push(b);
                    if let Some(s) = v.node(&cp) {
                        openings.push((p.clone(), c, z, s.field));
                    }
                }
            }
            NodeKind::SuffixTree => {
                let high = p.last() == Some(&3);
                let leaf = &p[..p.len() - 1];
                for k in v
                    .keys()
                    .iter()
                    .filter(|k| k.stem.starts_with(leaf) && (k.suffix >= 128) == high)
                {
                    let z = 2 * (k.suffix % 128);
                    let (lo, hi) = match k.current_value {
                        Some(val) => (
                            fr_from_le_bytes_mod_order(&val[..16]) + two_pow_128(),
                            fr_from_le_bytes_mod_order(&val[16..]),
                        ),
                        None => (Fr::from(0u64), Fr::from(0u64)),
                    };
                    openings.push((p.clone(), c, z, lo));
                    openings.push((p.clone(), c, z + 1, hi));
                }
            }
            _ => {}
        }
    }
    let mut t = Transcript::new(b"vt");
    t.domain_sep(b"multiproof");
    println!(
        "{name}: {} openings (the verifier counted {})",
        openings.len(),
        v.opening_count()
    );
    for (p, c, z, y) in &openings {
        println!(
            "path {:<8} C {}  z {:>3}  y {}",
            hex(p),
            hex(c),
            z,
            hex(&fr_to_le_bytes(y))
        );
        t.append_point_bytes(b"C", c);
        t.append_scalar(b"z", &Fr::from(u64::from(*z)));
        t.append_scalar(b"y", y);
    }
    // The openings are right exactly when the witness's multiproof verifies over them.
    let queries: Vec<VerifierQuery> = openings
        .iter()
        .map(|(_, c, z, y)| VerifierQuery {
            commitment: Element::from_bytes(c).unwrap(),
            point: *z,
            result: *y,
        })
        .collect();
    MultiProof::from_bytes(&w.verkle_proof().multiproof_bytes())
        .unwrap()
        .verify(Crs::eip6800(), &mut Transcript::new(b"vt"), &queries)
        .unwrap();
    let r = t.challenge_scalar(b"r");
    let d = Element::from_bytes(w.verkle_proof().d()).unwrap();
    t.append_point(b"D", &d);
    let tt = t.challenge_scalar(b"t");
    println!(
        "r = {}\nt = {}",
        hex(&fr_to_le_bytes(&r)),
        hex(&fr_to_le_bytes(&tt))
    );
}

fn two_pow_128() -> Fr {
    fr_from_u128(u128::MAX) + Fr::one()
}
