//! go-ipa's harness vectors and rust-verkle's commitment and Pedersen-hash vectors.

use std::path::Path;

use banderwagon::{
    fr_from_le_bytes_canonical, fr_from_le_bytes_mod_order, fr_to_le_bytes, DecodeError, Element,
    Fr,
};
use ipa::{Committer, Crs, IpaProof, MultiProof, ProofDecodeError, Transcript, VerifierQuery};

use crate::at::{hex0x, Loc};
use crate::error::{expect_eq, VectorError};

use super::input::{name, read_json};

fn fr_be(loc: &Loc<'_>) -> Result<Fr, VectorError> {
    let mut b = loc.hex_n::<32>()?;
    b.reverse();
    fr_from_le_bytes_canonical(&b).map_err(|e| VectorError::field(&loc.at, e.to_string()))
}

fn point(loc: &Loc<'_>) -> Result<Element, VectorError> {
    Element::from_bytes(&loc.hex()?)
        .map_err(|e| VectorError::field(&loc.at, format!("not a point: {e}")))
}

fn expect_decode_error(loc: &Loc<'_>, wanted: DecodeError) -> Result<(), VectorError> {
    let got = Element::from_bytes(&loc.hex()?);
    expect_eq(
        &loc.at,
        format!("{got:?}"),
        format!("{:?}", Err::<Element, _>(wanted)),
    )
}

/// go-ipa's harness vectors `crypto/001…012` (dispatched on the number).
pub fn go_ipa(path: &Path, number: u32) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let root = Loc::root(&doc, name(path));
    let d = root.get("testData")?;
    match number {
        1 => {
            let scalars: Vec<Fr> = d
                .get("scalars")?
                .items()?
                .iter()
                .map(|s| {
                    fr_from_le_bytes_canonical(&s.decimal_le()?)
                        .map_err(|e| VectorError::field(&s.at, e.to_string()))
                })
                .collect::<Result<_, _>>()?;
            if scalars.len() != 256 {
                return Err(VectorError::field(&d.at, "expected 256 scalars"));
            }
            let want = d.get("serializedCommitment")?;
            expect_eq(
                &want.at,
                hex0x(&Committer::eip6800().commit(&scalars).to_bytes()),
                hex0x(&want.hex()?),
            )?;
            Ok(1)
        }
        2 => {
            let p = point(&d.get("serializedPoint")?)?;
            let want = d.get("fieldElement")?;
            expect_eq(
                &want.at,
                hex0x(&fr_to_le_bytes(&p.map_to_scalar_field())),
                hex0x(&want.decimal_le()?),
            )?;
            Ok(1)
        }
        3 | 4 => {
            let x = d.get("serializedXCoordinate")?.hex_n::<32>()?;
            let y = d.get("serializedYCoordinate")?.hex_n::<32>()?;
            let got = Element::from_uncompressed_be(&x, &y);
            if number == 3 {
                let want = d.get("expectedSerializedPoint")?;
                let got = got.map_err(|e| VectorError::mismatch(&want.at, e, "a point"))?;
                expect_eq(&want.at, hex0x(&got.to_bytes()), hex0x(&want.hex()?))?;
            } else {
                expect_eq(
                    &d.at,
                    format!("{got:?}"),
                    format!("{:?}", Err::<Element, _>(DecodeError::NotCanonicalY)),
                )?;
            }
            Ok(1)
        }
        5 => expect_decode_error(&d.get("serializedPoint")?, DecodeError::NotOnCurve).map(|()| 1),
        6 => {
            expect_decode_error(&d.get("serializedPoint")?, DecodeError::NotInSubgroup).map(|()| 1)
        }
        7 => expect_decode_error(&d.get("serializedPoint")?, DecodeError::NotCanonical).map(|()| 1),
        8 => {
            let items = d.get("serializedPoints")?.items()?;
            for p in &items {
                let bytes = p.hex()?;
                expect_decode_error(p, DecodeError::WrongLength { got: bytes.len() })?;
            }
            Ok(items.len())
        }
        9 => {
            let p = d.get("serializedProof")?;
            let bytes = p.hex()?;
            expect_eq(&p.at, bytes.len(), ipa::MULTIPROOF_LEN)?;
            if MultiProof::from_bytes(&bytes).is_ok() {
                return Err(VectorError::mismatch(&p.at, "decoded", "rejected"));
            }
            // The final scalar alone is the reason, whatever the points.
            let mut good = MultiProof {
                d: Element::generator(),
                ipa: IpaProof {
                    l: [Element::generator(); 8],
                    r: [Element::generator(); 8],
                    a: Fr::from(1u64),
                },
            }
            .to_bytes();
            good[544..].copy_from_slice(&bytes[544..]);
            expect_eq(
                &p.at,
                format!("{:?}", MultiProof::from_bytes(&good).err()),
                format!("{:?}", Some(ProofDecodeError::BadScalar)),
            )?;
            Ok(1)
        }
        10 => {
            let items = d.get("serializedProofs")?.items()?;
            for p in &items {
                let bytes = p.hex()?;
                let got = MultiProof::from_bytes(&bytes).err();
                if !matches!(got, Some(ProofDecodeError::WrongLength { .. })) {
                    return Err(VectorError::mismatch(
                        &p.at,
                        format!("{got:?}"),
                        "WrongLength",
                    ));
                }
            }
            Ok(items.len())
        }
        11 => {
            let f = d.get("forgedEvaluationResult")?;
            let c = point(&f.get("pedersenCommitment")?)?;
            let y = fr_be(&f.get("evaluationResultFr")?)?;
            let at = f.get("evaluationPoint")?.u64()?;
            let p = f.get("serializedProof")?;
            let proof = MultiProof::from_bytes(&p.hex()?)
                .map_err(|e| VectorError::field(&p.at, e.to_string()))?;
            for z in 0..=255u8 {
                let q = VerifierQuery {
                    commitment: c,
                    point: z,
                    result: y,
                };
                let ok = proof
                    .verify(Crs::eip6800(), &mut Transcript::new(b"multiproof"), &[q])
                    .is_ok();
                expect_eq(
                    &format!("{}: verifies at z = {z}", p.at),
                    ok,
                    u64::from(z) == at,
                )?;
            }
            Ok(256)
        }
        12 => {
            let c = point(&d.get("pedersenCommitment")?)?;
            let z = Fr::from(d.get("evaluationPoint")?.u64()?);
            let y = fr_be(&d.get("evaluationResultFr")?)?;
            let p = d.get("ipaSerializedProof")?;
            let proof = IpaProof::from_bytes(&p.hex()?)
                .map_err(|e| VectorError::field(&p.at, e.to_string()))?;
            let crs = Crs::eip6800();
            expect_eq(
                &format!("{}: verifies", p.at),
                proof.verify(crs, &mut Transcript::new(b"ipa"), c, &z, &y),
                true,
            )?;
            let y1 = y + Fr::from(1u64);
            expect_eq(
                &format!("{}: verifies with y + 1", p.at),
                proof.verify(crs, &mut Transcript::new(b"ipa"), c, &z, &y1),
                false,
            )?;
            Ok(2)
        }
        _ => Err(VectorError::Unrecognised {
            path: path.to_path_buf(),
        }),
    }
}

