"""WIRE.md §13: the canonical tree over a key/value set, for the `tree_root` vectors.

The tree is compact (W-NODE-3) after any sequence of inserts and deletes, so the root is a
function of the key/value set alone; this module recomputes it from that set.
"""

import curve
from pedersen import commit, leaf_values, suffix_tree_values


class Tree:
    def __init__(self):
        self.stems = {}  # stem -> {suffix: value}

    def insert(self, key, value):
        self.stems.setdefault(key[:31], {})[key[31]] = value

    def delete(self, key):
        values = self.stems.get(key[:31])
        if values is not None:
            values.pop(key[31], None)
            if not values:
                del self.stems[key[:31]]

    def root(self):
        """The root commitment (an internal node; the identity for the empty tree)."""
        return self._internal(sorted(self.stems), 0)

    def _leaf(self, stem):
        values = self.stems[stem]
        c1 = commit(suffix_tree_values(values, 0))
        c2 = commit(suffix_tree_values(values, 1))
        return commit(leaf_values(stem, c1, c2))

    def _internal(self, stems, depth):
        groups = {}
        for s in stems:
            groups.setdefault(s[depth], []).append(s)
        values = [0] * 256
        for b, group in groups.items():
            child = self._leaf(group[0]) if len(group) == 1 else self._internal(group, depth + 1)
            values[b] = curve.map_to_scalar_field(child)
        return commit(values)
