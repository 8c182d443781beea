"""WIRE.md §1-§2: the ExecutionWitness in SSZ, decoded under the canonical rules of §2.6.

A decoded witness is a `Witness` (see witness_model.py); errors are `SszError(rule)`.
"""

from witness_model import StemDiff, SuffixDiff, Witness

MAX_STEMS = 65536
VERKLE_WIDTH = 256
MAX_COMMITMENTS = MAX_STEMS * 33
WITNESS_FIXED = 8
PROOF_FIXED = 12 + 32 + 544
STEM_DIFF_FIXED = 31 + 4
SUFFIX_DIFF_FIXED = 1 + 4 + 4


class SszError(Exception):
    def __init__(self, rule, what):
        super().__init__(f"{rule}: {what}")
        self.rule = rule


def _u32(buf, at, end, what):
    if at + 4 > end:
        raise SszError("ssz.truncated", f"{what}: offset at byte {at} does not fit")
    return int.from_bytes(buf[at : at + 4], "little")


def _variable_fields(buf, start, end, fixed_len, rel_offsets, what):
    """W-SSZ-2/3: a container's offsets; returns their absolute positions."""
    length = end - start
    if length < fixed_len:
        raise SszError("ssz.truncated", f"{what}: needs {fixed_len} bytes, has {length}")
    out = []
    prev = None
    for rel in rel_offsets:
        off = _u32(buf, start + rel, end, what)
        if prev is None and off != fixed_len:
            raise SszError("ssz.offset", f"{what}: first offset {off}, expected {fixed_len}")
        if prev is not None and (off < prev or off > length):
            raise SszError("ssz.offset", f"{what}: offset {off} outside {prev}..={length}")
        prev = off
        out.append(start + off)
    return out


def _list_count(buf, start, end, limit, what):
    """W-SSZ-4: the element count of a list of variable-size elements."""
    length = end - start
    if length == 0:
        return 0
    first = _u32(buf, start, end, what)
    if first == 0 or first % 4 or first > length:
        raise SszError("ssz.offset", f"{what}: bad first list offset {first}")
    if first // 4 > limit:
        raise SszError("ssz.list_length", f"{what}: {first // 4} elements, limit {limit}")
    return first // 4


def _element(buf, start, end, i, count, what):
    length = end - start
    lo = _u32(buf, start + 4 * i, end, what)
    if lo > length:
        raise SszError("ssz.offset", f"{what}: offset {lo} past {length}")
    hi = length
    if i + 1 < count:
        hi = _u32(buf, start + 4 * (i + 1), end, what)
        if hi < lo or hi > length:
            raise SszError("ssz.offset", f"{what}: offset {hi} outside {lo}..={length}")
    return start + lo, start + hi


def _fixed_list(buf, start, end, size, limit, what):
    """W-SSZ-5: a list of fixed-size elements."""
    length = end - start
    if length % size:
        raise SszError("ssz.list_length", f"{what}: {length} bytes is not a multiple of {size}")
    if length // size > limit:
        raise SszError("ssz.list_length", f"{what}: {length // size} elements, limit {limit}")
    return [bytes(buf[i : i + size]) for i in range(start, end, size)]


def _union32(buf, start, end, what):
    """W-SSZ-6: Union[None, Bytes32], exactly 1 or 33 bytes."""
    length = end - start
    if length == 0:
        raise SszError("ssz.union", f"{what}: empty union")
    sel = buf[start]
    if sel not in (0, 1):
        raise SszError("ssz.union", f"{what}: selector {sel}")
    if length != (1 if sel == 0 else 33):
        raise SszError("ssz.union", f"{what}: {length} bytes for selector {sel}")
    return None if sel == 0 else bytes(buf[start + 1 : end])


