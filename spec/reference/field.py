"""WIRE.md §0.2, §10: the base field Fq (mod p) and the scalar field Fr (mod r).

Elements are plain Python integers in 0..p-1 or 0..r-1; every function reduces its result.
"""

P = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
R = 0x1CFB69D4CA675F520CCE760202687600FF8F87007419047174FD06B52876E7E1


def inv_p(x):
    """1/x in Fq (x != 0)."""
    return pow(x, P - 2, P)


def inv_r(x):
    """1/x in Fr (x != 0)."""
    return pow(x, R - 2, R)


def batch_inv_r(values):
    """1/v for every v (all non-zero) with one exponentiation (Montgomery's trick)."""
    prefix = []
    acc = 1
    for v in values:
        prefix.append(acc)
        acc = acc * v % R
    inv = inv_r(acc)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = prefix[i] * inv % R
        inv = inv * values[i] % R
    return out


def is_square_p(x):
    """Legendre symbol of x is 1 (x a non-zero square) in Fq."""
    return pow(x, (P - 1) // 2, P) == 1


# Tonelli-Shanks constants: p - 1 = 2^S * Q with Q odd (S = 32).
_S = 0
_Q = P - 1
while _Q % 2 == 0:
    _Q //= 2
    _S += 1
_NON_RESIDUE = next(z for z in range(2, 100) if pow(z, (P - 1) // 2, P) == P - 1)


def sqrt_p(x):
    """A square root of x in Fq, or None when x is not a square."""
    x %= P
    if x == 0:
        return 0
    if pow(x, (P - 1) // 2, P) != 1:
        return None
    m = _S
    c = pow(_NON_RESIDUE, _Q, P)
    t = pow(x, _Q, P)
    root = pow(x, (_Q + 1) // 2, P)
    while t != 1:
        i = 1
        t2 = t * t % P
        while t2 != 1:
            t2 = t2 * t2 % P
            i += 1
        b = pow(c, 1 << (m - i - 1), P)
        m = i
        c = b * b % P
        t = t * c % P
        root = root * b % P
    return root


def le_int(b):
    """The integer of a byte string read little-endian."""
    return int.from_bytes(b, "little")


def le32(v):
    """The 32 little-endian bytes of an integer below 2^256."""
    return v.to_bytes(32, "little")


def scalar_from_le32(b):
    """A canonical scalar (WIRE.md §0.2): 32 bytes little-endian, < r; else None."""
    if len(b) != 32:
        return None
    v = le_int(b)
    return v if v < R else None
