#!/usr/bin/env bash
# Installs what the build needs when it is missing. Safe to run repeatedly.
# - Rust components rustfmt and clippy (for .ci/run), via rustup when available.
# - clang and libclang-dev from Debian (needed by RocksDB's build in the `verkle` crate).
set -euo pipefail

need_apt=()
for pkg in clang libclang-dev; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    need_apt+=("$pkg")
  fi
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from Debian" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is not on PATH; install Rust (rustup) first" >&2
  exit 2
fi
if command -v rustup >/dev/null 2>&1; then
  for comp in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^$comp"; then
      rustup component add "$comp" >&2
    fi
  done
  for target in wasm32-unknown-unknown riscv32imac-unknown-none-elf aarch64-unknown-linux-gnu; do
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then rustup target add "$target" >&2; fi
  done
fi

# Keep build artefacts between runs on the same machine (RocksDB takes minutes to build).
: "${CARGO_TARGET_DIR:=$HOME/.cache/fverkle-target}"
export CARGO_TARGET_DIR
