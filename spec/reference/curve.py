"""WIRE.md §0.1, §10: Bandersnatch, Banderwagon, encoding and decoding, map_to_scalar_field.

Points are tuples (X, Y, T, Z) in extended twisted Edwards coordinates:
x = X/Z, y = Y/Z, x*y = T/Z.
"""

from field import P, R, inv_p, is_square_p, sqrt_p

A = P - 5
D = 0x6389C12633C267CBC66E3BF86BE3B6D8CB66677177E54F92B369F2F5188D58E7
GEN_X = 18886178867200960497001835917649091219057080094937609519140440539760939937304
GEN_Y = 19188667384257783945677642223292697773471335439753913231509108946878080696678

IDENTITY = (0, 1, 0, 1)


class PointError(Exception):
    """A 32-byte string that is not a Banderwagon element; `rule` is the vector rule id."""

    def __init__(self, rule):
        super().__init__(rule)
        self.rule = rule


def from_affine(x, y):
    return (x, y, x * y % P, 1)


GENERATOR = from_affine(GEN_X, GEN_Y)


def add(p1, p2):
    """Twisted Edwards addition (W-CURVE-1) in extended coordinates."""
    x1, y1, t1, z1 = p1
    x2, y2, t2, z2 = p2
    a = x1 * x2 % P
    b = y1 * y2 % P
    c = D * t1 % P * t2 % P
    d = z1 * z2 % P
    e = ((x1 + y1) * (x2 + y2) - a - b) % P
    f = (d - c) % P
    g = (d + c) % P
    h = (b - A * a) % P
    return (e * f % P, g * h % P, e * h % P, f * g % P)


def double(p1):
    x1, y1, _, z1 = p1
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    d = A * a % P
    e = ((x1 + y1) * (x1 + y1) - a - b) % P
    g = (d + b) % P
    f = (g - c) % P
    h = (d - b) % P
    return (e * f % P, g * h % P, e * h % P, f * g % P)


def neg(p1):
    x1, y1, t1, z1 = p1
    return ((-x1) % P, y1, (-t1) % P, z1)


def sub(p1, p2):
    return add(p1, neg(p2))


def mul(p1, k):
    """k·P by double-and-add (k an integer, reduced mod r)."""
    k %= R
    acc = IDENTITY
    for bit in bin(k)[2:]:
        acc = double(acc)
        if bit == "1":
            acc = add(acc, p1)
    return acc


def eq(p1, p2):
    """Banderwagon equality (W-CURVE-2): x1·y2 = x2·y1."""
    return p1[0] * p2[1] % P == p2[0] * p1[1] % P


def is_identity(p1):
    return p1[0] % P == 0


def affine(p1):
    zi = inv_p(p1[3])
    return p1[0] * zi % P, p1[1] * zi % P


def _positive(y):
    return y > P - y


def encode(p1):
    """The 32-byte encoding (W-CURVE-3): big-endian x of the representative with positive y."""
    if is_identity(p1):
        return bytes(32)
    x, y = affine(p1)
    if not _positive(y):
        x = (-x) % P
    return x.to_bytes(32, "big")


def decode(b):
    """Decodes 32 bytes (W-CURVE-4); raises PointError with the rule id."""
    if len(b) != 32:
        raise PointError("point.length")
    x = int.from_bytes(b, "big")
    if x >= P:
        raise PointError("point.x_not_canonical")
    x2 = x * x % P
    u = (1 - A * x2) % P
    v = (1 - D * x2) % P
    # y² = u/v has a root exactly when u·v is a square (or u = 0); the subgroup check
    # follows, and the root is computed last, for points that pass both.
    if u != 0 and not is_square_p(u * v % P):
        raise PointError("point.not_on_curve")
    if not is_square_p(u):
        raise PointError("point.not_in_subgroup")
    y = sqrt_p(u * inv_p(v) % P)
    if not _positive(y):
        y = P - y
    return from_affine(x, y)


def map_to_scalar_field(p1):
    """mtf (W-CURVE-5): x/y as an integer below p, reduced mod r; the identity maps to 0."""
    if is_identity(p1):
        return 0
    return p1[0] * inv_p(p1[1]) % P % R


def msm(points, scalars):
    """Σ scalars[i]·points[i] by Pippenger's bucket method (variable time)."""
    pairs = [(pt, k % R) for pt, k in zip(points, scalars) if k % R]
    if not pairs:
        return IDENTITY
    if len(pairs) == 1:
        return mul(pairs[0][0], pairs[0][1])
    bits = max(k.bit_length() for _, k in pairs)
    c = 4 if len(pairs) < 32 else (6 if len(pairs) < 200 else 8)
    windows = (bits + c - 1) // c
    mask = (1 << c) - 1
    result = IDENTITY
    for w in range(windows - 1, -1, -1):
        for _ in range(c):
            result = double(result)
        buckets = [None] * (1 << c)
        shift = w * c
        for pt, k in pairs:
            j = (k >> shift) & mask
            if j:
                buckets[j] = pt if buckets[j] is None else add(buckets[j], pt)
        running = IDENTITY
        total = IDENTITY
        for j in range(mask, 0, -1):
            if buckets[j] is not None:
                running = add(running, buckets[j])
            total = add(total, running)
        result = add(result, total)
    return result
