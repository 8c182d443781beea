"""WIRE.md §0.3, §7, §15.3: the multiproof over openings (C_i, z_i, y_i)."""

import curve
import ipa
import polynomial
from field import R, batch_inv_r
from pedersen import commit

MULTIPROOF_LEN = 576


def decode_multiproof(b):
    """(D, (L, R, a)) from 576 bytes (W-PROOF-1..3)."""
    if len(b) != MULTIPROOF_LEN:
        raise ipa.ProofError("proof.length")
    try:
        d = curve.decode(b[:32])
    except curve.PointError:
        raise ipa.ProofError("proof.point")
    return d, ipa.decode_proof(b[32:])


def _absorb(transcript, openings):
    transcript.domain_sep(b"multiproof")
    for c, z, y in openings:
        transcript.append_point(b"C", c)
        transcript.append_scalar(b"z", z)
        transcript.append_scalar(b"y", y)
    return transcript.challenge(b"r")


def verify(transcript, openings, proof):
    """W-MP-2 over openings [(C point, z, y)]; proof = (D, (L, R, a)). True or False.

    Raises ProofError("proof.no_openings") when there is no opening.
    """
    return verify_encoded(transcript, [(curve.encode(c), z, y) for c, z, y in openings],
                          openings, proof)


def verify_encoded(transcript, encoded, openings, proof):
    """W-MP-2 with each commitment given twice: `encoded` [(32 bytes, z, y)] is what the
    transcript absorbs, `openings` [(point, z, y)] the same commitments decoded."""
    if not openings:
        raise ipa.ProofError("proof.no_openings")
    d, ipa_proof = proof
    r = _absorb(transcript, encoded)
    transcript.append_point(b"D", d)
    t = transcript.challenge(b"t")
    diffs = [(t - z) % R for _, z, _ in openings]
    if any(x == 0 for x in diffs):
        return False
    inv = batch_inv_r(diffs)
    # r^i/(t - z_i) per opening; openings of one commitment are summed first.
    coeff = {}
    points = {}
    g2 = 0
    power = 1
    for (enc, _, _), (c, _, y), iv in zip(encoded, openings, inv):
        k = power * iv % R
        g2 = (g2 + k * y) % R
        points[enc] = c
        coeff[enc] = (coeff.get(enc, 0) + k) % R
        power = power * r % R
    keys = list(coeff)
    e = curve.msm([points[k] for k in keys], [coeff[k] for k in keys])
    transcript.append_point(b"E", e)
    return ipa.verify(transcript, curve.sub(e, d), t, g2, ipa_proof)


def prove(transcript, openings, polys):
    """W-MP-1. openings: [(C, z, y)], polys[i] the 256 values of opening i's polynomial."""
    r = _absorb(transcript, openings)
    by_z = {}
    power = 1
    powers = []
    for i, (_, z, _) in enumerate(openings):
        powers.append(power)
        acc = by_z.setdefault(z, [0] * 256)
        for j, v in enumerate(polys[i]):
            if v:
                acc[j] = (acc[j] + power * v) % R
        power = power * r % R
    g = [0] * 256
    for z, f in by_z.items():
        q = polynomial.divide_on_domain(f, z)
        g = [(a + b) % R for a, b in zip(g, q)]
    d = commit(g)
    transcript.append_point(b"D", d)
    t = transcript.challenge(b"t")
    h = [0] * 256
    for z, f in by_z.items():
        k = pow((t - z) % R, R - 2, R)
        h = [(a + k * b) % R for a, b in zip(h, f)]
    e = commit(h)
    transcript.append_point(b"E", e)
    a = [(x - y) % R for x, y in zip(h, g)]
    ipa_proof, _ = ipa.prove(transcript, curve.sub(e, d), a, t)
    return d, ipa_proof


def encode_multiproof(d, ipa_proof):
    return curve.encode(d) + ipa.encode_proof(*ipa_proof)
