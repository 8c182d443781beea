#!/usr/bin/env bash
# The light crates, the genesis reader and the conformance-vector crate build without RocksDB: their normal
# dependency graphs (default features, and none) must not contain it. Exits 1 naming the
# crate and the path that pulls it in.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for crate in banderwagon ipa witness genesis vectors; do
    for features in "" "--no-default-features"; do
        # shellcheck disable=SC2086
        tree=$(cargo tree -q -e normal -p "$crate" $features --prefix none)
        if grep -q '^librocksdb-sys ' <<<"$tree"; then
            echo "check-deps: $crate ${features:-(default features)} depends on RocksDB:" >&2
            # shellcheck disable=SC2086
            cargo tree -q -e normal -p "$crate" $features -i librocksdb-sys >&2
            status=1
        fi
    done
done
# `witness::hostile` and `witness::decompressed_points` exist only with the `test-support`
# feature (tests and the vector generator): no light crate's normal graph turns it on.
for crate in witness fverkle-witness; do
    if cargo tree -q -e normal,features -p "$crate" --prefix none |
        grep -q '^witness feature "test-support"'; then
        echo "check-deps: $crate turns on witness's test-support feature" >&2
        status=1
    fi
done
if [ "$status" -eq 0 ]; then
    echo "check-deps: banderwagon, ipa, witness, genesis and vectors build without RocksDB;"
    echo "check-deps: witness and fverkle-witness build without witness's test-support"
fi
exit "$status"
