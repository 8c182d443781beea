//! Checking a file of our suite (`vectors/README.md`) against this implementation.

use banderwagon::{fr_from_le_bytes_canonical, fr_to_le_bytes, Element, Fr};
use ipa::{Committer, Crs, IpaProof, MultiProof, ProverQuery, Transcript, VerifierQuery};
use serde_json::Value;
use verkle::Tree;
use witness::ExecutionWitness;

use crate::at::{hex0x, Loc};
use crate::error::{expect_eq, VectorError};
use crate::schema::{
    fractional_rule, point_rule, proof_decode_rule, rule, ssz_rule, verify_rule, Kind, FORMAT,
    VERSION,
};

/// Checks every case of one suite file (already parsed); returns the number of cases.
pub fn check_suite_document(doc: &Value, name: &str) -> Result<usize, VectorError> {
    let root = Loc::root(doc, name);
    expect_eq(
        &format!("{name}/format"),
        root.get("format")?.str()?,
        FORMAT,
    )?;
    expect_eq(
        &format!("{name}/version"),
        root.get("version")?.u64()?,
        VERSION,
    )?;
    let kind_loc = root.get("kind")?;
    let kind_name = kind_loc.str()?;
    let kind = Kind::from_name(kind_name)
        .ok_or_else(|| VectorError::field(&kind_loc.at, format!("unknown kind `{kind_name}`")))?;
    let cases = root.get("cases")?.items()?;
    if cases.is_empty() {
        return Err(VectorError::field(format!("{name}/cases"), "no cases"));
    }
    let mut names = std::collections::HashSet::new();
    for case in &cases {
        let case_name = case.get("name")?.str()?;
        if !names.insert(case_name) {
            return Err(VectorError::field(
                &case.at,
                format!("case name `{case_name}` repeated"),
            ));
        }
        let located = Loc::root(case.value, format!("{name}: case {case_name}"));
        check_case(kind, &located)?;
    }
    Ok(cases.len())
}

/// What a case expects: success, or failure by a named rule.
enum Expect<'a> {
    Valid(Option<Loc<'a>>),
    /// The case's `rule`, and every other rule its `rules` list allows.
    Invalid(&'static str, Vec<&'static str>),
}

/// A rule id the schema knows, as its `&'static str`.
fn known_rule(r: &Loc<'_>) -> Result<&'static str, VectorError> {
    let id = r.str()?;
    rule(id)
        .map(|known| known.id)
        .ok_or_else(|| VectorError::field(&r.at, format!("unknown rule `{id}`")))
}

fn expectation<'a>(case: &Loc<'a>) -> Result<Expect<'a>, VectorError> {
    if case.get("valid")?.bool()? {
        return Ok(Expect::Valid(case.opt("output")));
    }
    let first = known_rule(&case.get("rule")?)?;
    let mut allowed = Vec::new();
    if let Some(list) = case.opt("rules") {
        for r in list.items()? {
            allowed.push(known_rule(&r)?);
        }
        if !allowed.contains(&first) {
            return Err(VectorError::field(
                &list.at,
                format!("`rules` does not list the case's rule `{first}`"),
            ));
        }
    }
    Ok(Expect::Invalid(first, allowed))
}

fn check_case(kind: Kind, case: &Loc<'_>) -> Result<(), VectorError> {
    let input = case.get("input")?;
    let expect = expectation(case)?;
    match kind {
        Kind::PointCodec => point_case(&input, expect),
        Kind::Commitment => commitment_case(&input, expect),
        Kind::TreeKey => tree_key_case(&input, expect),
        Kind::TreeRoot => tree_root_case(&input, expect),
        Kind::Ipa => ipa_case(&input, expect),
        Kind::Multiproof => multiproof_case(&input, expect),
        Kind::Witness => witness_case(&input, expect),
        Kind::FractionalProof => fractional_case(&input, expect),
        Kind::BinaryTreeRoot => binary_tree_root_case(&input, expect),
        Kind::BinaryWitness => binary_witness_case(&input, expect),
    }
}

