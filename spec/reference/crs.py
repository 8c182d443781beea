"""WIRE.md §11: the 256 CRS generators by try-and-increment, and Q."""

import hashlib

from curve import GENERATOR, PointError, decode
from field import P

SEED = b"eth_verkle_oct_2021"
WIDTH = 256


def generate(n=WIDTH, seed=SEED):
    """G_0..G_{n-1} (W-CRS-1)."""
    out = []
    i = 0
    while len(out) < n:
        h = hashlib.sha256(seed + i.to_bytes(8, "big")).digest()
        i += 1
        x = int.from_bytes(h, "big") % P
        try:
            out.append(decode(x.to_bytes(32, "big")))
        except PointError:
            continue
    return out


G = generate()
Q = GENERATOR
