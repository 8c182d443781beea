#!/usr/bin/env bash
# Every figure of BENCHMARKS.md in one window on one machine, each area's anchors beside it:
# builds everything first, then measures area by area, one command at a time, each command's
# output in OUT_DIR/<area>-<step>.log and one line per step (seconds taken) on stdout.
# Run it on a quiet machine: nothing else should compile or run meanwhile.
#
#   scripts/bench-window.sh OUT_DIR [AREA...]
#
# AREA: field witness proof tree fractional replay memory wasm binary vectors (default: all).
# RUST_VERKLE=DIR   a rust-verkle checkout (crate-crypto/rust-verkle e27b8b4) with the
#                   `verify_witness` example BENCHMARKS.md describes: its benches and its
#                   verifier run beside ours (built in $RUST_VERKLE_TARGET, default
#                   DIR/target). Unset: the rust-verkle anchors are skipped, and said so.
# WORK_DIR=DIR      where generated chains and on-disk states go (default OUT_DIR/work).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >/dev/null
out="${1:?usage: scripts/bench-window.sh OUT_DIR [AREA...]}"
shift
areas=("$@")
if [ "${#areas[@]}" -eq 0 ]; then
  areas=(field witness proof tree fractional replay memory wasm binary vectors)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
work="${WORK_DIR:-$out/work}"
mkdir -p "$work"
vectors="${FVERKLE_VECTORS:-$(pwd)/../shared/vectors}"
chain="$vectors/chain/kaustinen6_witness_chain_0001-0200.json"
genesis6="$vectors/genesis/devnet6_genesis.json"
target="$CARGO_TARGET_DIR"
bin="$target/release/fverkle"
crit=(--warm-up-time 1 --measurement-time 3 --sample-size 10)
crit5=(--warm-up-time 1 --measurement-time 5 --sample-size 10)
rv="${RUST_VERKLE:-}"
rv_target="${RUST_VERKLE_TARGET:-${rv:+$rv/target}}"
export CARGO_PROFILE_BENCH_DEBUG_ASSERTIONS=false CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=false

has() {
  local a
  for a in "${areas[@]}"; do [ "$a" = "$1" ] && return 0; done
  return 1
}

# step NAME COMMAND...: runs COMMAND with its output in OUT_DIR/NAME.log.
step() {
  local name=$1
  shift
  local t0=$SECONDS
  if "$@" >"$out/$name.log" 2>&1; then
    echo "$name: $((SECONDS - t0)) s"
  else
    echo "$name: FAILED after $((SECONDS - t0)) s (see $out/$name.log)"
  fi
}

# rust-verkle: a step run in its checkout, or a note that it is skipped.
rv_step() {
  local name=$1
  shift
  if [ -z "$rv" ]; then
    echo "$name: skipped (RUST_VERKLE unset)"
    return
  fi
  (cd "$rv" && step "$name" env CARGO_TARGET_DIR="$rv_target" "$@")
}

# `/usr/bin/time -v` when present (peak RSS), else bash's time.
timed() {
  if [ -x /usr/bin/time ]; then /usr/bin/time -v "$@"; else time "$@"; fi
}

{
  echo "processor: $(lscpu | sed -n 's/^Model name: *//p')"
  echo "flags: $(grep -o -w -E 'avx512ifma|sha_ni|adx|bmi2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "cores: $(nproc), memory: $(free -g | awk '/^Mem:/ {print $2}') GiB"
  echo "commit: $(git rev-parse --short HEAD)"
  date -u +"date: %Y-%m-%d %H:%M UTC"
} | tee "$out/machine.txt"

echo "== build (not timed)"
step build cargo build --release -p fverkle -p tools --examples --bins
step build-benches cargo bench --workspace --no-run
if has binary; then
  step build-ubt cargo build --release --manifest-path tools/anchor-ubt/Cargo.toml
fi
if [ -n "$rv" ]; then
  rv_step build-rust-verkle cargo bench -p verkle-trie -p ipa-multipoint --no-run
  rv_step build-rust-verkle-example cargo build --release -p verkle-trie --example verify_witness
fi
uptime

