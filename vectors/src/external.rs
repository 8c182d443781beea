//! Checking another implementation against the suite (`fverkle vectors check --impl CMD`).
//!
//! Every case of every suite file is sent to the command as one JSON object
//! `{"kind", "name", "input"}` (the case's input, never its expected output), and the
//! command answers with one JSON object `{"verdict", "rule"?, "value"?}`. The protocol, the
//! `value` fields of each kind and the persistent mode are in `vectors/README.md`
//! ("Checking another implementation").

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::error::VectorError;
use crate::schema::FORMAT;

/// Expected-output fields an implementation cannot be asked for: the discrete logarithm
/// behind a `point_codec` case, and the post-state root a full node computes (§6.6).
const NOT_ASKED: [&str; 2] = ["multiple_of_generator", "canonical_post_state_root"];

/// Expected-output fields compared only when the answer carries them (WIRE.md §6.6: a
/// verifier without it may leave them out).
const OPTIONAL: [&str; 3] = ["unbound_absences", "unbound_writes", "keys"];

/// At most this much of an implementation's stderr is kept for a report.
const STDERR_KEEP: usize = 2000;

/// How to run the implementation under test.
#[derive(Debug, Clone)]
pub struct ImplConfig {
    /// The command, run with `sh -c`.
    pub command: String,
    /// One process for all cases (one JSON line per case each way) instead of one per case.
    pub persistent: bool,
    /// Longest wait for one answer.
    pub timeout: Duration,
}

/// What one case concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseOutcome {
    /// The answer agrees with the vector.
    Passed,
    /// The answer disagrees, is malformed, or never came; the reason.
    Differs(String),
    /// The implementation does not implement this kind.
    Unsupported,
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseReport {
    /// The suite file.
    pub file: PathBuf,
    /// The case's name.
    pub name: String,
    /// The file's kind.
    pub kind: String,
    /// The verdict on the implementation's answer.
    pub outcome: CaseOutcome,
}

/// The result of every case under the paths given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImplReport {
    /// In walk order.
    pub cases: Vec<CaseReport>,
    /// Files that are not suite files (not sent), with the reason.
    pub skipped: Vec<(PathBuf, String)>,
}

impl ImplReport {
    fn count(&self, f: impl Fn(&CaseOutcome) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.outcome)).count()
    }

    /// Cases whose answer agreed.
    pub fn passed(&self) -> usize {
        self.count(|o| *o == CaseOutcome::Passed)
    }

    /// Cases whose answer disagreed or did not come.
    pub fn differ(&self) -> usize {
        self.count(|o| matches!(o, CaseOutcome::Differs(_)))
    }

    /// Cases of kinds the implementation does not support.
    pub fn unsupported(&self) -> usize {
        self.count(|o| *o == CaseOutcome::Unsupported)
    }
}

/// Runs every case of the suite files under `paths` through the implementation, calling
/// `on_case` as each finishes. Only an unreadable path, a suite file that is not JSON, or an
/// implementation that cannot be started is an `Err`; every case's outcome is in the report.
pub fn check_impl(
    paths: &[PathBuf],
    config: &ImplConfig,
    mut on_case: impl FnMut(&CaseReport),
) -> Result<ImplReport, VectorError> {
    let mut files = Vec::new();
    for p in paths {
        crate::runner::collect(p, &mut files)?;
    }
    let mut report = ImplReport::default();
    let mut adapter: Option<Adapter> = None;
    for file in files {
        let doc = match suite_document(&file)? {
            Ok(doc) => doc,
            Err(reason) => {
                report.skipped.push((file, reason));
                continue;
            }
        };
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
        let cases = doc.get("cases").and_then(Value::as_array);
        for case in cases.into_iter().flatten() {
            let name = case.get("name").and_then(Value::as_str).unwrap_or("");
            let request = json!({"kind": kind, "name": name, "input": case.get("input")});
            let answer = if config.persistent {
                ask_persistent(&mut adapter, config, &request)?
            } else {
                ask_once(config, &request)?
            };
            let outcome = match answer {
                Ok(answer) => judge(kind, case, &answer),
                Err(reason) => CaseOutcome::Differs(reason),
            };
            let r = CaseReport {
                file: file.clone(),
                name: name.to_owned(),
                kind: kind.to_owned(),
                outcome,
            };
            on_case(&r);
            report.cases.push(r);
        }
    }
    if let Some(s) = adapter {
        s.finish();
    }
    Ok(report)
}

