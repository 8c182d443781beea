#!/usr/bin/env python3
"""Circles of imports between the files of each crate in the workspace.

A file imports another when it names an item defined there: through a `use` tree or a path
written in code (`crate::a::b`, `super::x`, `self::y`, or a child module's name), following
`pub use` re-exports to the file that defines the item. Two files that import each other,
directly or through a chain, form a circle; the script prints every circle (one strongly
connected component per line) and exits with 1 when it finds any.

    scripts/check-imports.py [WORKSPACE_DIR]

Only `src/` of each package is read (the library and binary crates and their modules).
CHECK_IMPORTS_DEBUG=1 prints every file-to-file edge to stderr.
"""

import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DEF_RE = (
    r"(?:^|[\s;}{)])(?:pub(?:\([^)]*\))?\s+)?(?:const\s+|async\s+|unsafe\s+|extern\s+\"[^\"]*\"\s+)*"
    r"(?:fn|struct|enum|trait|type|const|static|mod|union|macro_rules!)\s+{name}\b"
)


def strip_comments_and_strings(text):
    """Blanks comments, string and char literals, keeping offsets and line breaks."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 80]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(?:\\.|\\u\{[0-9a-fA-F]+\}|\\x..|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_use_tree(s):
    """`a::{b, c::d as e, f::*}` -> [(["a","b"], "b"), (["a","c","d"], "e"), (["a","f","*"], None)]."""
    tokens = re.findall(r"::|[{},*]|" + IDENT, s)
    pos = 0

    def tree(prefix):
        nonlocal pos
        out = []
        path = list(prefix)
        while pos < len(tokens):
            t = tokens[pos]
            if t == "{":
                pos += 1
                while pos < len(tokens) and tokens[pos] != "}":
                    out += tree(path)
                    if pos < len(tokens) and tokens[pos] == ",":
                        pos += 1
                pos += 1
                return out
            if t == "*":
                pos += 1
                return out + [(path + ["*"], None)]
            if t == "::":
                pos += 1
                continue
            if t in (",", "}"):
                break
            if t == "as":
                pos += 1
                alias = tokens[pos] if pos < len(tokens) else None
                pos += 1
                return out + [(path, alias)]
            path.append(t)
            pos += 1
        if path and len(path) > len(prefix):
            last = path[-1]
            if last == "self":
                path = path[:-1]
                last = path[-1] if path else None
            out.append((path, last))
        return out

    return tree([])


class Module:
    def __init__(self, path, file, children_dir):
        self.path = path  # tuple of segments from the crate root
        self.file = file
        self.children_dir = children_dir
        self.children = {}  # name -> Module
        self.uses = []  # (visibility_pub, segments, alias)
        self.code_paths = []  # segments written in code
        self.text = ""  # this module's own text (inline children removed)


def find_modules(root_file):
    """Builds the module tree of one crate from its root file."""
    modules = {}

    def load(path, file, children_dir, text):
        mod = Module(path, file, children_dir)
        modules[path] = mod
        # Inline modules: `mod name {` ... matching `}`.
        own = []
        idx = 0
        pattern = re.compile(r"\bmod\s+(" + IDENT + r")\s*([;{])")
        while True:
            m = pattern.search(text, idx)
            if not m:
                own.append(text[idx:])
                break
            name, kind = m.group(1), m.group(2)
            if kind == ";":
                own.append(text[idx:m.end()])
                idx = m.end()
                for cand in (os.path.join(children_dir, name + ".rs"), os.path.join(children_dir, name, "mod.rs")):
                    if os.path.exists(cand):
                        with open(cand, encoding="utf-8") as f:
                            child_text = strip_comments_and_strings(f.read())
                        child_dir = os.path.dirname(cand) if cand.endswith("mod.rs") else os.path.join(children_dir, name)
                        mod.children[name] = load(path + (name,), cand, child_dir, child_text)
                        break
            else:
                own.append(text[idx:m.start()])
                depth, j = 1, m.end()
                while j < len(text) and depth:
                    if text[j] == "{":
                        depth += 1
                    elif text[j] == "}":
                        depth -= 1
                    j += 1
                inner = text[m.end():j - 1]
                mod.children[name] = load(path + (name,), file, os.path.join(children_dir, name), inner)
                idx = j
        mod.text = "".join(own)
        return mod

    with open(root_file, encoding="utf-8") as f:
        root_text = strip_comments_and_strings(f.read())
    load((), root_file, os.path.dirname(root_file), root_text)
    return modules


def collect(modules):
    for mod in modules.values():
        text = mod.text
        for m in re.finditer(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+([^;]*);", text):
            for segs, alias in parse_use_tree(m.group(2)):
                mod.uses.append((m.group(1) is not None, segs, alias))
        no_use = re.sub(r"\buse\s+[^;]*;", " ", text)
        for m in re.finditer(r"(?<![A-Za-z0-9_:])((?:" + IDENT + r")(?:\s*::\s*" + IDENT + r")+)", no_use):
            segs = [s.strip() for s in m.group(1).split("::")]
            mod.code_paths.append(segs)


def absolute(mod, segs, modules):
    """Absolute segments of a path written in `mod`, or None if it leaves the crate."""
    if not segs:
        return None
    head = segs[0]
    if head == "crate":
        return list(segs[1:])
    if head == "self":
        return list(mod.path) + list(segs[1:])
    if head == "super":
        base = list(mod.path)
        i = 0
        while i < len(segs) and segs[i] == "super":
            if not base:
                return None
            base.pop()
            i += 1
        return base + list(segs[i:])
    if head in mod.children:
        return list(mod.path) + list(segs)
    # A name imported by `use` in this module that is a module of this crate.
    for _, useg, alias in mod.uses:
        if alias == head and useg and (useg[0] in ("crate", "self", "super") or useg[0] in mod.children):
            target = absolute(mod, useg, modules)
            if target is not None:
                return target + list(segs[1:])
    return None


def resolve(segs, modules, seen=None):
    """The file defining the item named by absolute `segs` (following `pub use`)."""
    seen = seen or set()
    key = tuple(segs)
    if key in seen:
        return None
    seen.add(key)
    # Longest module prefix.
    k = len(segs)
    while k > 0 and tuple(segs[:k]) not in modules:
        k -= 1
    mod = modules[tuple(segs[:k])]
    rest = segs[k:]
    if not rest or rest[0] == "*":
        return mod.file
    name = rest[0]
    if re.search(DEF_RE.replace("{name}", re.escape(name)), mod.text, re.M):
        return mod.file
    for is_pub, useg, alias in mod.uses:
        if alias == name:
            target = absolute(mod, useg, modules)
            if target is None:
                return None  # an item from another crate
            return resolve(target + rest[1:], modules, seen)
    for is_pub, useg, alias in mod.uses:
        if useg and useg[-1] == "*" and is_pub:
            target = absolute(mod, useg[:-1], modules)
            if target is not None and tuple(target) in modules:
                found = resolve(target + rest, modules, seen)
                if found is not None:
                    return found
    return mod.file


def glob_files(target, modules):
    """The files whose items `use target::*` brings in: the module's own definitions and
    what it re-exports from inside the crate."""
    if tuple(target) not in modules:
        f = resolve(target, modules)
        return [f] if f else []
    mod = modules[tuple(target)]
    out = []
    if re.search(DEF_RE.replace("{name}", IDENT), mod.text, re.M):
        out.append(mod.file)
    for is_pub, useg, alias in mod.uses:
        if not is_pub:
            continue
        t = absolute(mod, useg[:-1] if useg and useg[-1] == "*" else useg, modules)
        if t is not None:
            f = resolve(t, modules)
            if f:
                out.append(f)
    return out


def edges_of(modules):
    edges = {}
    for mod in modules.values():
        for _, segs, _ in mod.uses:
            if segs and segs[-1] == "*":
                target = absolute(mod, segs[:-1], modules)
                if target is not None:
                    for f in glob_files(target, modules):
                        edges.setdefault(mod.file, set()).add(f)
                continue
            target = absolute(mod, segs, modules)
            if target is not None:
                f = resolve(target, modules)
                if f:
                    edges.setdefault(mod.file, set()).add(f)
        for segs in mod.code_paths:
            target = absolute(mod, segs, modules)
            if target is not None:
                f = resolve(target, modules)
                if f:
                    edges.setdefault(mod.file, set()).add(f)
    for src in edges:
        edges[src].discard(src)
    return edges


def circles(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            strong(v)
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("target", ".git", "node_modules") and not d.startswith(".")]
        if "Cargo.toml" in filenames and os.path.isdir(os.path.join(dirpath, "src")):
            src = os.path.join(dirpath, "src")
            roots = [os.path.join(src, f) for f in ("lib.rs", "main.rs") if os.path.exists(os.path.join(src, f))]
            bindir = os.path.join(src, "bin")
            if os.path.isdir(bindir):
                roots += [os.path.join(bindir, f) for f in sorted(os.listdir(bindir)) if f.endswith(".rs")]
            for r in roots:
                modules = find_modules(r)
                collect(modules)
                edges = edges_of(modules)
                if os.environ.get("CHECK_IMPORTS_DEBUG"):
                    for v, ws in sorted(edges.items()):
                        for w in sorted(ws):
                            print(f"  {v} -> {w}", file=sys.stderr)
                for comp in circles(edges):
                    found.append([os.path.relpath(f, root) for f in comp])
    for comp in found:
        print("import circle: " + " <-> ".join(comp))
    if found:
        print(f"{len(found)} import circle(s)", file=sys.stderr)
        return 1
    print("no import circles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
