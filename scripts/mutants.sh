#!/usr/bin/env bash
# The long mutation campaign over the real Kaustinen6 witnesses: N seeded mutants (default
# 1,000,000; seeds 0..N, so the test suite's default run is its prefix), each rejected or
# making only true claims (witness/tests/witness/mutants.rs). Prints the summary line (mutants
# by family and kind, rejections by stage, accepted-true, false claims, panics) and, on a
# failure, the seeds to rerun one at a time with FVERKLE_MUTANT_SEED=<seed>.
#   scripts/mutants.sh [N [FIRST]]   seeds FIRST..FIRST+N (FIRST defaults to 0)
#   FVERKLE_MUTANT_THREADS=T sets the threads (default: two per core)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
n="${1:-1000000}"
first="${2:-0}"
echo "mutants.sh: $n mutants from seed $first on $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p'))" >&2
FVERKLE_MUTANTS="$n" FVERKLE_MUTANTS_FIRST="$first" exec cargo test --release -p witness --test witness \
  mutants::mutants_are_rejected_or_true -- --exact --nocapture
