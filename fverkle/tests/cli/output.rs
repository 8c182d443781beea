//! What a user sees: logs without colour codes off a terminal, the demo's labelled lines.

use crate::common::{fverkle, json_lines, show};

/// A small demo: a synthetic chain, replayed in both tree modes, proven in both.
fn small_demo(json: bool) -> std::process::Output {
    let mut cmd = fverkle();
    if json {
        cmd.arg("--json");
    }
    cmd.args([
        "demo",
        "--accounts",
        "300",
        "--blocks",
        "3",
        "--updates",
        "40",
    ])
    .env_remove("NO_COLOR")
    .env_remove("FVERKLE_LOG")
    .output()
    .unwrap()
}

#[test]
fn logs_to_a_pipe_carry_no_colour_codes() {
    // stderr is a pipe here; the run logs at info (the genesis import, the replay).
    let out = small_demo(false);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("INFO"),
        "no log lines to check: {}",
        show(&out)
    );
    assert!(
        !stderr.contains("\x1b["),
        "colour codes in piped logs: {stderr:?}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\x1b["));
}

#[test]
fn demo_labels_its_proofs_with_the_tree_mode() {
    let out = small_demo(false);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let proofs: Vec<&str> = stdout.lines().filter(|l| l.contains("proof of")).collect();
    assert_eq!(proofs.len(), 3, "{stdout}");
    assert!(
        proofs[0].trim_start().starts_with("single mode: proof of"),
        "{stdout}"
    );
    assert!(
        proofs[1]
            .trim_start()
            .starts_with("fractional mode: proof of"),
        "{stdout}"
    );
    assert!(
        proofs[2]
            .trim_start()
            .starts_with("fractional mode: fractional proof of"),
        "{stdout}"
    );
    let out = small_demo(true);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let modes: Vec<(String, String)> = json_lines(&out)
        .iter()
        .filter(|l| l["step"].as_str().is_some_and(|s| s.starts_with("prove")))
        .map(|l| {
            (
                l["step"].as_str().unwrap().to_owned(),
                l["mode"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        modes,
        [
            ("prove".to_owned(), "single".to_owned()),
            ("prove".to_owned(), "fractional".to_owned()),
            ("prove fractional".to_owned(), "fractional".to_owned()),
        ]
    );
}
