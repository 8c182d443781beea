//! Our suite is exactly what the generator writes, and the runner checks every file of it
//! and of the upstream data in `../shared/vectors` (or `$FVERKLE_VECTORS`), failing on any
//! file it cannot account for.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::Value;
use vectors::{
    audit_suite_document, check_paths, check_suite_document, generate_suite, Format, Status,
};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn suite_dir() -> PathBuf {
    crate_dir().join("suite")
}

fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("FVERKLE_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => crate_dir().join("../../shared/vectors"),
    };
    assert!(
        dir.is_dir(),
        "upstream vectors missing at {}; set FVERKLE_VECTORS",
        dir.display()
    );
    dir
}

fn suite_doc(name: &str) -> Value {
    let path = suite_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn regenerating_the_suite_gives_the_committed_bytes() {
    let generated = generate_suite().unwrap();
    let mut names: Vec<String> = generated.iter().map(|f| f.name.clone()).collect();
    for f in &generated {
        let path = suite_dir().join(&f.name);
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run `fverkle vectors gen vectors/suite`)",
                path.display()
            )
        });
        assert!(
            committed == f.contents,
            "{} differs from a fresh generation",
            path.display()
        );
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(suite_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    on_disk.sort();
    assert_eq!(on_disk, names, "stale or missing files in vectors/suite");
    // A second run is identical too (no hidden state, no time, no thread order).
    assert_eq!(generate_suite().unwrap(), generated);
    let total: usize = generated.iter().map(|f| f.contents.len()).sum();
    assert!(
        total < 4 << 20,
        "suite is {total} bytes: keep it to a few MB"
    );
}