if has field; then
  echo "== field and MSM"
  step field-tree-key cargo bench -p ipa --bench crypto -- "tree key" "${crit[@]}"
  step field-tree-key-nolanes env FVERKLE_NO_LANES=1 cargo bench -p ipa --bench crypto -- "tree keys 1024" "${crit[@]}"
  step field-crypto env FVERKLE_BENCH_MAX_OPENINGS=16384 cargo bench -p ipa --bench crypto -- \
    "commit 256|commit delta|ipa prove 256|ipa verify 256|rust-verkle shape|committer" "${crit[@]}"
  step field-msm cargo bench -p banderwagon --bench msm -- Pippenger "${crit[@]}"
  step field-msm-nolanes env FVERKLE_NO_LANES=1 cargo bench -p banderwagon --bench msm -- Pippenger "${crit[@]}"
  step field-points cargo bench -p banderwagon --bench points -- "${crit[@]}"
  step field-points-nolanes env FVERKLE_NO_LANES=1 cargo bench -p banderwagon --bench points -- "${crit[@]}"
  rv_step field-rust-verkle cargo bench -p ipa-multipoint --bench benchmark_main -- "ipa - |/1000$|/16000$" "${crit[@]}"
fi

if has witness; then
  echo "== witness decode and verify"
  step witness-large scripts/bench-large-witness.sh 5 "$work/large"
  if [ -n "$rv" ]; then
    for i in 1 2 3 4 5; do
      step "witness-large-rust-verkle-$i" "$rv_target/release/examples/verify_witness" "$work/large/b5.json" 1
    done
    # Its verifier reads one block a file: the chain's blocks one by one, each in its own
    # process, the second (warm) round's in-process time summed (JSON parse included).
    mkdir -p "$work/chain-blocks"
    python3 - "$chain" "$work/chain-blocks" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["blocks"]:
    with open(f"{sys.argv[2]}/{int(b['blockNumber']):03d}.json", "w") as f:
        json.dump(b, f)
