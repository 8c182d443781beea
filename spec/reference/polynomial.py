"""WIRE.md §14: evaluation form on {0..255}, barycentric weights, division on the domain."""

from field import R, batch_inv_r, inv_r

WIDTH = 256

# A'(i) = Π_{j≠i} (i − j) and w_i = 1/A'(i) (W-POLY-1).
A_PRIME = []
for _i in range(WIDTH):
    _acc = 1
    for _j in range(WIDTH):
        if _j != _i:
            _acc = _acc * (_i - _j) % R
    A_PRIME.append(_acc)
W = batch_inv_r(A_PRIME)


def lagrange_at(z):
    """b(z) (W-POLY-2): the unit vector for z in the domain, else A(z)·w_i/(z − i)."""
    z %= R
    if z < WIDTH:
        b = [0] * WIDTH
        b[z] = 1
        return b
    diffs = [(z - i) % R for i in range(WIDTH)]
    a_z = 1
    for d in diffs:
        a_z = a_z * d % R
    inv = batch_inv_r(diffs)
    return [a_z * W[i] % R * inv[i] % R for i in range(WIDTH)]


def inner(u, v):
    return sum(a * b for a, b in zip(u, v)) % R


def evaluate(f, z):
    return inner(f, lagrange_at(z))


def divide_on_domain(f, k):
    """(f − f_k)/(X − k) in evaluation form (W-POLY-3)."""
    q = [0] * WIDTH
    acc = 0
    for i in range(WIDTH):
        if i == k:
            continue
        q[i] = (f[i] - f[k]) * inv_r((i - k) % R) % R
        acc = (acc + q[i] * W[i]) % R
    q[k] = (-A_PRIME[k] * acc) % R
    return q
