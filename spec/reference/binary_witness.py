"""The binary witness of spec/BINARY.md: decoding (§2, §3) and, for EIP-7864, verification
against a pre-state root (§4) and the post-state root from the witness alone (§5).

    verify(data, tree, hash_name, pre_root) -> Verified    # raises Invalid(rule)

`tree` is "eip7864" or "eip8297", `hash_name` "sha256" or "blake3": a verifier is built for
one tree and one hash (§2).
"""

from binary_tree import HASHES, ZERO32, bit

VERSION = 1
TREES = {"eip7864": 1, "eip8297": 2}
HASH_IDS = {"sha256": 1, "blake3": 2}
MAX_KEYS = 1 << 18
MAX_OTHERS = MAX_KEYS
MAX_SIBLINGS = 256 * MAX_KEYS
MAX_HASHES = MAX_SIBLINGS
MAX_DEPTH = 248
HEADER = 19
PRE, SET, DELETE = 0x01, 0x02, 0x04
EMPTY, PRESENT, DIVERGENT = 0, 1, 2


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
    `bw.length.truncated`, a count above its limit `bw.limit` before anything else is read."""
    if r.take(1, "header")[0] != VERSION:
        raise Invalid("bw.version", str(r.data[0]))
    if r.take(1, "header")[0] != TREES[tree]:
        raise Invalid("bw.tree", str(r.data[1]))
    if r.take(1, "header")[0] != HASH_IDS[hash_name]:
        raise Invalid("bw.hash", str(r.data[2]))
    counts = []
    for name, limit in (("key_count", MAX_KEYS), ("other_count", MAX_OTHERS),
                        ("sibling_count", MAX_SIBLINGS), ("hash_count", MAX_HASHES)):
        value = u32(r.take(4, "header"))
        if value > limit:
            raise Invalid("bw.limit", f"{name} {value} > {limit}")
        counts.append(value)
    if counts[3] > counts[2]:
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
    raise Invalid("bw.tree", f"no verifier for {tree}")


# EIP-7864 (§3, §4, §5) -----------------------------------------------------------------------

def verify_eip7864(data, hash_name, pre_root):
    h = HASHES[hash_name]
    r = Reader(data)
    key_count, other_count, sibling_count, hash_count = decode_header(r, "eip7864", hash_name)
    section = r.take(32 * key_count, "keys")
    keys = [section[32 * i:32 * i + 32] for i in range(key_count)]
    for i in range(1, key_count):
        if keys[i - 1] >= keys[i]:
            raise Invalid("bw.keys.order", f"key {i}")
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
    section = r.take(63 * other_count, "others")
    others = [(section[63 * i:63 * i + 31], section[63 * i + 31:63 * i + 63]) for i in range(other_count)]
    bits, hashes = decode_siblings(r, sibling_count, hash_count)
    if r.pos != len(data):
        raise Invalid("bw.length.trailing", f"{len(data) - r.pos} bytes after the hashes")

    sib = Siblings(bits, hashes)
    other_at = [0]

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
            x, root_x = others[other_at[0]]
            other_at[0] += 1
            if any(bit(x, i) != bit(stems[a], i) for i in range(d)):
                raise Invalid("bw.other.prefix", f"other stem at depth {d}")
            if any(x == stems[s] for s in range(a, b)):
                raise Invalid("bw.other.touched", f"other stem at depth {d}")
            if root_x == ZERO32:
                raise Invalid("bw.other.empty", f"other stem at depth {d}")
            existing = (x, stem_hash(x, root_x))
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

    def node(d, a, b):
        if ends[a][0] < d:
            raise Invalid("bw.end.depth", f"stem {a}: depth {ends[a][0]} above node at {d}")
        if ends[a][0] == d:
            return end_node(d, a, b)
        if d == MAX_DEPTH:
            raise Invalid("bw.end.depth", f"stem {a}: depth {ends[a][0]}")
        m = next((s for s in range(a, b) if bit(stems[s], d) == 1), b)
        if m > a:
            left = node(d + 1, a, m)
        else:
            z = sib.take()
            left = (z, z)
        if b > m:
            right = node(d + 1, m, b)
        else:
            z = sib.take()
            right = (z, z)
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
    if root[0] != pre_root:
        raise Invalid("bw.root", f"recomputed {root[0].hex()}, expected {pre_root.hex()}")
    return Verified(keys, pre, new, root[0], root[1])