PY
    for f in "$work"/chain-blocks/*.json; do
      "$rv_target/release/examples/verify_witness" "$f" 2 | tail -n 1
    done >"$out/witness-chain-rust-verkle.log" 2>&1
    awk '/^ok true/ {s += $3; n++} /^ok false/ {bad++} END {printf "witness-chain-rust-verkle: %d blocks verified, %d not, %.1f ms summed\n", n, bad, s}' \
      "$out/witness-chain-rust-verkle.log"
  else
    echo "witness-large-rust-verkle: skipped (RUST_VERKLE unset)"
  fi
  step witness-bench cargo bench -p witness --bench witness -- \
    "kaustinen6|post-state|decode|canonical" "${crit[@]}"
  step witness-bench-nolanes env FVERKLE_NO_LANES=1 cargo bench -p witness --bench witness -- \
    "verify kaustinen6 blocks 1..200" "${crit[@]}"
  step witness-openings env FVERKLE_BENCH_MAX_OPENINGS=16384 cargo bench -p verkle --bench witness_openings -- "${crit[@]}"
  step witness-one-block timed "$bin" verify \
    --pre-root 0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510 \
    "$vectors/witness/valid_block_72.json"
fi

if has proof; then
  echo "== proof generation"
  step proof-10k cargo bench -p verkle --bench tree -- "proof 10k" "${crit5[@]}"
  rv_step proof-10k-rust-verkle cargo bench -p verkle-trie --bench benchmark_main -- "proof 10k" "${crit5[@]}"
  step proof-reprove cargo test --release -p verkle --test verkle kaustinen6_replay_reproves -- --nocapture
fi

if has tree || has memory; then
  echo "== tree"
  if has tree; then
    step tree-insert cargo bench -p verkle --bench tree -- "insert 10k/" "${crit5[@]}"
    rv_step tree-insert-rust-verkle cargo bench -p verkle-trie --bench benchmark_main -- "insert 10k" "${crit5[@]}"
    step tree-genesis cargo bench -p verkle --bench tree -- "devnet6 genesis" "${crit5[@]}"
  fi
  rm -rf "$work/s1" "$work/s1-block" "$work/s1-mem"
  step tree-build-1m timed "$target/release/examples/build_state" --keys 1000000 --cache-mb 1024 --datadir "$work/s1"
  step tree-compact "$target/release/examples/block_cpu" "$work/s1" 0 --compact
  if has tree; then
    cp -a "$work/s1" "$work/s1-block" && sync
    step tree-block-10k env FVERKLE_BENCH_STATE="$work/s1-block" cargo bench -p verkle --bench tree -- \
      "block 10k" --warm-up-time 15 --measurement-time 8 --sample-size 15
  fi
  if has memory; then
    cp -a "$work/s1" "$work/s1-mem" && sync
    step memory-blocks-1m timed "$target/release/examples/block_cpu" "$work/s1-mem" 100 --cache-mb 1024
  fi
  rm -rf "$work/s1-block" "$work/s1-mem"
fi

if has fractional; then
  echo "== fractional"
  step fractional-bench cargo bench -p fractional --bench fractional -- \
    "coordinator|fractional/verify|verify_fractional" --warm-up-time 3 --measurement-time 5 --sample-size 10
  step fractional-apply-2 env RAYON_NUM_THREADS=2 cargo bench -p fractional --bench fractional -- \
    "fractional/(apply|single)" --warm-up-time 3 --measurement-time 5 --sample-size 10
  step fractional-apply-1 env RAYON_NUM_THREADS=1 cargo bench -p fractional --bench fractional -- \
    "fractional/(apply|single)" --warm-up-time 3 --measurement-time 5 --sample-size 10
fi

if has replay; then
  echo "== replay"
  for i in 1 2 3 4 5; do
    step "replay-k6-memory-$i" "$bin" --json replay --genesis "$genesis6" --layout legacy --chain kaustinen6 "$chain"
  done
  for i in 1 2 3; do
    rm -rf "$work/k6"
    step "replay-k6-datadir-$i" "$bin" --json replay --datadir "$work/k6" --genesis "$genesis6" --layout legacy --chain kaustinen6 "$chain"
  done
  rm -rf "$work/k6"
  if [ ! -s "$work/g100.jsonl" ]; then
    step replay-gen timed "$bin" --json gen --blocks 100 --updates 10000 --accounts 470000 --seed 1 --out "$work/g100.jsonl"
  fi
  rm -rf "$work/g100-base"
  step replay-genesis timed "$bin" genesis --layout eip6800 "$work/g100.jsonl.genesis.json" --datadir "$work/g100-base"
  for run in 1 2 3 4 5; do
    lanes=on
    if [ "$run" = 2 ] || [ "$run" = 4 ]; then lanes=off; fi
    rm -rf "$work/g100-run" && cp -a "$work/g100-base" "$work/g100-run" && sync
    if [ "$lanes" = off ]; then
      step "replay-1m-nolanes-$run" env FVERKLE_NO_LANES=1 /usr/bin/time -v "$bin" --json replay \
        --datadir "$work/g100-run" --genesis "$work/g100.jsonl.genesis.json" --layout eip6800 "$work/g100.jsonl"
    else
      step "replay-1m-$run" /usr/bin/time -v "$bin" --json replay \
        --datadir "$work/g100-run" --genesis "$work/g100.jsonl.genesis.json" --layout eip6800 "$work/g100.jsonl"
    fi
  done
  rm -rf "$work/g100-run"
fi

if has wasm; then
  echo "== WebAssembly"
  step wasm-bench scripts/wasm-bench.sh 3
fi

if has binary; then
  echo "== binary trees"
  step binary-tree cargo bench -p bintree --bench tree -- "hash floor|commit 10k-update block" \
    --warm-up-time 1 --measurement-time 4 --sample-size 10
  step binary-ubt cargo run --release -q --manifest-path tools/anchor-ubt/Cargo.toml -- 5
  # One core: one rayon thread, and the process held to one processor where `taskset` is.
  one_core=(env RAYON_NUM_THREADS=1)
  if command -v taskset >/dev/null; then one_core+=(taskset -c 0); fi
  step binary-tree-1 "${one_core[@]}" cargo bench -p bintree --bench tree -- \
    "hash floor|commit 10k-update block" --warm-up-time 1 --measurement-time 4 --sample-size 10
  step binary-ubt-1 "${one_core[@]}" cargo run --release -q --manifest-path tools/anchor-ubt/Cargo.toml -- 3
  step binary-witness cargo bench -p bintree --bench witness
fi

if has vectors; then
  echo "== vectors"
  step vectors-check timed "$bin" vectors check vectors/ "$vectors"
  rm -rf "$work/suite"
  step vectors-gen timed "$bin" vectors gen "$work/suite"
  if diff -r -q "$work/suite" vectors/suite >"$out/vectors-gen-diff.log" 2>&1; then
    echo "vectors-gen: byte-identical to vectors/suite"
  else
    echo "vectors-gen: DIFFERS from vectors/suite (see $out/vectors-gen-diff.log)"
  fi
fi
uptime
echo "logs in $out"
