"""The published N-Queens table data/known-counts.tsv (n total unique rot90_fixed rot180_fixed)."""

import os
from collections import namedtuple

Known = namedtuple("Known", "n total unique rot90_fixed rot180_fixed")

_CACHE = {}


def default_table_path():
    """known-counts.tsv inside this package: in a checkout a symlink to the repository's
    data/known-counts.tsv, in an install (cmake --install, pip) a copy of it.
    NQANALYSIS_KNOWN_COUNTS overrides it."""
    env = os.environ.get("NQANALYSIS_KNOWN_COUNTS")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "known-counts.tsv")


def load_known(path=None):
    """dict n -> Known.  Raises OSError / ValueError with a clear message."""
    path = path or default_table_path()
    if path in _CACHE:
        return _CACHE[path]
    table = {}
    with open(path, encoding="ascii") as fh:
        header = None
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if header is None:
                header = fields
                need = ["n", "total", "unique", "rot90_fixed", "rot180_fixed"]
                if any(h not in header for h in need):
                    raise ValueError(f"{path}:{lineno}: header must name columns {' '.join(need)}")
                cols = [header.index(h) for h in need]
                continue
            try:
                vals = [int(fields[i]) for i in cols]
            except (IndexError, ValueError):
                raise ValueError(f"{path}:{lineno}: malformed row: {line!r}") from None
            table[vals[0]] = Known(*vals)
    if header is None:
        raise ValueError(f"{path}: no header line (n total unique rot90_fixed rot180_fixed)")
    _CACHE[path] = table
    return table


def lookup(n, path=None):
    """Known entry for n, or None (unknown n or unreadable table)."""
    try:
        return load_known(path).get(n)
    except (OSError, ValueError):
        return None
