//! `fverkle root --tree verkle|eip8297|eip7864`: roots of `key,value` files against the
//! published binary-tree vectors (turned into CSV files here) and the Verkle genesis, and every
//! rejected row named by file and line.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{binary_vector_json, devnet6_genesis, fverkle, json_lines, show, vectors};

const ZERO_ROOT: &str = "0x0000000000000000000000000000000000000000000000000000000000000000";

/// Writes `rows` as lines of `dir/name`.
fn write_csv(dir: &Path, name: &str, rows: &[String]) -> PathBuf {
    let path = dir.join(name);
    let mut text = rows.join("\n");
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    path
}

/// `fverkle --json root ARGS --csv FILES...`, which must succeed.
fn run_root(args: &[&str], files: &[PathBuf]) -> std::process::Output {
    let out = fverkle()
        .args(["--json", "root"])
        .args(args)
        .arg("--csv")
        .args(files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    out
}

/// The root printed after each file.
fn roots(args: &[&str], files: &[PathBuf]) -> Vec<String> {
    let out = run_root(args, files);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), files.len(), "{}", show(&out));
    lines
        .iter()
        .map(|l| l["root"].as_str().unwrap().to_owned())
        .collect()
}

/// The case called `name` in the array `field` of `doc`.
fn case<'a>(doc: &'a Value, field: &str, name: &str) -> &'a Value {
    doc[field]
        .as_array()
        .unwrap_or_else(|| panic!("no array `{field}` in the vector file"))
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case `{name}` in `{field}`"))
}

/// `key,value` rows of an array of `{key, value}` objects.
fn rows(entries: &Value) -> Vec<String> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{},{}",
                e["key"].as_str().unwrap(),
                e["value"].as_str().unwrap()
            )
        })
        .collect()
}

/// Lowercase hex with `0x`, as the binary prints roots.
fn hex0x(s: &str) -> String {
    format!("0x{}", s.trim_start_matches("0x").to_lowercase())
}

#[test]
fn eip8297_trie_roots_match_the_published_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let eels = binary_vector_json("eip8297/eels_vectors.json");
    let specs = binary_vector_json("eip8297/execution_specs_vectors.json");
    let mut cases = Vec::new();
    for name in [
        "empty",
        "single_account_leaf",
        "cross_zone_small",
        "zero_value_present",
        "full_header_stem",
    ] {
        let c = case(&eels, "trie_vectors", name);
        cases.push((name, rows(&c["entries"]), c["root"].as_str().unwrap()));
    }
    for name in [
        "single_leaf_one_byte_key",
        "mixed_key_lengths_34_and_66",
        "overwrite_takes_last_value",
    ] {
        let c = case(&specs, "trie_roots", name);
        cases.push((name, rows(&c["entries"]), c["root"].as_str().unwrap()));
    }
    // The cases cover what they are chosen for: an empty file, a stored zero value, a
    // one-byte key, keys of 34 and 66 bytes in one tree, a key written twice.
    let all: Vec<&String> = cases.iter().flat_map(|c| &c.1).collect();
    assert!(cases.iter().any(|c| c.1.is_empty()));
    assert!(all.iter().any(|r| r.ends_with(&"0".repeat(64))));
    assert!(all.iter().any(|r| r.split(',').next().unwrap().len() == 4));
    assert!(all
        .iter()
        .any(|r| r.split(',').next().unwrap().len() == 2 + 66 * 2));
    for (i, (name, rows, root)) in cases.iter().enumerate() {
        let file = write_csv(dir.path(), &format!("{name}.csv"), rows);
        // BLAKE3 is the default and the one hash accepted.
        let args: &[&str] = if i % 2 == 0 {
            &["--tree", "eip8297"]
        } else {
            &["--tree", "eip8297", "--hash", "blake3"]
        };
        assert_eq!(roots(args, &[file]), [hex0x(root)], "{name}");
    }
}

