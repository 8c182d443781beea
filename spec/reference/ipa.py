"""WIRE.md §0.3, §15.2: the inner-product argument, 8 rounds over width 256."""

import curve
from crs import G, Q
from field import R, inv_r, scalar_from_le32
from polynomial import WIDTH, inner, lagrange_at

ROUNDS = 8
PROOF_LEN = 544


class ProofError(Exception):
    def __init__(self, rule):
        super().__init__(rule)
        self.rule = rule


def decode_proof(b):
    """(L[8], R[8], a) from 544 bytes (W-PROOF-1..3)."""
    if len(b) != PROOF_LEN:
        raise ProofError("proof.length")
    pts = []
    for i in range(2 * ROUNDS):
        try:
            pts.append(curve.decode(b[32 * i : 32 * i + 32]))
        except curve.PointError:
            raise ProofError("proof.point")
    a = scalar_from_le32(b[512:544])
    if a is None:
        raise ProofError("proof.scalar")
    return pts[:ROUNDS], pts[ROUNDS:], a


def encode_proof(ls, rs, a):
    return b"".join(curve.encode(p) for p in ls + rs) + a.to_bytes(32, "little")


def verify(transcript, commitment, z, y, proof):
    """W-IPA-1. `proof` = (L, R, a) decoded; True when the check holds."""
    ls, rs, a = proof
    b = lagrange_at(z)
    transcript.domain_sep(b"ipa")
    transcript.append_point(b"C", commitment)
    transcript.append_scalar(b"input point", z)
    transcript.append_scalar(b"output point", y)
    w = transcript.challenge(b"w")
    xs = []
    for k in range(ROUNDS):
        transcript.append_point(b"L", ls[k])
        transcript.append_point(b"R", rs[k])
        xs.append(transcript.challenge(b"x"))
    if any(x == 0 for x in xs):
        return False
    x_inv = [inv_r(x) for x in xs]
    # s_i = Π_k x_k^(−bit_k(i)), bit_k(i) = bit 7 − k of i.
    s = [1] * WIDTH
    for i in range(WIDTH):
        v = 1
        for k in range(ROUNDS):
            if (i >> (ROUNDS - 1 - k)) & 1:
                v = v * x_inv[k] % R
        s[i] = v
    b0 = inner(s, b)
    # C + y·Q' + Σ (x_k·L_k + x_k⁻¹·R_k) − a·Σ s_i·G_i − a·b0·Q' = 0, as one MSM.
    points = [commitment, Q] + ls + rs + G
    scalars = [1, w * (y - a * b0) % R] + xs + x_inv + [(-a * si) % R for si in s]
    return curve.is_identity(curve.msm(points, scalars))


def prove(transcript, commitment, a, z):
    """The IPA prover of §15.2; returns ((L, R, a0), y)."""
    a = list(a) + [0] * (WIDTH - len(a))
    b = lagrange_at(z)
    y = inner(a, b)
    gens = list(G)
    transcript.domain_sep(b"ipa")
    transcript.append_point(b"C", commitment)
    transcript.append_scalar(b"input point", z)
    transcript.append_scalar(b"output point", y)
    w = transcript.challenge(b"w")
    q = curve.mul(Q, w)
    ls, rs = [], []
    n = WIDTH
    for _ in range(ROUNDS):
        m = n // 2
        a_l, a_r, b_l, b_r, g_l, g_r = a[:m], a[m:], b[:m], b[m:], gens[:m], gens[m:]
        lk = curve.msm(g_l + [q], a_r + [inner(a_r, b_l)])
        rk = curve.msm(g_r + [q], a_l + [inner(a_l, b_r)])
        transcript.append_point(b"L", lk)
        transcript.append_point(b"R", rk)
        ls.append(lk)
        rs.append(rk)
        x = transcript.challenge(b"x")
        xi = inv_r(x)
        a = [(al + x * ar) % R for al, ar in zip(a_l, a_r)]
        b = [(bl + xi * br) % R for bl, br in zip(b_l, b_r)]
        gens = [curve.add(gl, curve.mul(gr, xi)) for gl, gr in zip(g_l, g_r)]
        n = m
    return (ls, rs, a[0]), y
