"""WIRE.md §5-§6: canonical form, the proven tree, the openings, and verification.

`verify(pre_state_root, w)` returns a `Verified` or raises `Invalid(rule)` with the vector
rule id of the first broken rule, in the order of §6.1.
"""

import curve
import ipa
import multiproof
from field import le_int, R, scalar_from_le32
from transcript import Transcript
from witness_model import multiproof_bytes

ABSENT_EMPTY, ABSENT_OTHER, PRESENT = 0, 1, 2
TRANSCRIPT_LABEL = b"vt"


class Invalid(Exception):
    def __init__(self, rule, what=""):
        super().__init__(f"{rule}: {what}" if what else rule)
        self.rule = rule


def check_canonical(w):
    """§5, W-CANON-1..6, in the order the rules are listed (3 before the per-stem rules)."""
    sd = w.state_diff
    ext = w.depth_extension_present
    if len(ext) != len(sd):
        raise Invalid("canonical.extension_status_count", f"{len(ext)} statuses, {len(sd)} stems")
    absent_other_paths = set()
    prev = None
    for i, (s, byte) in enumerate(zip(sd, ext)):
        if prev is not None and s.stem <= prev:
            raise Invalid("canonical.stems_ascending", f"stem {i}")
        prev = s.stem
        status, depth = byte & 7, byte >> 3
        if status > PRESENT:
            raise Invalid("canonical.extension_status", f"stem {i}: status byte {byte:#04x}")
        if depth == 0:
            raise Invalid("canonical.depth_zero", f"stem {i}")
        if status == ABSENT_OTHER:
            absent_other_paths.add(s.stem[:depth])
        prev_suffix = None
        for d in s.suffix_diffs:
            if prev_suffix is not None and d.suffix <= prev_suffix:
                raise Invalid("canonical.suffixes_ascending", f"stem {i}, suffix {d.suffix}")
            prev_suffix = d.suffix
            if status != PRESENT and d.current_value is not None:
                raise Invalid("canonical.absent_current_value", f"stem {i}, suffix {d.suffix}")
    for k in range(1, len(w.other_stems)):
        if w.other_stems[k] <= w.other_stems[k - 1]:
            raise Invalid("canonical.other_stems_ascending", f"other stem {k}")
    for k, o in enumerate(w.other_stems):
        if not any(o[:n] in absent_other_paths for n in range(1, 32)):
            raise Invalid("canonical.other_stem_unused", f"other stem {k}")


class Node:
    """A node of the proven tree (§6.2)."""

    def __init__(self, kind, **kw):
        self.kind = kind  # "internal", "empty", "leaf", "suffix"
        self.children = set()  # internal: the child indices some stem goes through
        self.stem = None  # leaf: the stem it holds (present stem or other stem)
        self.present = None  # leaf: index of the present stem holding it
        self.absent_other = None  # leaf: first absent-other stem ending here
        self.stem_index = None  # suffix tree: the present stem
        self.commitment = None  # 32 bytes from the witness (root: the pre-state root)
        self.point = None
        self.field = 0
        self.proven_internal = False
        self.__dict__.update(kw)


