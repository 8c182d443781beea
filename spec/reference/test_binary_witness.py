"""Self-test of binary_witness.py against spec/BINARY.md.

    python3 spec/reference/test_binary_witness.py

For each worked example of §6 (EIP-7864 with SHA-256, without and with an anchor; EIP-8297
with BLAKE3): the tree described in §6 has the pre-state root §6 states (computed by
binary_tree.py from the entries); the witness whose full hex §6 prints (read from
../BINARY.md) verifies against it; its claims are the example's writes; its post-state root
is §6's and equals the root of the entries with the writes applied. A few altered witnesses
are rejected with the rule §9 names.

For EIP-7864, a small prover (§4's walk over a tree, anchors included) writes witnesses that
verify, over hand-built and random trees; the forgeries of §4.1 (an internal node read as an
other stem, a stem node read as an internal node, the zero stem's node read as one) are
rejected, and each anchor rule fires on an edited honest witness. Prints `N passed, 0 failed`;
exits 1 on any failure.
"""

import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from binary_tree import (  # noqa: E402
    ZERO32, bit, eip7864_root, eip7864_stem_hash, eip7864_subtree_root, eip8297_root, sha256,
)
from binary_witness import DIVERGENT, EMPTY, MAX_OTHERS, PRE, PRESENT, SET, Invalid, verify  # noqa: E402
from blake3 import blake3  # noqa: E402

SPEC = os.path.join(HERE, "..", "BINARY.md")

# The roots §6 states.
EIP7864_PRE = "fdac7db0cbe3992101c3e233cbe7452e0b197f3686c967cb47357a40301e8556"
EIP7864_POST = "bd1fdc08a40e47bde60f1795efcf87d8e759c09831a8443027e093daf41b7d5f"
EIP7864_ANCHOR_PRE = "5063397ed3065d1e9c9f89ca88b89d29b0cdcf2577623b9cabee6bcd707fcb92"
EIP7864_ANCHOR_POST = "52c07e822392149fd417f7ba233df85b290a1daba039f2b3b5ad462e54eb6639"
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
    """The full-hex witnesses of §6, in the order they appear: code blocks of hex alone (on
    one line or wrapped)."""
    with open(SPEC) as f:
        text = f.read()
    section = text[text.index("## 6."):text.index("## 7.")]
    blocks = re.findall(r"```\n((?:[0-9a-f]+\n)+)```", section)
    return [bytes.fromhex(b.replace("\n", "")) for b in blocks]


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
    check("eip7864 the prover writes §6's bytes", encode(prove_eip7864(entries, writes=writes)), witness)
    check("eip7864 wrong pre-state root", rule_of(witness, "eip7864", "sha256", bytes(32)), "bw.root")
    check("eip7864 as EIP-8297", rule_of(witness, "eip8297", "sha256", pre), "bw.tree")
    check("eip7864 truncated", rule_of(witness[:-1], "eip7864", "sha256", pre), "bw.length.truncated")
    check("eip7864 trailing byte", rule_of(witness + b"\x00", "eip7864", "sha256", pre), "bw.length.trailing")


def eip7864_anchor(witness):
    x, y = bytes([0xe0]) + bytes([0x11]) * 30, bytes([0xe1]) + bytes([0x22]) * 30
    k = bytes([0x80]) + bytes([0x33]) * 30 + b"\x00"
    entries = {x + b"\x00": b"\xa0" * 32, x + b"\x01": b"\xa1" * 32, y + b"\x00": b"\xb0" * 32}
    pre = eip7864_root(entries, sha256)
    check("eip7864 anchor: pre-state root of the tree", pre.hex(), EIP7864_ANCHOR_PRE)
    v = verify(witness, "eip7864", "sha256", pre)
    check("eip7864 anchor: keys", v.keys, [k])
    check("eip7864 anchor: pre-values", v.pre_values, [None])
    writes = {k: v.writes[0]}
    check("eip7864 anchor: post-state root", v.post_root.hex(), EIP7864_ANCHOR_POST)
    check("eip7864 anchor: post-state root of the written tree", v.post_root,
          eip7864_root({**entries, **writes}, sha256))
    check("eip7864 anchor: the prover writes §6's bytes",
          encode(prove_eip7864(entries, writes=writes)), witness)
    # Without its anchor (anchor_count 0, the anchor's 65 bytes gone) the walk asks for one.
    cut = bytearray(witness[:19]) + bytes(4) + witness[23:90] + witness[155:]
    check("eip7864 anchor: dropped", rule_of(bytes(cut), "eip7864", "sha256", pre), "bw.count.anchors")


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


