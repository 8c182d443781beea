"""WIRE.md §1: the execution witness model, shared by the SSZ and JSON readers."""

from collections import namedtuple

SuffixDiff = namedtuple("SuffixDiff", "suffix current_value new_value")
StemDiff = namedtuple("StemDiff", "stem suffix_diffs")
Witness = namedtuple(
    "Witness",
    "state_diff other_stems depth_extension_present commitments_by_path d cl cr final_evaluation",
)


def multiproof_bytes(w):
    """The 576-byte multiproof of §3: D ‖ L_0..L_7 ‖ R_0..R_7 ‖ a (little-endian)."""
    return w.d + b"".join(w.cl) + b"".join(w.cr) + w.final_evaluation
