"""FRACTIONAL.md §3-§5: decoding and verifying a fractional proof.

`verify_fractional(coordinator_root, proof_bytes)` returns (shards, keys, openings) or
raises `Invalid(rule)` with the vector rule id (`fractional.*`), checks in the order of
FRACTIONAL.md §5.
"""

import hashlib

import curve
import ipa
import multiproof
from field import le_int
from transcript import Transcript
from witness import ABSENT_EMPTY, PRESENT, Invalid, value_halves

VERSION = 1
TRANSCRIPT_LABEL = b"fverkle-fractional"
MIN_SHARD_LEN = 2 + 32 + 2
MIN_STEM_LEN = 31 + 1 + 2 + 2
MIN_DIFF_LEN = 2
MULTIPROOF_LEN = 576


class _Reader:
    def __init__(self, buf):
        self.buf, self.at = buf, 0

    def left(self):
        return len(self.buf) - self.at

    def take(self, n, what):
        if n > self.left():
            raise Invalid("fractional.truncated", f"{what} at byte {self.at}")
        out = self.buf[self.at : self.at + n]
        self.at += n
        return out

    def uint(self, n, what):
        return int.from_bytes(self.take(n, what), "big")

    def room(self, count, size, what):
        """A count times the smallest item must fit in the bytes left (before reading)."""
        if count * size > self.left():
            raise Invalid("fractional.truncated", f"{count} {what} cannot fit")


def _list(r, count, size, what):
    raw = r.take(count * size, what)
    return [raw[i : i + size] for i in range(0, len(raw), size)]


def decode(buf):
    """§4: (depth, entries [(index, commitment, [(stem, ext, [(suffix, value|None)])])],
    siblings, other_stems, commitments, multiproof)."""
    r = _Reader(buf)
    if r.uint(1, "version") != VERSION:
        raise Invalid("fractional.version")
    depth = r.uint(1, "shard depth")
    if depth not in (1, 2):
        raise Invalid("fractional.depth")
    count = r.uint(2, "shard count")
    if count == 0:
        raise Invalid("fractional.no_shards")
    r.room(count, MIN_SHARD_LEN + MIN_STEM_LEN, "shard entries")
    entries = []
    prev_index = prev_stem = None
    for _ in range(count):
        index = r.uint(2, "shard index")
        if depth == 1 and index > 0xFF:
            raise Invalid("fractional.shard_out_of_range")
        if prev_index is not None and index == prev_index:
            raise Invalid("fractional.duplicate_shard")
        if prev_index is not None and index < prev_index:
            raise Invalid("fractional.shards_ascending")
        prev_index = index
        commitment = r.take(32, "shard commitment")
        n = r.uint(2, "stem count")
        if n == 0:
            raise Invalid("fractional.empty_shard_entry")
        r.room(n, MIN_STEM_LEN, "stems")
        stems = []
        for _ in range(n):
            stem = r.take(31, "stem")
            if prev_stem is not None and stem <= prev_stem:
                raise Invalid("fractional.stems_ascending")
            prev_stem = stem
            ext = r.uint(1, "extension byte")
            m = r.uint(2, "suffix count")
            if m == 0:
                raise Invalid("fractional.empty_stem")
            r.room(m, MIN_DIFF_LEN, "suffix diffs")
            diffs = []
            prev_suffix = None
            for _ in range(m):
                suffix = r.uint(1, "suffix")
                if prev_suffix is not None and suffix <= prev_suffix:
                    raise Invalid("fractional.suffixes_ascending")
                prev_suffix = suffix
                presence = r.uint(1, "presence byte")
                if presence not in (0, 1):
                    raise Invalid("fractional.presence")
                diffs.append((suffix, r.take(32, "value") if presence else None))
            stems.append((stem, ext, diffs))
        entries.append((index, commitment, stems))
    siblings = _list(r, r.uint(2, "sibling count"), 32, "siblings")
    others = _list(r, r.uint(2, "other stem count"), 31, "other stems")
    comms = _list(r, r.uint(4, "commitment count"), 32, "commitments")
    mp = r.take(MULTIPROOF_LEN, "multiproof")
    if r.left():
        raise Invalid("fractional.trailing_bytes")
    for k in range(1, len(others)):
        if others[k] <= others[k - 1]:
            raise Invalid("fractional.other_stems_ascending")
    return depth, entries, siblings, others, comms, mp


def _leaf_hash(index, commitment):
    return hashlib.sha256(b"\x00" + index.to_bytes(2, "big") + commitment).digest()


