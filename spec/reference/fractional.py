"""FRACTIONAL.md §3-§5: the coordinator root and the fractional proof (wire version 2).

`verify_fractional(buf, anchor)` with `anchor` = ("state_root", R*) or
("coordinator_root", C*) returns a `VerifiedFractional` or raises `Invalid(rule)` with the
vector rule id of the first broken rule, in the order of FRACTIONAL.md §5. The proof is the
proven tree of a standard witness (WIRE.md §6.2), so the checks of `witness.py` run on it.
"""

import hashlib

import curve
from field import scalar_from_le32
from post_state import apply_writes
from transcript import Transcript
from witness import (
    Invalid,
    Verified,
    build_shape,
    check_canonical,
    check_identities,
    check_multiproof,
    decode_points,
    openings,
)
from witness_model import StemDiff, SuffixDiff, Witness

VERSION = 2
TRANSCRIPT_LABEL = b"fverkle-fractional-v2"
MIN_STEM_LEN = 1 + 31 + 1 + 2  # status byte, stem, m - 1, one suffix diff without values
MULTIPROOF_LEN = 576
IDENTITY = bytes(32)
STATE_ROOT, COORDINATOR_ROOT = "state_root", "coordinator_root"


# §3: the coordinator tree.


def leaf_hash(index, commitment):
    return hashlib.sha256(b"\x00" + index.to_bytes(2, "big") + commitment).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def fold(height, leaves, siblings):
    """§3: the coordinator root from the leaves [(position, hash)] (ascending) and the
    siblings in canonical order."""
    level = list(leaves)
    used = 0
    for _ in range(height):
        nxt = []
        i = 0
        while i < len(level):
            pos, h = level[i]
            if pos % 2 == 0 and i + 1 < len(level) and level[i + 1][0] == pos + 1:
                parent = node_hash(h, level[i + 1][1])
                i += 2
            else:
                if used >= len(siblings):
                    raise Invalid("fractional.siblings", "too few siblings")
                sib = siblings[used]
                used += 1
                i += 1
                parent = node_hash(h, sib) if pos % 2 == 0 else node_hash(sib, h)
            nxt.append((pos // 2, parent))
        level = nxt
    if used != len(siblings):
        raise Invalid("fractional.siblings", "siblings left over")
    return level[0][1]


# §4.1: decoding (F-DEC).


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
            raise Invalid("fractional.truncated", f"{count} {what} cannot fit at byte {self.at}")

    def items(self, count, size, what):
        self.room(count, size, what)
        raw = self.take(count * size, what)
        return [raw[i : i + size] for i in range(0, len(raw), size)]


class Decoded:
    """§4.1: the standard witness `witness`, plus `depth`, `flags`, `root` (compressed R),
    `internal_witnesses` (scalars), `siblings` (None when not carried), `digest`, the
    SHA-256 of every byte before the multiproof (§4.4), and `deleted`, the keys the proof
    deletes."""

    def __init__(self, depth, flags, root, witness, internal_witnesses, siblings, digest, deleted):
        self.depth, self.flags, self.root = depth, flags, root
        self.deleted = deleted
        self.witness = witness
        self.internal_witnesses = internal_witnesses
        self.siblings = siblings
        self.digest = digest


def decode(buf):
    r = _Reader(buf)
    version = r.uint(1, "version")
    if version != VERSION:
        raise Invalid("fractional.version", f"version byte {version:#04x}")
    depth = r.uint(1, "shard depth")
    if depth not in (1, 2):
        raise Invalid("fractional.depth", f"shard depth {depth}")
    flags = r.uint(1, "flags")
    if flags & 0xFE:
        raise Invalid("fractional.flags", f"flags {flags:#04x}")
    root = r.take(32, "root")
    n = r.uint(2, "stem count")
    if n == 0:
        raise Invalid("fractional.no_keys")
    r.room(n, MIN_STEM_LEN, "stems")
    statuses = r.take(n, "status bytes")
    state_diff = []
    deleted = set()  # keys whose presence bit 2 is set
    for k in range(n):
        stem = r.take(31, f"stem {k}")
        m = r.uint(1, f"stem {k} suffix count") + 1
        r.room(m, 2, f"suffix diffs of stem {k}")
        diffs = []
        for _ in range(m):
            suffix = r.uint(1, f"stem {k} suffix")
            presence = r.uint(1, f"stem {k} presence")
            if presence & 0xF8 or (presence & 4 and presence & 3 != 1):
                raise Invalid("fractional.presence", f"stem {k}, suffix {suffix}")
            current = r.take(32, "current value") if presence & 1 else None
            new = r.take(32, "new value") if presence & 2 else None
            diffs.append(SuffixDiff(suffix, current, new))
            if presence & 4:
                deleted.add(stem + bytes([suffix]))
        state_diff.append(StemDiff(stem, diffs))
    others = r.items(r.uint(2, "other stem count"), 31, "other stems")
    comms = r.items(r.uint(4, "commitment count"), 32, "commitments")
    raw_witnesses = r.items(r.uint(2, "internal witness count"), 32, "internal witnesses")
    siblings = None
    if flags & 1:
        siblings = r.items(r.uint(2, "sibling count"), 32, "coordinator siblings")
    body = r.at
    mp = r.take(MULTIPROOF_LEN, "multiproof")
    if r.left():
        raise Invalid("fractional.trailing_bytes", f"{r.left()} bytes after the multiproof")
    witnesses = []
    for k, raw in enumerate(raw_witnesses):
        v = scalar_from_le32(raw)
        if v is None:
            raise Invalid("fractional.internal_witness_scalar", f"internal witness {k}")
        if v == 1:
            raise Invalid("fractional.internal_witness", f"internal witness {k} is 1")
        witnesses.append(v)
    w = Witness(
        state_diff,
        others,
        statuses,
        comms,
        mp[:32],
        [mp[32 + 32 * i : 64 + 32 * i] for i in range(8)],
        [mp[288 + 32 * i : 320 + 32 * i] for i in range(8)],
        mp[544:],
    )
    digest = hashlib.sha256(buf[:body]).digest()
    return Decoded(depth, flags, root, w, witnesses, siblings, digest, frozenset(deleted))


# §4.2: the shard commitments, read off a tree.


def shard_of(depth, stem):
    return stem[0] if depth == 1 else int.from_bytes(stem[:2], "big")


def read_shards(depth, stems, node_at):
    """§4.2: [(index, compress(C_i))] for the touched shards of `stems`, ascending.
    `node_at(path, parent)` gives (kind, compressed commitment, stem, built) of the node at
    `path`, `parent` being what it gave for path[:-1] (None below the root)."""
    out = []
    for index in sorted({shard_of(depth, s) for s in stems}):
        prefix = index.to_bytes(depth, "big")
        kind, commitment, stem, built = node_at(prefix[:1], None)
        if depth == 2:
            if kind == "leaf" and stem[:2] != prefix:
                kind = "empty"  # a lone leaf under prefix[0] is the top of its own shard
            elif kind == "internal":
                kind, commitment, _, _ = node_at(prefix, (kind, commitment, stem, built))
        out.append((index, IDENTITY if kind == "empty" else commitment))
    return out


def coordinator_root(depth, shards, siblings):
    return fold(8 * depth, [(i, leaf_hash(i, c)) for i, c in shards], siblings)


# §5: verification.


def _proven_internal(node_openings):
    return any((z == 0 and y != 1) or (z >= 4 and y != 0) for z, y in node_openings)


class VerifiedFractional:
    """What a verified fractional proof proves (§5): the pre-state, `root` (compress(R)),
    `coordinator` (None when the path is not carried), the touched `shards`
    [(index, compress(C_i))], and `openings` (the number of IPA openings)."""

    def __init__(self, decoded, verified, shards, coordinator, openings):
        self.decoded = decoded
        self.verified = verified
        self.root = decoded.root
        self.shards = shards
        self.coordinator = coordinator
        self.openings = openings

    def keys(self):
        """[(key, current value | None, new value | None, deleted)] in proof order."""
        return [
            (k, d.current_value, d.new_value, k in self.decoded.deleted)
            for s in self.decoded.witness.state_diff
            for d in s.suffix_diffs
            for k in [s.stem + bytes([d.suffix])]
        ]

    def post_roots(self):
        """§5.1: (canonical post-state root, post-state coordinator root or None). Raises
        post_state.Undecided when the deletions leave a collapse undecided (F-DEL)."""
        changed, built, kinds = apply_writes(self.verified, self.decoded.deleted)
        root = curve.encode(changed[b""]) if b"" in changed else self.root
        if self.decoded.siblings is None:
            return root, None
        nodes = self.verified.nodes

        def node_at(path, parent):
            if path in built:
                kind, point, stem = built[path]
                return kind, curve.encode(point), stem, True
            if parent is not None and parent[3]:
                return "empty", IDENTITY, None, False  # a built node has only built children
            if path in kinds:
                kind, point, stem = kinds[path]  # removed, or a leaf that rose here
                return kind, IDENTITY if kind == "empty" else curve.encode(point), stem, False
            node = nodes[path]
            if node.kind == "empty":
                return "empty", IDENTITY, None, False
            commitment = curve.encode(changed[path]) if path in changed else node.commitment
            return node.kind, commitment, node.stem, False

        stems = [s.stem for s in self.decoded.witness.state_diff]
        shards = read_shards(self.decoded.depth, stems, node_at)
        return root, coordinator_root(self.decoded.depth, shards, self.decoded.siblings)


def verify_fractional(buf, anchor):
    """§5 in order; `anchor` is (STATE_ROOT, 32 bytes) or (COORDINATOR_ROOT, 32 bytes)."""
    kind, anchor_root = anchor
    dec = decode(buf)
    w = dec.witness
    # 2. Canonical form and structure of the decoded witness.
    check_canonical(w)
    nodes = build_shape(w)
    check_identities(nodes, w)
    # 3. Points and scalars.
    proof = decode_points(dec.root, nodes, w)
    # 4. Internal witnesses (F-INTERNAL), node by node in path order.
    opened = openings(nodes, w)
    by_node = {}
    for path, z, y in opened:
        by_node.setdefault(path, []).append((z, y))
    witnessed = [
        path
        for path in sorted(nodes)
        if path and nodes[path].kind == "internal" and not _proven_internal(by_node[path])
    ]
    if len(witnessed) != len(dec.internal_witnesses):
        raise Invalid(
            "fractional.internal_witness_count",
            f"{len(witnessed)} nodes need a witness, {len(dec.internal_witnesses)} given",
        )
    extra = [(path, 0, v) for path, v in zip(witnessed, dec.internal_witnesses)]
    # 5. The coordinator path (F-COORD), from the shard commitments of §4.2.

    def node_at(path, _parent):
        node = nodes[path]
        return node.kind, node.commitment, node.stem, False

    shards = read_shards(dec.depth, [s.stem for s in w.state_diff], node_at)
    coordinator = None
    if dec.siblings is not None:
        coordinator = coordinator_root(dec.depth, shards, dec.siblings)
    # 6. The anchor (F-ANCHOR).
    if kind == STATE_ROOT:
        if dec.root != anchor_root:
            raise Invalid("fractional.state_root")
    elif kind == COORDINATOR_ROOT:
        if coordinator is None:
            raise Invalid("fractional.no_coordinator_path")
        if coordinator != anchor_root:
            raise Invalid("fractional.coordinator_root")
    else:
        raise ValueError(f"unknown anchor {kind!r}")
    # 7. The multiproof (F-OPEN): a node's witness opening before its other openings.
    tagged = [(p, z, 0, y) for p, z, y in extra] + [(p, z, 1, y) for p, z, y in opened]
    every = [(p, z, y) for p, z, _, y in sorted(tagged, key=lambda t: t[:3])]
    transcript = Transcript(TRANSCRIPT_LABEL)
    transcript.append_bytes(b"proof", dec.digest)
    check_multiproof(transcript, nodes, every, proof)
    verified = Verified(dec.root, w, nodes, opened)
    return VerifiedFractional(dec, verified, shards, coordinator, len(every))