/// Fails unless the outcome is the expected rule.
fn expect_rule(
    at: &str,
    got: Result<(), &'static str>,
    expect: &Expect<'_>,
) -> Result<(), VectorError> {
    match (expect, got) {
        (Expect::Valid(_), Ok(())) => Ok(()),
        (Expect::Valid(_), Err(r)) => Err(VectorError::mismatch(
            at,
            format!("rejected ({r})"),
            "valid",
        )),
        (Expect::Invalid(want, _), Ok(())) => Err(VectorError::mismatch(
            at,
            "valid",
            format!("rejected ({want})"),
        )),
        (Expect::Invalid(_, allowed), Err(r)) if allowed.contains(&r) => Ok(()),
        (Expect::Invalid(want, _), Err(r)) => expect_eq(at, r, *want),
    }
}

fn output<'e, 'a>(expect: &'e Expect<'a>, at: &str) -> Result<Option<&'e Loc<'a>>, VectorError> {
    match expect {
        Expect::Valid(Some(o)) => Ok(Some(o)),
        Expect::Valid(None) => Err(VectorError::field(at, "a valid case needs `output`")),
        Expect::Invalid(..) => Ok(None),
    }
}

fn scalar(loc: &Loc<'_>) -> Result<Fr, VectorError> {
    fr_from_le_bytes_canonical(&loc.hex_n::<32>()?)
        .map_err(|e| VectorError::field(&loc.at, format!("not a canonical scalar: {e}")))
}

fn scalars(loc: &Loc<'_>) -> Result<Vec<Fr>, VectorError> {
    let items = loc.items()?;
    if items.len() != 256 {
        return Err(VectorError::field(
            &loc.at,
            format!("{} scalars, expected 256", items.len()),
        ));
    }
    items.iter().map(scalar).collect()
}

fn point(loc: &Loc<'_>) -> Result<Element, VectorError> {
    Element::from_bytes(&loc.hex()?)
        .map_err(|e| VectorError::field(&loc.at, format!("not a point: {e}")))
}

fn point_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let b = input.get("bytes")?;
    let bytes = b.hex()?;
    let decoded = Element::from_bytes(&bytes);
    expect_rule(
        &b.at,
        decoded.as_ref().map(|_| ()).map_err(point_rule),
        &expect,
    )?;
    let (Ok(e), Some(out)) = (decoded, output(&expect, &input.at)?) else {
        return Ok(());
    };
    expect_eq(
        &format!("{}: re-encoded", b.at),
        hex0x(&e.to_bytes()),
        hex0x(&bytes),
    )?;
    let k = scalar(&out.get("multiple_of_generator")?)?;
    let kg = banderwagon::vartime_multi_scalar_mul(&[Element::generator()], &[k]);
    expect_eq(
        &format!("{}: k·G", b.at),
        hex0x(&kg.to_bytes()),
        hex0x(&bytes),
    )?;
    let m = out.get("map_to_scalar_field")?;
    expect_eq(
        &m.at,
        hex0x(&fr_to_le_bytes(&e.map_to_scalar_field())),
        hex0x(&m.hex()?),
    )
}

fn commitment_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let Some(out) = output(&expect, &input.at)? else {
        return Err(VectorError::field(
            &input.at,
            "commitment cases are all valid",
        ));
    };
    let s = scalars(&input.get("scalars")?)?;
    let c = Committer::eip6800().commit(&s);
    let want = out.get("commitment")?;
    expect_eq(&want.at, hex0x(&c.to_bytes()), hex0x(&want.hex()?))?;
    let m = out.get("map_to_scalar_field")?;
    expect_eq(
        &m.at,
        hex0x(&fr_to_le_bytes(&c.map_to_scalar_field())),
        hex0x(&m.hex()?),
    )
}

