#!/usr/bin/env python3
"""Command line, mirroring `fverkle verify`:

    python3 spec/reference/verify.py --pre-root ROOT [--post-root ROOT] FILE

FILE is go-verkle JSON (bare, or inside the wrappers of WIRE.md §4.3) or SSZ (`.ssz`).
Exit 0 valid, 1 invalid (the rule id is printed), 2 unreadable input (a file that does not
read as a witness, SSZ that breaks a rule of WIRE.md §2.6 included: its rule id is printed).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import json_witness  # noqa: E402
import ssz  # noqa: E402
from post_state import post_state_root  # noqa: E402
from witness import Invalid, verify  # noqa: E402


def _root(text):
    s = text[2:] if text[:2] in ("0x", "0X") else text
    b = bytes.fromhex(s)
    if len(b) != 32:
        raise ValueError("a root is 32 bytes")
    return b


def read_witness_file(path):
    """The witness in FILE: SSZ when it ends in .ssz, else JSON. Raises SszError (with the
    rule id) or JsonError/ValueError when the file does not read as a witness."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".ssz"):
        return ssz.decode(data)
    doc = json.loads(data)
    _, w = json_witness.find_one_witness(doc)
    return json_witness.read_witness(w)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pre-root", required=True)
    ap.add_argument("--post-root")
    ap.add_argument("file")
    args = ap.parse_args(argv)
    try:
        pre = _root(args.pre_root)
        post = _root(args.post_root) if args.post_root else None
        w = read_witness_file(args.file)
    except ssz.SszError as e:
        print(f"unreadable: not an SSZ execution witness: {e}", file=sys.stderr)
        return 2
    except (OSError, ValueError, json_witness.JsonError) as e:
        print(f"unreadable: {e}", file=sys.stderr)
        return 2
    try:
        verified = verify(pre, w)
    except Invalid as e:
        print(f"invalid: {e}")
        return 1
    root = post_state_root(verified)
    keys = verified.keys()
    print(f"valid: {len(w.state_diff)} stems, {len(keys)} keys, {verified.openings} openings")
    print(f"post-state root: 0x{root.hex()}")
    if verified.unbound_absences():
        print(f"unbound absences: {verified.unbound_absences()}")
    if post is not None and root != post:
        print(f"invalid: post_state.root_mismatch: computed 0x{root.hex()}, expected 0x{post.hex()}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
