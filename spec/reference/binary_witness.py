"""The binary witness of spec/BINARY.md: decoding (§2, §3, §7), verification against a
pre-state root and the post-state root from the witness alone, for EIP-7864 (§4, §5) and
EIP-8297 (§8).

    verify(data, tree, hash_name, pre_root) -> Verified    # raises Invalid(rule)

`tree` is "eip7864" or "eip8297", `hash_name` "sha256" or "blake3": a verifier is built for
one tree and one hash (§2).
"""

import sys

from binary_tree import HASHES, ZERO32, bit, eip8297_branch_hash, eip8297_leaf_hash, pack_bits

VERSION = 3
TREES = {"eip7864": 1, "eip8297": 2}
HASH_IDS = {"sha256": 1, "blake3": 2}
MAX_KEYS = 1 << 18
MAX_OTHERS = MAX_KEYS
MAX_SIBLINGS = 256 * MAX_KEYS
MAX_HASHES = MAX_SIBLINGS
MAX_DEPTH = 248
HEADER = 23
MAX_WITNESS_KEY_LENGTH = 66
MAX_BRANCHES = 8 * MAX_WITNESS_KEY_LENGTH
PRE, SET, DELETE = 0x01, 0x02, 0x04
EMPTY, PRESENT, DIVERGENT = 0, 1, 2
AT_LEAF, AT_BRANCH = 2, 3
OTHER_LEAF, OTHER_BRANCH = 0x00, 0x01


class Invalid(Exception):
    """A rejected witness; `rule` is the §9 name."""

    def __init__(self, rule, detail=""):
        super().__init__(f"{rule}: {detail}" if detail else rule)
        self.rule = rule


class Verified:
    """What a verified witness proves: per key, its pre-value (None: absent) and write
    (None: unchanged, bytes: set, "delete"), and both roots."""

    def __init__(self, keys, pre_values, writes, pre_root, post_root):
        self.keys, self.pre_values, self.writes = keys, pre_values, writes
        self.pre_root, self.post_root = pre_root, post_root


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n, section):
        if n > len(self.data) - self.pos:
            raise Invalid("bw.length.truncated",
                          f"{section} at {self.pos}: {n} bytes needed, {len(self.data) - self.pos} available")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out


def u32(b):
    return int.from_bytes(b, "little")


def decode_header(r, tree, hash_name):
    """The header's fields, each read and checked in order (§2): a field past the end is
    `bw.length.truncated`, a count above its limit `bw.limit` before anything else is read.
    EIP-7864 adds `anchor_count`, EIP-8297 `branch_count` (both at offset 19); the hash count
    is compared with the sibling count once every count is read."""
    if r.take(1, "header")[0] != VERSION:
        raise Invalid("bw.version", str(r.data[0]))
    if r.take(1, "header")[0] != TREES[tree]:
        raise Invalid("bw.tree", str(r.data[1]))
    if r.take(1, "header")[0] != HASH_IDS[hash_name]:
        raise Invalid("bw.hash", str(r.data[2]))
    counts = []
    fields = [("key_count", MAX_KEYS), ("other_count", MAX_OTHERS),
              ("sibling_count", MAX_SIBLINGS), ("hash_count", MAX_HASHES)]
    if tree == "eip7864":
        fields.append(("anchor_count", MAX_OTHERS))
    else:
        fields.append(("branch_count", MAX_SIBLINGS))
    for name, limit in fields:
        value = u32(r.take(4, "header"))
        if value > limit:
            raise Invalid("bw.limit", f"{name} {value} > {limit}")
        counts.append(value)
    if tree == "eip8297":
        if counts[3] != counts[2]:
            raise Invalid("bw.count.hashes", f"hash_count {counts[3]} != sibling_count {counts[2]}")
    elif counts[3] > counts[2]:
        raise Invalid("bw.count.hashes", f"hash_count {counts[3]} > sibling_count {counts[2]}")
    return counts


def check_flags(flags, tree):
    for i, f in enumerate(flags):
        bad = f & ~(PRE | SET | DELETE)
        if f & DELETE and (tree == "eip7864" or not f & PRE or f & SET):
            bad = True
        if bad:
            raise Invalid("bw.keys.flags", f"key {i}: 0x{f:02x}")