fn tree_key_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let Some(out) = output(&expect, &input.at)? else {
        return Err(VectorError::field(
            &input.at,
            "tree_key cases are all valid",
        ));
    };
    let address = input.get("address")?.hex_n::<32>()?;
    let index = input.get("tree_index")?.hex_n::<32>()?;
    let sub = input.get("sub_index")?;
    let sub_index =
        u8::try_from(sub.u64()?).map_err(|_| VectorError::field(&sub.at, "above 255"))?;
    let key = ipa::get_tree_key(Committer::eip6800(), &address, &index, sub_index);
    let want = out.get("tree_key")?;
    expect_eq(&want.at, hex0x(&key), hex0x(&want.hex_n::<32>()?))
}

/// The operations of a root case (`name`, all valid) and the roots expected after each,
/// as many of one as of the other.
fn ops_and_roots<'a>(
    input: &Loc<'a>,
    expect: &Expect<'a>,
    name: &str,
) -> Result<(Vec<Loc<'a>>, Vec<Loc<'a>>), VectorError> {
    let Some(out) = output(expect, &input.at)? else {
        return Err(VectorError::field(
            &input.at,
            format!("{name} cases are all valid"),
        ));
    };
    let ops = input.get("operations")?.items()?;
    let roots = out.get("roots")?.items()?;
    if roots.len() != ops.len() {
        return Err(VectorError::field(
            &out.at,
            format!("{} roots for {} operations", roots.len(), ops.len()),
        ));
    }
    Ok((ops, roots))
}

/// What an operation writes: `insert` its 32-byte `value` (`Some`), or `delete` (`None`).
fn op_value(op: &Loc<'_>) -> Result<Option<[u8; 32]>, VectorError> {
    let kind = op.get("op")?;
    match kind.str()? {
        "insert" => Ok(Some(op.get("value")?.hex_n::<32>()?)),
        "delete" => Ok(None),
        other => Err(VectorError::field(
            &kind.at,
            format!("unknown op `{other}`"),
        )),
    }
}

fn tree_root_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let (ops, roots) = ops_and_roots(input, &expect, "tree_root")?;
    let mut tree = Tree::new();
    for (op, root) in ops.iter().zip(&roots) {
        let key = op.get("key")?.hex_n::<32>()?;
        let result = match op_value(op)? {
            Some(value) => tree.insert(&key, value),
            None => tree.delete(&key),
        };
        result.map_err(|e| VectorError::field(&op.at, format!("tree: {e}")))?;
        expect_eq(
            &root.at,
            hex0x(&tree.root_bytes()),
            hex0x(&root.hex_n::<32>()?),
        )?;
    }
    Ok(())
}

/// The `hash` field of a binary case: `sha256` or `blake3`.
fn binary_hash<'a>(input: &Loc<'a>) -> Result<&'a str, VectorError> {
    let hash = input.get("hash")?;
    match hash.str()? {
        h @ ("sha256" | "blake3") => Ok(h),
        other => Err(VectorError::field(
            &hash.at,
            format!("unknown hash `{other}`"),
        )),
    }
}

fn binary_tree_root_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let (ops, roots) = ops_and_roots(input, &expect, "binary_tree_root")?;
    let tree_loc = input.get("tree")?;
    let hash = binary_hash(input)?;
    let mut tree = match (tree_loc.str()?, hash) {
        ("eip8297", "blake3") => BinaryTree::Eip8297(bintree::eip8297::Tree::new()),
        ("eip7864", "sha256") => BinaryTree::Eip7864Sha256(bintree::eip7864::Tree::new()),
        ("eip7864", "blake3") => BinaryTree::Eip7864Blake3(bintree::eip7864::Tree::new()),
        (tree, hash) => {
            return Err(VectorError::field(
                &tree_loc.at,
                format!("no binary tree `{tree}` hashed with `{hash}`"),
            ))
        }
    };
    for (op, root) in ops.iter().zip(&roots) {
        let key = op.get("key")?.hex()?;
        let value = op_value(op)?;
        let got = tree
            .write(&key, value.as_ref())
            .map_err(|e| VectorError::field(&op.at, format!("tree: {e}")))?;
        expect_eq(&root.at, hex0x(&got), hex0x(&root.hex_n::<32>()?))?;
    }
    Ok(())
}

