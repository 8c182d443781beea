#!/usr/bin/env bash
# The 1-thread to 2-thread speedup of the sharded apply bench, measured so that
# a noisy machine does not decide it: PAIRS pairs of criterion runs ("fractional/apply",
# RAYON_NUM_THREADS=1 and 2, the order alternating), each run on a fresh copy of a saved
# state, and before each pair the `ceiling` example (the machine's own 2-thread speedup on
# plain multiplications at that moment). Prints every pair, then the medians.
#
#   scripts/apply-ratio.sh SAVED_STATE [PAIRS]      (PAIRS: default 5)
#
# SAVED_STATE is a state directory the bench built (FRACTIONAL_BENCH_STATE: `sharded/` and
# the `built` marker, which holds the key count). It is only read. Why fresh copies: a run
# leaves flushes and compactions pending, and the next run on the same state pays for them
# (BENCHMARKS.md, "A measuring trap"). Make one with, for example,
#   FRACTIONAL_BENCH_KEYS=1000000 FRACTIONAL_BENCH_STATE=/data/frac-1m \
#     cargo bench -p fractional --bench fractional -- fractional/apply
# and keep it aside as the saved state. The copies go next to it (about 1 GB each for
# 1M keys).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

usage() {
  echo "usage: scripts/apply-ratio.sh SAVED_STATE [PAIRS]" >&2
  exit 2
}
saved="${1:-}"
pairs="${2:-5}"
[ -n "$saved" ] || usage
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || usage
saved="$(cd "$saved" 2>/dev/null && pwd)" || {
  echo "apply-ratio: no directory $1" >&2
  exit 2
}
if [ ! -f "$saved/built" ] || [ ! -d "$saved/sharded" ]; then
  echo "apply-ratio: $saved is not a state the fractional bench built (no built marker or sharded/)" >&2
  exit 2
fi
keys="$(tr -dc '0-9' <"$saved/built")"
[ -n "$keys" ] || {
  echo "apply-ratio: $saved/built holds no key count" >&2
  exit 2
}

echo "apply-ratio: building the bench and the ceiling example" >&2
bench="$(cargo bench -p fractional --bench fractional --no-run 2>&1 |
  sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)"
[ -x "$bench" ] || {
  echo "apply-ratio: could not find the bench executable" >&2
  exit 1
}
cargo build --release -q -p tools --example ceiling
ceiling="$CARGO_TARGET_DIR/release/examples/ceiling"

work="$(mktemp -d "$(dirname "$saved")/apply-ratio.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One criterion run on a fresh copy; prints its median in ms.
run() {
  rm -rf "$work/state"
  cp -a "$saved" "$work/state"
  sync
  RAYON_NUM_THREADS="$1" FRACTIONAL_BENCH_KEYS="$keys" FRACTIONAL_BENCH_STATE="$work/state" \
    "$bench" --bench "fractional/apply" --warm-up-time 10 --noplot 2>&1 |
    awk '/time:/ {
      gsub(/[\[\]]/, ""); v = $4; u = $5
      if (u == "s") v *= 1000; else if (u == "µs" || u == "us") v /= 1000
      printf "%.1f\n", v; found = 1
    } END { if (!found) exit 1 }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

ones=() twos=() ratios=() ceilings=()
for p in $(seq 1 "$pairs"); do
  c="$("$ceiling" 20000 5 | awk '/^ceiling/ { print $NF }')"
  fail() {
    echo "apply-ratio: the $1-thread bench run of pair $p printed no time (run it by hand: $bench --bench fractional/apply)" >&2
    exit 1
  }
  if [ $((p % 2)) -eq 1 ]; then
    t1="$(run 1)" || fail 1
    t2="$(run 2)" || fail 2
  else
    t2="$(run 2)" || fail 2
    t1="$(run 1)" || fail 1
  fi
  r="$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a / b }')"
  echo "pair $p ($(date +%T)): 1 thread $t1 ms, 2 threads $t2 ms, speedup $r (ceiling $c)"
  ones+=("$t1") twos+=("$t2") ratios+=("$r") ceilings+=("$c")
done
m1="$(printf '%s\n' "${ones[@]}" | median)"
m2="$(printf '%s\n' "${twos[@]}" | median)"
echo "medians over $pairs pairs ($keys keys): 1 thread $m1 ms, 2 threads $m2 ms," \
  "ratio of medians $(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.2f", a / b }')," \
  "median speedup $(printf '%s\n' "${ratios[@]}" | median)," \
  "median ceiling $(printf '%s\n' "${ceilings[@]}" | median)"
