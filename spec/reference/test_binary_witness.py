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

from binary_tree import (  # noqa: E402
    eip7864_root, eip7864_stem_hash, eip7864_subtree_root, eip8297_root, sha256,
)
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


def eip7864_witness(keys, flags, ends, values, others, slots):
    """EIP-7864 witness bytes (§2, §3): `others` as (stem, sub-index, value), `slots` as 32-byte
    hashes or None for an empty slot."""
    hashes = [x for x in slots if x is not None]
    bitmap = bytearray((len(slots) + 7) // 8)
    for j, x in enumerate(slots):
        if x is not None:
            bitmap[j // 8] |= 0x80 >> (j % 8)
    out = bytearray(b"\x02\x01\x01")
    for n in (len(keys), len(others), len(slots), len(hashes)):
        out += n.to_bytes(4, "little")
    out += b"".join(keys) + bytes(flags) + b"".join(bytes(e) for e in ends) + b"".join(values)
    out += b"".join(x + bytes([i]) + v for x, i, v in others) + bytes(bitmap) + b"".join(hashes)
    return bytes(out)


def eip7864_forgeries():
    """§4.1 "Stem vs internal node": the root is an internal node whose left child's hash L ends
    in 0x00, so it equals a stem node of stem L[0..31] with subtree root R (the root's right
    child). Read as that stem, it would prove any key absent; an other record now opens a leaf,
    and no opening rebuilds R."""
    a, b = b"\x00" + b"\x11" * 30, b"\x80" + b"\x22" * 30
    for n in range(4096):
        value = n.to_bytes(4, "big") + b"\x5a" * 28
        left = eip7864_stem_hash(sha256, a, eip7864_subtree_root(sha256, {0: value}))
        if left[31] == 0:
            break
    right = eip7864_stem_hash(sha256, b, eip7864_subtree_root(sha256, {0: b"\xbb" * 32}))
    root = eip7864_root({a + b"\x00": value, b + b"\x00": b"\xbb" * 32}, sha256)
    check("forgery: the root is H(L ‖ R) with L[31] = 0", (left[31], sha256(left + right)), (0, root))
    # The key a‖00 (present) claimed absent at depth 0, DIVERGENT at the other stem L[0..31]:
    # its opening of sub-index 0 has 8 right-side slots; the attacker's best is to send R.
    forged = eip7864_witness([a + b"\x00"], [0], [(0, 2)], [], [(left[:31], 0, value)],
                             [None] * 7 + [right])
    check("forgery: internal node read as an other stem", rule_of(forged, "eip7864", "sha256", root),
          "bw.root")
    # The honest proof of absence of k = 81‖33…‖00, whose path ends at the stem node of b
    # (alone right of the root): the root's left child is slot 0, b's record opens its first
    # leaf (sub-index 0: 8 right-side slots, all empty).
    k = b"\x81" + b"\x33" * 30 + b"\x00"
    honest = eip7864_witness([k], [0], [(1, 2)], [], [(b, 0, b"\xbb" * 32)], [left] + [None] * 8)
    v = verify(honest, "eip7864", "sha256", root)
    check("an other stem's opening verifies", (v.pre_values, v.post_root), ([None], root))
    later = eip7864_witness([k], [0], [(1, 2)], [], [(b, 1, b"\xbb" * 32)], [left] + [None] * 7)
    check("an opening of a leaf that is not the first", rule_of(later, "eip7864", "sha256", root),
          "bw.root")
    # Every key of the zero stem is refused, whatever the rest of the witness.
    zero = eip7864_witness([bytes(32)], [0], [(0, 0)], [], [], [root])
    check("a key of the zero stem", rule_of(zero, "eip7864", "sha256", root), "bw.keys.zero_stem")
    one = bytes([1]) + zero[1:]
    check("a version-1 witness", rule_of(one, "eip7864", "sha256", root), "bw.version")


def main():
    witnesses = full_hex_witnesses()
    check("full-hex witnesses in §6", len(witnesses), 2)
    if len(witnesses) == 2:
        eip7864(witnesses[0])
        eip8297(witnesses[1])
    eip7864_forgeries()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