/// The parsed suite file, or why the file is not one (`Ok(Err(reason))`).
fn suite_document(path: &Path) -> Result<Result<Value, String>, VectorError> {
    if path.extension().and_then(|e| e.to_str()) != Some("json") {
        return Ok(Err("not a JSON suite file".into()));
    }
    let doc = crate::upstream::read_json(path)?;
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Ok(Err(format!(
            "not a `{FORMAT}` file (upstream data is checked without --impl)"
        )));
    }
    Ok(Ok(doc))
}

/// Compares an answer with the case (protocol in `vectors/README.md`).
fn judge(kind: &str, case: &Value, answer: &Value) -> CaseOutcome {
    let verdict = answer.get("verdict").and_then(Value::as_str);
    if verdict == Some("unsupported") {
        return CaseOutcome::Unsupported;
    }
    let differs = |why: String| CaseOutcome::Differs(why);
    if case.get("valid").and_then(Value::as_bool) != Some(true) {
        let rule = case.get("rule").and_then(Value::as_str).unwrap_or("");
        let allowed = |r: &str| {
            r == rule
                || case
                    .get("rules")
                    .and_then(Value::as_array)
                    .is_some_and(|list| list.iter().any(|a| a.as_str() == Some(r)))
        };
        return match (verdict, answer.get("rule").and_then(Value::as_str)) {
            (Some("invalid"), Some(r)) if allowed(r) => CaseOutcome::Passed,
            (Some("invalid"), got) => differs(format!(
                "rejected for rule {}, expected {rule}",
                got.unwrap_or("(none)")
            )),
            _ => differs(format!("expected invalid ({rule}), got {}", short(answer))),
        };
    }
    if verdict != Some("valid") {
        return differs(format!("expected valid, got {}", short(answer)));
    }
    let empty = Map::new();
    let value = answer
        .get("value")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut expected: Map<String, Value> = case
        .get("output")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for k in NOT_ASKED {
        expected.remove(k);
    }
    let input = case.get("input");
    if kind == "point_codec" {
        if let Some(b) = input.and_then(|i| i.get("bytes")) {
            expected.insert("encoding".into(), b.clone());
        }
    }
    if matches!(kind, "ipa" | "multiproof") && value.contains_key("proof") {
        if let Some(p) = input.and_then(|i| i.get("proof")) {
            expected.insert("proof".into(), p.clone());
        }
    }
    for (field, want) in &expected {
        match value.get(field) {
            Some(got) if got == want => {}
            Some(got) => {
                return differs(format!(
                    "value.{field}: got {}, expected {}",
                    short(got),
                    short(want)
                ))
            }
            None if OPTIONAL.contains(&field.as_str()) => {}
            None => return differs(format!("value.{field} missing")),
        }
    }
    CaseOutcome::Passed
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// The environment variable telling the command which mode it runs in.
pub const MODE_VARIABLE: &str = "FVERKLE_VECTORS_MODE";

fn spawn(command: &str, persistent: bool) -> Result<Child, VectorError> {
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .env(
            MODE_VARIABLE,
            if persistent { "persistent" } else { "once" },
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| VectorError::Io {
            path: PathBuf::from(command),
            source,
        })
}

/// Keeps the last [`STDERR_KEEP`] bytes of a stream, read on its own thread.
fn drain_tail(mut r: impl Read + Send + 'static) -> Arc<Mutex<Vec<u8>>> {
    let tail = Arc::new(Mutex::new(Vec::new()));
    let t = Arc::clone(&tail);
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut v) = t.lock() {
                v.extend_from_slice(buf.get(..n).unwrap_or(&[]));
                let excess = v.len().saturating_sub(STDERR_KEEP);
                v.drain(..excess);
            }
        }
    });
    tail
}

