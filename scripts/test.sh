#!/usr/bin/env bash
# The README's test command: every test of the workspace, in release (the crypto suites are heavy).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec cargo test --release --workspace "$@"
