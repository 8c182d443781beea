"""WIRE.md §4: reading go-verkle JSON witnesses (W-JSON), and the wrapper search of §4.3."""

from ssz import MAX_COMMITMENTS, MAX_STEMS, VERKLE_WIDTH
from witness_model import StemDiff, SuffixDiff, Witness

WITNESS_KEYS = ("executionWitness", "execution_witness", "witness")
MAX_SEARCH_DEPTH = 64


class JsonError(Exception):
    """A JSON document that is not a readable witness (unreadable input, exit 2)."""


def looks_like_witness(v):
    return isinstance(v, dict) and ("stateDiff" in v or "state_diff" in v) and (
        "verkleProof" in v or "verkle_proof" in v
    )


def find_witnesses(doc):
    """Every witness in document order with its JSON Pointer (§4.3)."""
    if looks_like_witness(doc):
        return [("", doc)]
    out = []
    # Iterative walk: a stack of (pointer, iterator over (step, child)).
    def children(v):
        if isinstance(v, dict):
            return iter(v.items())
        if isinstance(v, list):
            return iter(enumerate(v))
        return None

    root = children(doc)
    if root is None:
        return out
    stack = [("", root)]
    while stack:
        at, it = stack[-1]
        step = next(it, None)
        if step is None:
            stack.pop()
            continue
        key, child = step
        ptr = f"{at}/{key}"
        if isinstance(key, str) and key in WITNESS_KEYS and looks_like_witness(child):
            out.append((ptr, child))
            continue
        sub = children(child)
        if sub is None:
            continue
        if len(stack) > MAX_SEARCH_DEPTH:
            raise JsonError(f"{ptr}: nested deeper than {MAX_SEARCH_DEPTH}")
        stack.append((ptr, sub))
    return out


def find_one_witness(doc):
    found = find_witnesses(doc)
    if not found:
        raise JsonError("no execution witness in the document")
    if len(found) > 1:
        raise JsonError(f"{len(found)} witnesses, e.g. at {found[0][0]!r} and {found[1][0]!r}")
    return found[0]


def _field(obj, camel, snake, at, required=True):
    if not isinstance(obj, dict):
        raise JsonError(f"{at}: expected an object")
    if camel in obj and snake in obj and camel != snake:
        raise JsonError(f"{at}: both {camel} and {snake}")
    if camel in obj:
        return obj[camel], f"{at}/{camel}"
    if snake in obj:
        return obj[snake], f"{at}/{snake}"
    if required:
        raise JsonError(f"{at}: missing {camel}")
    return None, at


def _array(v, at, limit):
    if not isinstance(v, list):
        raise JsonError(f"{at}: expected an array")
    if len(v) > limit:
        raise JsonError(f"{at}: {len(v)} entries, limit {limit}")
    return v


_HEX = set("0123456789abcdefABCDEF")


def _hex(v, at, size=None, limit=None):
    """0x-prefixed or bare hex; an odd digit count is read left-padded with one 0."""
    if not isinstance(v, str):
        raise JsonError(f"{at}: expected a hex string")
    s = v[2:] if v[:2] in ("0x", "0X") else v
    n = (len(s) + 1) // 2
    if size is not None and n != size:
        raise JsonError(f"{at}: {n} bytes, expected {size}")
    if limit is not None and n > limit:
        raise JsonError(f"{at}: {n} bytes, limit {limit}")
    if not set(s) <= _HEX:
        raise JsonError(f"{at}: not hex")
    if len(s) % 2:
        s = "0" + s
    return bytes.fromhex(s)


def _suffix(v, at):
    """§4.2: an integer 0..255, canonical decimal digits, or 0x and one or two hex digits."""
    if isinstance(v, bool):
        raise JsonError(f"{at}: bad suffix")
    if isinstance(v, int):
        if 0 <= v <= 255:
            return v
        raise JsonError(f"{at}: bad suffix")
    if isinstance(v, str):
        if v[:2] in ("0x", "0X"):
            h = v[2:]
            if 1 <= len(h) <= 2 and set(h) <= _HEX:
                return int(h, 16)
        elif v == "0" or (
            0 < len(v) <= 3 and v[0] != "0" and all(c in "0123456789" for c in v)
        ):
            n = int(v)
            if n <= 255:
                return n
    raise JsonError(f"{at}: bad suffix {v!r}")