/// rust-verkle's Java-binding vectors: `commit_root_test.json` (big-endian scalars →
/// commitment) and `pedersen_commitment_test.json` (little-endian scalars → map-to-field).
pub fn rust_verkle_commitments(
    path: &Path,
    big_endian_scalars: bool,
) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let cases = Loc::root(&doc, name(path)).items()?;
    if cases.is_empty() {
        return Err(VectorError::field(name(path), "no cases"));
    }
    let committer = Committer::eip6800();
    for case in &cases {
        let frs: Vec<Fr> = case
            .get("frs")?
            .items()?
            .iter()
            .map(|s| {
                if big_endian_scalars {
                    fr_be(s)
                } else {
                    Ok(fr_from_le_bytes_mod_order(&s.hex()?))
                }
            })
            .collect::<Result<_, _>>()?;
        if frs.len() != 256 {
            return Err(VectorError::field(&case.at, "expected 256 scalars"));
        }
        let c = committer.commit(&frs);
        if big_endian_scalars {
            let want = case.get("expected")?;
            expect_eq(&want.at, hex0x(&c.to_bytes()), hex0x(&want.hex()?))?;
        } else {
            let want = case.get("commitment")?;
            expect_eq(
                &want.at,
                hex0x(&fr_to_le_bytes(&c.map_to_scalar_field())),
                hex0x(&want.hex()?),
            )?;
        }
    }
    Ok(cases.len())
}

/// rust-verkle's `pedersen_hash_test.json` (written through its Java bindings). Its keys are
/// not EIP-6800 `get_tree_key`: the stem is the first 31 bytes of the Pedersen commitment
/// `C = 16386·G0 + Σ chunk_i·G_(i+1)` of `address ‖ LE32(treeIndex)` (the same commitment
/// `pedersen_hash` maps to the field) in its compressed encoding byte-reversed (x
/// little-endian), not of `LE32(map_to_scalar_field(C))`; the last byte is the sub-index 1.
/// Every key is checked byte for byte under that reading.
pub fn rust_verkle_pedersen_hash(path: &Path) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let cases: Vec<Loc<'_>> = Loc::root(&doc, name(path))
        .items()?
        .into_iter()
        .filter(|c| c.value.get("comment").is_none())
        .collect();
    expect_eq(&name(path), cases.len(), 10)?;
    let committer = Committer::eip6800();
    for case in &cases {
        let address = case.get("addr")?.hex_n::<32>()?;
        let le = case.get("treeIndex")?.decimal_le()?;
        let want = case.get("treeKey")?.hex_n::<32>()?;
        expect_eq(&format!("{}: sub-index byte", case.at), want[31], 1)?;
        let mut input = [0u8; 64];
        input[..32].copy_from_slice(&address);
        input[32..].copy_from_slice(&le);
        let mut terms = vec![(0usize, Fr::from(2u64 + 256 * 64))];
        for (i, c) in input.chunks(16).enumerate() {
            let mut w = [0u8; 16];
            w.copy_from_slice(c);
            terms.push((i + 1, Fr::from(u128::from_le_bytes(w))));
        }
        let mut ours = committer.commit_sparse(&terms).to_bytes();
        ours.reverse();
        ours[31] = 1;
        expect_eq(&format!("{}/treeKey", case.at), hex0x(&ours), hex0x(&want))?;
    }
    Ok(cases.len())
}
