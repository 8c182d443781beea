//! `--cache-mb`: a node cache far smaller than the state still gives every root, in both
//! modes, and the flag is checked.

use crate::common::{chain_file, devnet6_genesis, fverkle, json_lines, show};

/// Kaustinen6 1..200 into `dd` in `mode`, with `--cache-mb` when given.
fn replay_with_cache(
    dd: &std::path::Path,
    mode: &str,
    cache_mb: Option<&str>,
) -> std::process::Output {
    let mut args = vec![
        "--json",
        "replay",
        "--layout",
        "legacy",
        "--chain",
        "kaustinen6",
    ];
    args.extend(["--mode", mode]);
    if let Some(mb) = cache_mb {
        args.extend(["--cache-mb", mb]);
    }
    let mut cmd = fverkle();
    cmd.args(args).arg("--genesis").arg(devnet6_genesis());
    cmd.arg("--datadir").arg(dd).arg(chain_file());
    cmd.output().unwrap()
}

#[test]
fn a_one_mib_node_cache_replays_kaustinen6_with_every_root_checked() {
    let dir = tempfile::tempdir().unwrap();
    for mode in ["single", "fractional"] {
        let dd = dir.path().join(mode);
        let out = replay_with_cache(&dd, mode, Some("1"));
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", show(&out));
        let lines = json_lines(&out);
        let blocks: Vec<_> = lines.iter().filter(|l| l.get("number").is_some()).collect();
        assert_eq!(blocks.len(), 200, "{mode}: {}", show(&out));
        assert!(
            blocks.iter().all(|b| b["ok"] == true),
            "{mode}: {}",
            show(&out)
        );
        let summary = lines.last().unwrap();
        assert_eq!(summary["height"], 200, "{mode}: {}", show(&out));
        // Resumed with the default budget: nothing left to apply, the same datadir.
        let again = replay_with_cache(&dd, mode, None);
        assert_eq!(again.status.code(), Some(0), "{mode}: {}", show(&again));
    }
}

#[test]
fn cache_mb_must_be_positive_and_needs_a_datadir() {
    let dir = tempfile::tempdir().unwrap();
    let out = replay_with_cache(&dir.path().join("dd"), "single", Some("0"));
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cache-mb"));
    let out = fverkle()
        .args([
            "replay",
            "--layout",
            "legacy",
            "--cache-mb",
            "64",
            "--genesis",
        ])
        .arg(devnet6_genesis())
        .arg(chain_file())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--datadir"));
}
