#!/usr/bin/env python3
"""Lists import loops among the Rust modules of each crate, and crate edges that run back up.

A module is one file (`lib.rs`, `foo.rs`, `foo/mod.rs`, `foo/bar.rs`). A module
uses another when its code names it through `crate::`, `super::` or `self::`
paths (in `use` lines or inline), with a name the crate root re-exports
(`crate::Kernel`) resolved to the module that defines it. A parent declaring
`mod child;` is containment, not use. Code under `#[cfg(test)]` is left out:
a test may reach across the crate. Every strongly connected group of more than
one module is a loop and is printed; so is every crate edge that goes against
the layer order given in `LAYERS`.

Exit 0 when there is nothing to print, 1 otherwise. Run from anywhere:
`python3 scripts/module-loops.py`.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# The crates from the floor up: a crate may depend only on crates listed
# before it (ARCHITECTURE.md, "The crates").
LAYERS = [
    "roofline-records",
    "roofline-child",
    "roofline-model",
    "roofline-hw",
    "roofline-analysis",
    "roofline-documents",
    "roofline-ncu",
    "roofline-shapes",
    "roofline-timeline",
    "roofline-gpu",
    "roofline-report",
    "roofline-inject",
    "roofline",
]


def strip_comments_and_tests(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*\{", text)
    if m:
        text = text[: m.start()]
    return text


def module_files(src):
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ("lib", "main") and len(rel) == 1:
                rel = []
            elif rel[-1] == "mod":
                rel = rel[:-1]
            mods[tuple(rel)] = path
    return mods


def expand_use_tree(prefix, tree):
    """Turns `a::{b, c::d}` into ["a::b", "a::c::d"]."""
    tree = tree.strip()
    depth = 0
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                head = tree[:i].rstrip(":").strip()
                inner = tree[i + 1 : tree.rindex("}")]
                parts, buf, d = [], "", 0
                for c in inner:
                    if c == "{":
                        d += 1
                    elif c == "}":
                        d -= 1
                    if c == "," and d == 0:
                        parts.append(buf)
                        buf = ""
                    else:
                        buf += c
                parts.append(buf)
                base = prefix + ([head] if head else [])
                out = []
                for p in parts:
                    if p.strip():
                        out += expand_use_tree(base, p)
                return out
            depth += 1
    tree = re.sub(r"\s+as\s+\w+$", "", tree)
    return ["::".join(prefix + [tree])] if tree else ["::".join(prefix)]


def paths_in(text):
    out = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        out += expand_use_tree([], m.group(1))
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text):
        out.append(m.group(1))
    return out


def resolve(path, here, mods, reexports):
    segs = [s.strip() for s in path.split("::") if s.strip()]
    if not segs:
        return None
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = here
        rest = segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    cur = base
    for s in rest:
        if cur + (s,) in mods:
            cur = cur + (s,)
        else:
            if (cur, s) in reexports:
                return reexports[(cur, s)]
            break
    return cur


def crate_graph(src):
    mods = module_files(src)
    texts = {m: strip_comments_and_tests(open(p, encoding="utf-8").read()) for m, p in mods.items()}
    # Re-exports of a module's children, one level: `pub use child::Item;`.
    reexports = {}
    for m, text in texts.items():
        for um in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            for p in expand_use_tree([], um.group(1)):
                segs = p.split("::")
                if segs[0] in ("crate", "self", "super"):
                    target = resolve("::".join(segs[:-1]), m, mods, {})
                else:
                    target = m + (segs[0],) if m + (segs[0],) in mods else None
                    if target is not None:
                        t = target
                        for s in segs[1:-1]:
                            if t + (s,) in mods:
                                t = t + (s,)
                        target = t
                if target is not None and segs[-1] != "*":
                    reexports[(m, segs[-1])] = target
    edges = {m: set() for m in mods}
    for m, text in texts.items():
        uses = set()
        for p in paths_in(text):
            t = resolve(p, m, mods, reexports)
            if t is not None:
                uses.add(t)
        # Bare `child::` paths from a parent to a module it declares.
        for um in re.finditer(r"\b([a-z_][a-z0-9_]*)::", text):
            c = m + (um.group(1),)
            if c in mods:
                uses.add(c)
        edges[m] = {t for t in uses if t != m}
    # The crate root declares every module and re-exports: it is the API, not a layer.
    edges.pop((), None)
    for m in edges:
        edges[m].discard(())
    return edges


def sccs(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
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
                out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def crate_deps():
    crates = {}
    for d in sorted(os.listdir(os.path.join(ROOT, "crates"))):
        toml = os.path.join(ROOT, "crates", d, "Cargo.toml")
        if not os.path.exists(toml):
            continue
        text = open(toml, encoding="utf-8").read()
        name = re.search(r'^name\s*=\s*"([^"]+)"', text, re.M).group(1)
        deps = re.split(r"^\[", text, flags=re.M)
        normal = [s for s in deps if s.startswith("dependencies]")]
        names = set()
        for s in normal:
            names |= set(re.findall(r"^(roofline[\w-]*)\s*[.=]", s, re.M))
        crates[name] = (d, names)
    return crates


def main():
    problems = 0
    crates = crate_deps()
    for name, (d, deps) in crates.items():
        src = os.path.join(ROOT, "crates", d, "src")
        for loop in sccs(crate_graph(src)):
            problems += 1
            names = sorted("::".join(m) for m in loop)
            print(f"loop in {name}: {' <-> '.join(names)}")
        if name not in LAYERS:
            problems += 1
            print(f"{name} is not in the layer list of scripts/module-loops.py")
            continue
        for dep in sorted(deps):
            if dep in LAYERS and LAYERS.index(dep) >= LAYERS.index(name):
                problems += 1
                print(f"upward crate edge: {name} -> {dep}")
    if problems == 0:
        print(f"no import loops and no upward crate edges in {len(crates)} crates")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
