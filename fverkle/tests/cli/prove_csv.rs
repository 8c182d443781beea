//! `fverkle prove --csv STATE.csv... KEYS`: the same witness (and fractional proof) as
//! `prove --datadir` on the same state, and the arguments it refuses.

use std::path::{Path, PathBuf};

use crate::common::{devnet6_genesis, fverkle, show, vectors};

/// Runs the binary with `args`; its output.
fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    fverkle().args(args).output().unwrap()
}

/// stdout of a run that must succeed.
fn stdout_of(args: &[&std::ffi::OsStr]) -> Vec<u8> {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!out.stdout.is_empty());
    out.stdout
}

/// The devnet6 genesis state as a datadir of `mode` at height 0.
fn genesis_datadir(dir: &Path, mode: &str) -> PathBuf {
    let dd = dir.join(format!("dd-{mode}"));
    let out = if mode == "single" {
        fverkle()
            .args(["genesis", "--layout", "legacy", "--datadir"])
            .arg(&dd)
            .arg(devnet6_genesis())
            .output()
            .unwrap()
    } else {
        // A replay of no blocks writes the genesis state.
        let none = dir.join("no-blocks.json");
        std::fs::write(&none, "[]").unwrap();
        fverkle()
            .args(["replay", "--layout", "legacy", "--mode", mode, "--genesis"])
            .arg(devnet6_genesis())
            .arg("--datadir")
            .arg(&dd)
            .arg(&none)
            .output()
            .unwrap()
    };
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    dd
}

/// The devnet6 genesis leaves in two CSV files, the second ending with the deletion of a key
/// whose stem is absent (a write that changes nothing); and a keys file: present keys, an
/// absent key and a write.
fn state_and_keys(dir: &Path) -> ([PathBuf; 2], PathBuf) {
    let text = std::fs::read_to_string(vectors().join("genesis/gen-devnet-6.csv")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let half = lines.len() / 2;
    let a = dir.join("a.csv");
    std::fs::write(&a, lines[..half].join("\n")).unwrap();
    let b = dir.join("b.csv");
    let mut second = lines[half..].join("\n");
    second.push_str(&format!("\n0x{},delete\n", "ee".repeat(32)));
    std::fs::write(&b, second).unwrap();
    let key = |i: usize| lines[i].split(',').next().unwrap().to_owned();
    let keys = format!(
        "# keys\n{}\n{}\n{},0x{}\n0x{}\n",
        key(0),
        key(half + 3),
        key(7),
        "22".repeat(32),
        "ee".repeat(32)
    );
    let kf = dir.join("keys.txt");
    std::fs::write(&kf, keys).unwrap();
    ([a, b], kf)
}

#[test]
fn prove_from_csv_equals_prove_from_datadir() {
    let dir = tempfile::tempdir().unwrap();
    let dd = genesis_datadir(dir.path(), "single");
    let ([a, b], kf) = state_and_keys(dir.path());
    let (a, b, kf, dd) = (a.as_os_str(), b.as_os_str(), kf.as_os_str(), dd.as_os_str());
    let os = std::ffi::OsStr::new;
    for extra in [
        &[os("--format"), os("json")][..],
        &[os("--format"), os("ssz")],
        &[os("--bind-absences")],
    ] {
        let mut from_dd = vec![os("prove")];
        from_dd.extend_from_slice(extra);
        from_dd.extend([os("--datadir"), dd, kf]);
        let want = stdout_of(&from_dd);
        // The keys file after the state files, after a flag, or before `--csv`.
        let forms: [Vec<&std::ffi::OsStr>; 3] = [
            [&[os("prove")][..], extra, &[os("--csv"), a, b, kf]].concat(),
            [
                &[os("prove"), os("--csv"), a, os("--csv"), b][..],
                extra,
                &[kf],
            ]
            .concat(),
            [&[os("prove"), kf][..], extra, &[os("--csv"), a, b]].concat(),
        ];
        for form in &forms {
            assert!(stdout_of(form) == want, "{form:?}");
        }
    }
}

#[test]
fn fractional_proof_from_csv_equals_the_fractional_datadirs() {
    let dir = tempfile::tempdir().unwrap();
    let dd = genesis_datadir(dir.path(), "fractional");
    let ([a, b], kf) = state_and_keys(dir.path());
    // With `--fractional`, `KEY,delete` is part of the keys file.
    let mut keys = std::fs::read_to_string(&kf).unwrap();
    let text = std::fs::read_to_string(&a).unwrap();
    let present = text.lines().nth(2).unwrap().split(',').next().unwrap();
    keys.push_str(&format!("{present},delete\n"));
    std::fs::write(&kf, keys).unwrap();
    for format in ["json", "ssz"] {
        let want = fverkle()
            .args(["prove", "--fractional", "--format", format, "--datadir"])
            .arg(&dd)
            .arg(&kf)
            .output()
            .unwrap();
        assert_eq!(want.status.code(), Some(0), "{}", show(&want));
        let got = fverkle()
            .args(["prove", "--fractional", "--format", format, "--csv"])
            .args([&a, &b, &kf])
            .output()
            .unwrap();
        assert_eq!(got.status.code(), Some(0), "{}", show(&got));
        assert!(!got.stdout.is_empty());
        assert!(got.stdout == want.stdout, "{format}");
    }
}

#[test]
fn prove_csv_refusals_name_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let ([a, _], kf) = state_and_keys(dir.path());
    let fail = |cmd: &mut assert_cmd::Command| {
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        String::from_utf8(out.stderr).unwrap()
    };
    // `--csv` and `--datadir` together.
    let err = fail(
        fverkle()
            .args(["prove", "--datadir"])
            .arg(dir.path())
            .arg("--csv")
            .args([&a, &kf]),
    );
    assert!(err.contains("cannot be used with"), "{err}");
    // Neither.
    let err = fail(fverkle().arg("prove").arg(&kf));
    assert!(err.contains("--datadir"), "{err}");
    // One path after `--csv` and no keys file.
    let err = fail(fverkle().args(["prove", "--csv"]).arg(&a));
    assert!(
        err.contains("give the state files, then the keys file"),
        "{err}"
    );
    // A bad row of a state file names its file and line.
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        format!("0x{},0x{}\n0x01,0x02\n", "01".repeat(32), "02".repeat(32)),
    )
    .unwrap();
    let err = fail(fverkle().args(["prove", "--csv"]).args([&bad, &kf]));
    let want = format!("{}: line 2: key: expected 32 bytes, got 1", bad.display());
    assert!(err.contains(&want), "{err}");
    let missing = dir.path().join("missing.csv");
    let err = fail(fverkle().args(["prove", "--csv"]).args([&missing, &kf]));
    assert!(
        err.contains(&format!("{}: cannot read", missing.display())),
        "{err}"
    );
}
