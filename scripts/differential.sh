#!/usr/bin/env bash
# The differential run: N seeded mutants (default 300, seed 1) of the suite's witness and
# fractional cases, of the small Kaustinen6 blocks and (three in ten) of binary-tree
# witnesses (the suite's binary_witness cases and small EIP-7864/EIP-8297 trees built for each
# mutant), answered by the Rust library and by the Python reference
# (spec/reference/adapter.py, one persistent process). Every difference in verdict, rule,
# reported value or post-state root, and every false claim of an accepted mutant against its
# seed's truth, is written as a one-case suite file under the directory printed first, and
# fails the run (exit 1).
#   scripts/differential.sh [N [SEED]]
#   FVERKLE_VECTORS: the shared vectors (default ../shared/vectors)
#   FVERKLE_DIFFERENTIAL_OUT: where the case files go (default $CARGO_TARGET_DIR/differential/seed-SEED)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >/dev/null
n="${1:-300}"
seed="${2:-1}"
target="$CARGO_TARGET_DIR"
out="${FVERKLE_DIFFERENTIAL_OUT:-$target/differential/seed-$seed}"
vectors="${FVERKLE_VECTORS:-$(pwd)/../shared/vectors}"
command -v python3 >/dev/null || { echo "differential.sh: python3 is needed for the reference" >&2; exit 2; }
echo "differential.sh: case files of differences go to $out" >&2
echo "differential.sh: on $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p'))" >&2
cargo build --release -q -p vectors --bin differential
exec "$target/release/differential" "$n" "$seed" \
  --suite vectors/suite \
  --chain "$vectors/chain/kaustinen6_witness_chain_0001-0200.json" \
  --reference "python3 $(pwd)/spec/reference/adapter.py" \
  --out "$out"
