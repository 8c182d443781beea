#!/usr/bin/env python3
"""Conformance-vector adapter for `fverkle vectors check --impl` (vectors/README.md,
"Checking another implementation").

One case per run: a JSON object {"kind", "name", "input"} on stdin, one JSON answer on
stdout. In persistent mode (FVERKLE_VECTORS_MODE=persistent, which `fverkle vectors check
--persistent` sets, or the flag --persistent): one case per line on stdin, one answer per
line on stdout, until end of input.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import curve  # noqa: E402
import fractional  # noqa: E402
import binary_tree  # noqa: E402
import binary_witness  # noqa: E402
import ipa  # noqa: E402
import json_witness  # noqa: E402
import multiproof  # noqa: E402
import pedersen  # noqa: E402
import ssz  # noqa: E402
from field import R, le_int, scalar_from_le32  # noqa: E402
from post_state import post_state_root  # noqa: E402
from transcript import Transcript  # noqa: E402
from tree import Tree  # noqa: E402
from witness import Invalid, verify  # noqa: E402


def unhex(s):
    return bytes.fromhex(s[2:] if s[:2] in ("0x", "0X") else s)


def hx(b):
    return "0x" + b.hex()


def scalar_hex(v):
    return hx((v % R).to_bytes(32, "little"))


def scalar(s):
    v = scalar_from_le32(unhex(s))
    if v is None:
        raise ValueError(f"not a canonical scalar: {s}")
    return v


def field_element(s):
    """An ipa `z`: any 32-byte little-endian integer, reduced (the evaluation point)."""
    return le_int(unhex(s)) % R


def valid(**value):
    return {"verdict": "valid", "value": value}


def invalid(rule):
    return {"verdict": "invalid", "rule": rule}


def point_codec(inp):
    try:
        p = curve.decode(unhex(inp["bytes"]))
    except curve.PointError as e:
        return invalid(e.rule)
    return valid(encoding=hx(curve.encode(p)),
                 map_to_scalar_field=scalar_hex(curve.map_to_scalar_field(p)))


def commitment(inp):
    c = pedersen.commit([scalar(s) for s in inp["scalars"]])
    return valid(commitment=hx(curve.encode(c)),
                 map_to_scalar_field=scalar_hex(curve.map_to_scalar_field(c)))


def tree_key(inp):
    key = pedersen.get_tree_key(unhex(inp["address"]), le_int(unhex(inp["tree_index"])),
                                inp["sub_index"])
    return valid(tree_key=hx(key))


def tree_root(inp):
    t = Tree()
    roots = []
    for op in inp["operations"]:
        if op["op"] == "insert":
            t.insert(unhex(op["key"]), unhex(op["value"]))
        else:
            t.delete(unhex(op["key"]))
        roots.append(hx(curve.encode(t.root())))
    return valid(roots=roots)


def ipa_case(inp):
    try:
        c = curve.decode(unhex(inp["commitment"]))
        proof = ipa.decode_proof(unhex(inp["proof"]))
    except curve.PointError as e:
        return invalid(e.rule)
    except ipa.ProofError as e:
        return invalid(e.rule)
    z, y = field_element(inp["z"]), scalar(inp["y"])
    label = inp["transcript_label"].encode()
    t = Transcript(label)
    if not ipa.verify(t, c, z, y, proof):
        return invalid("proof.rejected")
    value = {"transcript_challenge_state": scalar_hex(t.challenge(b"state"))}
    if "poly" in inp:
        poly = [scalar(s) for s in inp["poly"]]
        cp = pedersen.commit(poly)
        (ls, rs, a), _ = ipa.prove(Transcript(label), cp, poly, z)
        value["proof"] = hx(ipa.encode_proof(ls, rs, a))
    return valid(**value)


def multiproof_case(inp):
    try:
        proof = multiproof.decode_multiproof(unhex(inp["proof"]))
        queries = []
        for q in inp["queries"]:
            enc = unhex(q["commitment"])
            queries.append((enc, curve.decode(enc), int(q["z"]), scalar(q["y"])))
    except curve.PointError as e:
        return invalid(e.rule)
    except ipa.ProofError as e:
        return invalid(e.rule)
    label = inp["transcript_label"].encode()
    t = Transcript(label)
    try:
        ok = multiproof.verify_encoded(t, [(e, z, y) for e, _, z, y in queries],
                                       [(p, z, y) for _, p, z, y in queries], proof)
    except ipa.ProofError as e:
        return invalid(e.rule)
    if not ok:
        return invalid("proof.rejected")
    value = {"transcript_challenge_state": scalar_hex(t.challenge(b"state"))}
    if "polys" in inp:
        polys = [[scalar(s) for s in p] for p in inp["polys"]]
        opened = [polys[q["poly"]] for q in inp["queries"]]
        d, ipa_proof = multiproof.prove(
            Transcript(label), [(p, z, y) for _, p, z, y in queries], opened)
        value["proof"] = hx(multiproof.encode_multiproof(d, ipa_proof))
    return valid(**value)


def witness_case(inp):
    forms = []
    try:
        if "ssz" in inp:
            forms.append(ssz.decode(unhex(inp["ssz"])))
    except ssz.SszError as e:
        return invalid(e.rule)
    if "json" in inp:
        w = json_witness.read_witness(inp["json"])
        if forms and ssz.encode(w) != ssz.encode(forms[0]):
            raise ValueError("the JSON and SSZ forms are different witnesses")
        if json_witness.write_witness(w) != inp["json"]:
            raise ValueError("the JSON is not what the §4.1 writer produces")
        forms.append(w)
    w = forms[0]
    if "ssz" in inp and ssz.encode(w) != unhex(inp["ssz"]):
        raise ValueError("SSZ does not re-encode to its bytes")
    try:
        v = verify(unhex(inp["pre_state_root"]), w)
    except Invalid as e:
        return invalid(e.rule)
    keys = [{"key": hx(k), "current_value": None if cur is None else hx(cur), "bound": bound}
            for k, cur, bound, _ in v.keys()]
    return valid(post_state_root=hx(post_state_root(v)), openings=v.openings,
                 unbound_absences=v.unbound_absences(), unbound_writes=v.unbound_writes(),
                 keys=keys)


def fractional_case(inp):
    anchors = {"state_root": fractional.STATE_ROOT, "coordinator_root": fractional.COORDINATOR_ROOT}
    if inp["anchor"] not in anchors:
        raise ValueError(f"unknown anchor {inp['anchor']!r}")
    anchor = (anchors[inp["anchor"]], unhex(inp["root"]))
    try:
        v = fractional.verify_fractional(unhex(inp["proof"]), anchor)
    except Invalid as e:
        return invalid(e.rule)
    post_root, post_coordinator = v.post_roots()
    keys = [{"key": hx(k), "current_value": None if cur is None else hx(cur),
             "new_value": None if new is None else hx(new), "deleted": gone}
            for k, cur, new, gone in v.keys()]
    shards = [{"index": i, "commitment": hx(c)} for i, c in v.shards]
    return valid(keys=keys, shards=shards, openings=v.openings, state_root=hx(v.root),
                 coordinator_root=None if v.coordinator is None else hx(v.coordinator),
                 post_state_root=hx(post_root),
                 post_coordinator_root=None if post_coordinator is None else hx(post_coordinator))


def binary_tree_root(inp):
    h = binary_tree.HASHES[inp["hash"]]
    root_of = binary_tree.eip8297_root if inp["tree"] == "eip8297" else binary_tree.eip7864_root
    entries, roots = {}, []
    for op in inp["operations"]:
        key = unhex(op["key"])
        if op["op"] == "insert":
            entries[key] = unhex(op["value"])
        elif op["op"] == "delete" and inp["tree"] == "eip8297" and key in entries:
            del entries[key]
        else:
            raise ValueError(f"cannot apply {op['op']} of {op['key']}")
        roots.append(hx(root_of(entries, h)))
    return valid(roots=roots)


def binary_witness_case(inp):
    try:
        v = binary_witness.verify(unhex(inp["witness"]), inp["tree"], inp["hash"],
                                  unhex(inp["pre_state_root"]))
    except binary_witness.Invalid as e:
        return invalid(e.rule)
    keys = []
    for key, pre, new in zip(v.keys, v.pre_values, v.writes):
        write = None if new is None else ("delete" if new == "delete" else hx(new))
        keys.append({"key": hx(key), "pre_value": None if pre is None else hx(pre), "write": write})
    return valid(keys=keys, post_state_root=hx(v.post_root))


HANDLERS = {
    "binary_tree_root": binary_tree_root,
    "binary_witness": binary_witness_case,
    "point_codec": point_codec,
    "commitment": commitment,
    "tree_key": tree_key,
    "tree_root": tree_root,
    "ipa": ipa_case,
    "multiproof": multiproof_case,
    "witness": witness_case,
    "fractional_proof": fractional_case,
}


def answer(case):
    handler = HANDLERS.get(case.get("kind"))
    if handler is None:
        return {"verdict": "unsupported"}
    try:
        return handler(case["input"])
    except Exception as e:  # an input this implementation cannot read: report, never guess
        return {"verdict": "error", "detail": f"{type(e).__name__}: {e}"}


def main():
    if "--persistent" in sys.argv[1:] or os.environ.get("FVERKLE_VECTORS_MODE") == "persistent":
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(answer(json.loads(line))), flush=True)
        return 0
    print(json.dumps(answer(json.load(sys.stdin))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
