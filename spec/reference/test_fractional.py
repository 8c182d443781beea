#!/usr/bin/env python3
"""Self-test of fractional.py (FRACTIONAL.md §4-§5): a small prover of §4.4 over an
in-memory tree builds wire-version-2 proofs at shard depths 1 and 2, the verifier must
accept them under both anchors with the keys, shards, roots and post-state roots the
tree gives, and reject altered proofs with the rule of §5.

    python3 spec/reference/test_fractional.py
"""

import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import curve  # noqa: E402
import fractional  # noqa: E402
import multiproof  # noqa: E402
from field import R, le_int  # noqa: E402
from fractional import COORDINATOR_ROOT, STATE_ROOT, Invalid  # noqa: E402
from pedersen import commit, suffix_tree_values  # noqa: E402
from transcript import Transcript  # noqa: E402
from tree import Tree  # noqa: E402

mtf = curve.map_to_scalar_field
enc = curve.encode


def stem(*prefix, fill=0):
    return bytes(prefix) + bytes([fill]) * (31 - len(prefix))


def value(n):
    return bytes([n]) * 32


# The prover (§4.4), over the canonical tree of a key/value set.


class FullTree:
    """Every node of the canonical tree: path -> (kind, point, polynomial, stem)."""

    def __init__(self, stems):
        self.stems = stems  # stem -> {suffix: value}
        self.nodes = {}
        self.root = self._internal(sorted(stems), b"")

    def _leaf(self, s, path):
        values = self.stems[s]
        halves = []
        for half in (0, 1):
            poly = suffix_tree_values(values, half)
            point = commit(poly)
            self.nodes[path + bytes([2 + half])] = ("suffix", point, poly, None)
            halves.append(point)
        poly = [1, le_int(s), mtf(halves[0]), mtf(halves[1])] + [0] * 252
        point = commit(poly)
        self.nodes[path] = ("leaf", point, poly, s)
        return point

    def _internal(self, stems, path):
        groups = {}
        for s in stems:
            groups.setdefault(s[len(path)], []).append(s)
        poly = [0] * 256
        for b, group in groups.items():
            child = path + bytes([b])
            if len(group) == 1:
                point = self._leaf(group[0], child)
            else:
                point = self._internal(group, child)
            poly[b] = mtf(point)
        point = commit(poly)
        self.nodes[path] = ("internal", point, poly, None)
        return point


def shard_commitments(stems, depth):
    """{index: compress(C_i)} of the non-empty shards, from the key set alone (§1)."""
    t = Tree()
    t.stems = stems
    groups = {}
    for s in stems:
        groups.setdefault(fractional.shard_of(depth, s), []).append(s)
    out = {}
    for index, group in groups.items():
        group.sort()
        top = t._leaf(group[0]) if len(group) == 1 else t._internal(group, depth)
        out[index] = enc(top)
    return out