# EIP-7864 witnesses ---------------------------------------------------------------------------

def eip7864_witness(keys, flags, ends, values, others, slots, anchors=(), anchor_count=None, version=3):
    """EIP-7864 witness bytes (§2, §3): `others` as (stem, sub-index, value), `anchors` as
    (depth, stem, sub-index, value), `slots` as 32-byte hashes or None for an empty slot.
    `anchor_count` overrides the header's count."""
    hashes = [x for x in slots if x is not None]
    bitmap = bytearray((len(slots) + 7) // 8)
    for j, x in enumerate(slots):
        if x is not None:
            bitmap[j // 8] |= 0x80 >> (j % 8)
    out = bytearray([version, 0x01, 0x01])
    count = len(anchors) if anchor_count is None else anchor_count
    for n in (len(keys), len(others), len(slots), len(hashes), count):
        out += n.to_bytes(4, "little")
    out += b"".join(keys) + bytes(flags) + b"".join(bytes(e) for e in ends) + b"".join(values)
    out += b"".join(x + bytes([i]) + v for x, i, v in others)
    out += b"".join(bytes([k]) + x + bytes([i]) + v for k, x, i, v in anchors)
    return bytes(out + bitmap + b"".join(hashes))


def hash64(x):
    return ZERO32 if x == bytes(64) else sha256(x)


def subtree_levels(values):
    """A stem's 256-leaf subtree from {sub-index: value}: levels[l][p] is the node at level l
    (0 the root) and position p (the first l bits of its sub-indices)."""
    levels = [[sha256(values[i]) if i in values else ZERO32 for i in range(256)]]
    while len(levels[0]) > 1:
        below = levels[0]
        levels.insert(0, [hash64(below[i] + below[i + 1]) for i in range(0, len(below), 2)])
    return levels


def eip7864_tree(entries):
    """The tree of {key: value}: ("empty",), ("stem", stem, {sub-index: value}, hash) or
    ("internal", left, right, hash), each node with its hash."""
    stems = {}
    for k, v in entries.items():
        stems.setdefault(k[:31], {})[k[31]] = v

    def build(items, d):
        if not items:
            return ("empty", ZERO32)
        if len(items) == 1:
            stem, values = items[0]
            return ("stem", stem, values, eip7864_stem_hash(sha256, stem, subtree_levels(values)[0][0]))
        cut = next((i for i, (s, _) in enumerate(items) if bit(s, d)), len(items))
        left, right = build(items[:cut], d + 1), build(items[cut:], d + 1)
        return ("internal", left, right, hash64(left[-1] + right[-1]))

    return build(sorted(stems.items()), 0)


def prove_eip7864(entries, reads=(), writes=None):
    """The witness parts for the keys `reads` and `writes` ({key: new value}) over the tree of
    `entries`, written in the walk of §4: ends, other records, anchors and slots in the order
    the verifier meets them. A set to the current value is written as unchanged."""
    writes = writes or {}
    keys = sorted(set(reads) | set(writes))
    flags, values = [], []
    for k in keys:
        pre, new = entries.get(k), writes.get(k)
        if new == pre:
            new = None
        flags.append((PRE if pre is not None else 0) | (SET if new is not None else 0))
        values += [x for x in (pre, new) if x is not None]
    touched = {}
    for k in keys:
        touched.setdefault(k[:31], []).append(k[31])
    ends, others, anchors, slots = [], [], [], []

    def opening(values):
        """Opens a stem's first present leaf: its slots (right sides, deepest first)."""
        first = min(values)
        levels = subtree_levels(values)
        for level in range(7, -1, -1):
            if not (first >> (7 - level)) & 1:
                slots.append(levels[level + 1][2 * (first >> (8 - level)) + 1])
        return first, values[first]

    def present(values, subs):
        levels = subtree_levels(values)

        def walk(level, p, subs):
            if level == 8:
                return
            for side in (0, 1):
                part = [x for x in subs if (x >> (7 - level)) & 1 == side]
                if part:
                    walk(level + 1, 2 * p + side, part)
                else:
                    slots.append(levels[level + 1][2 * p + side])

        walk(0, 0, subs)

    def anchor(n, e):
        """The prover's anchor (anchors.md "Prover"): leftmost descent to the first stem node."""
        rights, k = [], e
        while n[0] == "internal":
            if n[1][0] != "empty":
                rights.append(n[2][-1])
                n = n[1]
            else:
                n = n[2]
            k += 1
        first, value = opening(n[2])
        anchors.append((k, n[1], first, value))
        slots.extend(reversed(rights))

    def walk(n, d, group):
        if n[0] == "empty":
            ends.extend((d, EMPTY) for _ in group)
        elif n[0] == "stem":
            stem = n[1]
            if stem not in group:
                others.append((stem,) + opening(n[2]))
            ends.extend((d, PRESENT if s == stem else DIVERGENT) for s in group)
            if stem in group:
                present(n[2], touched[stem])
        else:
            for side in (0, 1):
                part = [s for s in group if bit(s, d) == side]
                if part:
                    walk(n[1 + side], d + 1, part)
                elif n[2 - side][0] == "empty":
                    anchor(n[1 + side], d + 1)
                else:
                    slots.append(n[1 + side][-1])

    tree = eip7864_tree(entries)
    if keys:
        walk(tree, 0, sorted(touched))
    else:
        slots.append(tree[-1])
    return {"keys": keys, "flags": flags, "ends": ends, "values": values, "others": others,
            "anchors": anchors, "slots": [None if x == ZERO32 else x for x in slots]}


def encode(parts, **edits):
    p = {**parts, **edits}
    return eip7864_witness(p["keys"], p["flags"], p["ends"], p["values"], p["others"], p["slots"],
                           p["anchors"], p.get("anchor_count"), p.get("version", 3))


def check_honest(name, entries, reads=(), writes=None):
    """The prover's witness verifies: the pre-state root, every claim, and the post-state root
    of the tree with the writes applied. Returns the parts."""
    writes = writes or {}
    parts = prove_eip7864(entries, reads, writes)
    pre = eip7864_root(entries, sha256)
    try:
        v = verify(encode(parts), "eip7864", "sha256", pre)
    except Invalid as e:
        check(f"{name}: verifies", e.rule, "verified")
        return parts
    check(f"{name}: claims and roots",
          (v.pre_values, v.post_root),
          ([entries.get(k) for k in parts["keys"]], eip7864_root({**entries, **writes}, sha256)))
    return parts


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
    for version in (1, 2):
        old = bytes([version]) + honest[1:]
        check(f"a version-{version} witness", rule_of(old, "eip7864", "sha256", root), "bw.version")


def stem_node_forgery():
    """§4.1: a real stem node read as an internal node (left child S ‖ 0x00, right child
    root_S). Tree: A = 00 11…, S = e0 11…, one value each at sub-index 0; the key S‖00 is
    present, and claimed absent by the end (3, EMPTY) with siblings [A's stem node, S ‖ 0x00,
    N2], N2 the left child of root_S. The one touched child of the node at depth 2 is that
    EMPTY end, so its sibling N2 must be anchored, and no anchor rebuilds a stem subtree's
    node."""
    a, s = b"\x00" + b"\x11" * 30, b"\xe0" + b"\x11" * 30
    va, vs = b"\xa1" * 32, b"\x5e" * 32
    entries = {a + b"\x00": va, s + b"\x00": vs}
    root = eip7864_root(entries, sha256)
    levels = subtree_levels({0: vs})
    a_node = eip7864_stem_hash(sha256, a, subtree_levels({0: va})[0][0])
    n2 = levels[1][0]
    # Every hash of the forged walk is a real one: the forgery is real without anchors.
    walked = hash64(a_node + hash64(s + b"\x00" + hash64(n2 + ZERO32)))
    check("stem node forgery: its hashes rebuild the root", (levels[1][1], walked), (ZERO32, root))
    key = s + b"\x00"
    honest = check_honest("stem node forgery: the honest proof of S‖00", entries, reads=[key])
    check("stem node forgery: S‖00 is PRESENT at depth 1", honest["ends"], [(1, PRESENT)])

    def forged(anchors, slots):
        return eip7864_witness([key], [0], [(3, EMPTY)], [], [], slots, anchors)

    check("stem node forgery: no anchor", rule_of(forged([], [a_node, s + b"\x00", n2]), "eip7864",
                                                  "sha256", root), "bw.count.anchors")
    # Anchors an attacker can build: S's own stem node at the EMPTY end's depth, stem A, stem
    # S below the sibling, and a stem on the sibling's side (110…) opened from S's leaf.
    opening = [levels[l + 1][1] for l in range(7, -1, -1)]
    opening = [None if x == ZERO32 else x for x in opening]
    c = b"\xc0" + b"\x11" * 30
    attempts = [
        ("S at depth 3", [(3, s, 0, vs)], [a_node, s + b"\x00"] + opening, "bw.anchor.depth"),
        ("S at depth 4", [(4, s, 0, vs)], [a_node, s + b"\x00"] + opening + [None], "bw.anchor.prefix"),
        ("stem A", [(5, a, 0, va)], [a_node, s + b"\x00"] + opening + [None, None], "bw.anchor.prefix"),
        ("a stem 110… opened from S's leaf", [(4, c, 0, vs)], [a_node, s + b"\x00"] + opening + [None],
         "bw.root"),
        ("a stem 110… with N2 as its right side", [(4, c, 0, vs)], [a_node, s + b"\x00"] + opening + [n2],
         "bw.root"),
    ]
    for name, anchors, slots, rule in attempts:
        check(f"stem node forgery: anchor {name}", rule_of(forged(anchors, slots), "eip7864", "sha256", root),
              rule)


def anchored_tree():
    """R0 = 00 11…, R1 = 20 11… (the left of the root, parting at bit 2), P = e0 11…, Q = e8 11…
    (the right, parting at bit 4). The node at depth 1 on the left has an empty right child
    (prefix 01), the one on the right an empty left child (prefix 10)."""
    r0, r1 = b"\x00" + b"\x11" * 30, b"\x20" + b"\x11" * 30
    p, q = b"\xe0" + b"\x11" * 30, b"\xe8" + b"\x11" * 30
    entries = {r0 + b"\x00": b"\x01" * 32, r0 + b"\x40": b"\x02" * 32, r1 + b"\x07": b"\x03" * 32,
               p + b"\x03": b"\x04" * 32, p + b"\x90": b"\x05" * 32, q + b"\x00": b"\x06" * 32}
    return entries, r0, r1, p, q


def anchored_witnesses():
    """Honest witnesses that need an anchor verify, and a sibling that a touched path walks
    into needs none."""
    entries, r0, r1, p, q = anchored_tree()
    k1 = b"\x40" + b"\x33" * 30 + b"\x01"     # 01…: EMPTY at depth 2 right, beside R0 and R1
    k2 = b"\x80" + b"\x33" * 30 + b"\x09"     # 10…: EMPTY at depth 2 left, beside P and Q
    parts = check_honest("an EMPTY end beside two stems on its left", entries, reads=[k1])
    check("its anchor: R0 at depth 3, its first leaf", (parts["ends"], parts["anchors"]),
          ([(2, EMPTY)], [(3, r0, 0, b"\x01" * 32)]))
    parts = check_honest("an EMPTY end beside two stems on its right", entries, writes={k2: b"\x77" * 32})
    check("its anchor: P at depth 5, its first leaf 03, the descent going right at bit 2",
          (parts["ends"], parts["anchors"]), ([(2, EMPTY)], [(5, p, 3, b"\x04" * 32)]))
    both = check_honest("two anchors", entries, reads=[k1], writes={k2: b"\x77" * 32})
    check("two anchors, left to right", [x[1] for x in both["anchors"]], [r0, p])
    walked = check_honest("a second key walks into the sibling", entries, reads=[k2, q + b"\x00"])
    check("a walked sibling has no anchor", (walked["ends"], walked["anchors"]),
          ([(2, EMPTY), (5, PRESENT)], []))
    # c0…: 110, EMPTY at depth 3 inside the sibling of k2's end (11); its own sibling (111) is
    # anchored by P, the walked one is not.
    walked = check_honest("a second key ends EMPTY inside the sibling", entries,
                          reads=[k2, b"\xc0" + b"\x33" * 30 + b"\x00"])
    check("its own EMPTY end is anchored, not the walked sibling",
          (walked["ends"], [x[:2] for x in walked["anchors"]]),
          ([(2, EMPTY), (3, EMPTY)], [(5, p)]))


def zero_stem_tree():
    """§4.1: a tree holding the zero stem (depth 1, beside the stem 80 22… at depth 1) is proven
    like any other: a set of the key 0^30‖01‖05 beside it ends DIVERGENT at the zero stem; the
    forgery that reads the zero stem's node as an internal node with an empty left child and
    ends EMPTY below it needs an anchor of root_Z, and none exists."""
    z, b = bytes(31), b"\x80" + b"\x22" * 30
    vz, vb, new = b"\x21" * 32, b"\x22" * 32, b"\x23" * 32
    entries = {z + b"\x00": vz, z + b"\x07": vz, b + b"\x00": vb}
    root = eip7864_root(entries, sha256)
    key = bytes(30) + b"\x01\x05"
    parts = check_honest("zero stem: a set beside it", entries, writes={key: new})
    check("zero stem: the set ends at it, an other record", (parts["ends"], [x[0] for x in parts["others"]]),
          ([(1, DIVERGENT)], [z]))
    root_z = subtree_levels({0: vz, 7: vz})[0][0]
    b_node = eip7864_stem_hash(sha256, b, subtree_levels({0: vb})[0][0])
    check("zero stem: its node is an internal node with an empty left child",
          hash64(hash64(ZERO32 + root_z) + b_node), root)

    def forged(anchors, slots):
        return eip7864_witness([key], [SET], [(2, EMPTY)], [new], [], slots, anchors)

    check("zero stem: EMPTY below its node without an anchor",
          rule_of(forged([], [root_z, b_node]), "eip7864", "sha256", root), "bw.count.anchors")
    opening = [None] * 8
    check("zero stem: an anchor at the EMPTY end's depth",
          rule_of(forged([(2, b"\x40" + bytes(30), 0, vz)], opening + [b_node]), "eip7864", "sha256", root),
          "bw.anchor.depth")
    check("zero stem: an anchor of the zero stem",
          rule_of(forged([(3, z, 0, vz)], opening + [None, b_node]), "eip7864", "sha256", root),
          "bw.anchor.prefix")
    check("zero stem: an anchor of a stem 01…",
          rule_of(forged([(3, b"\x40" + bytes(30), 0, vz)], opening + [None, b_node]), "eip7864", "sha256",
                  root), "bw.root")


def anchor_rules():
    """Each anchor rule fires on an edited honest witness, and the header's anchor_count."""
    entries, r0, r1, p, q = anchored_tree()
    k2 = b"\x80" + b"\x33" * 30 + b"\x09"
    parts = prove_eip7864(entries, reads=[k2])
    pre = eip7864_root(entries, sha256)
    (k, x, i, v), = parts["anchors"]

    def rule(name, want, **edits):
        check(f"anchor rules: {name}", rule_of(encode(parts, **edits), "eip7864", "sha256", pre), want)

    rule("the honest witness", "verified")
    rule("depth at the EMPTY end's (k = e)", "bw.anchor.depth", anchors=[(2, x, i, v)])
    rule("depth above it", "bw.anchor.depth", anchors=[(1, x, i, v)])
    rule("depth 249", "bw.anchor.depth", anchors=[(249, x, i, v)])
    # Slots: the root's left child, the anchor's opening (one per 0 bit of i), its descent.
    opened = 1 + sum(1 for level in range(8) if not (i >> (7 - level)) & 1)

    def descent(x, k):
        return [None] * sum(1 for level in range(2, k) if not bit(x, level))

    check("anchor rules: the slots are the root's left child, the opening and the descent",
          len(parts["slots"]), opened + len(descent(x, k)))
    rule("depth one more", "bw.count.siblings", anchors=[(k + 1, x, i, v)])
    rule("depth one more, with its descent's slots", "bw.root", anchors=[(k + 1, x, i, v)],
         slots=parts["slots"][:opened] + descent(x, k + 1))
    rule("depth 248, with its descent's slots", "bw.root", anchors=[(248, x, i, v)],
         slots=parts["slots"][:opened] + descent(x, 248))

    def flip(stem, n):
        out = bytearray(stem)
        out[n // 8] ^= 0x80 >> (n % 8)
        return bytes(out)

    rule("stem on the touched side (bit e−1)", "bw.anchor.prefix", anchors=[(k, flip(x, 1), i, v)])
    rule("stem off the path above (bit 0)", "bw.anchor.prefix", anchors=[(k, flip(x, 0), i, v)])
    rule("stem below the sibling, not the first (bit e)", "bw.root", anchors=[(k, flip(x, 2), i, v)],
         slots=parts["slots"][:opened] + descent(flip(x, 2), k))
    rule("a later leaf", "bw.root", anchors=[(k, x, 0x90, b"\x05" * 32)])
    rule("a missing anchor", "bw.count.anchors", anchors=[])
    rule("a missing anchor and its slots", "bw.count.anchors", anchors=[], slots=parts["slots"][:1])
    rule("an extra anchor", "bw.count.anchors", anchors=[(k, x, i, v)] * 2)
    rule("an extra anchor and an extra other record", "bw.count.others", anchors=[(k, x, i, v)] * 2,
         others=[(q, 0, b"\x06" * 32)])
    rule("an extra anchor and an extra slot", "bw.count.siblings", anchors=[(k, x, i, v)] * 2,
         slots=parts["slots"] + [None])
    rule("anchor_count over the limit", "bw.limit", anchor_count=MAX_OTHERS + 1)
    bad = bytearray(encode(parts))
    bad[15:19] = (len(parts["slots"]) + 1).to_bytes(4, "little")
    bad[19:23] = (MAX_OTHERS + 1).to_bytes(4, "little")
    check("anchor rules: the five counts are read before hash_count ≤ sibling_count",
          rule_of(bytes(bad), "eip7864", "sha256", pre), "bw.limit")
    bad[19:23] = (1).to_bytes(4, "little")
    check("anchor rules: hash_count above sibling_count", rule_of(bytes(bad), "eip7864", "sha256", pre),
          "bw.count.hashes")


def random_trees(trials=300):
    """The prover's witnesses over random trees verify (claims and both roots); some need
    anchors. Stems share prefixes (a first byte from a small set, a second of three, tails that
    part at bit 247), and some trees hold the zero stem."""
    rng = random.Random(7864)
    firsts = (0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0, 0x10, 0x30, 0xe8, 0xec)
    tails = (b"\x11" * 29, b"\x11" * 28 + b"\x10")

    def stem():
        return bytes([rng.choice(firsts), rng.choice((0x00, 0x80, 0x81))]) + rng.choice(tails)

    subs = (0, 1, 5, 64, 128, 200, 255)
    anchored = 0
    for t in range(trials):
        stems = {stem() for _ in range(rng.randrange(1, 12))}
        if rng.random() < 0.2:
            stems.add(bytes(31))
        entries = {}
        for s in stems:
            for i in rng.sample(subs, rng.randrange(1, 4)):
                entries[s + bytes([i])] = rng.randbytes(32)
        present = sorted(s + bytes([i]) for s in stems if s != bytes(31) for i in subs)
        touched = set(rng.sample(present, min(len(present), rng.randrange(0, 4))))
        touched |= {stem() + bytes([rng.choice(subs)]) for _ in range(rng.randrange(0, 5))}
        writes = {k: rng.choice((rng.randbytes(32), entries.get(k, rng.randbytes(32))))
                  for k in sorted(touched) if rng.random() < 0.5}
        parts = check_honest(f"random tree {t}", entries, reads=touched, writes=writes)
        anchored += len(parts["anchors"])
    check("random trees: anchors among them", anchored >= trials // 10, True)


def main():
    witnesses = full_hex_witnesses()
    check("full-hex witnesses in §6", len(witnesses), 3)
    if len(witnesses) == 3:
        eip7864(witnesses[0])
        eip7864_anchor(witnesses[1])
        eip8297(witnesses[2])
    eip7864_forgeries()
    stem_node_forgery()
    anchored_witnesses()
    zero_stem_tree()
    anchor_rules()
    random_trees()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
