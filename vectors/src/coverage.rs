//! Which suite cases exercise each rule of `spec/WIRE.md` §16: the negative cases naming it
//! and the valid cases whose verification evaluates it (the table of `vectors/README.md`,
//! "Rule coverage").

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::VectorError;

/// One rule id of the §16 index and the cases exercising it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleCoverage {
    /// The vector rule id (`rule` of negative cases), e.g. `canonical.depth_zero`.
    pub id: String,
    /// The WIRE.md rule ids of the §16 rows citing it, e.g. `W-CANON-1..6 (3a, 3b)`.
    pub wire: Vec<String>,
    /// Negative cases naming it in `rule` or `rules`, as `file:name`.
    pub negative: Vec<String>,
    /// Valid cases whose verification evaluates it, counted per file.
    pub positive: BTreeMap<String, usize>,
}

/// The vector rule ids of `spec/WIRE.md` §16 ("Rule index"), in table order, each with the
/// WIRE.md ids of the rows citing it. Rows citing no vector id are left out: they name no
/// rejection a case could carry (W-JSON-1: unreadable input; W-POST-1: a root, not a rule).
pub fn wire_rule_ids(wire_md: &str) -> Result<Vec<(String, Vec<String>)>, VectorError> {
    let section = wire_md
        .split("\n## ")
        .find(|s| s.starts_with("16. "))
        .ok_or_else(|| VectorError::Generator("WIRE.md has no section 16".into()))?;
    let mut ids: Vec<(String, Vec<String>)> = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| W-")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(wire), Some(cited)) = (cells.get(1), cells.get(3)) else {
            continue;
        };
        // The backquoted words with a dot: `canonical.depth_zero`.
        for id in cited.split('`').skip(1).step_by(2) {
            if !id.contains('.') || id.contains(' ') {
                continue;
            }
            match ids.iter_mut().find(|(i, _)| i == id) {
                Some((_, rows)) => rows.push((*wire).to_owned()),
                None => ids.push((id.to_owned(), vec![(*wire).to_owned()])),
            }
        }
    }
    if ids.is_empty() {
        return Err(VectorError::Generator(
            "WIRE.md §16 cites no vector rule id".into(),
        ));
    }
    Ok(ids)
}

/// Whether verifying a valid case of `kind` evaluates rule `id`: every check of the kind
/// runs and passes on a valid case, so this is the list of checks each kind runs.
fn evaluates(kind: &str, case: &Value, id: &str) -> bool {
    let input = &case["input"];
    let (family, _) = id.split_once('.').unwrap_or((id, ""));
    match kind {
        "point_codec" => family == "point",
        "ipa" | "multiproof" => {
            family == "point"
                || matches!(
                    id,
                    "proof.length" | "proof.point" | "proof.scalar" | "proof.rejected"
                )
                || (kind == "multiproof" && id == "proof.no_openings")
        }
        "witness" => {
            (family == "ssz" && input.get("ssz").is_some())
                || matches!(family, "canonical" | "structure" | "decode")
                || matches!(id, "proof.point" | "proof.scalar" | "proof.rejected")
        }
        _ => false,
    }
}

/// The coverage of every §16 rule id over the suite documents `(file name, document)`.
pub fn rule_coverage(
    wire_md: &str,
    docs: &[(String, Value)],
) -> Result<Vec<RuleCoverage>, VectorError> {
    let mut out: Vec<RuleCoverage> = wire_rule_ids(wire_md)?
        .into_iter()
        .map(|(id, wire)| RuleCoverage {
            id,
            wire,
            ..RuleCoverage::default()
        })
        .collect();
    for (file, doc) in docs {
        let kind = doc["kind"].as_str().unwrap_or("");
        for case in doc["cases"].as_array().into_iter().flatten() {
            let name = case["name"].as_str().unwrap_or("?");
            let valid = case["valid"].as_bool() == Some(true);
            for r in out.iter_mut() {
                if valid {
                    if evaluates(kind, case, &r.id) {
                        *r.positive.entry(file.clone()).or_default() += 1;
                    }
                    continue;
                }
                let named = case["rule"].as_str() == Some(&r.id)
                    || case["rules"]
                        .as_array()
                        .is_some_and(|l| l.iter().any(|x| x.as_str() == Some(&r.id)));
                if named {
                    r.negative.push(format!("{file}:{name}"));
                }
            }
        }
    }
    Ok(out)
}

/// The coverage as the Markdown table of `vectors/README.md`.
pub fn coverage_table(coverage: &[RuleCoverage]) -> String {
    let mut t = String::from(
        "| rule | WIRE.md | negative cases | valid cases evaluating it |\n|---|---|---|---|\n",
    );
    for r in coverage {
        let positive: Vec<String> = r
            .positive
            .iter()
            .map(|(f, n)| format!("{f} ({n})"))
            .collect();
        let negative: Vec<String> = r.negative.iter().map(|n| format!("`{n}`")).collect();
        t.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            r.id,
            r.wire.join("; "),
            negative.join(", "),
            positive.join(", ")
        ));
    }
    t
}