def decode(buf):
    """Decodes an SSZ ExecutionWitness (W-SSZ-1..7): the proof container before the state diff."""
    if len(buf) > 0xFFFFFFFF:
        raise SszError("ssz.list_length", "more than 2^32 - 1 bytes")
    end = len(buf)
    sd_at, proof_at = _variable_fields(buf, 0, end, WITNESS_FIXED, [0, 4], "ExecutionWitness")
    o_at, e_at, c_at = _variable_fields(buf, proof_at, end, PROOF_FIXED, [0, 4, 8], "VerkleProof")
    other = _fixed_list(buf, o_at, e_at, 31, MAX_STEMS, "other_stems")
    ext = _fixed_list(buf, e_at, c_at, 1, MAX_STEMS, "depth_extension_present")
    comms = _fixed_list(buf, c_at, end, 32, MAX_COMMITMENTS, "commitments_by_path")
    fixed = proof_at + 12
    d = bytes(buf[fixed : fixed + 32])
    ipa_at = fixed + 32
    cl = [bytes(buf[ipa_at + 32 * i : ipa_at + 32 * i + 32]) for i in range(8)]
    cr = [bytes(buf[ipa_at + 256 + 32 * i : ipa_at + 256 + 32 * i + 32]) for i in range(8)]
    final = bytes(buf[ipa_at + 512 : ipa_at + 544])

    stems = []
    count = _list_count(buf, sd_at, proof_at, MAX_STEMS, "state_diff")
    for i in range(count):
        s0, s1 = _element(buf, sd_at, proof_at, i, count, f"state_diff[{i}]")
        (diffs_at,) = _variable_fields(buf, s0, s1, STEM_DIFF_FIXED, [31], f"state_diff[{i}]")
        n = _list_count(buf, diffs_at, s1, VERKLE_WIDTH, f"state_diff[{i}].suffix_diffs")
        diffs = []
        for j in range(n):
            what = f"state_diff[{i}].suffix_diffs[{j}]"
            d0, d1 = _element(buf, diffs_at, s1, j, n, what)
            cur_at, new_at = _variable_fields(buf, d0, d1, SUFFIX_DIFF_FIXED, [1, 5], what)
            cur = _union32(buf, cur_at, new_at, what + ".current_value")
            new = _union32(buf, new_at, d1, what + ".new_value")
            diffs.append(SuffixDiff(buf[d0], cur, new))
        stems.append(StemDiff(bytes(buf[s0 : s0 + 31]), diffs))
    return Witness(stems, other, bytes(b[0] for b in ext), comms, d, cl, cr, final)


def _union_bytes(v):
    return b"\x00" if v is None else b"\x01" + v


def encode(w):
    """The canonical SSZ bytes of a Witness (§2.5)."""
    sd_parts = []
    for s in w.state_diff:
        diff_parts = []
        for d in s.suffix_diffs:
            cur = _union_bytes(d.current_value)
            body = bytes([d.suffix]) + (9).to_bytes(4, "little")
            body += (9 + len(cur)).to_bytes(4, "little") + cur + _union_bytes(d.new_value)
            diff_parts.append(body)
        sd_parts.append(s.stem + (35).to_bytes(4, "little") + _offset_list(diff_parts))
    state_diff = _offset_list(sd_parts)
    other = b"".join(w.other_stems)
    comms = b"".join(w.commitments_by_path)
    proof = PROOF_FIXED.to_bytes(4, "little")
    proof += (PROOF_FIXED + len(other)).to_bytes(4, "little")
    proof += (PROOF_FIXED + len(other) + len(w.depth_extension_present)).to_bytes(4, "little")
    proof += w.d + b"".join(w.cl) + b"".join(w.cr) + w.final_evaluation
    proof += other + w.depth_extension_present + comms
    head = (8).to_bytes(4, "little") + (8 + len(state_diff)).to_bytes(4, "little")
    return head + state_diff + proof


def _offset_list(parts):
    table = b""
    pos = 4 * len(parts)
    for p in parts:
        table += pos.to_bytes(4, "little")
        pos += len(p)
    return table + b"".join(parts)
