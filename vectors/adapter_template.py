#!/usr/bin/env python3
"""A starting point for another client's adapter to `fverkle vectors check --impl`.

The protocol (vectors/README.md, "Checking another implementation"): the runner sends one
case, `{"kind", "name", "input"}`, as one JSON line, and reads one JSON answer line:
`{"verdict": "valid", "value": {...}}`, `{"verdict": "invalid", "rule": "<rule id>"}` or
`{"verdict": "unsupported"}`. Run with `--persistent` the command is started once and
answers one line per case; without it, one process per case reads the whole of stdin.

As shipped, every kind answers "unsupported", so the run lists every case and passes none.
Replace a handler's body with a call into your implementation, e.g. for `point_codec`:

    decode input["bytes"] (hex) -> on failure {"verdict": "invalid", "rule": "point.not_on_curve"}
                                -> on success {"verdict": "valid", "value": {"encoding": ...,
                                               "map_to_scalar_field": ...}}

Each kind's input and value fields are tabled in vectors/README.md; spec/reference/adapter.py
is a complete adapter for the Python reference, written the same way.
"""

import json
import os
import sys


def unsupported(_input):
    return {"verdict": "unsupported"}


# One handler per kind: replace `unsupported` with a function of the case's `input`.
HANDLERS = {
    "point_codec": unsupported,
    "commitment": unsupported,
    "tree_key": unsupported,
    "tree_root": unsupported,
    "ipa": unsupported,
    "multiproof": unsupported,
    "witness": unsupported,
    "fractional_proof": unsupported,
}


def answer(case):
    handler = HANDLERS.get(case.get("kind"), unsupported)
    try:
        return handler(case["input"])
    except Exception as e:  # an input the implementation cannot read is a difference
        return {"verdict": "error", "detail": f"{type(e).__name__}: {e}"}


def main():
    if "--persistent" in sys.argv[1:] or os.environ.get("FVERKLE_VECTORS_MODE") == "persistent":
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(answer(json.loads(line))), flush=True)
        return 0
    print(json.dumps(answer(json.load(sys.stdin))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
