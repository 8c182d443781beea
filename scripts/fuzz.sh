#!/usr/bin/env bash
# Fuzzes every target of fuzz/ for SECONDS each (default 60), one after the other, and
# prints each target's executions. Installs what it needs: the nightly toolchain (minimal
# profile) and cargo-fuzz (pinned). Seeds are written from ../shared/vectors ($FVERKLE_VECTORS)
# and vectors/suite into fuzz/seeds/<target> (ignored by git). Each campaign starts from the
# corpus kept in the repository, fuzz/corpus/<target>, grows it, and minimises it again with
# `cargo fuzz cmin` at the end, so the next campaign starts where this one ended (commit the
# corpus after a campaign that found something new). Crashes land in
# fuzz/artifacts/<target>/ (ignored by git).
#   scripts/fuzz.sh [SECONDS]
#   FUZZ_TARGETS="verify genesis"  only these targets
#   FUZZ_SANITIZER=none            no AddressSanitizer (faster; the default is address)
#   FUZZ_JOBS=N                    N fuzzing processes per target (default 1)
#   FUZZ_CMIN=0                    keep the grown corpus as it is (no minimisation)
#   FVERKLE_FUZZ_TARGET_DIR=DIR    build directory (default ~/.cache/fverkle-target-fuzz-nightly)
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
CARGO_FUZZ_VERSION=0.13.2
vectors="${FVERKLE_VECTORS:-$(pwd)/../shared/vectors}"
read -ra targets <<< "${FUZZ_TARGETS:-decode_ssz decode_json verify fractional genesis store_record block_export post_state fractional_edits binary_witness binary_raw binary_store}"
sanitizer="${FUZZ_SANITIZER:-address}"
jobs="${FUZZ_JOBS:-1}"
cmin="${FUZZ_CMIN:-1}"
target_dir="${FVERKLE_FUZZ_TARGET_DIR:-$HOME/.cache/fverkle-target-fuzz-nightly}"
fuzz_dir=fuzz

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal >&2
fi
if ! cargo fuzz --version 2>/dev/null | grep -qF "$CARGO_FUZZ_VERSION"; then
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION" >&2
fi

# Seeds: written fresh each run from the vectors (read in place, never copied into git), for
# the targets that read them; the structure-aware targets (post_state, fractional_edits,
# binary_witness, binary_store) start from honest proofs or states of their own and need none,
# and binary_raw starts from its committed corpus (honest binary witnesses behind their roots).
rm -rf "$fuzz_dir/seeds"
needs_seeds=0
for t in "${targets[@]}"; do
  case "$t" in post_state | fractional_edits | binary_witness | binary_raw | binary_store) ;; *) needs_seeds=1 ;; esac
done
if [ "$needs_seeds" = 1 ]; then
  CARGO_TARGET_DIR="$target_dir/stable" cargo run --release --quiet \
    --manifest-path "$fuzz_dir/Cargo.toml" --example seeds -- \
    "$vectors" "$(pwd)/vectors/suite" "$fuzz_dir/seeds" >&2
fi

summary=()
status=0
for t in "${targets[@]}"; do
  mkdir -p "$fuzz_dir/corpus/$t" "$fuzz_dir/artifacts/$t" "$fuzz_dir/seeds/$t"
  log="$fuzz_dir/artifacts/$t/fuzz.log"
  echo "== $t: $secs s" >&2
  set +e
  # -jobs (even 1) makes libFuzzer run its jobs as children logging to fuzz-<N>.log.
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
  (cd "$fuzz_dir/.." && cargo +nightly fuzz run --release --sanitizer "$sanitizer" \
    --target-dir "$target_dir" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
    -max_total_time="$secs" "${parallel[@]}" -print_final_stats=1) >"$log" 2>&1
  rc=$?
  set -e
  # Executions: libFuzzer's final stats (summed over jobs).
  job_logs=()
  if [ "$jobs" -gt 1 ]; then
    shopt -s nullglob
    job_logs=(fuzz-*.log)
    shopt -u nullglob
  fi
  runs=$(cat "$log" "${job_logs[@]}" 2>/dev/null \
    | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
  # With -jobs, libFuzzer writes one log per job in the directory it runs in.
  if [ "$jobs" -gt 1 ]; then cat fuzz-*.log >>"$log" 2>/dev/null || true; rm -f fuzz-*.log; fi
  # Minimised to the inputs that keep its coverage (libFuzzer writes the inputs it finds to
  # this first directory; the seeds stay outside it and are written anew each run).
  if [ "$rc" -eq 0 ] && [ "$cmin" = 1 ]; then
    (cd "$fuzz_dir/.." && cargo +nightly fuzz cmin --release --sanitizer "$sanitizer" \
      --target-dir "$target_dir" "$t" "fuzz/corpus/$t") >>"$log" 2>&1 || true
  fi
  corpus=$(find "$fuzz_dir/corpus/$t" -type f | wc -l)
  corpus_bytes=$(find "$fuzz_dir/corpus/$t" -type f -exec cat {} + | wc -c)
  if [ "$rc" -ne 0 ]; then
    status=1
    crash=$(find "$fuzz_dir/artifacts/$t" -type f ! -name fuzz.log | head -1)
    line="$t: FAILED (exit $rc) after $runs executions; input ${crash:-?}; log $log"
    tail -40 "$log" >&2
  else
    line="$t: $runs executions in $secs s ($((runs / (secs > 0 ? secs : 1)))/s), corpus $corpus files ($corpus_bytes bytes)"
  fi
  echo "$line" >&2
  summary+=("$line")
done
echo "fuzz.sh: $secs s per target, sanitizer $sanitizer, $jobs job(s), $(lscpu | sed -n 's/^Model name: *//p')"
printf '%s\n' "${summary[@]}"
exit "$status"