#[test]
fn eip8297_sequences_with_deletes_give_the_root_after_each_file() {
    let dir = tempfile::tempdir().unwrap();
    let eels = binary_vector_json("eip8297/eels_vectors.json");
    let sequences = eels["sequence_vectors"].as_array().unwrap();
    assert!(!sequences.is_empty());
    for (s, seq) in sequences.iter().enumerate() {
        let ops = seq["ops"].as_array().unwrap();
        let after = seq["roots_after"].as_array().unwrap();
        assert_eq!(ops.len(), after.len());
        let deletes = ops.iter().filter(|o| o["op"] == "delete").count();
        assert!(deletes > 0, "sequence {s} has no delete");
        let lines: Vec<String> = ops
            .iter()
            .map(|o| {
                let key = o["key"].as_str().unwrap();
                match o["op"].as_str().unwrap() {
                    "set" => format!("{key},{}", o["value"].as_str().unwrap()),
                    "delete" => format!("{key},delete"),
                    other => panic!("sequence {s}: unknown op {other}"),
                }
            })
            .collect();
        // Files ending after op 1, 2, 10, 33, 64 and the last.
        let mut ends: Vec<usize> = [1, 2, 10, 33, 64, ops.len()]
            .into_iter()
            .filter(|&e| e <= ops.len())
            .collect();
        ends.dedup();
        let mut files = Vec::new();
        let mut start = 0;
        for (f, &end) in ends.iter().enumerate() {
            files.push(write_csv(
                dir.path(),
                &format!("seq{s}-{f}.csv"),
                &lines[start..end],
            ));
            start = end;
        }
        let expected: Vec<String> = ends
            .iter()
            .map(|&e| hex0x(after[e - 1].as_str().unwrap()))
            .collect();
        assert_eq!(
            roots(&["--tree", "eip8297"], &files),
            expected,
            "sequence {s}"
        );
    }
}

#[test]
fn eip7864_roots_with_sha256_by_default_and_blake3_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let geth = binary_vector_json("eip7864/sha256_geth_vectors.json");
    let cases = geth["tree_root_cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let file = write_csv(dir.path(), &format!("{name}.csv"), &rows(&c["inserts"]));
        let expected = hex0x(c["expected_root"].as_str().unwrap());
        let file = std::slice::from_ref(&file);
        assert_eq!(roots(&["--tree", "eip7864"], file)[0], expected, "{name}");
        assert_eq!(
            roots(&["--tree", "eip7864", "--hash", "sha256"], file)[0],
            expected,
            "{name}"
        );
        // The hash is part of the root.
        assert_ne!(
            roots(&["--tree", "eip7864", "--hash", "blake3"], file)[0],
            expected,
            "{name}"
        );
    }
    // Hex without `0x`, a stored zero value, an overwritten key.
    let blake3 = binary_vector_json("eip7864/blake3_vectors.json");
    let cases = blake3.as_array().unwrap();
    assert!(!cases.is_empty());
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let file = write_csv(dir.path(), &format!("b3-{name}.csv"), &rows(&c["inserts"]));
        let expected = hex0x(c["expected_root"].as_str().unwrap());
        assert_eq!(
            roots(&["--tree", "eip7864", "--hash", "blake3"], &[file]),
            [expected],
            "{name}"
        );
    }
}

/// The devnet6 genesis leaves in two files, and the root `fverkle genesis` gives that state.
fn devnet6_in_two_files(dir: &Path) -> (Vec<String>, [PathBuf; 2], String) {
    let text = std::fs::read_to_string(vectors().join("genesis/gen-devnet-6.csv")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let half = lines.len() / 2;
    let files = [
        write_csv(dir, "a.csv", &lines[..half]),
        write_csv(dir, "b.csv", &lines[half..]),
    ];
    let out = fverkle()
        .args(["genesis", "--layout", "legacy"])
        .arg(devnet6_genesis())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let genesis_root = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    (lines, files, genesis_root)
}

#[test]
fn verkle_roots_as_before_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, [a, b], genesis_root) = devnet6_in_two_files(dir.path());
    let default = roots(&[], &[a.clone(), b.clone()]);
    assert_eq!(default[1], genesis_root);
    assert_eq!(
        roots(&["--tree", "verkle"], &[a.clone(), b.clone()]),
        default
    );
    // The text form: root, file, count.
    let out = fverkle().arg("root").arg("--csv").arg(&a).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let half = lines.len() / 2;
    assert!(
        text.starts_with(&format!("{} {} ({half} leaves, ", default[0], a.display())),
        "{text}"
    );

    // Deleting a key gives the root of the state without it; deleting a key of a stem that is
    // not there changes nothing; an empty file changes nothing.
    let key = lines[4].split(',').next().unwrap();
    let without: Vec<String> = lines
        .iter()
        .filter(|l| !l.starts_with(key))
        .cloned()
        .collect();
    assert_eq!(without.len(), lines.len() - 1);
    let without = write_csv(dir.path(), "without.csv", &without);
    let absent = format!("0x{},delete", "ee".repeat(32));
    let del = write_csv(dir.path(), "del.csv", &[absent, format!("{key},DELETE")]);
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let after = roots(&[], &[a, b, empty, del]);
    assert_eq!(after[2], genesis_root);
    assert_eq!(after[3], roots(&[], &[without])[0]);
    assert_ne!(after[3], genesis_root);
}