#[test]
fn every_file_of_both_directories_is_checked() {
    let shared = shared_dir();
    let report = check_paths(&[crate_dir(), shared.clone()]).unwrap();
    let mut failures = Vec::new();
    for f in &report.files {
        let rel = f
            .path
            .strip_prefix(&shared)
            .ok()
            .map(|p| p.display().to_string());
        match (&f.status, rel.as_deref()) {
            (Status::Passed { checks }, _) => assert!(*checks > 0, "{}", f.path.display()),
            (Status::Skipped { .. }, Some("README.md" | "held-out.bin")) => {}
            (Status::Skipped { .. }, None) => assert_eq!(f.format, Format::NotData),
            (other, _) => failures.push(format!("{}: {other}", f.path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} files not passing:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every upstream file is accounted for: 34 checked, README + held-out skipped.
    let upstream: Vec<_> = report
        .files
        .iter()
        .filter(|f| f.path.starts_with(&shared))
        .collect();
    let passed = upstream
        .iter()
        .filter(|f| matches!(f.status, Status::Passed { .. }))
        .count();
    assert_eq!((upstream.len(), passed), (36, 34));
    // Every suite file of ours is checked.
    let ours = report
        .files
        .iter()
        .filter(|f| f.format == Format::Suite)
        .count();
    assert_eq!(ours, 13);
}

#[test]
fn a_file_no_checker_knows_fails() {
    let dir = std::env::temp_dir().join(format!("fverkle-vectors-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("stray.bin"), b"\x00").unwrap();
    std::fs::write(dir.join("other.json"), b"{\"format\": \"not-ours\"}").unwrap();
    let report = check_paths(std::slice::from_ref(&dir)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(report.files.len(), 2);
    assert_eq!(report.failed(), 2, "{report:?}");
}

#[test]
fn a_mislabelled_or_wrong_case_fails() {
    // A negative case labelled with another rule.
    let mut doc = suite_doc("witness_invalid.json");
    assert!(check_suite_document(&doc, "witness_invalid.json").is_ok());
    doc["cases"][0]["rule"] = Value::from("proof.rejected");
    let err = check_suite_document(&doc, "witness_invalid.json").unwrap_err();
    assert!(
        err.to_string().contains("canonical.stems_ascending"),
        "{err}"
    );

    // A wrong post-state root.
    let mut doc = suite_doc("witness_valid.json");
    doc["cases"][0]["output"]["post_state_root"] = Value::from(format!("0x{}", "00".repeat(32)));
    assert!(check_suite_document(&doc, "witness_valid.json").is_err());

    // A negative case marked valid.
    let mut doc = suite_doc("point_codec.json");
    let last = doc["cases"].as_array().unwrap().len() - 1;
    doc["cases"][last]["valid"] = Value::from(true);
    assert!(check_suite_document(&doc, "point_codec.json").is_err());

    // An unknown rule name.
    let mut doc = suite_doc("multiproof.json");
    let last = doc["cases"].as_array().unwrap().len() - 1;
    doc["cases"][last]["rule"] = Value::from("proof.too_short");
    let err = check_suite_document(&doc, "multiproof.json").unwrap_err();
    assert!(err.to_string().contains("unknown rule"), "{err}");
}

#[test]
fn each_rule_has_a_negative_case_and_every_kind_a_file() {
    let mut seen = std::collections::BTreeSet::new();
    let mut kinds = std::collections::BTreeSet::new();
    for f in generate_suite().unwrap() {
        let doc: Value = serde_json::from_str(&f.contents).unwrap();
        kinds.insert(doc["kind"].as_str().unwrap().to_owned());
        for c in doc["cases"].as_array().unwrap() {
            if let Some(r) = c["rule"].as_str() {
                seen.insert(r.to_owned());
            }
        }
    }
    let missing: Vec<&str> = vectors::schema::RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !seen.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a negative case: {missing:?}"
    );
    for k in vectors::schema::Kind::ALL {
        assert!(kinds.contains(k.name()), "no file of kind {}", k.name());
    }
}

#[test]
fn a_wrong_fractional_case_fails() {
    let doc = suite_doc("fractional_valid.json");
    assert!(check_suite_document(&doc, "fractional_valid.json").is_ok());
    // A proven value that differs from the proof's.
    let mut wrong = doc.clone();
    wrong["cases"][0]["output"]["keys"][0]["current_value"] =
        Value::from(format!("0x{}", "00".repeat(32)));
    let err = check_suite_document(&wrong, "fractional_valid.json").unwrap_err();
    assert!(err.to_string().contains("current_value"), "{err}");
    // A missing shard in the expected output.
    let mut wrong = doc.clone();
    wrong["cases"][0]["output"]["shards"] = Value::from(Vec::<u64>::new());
    assert!(check_suite_document(&wrong, "fractional_valid.json").is_err());
    // A proof checked against another root, of each anchor.
    for (anchor, rule) in [
        ("state_root", "fractional.state_root"),
        ("coordinator_root", "fractional.coordinator_root"),
    ] {
        let mut wrong = doc.clone();
        wrong["cases"][0]["input"]["anchor"] = Value::from(anchor);
        wrong["cases"][0]["input"]["root"] = Value::from(format!("0x{}", "11".repeat(32)));
        let err = check_suite_document(&wrong, "fractional_valid.json").unwrap_err();
        assert!(err.to_string().contains(rule), "{err}");
    }
    // A post-state root that is not the proof's.
    let mut wrong = doc;
    wrong["cases"][0]["output"]["post_state_root"] = Value::from(format!("0x{}", "22".repeat(32)));
    let err = check_suite_document(&wrong, "fractional_valid.json").unwrap_err();
    assert!(err.to_string().contains("post_state_root"), "{err}");

    // A negative case labelled with another rule.
    let mut doc = suite_doc("fractional_invalid.json");
    assert!(check_suite_document(&doc, "fractional_invalid.json").is_ok());
    let first_rule = doc["cases"][0]["rule"].as_str().unwrap().to_owned();
    doc["cases"][0]["rule"] = Value::from(if first_rule == "fractional.siblings" {
        "fractional.coordinator_root"
    } else {
        "fractional.siblings"
    });
    let err = check_suite_document(&doc, "fractional_invalid.json").unwrap_err();
    assert!(err.to_string().contains(&first_rule), "{err}");
}

fn case_index(doc: &Value, name: &str) -> usize {
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

#[test]
fn a_wrong_unbound_fact_fails() {
    let doc = suite_doc("witness_valid.json");
    assert!(check_suite_document(&doc, "witness_valid.json").is_ok());
    let posing = case_index(&doc, "leaf_posing_as_internal_depth_2");
    let unbound = case_index(&doc, "absence_under_internal_unbound");
    assert_eq!(doc["cases"][posing]["output"]["unbound_absences"], 1);

    // A wrong count of unbound absences, and of unbound writes on a seeded case.
    for (case, field) in [(posing, "unbound_absences"), (0, "unbound_writes")] {
        let mut wrong = doc.clone();
        let n = wrong["cases"][case]["output"][field].as_u64().unwrap();
        wrong["cases"][case]["output"][field] = Value::from(n + 1);
        let err = check_suite_document(&wrong, "witness_valid.json").unwrap_err();
        assert!(err.to_string().contains(field), "{err}");
    }

    // A key's bound flag flipped.
    let mut wrong = doc.clone();
    wrong["cases"][unbound]["output"]["keys"][0]["bound"] = Value::from(true);
    let err = check_suite_document(&wrong, "witness_valid.json").unwrap_err();
    assert!(err.to_string().contains("keys/0/bound"), "{err}");

    // A key missing from the expected list.
    let mut wrong = doc.clone();
    let bound = case_index(&doc, "absence_under_internal_bound");
    wrong["cases"][bound]["output"]["keys"]
        .as_array_mut()
        .unwrap()
        .pop();
    let err = check_suite_document(&wrong, "witness_valid.json").unwrap_err();
    assert!(err.to_string().contains("number of proven keys"), "{err}");

    // With no unbound write the canonical post-state root is the computed one; with one it
    // cannot be checked from the witness, and the file says they differ.
    let other = Value::from(format!("0x{}", "11".repeat(32)));
    let mut wrong = doc.clone();
    wrong["cases"][unbound]["output"]["canonical_post_state_root"] = other.clone();
    let err = check_suite_document(&wrong, "witness_valid.json").unwrap_err();
    assert!(
        err.to_string().contains("canonical_post_state_root"),
        "{err}"
    );
    let out = &doc["cases"][posing]["output"];
    assert_ne!(out["canonical_post_state_root"], out["post_state_root"]);
    let mut unchecked = doc.clone();
    unchecked["cases"][posing]["output"]["canonical_post_state_root"] = other;
    assert!(check_suite_document(&unchecked, "witness_valid.json").is_ok());
}

#[test]
fn identity_commitment_cases_are_rejected_for_their_rule() {
    let doc = suite_doc("witness_invalid.json");
    for name in ["identity_as_internal_node", "identity_as_leaf"] {
        let i = case_index(&doc, name);
        assert_eq!(doc["cases"][i]["rule"], "structure.identity_commitment");
        let mut wrong = doc.clone();
        wrong["cases"][i]["rule"] = Value::from("proof.rejected");
        let err = check_suite_document(&wrong, "witness_invalid.json").unwrap_err();
        assert!(
            err.to_string().contains("structure.identity_commitment"),
            "{name}: {err}"
        );
    }
}

/// Data files are recognised by their content: upstream files copied under other names, in
/// a directory of another name, are checked by the same checkers and pass. A genesis dump or
/// a witness under another name is recognised but has no known expected root, so it fails
/// rather than passing unchecked.
#[test]
fn files_are_recognised_by_content_not_name() {
    let shared = shared_dir();
    let dir = std::env::temp_dir().join(format!("fverkle-vectors-renamed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let copies = [
        ("crypto/001_vector_commitment.json", "a.json", Format::GoIpa),
        (
            "crypto/005_deserialize_point_not_in_curve.json",
            "b.json",
            Format::GoIpa,
        ),
        (
            "crypto/006_deserialize_point_not_in_subgroup.json",
            "c.json",
            Format::GoIpa,
        ),
        (
            "crypto/012_in_domain_ipa_proof_verification.json",
            "d.json",
            Format::GoIpa,
        ),
        ("crypto/commit_root_test.json", "e.json", Format::RustVerkle),
        (
            "crypto/pedersen_commitment_test.json",
            "f.json",
            Format::RustVerkle,
        ),
        (
            "crypto/pedersen_hash_test.json",
            "g.json",
            Format::RustVerkle,
        ),
        ("tree/003_tree_mutation.json", "h.json", Format::GethTree),
        (
            "tree/004_storageslot_insert.json",
            "i.json",
            Format::GethTree,
        ),
        ("code/chunkifyCode.json", "j.json", Format::BesuCode),
        ("code/contractCode.json", "k.json", Format::BesuCode),
    ];
    for (from, to, _) in &copies {
        std::fs::copy(shared.join(from), dir.join(to)).unwrap();
    }
    std::fs::copy(suite_dir().join("ipa.json"), dir.join("l.json")).unwrap();
    std::fs::copy(shared.join("genesis/gen-devnet-7.csv"), dir.join("m.txt")).unwrap();
    std::fs::copy(
        shared.join("witness/valid_block_72.json"),
        dir.join("n.json"),
    )
    .unwrap();
    let report = check_paths(std::slice::from_ref(&dir)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let by_name = |n: &str| {
        report
            .files
            .iter()
            .find(|f| f.path.file_name().unwrap() == n)
            .unwrap()
    };
    for (from, to, format) in copies {
        let f = by_name(to);
        assert_eq!(f.format, format, "{from}");
        assert!(
            matches!(f.status, Status::Passed { checks } if checks > 0),
            "{from}: {}",
            f.status
        );
    }
    let suite = by_name("l.json");
    assert_eq!(suite.format, Format::Suite);
    assert!(
        matches!(suite.status, Status::Passed { .. }),
        "{}",
        suite.status
    );
    for (n, format) in [
        ("m.txt", Format::Genesis),
        ("n.json", Format::GoVerkleWitness),
    ] {
        let f = by_name(n);
        assert_eq!(f.format, format, "{n}");
        assert!(
            matches!(f.status, Status::Failed { .. }),
            "{n}: {}",
            f.status
        );
    }
}

#[test]
fn every_witness_case_breaks_exactly_the_rules_it_names() {
    // Each rule evaluated on its own: valid cases break none, and each invalid case its
    // `rule` and nothing its `rules` list leaves out.
    for name in ["witness_valid.json", "witness_invalid.json"] {
        audit_suite_document(&suite_doc(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let doc = suite_doc("witness_invalid.json");
    let listed = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("rules").is_some())
        .count();
    assert!(listed >= 1, "no case lists several rules");
}

#[test]
fn a_case_breaking_a_rule_it_does_not_name_fails_the_audit() {
    let doc = suite_doc("witness_invalid.json");
    let case = |name: &str| {
        let mut d = doc.clone();
        let cases = d["cases"].as_array_mut().unwrap();
        cases.retain(|c| c["name"] == name);
        assert_eq!(cases.len(), 1, "{name}");
        d
    };
    // An unused other stem is also one too many: without its `rules` list it fails.
    let mut unused = case("other_stem_unused");
    assert!(audit_suite_document(&unused).is_ok());
    unused["cases"][0].as_object_mut().unwrap().remove("rules");
    let err = audit_suite_document(&unused).unwrap_err().to_string();
    assert!(err.contains("structure.other_stem_count"), "{err}");
    // A case labelled with a rule it does not break fails.
    let mut wrong = case("commitment_missing");
    wrong["cases"][0]["rule"] = "structure.path_conflict".into();
    assert!(audit_suite_document(&wrong).is_err());
    // A valid case's witness mutated to break a rule fails as a valid case.
    let mut valid = suite_doc("witness_valid.json");
    let cases = valid["cases"].as_array_mut().unwrap();
    cases.truncate(1);
    cases[0]["input"]["json"]["verkleProof"]["otherStems"] =
        serde_json::json!([format!("0x{}", "ff".repeat(31))]);
    assert!(audit_suite_document(&valid).is_err());
}

/// The suite's files as `(name, document)`, in name order.
fn suite_docs() -> Vec<(String, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(suite_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| (n.clone(), suite_doc(&n)))
        .collect()
}

#[test]
fn every_wire_rule_has_a_positive_and_a_negative_case() {
    let wire = std::fs::read_to_string(crate_dir().join("../spec/WIRE.md")).unwrap();
    let ids = vectors::wire_rule_ids(&wire).unwrap();
    // §16 cites every rule a witness, proof or point case can name.
    for r in vectors::schema::RULES
        .iter()
        .filter(|r| !r.section.starts_with('F') && !r.section.starts_with('B'))
    {
        assert!(
            ids.iter().any(|(id, _)| id == r.id),
            "{} is not in WIRE.md §16",
            r.id
        );
    }
    let coverage = vectors::rule_coverage(&wire, &suite_docs()).unwrap();
    for r in &coverage {
        assert!(!r.negative.is_empty(), "{}: no negative case", r.id);
        assert!(
            !r.positive.is_empty(),
            "{}: no valid case evaluates it",
            r.id
        );
    }
    // The table in vectors/README.md is this one.
    let table = vectors::coverage_table(&coverage);
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "vectors/README.md's rule coverage table is stale; it is:\n{table}"
    );
}

/// The decoding rules an IPA proof (544 bytes) or multiproof (576) breaks, each evaluated on
/// its own: a wrong length leaves no words to decode; otherwise every point and the final
/// scalar by itself.
fn broken_proof_rules(proof: &[u8], len: usize) -> std::collections::BTreeSet<&'static str> {
    let mut broken = std::collections::BTreeSet::new();
    if proof.len() != len {
        broken.insert("proof.length");
        return broken;
    }
    let words: Vec<&[u8]> = proof.chunks(32).collect();
    let (points, scalar) = words.split_at(words.len() - 1);
    if points
        .iter()
        .any(|w| banderwagon::Element::from_bytes(w).is_err())
    {
        broken.insert("proof.point");
    }
    if banderwagon::fr_from_le_bytes_canonical(scalar[0]).is_err() {
        broken.insert("proof.scalar");
    }
    broken
}

#[test]
fn every_proof_case_breaks_exactly_the_rule_it_names() {
    for (file, len) in [("ipa.json", 544), ("multiproof.json", 576)] {
        for case in suite_doc(file)["cases"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap();
            let proof = hex::decode(&case["input"]["proof"].as_str().unwrap()[2..]).unwrap();
            let mut broken = broken_proof_rules(&proof, len);
            let queries = case["input"].get("queries").and_then(Value::as_array);
            if queries.is_some_and(|q| q.is_empty()) {
                broken.insert("proof.no_openings");
            }
            if case["valid"] == true {
                assert!(
                    broken.is_empty(),
                    "{file} {name}: a valid case breaks {broken:?}"
                );
                continue;
            }
            let rule = case["rule"].as_str().unwrap();
            // The multiproof check is defined when everything decodes and there are openings.
            if broken.is_empty() {
                assert_eq!(rule, "proof.rejected", "{file} {name}");
            } else {
                assert_eq!(broken, [rule].into(), "{file} {name}");
            }
        }
    }
}
