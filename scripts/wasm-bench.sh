#!/usr/bin/env bash
# Times the fverkle-witness package beside verkle-cryptography-wasm 0.4.8 (npm, installed from
# wasm/bench/package-lock.json) in one Node process over Kaustinen6 blocks 1..200, and the
# native `fverkle verify` on the same blocks. Not a CI step; figures go to BENCHMARKS.md.
#
#   [FVERKLE_PORTABLE_FIELD=1] scripts/wasm-bench.sh [PASSES]
# (FVERKLE_PORTABLE_FIELD=1: arkworks' field multiplication, in the package and in `fverkle`.)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The package as published (its size is the one reported), then the same with its
# measuring switches (`verifyPreState`, `usePortableField`) for the timings.
scripts/wasm.sh wasm/pkg
# The package with its measuring switches (`verifyPreState`, `usePortableField`).
FVERKLE_WASM_FEATURES=measure scripts/wasm.sh wasm/pkg-measure
(cd wasm/bench && npm ci --no-audit --no-fund --silent)
echo "processor: $(lscpu | sed -n 's/^Model name: *//p')"
FVERKLE_WASM_PKG="$PWD/wasm/pkg-measure" node wasm/bench/bench.mjs "${1:-5}"

# Native, same blocks: the library (criterion) and the whole `fverkle verify` process.
cargo build --release -q -p fverkle
vectors="${FVERKLE_VECTORS:-../shared/vectors}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$vectors/chain/kaustinen6_witness_chain_0001-0200.json" "$tmp" <<'PY'
import json, sys
blocks = json.load(open(sys.argv[1]))["blocks"]
for b in blocks:
    with open(f"{sys.argv[2]}/{int(b['blockNumber']):03d}.json", "w") as f:
        json.dump(b, f)
    with open(f"{sys.argv[2]}/{int(b['blockNumber']):03d}.root", "w") as f:
        f.write(b["parentStateRoot"])
PY
start=$(date +%s%N)
for f in "$tmp"/*.json; do
  "$CARGO_TARGET_DIR/release/fverkle" verify --pre-root "$(cat "${f%.json}.root")" "$f" >/dev/null
done
end=$(date +%s%N)
echo "native fverkle verify, one process a block: $(( (end - start) / 200000 )) µs a block (200 processes)"