def build_shape(w):
    """§6.1 steps 2-5, W-STRUCT-1..4: the proven tree as {path: Node}."""
    sd = w.state_diff
    if not sd:
        raise Invalid("structure.no_keys")
    for i, s in enumerate(sd):
        if not s.suffix_diffs:
            raise Invalid("structure.empty_stem", f"stem {i}")
    nodes = {b"": Node("internal")}
    limit = len(w.commitments_by_path)
    committed = 0
    for i, (s, byte) in enumerate(zip(sd, w.depth_extension_present)):
        status, depth = byte & 7, byte >> 3
        stem = s.stem
        for d in range(depth):
            path = stem[:d]
            node = nodes.get(path)
            if node is None:
                nodes[path] = Node("internal", children={stem[d]})
                committed += 1
            elif node.kind == "internal":
                node.children.add(stem[d])
            else:
                raise Invalid("structure.path_conflict", f"stem {i} at depth {d}")
        path = stem[:depth]
        node = nodes.get(path)
        if status == ABSENT_EMPTY:
            if node is None:
                nodes[path] = Node("empty")
            elif node.kind != "empty":
                raise Invalid("structure.path_conflict", f"stem {i} at depth {depth}")
        elif status == ABSENT_OTHER:
            if node is None:
                nodes[path] = Node("leaf", absent_other=i)
                committed += 1
            elif node.kind == "leaf":
                if node.absent_other is None:
                    node.absent_other = i
            else:
                raise Invalid("structure.path_conflict", f"stem {i} at depth {depth}")
        else:
            if node is None:
                nodes[path] = Node("leaf", stem=stem, present=i)
                committed += 1
            elif node.kind == "leaf":
                if node.present is not None:
                    raise Invalid("structure.shared_leaf", f"stems {node.present} and {i}")
                node.stem, node.present = stem, i
            else:
                raise Invalid("structure.path_conflict", f"stem {i} at depth {depth}")
            halves = {d.suffix // 128 for d in s.suffix_diffs}
            for half in (0, 1):
                if half not in halves:
                    continue
                sp = path + bytes([2 + half])
                if sp in nodes:
                    raise Invalid("structure.path_conflict", f"stem {i} at depth {depth + 1}")
                nodes[sp] = Node("suffix", stem_index=i)
                committed += 1
        if committed > limit:
            raise Invalid("structure.commitment_count", f"more than {limit} after stem {i}")
    # Step 4: other stems, one per absent-other leaf that no present stem holds, path order.
    waiting = [p for p in sorted(nodes) if nodes[p].kind == "leaf" and nodes[p].stem is None]
    if len(waiting) != len(w.other_stems):
        raise Invalid(
            "structure.other_stem_count", f"{len(waiting)} expected, {len(w.other_stems)} given"
        )
    stems = {s.stem for s in sd}
    for k, (path, other) in enumerate(zip(waiting, w.other_stems)):
        if not other.startswith(path):
            raise Invalid("structure.other_stem_off_path", f"other stem {k}")
        if other in stems:
            raise Invalid("structure.other_stem_in_state_diff", f"other stem {k}")
        nodes[path].stem = other
    if committed != limit:
        raise Invalid("structure.commitment_count", f"{committed} expected, {limit} given")
    return nodes


def check_identities(nodes, w):
    """§6.1 step 6, W-STRUCT-5; also attaches each node's commitment bytes."""
    it = iter(w.commitments_by_path)
    for k, path in enumerate(p for p in sorted(nodes) if p and nodes[p].kind != "empty"):
        node = nodes[path]
        node.commitment = next(it)
        if node.kind in ("internal", "leaf") and node.commitment == bytes(32):
            raise Invalid("structure.identity_commitment", f"commitment {k} ({node.kind})")


def decode_points(pre_state_root, nodes, w):
    """W-DECODE-1: the proof's points, its scalar, the root, then each commitment."""
    try:
        proof = multiproof.decode_multiproof(multiproof_bytes(w))
    except ipa.ProofError as e:
        raise Invalid(e.rule)
    cache = {}

    def dec(b, rule):
        if b not in cache:
            try:
                cache[b] = curve.decode(b)
            except curve.PointError:
                raise Invalid(rule)
        return cache[b]

    root = nodes[b""]
    root.commitment = pre_state_root
    root.point = dec(pre_state_root, "decode.root")
    root.field = curve.map_to_scalar_field(root.point)
    for path in sorted(nodes):
        node = nodes[path]
        if path and node.kind != "empty":
            node.point = dec(node.commitment, "decode.commitment")
            node.field = curve.map_to_scalar_field(node.point)
    return proof


def value_halves(v):
    """§6.3: (LE(v[0..16]) + 2^128, LE(v[16..32])), or (0, 0) for an absent value."""
    if v is None:
        return 0, 0
    return le_int(v[:16]) + (1 << 128), le_int(v[16:])


def openings(nodes, w):
    """§6.3: the (path, z, y) openings in (path, z) order."""
    out = []
    for path in sorted(nodes):
        node = nodes[path]
        if node.kind == "internal":
            for c in sorted(node.children):
                child = nodes[path + bytes([c])]
                out.append((path, c, 0 if child.kind == "empty" else child.field))
        elif node.kind == "leaf":
            out.append((path, 0, 1))
            out.append((path, 1, le_int(node.stem)))
            for z in (2, 3):
                sub = nodes.get(path + bytes([z]))
                if sub is not None and sub.kind == "suffix":
                    out.append((path, z, sub.field))
        elif node.kind == "suffix":
            half = path[-1] - 2
            for d in w.state_diff[node.stem_index].suffix_diffs:
                if d.suffix // 128 != half:
                    continue
                low, high = value_halves(d.current_value)
                j = d.suffix % 128
                out.append((path, 2 * j, low))
                out.append((path, 2 * j + 1, high))
    return out


class Verified:
    """What a verified witness proves (§6.3, §6.6)."""

    def __init__(self, pre_state_root, w, nodes, opened):
        self.pre_state_root = pre_state_root
        self.witness = w
        self.nodes = nodes
        self.openings = len(opened)
        for path, z, y in opened:
            node = nodes[path]
            if node.kind == "internal" and ((z >= 4 and y != 0) or (z == 0 and y != 1)):
                node.proven_internal = True
        self.stem_bound = []
        for s, byte in zip(w.state_diff, w.depth_extension_present):
            status, depth = byte & 7, byte >> 3
            bound = status != ABSENT_EMPTY or all(
                nodes[s.stem[:d]].proven_internal for d in range(1, depth)
            )
            self.stem_bound.append(bound)

    def keys(self):
        out = []
        for s, bound in zip(self.witness.state_diff, self.stem_bound):
            for d in s.suffix_diffs:
                out.append((s.stem + bytes([d.suffix]), d.current_value, bound, d.new_value))
        return out

    def unbound_absences(self):
        return sum(1 for k in self.keys() if not k[2])

    def unbound_writes(self):
        return sum(1 for k in self.keys() if not k[2] and k[3] is not None)


def check_multiproof(transcript, nodes, opened, proof):
    """§6.3, §7: the openings [(path, z, y)] checked against the decoded multiproof with
    `transcript`, each commitment absorbed as the node's 32 bytes from the witness."""
    queries = [(nodes[p].commitment, z, y % R) for p, z, y in opened]
    points = {nodes[p].commitment: nodes[p].point for p in nodes if nodes[p].point is not None}
    resolved = [(points[c], z, y) for c, z, y in queries]
    try:
        ok = multiproof.verify_encoded(transcript, queries, resolved, proof)
    except ipa.ProofError as e:
        raise Invalid(e.rule)
    if not ok:
        raise Invalid("proof.rejected")


def verify(pre_state_root, w):
    """§6: accept (a Verified) or raise Invalid with the rule id."""
    check_canonical(w)
    nodes = build_shape(w)
    check_identities(nodes, w)
    proof = decode_points(pre_state_root, nodes, w)
    opened = openings(nodes, w)
    check_multiproof(Transcript(TRANSCRIPT_LABEL), nodes, opened, proof)
    return Verified(pre_state_root, w, nodes, opened)
