#!/usr/bin/env bash
# The large-witness measurement of BENCHMARKS.md: block 5 of a synthetic chain on a 1M-key
# state (fverkle gen --blocks 5 --updates 10000 --accounts 470000 --seed 7 --layout eip6800:
# 6,920 stems, 17,536 keys, 16,471 commitments), verified by the release binary ROUNDS times
# (default 5), each run a fresh process, alternating with FVERKLE_NO_LANES=1; prints each
# run's JSON decode and verify time and the min and median of each, per setting.
#
#   scripts/bench-large-witness.sh [ROUNDS] [WORK_DIR]
#
# WORK_DIR (default: a temporary directory, removed afterwards) keeps the generated chain
# between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >/dev/null
rounds=${1:-5}
work=${2:-}
if [ -z "$work" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
cargo build --release -q -p fverkle --bin fverkle
bin="${CARGO_TARGET_DIR:-$HOME/.cache/fverkle-target}/release/fverkle"
if [ ! -s "$work/b5.json" ]; then
    "$bin" --json gen --blocks 5 --updates 10000 --accounts 470000 --seed 7 \
        --layout eip6800 --out "$work/g7.jsonl" >/dev/null
    sed -n 5p "$work/g7.jsonl" >"$work/b5.json"
fi
pre_root=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["parentStateRoot"])' "$work/b5.json")
# Each round runs the binary twice, alternating: with the field backend as detected, and with
# FVERKLE_NO_LANES=1 (no AVX-512 IFMA lanes: what a processor without IFMA runs).
for _ in $(seq "$rounds"); do
    for lanes in detected off; do
        if [ "$lanes" = off ]; then export FVERKLE_NO_LANES=1; else unset FVERKLE_NO_LANES; fi
        printf '%s ' "$lanes"
        "$bin" verify --json --pre-root "$pre_root" "$work/b5.json" 2>/dev/null | tail -1
    done
done | python3 -c '
import json, statistics, sys
runs = {}
for line in sys.stdin:
    if not line.strip():
        continue
    label, text = line.split(" ", 1)
    r = json.loads(text)
    assert r["ok"], r
    runs.setdefault(label, []).append(r)
    d, v = r["decode_us"] / 1e3, r["verify_us"] / 1e3
    print(f"lanes {label}: decode {d:.1f} ms, verify {v:.1f} ms")
for label, rs in runs.items():
    for k in ("decode_us", "verify_us"):
        v = [r[k] / 1e3 for r in rs]
        print(f"lanes {label}: {k[:-3]}: min {min(v):.1f} ms, median {statistics.median(v):.1f} ms over {len(v)} runs")
'
