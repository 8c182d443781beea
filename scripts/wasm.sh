#!/usr/bin/env bash
# Builds the `fverkle-witness` npm package (WebAssembly) into OUT_DIR (default: wasm/pkg,
# ignored by git): one .wasm with an ES module for browsers and Node (`web/`, `node.mjs`),
# a CommonJS entry for Node (`node/`), TypeScript declarations for each, and package.json.
#
#   [FVERKLE_WASM_FEATURES=measure] scripts/wasm.sh [OUT_DIR]
#
# FVERKLE_WASM_FEATURES=measure adds the test and benchmark switches (`usePortableField`,
# `verifyPreState`); the package proper exports exactly `verify`, `verifyBinary`, `treeKey` and `version`.
#
# Installs what it needs: the wasm32-unknown-unknown target (rustup) and wasm-bindgen-cli
# from crates.io at exactly the version of the `wasm-bindgen` crate in Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
out="${1:-wasm/pkg}"

version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
if [ -z "$version" ]; then
  echo "wasm.sh: no wasm-bindgen in Cargo.lock" >&2
  exit 2
fi
if ! command -v wasm-bindgen >/dev/null 2>&1 || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$version" ]; then
  echo "wasm.sh: installing wasm-bindgen-cli $version from crates.io" >&2
  # --locked first; the CLI's own lock file can name a crate version the registry no longer
  # serves, in which case the pinned CLI is built with fresh dependencies.
  cargo install --quiet --locked wasm-bindgen-cli --version "$version" ||
    cargo install --quiet wasm-bindgen-cli --version "$version"
fi

features="${FVERKLE_WASM_FEATURES:-}"
exports="verify, verifyBinary, treeKey, version"
if [ -n "$features" ]; then
  cargo build --profile wasm -p fverkle-witness --target wasm32-unknown-unknown --features "$features"
  exports="verify, verifyBinary, treeKey, usePortableField, verifyPreState, version"
else
  cargo build --profile wasm -p fverkle-witness --target wasm32-unknown-unknown
fi
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm/fverkle_witness.wasm"

rm -rf "$out"
mkdir -p "$out"
# Without the function-name and producers sections (40 KB raw that only debuggers read).
strip="--remove-name-section --remove-producers-section"
wasm-bindgen $strip --target web --out-dir "$out/web" "$wasm"
wasm-bindgen $strip --target nodejs --out-dir "$out/node" "$wasm"
# The CommonJS glue reads its .wasm next to it; one copy serves both entries.
cp "$out/web/fverkle_witness_bg.wasm" "$out/node/fverkle_witness_bg.wasm"
echo '{ "type": "commonjs" }' > "$out/node/package.json"

cat > "$out/node.mjs" <<JS
// Node, as an ES module: the CommonJS build, loaded synchronously.
import cjs from "./node/fverkle_witness.js";
export const { $exports } = cjs;
JS
pkg_version=$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)
cat > "$out/package.json" <<JSON
{
  "name": "fverkle-witness",
  "version": "$pkg_version",
  "description": "Stateless EIP-6800 execution-witness verifier and tree keys (WebAssembly)",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "types": "./web/fverkle_witness.d.ts",
  "main": "./node/fverkle_witness.js",
  "exports": {
    ".": {
      "node": {
        "types": "./node/fverkle_witness.d.ts",
        "import": "./node.mjs",
        "require": "./node/fverkle_witness.js"
      },
      "default": {
        "types": "./web/fverkle_witness.d.ts",
        "default": "./web/fverkle_witness.js"
      }
    },
    "./web": {
      "types": "./web/fverkle_witness.d.ts",
      "default": "./web/fverkle_witness.js"
    }
  },
  "files": ["web", "node", "node.mjs"]
}
JSON
raw=$(stat -c %s "$out/web/fverkle_witness_bg.wasm")
gz=$(gzip -9 -c "$out/web/fverkle_witness_bg.wasm" | wc -c)
echo "wasm.sh: $out (fverkle_witness_bg.wasm: $raw bytes, $gz gzipped)" >&2
