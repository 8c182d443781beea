"""WIRE.md §12-§13: Pedersen commitment and hash, get_tree_key, node commitments."""

from crs import G
from curve import map_to_scalar_field, msm
from field import le32, le_int

MAX_HASH_INPUT = 255 * 16


def commit(values):
    """Σ values[i]·G_i (W-PED-1); fewer than 256 values are padded with zeros."""
    return msm(G[: len(values)], values)


def commit_sparse(terms):
    """Σ v·G_i over (i, v) pairs."""
    return msm([G[i] for i, _ in terms], [v for _, v in terms])


def pedersen_hash(inp):
    """W-PED-2: LE32(mtf(Σ ints_j·G_j)), ints_0 = 2 + 256·len, then 16-byte LE chunks."""
    if len(inp) > MAX_HASH_INPUT:
        raise ValueError("pedersen_hash input longer than 4080 bytes")
    terms = [(0, 2 + 256 * len(inp))]
    for i in range(0, len(inp), 16):
        terms.append((1 + i // 16, le_int(inp[i : i + 16])))
    return le32(map_to_scalar_field(commit_sparse(terms)))


def get_tree_key(address32, tree_index, sub_index):
    """W-KEY-1: pedersen_hash(address32 ‖ LE32(tree_index))[0..31] ‖ sub_index."""
    return pedersen_hash(address32 + le32(tree_index))[:31] + bytes([sub_index])


def suffix_tree_values(values, half):
    """W-NODE-1: the 256 values c of C1 (half 0) or C2 (half 1) from {suffix: 32 bytes}."""
    c = [0] * 256
    for s, v in values.items():
        if s // 128 != half or v is None:
            continue
        j = s % 128
        c[2 * j] = le_int(v[:16]) + (1 << 128)
        c[2 * j + 1] = le_int(v[16:])
    return c


def leaf_values(stem, c1, c2):
    """W-NODE-1: the leaf's values [1, LE(stem), mtf(C1), mtf(C2), 0, …]."""
    return [1, le_int(stem), map_to_scalar_field(c1), map_to_scalar_field(c2)]
