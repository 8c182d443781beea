#!/usr/bin/env bash
# Builds the `fverkle-witness` package (scripts/wasm.sh) and runs its Node tests
# (wasm/test/, node --test) against the shared vectors and the conformance suite.
#
#   scripts/wasm-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1; then
  echo "wasm-test.sh: node (20 or later) is not on PATH" >&2
  exit 2
fi
scripts/wasm.sh wasm/pkg
FVERKLE_WASM_PKG="$PWD/wasm/pkg" node --test wasm/test/