/// The binary trees a `binary_tree_root` case names.
enum BinaryTree {
    Eip8297(bintree::eip8297::Tree<bintree::Blake3>),
    Eip7864Sha256(bintree::eip7864::Tree<bintree::Sha256>),
    Eip7864Blake3(bintree::eip7864::Tree<bintree::Blake3>),
}

impl BinaryTree {
    /// Inserts (`Some`) or deletes (`None`, EIP-8297 only) and returns the new root.
    fn write(&mut self, key: &[u8], value: Option<&[u8; 32]>) -> Result<[u8; 32], String> {
        match (&mut *self, value) {
            (BinaryTree::Eip8297(t), Some(v)) => t.insert(key, v).map_err(|e| e.to_string())?,
            (BinaryTree::Eip8297(t), None) => {
                if !t.remove(key).map_err(|e| e.to_string())? {
                    return Err("delete of an absent key".into());
                }
            }
            (BinaryTree::Eip7864Sha256(t), Some(v)) => {
                t.insert(key, v).map_err(|e| e.to_string())?
            }
            (BinaryTree::Eip7864Blake3(t), Some(v)) => {
                t.insert(key, v).map_err(|e| e.to_string())?
            }
            (_, None) => return Err("EIP-7864 defines no delete".into()),
        }
        Ok(match self {
            BinaryTree::Eip8297(t) => t.root(),
            BinaryTree::Eip7864Sha256(t) => t.root(),
            BinaryTree::Eip7864Blake3(t) => t.root(),
        })
    }
}

fn binary_witness_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let tree_loc = input.get("tree")?;
    let tree = tree_loc.str()?;
    let hash = binary_hash(input)?;
    if !matches!((tree, hash), ("eip7864", _) | ("eip8297", "blake3")) {
        return Err(VectorError::field(
            &tree_loc.at,
            format!("no binary witness for tree `{tree}` hashed with `{hash}`"),
        ));
    }
    let bytes = input.get("witness")?.hex()?;
    let pre = input.get("pre_state_root")?.hex_n::<32>()?;
    let got = match hash {
        "sha256" => crate::schema::binary_witness_value::<bintree::Sha256>(tree, &bytes, &pre),
        _ => crate::schema::binary_witness_value::<bintree::Blake3>(tree, &bytes, &pre),
    };
    let value = got.as_ref().map(|_| ()).map_err(|r| *r);
    expect_rule(&input.at, value, &expect)?;
    if let (Some(out), Ok(value)) = (output(&expect, &input.at)?, got) {
        let sorted = crate::schema::sorted;
        expect_eq(
            &out.at,
            sorted(value).to_string(),
            sorted(out.value.clone()).to_string(),
        )?;
    }
    Ok(())
}

fn label(input: &Loc<'_>) -> Result<Vec<u8>, VectorError> {
    Ok(input.get("transcript_label")?.str()?.as_bytes().to_vec())
}

fn check_state_challenge(
    out: Option<&Loc<'_>>,
    mut transcript: Transcript,
) -> Result<(), VectorError> {
    if let Some(out) = out {
        let want = out.get("transcript_challenge_state")?;
        let got = transcript.challenge_scalar(b"state");
        expect_eq(&want.at, hex0x(&fr_to_le_bytes(&got)), hex0x(&want.hex()?))?;
    }
    Ok(())
}

