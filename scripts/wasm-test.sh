#!/usr/bin/env bash
# Builds the `fverkle-witness` package (scripts/wasm.sh) and runs its Node tests
# (wasm/test/, node --test) against the shared vectors and the conformance suite, then the
# same crate with its measuring switches (wasm/test-measure/); with
# --browser, also the light-client page (wasm/www/) in a headless Chromium: Debian's
# `chromium` (installed when missing) driven by `playwright-core` (npm ci, from
# wasm/browser-test/package-lock.json), with a screenshot in target/wasm-page.png.
#
#   scripts/wasm-test.sh [--browser]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1; then
  echo "wasm-test.sh: node (20 or later) is not on PATH" >&2
  exit 2
fi
scripts/wasm.sh wasm/pkg
FVERKLE_WASM_PKG="$PWD/wasm/pkg" node --test wasm/test/
# The same crate with its measuring switches (not in the published package).
FVERKLE_WASM_FEATURES=measure scripts/wasm.sh wasm/pkg-measure
FVERKLE_WASM_PKG="$PWD/wasm/pkg-measure" node --test wasm/test-measure/

if [ "${1:-}" = "--browser" ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    echo "wasm-test.sh: installing chromium from Debian" >&2
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  fi
  (cd wasm/browser-test && npm ci --no-audit --no-fund --silent)
  CHROMIUM="$(command -v chromium)" node wasm/browser-test/test.mjs
fi
