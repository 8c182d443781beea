#!/usr/bin/env bash
# The README's main job: `fverkle demo` — generate a synthetic chain, replay it verifying every
# witness and root, prove and verify, print timings. Arguments go to `fverkle demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec cargo run --release -q -p fverkle --bin fverkle -- demo "$@"