#[test]
fn an_empty_file_is_no_writes_for_every_tree() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let blank = dir.path().join("blank.csv");
    std::fs::write(&blank, "\n  \r\n\n").unwrap();
    let one = write_csv(
        dir.path(),
        "one.csv",
        &[format!("0x{},0x{}", "01".repeat(32), "02".repeat(32))],
    );
    for tree in ["verkle", "eip8297", "eip7864"] {
        let files = [empty.clone(), blank.clone(), one.clone(), empty.clone()];
        let out = run_root(&["--tree", tree], &files);
        let lines = json_lines(&out);
        let got: Vec<(&str, u64)> = lines
            .iter()
            .map(|l| (l["root"].as_str().unwrap(), l["leaves"].as_u64().unwrap()))
            .collect();
        assert_eq!(got[0], (ZERO_ROOT, 0), "{tree}");
        assert_eq!(got[1], (ZERO_ROOT, 0), "{tree}");
        assert_ne!(got[2].0, ZERO_ROOT, "{tree}");
        assert_eq!(got[2].1, 1, "{tree}");
        assert_eq!(got[3], (got[2].0, 0), "{tree}");
    }
}

/// `fverkle root ARGS --csv FILES`, which must fail with exit 2; its stderr.
fn root_error(args: &[&str], files: &[&Path]) -> (String, String) {
    let out = fverkle()
        .arg("root")
        .args(args)
        .arg("--csv")
        .args(files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn bad_rows_are_named_by_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let k32 = format!("0x{}", "01".repeat(32));
    let v32 = format!("0x{}", "02".repeat(32));
    let good = format!("{k32},{v32}");
    // (trees, second line of the file, the error after `FILE: line 2: `)
    let cases: Vec<(&[&str], String, String)> = vec![
        (
            &["verkle", "eip7864"],
            format!("0x{},{v32}", "01".repeat(31)),
            "key: expected 32 bytes, got 31".into(),
        ),
        (
            &["verkle", "eip7864"],
            format!("0x{},{v32}", "01".repeat(33)),
            "key: expected 32 bytes, got 33".into(),
        ),
        (
            &["eip8297"],
            format!("0x{},{v32}", "01".repeat(8193)),
            "key: expected 1 to 8192 bytes, got 8193".into(),
        ),
        (
            &["eip8297"],
            format!(",{v32}"),
            "key: expected 1 to 8192 bytes, got 0".into(),
        ),
        (
            &["verkle", "eip8297", "eip7864"],
            format!("{k32},0x{}", "02".repeat(31)),
            "value: expected 32 bytes, got 31".into(),
        ),
        (
            &["eip8297"],
            format!("0x123,{v32}"),
            "key: odd number of hex digits (3)".into(),
        ),
        (
            &["eip8297", "eip7864"],
            format!("{k32},0x{}2", "02".repeat(31)),
            "value: odd number of hex digits (63)".into(),
        ),
        (
            &["eip7864"],
            format!("0x{}1,{v32}", "01".repeat(31)),
            "key: odd number of hex digits (63)".into(),
        ),
        (
            &["verkle", "eip8297", "eip7864"],
            k32.clone(),
            "value: missing".into(),
        ),
        (
            &["verkle", "eip8297", "eip7864"],
            format!("{k32} {v32}"),
            "value: missing".into(),
        ),
        (
            &["verkle", "eip8297", "eip7864"],
            format!("{k32},{v32},extra"),
            "line: unexpected extra field".into(),
        ),
        (
            &["verkle", "eip8297", "eip7864"],
            format!("{k32},{v32},,"),
            "line: unexpected extra field".into(),
        ),
        (
            &["verkle", "eip8297", "eip7864"],
            format!("0x{}zz,{v32}", "01".repeat(31)),
            "key: invalid hex: Invalid character 'z' at position 62".into(),
        ),
        (
            &["eip7864"],
            format!("{k32},delete"),
            "value: `delete` is not defined for EIP-7864 (insertion only)".into(),
        ),
        (
            &["eip8297"],
            format!("0x{},{v32}", "01".repeat(31)),
            "keys are not prefix-free: a key of 31 bytes is a prefix of a key of 32 bytes".into(),
        ),
    ];
    for (i, (trees, line, message)) in cases.iter().enumerate() {
        let file = write_csv(
            dir.path(),
            &format!("bad{i}.csv"),
            &[good.clone(), line.clone()],
        );
        for tree in *trees {
            let (stdout, stderr) = root_error(&["--tree", tree], &[&file]);
            let want = format!("fverkle: error: {}: line 2: {message}", file.display());
            assert!(stderr.contains(&want), "{tree}: want {want}\ngot {stderr}");
            assert!(stdout.is_empty(), "{tree}: {stdout}");
        }
    }
    // A trailing comma is accepted.
    let trailing = write_csv(dir.path(), "trailing.csv", &[format!("{good},")]);
    for tree in ["verkle", "eip8297", "eip7864"] {
        roots(&["--tree", tree], std::slice::from_ref(&trailing));
    }
}

#[test]
fn a_bad_file_stops_the_run_after_the_roots_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let v32 = format!("0x{}", "02".repeat(32));
    // A 33-byte key, then in the next file its 32-byte prefix: not prefix-free across files.
    let first = write_csv(
        dir.path(),
        "first.csv",
        &[format!("0x{},{v32}", "01".repeat(33))],
    );
    let second = write_csv(
        dir.path(),
        "second.csv",
        &[
            format!("0x{},{v32}", "03".repeat(32)),
            format!("0x{},{v32}", "01".repeat(32)),
        ],
    );
    let (stdout, stderr) = root_error(&["--tree", "eip8297"], &[&first, &second]);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("first.csv"), "{stdout}");
    let want = format!("{}: line 2: keys are not prefix-free", second.display());
    assert!(stderr.contains(&want), "{stderr}");
    // The same after a delete of the longer key is fine.
    let del = write_csv(
        dir.path(),
        "del.csv",
        &[format!("0x{},delete", "01".repeat(33))],
    );
    let r = roots(&["--tree", "eip8297"], &[first, del, second]);
    assert_eq!(r[1], ZERO_ROOT);

    let missing = dir.path().join("missing.csv");
    let (_, stderr) = root_error(&[], &[&missing]);
    assert!(
        stderr.contains(&format!("{}: cannot read", missing.display())),
        "{stderr}"
    );
}

#[test]
fn hash_choices_outside_the_trees_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_csv(
        dir.path(),
        "one.csv",
        &[format!("0x{},0x{}", "01".repeat(32), "02".repeat(32))],
    );
    let (_, stderr) = root_error(&["--tree", "eip8297", "--hash", "sha256"], &[&file]);
    assert!(
        stderr.contains("--hash sha256: EIP-8297 trees hash with BLAKE3"),
        "{stderr}"
    );
    for hash in ["sha256", "blake3"] {
        let (_, stderr) = root_error(&["--hash", hash], &[&file]);
        assert!(
            stderr.contains("the Verkle tree has none to choose"),
            "{stderr}"
        );
    }
    let (_, stderr) = root_error(&["--tree", "eip4444"], &[&file]);
    assert!(stderr.contains("invalid value 'eip4444'"), "{stderr}");
}
