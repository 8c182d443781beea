//! Where the time of reading a JSON witness goes: `json_cost FILE [rounds]` parses the
//! document into a `serde_json::Value`, reads the witness out of it (owned form, SSZ, index
//! tables), then frees the document, `rounds` times (default 5), and prints each phase.
#![allow(missing_docs, clippy::unwrap_used)]
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let text = std::fs::read_to_string(path).unwrap();
    for _ in 0..rounds {
        let t = std::time::Instant::now();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let a = t.elapsed();
        let w = witness::ExecutionWitness::from_json_value(&v).unwrap();
        let b = t.elapsed();
        drop(v);
        let c = t.elapsed();
        println!(
            "parse {:?} read+ssz {:?} drop {:?} ({} stems)",
            a,
            b - a,
            c - b,
            w.state_diff().len()
        );
    }
}
