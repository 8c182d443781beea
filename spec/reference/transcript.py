"""WIRE.md §7, §15.1: the Fiat-Shamir transcript (SHA-256, no length prefixes)."""

import hashlib

from curve import encode
from field import R, le32


class Transcript:
    def __init__(self, label):
        self.state = bytearray(label)

    def append_bytes(self, label, data):
        self.state += label + data

    def append_point(self, label, point_or_bytes):
        data = point_or_bytes if isinstance(point_or_bytes, bytes) else encode(point_or_bytes)
        self.append_bytes(label, data)

    def append_scalar(self, label, v):
        self.append_bytes(label, le32(v % R))

    def domain_sep(self, label):
        self.state += label

    def challenge(self, label):
        self.state += label
        c = int.from_bytes(hashlib.sha256(bytes(self.state)).digest(), "little") % R
        self.state = bytearray()
        self.append_scalar(label, c)
        return c
