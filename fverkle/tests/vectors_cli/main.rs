//! `fverkle vectors gen` and `fverkle vectors check` end to end: byte-identical output,
//! verdicts and exit codes.

#![allow(clippy::unwrap_used)]

mod reference_python;

use std::path::PathBuf;

use assert_cmd::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shared() -> PathBuf {
    let p = match std::env::var_os("FVERKLE_VECTORS") {
        Some(p) => PathBuf::from(p),
        None => workspace().join("../shared/vectors"),
    };
    assert!(
        p.is_dir(),
        "vectors directory {} is missing (set FVERKLE_VECTORS)",
        p.display()
    );
    p
}

fn fverkle() -> Command {
    Command::cargo_bin("fverkle").unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fverkle-vectors-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn gen_writes_the_committed_suite_byte_for_byte() {
    let dir = temp_dir("gen");
    let out = fverkle()
        .args(["vectors", "gen"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = workspace().join("vectors/suite");
    let mut count = 0;
    for entry in std::fs::read_dir(&committed).unwrap() {
        let name = entry.unwrap().file_name();
        let a = std::fs::read(committed.join(&name)).unwrap();
        let b = std::fs::read(dir.join(&name)).unwrap();
        assert!(a == b, "{name:?} differs");
        count += 1;
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), count);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_passes_on_our_suite_and_the_upstream_data() {
    let out = fverkle()
        .args(["vectors", "check"])
        .arg(workspace().join("vectors"))
        .arg(shared())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" 0 failed"), "{stdout}");
    assert!(
        stdout.contains("pedersen_hash_test.json: ok (10 checks)"),
        "{stdout}"
    );
    assert!(stdout.contains("held-out.bin: skipped"), "{stdout}");
}

#[test]
fn check_exits_1_on_a_wrong_vector_and_names_it() {
    let dir = temp_dir("wrong");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(workspace().join("vectors/suite/point_codec.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["cases"][1]["output"]["map_to_scalar_field"] =
        serde_json::Value::from(format!("0x{}", "00".repeat(32)));
    std::fs::write(dir.join("point_codec.json"), doc.to_string()).unwrap();
    let out = fverkle()
        .args(["--json", "vectors", "check"])
        .arg(&dir)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one file line and the summary");
    assert_eq!(lines[0]["status"], "failed");
    let detail = lines[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("case generator") && detail.contains("map_to_scalar_field"),
        "{detail}"
    );
    assert_eq!(lines[1]["failed"], 1);
}

#[test]
fn check_of_a_missing_path_is_an_input_error() {
    let out = fverkle()
        .args(["vectors", "check", "/nonexistent/fverkle-vectors"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/fverkle-vectors"));
}

/// `python3` from PATH; fails loudly when it is missing (the reference implementation of
/// `spec/reference/` needs it).
fn python3() -> &'static str {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "python3 is not on PATH: the spec/reference tests need it"
    );
    "python3"
}

/// The JSON lines of a `--json` run.
fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Cases in the suite files.
fn suite_case_count() -> usize {
    let mut all = 0;
    for entry in std::fs::read_dir(workspace().join("vectors/suite")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        all += doc["cases"].as_array().unwrap().len();
    }
    all
}

/// The Python reference (`spec/reference/adapter.py`, written from `spec/WIRE.md` and
/// `spec/FRACTIONAL.md` alone) agrees with every case of the suite, every kind included:
/// zero differences, nothing unsupported. Persistent mode: about 20 s.
#[test]
fn python_reference_agrees_with_every_suite_case() {
    let command = format!("{} spec/reference/adapter.py", python3());
    let out = fverkle()
        .current_dir(workspace())
        .args(["--json", "vectors", "check", "--persistent", "--impl"])
        .arg(&command)
        .arg("vectors/suite")
        .output()
        .unwrap();
    let lines = json_lines(&out.stdout);
    let differing: Vec<_> = lines
        .iter()
        .filter(|l| l["status"] == "differs" || l["status"] == "unsupported")
        .collect();
    assert!(differing.is_empty(), "{differing:#?}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = suite_case_count();
    let summary = lines.last().unwrap();
    assert_eq!(summary["cases"], all);
    assert_eq!(summary["differ"], 0);
    assert_eq!(summary["unsupported"], 0);
    assert_eq!(summary["passed"], all);
    let kinds: std::collections::BTreeSet<_> =
        lines.iter().filter_map(|l| l["kind"].as_str()).collect();
    assert_eq!(kinds.len(), 10, "{kinds:?}");
}

/// The Python reference's own fractional-proof tests (`spec/reference/test_fractional.py`:
/// a version-2 prover written from `spec/FRACTIONAL.md`, both anchors, writes, the
/// leaf-posing-as-internal construction, byte flips) pass.
#[test]
fn python_reference_fractional_self_test_passes() {
    let out = std::process::Command::new(python3())
        .current_dir(workspace())
        .arg("spec/reference/test_fractional.py")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One process per case, a command that rejects everything for `point.length`: the cases
/// with that rule pass, every other case differs and is named, and the exit code is 1.
#[test]
fn impl_differences_exit_1_and_name_each_case() {
    let dir = temp_dir("impl");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        workspace().join("vectors/suite/point_codec.json"),
        dir.join("point_codec.json"),
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a suite file").unwrap();
    let out = fverkle()
        .args(["vectors", "check", "--impl"])
        .arg(r#"cat >/dev/null; echo '{"verdict": "invalid", "rule": "point.length"}'"#)
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("point_codec.json")).unwrap())
            .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let cases = doc["cases"].as_array().unwrap();
    let same_rule = cases.iter().filter(|c| c["rule"] == "point.length").count();
    assert!(same_rule > 0 && same_rule < cases.len());
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let status = if c["rule"] == "point.length" {
            "ok"
        } else {
            "DIFFERS"
        };
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(status) && l.contains(&format!(" {name}"))),
            "{name} not reported as {status}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("notes.txt: not a JSON suite file"),
        "{stdout}"
    );
    let summary = format!(
        "{} cases: {} passed, {} differ, 0 unsupported (1 files skipped)",
        cases.len(),
        same_rule,
        cases.len() - same_rule
    );
    assert!(stdout.contains(&summary), "{stdout}");
}

/// A command answering `unsupported` passes nothing and differs nowhere (exit 0); one that
/// crashes or prints no JSON differs on every case (exit 1).
#[test]
fn impl_unsupported_and_broken_commands() {
    let suite = workspace().join("vectors/suite/tree_key.json");
    let out = fverkle()
        .args(["--json", "vectors", "check", "--impl"])
        .arg(r#"cat >/dev/null; echo '{"verdict": "unsupported"}'"#)
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    let summary = lines.last().unwrap();
    assert!(summary["cases"].as_u64().unwrap() > 0);
    assert_eq!(summary["unsupported"], summary["cases"]);
    assert_eq!(summary["passed"], 0);

    for (mode, command) in [
        (None, "cat >/dev/null; echo not json"),
        (None, "cat >/dev/null; exit 3"),
        (Some("--persistent"), "read line; exit 0"),
    ] {
        let mut cmd = fverkle();
        cmd.args(["--json", "vectors", "check", "--timeout", "20"]);
        if let Some(m) = mode {
            cmd.arg(m);
        }
        let out = cmd.arg("--impl").arg(command).arg(&suite).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{command}");
        let lines = json_lines(&out.stdout);
        let summary = lines.last().unwrap();
        assert_eq!(summary["differ"], summary["cases"], "{command}");
    }
}

/// The words of a shell command line with single-quoted words (the README's commands use
/// no other quoting).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    for (i, part) in line.split('\'').enumerate() {
        if i % 2 == 1 {
            words.push(part.to_owned());
        } else {
            words.extend(part.split_whitespace().map(str::to_owned));
        }
    }
    words
}

/// The README's conformance section gives another client three commands: build, the Python
/// reference's run (every case passes) and the template adapter's (every case unsupported,
/// none differs). Each is run as written, with the test's `fverkle` for
/// `target/release/fverkle`.
#[test]
fn readme_conformance_commands_run() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let section = readme
        .split("**Checking another client.**")
        .nth(1)
        .expect("README has no \"Checking another client\" paragraph");
    let block = section.split("```").nth(1).expect("no command block");
    let commands: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(commands.len(), 3, "{commands:?}");
    assert_eq!(commands[0], "cargo build --release -p fverkle");
    let all = suite_case_count();
    let expected = [
        format!("{all} cases: {all} passed, 0 differ, 0 unsupported"),
        format!("{all} cases: 0 passed, 0 differ, {all} unsupported"),
    ];
    for (command, summary) in commands[1..].iter().zip(expected) {
        let words = shell_words(command);
        assert_eq!(words[0], "target/release/fverkle", "{command}");
        let out = fverkle()
            .current_dir(workspace())
            .args(&words[1..])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{command}: {stdout}");
        let last = stdout.lines().last().unwrap_or("");
        assert!(last.starts_with(&summary), "{command}: {last}");
    }
}