def decode_values(r, flags):
    """(pre-values, new values) per key, None where the flag is not set; and no no-op set."""
    count = sum((f & PRE != 0) + (f & SET != 0) for f in flags)
    section = r.take(32 * count, "values")
    pre, new, at = [], [], 0
    for f in flags:
        p = n = None
        if f & PRE:
            p, at = section[at:at + 32], at + 32
        if f & SET:
            n, at = section[at:at + 32], at + 32
        pre.append(p)
        new.append(n)
    for i, (p, n) in enumerate(zip(pre, new)):
        if p is not None and n is not None and p == n:
            raise Invalid("bw.keys.noop", f"key {i}")
    return pre, new


def decode_siblings(r, sibling_count, hash_count):
    bitmap = r.take((sibling_count + 7) // 8, "bitmap")
    bits = [(bitmap[j // 8] >> (7 - j % 8)) & 1 for j in range(sibling_count)]
    for j in range(sibling_count, 8 * len(bitmap)):
        if (bitmap[j // 8] >> (7 - j % 8)) & 1:
            raise Invalid("bw.bitmap.padding", f"bit {j}")
    if sum(bits) != hash_count:
        raise Invalid("bw.count.hashes", f"{sum(bits)} bits set, hash_count {hash_count}")
    section = r.take(32 * hash_count, "hashes")
    hashes = [section[32 * i:32 * i + 32] for i in range(hash_count)]
    for i, h in enumerate(hashes):
        if h == ZERO32:
            raise Invalid("bw.hash.zero", f"hash {i}")
    return bits, hashes


class Siblings:
    """The sibling slots, consumed in walk order (§2.3)."""

    def __init__(self, bits, hashes):
        self.bits, self.hashes, self.slot, self.next_hash = bits, hashes, 0, 0

    def take(self):
        if self.slot >= len(self.bits):
            raise Invalid("bw.count.siblings", "the walk needs more slots than sibling_count")
        b = self.bits[self.slot]
        self.slot += 1
        if not b:
            return ZERO32
        h = self.hashes[self.next_hash]
        self.next_hash += 1
        return h

    def finish(self):
        if self.slot != len(self.bits):
            raise Invalid("bw.count.siblings", f"{self.slot} slots used of {len(self.bits)}")


def verify(data, tree, hash_name, pre_root):
    if tree == "eip7864":
        return verify_eip7864(data, hash_name, pre_root)
    if tree == "eip8297":
        return verify_eip8297(data, hash_name, pre_root)
    raise Invalid("bw.tree", f"no verifier for {tree}")


# EIP-7864 (§3, §4, §5) -----------------------------------------------------------------------

def verify_eip7864(data, hash_name, pre_root):
    h = HASHES[hash_name]
    r = Reader(data)
    key_count, other_count, sibling_count, hash_count, anchor_count = decode_header(r, "eip7864", hash_name)
    section = r.take(32 * key_count, "keys")
    keys = [section[32 * i:32 * i + 32] for i in range(key_count)]
    for i in range(1, key_count):
        if keys[i - 1] >= keys[i]:
            raise Invalid("bw.keys.order", f"key {i}")
    for i, k in enumerate(keys):
        if k[:31] == bytes(31):
            raise Invalid("bw.keys.zero_stem", f"key {i}")
    flags = list(r.take(key_count, "flags"))
    check_flags(flags, "eip7864")
    stems, first_key = [], []
    for i, k in enumerate(keys):
        if not stems or stems[-1] != k[:31]:
            stems.append(k[:31])
            first_key.append(i)
    first_key.append(key_count)
    section = r.take(2 * len(stems), "ends")
    ends = [(section[2 * s], section[2 * s + 1]) for s in range(len(stems))]
    for s, (depth, kind) in enumerate(ends):
        if depth > MAX_DEPTH:
            raise Invalid("bw.end.depth", f"stem {s}: depth {depth}")
        if kind > DIVERGENT:
            raise Invalid("bw.end.kind", f"stem {s}: kind {kind}")
    pre, new = decode_values(r, flags)
    section = r.take(64 * other_count, "others")
    # (stem, sub-index of its first present leaf, that leaf's value)
    others = [(section[64 * i:64 * i + 31], section[64 * i + 31], section[64 * i + 32:64 * i + 64])
              for i in range(other_count)]
    section = r.take(65 * anchor_count, "anchors")
    # (depth of the anchored stem node, its stem, its first present leaf's sub-index and value)
    anchors = [(section[65 * i], section[65 * i + 1:65 * i + 32], section[65 * i + 32],
                section[65 * i + 33:65 * i + 65]) for i in range(anchor_count)]
    for i, (depth, _, _, _) in enumerate(anchors):
        if depth > MAX_DEPTH:
            raise Invalid("bw.anchor.depth", f"anchor {i}: depth {depth}")
    bits, hashes = decode_siblings(r, sibling_count, hash_count)
    if r.pos != len(data):
        raise Invalid("bw.length.trailing", f"{len(data) - r.pos} bytes after the hashes")

    sib = Siblings(bits, hashes)
    other_at = [0]
    anchor_at = [0]

    def hash64(x):
        return ZERO32 if x == bytes(64) else h(x)

    def subtree(s, present):
        """(pre, post) of stem s's 256-leaf subtree over its keys."""
        lo, hi = first_key[s], first_key[s + 1]

        def walk(level, a, b):
            # keys a..b share sub-index bits 0..level-1
            if level == 8:
                p = h(pre[a]) if pre[a] is not None else ZERO32
                q = h(new[a]) if new[a] is not None else p
                return p, q
            m = next((i for i in range(a, b) if (keys[i][31] >> (7 - level)) & 1), b)
            side = []
            for x, y in ((a, m), (m, b)):
                if y > x:
                    side.append(walk(level + 1, x, y))
                else:
                    z = sib.take() if present else ZERO32
                    side.append((z, z))
            (lp, lq), (rp, rq) = side
            return hash64(lp + rp), hash64(lq + rq)

        return walk(0, lo, hi)

    def open_leaf(index, value):
        """Subtree root of a stem whose first present leaf is `index` (§4 open): left sides
        ZERO, right sides sibling slots, read after the left side."""

        def walk(level):
            if level == 8:
                return h(value)
            if (index >> (7 - level)) & 1:
                return hash64(ZERO32 + walk(level + 1))
            left = walk(level + 1)
            return hash64(left + sib.take())

        return walk(0)

    def stem_hash(stem, root):
        return hash64(stem + b"\x00" + root)

    def build(d, items):
        if not items:
            return ZERO32
        if len(items) == 1:
            return items[0][1]
        left = [it for it in items if bit(it[0], d) == 0]
        right = [it for it in items if bit(it[0], d) == 1]
        return hash64(build(d + 1, left) + build(d + 1, right))

    def end_node(d, a, b):
        for s in range(a, b):
            if ends[s][0] != d:
                raise Invalid("bw.end.depth", f"stem {s}: depth {ends[s][0]}, node at {d}")
        kinds = [ends[s][1] for s in range(a, b)]
        present = kinds.count(PRESENT)
        if kinds.count(EMPTY) == len(kinds):
            existing = None
        elif present == 1 and kinds.count(DIVERGENT) == len(kinds) - 1:
            existing = "present"
        elif kinds.count(DIVERGENT) == len(kinds):
            if other_at[0] >= len(others):
                raise Invalid("bw.count.others", "the walk needs more other records than other_count")
            x, index, value = others[other_at[0]]
            other_at[0] += 1
            if any(bit(x, i) != bit(stems[a], i) for i in range(d)):
                raise Invalid("bw.other.prefix", f"other stem at depth {d}")
            if any(x == stems[s] for s in range(a, b)):
                raise Invalid("bw.other.touched", f"other stem at depth {d}")
            existing = (x, stem_hash(x, open_leaf(index, value)))
        else:
            raise Invalid("bw.end.group", f"stems {a}..{b} at depth {d}: kinds {kinds}")
        pre_hash = ZERO32 if existing is None else None
        if isinstance(existing, tuple):
            pre_hash = existing[1]
        items = [existing] if isinstance(existing, tuple) else []
        for s in range(a, b):
            if ends[s][1] == PRESENT:
                p, q = subtree(s, True)
                if p == ZERO32:
                    raise Invalid("bw.other.empty", f"stem {s}")
                pre_hash = stem_hash(stems[s], p)
                items.append((stems[s], stem_hash(stems[s], q)))
            else:
                for i in range(first_key[s], first_key[s + 1]):
                    if pre[i] is not None:
                        raise Invalid("bw.end.absent_value", f"key {i}")
                _, q = subtree(s, False)
                if any(new[i] is not None for i in range(first_key[s], first_key[s + 1])):
                    items.append((stems[s], stem_hash(stems[s], q)))
        items.sort()
        return pre_hash, build(d, items)

    def anchor(e, a):
        """The untouched child at depth e beside an EMPTY end (§4 anchor): its position is bits
        0..e-2 of stems[a] and the complement of bit e-1. Rebuilt from the next anchor record:
        the stem node at depth k of the first stem below it, opened as an other record, then
        the leftmost descent up to depth e."""
        if anchor_at[0] >= len(anchors):
            raise Invalid("bw.count.anchors",
                          f"anchor {anchor_at[0]}: the walk needs more anchors than anchor_count")
        index = anchor_at[0]
        k, x, sub_index, value = anchors[index]
        anchor_at[0] += 1
        if k <= e:
            raise Invalid("bw.anchor.depth", f"anchor {index}: depth {k}, sibling at {e}")
        if any(bit(x, i) != bit(stems[a], i) for i in range(e - 1)) or bit(x, e - 1) == bit(stems[a], e - 1):
            raise Invalid("bw.anchor.prefix", f"anchor {index}: not below the sibling at depth {e}")
        p = stem_hash(x, open_leaf(sub_index, value))
        for level in range(k - 1, e - 1, -1):
            if bit(x, level):
                p = hash64(ZERO32 + p)
            else:
                p = hash64(p + sib.take())
        return p, p

    def node(d, a, b):
        if ends[a][0] < d:
            raise Invalid("bw.end.depth", f"stem {a}: depth {ends[a][0]} above node at {d}")
        if ends[a][0] == d:
            return end_node(d, a, b)
        if d == MAX_DEPTH:
            raise Invalid("bw.end.depth", f"stem {a}: depth {ends[a][0]}")
        m = next((s for s in range(a, b) if bit(stems[s], d) == 1), b)
        # The one touched child is an EMPTY end: the other child is anchored, not a slot.
        gap = (m == a or m == b) and ends[a] == (d + 1, EMPTY)

        def untouched():
            if gap:
                return anchor(d + 1, a)
            z = sib.take()
            return z, z

        left = node(d + 1, a, m) if m > a else untouched()
        right = node(d + 1, m, b) if b > m else untouched()
        p = hash64(left[0] + right[0])
        if p == ZERO32:
            raise Invalid("bw.path.empty_internal", f"depth {d}")
        return p, hash64(left[1] + right[1])

    if key_count == 0:
        z = sib.take()
        root = (z, z)
    else:
        root = node(0, 0, len(stems))
    sib.finish()
    if other_at[0] != len(others):
        raise Invalid("bw.count.others", f"{other_at[0]} other records used of {len(others)}")
    if anchor_at[0] != len(anchors):
        raise Invalid("bw.count.anchors", f"{anchor_at[0]} anchors used of {len(anchors)}")
    if root[0] != pre_root:
        raise Invalid("bw.root", f"recomputed {root[0].hex()}, expected {pre_root.hex()}")
    return Verified(keys, pre, new, root[0], root[1])


# EIP-8297 (§7, §8) ---------------------------------------------------------------------------
#
# Post nodes (§8): ("empty",), ("opaque", hash), ("leaf", key, hash),
# ("branch", prefix, left hash, right hash) with `prefix` a tuple of bits relative to the
# node's start bit.

EMPTY_NODE = ("empty",)


def key_bits(key, start, end):
    return tuple(bit(key, i) for i in range(start, end))


def packed(bits):
    """A tuple of bits packed MSB first, zero-padded to a byte (encode_bit_prefix's body)."""
    out = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        out[i // 8] |= b << (7 - i % 8)
    return bytes(out)


def decode_eip8297_other(r):
    """One other record (§7): tag, length field, the whole record, padding, children."""
    at = r.pos
    tag = r.take(1, "others")[0]
    if tag == OTHER_LEAF:
        length = r.take(1, "others")[0]
        if not 1 <= length <= MAX_WITNESS_KEY_LENGTH:
            raise Invalid("bw.keys.length", f"other record at {at}: key length {length}")
        body = r.take(length + 32, "others")
        return ("leaf", body[:length], body[length:])
    if tag == OTHER_BRANCH:
        length = int.from_bytes(r.take(2, "others"), "big")
        if length > MAX_BRANCHES:
            raise Invalid("bw.branch.prefix", f"other record at {at}: prefix length {length}")
        body = r.take((length + 7) // 8 + 64, "others")
        packed = body[:(length + 7) // 8]
        if any(bit(packed, i) for i in range(length, 8 * len(packed))):
            raise Invalid("bw.branch.prefix", f"other record at {at}: padding bits")
        left, right = body[-64:-32], body[-32:]
        if left == ZERO32 or right == ZERO32:
            raise Invalid("bw.hash.zero", f"other record at {at}: empty child")
        return ("branch", key_bits(packed, 0, length), left, right, r.data[at:r.pos])
    raise Invalid("bw.end.kind", f"other record at {at}: tag {tag}")


def verify_eip8297(data, hash_name, pre_root):
    h = HASHES[hash_name]
    r = Reader(data)
    key_count, other_count, _, hash_count, branch_count = decode_header(r, "eip8297", hash_name)
    lengths = list(r.take(key_count, "key_lengths"))
    for i, n in enumerate(lengths):
        if not 1 <= n <= MAX_WITNESS_KEY_LENGTH:
            raise Invalid("bw.keys.length", f"key {i}: {n} bytes")
    section = r.take(sum(lengths), "keys")
    keys, at = [], 0
    for n in lengths:
        keys.append(section[at:at + n])
        at += n
    for i in range(1, key_count):
        if keys[i - 1] >= keys[i]:
            raise Invalid("bw.keys.order", f"key {i}")
        if keys[i].startswith(keys[i - 1]):
            raise Invalid("bw.keys.prefix", f"key {i - 1} is a prefix of key {i}")
    flags = list(r.take(key_count, "flags"))
    check_flags(flags, "eip8297")
    section = r.take(3 * key_count, "ends")
    depth = [int.from_bytes(section[3 * i:3 * i + 2], "big") for i in range(key_count)]
    kind = [section[3 * i + 2] for i in range(key_count)]
    for i in range(key_count):
        if depth[i] > MAX_BRANCHES:
            raise Invalid("bw.end.depth", f"key {i}: depth {depth[i]}")
        if kind[i] > AT_BRANCH:
            raise Invalid("bw.end.kind", f"key {i}: kind {kind[i]}")
    pre, new = decode_values(r, flags)
    section = r.take(2 * branch_count, "branches")
    branches = [int.from_bytes(section[2 * i:2 * i + 2], "big") for i in range(branch_count)]
    for i, n in enumerate(branches):
        if n > MAX_BRANCHES:
            raise Invalid("bw.branch.prefix", f"branches entry {i}: prefix length {n}")
    others = [decode_eip8297_other(r) for _ in range(other_count)]
    section = r.take(32 * hash_count, "hashes")
    hashes = [section[32 * i:32 * i + 32] for i in range(hash_count)]
    for i, x in enumerate(hashes):
        if x == ZERO32:
            raise Invalid("bw.hash.zero", f"hash {i}")
    if r.pos != len(data):
        raise Invalid("bw.length.trailing", f"{len(data) - r.pos} bytes after the hashes")

    cursor = {"branch": 0, "other": 0, "hash": 0}

    def next_other():
        if cursor["other"] >= len(others):
            return None
        cursor["other"] += 1
        return others[cursor["other"] - 1]

    def next_hash():
        if cursor["hash"] >= len(hashes):
            raise Invalid("bw.count.siblings", "the walk needs more hashes than hash_count")
        cursor["hash"] += 1
        return hashes[cursor["hash"] - 1]

    def leaf_hash(k, v):
        return eip8297_leaf_hash(h, k, v)

    def branch_hash(prefix, left, right):
        return eip8297_branch_hash(h, len(prefix), packed(prefix), left, right)

    def node_hash(n):
        if n[0] == "empty":
            return ZERO32
        if n[0] in ("opaque", "leaf"):
            return n[-1]
        return branch_hash(n[1], n[2], n[3])

    def has_bit(item, s, i):
        """Whether a build item has absolute bit i (its start is s)."""
        if item[0] == "leaf":
            return i < 8 * len(item[1])
        return i < s + len(item[1])

    def item_bit(item, s, i):
        return bit(item[1], i) if item[0] == "leaf" else item[1][i - s]

    def build(s, items):
        """EIP-8297 binarization of leaves and branches that start at bit s (§8)."""
        if not items:
            return EMPTY_NODE
        if len(items) == 1:
            return items[0]
        i = s
        while True:
            if all(has_bit(x, s, i) for x in items) and len({item_bit(x, s, i) for x in items}) == 1:
                i += 1
                continue
            break
        split = i
        for x in items:
            if not has_bit(x, s, split):
                if x[0] == "leaf":
                    raise Invalid("bw.keys.prefix", f"a leaf ends at bit {split}")
                raise Invalid("bw.end.group", f"a branch prefix ends at bit {split}")
        first = items[0]
        prefix = tuple(item_bit(first, s, j) for j in range(s, split))

        def moved(x):
            if x[0] == "leaf":
                return x
            return ("branch", x[1][split + 1 - s:], x[2], x[3])

        sides = [[moved(x) for x in items if item_bit(x, s, split) == side] for side in (0, 1)]
        left = node_hash(build(split + 1, sides[0]))
        right = node_hash(build(split + 1, sides[1]))
        return ("branch", prefix, left, right)

    def new_leaves(indices):
        return [("leaf", keys[i], leaf_hash(keys[i], new[i])) for i in indices if new[i] is not None]

    def leaves(k, s, prefix):
        """Whether key k leaves `prefix` (bits from s): runs out at or before the split bit
        s + len(prefix), or differs at one of the prefix's bits."""
        if 8 * len(k) <= s + len(prefix):
            return True
        for j, b in enumerate(prefix):
            if s + j >= 8 * len(k) or bit(k, s + j) != b:
                return True
        return False

    def end_node(s, a, b):
        ks = kind[a:b]
        present = None
        if all(x == EMPTY for x in ks) and s == 0:
            pre_hash, existing = ZERO32, EMPTY_NODE
        elif ks.count(PRESENT) == 1 and ks.count(AT_LEAF) == len(ks) - 1:
            present = a + ks.index(PRESENT)
            if pre[present] is None:
                raise Invalid("bw.end.present_absent", f"key {present}")
            pre_hash = leaf_hash(keys[present], pre[present])
            if flags[present] & DELETE:
                existing = EMPTY_NODE
            elif new[present] is not None:
                existing = ("leaf", keys[present], leaf_hash(keys[present], new[present]))
            else:
                existing = ("leaf", keys[present], pre_hash)
        elif all(x == AT_LEAF for x in ks):
            rec = next_other()
            if rec is None:
                raise Invalid("bw.count.others", "the walk needs more other records than other_count")
            if rec[0] != "leaf":
                raise Invalid("bw.end.group", f"keys {a}..{b}: a branch record where a leaf ends the paths")
            _, x, v = rec
            if 8 * len(x) < s or any(bit(x, i) != bit(keys[a], i) for i in range(s)):
                raise Invalid("bw.other.prefix", f"other leaf at bit {s}")
            if any(x == keys[i] for i in range(a, b)):
                raise Invalid("bw.other.touched", f"other leaf at bit {s}")
            pre_hash = leaf_hash(x, v)
            existing = ("leaf", x, pre_hash)
        elif all(x == AT_BRANCH for x in ks):
            rec = next_other()
            if rec is None:
                raise Invalid("bw.count.others", "the walk needs more other records than other_count")
            if rec[0] != "branch":
                raise Invalid("bw.end.group", f"keys {a}..{b}: a leaf record where a branch ends the paths")
            _, q, left, right, record = rec
            for i in range(a, b):
                if not leaves(keys[i], s, q):
                    raise Invalid("bw.end.group", f"key {i} follows the other branch's prefix")
            pre_hash = h(record)
            existing = ("branch", q, left, right)
        else:
            raise Invalid("bw.end.group", f"keys {a}..{b} at bit {s}: kinds {ks}")
        for i in range(a, b):
            if i != present and pre[i] is not None:
                raise Invalid("bw.end.absent_value", f"key {i}")
        # The PRESENT key's own write is in `existing`; the others' sets are new leaves.
        items = ([] if existing == EMPTY_NODE else [existing]) + new_leaves(i for i in range(a, b) if i != present)
        return pre_hash, build(s, items)

    def node(s, c, a, b):
        for i in range(a, b):
            if depth[i] < c:
                raise Invalid("bw.end.depth", f"key {i}: depth {depth[i]} above branch {c}")
        passing = [i for i in range(a, b) if depth[i] > c]
        if not passing:
            return end_node(s, a, b)
        m0, m1 = passing[0], passing[-1] + 1
        if m1 - m0 != len(passing):
            raise Invalid("bw.end.group", f"keys {a}..{b}: passing keys not contiguous")
        if cursor["branch"] >= len(branches):
            raise Invalid("bw.end.depth", "the walk needs more branches entries than branch_count")
        split = s + branches[cursor["branch"]]
        cursor["branch"] += 1
        for i in passing:
            if 8 * len(keys[i]) <= split or any(bit(keys[i], j) != bit(keys[m0], j) for j in range(s, split)):
                raise Invalid("bw.branch.prefix", f"key {i} at the branch splitting at bit {split}")
        prefix = key_bits(keys[m0], s, split)
        ending = [i for i in range(a, b) if depth[i] == c]
        for i in ending:
            if kind[i] != AT_BRANCH or not leaves(keys[i], s, prefix):
                raise Invalid("bw.end.group", f"key {i} at the branch splitting at bit {split}")
            if pre[i] is not None:
                raise Invalid("bw.end.absent_value", f"key {i}")
        mid = next((i for i in passing if bit(keys[i], split) == 1), m1)
        sides = [None, None]
        if mid > m0:
            sides[0] = node(split + 1, c + 1, m0, mid)
        if m1 > mid:
            sides[1] = node(split + 1, c + 1, mid, m1)
        for side in (0, 1):
            if sides[side] is not None:
                continue
            other_post = sides[1 - side][1]
            if other_post == EMPTY_NODE:
                rec = next_other()
                if rec is None:
                    raise Invalid("bw.collapse", f"no survivor record at bit {split}")
                if rec[0] == "leaf":
                    _, x, v = rec
                    if (8 * len(x) <= split or any(bit(x, j) != bit(keys[m0], j) for j in range(split))
                            or bit(x, split) != side):
                        raise Invalid("bw.collapse", f"survivor leaf not beside bit {split}")
                    p = leaf_hash(x, v)
                    sides[side] = (p, ("leaf", x, p))
                else:
                    _, q, left, right, record = rec
                    sides[side] = (h(record), ("branch", q, left, right))
            else:
                x = next_hash()
                sides[side] = (x, ("opaque", x))
        (lp, lq), (rp, rq) = sides
        pre_hash = eip8297_branch_hash(h, split - s, pack_bits(keys[m0], s, split - s), lp, rp)
        if lq == EMPTY_NODE and rq == EMPTY_NODE:
            post = EMPTY_NODE
        elif lq == EMPTY_NODE or rq == EMPTY_NODE:
            side = 1 if lq == EMPTY_NODE else 0
            survivor = rq if side else lq
            if survivor[0] == "branch":
                post = ("branch", prefix + (side,) + survivor[1], survivor[2], survivor[3])
            else:
                post = survivor
        else:
            post = ("branch", prefix, node_hash(lq), node_hash(rq))
        ending_new = new_leaves(ending)
        if ending_new:
            post = build(s, ([] if post == EMPTY_NODE else [post]) + ending_new)
        return pre_hash, post

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * MAX_BRANCHES + 200))
    try:
        if key_count == 0:
            x = next_hash() if hashes else ZERO32
            root = (x, ("opaque", x))
        else:
            root = node(0, 0, 0, key_count)
    finally:
        sys.setrecursionlimit(limit)
    # §8 lists the three end checks without an order between them; they run as bintree runs
    # them: hashes, then branches entries, then other records.
    if cursor["hash"] != len(hashes):
        raise Invalid("bw.count.siblings", f"{cursor['hash']} hashes used of {len(hashes)}")
    if cursor["branch"] != len(branches):
        raise Invalid("bw.end.depth", f"{cursor['branch']} branches entries used of {len(branches)}")
    if cursor["other"] != len(others):
        raise Invalid("bw.count.others", f"{cursor['other']} other records used of {len(others)}")
    if root[0] != pre_root:
        raise Invalid("bw.root", f"recomputed {root[0].hex()}, expected {pre_root.hex()}")
    writes = ["delete" if f & DELETE else n for f, n in zip(flags, new)]
    return Verified(keys, pre, writes, root[0], node_hash(root[1]))
