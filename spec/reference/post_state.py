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
    changed, _, _ = apply_writes(verified)
    if b"" not in changed:
        return verified.pre_state_root
    return curve.encode(changed[b""])


class Undecided(Exception):
    """FRACTIONAL.md §5.1, F-DEL: the writes empty the proven children of the internal
    node at `path`, which has children the proof does not open."""

    def __init__(self, path):
        super().__init__(f"undecided collapse at {path.hex()}")
        self.path = path


def apply_writes(verified, deleted=frozenset()):
    """Every new_value applied to the proven tree, and every key of `deleted` removed
    (FRACTIONAL.md §5.1; a standard witness deletes nothing): (changed, built, kinds).
    `changed` maps each node of the proven tree whose commitment the writes change (the
    root included) to its new point; `built` maps each node step 2 builds under a proven
    slot (the slot's new top and everything below it) to (kind, point, stem), kind "leaf"
    or "internal"; `kinds` maps each proven node whose kind the deletions change to
    (kind, point, stem): "empty" (removed) or "leaf" (a leaf that rose into its place). A
    built internal node has no child but the built nodes below it."""
    w = verified.witness
    nodes = verified.nodes
    changed = {}  # path -> new commitment point
    kinds = {}  # path -> (kind, point, stem) for proven nodes whose kind changed
    # 1. Present stems: the written and deleted halves, then the leaf.
    for s, byte in zip(w.state_diff, w.depth_extension_present):
        if byte & 7 != PRESENT:
            continue
        path = s.stem[: byte >> 3]
        leaf_terms = []
        deletes = False
        for half in (0, 1):
            terms = []
            for d in s.suffix_diffs:
                gone = s.stem + bytes([d.suffix]) in deleted
                deletes = deletes or gone
                if d.suffix // 128 != half or (d.new_value is None and not gone):
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
            leaf = _shift(nodes[path].point, leaf_terms)
            changed[path] = leaf
            # No value left: the leaf commits to its marker and stem alone; it is removed.
            if deletes and curve.eq(leaf, commit(leaf_values(s.stem, curve.IDENTITY, curve.IDENTITY))):
                changed[path] = curve.IDENTITY
                kinds[path] = ("empty", curve.IDENTITY, None)
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
        if node.kind != "empty" and path not in kinds:
            entries.append((node.stem, changed.get(path, node.point)))
        kinds.pop(path, None)
        entries.sort()
        changed[path] = _subtree(entries, path, built)

    def after(p):
        """(kind, point, stem) of the node at proven path p after the writes."""
        if p in kinds:
            return kinds[p]
        if p in built:
            return built[p]
        n = nodes[p]
        return n.kind, changed.get(p, n.point), n.stem

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
            parents.setdefault(p[:-1], []).append((p[-1], delta, p))
        for parent, terms in parents.items():
            changed[parent] = _shift(nodes[parent].point, [(i, d) for i, d, _ in terms])
            if parent:
                pending.add(parent)
                _collapse(parent, [p for _, _, p in terms], nodes, after, changed, kinds)
    return changed, built, kinds


def _collapse(parent, changed_children, nodes, after, changed, kinds):
    """F-DEL step 2 for the proven internal node `parent` (not the root)."""
    shrinks = False
    for p in changed_children:
        old, new = nodes[p].kind, after(p)[0]
        shrinks = shrinks or (old != "empty" and new == "empty") or (old == "internal" and new == "leaf")
    if not shrinks:
        return
    children = [parent + bytes([i]) for i in sorted(nodes[parent].children)]
    kept = [after(c) for c in children if after(c)[0] != "empty"]
    if len(kept) >= 2 or any(k[0] == "internal" for k in kept):
        return
    values = [(c[-1], 0 if nodes[c].kind == "empty" else nodes[c].field) for c in children]
    alone = curve.eq(commit_terms(values), nodes[parent].point)
    if kept and alone:
        kinds[parent] = kept[0]  # the lone leaf rises into the node's place
        changed[parent] = kept[0][1]
    elif not kept and alone:
        kinds[parent] = ("empty", curve.IDENTITY, None)
        changed[parent] = curve.IDENTITY
    elif not kept:
        raise Undecided(parent)