fn ipa_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let label = label(input)?;
    let c = point(&input.get("commitment")?)?;
    let z = scalar(&input.get("z")?)?;
    let y = scalar(&input.get("y")?)?;
    let p = input.get("proof")?;
    let bytes = p.hex()?;
    let mut transcript = Transcript::new(&label);
    let outcome = match IpaProof::from_bytes(&bytes) {
        Err(e) => Err(proof_decode_rule(&e)),
        Ok(proof) if proof.verify(Crs::eip6800(), &mut transcript, c, &z, &y) => Ok(()),
        Ok(_) => Err("proof.rejected"),
    };
    expect_rule(&p.at, outcome, &expect)?;
    let out = output(&expect, &input.at)?;
    check_state_challenge(out, transcript)?;
    if let Some(poly) = input.opt("poly") {
        let poly = scalars(&poly)?;
        let committer = Committer::eip6800();
        expect_eq(
            &format!("{}: commit(poly)", input.at),
            hex0x(&committer.commit(&poly).to_bytes()),
            hex0x(&c.to_bytes()),
        )?;
        let (proof, value) = IpaProof::prove(committer, &mut Transcript::new(&label), c, poly, &z);
        expect_eq(
            &format!("{}: poly(z)", input.at),
            hex0x(&fr_to_le_bytes(&value)),
            hex0x(&fr_to_le_bytes(&y)),
        )?;
        expect_eq(
            &format!("{}: proof re-proven", p.at),
            hex0x(&proof.to_bytes()),
            hex0x(&bytes),
        )?;
    }
    Ok(())
}

fn multiproof_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let label = label(input)?;
    let items = input.get("queries")?.items()?;
    let mut queries = Vec::with_capacity(items.len());
    let mut poly_of = Vec::with_capacity(items.len());
    for q in &items {
        let z = q.get("z")?;
        let point_index = u8::try_from(z.u64()?)
            .map_err(|_| VectorError::field(&z.at, "z is a domain index 0..255"))?;
        queries.push(VerifierQuery {
            commitment: point(&q.get("commitment")?)?,
            point: point_index,
            result: scalar(&q.get("y")?)?,
        });
        poly_of.push(q.opt("poly").map(|p| p.u64()).transpose()?);
    }
    let p = input.get("proof")?;
    let bytes = p.hex()?;
    let mut transcript = Transcript::new(&label);
    let outcome = match MultiProof::from_bytes(&bytes) {
        Err(e) => Err(proof_decode_rule(&e)),
        Ok(proof) => match proof.verify(Crs::eip6800(), &mut transcript, &queries) {
            Ok(()) => Ok(()),
            Err(ipa::ProofVerifyError::NoQueries) => Err("proof.no_openings"),
            Err(_) => Err("proof.rejected"),
        },
    };
    expect_rule(&p.at, outcome, &expect)?;
    check_state_challenge(output(&expect, &input.at)?, transcript)?;
    if let Some(polys) = input.opt("polys") {
        let polys: Vec<Vec<Fr>> = polys
            .items()?
            .iter()
            .map(scalars)
            .collect::<Result<_, _>>()?;
        let mut pq = Vec::with_capacity(queries.len());
        for ((q, idx), item) in queries.iter().zip(&poly_of).zip(&items) {
            let poly = idx
                .and_then(|i| polys.get(usize::try_from(i).ok()?))
                .ok_or_else(|| VectorError::field(&item.at, "`poly` must index `polys`"))?;
            pq.push(ProverQuery {
                commitment: q.commitment,
                poly,
                point: q.point,
                result: q.result,
            });
        }
        let proof = MultiProof::prove(Committer::eip6800(), &mut Transcript::new(&label), &pq);
        expect_eq(
            &format!("{}: re-proven", p.at),
            hex0x(&proof.to_bytes()),
            hex0x(&bytes),
        )?;
    }
    Ok(())
}