def _optional32(obj, camel, snake, at):
    v, p = _field(obj, camel, snake, at, required=False)
    return None if v is None else _hex(v, p, 32)


def read_witness(v, at=""):
    """A bare witness object into the §1 model (final_evaluation stored little-endian)."""
    sd, sd_at = _field(v, "stateDiff", "state_diff", at)
    state_diff = []
    for i, s in enumerate(_array(sd, sd_at, MAX_STEMS)):
        sp = f"{sd_at}/{i}"
        stem_v, stem_at = _field(s, "stem", "stem", sp)
        stem = _hex(stem_v, stem_at, 31)
        dv, dat = _field(s, "suffixDiffs", "suffix_diffs", sp)
        diffs = []
        for j, d in enumerate(_array(dv, dat, VERKLE_WIDTH)):
            p = f"{dat}/{j}"
            sv, sat = _field(d, "suffix", "suffix", p)
            diffs.append(
                SuffixDiff(
                    _suffix(sv, sat),
                    _optional32(d, "currentValue", "current_value", p),
                    _optional32(d, "newValue", "new_value", p),
                )
            )
        state_diff.append(StemDiff(stem, diffs))
    vp, vpp = _field(v, "verkleProof", "verkle_proof", at)
    ov, oat = _field(vp, "otherStems", "other_stems", vpp)
    other = [_hex(x, f"{oat}/{k}", 31) for k, x in enumerate(_array(ov, oat, MAX_STEMS))]
    ev, eat = _field(vp, "depthExtensionPresent", "depth_extension_present", vpp)
    ext = _hex(ev, eat, limit=MAX_STEMS)
    cv, cat = _field(vp, "commitmentsByPath", "commitments_by_path", vpp)
    comms = [_hex(x, f"{cat}/{k}", 32) for k, x in enumerate(_array(cv, cat, MAX_COMMITMENTS))]
    dv, dat = _field(vp, "d", "d", vpp)
    d = _hex(dv, dat, 32)
    ip, ipp = _field(vp, "ipaProof", "ipa_proof", vpp)
    halves = []
    for name in ("cl", "cr"):
        hv, hat = _field(ip, name, name, ipp)
        items = _array(hv, hat, 1 << 20)
        if len(items) != 8:
            raise JsonError(f"{hat}: {len(items)} entries, expected 8")
        halves.append([_hex(x, f"{hat}/{k}", 32) for k, x in enumerate(items)])
    fv, fat = _field(ip, "finalEvaluation", "final_evaluation", ipp)
    final = _hex(fv, fat, 32)[::-1]
    return Witness(state_diff, other, ext, comms, d, halves[0], halves[1], final)


def _h(b):
    return "0x" + b.hex()


def write_witness(w):
    """The go-verkle JSON of §4.1."""
    return {
        "stateDiff": [
            {
                "stem": _h(s.stem),
                "suffixDiffs": [
                    {
                        "suffix": d.suffix,
                        "currentValue": None if d.current_value is None else _h(d.current_value),
                        "newValue": None if d.new_value is None else _h(d.new_value),
                    }
                    for d in s.suffix_diffs
                ],
            }
            for s in w.state_diff
        ],
        "verkleProof": {
            "otherStems": [_h(x) for x in w.other_stems],
            "depthExtensionPresent": _h(w.depth_extension_present),
            "commitmentsByPath": [_h(x) for x in w.commitments_by_path],
            "d": _h(w.d),
            "ipaProof": {
                "cl": [_h(x) for x in w.cl],
                "cr": [_h(x) for x in w.cr],
                "finalEvaluation": _h(w.final_evaluation[::-1]),
            },
        },
    }
