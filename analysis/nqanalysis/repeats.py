"""Which of many uint64 keys occur more than once, in bounded memory (`nqanalyze verify`: the
boards of a boards file, the pre-placements of a count file's units: 164 M at N = 27)."""

import os
import tempfile

import numpy as np

from .boards import mix_keys


class RepeatedKeys:
    """Keys added chunk by chunk.  Up to `budget` keys are held in memory; when up to `expected`
    keys may come and that is more, they are split by a hash of the key into ceil(expected /
    budget) parts (at most MAX_PARTS), each written to a temporary file and sorted on its own,
    so that equal keys meet in one part and memory stays at about `budget` keys."""

    MAX_PARTS = 256   # open files at once; past it a part holds more than `budget` keys

    def __init__(self, expected, budget):
        self.parts = min(self.MAX_PARTS, max(1, -(-int(expected) // int(budget))))
        self._held = np.empty(int(expected) if self.parts == 1 else 0, dtype=np.uint64)
        self._count = 0
        self._dir = self._files = None
        if self.parts > 1:
            self._dir = tempfile.TemporaryDirectory(prefix="nqanalyze-keys-")
            self._files = [open(self._path(p), "wb") for p in range(self.parts)]

    def _path(self, p):
        return os.path.join(self._dir.name, f"part{p}.u64")

    def add(self, keys):
        keys = np.asarray(keys, dtype=np.uint64)
        if self.parts == 1:
            self._held[self._count:self._count + len(keys)] = keys   # raises past `expected`
        else:
            part = mix_keys(keys) % np.uint64(self.parts)
            by_part = np.argsort(part, kind="stable")
            ends = np.cumsum(np.bincount(part.astype(np.intp), minlength=self.parts))
            for p in range(self.parts):
                keys[by_part[ends[p - 1] if p else 0:ends[p]]].tofile(self._files[p])
        self._count += len(keys)

    def repeated(self, limit=1000):
        """(extra, distinct, keys): how many added keys equal an earlier one, how many distinct
        keys occur more than once, and up to `limit` of those (sorted).  Ends the collection:
        call it once."""
        extra, distinct, found = 0, 0, []
        try:
            for p in range(self.parts):
                if self.parts == 1:
                    keys = self._held[:self._count]
                else:
                    self._files[p].close()
                    keys = np.fromfile(self._path(p), dtype=np.uint64)
                keys.sort()
                eq = keys[1:] == keys[:-1]
                if eq.any():
                    extra += int(eq.sum())
                    rep = np.unique(keys[1:][eq])
                    distinct += len(rep)
                    found.append(rep[:limit])
                del keys
        finally:
            self.close()
        keys = np.unique(np.concatenate(found))[:limit] if found else np.zeros(0, np.uint64)
        return extra, distinct, keys

    def close(self):
        self._held = np.empty(0, dtype=np.uint64)
        if self._dir is not None:
            for f in self._files:
                f.close()
            self._dir.cleanup()
            self._dir = None