fn tail_text(tail: &Arc<Mutex<Vec<u8>>>) -> String {
    let bytes = tail.lock().map(|v| v.clone()).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    if text.is_empty() {
        String::new()
    } else {
        format!("; stderr: {text}")
    }
}

fn parse_answer(text: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("answer is not one JSON object ({e}): {:?}", cut(text)))?;
    if v.is_object() {
        Ok(v)
    } else {
        Err(format!("answer is not a JSON object: {}", short(&v)))
    }
}

fn cut(s: &str) -> &str {
    match s.char_indices().nth(300) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// One process for one case: the request on stdin, then end of input; the answer is the
/// whole of stdout. `Ok(Err(reason))` when the answer is missing or malformed.
fn ask_once(config: &ImplConfig, request: &Value) -> Result<Result<Value, String>, VectorError> {
    let mut child = spawn(&config.command, false)?;
    let (Some(mut stdin), Some(mut stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Ok(Err("the implementation's pipes could not be opened".into()));
    };
    let line = request.to_string();
    let writer = thread::spawn(move || {
        // A command that exits without reading its input is judged by its answer.
        let _ = stdin.write_all(line.as_bytes());
    });
    let err_tail = drain_tail(stderr);
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        let r = stdout.read_to_end(&mut out).map(|_| out);
        let _ = tx.send(r);
    });
    let started = Instant::now();
    let out = match rx.recv_timeout(config.timeout) {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Err(format!("reading the answer: {e}")));
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Err(format!(
                "no answer within {:?}{}",
                config.timeout,
                tail_text(&err_tail)
            )));
        }
    };
    let _ = writer.join();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() < config.timeout => {
                thread::sleep(Duration::from_millis(2))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let text = String::from_utf8_lossy(&out);
    match status {
        Some(s) if s.success() => Ok(parse_answer(&text)),
        Some(s) => Ok(Err(format!(
            "the implementation exited with {s}{}",
            tail_text(&err_tail)
        ))),
        None => Ok(Err("the implementation did not exit".into())),
    }
}

