#!/usr/bin/env bash
# The README's main job: commit, prove and verify with the EIP-6800 CRS and report timings.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec cargo run --release -q -p ipa --example demo -- "$@"
