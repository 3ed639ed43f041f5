"""Small helpers the case modules share."""

import json

E0 = frozenset({0})
E1 = frozenset({1})
E2 = frozenset({2})
E01 = frozenset({0, 1})
E02 = frozenset({0, 2})
E12 = frozenset({1, 2})
ANY = frozenset({0, 1, 2})


def pick(seq, quick, n):
    """All of `seq`, or `n` of them spread over it in quick mode."""
    seq = list(seq)
    if not quick or len(seq) <= n:
        return seq
    step = len(seq) / n
    return [seq[int(i * step)] for i in range(n)]


def slug(s, n=40):
    out = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(s))
    return out[:n] or "empty"


def load_json(run, rel):
    data = run.read(rel)
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def kernels_of(doc):
    if not isinstance(doc, dict):
        return []
    return [k for k in doc.get("kernels", []) if isinstance(k, dict)]
