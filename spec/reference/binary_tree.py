"""The two binary state trees of spec/BINARY.md §1, as roots of a set of entries.

- EIP-8297 (partitioned binary tree): prefix-free keys of 1..8192 bytes, leaves
  H(0x00 ‖ key ‖ value), branches H(0x01 ‖ u16be(bit count) ‖ prefix bits ‖ L ‖ R), the
  empty tree 32 zero bytes.
- EIP-7864 (the March 2026 text, go-ethereum's layout): 32-byte keys split into a 31-byte
  stem and a sub-index, one stem node per stem at the shallowest depth where it is alone,
  stem node H(stem ‖ 0x00 ‖ root of its 256-leaf subtree), leaf H(value) for a present value,
  32 zero bytes for an absent one, and H(64 zero bytes) taken as 32 zero bytes.

Both are computed from the whole entry set, as the EIPs define them; an implementation that
keeps a tree and updates it must produce the same roots.
"""

import hashlib

from blake3 import blake3

ZERO32 = bytes(32)
EIP8297_MAX_KEY_LENGTH = 8192
STEM_LENGTH = 31


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


HASHES = {"sha256": sha256, "blake3": blake3}


def bit(data: bytes, i: int) -> int:
    """Bit i of `data`, most significant bit of byte 0 first."""
    return (data[i // 8] >> (7 - i % 8)) & 1


def common_bits(a: bytes, b: bytes, start: int = 0) -> int:
    """The number of bits from `start` on where a and b agree (to the shorter's end)."""
    end = 8 * min(len(a), len(b))
    i = start
    while i < end and bit(a, i) == bit(b, i):
        i += 1
    return i - start


def pack_bits(data: bytes, start: int, count: int) -> bytes:
    """Bits start..start+count of data, most significant first, zero-padded to whole bytes."""
    out = bytearray((count + 7) // 8)
    for i in range(count):
        out[i // 8] |= bit(data, start + i) << (7 - i % 8)
    return bytes(out)


# EIP-8297 -------------------------------------------------------------------------------------

def eip8297_leaf_hash(h, key: bytes, value: bytes) -> bytes:
    return h(b"\x00" + key + value)


def eip8297_branch_hash(h, prefix_len: int, prefix_bits: bytes, left: bytes, right: bytes) -> bytes:
    return h(b"\x01" + prefix_len.to_bytes(2, "big") + prefix_bits + left + right)


def eip8297_check_keys(keys):
    """Raises ValueError unless every key is 1..8192 bytes and no key is a prefix of another
    (checked between neighbours in sorted order, where a prefix would sit)."""
    ordered = sorted(keys)
    for key in ordered:
        if not 1 <= len(key) <= EIP8297_MAX_KEY_LENGTH:
            raise ValueError(f"EIP-8297 key of {len(key)} bytes")
    for a, b in zip(ordered, ordered[1:]):
        if b.startswith(a):
            raise ValueError("EIP-8297 keys are not prefix-free")


def eip8297_root(entries: dict, h=blake3) -> bytes:
    """The EIP-8297 root of {key: 32-byte value}."""
    eip8297_check_keys(entries)
    ordered = sorted(entries.items())
    if not ordered:
        return ZERO32
    return _eip8297_node(ordered, 0, h)


def _eip8297_node(entries, depth, h):
    if len(entries) == 1:
        key, value = entries[0]
        return eip8297_leaf_hash(h, key, value)
    first, last = entries[0][0], entries[-1][0]
    # Sorted keys: the run shared by all is the run shared by the first and the last.
    split = depth + common_bits(first, last, depth)
    cut = next(i for i, (k, _) in enumerate(entries) if bit(k, split) == 1)
    left = _eip8297_node(entries[:cut], split + 1, h)
    right = _eip8297_node(entries[cut:], split + 1, h)
    return eip8297_branch_hash(h, split - depth, pack_bits(first, depth, split - depth), left, right)


# EIP-7864 -------------------------------------------------------------------------------------

def eip7864_hash64(h, data: bytes) -> bytes:
    """H of a 64-byte node input, with 64 zero bytes hashing to 32 zero bytes."""
    return ZERO32 if data == bytes(64) else h(data)


def eip7864_subtree_root(h, values: dict) -> bytes:
    """Root of a stem's 256-leaf subtree from {sub-index: value} (present values only)."""
    level = [h(values[i]) if i in values else ZERO32 for i in range(256)]
    while len(level) > 1:
        level = [eip7864_hash64(h, level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def eip7864_stem_hash(h, stem: bytes, subtree_root: bytes) -> bytes:
    return eip7864_hash64(h, stem + b"\x00" + subtree_root)


def eip7864_root(entries: dict, h=sha256) -> bytes:
    """The EIP-7864 root of {32-byte key: 32-byte value}."""
    stems = {}
    for key, value in entries.items():
        if len(key) != 32 or len(value) != 32:
            raise ValueError("EIP-7864 keys and values are 32 bytes")
        stems.setdefault(key[:STEM_LENGTH], {})[key[STEM_LENGTH]] = value
    ordered = sorted(stems.items())
    if not ordered:
        return ZERO32
    return _eip7864_node(ordered, 0, h)


def _eip7864_node(stems, depth, h):
    if not stems:
        return ZERO32
    if len(stems) == 1:
        stem, values = stems[0]
        return eip7864_stem_hash(h, stem, eip7864_subtree_root(h, values))
    cut = next((i for i, (s, _) in enumerate(stems) if bit(s, depth) == 1), len(stems))
    left = _eip7864_node(stems[:cut], depth + 1, h)
    right = _eip7864_node(stems[cut:], depth + 1, h)
    return eip7864_hash64(h, left + right)