def coordinator_levels(stems, depth):
    tops = shard_commitments(stems, depth)
    level = [fractional.leaf_hash(i, tops.get(i, bytes(32))) for i in range(1 << (8 * depth))]
    levels = [level]
    while len(level) > 1:
        level = [fractional.node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


def coordinator_siblings(levels, positions):
    """§3: the siblings of the leaves at `positions`, in canonical order."""
    out = []
    known = sorted(set(positions))
    for level in levels[:-1]:
        have = set(known)
        for p in known:
            if p ^ 1 in have:
                continue
            out.append(level[p ^ 1])
        known = sorted({p // 2 for p in known})
    return out


def encode_proof(p):
    """The wire form of §4 from the fields of `p` (a dict)."""
    out = bytearray([2, p["depth"], p["flags"]]) + p["root"]
    out += len(p["stems"]).to_bytes(2, "big")
    out += bytes(status_byte for _, status_byte, _ in p["stems"])
    for s, _, diffs in p["stems"]:
        out += s + bytes([len(diffs) - 1])
        for suffix, cur, new in diffs:
            out += bytes([suffix, (cur is not None) | (new is not None) << 1])
            out += (cur or b"") + (new or b"")
    out += len(p["others"]).to_bytes(2, "big") + b"".join(p["others"])
    out += len(p["commitments"]).to_bytes(4, "big") + b"".join(p["commitments"])
    out += len(p["witnesses"]).to_bytes(2, "big")
    out += b"".join(w.to_bytes(32, "little") for w in p["witnesses"])
    if p["flags"] & 1:
        out += len(p["siblings"]).to_bytes(2, "big") + b"".join(p["siblings"])
    return bytes(out + p["multiproof"])


def transcript_for(p):
    """§4.4: the transcript after `append("proof", SHA-256(bytes before the multiproof))`."""
    body = encode_proof(dict(p, multiproof=b""))
    transcript = Transcript(b"fverkle-fractional-v2")
    transcript.append_bytes(b"proof", hashlib.sha256(body).digest())
    return transcript


def prove(stems, depth, keys, carry=True):
    """§4.4: the proof fields (a dict, see encode_proof) and what a verifier must output.
    `keys` maps key -> new value or None (not written)."""
    full = FullTree(stems)
    by_stem = {}
    for key in sorted(keys):
        by_stem.setdefault(key[:31], []).append((key[31], keys[key]))
    proven = {b"": "internal"}
    children = {b"": set()}
    entries, leaf_of = [], {}
    present_leaves = set()
    for s, diffs in by_stem.items():
        path = b""
        while True:
            children.setdefault(path, set()).add(s[len(path)])
            child = path + s[len(path) : len(path) + 1]
            node = full.nodes.get(child)
            if node is None or node[0] != "internal":
                break
            proven[child] = "internal"
            path = child
        if node is None:
            status = 0
            proven[child] = "empty"
        else:
            status = 2 if node[3] == s else 1
            proven[child] = "leaf"
            leaf_of[child] = node[3]
            if status == 2:
                present_leaves.add(child)
                for half in {suffix // 128 for suffix, _ in diffs}:
                    proven[child + bytes([2 + half])] = "suffix"
        cur = stems.get(s, {}) if status == 2 else {}
        entries.append((s, len(child) << 3 | status, [(x, cur.get(x), new) for x, new in diffs]))
    others = [leaf_of[p] for p in sorted(leaf_of) if p not in present_leaves]
    commitments = [enc(full.nodes[p][1]) for p in sorted(proven) if p and proven[p] != "empty"]
    # Openings (W§6.3), then the internal witnesses (§4.3).
    openings = []
    for path in sorted(proven):
        kind = proven[path]
        if kind == "empty":
            continue
        _, point, poly, _ = full.nodes[path]
        if kind == "internal":
            zs = sorted(children[path])
        elif kind == "leaf":
            zs = [0, 1] + [z for z in (2, 3) if path + bytes([z]) in proven]
        else:
            half = path[-1] - 2
            zs = [
                z
                for x, _ in by_stem[full.nodes[path[:-1]][3]]
                if x // 128 == half
                for z in (2 * (x % 128), 2 * (x % 128) + 1)
            ]
        for z in zs:
            openings.append((path, z, 1, point, poly))
    witnesses = []
    for path in sorted(proven):
        if not path or proven[path] != "internal":
            continue
        mine = [(z, poly[z]) for p, z, _, _, poly in openings if p == path]
        if not any((z == 0 and y != 1) or (z >= 4 and y != 0) for z, y in mine):
            _, point, poly, _ = full.nodes[path]
            witnesses.append(poly[0])
            openings.append((path, 0, 0, point, poly))
    openings.sort(key=lambda o: o[:3])
    shards = sorted({fractional.shard_of(depth, s) for s in by_stem})
    tops = shard_commitments(stems, depth)
    levels = coordinator_levels(stems, depth)
    flags = 1 if carry else 0
    fields = {
        "depth": depth,
        "flags": flags,
        "root": enc(full.root),
        "stems": entries,
        "others": others,
        "commitments": commitments,
        "witnesses": witnesses,
        "siblings": coordinator_siblings(levels, shards),
    }
    d, ipa_proof = multiproof.prove(
        transcript_for(fields),
        [(point, z, poly[z]) for _, z, _, point, poly in openings],
        [poly for *_, poly in openings],
    )
    fields["multiproof"] = multiproof.encode_multiproof(d, ipa_proof)
    # The state after the writes, from scratch.
    after = {s: dict(v) for s, v in stems.items()}
    for key, new in keys.items():
        if new is not None:
            after.setdefault(key[:31], {})[key[31]] = new
    t = Tree()
    t.stems = after
    expect = {
        "keys": [(s + bytes([x]), cur, new, False) for s, _, diffs in entries for x, cur, new in diffs],
        "shards": [(i, tops.get(i, bytes(32))) for i in shards],
        "openings": len(openings),
        "witnesses": len(witnesses),
        "state_root": enc(full.root),
        "coordinator_root": levels[-1][0] if carry else None,
        "post_state_root": enc(t.root()),
        "post_coordinator_root": coordinator_levels(after, depth)[-1][0] if carry else None,
    }
    return fields, expect


# The trees.

D1 = {
    stem(0x10): {0: value(1), 200: value(2)},  # a lone stem in its shard
    stem(0x20, 0x01): {5: value(3)},  # two stems below the top of shard 0x20
    stem(0x20, 0x02): {7: value(4)},
    stem(0x30, 0x00, 0x11): {1: value(5)},  # shard 0x30: a child at index 0
    stem(0x30, 0x00, 0x22): {1: value(6)},
    stem(0x30, 0x05): {1: value(7)},
    stem(0x40, 0x00, 0x00, 0xAA): {9: value(8)},  # a chain of internal nodes
    stem(0x40, 0x00, 0x00, 0xBB): {9: value(9)},
}

D2 = {
    stem(0x10, 0x00): {0: value(1)},  # a lone leaf above its shard prefix
    stem(0x20, 0x01, 0x00): {3: value(2)},  # shard (0x20, 0x01): an internal top
    stem(0x20, 0x01, 0xFF): {3: value(3)},
    stem(0x30, 0x00, 0x11): {1: value(4)},
    stem(0x30, 0x00, 0x22): {1: value(5)},
    stem(0x30, 0x07): {130: value(6)},  # shard (0x30, 0x07): a leaf at depth 2
}


def key(s, suffix):
    return s + bytes([suffix])


class FractionalTest(unittest.TestCase):
    def check(self, stems, depth, keys, witnesses=None, carry=True):
        """Proves `keys`, checks the verifier's answer under both anchors; returns the
        proof fields and the expected outputs."""
        fields, expect = prove(stems, depth, keys, carry)
        if witnesses is not None:
            self.assertEqual(expect["witnesses"], witnesses)
        buf = encode_proof(fields)
        anchors = [(STATE_ROOT, expect["state_root"])]
        if carry:
            anchors.append((COORDINATOR_ROOT, expect["coordinator_root"]))
        for anchor in anchors:
            v = fractional.verify_fractional(buf, anchor)
            self.assertEqual(v.keys(), expect["keys"])
            self.assertEqual(v.shards, expect["shards"])
            self.assertEqual(v.openings, expect["openings"])
            self.assertEqual(v.root, expect["state_root"])
            self.assertEqual(v.coordinator, expect["coordinator_root"])
            post_root, post_coordinator = v.post_roots()
            self.assertEqual(post_root, expect["post_state_root"])
            self.assertEqual(post_coordinator, expect["post_coordinator_root"])
        if not carry:
            self.rejects(buf, (COORDINATOR_ROOT, bytes(32)), "fractional.no_coordinator_path")
        return fields, expect

    def rejects(self, buf, anchor, rule):
        with self.assertRaises(Invalid) as cm:
            fractional.verify_fractional(buf, anchor)
        self.assertEqual(cm.exception.rule, rule)

    # Depth 1.

    def test_d1_one_key(self):
        self.check(D1, 1, {key(stem(0x10), 0): None}, witnesses=0)

    def test_d1_empty_shard_and_absent_other(self):
        # 0x50: an empty shard; 0x10 0xff: absent-other under the lone leaf of 0x10.
        keys = {key(stem(0x50, 1), 3): None, key(stem(0x10, 0xFF), 4): None}
        fields, expect = self.check(D1, 1, keys, witnesses=0)
        self.assertEqual(fields["others"], [stem(0x10)])
        self.assertEqual(expect["shards"][1], (0x50, bytes(32)))

    def test_d1_internal_witnesses(self):
        # [0x20] opened at 1 (present) and 7 (empty): needs a witness, w = 0 (no child 0);
        # [0x30] opened at 9 only: w = mtf of its child 0; [0x40 0 0] opened at 0xcc only.
        keys = {
            key(stem(0x20, 0x01), 5): None,
            key(stem(0x20, 0x07), 0): None,
            key(stem(0x30, 0x09), 0): None,
            key(stem(0x40, 0x00, 0x00, 0xCC), 0): None,
        }
        fields, _ = self.check(D1, 1, keys, witnesses=3)
        self.assertEqual(fields["witnesses"][0], 0)
        self.assertNotIn(fields["witnesses"][1], (0, 1))

    def test_d1_writes(self):
        keys = {
            key(stem(0x10), 0): value(0x61),  # an update
            key(stem(0x10), 1): value(0x62),  # a new suffix of a present stem
            key(stem(0x10, 0xFF), 4): value(0x63),  # splits the lone leaf of 0x10
            key(stem(0x50, 1), 3): value(0x64),  # into an empty shard
            key(stem(0x20, 0x07), 0): value(0x65),  # into an empty slot at depth 2
            key(stem(0x40, 0x00, 0x00, 0xAA, 0x01), 0): value(0x66),  # deeper
            key(stem(0x30, 0x05), 1): None,  # read only
        }
        self.check(D1, 1, keys)

    def test_d1_lean(self):
        self.check(D1, 1, {key(stem(0x20, 0x02), 7): value(0x70)}, carry=False)

    # Depth 2.

    def test_d2_lone_leaf_above_prefix(self):
        keys = {key(stem(0x10, 0x00), 0): None, key(stem(0x10, 0x05), 0): None}
        _, expect = self.check(D2, 2, keys, witnesses=0)
        self.assertEqual(expect["shards"][1], (0x1005, bytes(32)))
        self.assertNotEqual(expect["shards"][0][1], bytes(32))

    def test_d2_empty_and_witnesses(self):
        keys = {
            key(stem(0x20, 0x01, 0x07), 0): None,  # [0x20] and [0x20 0x01] need witnesses
            key(stem(0x20, 0x03), 0): None,  # an empty slot at depth 2
            key(stem(0x50, 0x50), 0): None,  # an empty slot of the root
            key(stem(0x30, 0x07), 130): None,
        }
        self.check(D2, 2, keys, witnesses=2)

    def test_d2_writes(self):
        keys = {
            key(stem(0x10, 0x05), 0): value(0x71),  # splits the lone leaf above its shard
            key(stem(0x10, 0x00), 0): None,  # its leaf, with a suffix tree at [0x10 0x02]
            key(stem(0x10, 0x02), 9): None,  # shard (0x10, 0x02): empty after the split
            key(stem(0x20, 0x03), 0): value(0x72),  # an empty shard under an internal node
            key(stem(0x50, 0x50), 0): value(0x73),  # an empty slot of the root
            key(stem(0x60, 0x01), 0): value(0x74),  # two new stems under an empty slot
            key(stem(0x60, 0x02), 0): value(0x75),
            key(stem(0x70, 0x01, 0xAA), 0): value(0x76),  # a new internal shard top
            key(stem(0x70, 0x01, 0xBB), 0): value(0x77),
            key(stem(0x30, 0x07), 1): value(0x78),  # a new suffix in the other half
            key(stem(0x30, 0x00, 0x11), 1): value(0x79),
        }
        self.check(D2, 2, keys)

    def test_d2_lean(self):
        self.check(D2, 2, {key(stem(0x30, 0x00, 0x22), 1): None}, carry=False)

    def test_seeded_trees(self):
        """Seeded trees whose stems share their first bytes, random reads and writes (new
        stems among them), at both depths."""
        import random

        rng = random.Random(6800)
        for depth in (1, 2):
            with self.subTest(depth=depth):

                def draw():
                    return stem(*(rng.choice((0x00, 0x01, 0x80)) for _ in range(3)),
                                fill=rng.randrange(256))

                stems = {}
                for _ in range(10):
                    stems.setdefault(draw(), {})[rng.randrange(256)] = value(rng.randrange(256))
                keys = {}
                for _ in range(6):
                    s = rng.choice(sorted(stems)) if rng.random() < 0.5 else draw()
                    new = value(rng.randrange(256)) if rng.random() < 0.6 else None
                    keys[key(s, rng.randrange(256))] = new
                self.check(stems, depth, keys)

    # Rejections.

    def test_rejections(self):
        keys = {key(stem(0x20, 0x01), 5): None, key(stem(0x20, 0x07), 0): None}
        fields, expect = prove(D1, 1, keys)
        root, croot = expect["state_root"], expect["coordinator_root"]
        anchors = [(STATE_ROOT, root), (COORDINATOR_ROOT, croot)]
        buf = encode_proof(fields)

        def altered(**changes):
            return encode_proof(dict(fields, **changes))

        cases = [
            (b"\x01" + buf[1:], "fractional.version"),
            (buf[:1] + b"\x03" + buf[2:], "fractional.depth"),
            (buf[:2] + b"\x03" + buf[3:], "fractional.flags"),
            (buf[:35] + b"\x00\x00" + buf[37:], "fractional.no_keys"),
            (buf + b"\x00", "fractional.trailing_bytes"),
            (buf[:-1], "fractional.truncated"),
            (buf[:35] + b"\xff\xff" + buf[37:], "fractional.truncated"),
            (buf[:72] + b"\x04" + buf[73:], "fractional.presence"),
            (altered(stems=fields["stems"][::-1]), "canonical.stems_ascending"),
            (altered(commitments=fields["commitments"][1:]), "structure.commitment_count"),
            (altered(siblings=fields["siblings"][1:]), "fractional.siblings"),
            (altered(siblings=fields["siblings"] + [bytes(32)]), "fractional.siblings"),
            (altered(witnesses=[]), "fractional.internal_witness_count"),
            (altered(witnesses=[0, 0]), "fractional.internal_witness_count"),
            (altered(witnesses=[1]), "fractional.internal_witness"),
            (altered(witnesses=[R]), "fractional.internal_witness_scalar"),
            (altered(witnesses=[5]), "proof.rejected"),
            (altered(root=bytes([0xFF]) * 32), "decode.root"),
            (altered(siblings=fields["siblings"][::-1]),
             ("proof.rejected", "fractional.coordinator_root")),
            (altered(stems=[(s, st, [(x, c, value(1))]) for s, st, [(x, c, _)] in fields["stems"]]),
             "proof.rejected"),  # new values written into the proof
        ]
        for bad, rules in cases:
            for anchor, rule in zip(anchors, (rules,) * 2 if isinstance(rules, str) else rules):
                with self.subTest(rule=rule, anchor=anchor[0]):
                    self.rejects(bad, anchor, rule)
        self.rejects(buf, (STATE_ROOT, croot), "fractional.state_root")
        self.rejects(buf, (COORDINATOR_ROOT, root), "fractional.coordinator_root")

    def test_leaf_posing_as_internal(self):
        """§5.2: a leaf presented as an internal node to prove a stem absent below it
        needs a witness; 1 (its true value at 0) is refused, any other fails the proof."""
        full = FullTree(D1)
        _, root_point, root_poly, _ = full.nodes[b""]
        _, leaf_point, leaf_poly, _ = full.nodes[b"\x10"]
        levels = coordinator_levels(D1, 1)
        for w, rule in ((1, "fractional.internal_witness"), (0, "proof.rejected")):
            fields = {
                "depth": 1,
                "flags": 1,
                "root": enc(root_point),
                "stems": [(stem(0x10, 0xFF), 2 << 3, [(4, None, None)])],
                "others": [],
                "commitments": [enc(leaf_point)],
                "witnesses": [w],
                "siblings": coordinator_siblings(levels, [0x10]),
            }
            d, ipa_proof = multiproof.prove(
                transcript_for(fields),
                [(root_point, 0x10, root_poly[0x10]), (leaf_point, 0, w), (leaf_point, 0xFF, 0)],
                [root_poly, leaf_poly, leaf_poly],
            )
            fields["multiproof"] = multiproof.encode_multiproof(d, ipa_proof)
            buf = encode_proof(fields)
            self.rejects(buf, (STATE_ROOT, enc(root_point)), rule)
            self.rejects(buf, (COORDINATOR_ROOT, levels[-1][0]), rule)

    def test_adapter(self):
        """adapter.py answers a `fractional_proof` case in the format of the vectors."""
        import adapter

        keys = {key(stem(0x10, 0x05), 0): value(0x71), key(stem(0x10, 0x00), 0): None}
        fields, expect = prove(D2, 2, keys)
        proof = "0x" + encode_proof(fields).hex()
        for anchor, root in (("state_root", expect["state_root"]),
                             ("coordinator_root", expect["coordinator_root"])):
            case = {"kind": "fractional_proof", "name": "t",
                    "input": {"anchor": anchor, "root": "0x" + root.hex(), "proof": proof}}
            got = adapter.answer(case)
            self.assertEqual(got["verdict"], "valid", got)
            v = got["value"]
            self.assertEqual(v["keys"], [
                {"key": "0x" + stem(0x10, 0x00).hex() + "00",
                 "current_value": "0x" + value(1).hex(), "new_value": None, "deleted": False},
                {"key": "0x" + stem(0x10, 0x05).hex() + "00",
                 "current_value": None, "new_value": "0x" + value(0x71).hex(), "deleted": False},
            ])
            self.assertEqual(v["shards"], [{"index": i, "commitment": "0x" + c.hex()}
                                           for i, c in expect["shards"]])
            self.assertEqual(v["openings"], expect["openings"])
            for name in ("state_root", "coordinator_root", "post_state_root",
                         "post_coordinator_root"):
                self.assertEqual(v[name], "0x" + expect[name].hex())
        case["input"]["root"] = "0x" + bytes(32).hex()
        self.assertEqual(adapter.answer(case),
                         {"verdict": "invalid", "rule": "fractional.coordinator_root"})

    def test_byte_flips(self):
        """A bit flipped anywhere is rejected under both anchors: the bytes before the
        multiproof are hashed into the transcript, so those no opening covers (an absent
        stem below its depth, its suffixes, a new value, a sibling) are bound too."""
        keys = {key(stem(0x10), 200): value(9), key(stem(0x10, 0xFF), 4): None}
        fields, expect = prove(D1, 1, keys)
        buf = encode_proof(fields)
        anchors = [
            (STATE_ROOT, expect["state_root"]),
            (COORDINATOR_ROOT, expect["coordinator_root"]),
        ]
        # Layout: header 35, n 2, statuses 2, stem 0x10 at 39 (31 + 1 + 2 + 32 + 32), stem
        # 0x10ff at 137 (31 + 1 + 2), ...
        absent_stem, new_value = 137, 105
        self.assertEqual(buf[absent_stem : absent_stem + 31], stem(0x10, 0xFF))
        self.assertEqual(buf[new_value : new_value + 32], value(9))
        unbound = {absent_stem + 1, absent_stem + 30, absent_stem + 32, new_value, new_value + 31}
        positions = sorted(set(range(0, len(buf), 29)) | unbound | {len(buf) - 1})
        for at in positions:
            flipped = buf[:at] + bytes([buf[at] ^ 0x01]) + buf[at + 1 :]
            for anchor in anchors:
                with self.subTest(at=at, anchor=anchor[0]):
                    with self.assertRaises(Invalid) as cm:
                        fractional.verify_fractional(flipped, anchor)
                    if at in unbound:
                        self.assertEqual(cm.exception.rule, "proof.rejected")


if __name__ == "__main__":
    unittest.main()
