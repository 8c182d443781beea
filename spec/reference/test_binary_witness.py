"""Self-test of binary_witness.py against the worked examples of spec/BINARY.md §6.

    python3 spec/reference/test_binary_witness.py

For each example (EIP-7864 with SHA-256, EIP-8297 with BLAKE3): the tree described in §6 has
the pre-state root §6 states (computed by binary_tree.py from the entries); the witness whose
full hex §6 prints (read from ../BINARY.md) verifies against it; its claims are the example's
writes; its post-state root is §6's and equals the root of the entries with the writes
applied. A few altered witnesses are rejected with the rule §9 names. Prints
`N passed, 0 failed`; exits 1 on any failure.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from binary_tree import eip7864_root, eip8297_root, sha256  # noqa: E402
from binary_witness import Invalid, verify  # noqa: E402
from blake3 import blake3  # noqa: E402

SPEC = os.path.join(HERE, "..", "BINARY.md")

# The roots §6 states.
EIP7864_PRE = "fdac7db0cbe3992101c3e233cbe7452e0b197f3686c967cb47357a40301e8556"
EIP7864_POST = "bd1fdc08a40e47bde60f1795efcf87d8e759c09831a8443027e093daf41b7d5f"
EIP8297_PRE = "9be3f2bf76a7746a08b5dca15f5db7ddd5dcbae6591a182b1e7ee7ea1344f9f7"
EIP8297_POST = "13005b688da0afdbc2aad2aa585a9d2115007020f452d023d1ec0d7e7fa47ed7"

passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: got {got!r}, want {want!r}")


def full_hex_witnesses():
    """The full-hex witnesses of §6, in the order they appear: one-line code blocks of hex."""
    with open(SPEC) as f:
        text = f.read()
    section = text[text.index("## 6."):text.index("## 7.")]
    return [bytes.fromhex(m) for m in re.findall(r"```\n([0-9a-f]{64,})\n```", section)]


def rule_of(data, tree, hash_name, root):
    try:
        verify(data, tree, hash_name, root)
    except Invalid as e:
        return e.rule
    return "verified"


def eip7864(witness):
    a, b, c = bytes([0x11]) * 31, bytes([0xf0]) * 31, bytes([0x13]) + bytes([0x12]) * 30
    entries = {a + b"\x00": b"\xaa" * 32, a + b"\x01": b"\xab" * 32, b + b"\x00": b"\xbb" * 32}
    pre = eip7864_root(entries, sha256)
    check("eip7864 pre-state root of the tree", pre.hex(), EIP7864_PRE)
    writes = {a + b"\x01": b"\xcc" * 32, c + b"\x05": b"\xdd" * 32}
    v = verify(witness, "eip7864", "sha256", pre)
    check("eip7864 verified pre-state root", v.pre_root, pre)
    check("eip7864 keys", v.keys, sorted(writes))
    check("eip7864 pre-values", v.pre_values, [b"\xab" * 32, None])
    check("eip7864 writes", v.writes, [writes[k] for k in sorted(writes)])
    check("eip7864 post-state root", v.post_root.hex(), EIP7864_POST)
    check("eip7864 post-state root of the written tree", v.post_root,
          eip7864_root({**entries, **writes}, sha256))
    check("eip7864 wrong pre-state root", rule_of(witness, "eip7864", "sha256", bytes(32)), "bw.root")
    check("eip7864 as EIP-8297", rule_of(witness, "eip8297", "sha256", pre), "bw.tree")
    check("eip7864 truncated", rule_of(witness[:-1], "eip7864", "sha256", pre), "bw.length.truncated")
    check("eip7864 trailing byte", rule_of(witness + b"\x00", "eip7864", "sha256", pre), "bw.length.trailing")


def eip8297(witness):
    a = bytes([0x00, 0x10]) + bytes(32)
    b = bytes([0x00, 0x90]) + bytes(32)
    c = bytes([0x00, 0x90]) + bytes(31) + b"\x01"
    entries = {k: bytes([k[1] ^ k[33]]) * 32 for k in (a, b, c)}
    pre = eip8297_root(entries, blake3)
    check("eip8297 pre-state root of the tree", pre.hex(), EIP8297_PRE)
    v = verify(witness, "eip8297", "blake3", pre)
    check("eip8297 verified pre-state root", v.pre_root, pre)
    check("eip8297 keys", v.keys, [a])
    check("eip8297 pre-values", v.pre_values, [entries[a]])
    check("eip8297 writes", v.writes, ["delete"])
    check("eip8297 post-state root", v.post_root.hex(), EIP8297_POST)
    check("eip8297 post-state root of the written tree", v.post_root,
          eip8297_root({b: entries[b], c: entries[c]}, blake3))
    check("eip8297 wrong pre-state root", rule_of(witness, "eip8297", "blake3", bytes(32)), "bw.root")
    check("eip8297 as SHA-256", rule_of(witness, "eip8297", "sha256", pre), "bw.hash")
    check("eip8297 truncated", rule_of(witness[:-1], "eip8297", "blake3", pre), "bw.length.truncated")
    check("eip8297 trailing byte", rule_of(witness + b"\x00", "eip8297", "blake3", pre), "bw.length.trailing")
    # The survivor record (the last 3 + 33 + 64 bytes) sent as a bare hash instead.
    record = witness[-(3 + 33 + 64):]
    head = bytearray(witness[:-len(record)])
    head[7:23] = (0).to_bytes(4, "little") + (1).to_bytes(4, "little") * 2 + (1).to_bytes(4, "little")
    check("eip8297 survivor sent as a hash", rule_of(bytes(head) + blake3(record), "eip8297", "blake3", pre),
          "bw.collapse")
    # A child hash of the survivor altered.
    forged = bytearray(witness)
    forged[-1] ^= 1
    check("eip8297 survivor child altered", rule_of(bytes(forged), "eip8297", "blake3", pre), "bw.root")


def main():
    witnesses = full_hex_witnesses()
    check("full-hex witnesses in §6", len(witnesses), 2)
    if len(witnesses) == 2:
        eip7864(witnesses[0])
        eip8297(witnesses[1])
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
