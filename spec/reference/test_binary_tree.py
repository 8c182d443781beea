"""Self-test of blake3.py and binary_tree.py against the published binary-tree vectors.

    python3 spec/reference/test_binary_tree.py [BINARY_TREE_DIR]

BINARY_TREE_DIR defaults to $FVERKLE_BINARY_VECTORS, else ../shared/binary-tree beside the
checkout. Checks every trie root, every root after every operation of the EIP-8297 sequences,
and every EIP-7864 root (SHA-256 and BLAKE3). Prints `N passed, 0 failed`; exits 1 on any
mismatch, 2 when a file is missing.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from binary_tree import eip7864_root, eip8297_root, sha256  # noqa: E402
from blake3 import blake3  # noqa: E402


def unhex(s):
    return bytes.fromhex(s[2:] if s[:2] in ("0x", "0X") else s)


def load(folder, name):
    path = os.path.join(folder, name)
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        print(f"missing binary-tree vector file: {path}", file=sys.stderr)
        sys.exit(2)


def main():
    folder = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FVERKLE_BINARY_VECTORS")
              or os.path.join(HERE, "..", "..", "..", "shared", "binary-tree"))
    passed, failed = 0, 0

    def check(what, got, want):
        nonlocal passed, failed
        if got == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {what}: got {got.hex()}, want {want.hex()}")

    # BLAKE3 itself: the empty input.
    check("blake3 of the empty input", blake3(b""),
          unhex("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"))

    eels = load(folder, "eip8297/eels_vectors.json")
    check("eip8297 empty root", eip8297_root({}), unhex(eels["empty_root"]))
    for case in eels["trie_vectors"]:
        entries = {unhex(e["key"]): unhex(e["value"]) for e in case["entries"]}
        check(f"eip8297 trie {case['name']}", eip8297_root(entries), unhex(case["root"]))
    for seq in eels["sequence_vectors"]:
        entries = {}
        for n, (op, root) in enumerate(zip(seq["ops"], seq["roots_after"])):
            key = unhex(op["key"])
            if op["op"] == "set":
                entries[key] = unhex(op["value"])
            else:
                entries.pop(key, None)
            check(f"eip8297 sequence {seq['seed']} op {n}", eip8297_root(entries), unhex(root))

    specs = load(folder, "eip8297/execution_specs_vectors.json")
    for case in specs["trie_roots"]:
        entries = {}
        for e in case["entries"]:  # ordered; the last write wins
            entries[unhex(e["key"])] = unhex(e["value"])
        check(f"eip8297 trie_roots {case['name']}", eip8297_root(entries), unhex(case["root"]))

    for case in load(folder, "eip7864/blake3_vectors.json"):
        entries = {}
        for e in case["inserts"]:
            entries[unhex(e["key"])] = unhex(e["value"])
        check(f"eip7864 blake3 {case['name']}", eip7864_root(entries, blake3),
              unhex(case["expected_root"]))

    geth = load(folder, "eip7864/sha256_geth_vectors.json")
    for case in geth["tree_root_cases"]:
        entries = {}
        for e in case["inserts"]:
            entries[unhex(e["key"])] = unhex(e["value"])
        check(f"eip7864 sha256 {case['name']}", eip7864_root(entries, sha256),
              unhex(case["expected_root"]))

    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