fn witness_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    let root = input.get("pre_state_root")?.hex_n::<32>()?;
    let json = input.opt("json");
    let ssz = input.opt("ssz");
    let from_json = match &json {
        Some(j) => Some(
            ExecutionWitness::from_json_value(j.value)
                .map_err(|e| VectorError::field(&j.at, format!("witness JSON: {e}")))?,
        ),
        None => None,
    };
    let w = match (&ssz, from_json) {
        (Some(s), from_json) => {
            let bytes = s.hex()?;
            let decoded = ExecutionWitness::from_ssz(bytes::Bytes::from(bytes.clone()));
            if let Expect::Invalid(r, _) = &expect {
                if r.starts_with("ssz.") {
                    let got = decoded.map(|_| ()).map_err(|e| ssz_rule(&e));
                    return expect_rule(&s.at, got, &expect);
                }
            }
            let w = decoded.map_err(|e| VectorError::field(&s.at, format!("SSZ: {e}")))?;
            if let Some(j) = from_json {
                expect_eq(
                    &format!("{}: SSZ of the JSON witness", s.at),
                    hex0x(j.as_ssz()),
                    hex0x(&bytes),
                )?;
            }
            w
        }
        (None, Some(j)) => j,
        (None, None) => {
            return Err(VectorError::field(
                &input.at,
                "a witness case needs `json` or `ssz`",
            ))
        }
    };
    if let Some(j) = &json {
        expect_eq(
            &format!("{}: as written by go-verkle's JSON writer", j.at),
            w.to_json_value().to_string(),
            j.value.to_string(),
        )?;
    }
    let verified = witness::verify(&root, &w);
    let at = format!("{}: verify", input.at);
    expect_rule(
        &at,
        verified.as_ref().map(|_| ()).map_err(verify_rule),
        &expect,
    )?;
    let (Ok(v), Some(out)) = (verified, output(&expect, &input.at)?) else {
        return Ok(());
    };
    let post = out.get("post_state_root")?;
    let got = v
        .post_state_root()
        .map_err(|e| VectorError::field(&post.at, format!("post-state root: {e}")))?;
    expect_eq(&post.at, hex0x(&got), hex0x(&post.hex_n::<32>()?))?;
    let openings = out.get("openings")?;
    expect_eq(&openings.at, v.opening_count() as u64, openings.u64()?)?;
    // Optional: what the verifier reports of unbound absences (§6.6).
    for (field, count) in [
        ("unbound_absences", v.unbound_absences()),
        ("unbound_writes", v.unbound_writes()),
    ] {
        if let Some(n) = out.opt(field) {
            expect_eq(&n.at, count as u64, n.u64()?)?;
        }
    }
    if let Some(keys) = out.opt("keys") {
        let want = expect_keys(&keys, v.keys().iter().map(|k| (k.key(), k.current_value)))?;
        for (k, w) in v.keys().iter().zip(&want) {
            let bound = w.get("bound")?;
            expect_eq(&bound.at, k.bound, bound.bool()?)?;
        }
    }
    // Not computable from the witness; it must be the computed root when every write is
    // bound.
    if let Some(canonical) = out.opt("canonical_post_state_root") {
        let want = canonical.hex_n::<32>()?;
        if v.unbound_writes() == 0 {
            expect_eq(
                &format!("{}: with no unbound write", canonical.at),
                hex0x(&got),
                hex0x(&want),
            )?;
        }
    }
    Ok(())
}

/// Checks one expected `{key, current_value}` entry against a proven key: `current_value`
/// is required, `null` meaning proven absent.
/// Checks the expected key list `keys` against the proven `(key, current value)` pairs, in
/// order and in number; returns the expected entries for further checks.
fn expect_keys<'a>(
    keys: &Loc<'a>,
    proven: impl ExactSizeIterator<Item = ([u8; 32], Option<[u8; 32]>)>,
) -> Result<Vec<Loc<'a>>, VectorError> {
    let want = keys.items()?;
    expect_eq(
        &format!("{}: number of proven keys", keys.at),
        proven.len(),
        want.len(),
    )?;
    for ((key, current_value), w) in proven.zip(&want) {
        expect_key(w, key, current_value)?;
    }
    Ok(want)
}