def _node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def fold(height, leaves, siblings):
    """§3: the coordinator root from the leaves [(position, hash)] and the siblings."""
    level = list(leaves)
    used = 0
    for _ in range(height):
        nxt = []
        i = 0
        while i < len(level):
            pos, h = level[i]
            if pos % 2 == 0 and i + 1 < len(level) and level[i + 1][0] == pos + 1:
                parent = _node_hash(h, level[i + 1][1])
                i += 2
            else:
                if used >= len(siblings):
                    raise Invalid("fractional.siblings", "too few siblings")
                sib = siblings[used]
                used += 1
                i += 1
                parent = _node_hash(h, sib) if pos % 2 == 0 else _node_hash(sib, h)
            nxt.append((pos // 2, parent))
        level = nxt
    if used != len(siblings):
        raise Invalid("fractional.siblings", "siblings left over")
    return level[0][1]


class _Node:
    def __init__(self, kind, top=None):
        self.kind, self.top = kind, top
        self.children = set()
        self.stem = None
        self.present = False
        self.stem_ref = None  # suffix tree: (entry, stem position)
        self.commitment = self.point = None
        self.field = 0


def verify_fractional(coordinator_root, buf):
    depth, entries, siblings, others, comms, mp = decode(buf)
    d = depth

    def route(stem):
        return stem[0] if d == 1 else int.from_bytes(stem[:2], "big")

    # §5.2 routing.
    for index, _, stems in entries:
        routes = [route(s) for s, _, _ in stems]
        if routes[0] != index and all(x == routes[0] for x in routes):
            raise Invalid("fractional.shard_index_mismatch")
        if any(x != index for x in routes):
            raise Invalid("fractional.key_wrong_shard")
    # §5.3 shapes.
    nodes = {}
    committed = 0
    limit = len(comms)
    for e, (index, commitment, stems) in enumerate(entries):
        empty = commitment == bytes(32)
        for k_stem, (stem, byte, diffs) in enumerate(stems):
            status, sdepth = byte & 7, byte >> 3
            if status > PRESENT or sdepth < d or sdepth > 31:
                raise Invalid("fractional.extension")
            if empty != (status == ABSENT_EMPTY and sdepth == d):
                raise Invalid("fractional.empty_shard_mismatch")
            if status != PRESENT and any(v is not None for _, v in diffs):
                raise Invalid("fractional.absent_value")
            if empty:
                continue
            for k in range(d, sdepth):
                path = stem[:k]
                node = nodes.get(path)
                if node is None:
                    node = nodes[path] = _Node("internal", top=e if k == d else None)
                    committed += k > d
                elif node.kind != "internal":
                    raise Invalid("fractional.path_conflict")
                node.children.add(stem[k])
            path = stem[:sdepth]
            top = e if sdepth == d else None
            node = nodes.get(path)
            if status == ABSENT_EMPTY:
                if node is None:
                    nodes[path] = _Node("empty")
                elif node.kind != "empty":
                    raise Invalid("fractional.path_conflict")
            else:
                present = status == PRESENT
                if node is None:
                    node = nodes[path] = _Node("leaf", top=top)
                    committed += top is None
                elif node.kind != "leaf" or (node.present and present):
                    raise Invalid("fractional.path_conflict")
                if present:
                    node.stem, node.present = stem, True
                    for half in sorted({s // 128 for s, _ in diffs}):
                        sp = path + bytes([2 + half])
                        if sp in nodes:
                            raise Invalid("fractional.path_conflict")
                        sub = nodes[sp] = _Node("suffix")
                        sub.stem_ref = (e, k_stem)
                        committed += 1
            if committed > limit:
                raise Invalid("fractional.commitment_count")
    if committed != limit:
        raise Invalid("fractional.commitment_count")
    waiting = [p for p in sorted(nodes) if nodes[p].kind == "leaf" and nodes[p].stem is None]
    if len(waiting) != len(others):
        raise Invalid("fractional.other_stem_count")
    proven = {s for _, _, stems in entries for s, _, _ in stems}
    for path, other in zip(waiting, others):
        if not other.startswith(path) or other in proven:
            raise Invalid("fractional.other_stem")
        nodes[path].stem = other
    # §5.4 points: the shard commitments, then the commitments.
    try:
        shard_points = [curve.decode(c) for _, c, _ in entries]
        comm_points = [curve.decode(c) for c in comms]
    except curve.PointError:
        raise Invalid("fractional.point")
    it = iter(zip(comms, comm_points))
    for path in sorted(nodes):
        node = nodes[path]
        if node.kind == "empty":
            continue
        if node.top is not None:
            node.commitment = entries[node.top][1]
            node.point = shard_points[node.top]
        else:
            node.commitment, node.point = next(it)
        node.field = curve.map_to_scalar_field(node.point)
    # §5.5 openings, in (path, z) order, as in WIRE.md §6.3.
    encoded, opened = [], []

    def open_(node, z, y):
        encoded.append((node.commitment, z, y))
        opened.append((node.point, z, y))

    for path in sorted(nodes):
        node = nodes[path]
        if node.kind == "internal":
            for c in sorted(node.children):
                child = nodes.get(path + bytes([c]))
                open_(node, c, 0 if child is None or child.kind == "empty" else child.field)
        elif node.kind == "leaf":
            open_(node, 0, 1)
            open_(node, 1, le_int(node.stem))
            for z in (2, 3):
                sub = nodes.get(path + bytes([z]))
                if sub is not None:
                    open_(node, z, sub.field)
        elif node.kind == "suffix":
            e, k = node.stem_ref
            half = path[-1] - 2
            for suffix, value in entries[e][2][k][2]:
                if suffix // 128 != half:
                    continue
                low, high = value_halves(value)
                open_(node, 2 * (suffix % 128), low)
                open_(node, 2 * (suffix % 128) + 1, high)
    if not opened:
        if any(mp):
            raise Invalid("fractional.multiproof_encoding")
    else:
        try:
            proof = multiproof.decode_multiproof(mp)
        except ipa.ProofError as err:
            bad_point = err.rule == "proof.point"
            raise Invalid("fractional.point" if bad_point else "fractional.multiproof_encoding")
        if not multiproof.verify_encoded(Transcript(TRANSCRIPT_LABEL), encoded, opened, proof):
            raise Invalid("fractional.openings_rejected")
    # §5.6 coordinator.
    leaves = [(index, _leaf_hash(index, c)) for index, c, _ in entries]
    if fold(8 * d, leaves, siblings) != coordinator_root:
        raise Invalid("fractional.coordinator_root")
    keys = [
        (stem + bytes([s]), v)
        for _, _, stems in entries
        for stem, _, diffs in stems
        for s, v in diffs
    ]
    return [index for index, _, _ in entries], keys, len(opened)
