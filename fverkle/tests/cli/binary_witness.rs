//! `fverkle prove --tree eip7864|eip8297` then `fverkle verify --tree …`: round trips whose
//! post-state root is `fverkle root` of the state plus the writes, and the verdicts and exit
//! codes of broken, truncated, missing and mismatched witnesses.

use std::path::{Path, PathBuf};

use crate::common::{fverkle, json_lines, show};

/// A 32-byte value of `b`s, as hex.
fn value(b: u8) -> String {
    format!("0x{}", hex::encode([b; 32]))
}

/// An EIP-7864 key: a 31-byte stem of `stem`s and a suffix.
fn key7864(stem: u8, suffix: u8) -> String {
    format!("0x{}{suffix:02x}", hex::encode([stem; 31]))
}

/// The last root `fverkle root --tree tree` prints for `files`.
fn root_of(tree: &str, files: &[&Path]) -> String {
    let out = fverkle()
        .args(["--json", "root", "--tree", tree, "--csv"])
        .args(files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let lines = json_lines(&out);
    lines.last().unwrap()["root"].as_str().unwrap().to_owned()
}

/// A scenario: a state file, a keys file, and the same writes as a `key,value` file.
struct Case {
    dir: tempfile::TempDir,
    tree: &'static str,
}

impl Case {
    fn new(
        tree: &'static str,
        state: &[(String, String)],
        keys: &[(String, Option<String>)],
    ) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let rows = |rows: &mut dyn Iterator<Item = String>| rows.collect::<Vec<_>>().join("\n");
        let state_text = rows(&mut state.iter().map(|(k, v)| format!("{k},{v}")));
        std::fs::write(dir.path().join("state.csv"), state_text).unwrap();
        let keys_text = rows(&mut keys.iter().map(|(k, w)| match w {
            None => format!("{k} # a read"),
            Some(v) => format!("{k},{v}"),
        }));
        std::fs::write(
            dir.path().join("keys.txt"),
            format!("# keys\n{keys_text}\n"),
        )
        .unwrap();
        let writes_text = rows(
            &mut keys
                .iter()
                .filter_map(|(k, w)| w.as_ref().map(|v| format!("{k},{v}"))),
        );
        std::fs::write(dir.path().join("writes.csv"), writes_text).unwrap();
        Case { dir, tree }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Proves the keys to `witness.bin`; the pre-state root `--json` prints.
    fn prove(&self) -> String {
        let out = fverkle()
            .args(["--json", "prove", "--tree", self.tree, "--csv"])
            .arg(self.path("state.csv"))
            .arg(self.path("keys.txt"))
            .arg("--out")
            .arg(self.path("witness.bin"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let line = &json_lines(&out)[0];
        assert_eq!(line["tree"], self.tree);
        line["pre_root"].as_str().unwrap().to_owned()
    }

    /// `fverkle --json verify --tree tree --pre-root pre [extra] file`: exit code and JSON.
    fn verify(
        &self,
        tree: &str,
        pre: &str,
        extra: &[&str],
        file: &Path,
    ) -> (i32, serde_json::Value) {
        let out = fverkle()
            .args(["--json", "verify", "--tree", tree, "--pre-root", pre])
            .args(extra)
            .arg(file)
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        if code == 2 {
            return (code, serde_json::Value::Null);
        }
        (code, json_lines(&out).remove(0))
    }

    /// Proves, verifies, and checks the claims and the post-state root against `root`.
    fn round_trip(&self, keys: &[(String, Option<String>)]) -> String {
        let pre = self.prove();
        assert_eq!(pre, root_of(self.tree, &[&self.path("state.csv")]));
        let (code, v) = self.verify(self.tree, &pre, &[], &self.path("witness.bin"));
        assert_eq!(code, 0, "{v}");
        let post = root_of(
            self.tree,
            &[&self.path("state.csv"), &self.path("writes.csv")],
        );
        assert_eq!(v["post_root"], post.as_str());
        assert_ne!(post, pre);
        let claims = v["claims"].as_array().unwrap();
        assert_eq!(claims.len(), keys.len());
        for (k, w) in keys {
            let c = claims.iter().find(|c| c["key"] == k.as_str()).unwrap();
            match w.as_deref() {
                None => assert_eq!(c["write"], "unchanged"),
                Some("delete") => assert_eq!(c["write"], "delete"),
                Some(val) => {
                    assert_eq!(c["write"], "set");
                    assert_eq!(c["new_value"], val);
                }
            }
        }
        // The post-state root is checked when given.
        let (code, _) = self.verify(
            self.tree,
            &pre,
            &["--post-root", &post],
            &self.path("witness.bin"),
        );
        assert_eq!(code, 0);
        pre
    }
}

fn eip7864_case() -> (Case, Vec<(String, Option<String>)>) {
    let state = vec![
        (key7864(0x11, 0), value(1)),
        (key7864(0x11, 5), value(2)),
        (key7864(0x80, 3), value(3)),
    ];
    let keys = vec![
        (key7864(0x11, 0), None),
        (key7864(0x11, 5), Some(value(9))),
        // A new stem, and an absent key read on it.
        (key7864(0x12, 1), Some(value(7))),
        (key7864(0x12, 2), None),
    ];
    (Case::new("eip7864", &state, &keys), keys)
}

fn eip8297_case() -> (Case, Vec<(String, Option<String>)>) {
    let state = vec![
        ("0x01".to_owned(), value(1)),
        ("0x02".to_owned(), value(2)),
        ("0x80".to_owned(), value(3)),
        ("0xc000".to_owned(), value(4)),
    ];
    let keys = vec![
        // Deleting 0x02 collapses the branch it shares with 0x01.
        ("0x02".to_owned(), Some("delete".to_owned())),
        ("0x80".to_owned(), None),
        ("0xc000".to_owned(), Some(value(5))),
        ("0xc1".to_owned(), Some(value(6))),
        ("0x40".to_owned(), None),
    ];
    (Case::new("eip8297", &state, &keys), keys)
}

#[test]
fn eip7864_round_trip_matches_root_of_state_plus_writes() {
    let (case, keys) = eip7864_case();
    let pre = case.round_trip(&keys);
    let (_, v) = case.verify("eip7864", &pre, &[], &case.path("witness.bin"));
    let absent = v["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == key7864(0x12, 2).as_str())
        .unwrap();
    assert!(absent["pre_value"].is_null());
}

#[test]
fn eip8297_round_trip_with_a_collapsing_delete() {
    let (case, keys) = eip8297_case();
    let pre = case.round_trip(&keys);
    // After the delete, 0x01 stands alone where the branch was: the post-state root is that
    // of a tree that never held 0x02.
    let rest = case.path("rest.csv");
    std::fs::write(
        &rest,
        format!(
            "0x01,{}\n0x80,{}\n0xc000,{}\n0xc1,{}\n",
            value(1),
            value(3),
            value(5),
            value(6)
        ),
    )
    .unwrap();
    let (_, v) = case.verify("eip8297", &pre, &[], &case.path("witness.bin"));
    assert_eq!(v["post_root"], root_of("eip8297", &[&rest]).as_str());
}

#[test]
fn broken_truncated_missing_and_mismatched_witnesses() {
    for (case, _) in [eip7864_case(), eip8297_case()] {
        let pre = case.prove();
        let bytes = std::fs::read(case.path("witness.bin")).unwrap();
        let tree = case.tree;
        let other = if tree == "eip7864" {
            "eip8297"
        } else {
            "eip7864"
        };

        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 0x01;
        std::fs::write(case.path("flipped.bin"), &flipped).unwrap();
        let (code, v) = case.verify(tree, &pre, &[], &case.path("flipped.bin"));
        assert_eq!(code, 1, "{tree}: {v}");
        assert_eq!(v["ok"], false);
        assert!(v["rule"].as_str().unwrap().starts_with("bw."), "{v}");

        std::fs::write(case.path("short.bin"), &bytes[..bytes.len() - 1]).unwrap();
        let (code, v) = case.verify(tree, &pre, &[], &case.path("short.bin"));
        assert_eq!(
            (code, v["rule"].as_str()),
            (1, Some("bw.length.truncated")),
            "{v}"
        );

        let out = fverkle()
            .args(["verify", "--tree", tree, "--pre-root", &pre])
            .arg(case.path("missing.bin"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));

        let wrong = value(0xee);
        let (code, v) = case.verify(
            tree,
            &pre,
            &["--post-root", &wrong],
            &case.path("witness.bin"),
        );
        assert_eq!(code, 1, "{v}");
        assert!(v["error"].as_str().unwrap().contains("--post-root"), "{v}");

        let (code, v) = case.verify(other, &pre, &[], &case.path("witness.bin"));
        assert_eq!((code, v["rule"].as_str()), (1, Some("bw.tree")), "{v}");

        // Without --json the verdict names the rule.
        let out = fverkle()
            .args(["verify", "--tree", other, "--pre-root", &pre])
            .arg(case.path("witness.bin"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("INVALID: bw.tree"),
            "{}",
            show(&out)
        );

        // A wrong pre-state root.
        let (code, v) = case.verify(tree, &wrong, &[], &case.path("witness.bin"));
        assert_eq!((code, v["rule"].as_str()), (1, Some("bw.root")), "{v}");
    }
}

/// A binary prove from a directory without a datadir names it (and leaves it without one);
/// EIP-7864 defines no deletion.
#[test]
fn binary_prove_names_a_directory_without_a_datadir_and_refuses_deletes_on_eip7864() {
    let (case, _) = eip7864_case();
    let out = fverkle()
        .args(["prove", "--tree", "eip7864", "--datadir"])
        .arg(case.dir.path())
        .arg(case.path("keys.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a datadir"),
        "{}",
        show(&out)
    );
    assert!(!case.dir.path().join("CURRENT").exists());

    std::fs::write(
        case.path("del.txt"),
        format!("{},delete\n", key7864(0x11, 0)),
    )
    .unwrap();
    let out = fverkle()
        .args(["prove", "--tree", "eip7864", "--csv"])
        .arg(case.path("state.csv"))
        .arg(case.path("del.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 1: value: `delete` is not defined"),
        "{}",
        show(&out)
    );
}

#[test]
fn binary_witness_to_stdout_is_the_out_file_bytes() {
    let (case, _) = eip8297_case();
    case.prove();
    let out = fverkle()
        .args(["prove", "--tree", "eip8297", "--csv"])
        .arg(case.path("state.csv"))
        .arg(case.path("keys.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(out.stdout, std::fs::read(case.path("witness.bin")).unwrap());
    assert!(String::from_utf8_lossy(&out.stderr).contains("against root 0x"));
}