fn expect_key(
    w: &Loc<'_>,
    key: [u8; 32],
    current_value: Option<[u8; 32]>,
) -> Result<(), VectorError> {
    let k = w.get("key")?;
    expect_eq(&k.at, hex0x(&key), hex0x(&k.hex_n::<32>()?))?;
    if w.value.get("current_value").is_none() {
        return Err(VectorError::field(&w.at, "missing field `current_value`"));
    }
    let want = match w.opt("current_value") {
        Some(cv) => Some(cv.hex_n::<32>()?),
        None => None,
    };
    let show = |v: Option<[u8; 32]>| v.map_or_else(|| "null".to_owned(), |c| hex0x(&c));
    expect_eq(
        &format!("{}/current_value", w.at),
        show(current_value),
        show(want),
    )
}

fn fractional_case(input: &Loc<'_>, expect: Expect<'_>) -> Result<(), VectorError> {
    use witness::fractional::Anchor;
    let root = input.get("root")?.hex_n::<32>()?;
    let anchor = input.get("anchor")?;
    let anchor = match anchor.str()? {
        "state_root" => Anchor::StateRoot(root),
        "coordinator_root" => Anchor::CoordinatorRoot(root),
        other => {
            return Err(VectorError::field(
                &anchor.at,
                format!("anchor `{other}` (expected `state_root` or `coordinator_root`)"),
            ))
        }
    };
    let p = input.get("proof")?;
    let verified =
        witness::fractional::verify_fractional_bytes(bytes::Bytes::from(p.hex()?), &anchor);
    let at = format!("{}: verify_fractional", input.at);
    expect_rule(
        &at,
        verified.as_ref().map(|_| ()).map_err(fractional_rule),
        &expect,
    )?;
    let (Ok(v), Some(out)) = (verified, output(&expect, &input.at)?) else {
        return Ok(());
    };
    let keys = out.get("keys")?;
    let proven = v.keys();
    let want = expect_keys(&keys, proven.iter().map(|k| (k.key(), k.current_value)))?;
    let show = |v: Option<&[u8; 32]>| v.map_or_else(|| "null".to_owned(), |c| hex0x(c));
    let want_opt = |w: &Loc<'_>, field: &str| -> Result<String, VectorError> {
        if w.value.get(field).is_none() {
            return Err(VectorError::field(
                &w.at,
                format!("missing field `{field}`"),
            ));
        }
        Ok(match w.opt(field) {
            Some(x) => hex0x(&x.hex_n::<32>()?),
            None => "null".to_owned(),
        })
    };
    for (k, w) in proven.iter().zip(&want) {
        expect_eq(
            &format!("{}/new_value", w.at),
            show(k.new_value.as_ref()),
            want_opt(w, "new_value")?,
        )?;
        let deleted = w.get("deleted")?;
        expect_eq(&deleted.at, k.deleted, deleted.bool()?)?;
    }
    let shards = out.get("shards")?;
    let want_shards = shards
        .items()?
        .iter()
        .map(|s| {
            Ok(format!(
                "{}:{}",
                s.get("index")?.u64()?,
                hex0x(&s.get("commitment")?.hex_n::<32>()?)
            ))
        })
        .collect::<Result<Vec<String>, VectorError>>()?;
    let got_shards: Vec<String> = v
        .shards()
        .iter()
        .map(|(i, c)| format!("{i}:{}", hex0x(c)))
        .collect();
    expect_eq(
        &shards.at,
        format!("{got_shards:?}"),
        format!("{want_shards:?}"),
    )?;
    let openings = out.get("openings")?;
    expect_eq(&openings.at, v.opening_count() as u64, openings.u64()?)?;
    let (post_state, post_coordinator) = v
        .post_roots()
        .map_err(|e| VectorError::field(&out.at, format!("post-state roots: {e}")))?;
    for (field, got) in [
        ("state_root", Some(v.state_root())),
        ("coordinator_root", v.coordinator_root()),
        ("post_state_root", Some(&post_state)),
        ("post_coordinator_root", post_coordinator.as_ref()),
    ] {
        expect_eq(
            &format!("{}/{field}", out.at),
            show(got),
            want_opt(out, field)?,
        )?;
    }
    Ok(())
}