/// A running implementation in persistent mode.
pub(crate) struct Adapter {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Adapter {
    fn start(command: &str) -> Result<Result<Adapter, String>, VectorError> {
        let mut child = spawn(command, true)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Err("the implementation's pipes could not be opened".into()));
        };
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Ok(Adapter {
            child,
            stdin,
            lines: rx,
            stderr: drain_tail(stderr),
        }))
    }

    fn ask(&mut self, request: &Value, timeout: Duration) -> Result<Value, String> {
        let mut line = request.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("sending the case: {e}{}", tail_text(&self.stderr)))?;
        loop {
            match self.lines.recv_timeout(timeout) {
                Ok(Ok(l)) if l.trim().is_empty() => continue,
                Ok(Ok(l)) => return parse_answer(&l),
                Ok(Err(e)) => return Err(format!("reading the answer: {e}")),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer within {timeout:?}"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the implementation closed its output{}",
                        tail_text(&self.stderr)
                    ))
                }
            }
        }
    }

    /// Stops the adapter: end of input, then a short wait before the process is killed.
    pub(crate) fn finish(self) {
        let Adapter {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Asks the persistent adapter process, starting it when needed and restarting it after a
/// failed answer (a crashed or desynchronised process cannot answer the next case).
pub(crate) fn ask_persistent(
    adapter: &mut Option<Adapter>,
    config: &ImplConfig,
    request: &Value,
) -> Result<Result<Value, String>, VectorError> {
    if adapter.is_none() {
        match Adapter::start(&config.command)? {
            Ok(s) => *adapter = Some(s),
            Err(reason) => return Ok(Err(reason)),
        }
    }
    let Some(s) = adapter.as_mut() else {
        return Ok(Err("the implementation is not running".into()));
    };
    let answer = s.ask(request, config.timeout);
    if answer.is_err() {
        if let Some(s) = adapter.take() {
            let mut child = s.child;
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid_case() -> Value {
        json!({"name": "c", "valid": true, "input": {"bytes": "0x00"},
               "output": {"map_to_scalar_field": "0x01", "multiple_of_generator": "0x02"}})
    }

    #[test]
    fn valid_answers_are_compared_field_by_field() {
        let case = valid_case();
        let good = json!({"verdict": "valid",
                          "value": {"encoding": "0x00", "map_to_scalar_field": "0x01"}});
        assert_eq!(judge("point_codec", &case, &good), CaseOutcome::Passed);
        let wrong = json!({"verdict": "valid",
                           "value": {"encoding": "0x00", "map_to_scalar_field": "0x03"}});
        assert!(matches!(
            judge("point_codec", &case, &wrong),
            CaseOutcome::Differs(_)
        ));
        let missing = json!({"verdict": "valid", "value": {"map_to_scalar_field": "0x01"}});
        assert!(matches!(
            judge("point_codec", &case, &missing),
            CaseOutcome::Differs(_)
        ));
        let rejected = json!({"verdict": "invalid", "rule": "point.length"});
        assert!(matches!(
            judge("point_codec", &case, &rejected),
            CaseOutcome::Differs(_)
        ));
    }

    #[test]
    fn optional_fields_may_be_left_out_but_not_wrong() {
        let case = json!({"name": "w", "valid": true, "input": {},
                          "output": {"openings": 3, "unbound_absences": 0}});
        let without = json!({"verdict": "valid", "value": {"openings": 3}});
        assert_eq!(judge("witness", &case, &without), CaseOutcome::Passed);
        let wrong = json!({"verdict": "valid", "value": {"openings": 3, "unbound_absences": 1}});
        assert!(matches!(
            judge("witness", &case, &wrong),
            CaseOutcome::Differs(_)
        ));
    }

    #[test]
    fn invalid_cases_need_the_same_rule() {
        let case = json!({"name": "i", "valid": false, "rule": "point.length", "input": {}});
        let same = json!({"verdict": "invalid", "rule": "point.length"});
        assert_eq!(judge("point_codec", &case, &same), CaseOutcome::Passed);
        let other = json!({"verdict": "invalid", "rule": "point.not_on_curve"});
        assert!(matches!(
            judge("point_codec", &case, &other),
            CaseOutcome::Differs(_)
        ));
        let accepted = json!({"verdict": "valid", "value": {}});
        assert!(matches!(
            judge("point_codec", &case, &accepted),
            CaseOutcome::Differs(_)
        ));
        let unsupported = json!({"verdict": "unsupported"});
        assert_eq!(
            judge("point_codec", &case, &unsupported),
            CaseOutcome::Unsupported
        );
    }

    #[test]
    fn an_invalid_case_may_list_other_rules_it_breaks() {
        let case = json!({"name": "i", "valid": false, "rule": "canonical.other_stem_unused",
                          "rules": ["canonical.other_stem_unused", "structure.other_stem_count"],
                          "input": {}});
        let listed = json!({"verdict": "invalid", "rule": "structure.other_stem_count"});
        assert_eq!(judge("witness", &case, &listed), CaseOutcome::Passed);
        let unlisted = json!({"verdict": "invalid", "rule": "structure.commitment_count"});
        assert!(matches!(
            judge("witness", &case, &unlisted),
            CaseOutcome::Differs(_)
        ));
    }

    #[test]
    fn a_produced_proof_must_be_the_vector_s() {
        let case = json!({"name": "p", "valid": true, "input": {"proof": "0xaa"},
                          "output": {"transcript_challenge_state": "0x01"}});
        let same = json!({"verdict": "valid",
                          "value": {"transcript_challenge_state": "0x01", "proof": "0xaa"}});
        assert_eq!(judge("ipa", &case, &same), CaseOutcome::Passed);
        let other = json!({"verdict": "valid",
                           "value": {"transcript_challenge_state": "0x01", "proof": "0xab"}});
        assert!(matches!(
            judge("ipa", &case, &other),
            CaseOutcome::Differs(_)
        ));
    }
}
