"""WIRE.md §6.4: the post-state root of a verified witness (W-POST-1)."""

import curve
from crs import G
from pedersen import commit, leaf_values, suffix_tree_values
from witness import ABSENT_EMPTY, PRESENT, value_halves


def _shift(point, terms):
    """point + Σ delta·G_i over (i, delta) pairs."""
    return curve.add(point, curve.msm([G[i] for i, _ in terms], [d for _, d in terms]))


def _new_leaf(stem, values):
    c1 = commit(suffix_tree_values(values, 0))
    c2 = commit(suffix_tree_values(values, 1))
    return commit(leaf_values(stem, c1, c2))


def _subtree(entries, path, built):
    """One leaf, or an internal node over the groups sharing the next stem byte; records
    every node it builds in `built` as path -> (kind, point, stem)."""
    if len(entries) == 1:
        stem, point = entries[0]
        built[path] = ("leaf", point, stem)
        return point
    groups = {}
    for stem, point in entries:
        groups.setdefault(stem[len(path)], []).append((stem, point))
    terms = [
        (b, curve.map_to_scalar_field(_subtree(g, path + bytes([b]), built)))
        for b, g in groups.items()
    ]
    point = commit_terms(terms)
    built[path] = ("internal", point, None)
    return point


def commit_terms(terms):
    return curve.msm([G[i] for i, _ in terms], [v for _, v in terms])


def post_state_root(verified):
    """The compressed root after applying every new_value (null = not written)."""
    changed, _ = apply_writes(verified)
    if b"" not in changed:
        return verified.pre_state_root
    return curve.encode(changed[b""])


def apply_writes(verified):
    """Every new_value applied to the proven tree: (changed, built). `changed` maps each
    node of the proven tree whose commitment the writes change (the root included) to its
    new point; `built` maps each node step 2 builds under a proven slot (the slot's new top
    and everything below it) to (kind, point, stem), kind "leaf" or "internal". A built
    internal node has no child but the built nodes below it."""
    w = verified.witness
    nodes = verified.nodes
    changed = {}  # path -> new commitment point
    # 1. Present stems: the written halves, then the leaf.
    for s, byte in zip(w.state_diff, w.depth_extension_present):
        if byte & 7 != PRESENT:
            continue
        path = s.stem[: byte >> 3]
        leaf_terms = []
        for half in (0, 1):
            terms = []
            for d in s.suffix_diffs:
                if d.suffix // 128 != half or d.new_value is None:
                    continue
                old_low, old_high = value_halves(d.current_value)
                new_low, new_high = value_halves(d.new_value)
                j = d.suffix % 128
                terms += [(2 * j, new_low - old_low), (2 * j + 1, new_high - old_high)]
            if not terms:
                continue
            sub = nodes[path + bytes([2 + half])]
            new_sub = _shift(sub.point, terms)
            changed[path + bytes([2 + half])] = new_sub
            leaf_terms.append((2 + half, curve.map_to_scalar_field(new_sub) - sub.field))
        if leaf_terms:
            changed[path] = _shift(nodes[path].point, leaf_terms)
    # 2. Absent stems with writes: new leaves, grouped by their proven slot.
    slots = {}
    built = {}
    for s, byte in zip(w.state_diff, w.depth_extension_present):
        if byte & 7 == PRESENT:
            continue
        values = {d.suffix: d.new_value for d in s.suffix_diffs if d.new_value is not None}
        if not values:
            continue
        slots.setdefault(s.stem[: byte >> 3], []).append((s.stem, _new_leaf(s.stem, values)))
    for path, entries in slots.items():
        node = nodes[path]
        if node.kind != "empty":
            entries.append((node.stem, changed.get(path, node.point)))
        entries.sort()
        changed[path] = _subtree(entries, path, built)
    # 3. Internal nodes above changed nodes, deepest first.
    pending = {p for p in changed if p and nodes[p].kind != "suffix"}
    while pending:
        depth = max(len(p) for p in pending)
        level = [p for p in pending if len(p) == depth]
        parents = {}
        for p in level:
            pending.discard(p)
            old = 0 if nodes[p].kind == "empty" else nodes[p].field
            delta = curve.map_to_scalar_field(changed[p]) - old
            parents.setdefault(p[:-1], []).append((p[-1], delta))
        for parent, terms in parents.items():
            changed[parent] = _shift(nodes[parent].point, terms)
            if parent:
                pending.add(parent)
    return changed, built
