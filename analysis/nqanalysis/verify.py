"""`nqanalyze verify`: an integrity check of a result file, independent of the C++ code.

Every check prints one line (ok / WARN / FAIL / info); a FAIL names the dataset or attribute
and the row indices concerned.  Exit codes: 0 pass, 1 fail, 3 unreadable / not an nqueens file.
"""

import sys

import numpy as np

from . import boards as B
from .known import default_table_path, load_known
from .repeats import RepeatedKeys
from .resultfile import (BOARD_DATASETS, UNIT_DATASETS, WIDE_COUNTS,
                         ResultFile, dtype_problem, root_attrs, shard_size, unit_scheme)

MAX_DETAILS = 10
CHUNK_ROWS = 1 << 17            # rows of /boards or /units per chunk (--chunk)
KEY_BUDGET = 16 * 1024 * 1024   # uint64 keys held at once for duplicate detection (128 MB)
RECOUNT_AUTO_MAX_N = 10         # recount every unit with the Python solver up to this N
COVERAGE_LIMIT = 2_000_000      # largest placement enumeration for the unit coverage check
MAX_COMPLETE_UNITS = 200_000_000   # more units_total than this is implausible in a complete file
PNAME = "/units/placement"


class Report:
    def __init__(self, out):
        self.out = out
        self.fails = []
        self.warns = 0
        self.oks = 0

    def _emit(self, tag, msg, details=(), more=0):
        print(f"  {tag:<5} {msg}", file=self.out)
        for d in details:
            print(f"          {d}", file=self.out)
        if more > 0:
            print(f"          ... and {more} more", file=self.out)
        self.out.flush()

    def ok(self, msg):
        self.oks += 1
        self._emit("ok", msg)

    def info(self, msg):
        self._emit("info", msg)

    def warn(self, msg, details=(), total=None):
        self.warns += 1
        details = list(details)
        self._emit("WARN", msg, details[:MAX_DETAILS], _more(details, total))

    def fail(self, msg, details=(), total=None):
        self.fails.append(msg)
        details = list(details)
        self._emit("FAIL", msg, details[:MAX_DETAILS], _more(details, total))

    def check(self, cond, ok_msg, fail_msg, details=(), total=None):
        if cond:
            self.ok(ok_msg)
        else:
            self.fail(fail_msg, details, total)
        return cond


def _more(details, total):
    shown = min(len(details), MAX_DETAILS)
    count = len(details) if total is None else total
    return max(0, count - shown)


def _fmt_board(row):
    return " ".join(str(int(v)) for v in np.asarray(row).ravel())


def _fmt_pl(row):
    """A placement row; empty rows (-1) as '.'."""
    return " ".join("." if int(v) < 0 else str(int(v)) for v in np.asarray(row).ravel())


def _border_placement(t, n):
    """The placement (n entries, -1 = empty) of the queens of a border (top, bottom, left,
    right)."""
    pl = np.full(n, -1, dtype=np.int64)
    pl[0], pl[n - 1], pl[int(t[2])], pl[int(t[3])] = t[0], t[1], 0, n - 1
    return pl


def _rows_to_fill(t, n, depth):
    """The rows among 1..depth-1 a border (top, bottom, left, right) leaves empty."""
    return [r for r in range(1, depth) if r not in (n - 1, int(t[2]), int(t[3]))]


def _rows_range(depth):
    return f"rows 1..{depth - 1}"


def _empty_text(empty, depth):
    return (f" ({empty} of them in classes with no valid placement of {_rows_range(depth)}, "
            f"which need no unit)") if empty else ""


def _rows_text(rows, limit=MAX_DETAILS, total=None):
    rows = [int(r) for r in rows]
    total = len(rows) if total is None else total
    text = ", ".join(str(r) for r in rows[:limit])
    if total > limit:
        text += f", ... ({total} rows)"
    return text


class _TypeCheck:
    """The schema's types checked for a kind of object (root attributes, /units or /boards
    datasets): a different category fails, another width or signedness warns, each reported
    once for all the objects."""

    def __init__(self, what):
        self.what, self.fails, self.warns = what, [], []

    def add(self, where, severity, message):
        """One object's dtype_problem() result."""
        if severity == "fail":
            self.fails.append(f"{where} {message}")
        elif severity == "warn":
            self.warns.append(f"{where} {message}")

    def report(self, rep):
        if self.fails:
            rep.fail(f"{self.what} types differ from the schema", self.fails)
        if self.warns:
            rep.warn(f"{self.what} storage types differ from the schema", self.warns)


class _Tally:
    """Rows with one kind of problem (global /units rows): how many, the first of them, and the
    descriptions of the first MAX_DETAILS."""

    def __init__(self):
        self.count, self.rows, self.details = 0, [], []

    def add(self, rows, describe=None):
        rows = np.asarray(rows)
        self.count += len(rows)
        head = [int(r) for r in rows[:max(0, MAX_DETAILS + 1 - len(self.rows))]]
        self.rows += head
        if describe is not None:
            self.details += [describe(r) for r in head[:max(0, MAX_DETAILS - len(self.details))]]

    def rows_text(self):
        return _rows_text(self.rows, total=self.count)


def _row_keys(values, base):
    """One uint64 per row of `values` (ints in 0..base-1): exact (mixed radix) when base**columns
    fits in 64 bits, else a hash (repeats are then confirmed by comparing the rows).
    Returns (keys, exact)."""
    v = np.asarray(values, dtype=np.uint64)
    if base ** v.shape[1] <= 2 ** 64:
        keys = np.zeros(len(v), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for i in range(v.shape[1]):
                keys = keys * np.uint64(base) + v[:, i]
        return keys, True
    return B.board_keys(v)[0], False


class _IdCheck:
    """/units/id: unique, sorted, within [0, units_total), in the file's shard; for a complete
    file, every id of the shard present (a bitmap of the ids seen: 20 MB at N = 27)."""

    def __init__(self, v):
        self.v = v
        self.prev = None
        self.dup, self.uns, self.out, self.foreign = _Tally(), _Tally(), _Tally(), _Tally()
        ut, si, sc = v.units_total, v.shard_index, v.shard_count
        self.expected = None if ut is None else shard_size(ut, si, sc)
        self.seen = None
        if v.complete and self.expected is not None and self.expected <= MAX_COMPLETE_UNITS:
            self.seen = np.zeros((self.expected + 7) // 8, dtype=np.uint8)

    def add(self, start, ch):
        v = self.v
        ids = ch["id"].astype(np.uint64)
        pair = ids if self.prev is None else np.concatenate([[self.prev], ids])
        base = start - (len(pair) - len(ids))   # the /units row of pair[0]
        if len(pair) > 1:
            self.dup.add(base + np.nonzero(pair[1:] == pair[:-1])[0],
                         lambda r: f"/units/id rows {r} and {r + 1}: id {int(pair[r - base])} "
                                   f"appears twice")
            self.uns.add(base + 1 + np.nonzero(pair[1:] < pair[:-1])[0],
                         lambda r: f"/units/id row {r}: id {int(pair[r - base])} follows "
                                   f"{int(pair[r - base - 1])} (not sorted)")
        if len(ids):
            self.prev = ids[-1]
        mine = np.ones(len(ids), dtype=bool)
        ut = v.units_total
        if ut is not None:
            out = ids >= np.uint64(ut)
            mine &= ~out
            self.out.add(start + np.nonzero(out)[0],
                         lambda r: f"/units/id row {r}: id {int(ids[r - start])} outside "
                                   f"[0, units_total={ut})")
        if v.shard_count > 1:
            other = ids % np.uint64(v.shard_count) != np.uint64(v.shard_index)
            mine &= ~other
            self.foreign.add(start + np.nonzero(other)[0],
                             lambda r: f"/units/id row {r}: id {int(ids[r - start])} does not "
                                       f"belong to shard {v.shard_index}/{v.shard_count}")
        if self.seen is not None:
            idx = ((ids[mine] - np.uint64(v.shard_index)) // np.uint64(v.shard_count)).astype(np.int64)
            np.bitwise_or.at(self.seen, idx >> 3, np.left_shift(1, idx & 7).astype(np.uint8))

    def missing(self):
        """(how many ids of the shard are missing, the first 21 of them)."""
        v, count, first, step = self.v, 0, [], 1 << 20
        for s in range(0, len(self.seen), step):
            bits = np.unpackbits(self.seen[s:s + step], bitorder="little")
            gone = np.nonzero(bits[:self.expected - 8 * s] == 0)[0]
            count += len(gone)
            first += [v.shard_index + (8 * s + int(i)) * v.shard_count
                      for i in gone[:21 - len(first)]]
        return count, first

    def report(self):
        v, rep, U = self.v, self.v.rep, self.v.U
        ut = v.units_total
        tallies = (self.dup, self.uns, self.out, self.foreign)
        prob = [d for t in tallies for d in t.details]
        if prob:
            rep.fail(f"/units/id: {self.dup.count} duplicate, {self.uns.count} unsorted, "
                     f"{self.out.count} out-of-range"
                     + (f", {self.foreign.count} foreign-shard" if v.shard_count > 1 else "")
                     + " ids", prob, total=sum(t.count for t in tallies))
        else:
            rng = f"[0, {ut})" if ut is not None else "(units_total unknown)"
            rep.ok(f"/units/id: {U} ids unique, sorted, within {rng}"
                   + (f", all in shard {v.shard_index}/{v.shard_count}"
                      if v.shard_count > 1 else ""))
        if ut is None:
            return
        expected = self.expected
        where = "" if v.shard_count == 1 else f" of shard {v.shard_index}/{v.shard_count}"
        if not v.complete:
            rep.info(f"status partial: {U} of {expected} units{where} done")
            if U >= expected and expected > 0:
                rep.warn(f"status is partial but /units holds all {expected} units{where}")
        elif self.seen is None:
            rep.fail(f"units_total = {ut} is implausible for a complete file with {U} rows")
        else:
            count, first = self.missing()
            if count == 0 and U == expected:
                rep.ok(f"/units: complete, exactly the {expected} units{where}")
            else:
                txt = ", ".join(str(x) for x in first[:20]) + (", ..." if count > 20 else "")
                rep.fail(f"/units: status is complete but {count} unit ids{where} "
                         f"are missing (/units has {U} rows, expected {expected})"
                         + (f": missing ids {txt}" if count else ""))


class _MultiplicityCheck:
    def __init__(self, v):
        self.v = v
        self.allowed = {"none": (1,), "mirror": (1, 2), "border": (1, 2, 4, 8)}[v.scheme]
        self.bad = _Tally()

    def add(self, start, ch):
        ids, mult = ch["id"], ch["multiplicity"]
        self.bad.add(start + np.nonzero(~np.isin(mult, self.allowed))[0],
                     lambda r: f"row {r} (unit id {int(ids[r - start])}): {int(mult[r - start])}")

    def report(self):
        v = self.v
        symtext = f"symmetry {v.sym}"
        if v.sym == "full" and v.scheme == "mirror":
            symtext += ", the mirror scheme for n <= 3"
        allowed = " or ".join(map(str, self.allowed))
        if self.bad.count:
            v.rep.fail(f"/units/multiplicity: {self.bad.count} values other than {allowed} "
                       f"({symtext})", self.bad.details, total=self.bad.count)
        else:
            v.rep.ok(f"/units/multiplicity: all {allowed} ({symtext})")


class _PlacementCheck:
    """/units/placement: every pre-placement valid; what each scheme adds (subclasses) is
    reported only when they all are."""

    def __init__(self, v):
        self.v = v
        self.invalid = _Tally()
        self.keys = RepeatedKeys(self.max_keys(v.U), v.key_budget)

    def add(self, start, ch):
        v, ids, pl = self.v, ch["id"], ch["placement"]
        ok = B.placement_valid_mask(pl, v.n)
        self.invalid.add(start + np.nonzero(~ok)[0],
                         lambda r: f"row {r} (unit id {int(ids[r - start])}) "
                                   f"[{_fmt_pl(pl[r - start])}]: {B.explain_board(pl[r - start], v.n)}")
        if not self.invalid.count:
            self.add_valid(start, ch)

    def report(self):
        if self.invalid.count:
            self.keys.close()
            self.v.rep.fail(f"{PNAME}: {self.invalid.count} pre-placements are not valid (queens "
                            f"attack each other or lie off the board)", self.invalid.details,
                            total=self.invalid.count)
        elif self.v.U:
            self.report_valid()
        else:
            self.keys.close()


class _PrefixCover(_PlacementCheck):
    """Symmetry none or mirror: exactly rows 0..depth-1 pre-placed; no placement covered twice
    (with the mirrors of the multiplicity-2 units); for a whole file, all of them covered."""

    def __init__(self, v):
        super().__init__(v)
        self.wrong, self.selfsym = _Tally(), _Tally()
        self.covered, self.exact = 0, True
        self.mults = set()

    @staticmethod
    def max_keys(units):
        return 2 * units   # each unit and the mirror of a multiplicity-2 one

    def prefixes(self, start, ch):
        """(keys, rows, prefixes, mirrored) of a chunk's units and of their mirrors."""
        n, depth = self.v.n, self.v.depth
        first = ch["placement"][:, :depth]
        m2 = np.nonzero(ch["multiplicity"] == 2)[0]
        rows = start + np.arange(len(first))
        for vals, r, tag in ((first, rows, False), ((n - 1) - first[m2], rows[m2], True)):
            keys, exact = _row_keys(vals, n)
            self.exact &= exact
            yield keys, r, vals, tag

    def add_valid(self, start, ch):
        v, ids, pl, mult = self.v, ch["id"], ch["placement"], ch["multiplicity"]
        want = np.arange(v.n) < v.depth
        self.wrong.add(start + np.nonzero(((pl >= 0) != want).any(axis=1))[0],
                       lambda r: f"row {r} (unit id {int(ids[r - start])}): [{_fmt_pl(pl[r - start])}]")
        if self.wrong.count:
            return
        if v.depth == 0:
            self.mults.update(np.unique(mult).tolist()[:10])
            return
        first = pl[:, :v.depth]
        m2 = np.nonzero(mult == 2)[0]
        self.selfsym.add(start + m2[((v.n - 1) - first[m2] == first[m2]).all(axis=1)],
                         lambda r: f"row {r} (unit id {int(ids[r - start])}): multiplicity 2 but "
                                   f"placement [{_fmt_pl(pl[r - start])}] is its own mirror")
        for keys, _, _, _ in self.prefixes(start, ch):
            self.keys.add(keys)
            self.covered += len(keys)

    def report_valid(self):
        v, rep, U = self.v, self.v.rep, self.v.U
        depth = v.depth
        if self.wrong.count:
            self.keys.close()
            rep.fail(f"{PNAME}: {self.wrong.count} units do not pre-place exactly rows "
                     f"0..{depth - 1}", self.wrong.details, total=self.wrong.count)
            return
        if depth == 0:
            self.keys.close()
            rep.ok(f"{PNAME}: depth 0, nothing pre-placed")
            if v.whole and (U != 1 or self.mults != {1}):
                rep.fail(f"/units: depth 0 needs exactly one unit of multiplicity 1 "
                         f"({U} units, multiplicities {sorted(self.mults)})")
            return
        _, distinct, keys = self.keys.repeated()
        groups = v.repeated_placements(keys, ("placement", "multiplicity"), self.prefixes)
        problems = list(self.selfsym.details)
        for vals, members in list(groups.values())[:MAX_DETAILS]:
            desc = ", ".join(f"row {r}{' (mirrored)' if m else ''}" for r, m in members)
            problems.append(f"placement [{_fmt_board(vals)}] covered more than once: {desc}")
        if problems:
            rep.fail(f"{PNAME}: units overlap (counting the mirror of multiplicity-2 units)",
                     problems, total=self.selfsym.count + (distinct if self.exact else len(groups)))
            return
        covered = self.covered
        if v.whole:
            expect = None if covered > COVERAGE_LIMIT else \
                B.valid_prefix_count(v.n, depth, limit=COVERAGE_LIMIT)
            if expect is None:
                rep.info(f"{PNAME}: coverage check skipped (more than {COVERAGE_LIMIT} placements)")
                rep.ok(f"{PNAME}: {U} valid, distinct pre-placements (mirrors included)")
            elif expect == covered:
                rep.ok(f"{PNAME}: valid and distinct; with mirrors they cover all {expect} "
                       f"placements of the first {depth} rows exactly once")
            else:
                rep.fail(f"{PNAME}: units (with mirrors) cover {covered} placements of the "
                         f"first {depth} rows, but there are {expect}")
        else:
            rep.ok(f"{PNAME}: {U} valid, distinct pre-placements (mirrors included)")


class _BorderCover(_PlacementCheck):
    """Symmetry full (n >= 4): each unit pre-places a border (the queens of row 0, row n-1,
    column 0 and column n-1) and rows 1..depth-1; its multiplicity is the number of distinct
    images of the border.  The borders with their images cover every valid border exactly
    once, and the units of each border cover every valid filling of rows 1..depth-1 exactly
    once (whole files)."""

    def __init__(self, v):
        super().__init__(v)
        self.notborder, self.wrongm = _Tally(), _Tally()
        self.borders = {}   # border key -> [units, first row, (top, bottom, left, right), images]
        self.exact = True

    @staticmethod
    def max_keys(units):
        return units

    def placements(self, start, ch):
        """(keys, rows, values, None) of a chunk's units: a unit's placement is its border and
        its rows 1..depth-1 (the rows the border's side queens fill are the border's)."""
        v = self.v
        vals = np.hstack([B.border_tuples(ch["placement"], v.n),
                          ch["placement"][:, 1:max(v.depth, 1)]])
        keys, exact = _row_keys(vals, v.n)
        self.exact &= exact
        yield keys, start + np.arange(len(vals)), vals, None

    def add_valid(self, start, ch):
        v, ids, pl, mult = self.v, ch["id"], ch["placement"], ch["multiplicity"]
        n = v.n
        rows = np.arange(n)
        filled = pl >= 0
        need = (rows < max(v.depth, 1)) | (rows == n - 1)
        side = (pl == 0) | (pl == n - 1)
        bad = (need & ~filled).any(axis=1) | (filled & ~need & ~side).any(axis=1) | \
            ~(pl == 0).any(axis=1) | ~(pl == n - 1).any(axis=1)
        self.notborder.add(start + np.nonzero(bad)[0],
                           lambda r: f"row {r} (unit id {int(ids[r - start])}) [{_fmt_pl(pl[r - start])}]")
        if self.notborder.count:
            return
        keys, _, vals, _ = next(self.placements(start, ch))
        self.keys.add(keys)
        bt = vals[:, :4]   # the borders, and their keys (4 digits of base n: exact)
        ukeys, first, inv, counts = np.unique(_row_keys(bt, n)[0], return_index=True,
                                              return_inverse=True, return_counts=True)
        size = np.empty(len(ukeys), dtype=np.int64)
        for i, k in enumerate(ukeys.tolist()):
            b = self.borders.get(k)
            if b is None:
                t = tuple(int(x) for x in bt[first[i]])
                b = self.borders[k] = [0, start + int(first[i]), t, len(B.border_orbit(t, n))]
            b[0] += int(counts[i])
            size[i] = b[3]
        size = size[inv.ravel()]
        self.wrongm.add(start + np.nonzero(mult != size)[0],
                        lambda r: f"/units/multiplicity row {r} (unit id {int(ids[r - start])}): "
                                  f"{int(mult[r - start])}, but its border has "
                                  f"{int(size[r - start])} distinct images")

    def report_valid(self):
        v, rep, U, n, depth = self.v, self.v.rep, self.v.U, self.v.n, self.v.depth
        if self.notborder.count:
            self.keys.close()
            rep.fail(f"{PNAME}: {self.notborder.count} units are not a border (queens in row 0, "
                     f"row {n - 1}, column 0 and column {n - 1}) plus rows 0..{max(depth, 1) - 1}",
                     self.notborder.details, total=self.notborder.count)
            return
        order = sorted(self.borders)
        units = [self.borders[k][0] for k in order]
        first = [self.borders[k][1] for k in order]
        bt = [self.borders[k][2] for k in order]
        owner, overlaps = {}, []
        for i, t in enumerate(bt):
            for img in B.border_orbit(t, n):
                o = owner.setdefault(img, i)
                if o != i and (o, i) not in overlaps:
                    overlaps.append((o, i))

        def bname(i):
            return f"border top={bt[i][0]} bottom={bt[i][1]} left={bt[i][2]} right={bt[i][3]}"

        _, distinct, keys = self.keys.repeated()
        groups = v.repeated_placements(keys, ("placement",), self.placements)
        dups = distinct if self.exact else len(groups)
        probs = list(self.wrongm.details)
        for a, b in overlaps[:MAX_DETAILS]:
            probs.append(f"units in rows {first[a]} and {first[b]}: {bname(a)} and {bname(b)} "
                         f"are images of each other")
        for members in [g[1] for g in groups.values()][:MAX_DETAILS]:
            r0 = members[0][0]
            pl0 = v.rf.unit_slice(("placement",), slice(r0, r0 + 1))["placement"][0]
            probs.append(f"placement [{_fmt_pl(pl0)}] covered more than once: "
                         f"rows {_rows_text([r for r, _ in members])}")
        if probs:
            rep.fail(f"{PNAME}: full-symmetry units inconsistent ({self.wrongm.count} wrong "
                     f"multiplicities, {len(overlaps)} overlapping borders, {dups} "
                     f"duplicate placements)", probs,
                     total=self.wrongm.count + len(overlaps) + dups)
            return
        what = (f"{U} valid, distinct pre-placements on {len(bt)} borders; multiplicity = "
                f"number of distinct images of the border; no border is an image of another")
        if not v.whole:
            rep.ok(f"{PNAME}: {what}")
            return
        # coverage of the borders: a valid border whose class has no unit is fine only if one
        # of its images leaves no valid placement of its empty rows among 1..depth-1 (that
        # image may be the representative: it stands for no solution, so it has no units)
        valid = B.valid_borders(n)
        covered = set(owner)
        miss, seen = [], set()
        for t in map(tuple, valid.tolist()):
            if t in covered or t in seen:
                continue
            orbit = B.border_orbit(t, n)
            seen |= orbit
            if not any(B.count_fillings(n, _border_placement(img, n),
                                        _rows_to_fill(img, n, depth), limit=0) == 0
                       for img in orbit):
                miss.append(t)
        if miss:
            rep.fail(f"{PNAME}: {len(miss)} classes of valid borders have no unit (their borders "
                     f"with images: {sum(len(B.border_orbit(t, n)) for t in miss)} of the "
                     f"{len(valid)} valid borders)",
                     [f"border top={t[0]} bottom={t[1]} left={t[2]} right={t[3]} (and its "
                      f"images) has no unit" for t in miss[:MAX_DETAILS]], total=len(miss))
            return
        empty = len(seen)
        # coverage of rows 1..depth-1 under each border
        if U > COVERAGE_LIMIT:
            rep.ok(f"{PNAME}: {what}; with their images the borders cover all {len(valid)} "
                   f"valid borders exactly once{_empty_text(empty, depth)}")
            rep.info(f"{PNAME}: coverage of {_rows_range(depth)} skipped (more than "
                     f"{COVERAGE_LIMIT} units)")
            return
        wrongf = []
        budget = COVERAGE_LIMIT
        for i, t in enumerate(bt):
            f = B.count_fillings(n, _border_placement(t, n), _rows_to_fill(t, n, depth),
                                 limit=budget)
            if f is None:
                rep.info(f"{PNAME}: coverage of {_rows_range(depth)} skipped (more than "
                         f"{COVERAGE_LIMIT} placements)")
                rep.ok(f"{PNAME}: {what}; with their images the borders cover all "
                       f"{len(valid)} valid borders exactly once{_empty_text(empty, depth)}")
                return
            budget -= f
            if f != units[i]:
                wrongf.append((i, f))
        if wrongf:
            rep.fail(f"{PNAME}: {len(wrongf)} borders do not have one unit per valid placement "
                     f"of their empty rows among {_rows_range(depth)}",
                     [f"{bname(i)} (first unit row {first[i]}): {units[i]} units, "
                      f"{f} valid placements of its empty rows among {_rows_range(depth)}"
                      for i, f in wrongf[:MAX_DETAILS]], total=len(wrongf))
            return
        per_border = (f", and each border's units cover every valid placement of its empty "
                      f"rows among {_rows_range(depth)} exactly once") if depth >= 2 else \
            " (depth 1: one unit per border)"
        rep.ok(f"{PNAME}: valid and distinct; with their images the {len(bt)} borders cover "
               f"all {len(valid)} valid borders exactly once{_empty_text(empty, depth)}"
               f"{per_border}")


class _RecountCheck:
    """/units/solutions against the Python solver's count of each valid pre-placement (n <= 10,
    or --recount always)."""

    def __init__(self, v):
        self.v = v
        self.on = v.recount == "always" or (v.recount == "auto" and v.n <= RECOUNT_AUTO_MAX_N)
        self.wrong = _Tally()

    def add(self, start, ch):
        if not self.on:
            return
        v, ids, pl, sols = self.v, ch["id"], ch["placement"], ch["solutions"]
        ok = B.placement_valid_mask(pl, v.n)
        found = {r: B.count_completions(v.n, pl[r]) for r in np.nonzero(ok)[0].tolist()}
        self.wrong.add(start + np.array([r for r, c in found.items() if c != int(sols[r])], dtype=np.int64),
                       lambda r: f"/units/solutions row {r} (unit id {int(ids[r - start])}, "
                                 f"placement [{_fmt_pl(pl[r - start])}]): file says "
                                 f"{int(sols[r - start])}, recount gives {found[r - start]}")

    def report(self):
        v = self.v
        if self.on and v.U:
            v.rep.check(not self.wrong.count,
                        f"/units/solutions: all {v.U} units recounted by the Python solver",
                        f"/units/solutions: {self.wrong.count} units differ from an independent "
                        f"recount", self.wrong.details, total=self.wrong.count)
        elif v.recount == "auto" and not self.on:
            v.rep.info(f"per-unit recount skipped for n = {v.n} > {RECOUNT_AUTO_MAX_N} "
                       f"(use --recount to force)")


class _TimesCheck:
    """/units/seconds and /units/started finite and not negative; rank and thread within the
    last run's ranks x threads (a warning: a resume may have had more)."""

    def __init__(self, v):
        self.v = v
        self.ranks, self.threads = v.rf.int_attr("ranks"), v.rf.int_attr("threads")
        self.bad, self.rank, self.thread = _Tally(), _Tally(), _Tally()

    def add(self, start, ch):
        sec, st = ch["seconds"], ch["started"]
        self.bad.add(start + np.nonzero(~np.isfinite(sec) | (sec < 0) | ~np.isfinite(st))[0],
                     lambda r: f"row {r}: seconds={sec[r - start]!r} started={st[r - start]!r}")
        for tally, name, limit in ((self.rank, "rank", self.ranks),
                                   (self.thread, "thread", self.threads)):
            if limit is not None:
                tally.add(start + np.nonzero((ch[name] < 0) | (ch[name] >= limit))[0])

    def report(self):
        rep = self.v.rep
        if self.bad.count:
            rep.fail(f"/units/seconds or /units/started: {self.bad.count} rows not finite or "
                     f"negative", self.bad.details, total=self.bad.count)
        wr = []
        if self.rank.count:
            wr.append(f"/units/rank: {self.rank.count} rows outside [0, ranks={self.ranks}) "
                      f"(rows {self.rank.rows_text()}; expected only after a resume with more ranks)")
        if self.thread.count:
            wr.append(f"/units/thread: {self.thread.count} rows outside [0, threads={self.threads}) "
                      f"(rows {self.thread.rows_text()})")
        if wr:
            rep.warn("worker ids outside the last run's ranks x threads", wr)


class _TotalSum:
    """sum(multiplicity * solutions) over /units, exact (Python integers past 2^63)."""

    def __init__(self):
        self.value = 0

    def add(self, start, ch):
        m = ch["multiplicity"].astype(np.uint64)
        sol = ch["solutions"].astype(np.uint64)
        if not len(sol):
            return
        if int(m.max()) * int(sol.max()) * len(sol) < 2 ** 63:   # no uint64 overflow
            self.value += int(np.sum(m * sol, dtype=np.uint64))
        else:
            self.value += sum(int(a) * int(b) for a, b in zip(m.tolist(), sol.tolist()))


class Verifier:
    def __init__(self, rf, out, known_path=None, recount="auto",
                 chunk_rows=CHUNK_ROWS, key_budget=KEY_BUDGET):
        self.rf = rf
        self.rep = Report(out)
        self.out = out
        self.known_path = known_path or default_table_path()
        self.recount = recount
        self.chunk_rows = int(chunk_rows)
        self.key_budget = int(key_budget)
        self.units_ok = False
        self.recomputed_total = None   # sum(multiplicity * solutions), once /units is read

    # ------------------------------------------------------------------ attributes
    def check_attributes(self):
        rf, rep = self.rf, self.rep
        schema = root_attrs(rf.format_version)
        missing = [k for k in schema if k not in rf.attrs]
        types = _TypeCheck("root attribute")
        for k, kind in schema.items():
            if k not in rf.attrs:
                continue
            sev, msg = dtype_problem(rf.raw_attr_types[k], kind)
            if kind == "str" and sev is None:
                raw = rf.raw_attr_types[k]
                if raw.kind == "O":
                    sev, msg = "warn", ("is a variable-length string, the schema says "
                                        "fixed-length ASCII")
            types.add(f"root attribute '{k}'", sev, msg)
        if missing:
            rep.fail(f"root attributes missing: {', '.join(missing)}")
        types.report(rep)
        if not missing and not types.fails:
            rep.ok(f"root attributes: all {len(schema)} present with the schema's types")

        a = rf.attrs
        # the numeric values, as every command checks them (ResultFile.value_problems)
        problems = rf.value_problems()
        bad = [text for _, text in problems]
        wrong = {name for name, _ in problems}

        def val_int(name):   # None if missing or wrong
            return None if name in wrong else a.get(name)

        def need(cond, text):
            if not cond:
                bad.append(text)

        for name in WIDE_COUNTS:
            problem = rf.count_problem(name)
            need(problem is None, f"the 128-bit count {name}: {problem}")
        n = val_int("n")
        mode = a.get("mode")
        need(mode is None or mode in ("count", "boards"), f"mode = {mode!r} (count or boards)")
        bs = a.get("boards_stored")
        if mode == "count":
            need(bs is None or bs == "none", f"boards_stored = {bs!r} but mode is count (expected 'none')")
        elif mode == "boards":
            need(bs is None or bs in ("all", "class"),
                 f"boards_stored = {bs!r} but mode is boards (expected 'all' or 'class')")
        depth = val_int("depth")
        sym = a.get("symmetry")
        need(sym is None or sym in ("none", "mirror", "full"),
             f"symmetry = {sym!r} (none, mirror or full)")
        status = a.get("status")
        need(status is None or status in ("complete", "partial"),
             f"status = {status!r} (complete or partial)")
        si, sc, ut = val_int("shard_index"), val_int("shard_count"), val_int("units_total")
        mk = a.get("matches_known")
        need(mk is None or mk in ("yes", "no", "unknown"),
             f"matches_known = {mk!r} (yes, no or unknown)")
        if bad:
            rep.fail("root attribute values out of range", bad)
        else:
            rep.ok("root attribute values are in range")
        self.n, self.depth, self.mode, self.bs = n, depth, mode, bs
        self.sym, self.status = sym, status
        self.scheme = unit_scheme(sym, n)
        self.shard_count = sc if sc is not None else 1
        self.shard_index = si if si is not None else 0
        self.units_total = ut
        self.complete = status == "complete"
        self.whole = self.complete and self.shard_count == 1
        return n is not None and depth is not None

    # ------------------------------------------------------------------ /units
    def check_units(self):
        rf, rep = self.rf, self.rep
        n = self.n
        if "units" not in rf.h5 or not hasattr(rf.h5["units"], "keys"):
            rep.fail("group /units is missing")
            return False
        grp = rf.h5["units"]
        missing = [k for k in UNIT_DATASETS if k not in grp]
        if missing:
            rep.fail(f"/units datasets missing: {', '.join('/units/' + k for k in missing)}")
            return False
        types, shape_bad = _TypeCheck("/units dataset"), []
        lengths = {}
        for k, (kind, rank) in UNIT_DATASETS.items():
            ds = grp[k]
            if not hasattr(ds, "dtype"):
                shape_bad.append(f"/units/{k} is not a dataset")
                continue
            types.add(f"/units/{k}", *dtype_problem(ds.dtype, kind))
            if ds.ndim != rank:
                shape_bad.append(f"/units/{k} has shape {ds.shape}, expected rank {rank}")
            lengths[k] = ds.shape[0] if ds.ndim else None
        types.report(rep)
        u = lengths.get("id")
        for k, ln in lengths.items():
            if ln != u:
                shape_bad.append(f"/units/{k} has {ln} rows but /units/id has {u}")
        pds = grp["placement"]
        if hasattr(pds, "ndim") and pds.ndim == 2 and pds.shape[1] != n:
            shape_bad.append(f"/units/placement has {pds.shape[1]} columns but n = {n}")
        if shape_bad:
            rep.fail("/units dataset shapes are inconsistent", shape_bad)
            return False
        if types.fails:
            return False
        U = self.U = rf.unit_rows()
        ud = self.rf.int_attr("units_done")
        if ud is not None:
            rep.check(ud == U, f"units_done = {U} equals the rows of /units",
                      f"root attribute units_done = {ud} but /units has {U} rows")
        # one pass over /units in chunks (memory stays bounded whatever their number), then
        # the reports in a fixed order
        checks = [_IdCheck(self), _MultiplicityCheck(self),
                  (_BorderCover if self.scheme == "border" else _PrefixCover)(self),
                  _RecountCheck(self), _TimesCheck(self)]
        total = _TotalSum()
        for start, ch in rf.iter_units(self.chunk_rows):
            for c in checks + [total]:
                c.add(start, ch)
        for c in checks:
            c.report()
        self.recomputed_total = total.value
        return True

    def repeated_placements(self, keys, fields, rows_of):
        """The rows behind repeated keys (a second pass over /units): {row bytes: (values,
        [(row, tag), ...])} for the values that really occur more than once.  rows_of(start,
        chunk) yields (keys, rows, values, tag) for the keys the first pass added."""
        groups = {}
        if not len(keys):
            return groups
        for start, ch in self.rf.iter_units(self.chunk_rows, fields=fields):
            for k, rows, vals, tag in rows_of(start, ch):
                for j in np.nonzero(np.isin(k, keys))[0]:
                    groups.setdefault(vals[j].tobytes(), (vals[j], []))[1].append(
                        (int(rows[j]), tag))
        return {b: (vals, sorted(rows)) for b, (vals, rows) in groups.items() if len(rows) > 1}

    # ------------------------------------------------------------------ totals
    def check_totals(self):
        rf, rep, n = self.rf, self.rep, self.n
        a = rf.attrs
        total = rf.count("total")
        unique = rf.count("unique")
        p_fixed = rf.int_attr("rot180_fixed")
        r_fixed = rf.int_attr("rot90_fixed")
        recomputed = self.recomputed_total
        if recomputed is not None:
            rep.check(total == recomputed,
                      f"total = {total} equals sum(multiplicity*solutions) over /units",
                      f"root attribute total = {total} but sum(multiplicity*solutions) over "
                      f"/units/solutions is {recomputed} (difference {None if total is None else total - recomputed})")
        try:
            table = load_known(self.known_path)
        except (OSError, ValueError) as exc:
            rep.warn(f"published table unreadable ({exc}); comparisons with it skipped")
            table = None
        k = table.get(n) if table is not None else None
        if table is not None and k is None:
            rep.info(f"n = {n} is not in the published table {self.known_path}")

        # known_* attributes echo the table
        if table is not None:
            kt, ku = rf.int_attr("known_total"), rf.int_attr("known_unique")
            exp_t = k.total if k else -1
            exp_u = k.unique if k else -1
            bad = []
            for name, have, want in (("known_total", kt, exp_t), ("known_unique", ku, exp_u)):
                if have is None or have == want:
                    continue
                if have == -1:
                    rep.warn(f"root attribute {name} = -1 (unknown) but the table has {want}")
                elif want == -1:   # (the file knew a count that this table lacks)
                    bad.append(f"root attribute {name} = {have}, but the published table has no n = {n}")
                else:
                    bad.append(f"root attribute {name} = {have}, the published table says {want}")
            if bad:
                rep.fail("known_total/known_unique differ from the published table", bad)

        if not self.whole:
            why = "partial" if not self.complete else f"shard {self.shard_index}/{self.shard_count}"
            if unique not in (None, 0):
                rep.fail(f"root attribute unique = {unique} but must be 0 for a {why} file")
            else:
                rep.ok(f"unique = 0 as required for a {why} file")
            rep.info(f"{why} file: comparison with the published table and Burnside skipped")
            mk = a.get("matches_known")
            if mk not in (None, "unknown"):
                rep.warn(f"matches_known = {mk!r} for a {why} file (expected 'unknown')")
            return

        # published table
        if k is not None:
            probs = []
            for name, have, want in (("total", total, k.total), ("unique", unique, k.unique),
                                     ("rot180_fixed", p_fixed, k.rot180_fixed),
                                     ("rot90_fixed", r_fixed, k.rot90_fixed)):
                if have != want:
                    probs.append(f"root attribute {name} = {have}, published value {want}")
            rep.check(not probs, f"total {total}, unique {unique}, rot180_fixed {p_fixed}, "
                      f"rot90_fixed {r_fixed} match the published table for n = {n}",
                      f"values differ from the published table for n = {n}", probs)
            want_mk = "yes" if (total == k.total and unique == k.unique) else "no"
        else:
            want_mk = "unknown"
        mk = a.get("matches_known")
        if mk is not None and table is not None:
            rep.check(mk == want_mk, f"matches_known = {mk!r} is consistent",
                      f"root attribute matches_known = {mk!r} but the values give {want_mk!r}")

        # Burnside
        if None not in (total, unique, p_fixed, r_fixed):
            if n == 1:
                rep.check(unique == 1 and total == 1, "n = 1: total = unique = 1",
                          f"n = 1 must have total = unique = 1 (file: {total}, {unique})")
            else:
                s = total + p_fixed + 2 * r_fixed
                ok = s % 8 == 0 and s // 8 == unique
                rep.check(ok, f"Burnside: (total + rot180_fixed + 2*rot90_fixed) = {s} = 8*unique",
                          f"Burnside identity broken: total + rot180_fixed + 2*rot90_fixed = "
                          f"{total} + {p_fixed} + 2*{r_fixed} = {s}"
                          + (" is not divisible by 8" if s % 8 else f" but 8*unique = {8 * unique}"))

    # ------------------------------------------------------------------ /boards
    def check_boards(self):
        rf, rep, n = self.rf, self.rep, self.n
        has_group = "boards" in rf.h5 and hasattr(rf.h5["boards"], "keys")
        if self.mode != "boards":
            if has_group:
                rep.warn("group /boards present although mode is count (ignored)")
            return
        if not has_group:
            rep.fail("mode is boards but group /boards is missing")
            return
        grp = rf.h5["boards"]
        is_class = self.bs == "class"
        need = ["solutions", "unit"] + (["class_size"] if is_class else [])
        missing = [k for k in need if k not in grp]
        if missing:
            rep.fail(f"/boards datasets missing: {', '.join('/boards/' + k for k in missing)}")
            return
        if not is_class and "class_size" in grp:
            rep.warn("/boards/class_size present although boards_stored is all")
        sol = grp["solutions"]
        S = sol.shape[0] if sol.ndim else 0
        probs, types = [], _TypeCheck("/boards dataset")
        for k in need:
            ds = grp[k]
            kind, rank = BOARD_DATASETS[k]
            types.add(f"/boards/{k}", *dtype_problem(ds.dtype, kind))
            if ds.ndim != rank:
                probs.append(f"/boards/{k} has shape {ds.shape}, expected rank {rank}")
            elif ds.shape[0] != S:
                probs.append(f"/boards/{k} has {ds.shape[0]} rows but /boards/solutions has {S}")
        if sol.ndim == 2 and sol.shape[1] != n:
            probs.append(f"/boards/solutions has {sol.shape[1]} columns but n = {n}")
        types.report(rep)
        if probs:
            rep.fail("/boards dataset shapes are inconsistent", probs)
        if types.fails or probs:
            return
        filt = []
        if sol.chunks is None:
            filt.append("not chunked")
        if not sol.shuffle:
            filt.append("no shuffle filter")
        if sol.compression != "gzip":
            filt.append(f"compression {sol.compression!r} instead of deflate")
        if not sol.fletcher32:
            filt.append("no fletcher32 checksum")
        if filt:
            rep.warn(f"/boards/solutions storage: {', '.join(filt)} (schema: chunked, "
                     f"shuffle + deflate + fletcher32)")

        units_ok = self.units_ok
        if units_ok:   # whole: a boards file's units are few next to its boards
            units = self.rf.units(fields=("id", "placement", "multiplicity", "solutions"))
            ids = units["id"].astype(np.uint64)
            order = np.argsort(ids, kind="stable")
            sorted_ids = ids[order]
            upl = units["placement"]
            any_placed = bool((upl >= 0).any())
            umult = units["multiplicity"].astype(np.int64)
            per_unit = np.zeros(len(ids), dtype=np.int64)

        board_keys = RepeatedKeys(S, self.key_budget)
        exact_keys = n <= 16

        invalid, n_invalid = [], 0
        nounit, n_nounit = [], 0
        badplace, n_badplace = [], 0
        noncanon, n_noncanon = [], 0
        badclass, n_badclass = [], 0
        canon_count = 0
        p_fixed = r_fixed = 0
        class_sum = 0

        for start, b, u, c in rf.iter_boards(self.chunk_rows, with_class=is_class):
            m = len(b)
            rows = np.arange(start, start + m)
            bi = b.astype(np.int16)
            valid = B.valid_mask(bi, n)
            # the eight transforms of every board as packed keys (meaningful for valid ones)
            ks = B.symmetry_keys(b) if B.keys_fit(n) else None
            nv = int((~valid).sum())
            if nv:
                n_invalid += nv
                for r in np.nonzero(~valid)[0][:max(0, MAX_DETAILS - len(invalid))]:
                    invalid.append(f"/boards/solutions row {start + r} [{_fmt_board(b[r])}]: "
                                   f"{B.explain_board(b[r], n)}")
            # keys for duplicates
            board_keys.add(B.board_keys(b)[0])
            # unit of each board
            if units_ok:
                u = u.astype(np.uint64)
                pos = np.searchsorted(sorted_ids, u)
                pos_c = np.minimum(pos, max(len(sorted_ids) - 1, 0))
                found = (pos < len(sorted_ids))
                if len(sorted_ids):
                    found &= sorted_ids[pos_c] == u
                nf = int((~found).sum())
                if nf:
                    n_nounit += nf
                    for r in np.nonzero(~found)[0][:max(0, MAX_DETAILS - len(nounit))]:
                        nounit.append(f"/boards/unit row {start + r}: unit id {int(u[r])} "
                                      f"is not in /units/id")
                urow = order[pos_c[found]] if len(sorted_ids) else np.zeros(0, dtype=np.intp)
                per_unit += np.bincount(urow, minlength=len(ids))
                if any_placed and len(urow):
                    bf = bi[found]
                    up = upl[urow]
                    free = up < 0
                    ok = ((bf == up) | free).all(axis=1)
                    mm = umult[urow] > 1
                    if self.scheme == "border":
                        # a board is an image g(s) of a completion s of the placement
                        cand = np.nonzero(~ok & mm)[0]
                        if len(cand) and ks is not None:   # packed keys, for valid boards
                            vf = valid[found]
                            kc = cand[vf[cand]]
                            at = np.nonzero(found)[0][kc]   # their rows in the chunk
                            pk, pm = B.placement_keys(up[kc])
                            hit = np.zeros(len(kc), dtype=bool)
                            for th, tl in ks[1:]:
                                hit |= ((th[at] & pm[0]) == pk[0]) & ((tl[at] & pm[1]) == pk[1])
                            ok[kc] = hit
                            cand = cand[~vf[cand]]
                        if len(cand):
                            for t in B.transforms(bf[cand])[1:]:
                                ok[cand] |= ((t == up[cand]) | free[cand]).all(axis=1)
                    elif self.scheme == "mirror":
                        # mirror: the board or its mirror image completes the placement
                        ok |= mm & (((n - 1) - bf == up) | free).all(axis=1)
                    badp = np.nonzero(~ok)[0]
                    if len(badp):
                        n_badplace += len(badp)
                        frows = rows[found]
                        for j in badp[:max(0, MAX_DETAILS - len(badplace))]:
                            ur = urow[j]
                            alt = {"border": " or an image of it", "none": "",
                                   "mirror": " or its mirror"}[self.scheme]
                            alt = alt if umult[ur] > 1 else ""
                            badplace.append(
                                f"/boards/solutions row {frows[j]} [{_fmt_board(bf[j])}] does not "
                                f"complete the pre-placement [{_fmt_pl(up[j])}]{alt} of its unit "
                                f"id {int(ids[ur])} (/units row {ur})")
            # symmetry
            vb = bi[valid]
            vrows = rows[valid]
            if len(vb):
                is_canon = np.ones(len(vb), dtype=bool)
                stab = np.zeros(len(vb), dtype=np.int64)
                if ks is not None:
                    kv = [(h[valid], l[valid]) for h, l in ks]
                    for t in kv:
                        stab += B.keys_eq(t, kv[0])
                    for t in kv[1:]:
                        is_canon &= ~B.keys_lt(t, kv[0])
                    fixed180 = B.keys_eq(kv[3], kv[0])
                    fixed90 = B.keys_eq(kv[5], kv[0])
                else:
                    ts = B.transforms(vb)
                    for t in ts:
                        stab += (t == vb).all(axis=1)
                    for t in ts[1:]:
                        is_canon &= B.lex_le(vb, t)
                    fixed180 = (ts[3] == vb).all(axis=1)
                    fixed90 = (ts[5] == vb).all(axis=1)
                csize = 8 // stab
                if is_class:
                    class_sum += int(c.astype(np.int64).sum())
                    p_fixed += int(csize[fixed180].sum())
                    r_fixed += int(csize[fixed90].sum())
                    nc = np.nonzero(~is_canon)[0]
                    if len(nc):
                        n_noncanon += len(nc)
                        for j in nc[:max(0, MAX_DETAILS - len(noncanon))]:
                            can = B.canonical(vb[j:j + 1])[0]
                            noncanon.append(f"/boards/solutions row {vrows[j]} "
                                            f"[{_fmt_board(vb[j])}] is not canonical: the "
                                            f"smallest transform is [{_fmt_board(can)}]")
                    cv = c[valid].astype(np.int64)
                    bc = np.nonzero(cv != csize)[0]
                    if len(bc):
                        n_badclass += len(bc)
                        for j in bc[:max(0, MAX_DETAILS - len(badclass))]:
                            badclass.append(f"/boards/class_size row {vrows[j]}: {int(cv[j])}, "
                                            f"but board [{_fmt_board(vb[j])}] has a class of "
                                            f"{int(csize[j])}")
                else:
                    canon_count += int(is_canon.sum())
                    p_fixed += int(fixed180.sum())
                    r_fixed += int(fixed90.sum())
            if is_class:
                # class sizes of invalid rows still count towards sum(class_size)
                if nv:
                    class_sum += int(c[~valid].astype(np.int64).sum())

        # --- validity
        rep.check(n_invalid == 0, f"/boards/solutions: all {S} boards are valid {n}-queens solutions",
                  f"/boards/solutions: {n_invalid} invalid boards", invalid, total=n_invalid)
        # --- duplicates
        self.check_duplicates(board_keys, exact_keys, S)
        # --- units of boards
        if units_ok:
            rep.check(n_nounit == 0, "/boards/unit: every board's unit is in /units",
                      f"/boards/unit: {n_nounit} boards name a unit that is not in /units",
                      nounit, total=n_nounit)
            if any_placed:
                how = {"border": " (or is an image of one, for multiplicity > 1)", "none": "",
                       "mirror": " (or its mirror, for multiplicity 2)"}[self.scheme]
                rep.check(n_badplace == 0,
                          f"/boards: every board completes its unit's pre-placement{how}",
                          f"/boards: {n_badplace} boards do not complete their unit's "
                          f"pre-placement", badplace, total=n_badplace)
        total_attr = rf.count("total")
        unique_attr = rf.count("unique")
        if not is_class:
            rep.check(S == total_attr, f"/boards/solutions: {S} rows = total",
                      f"/boards/solutions has {S} rows but root attribute total = {total_attr}")
            if units_ok:
                want = umult * units["solutions"].astype(np.int64)
                diff = np.nonzero(per_unit != want)[0]
                rep.check(len(diff) == 0,
                          "/boards/unit: every unit has multiplicity*solutions boards",
                          f"/boards/unit: {len(diff)} units have a board count different from "
                          f"multiplicity*solutions",
                          [f"unit id {int(ids[r])} (/units row {r}): {int(per_unit[r])} boards, "
                           f"multiplicity*solutions = {int(umult[r])}*"
                           f"{int(units['solutions'][r])} = {int(want[r])}"
                           for r in diff[:MAX_DETAILS]], total=len(diff))
            if self.whole and n_invalid == 0:
                self.check_symmetry_counts((("unique", unique_attr, canon_count),
                                            *self.fixed_counts(p_fixed, r_fixed)))
        else:
            rep.check(n_noncanon == 0,
                      "/boards/solutions: every board is its class's canonical representative",
                      f"/boards/solutions: {n_noncanon} boards are not canonical",
                      noncanon, total=n_noncanon)
            rep.check(n_badclass == 0, "/boards/class_size: every class size is right",
                      f"/boards/class_size: {n_badclass} wrong class sizes", badclass,
                      total=n_badclass)
            if self.whole:
                rep.check(S == unique_attr, f"/boards/solutions: {S} rows = unique",
                          f"/boards/solutions has {S} rows but root attribute unique = {unique_attr}")
                rep.check(class_sum == total_attr,
                          f"sum(/boards/class_size) = {class_sum} = total",
                          f"sum(/boards/class_size) = {class_sum} but root attribute total = "
                          f"{total_attr}")
                if n_invalid == 0 and n_badclass == 0:
                    self.check_symmetry_counts(self.fixed_counts(p_fixed, r_fixed))
            else:
                rep.info("class counts vs total/unique skipped (partial or shard file)")

    def fixed_counts(self, p_fixed, r_fixed):
        """(root attribute, its value, what the boards give) of the boards fixed by the rotations."""
        return (("rot180_fixed", self.rf.int_attr("rot180_fixed"), p_fixed),
                ("rot90_fixed", self.rf.int_attr("rot90_fixed"), r_fixed))

    def check_symmetry_counts(self, derived):
        """The counts the boards give against the root attributes: `derived` holds (attribute
        name, its value, what the boards give)."""
        probs = [f"root attribute {name} = {have}, the boards give {want}"
                 for name, have, want in derived if have != want]
        self.rep.check(not probs, "boards give " + ", ".join(f"{name} {want}" for name, _, want in derived)
                       + ", as the root attributes say",
                       "symmetry counts derived from /boards differ from the root attributes", probs)

    def check_duplicates(self, board_keys, exact, S):
        rep = self.rep
        n_extra, _, dup_keys = board_keys.repeated()
        if n_extra == 0:
            rep.ok(f"/boards/solutions: no duplicate boards among {S}")
            return
        groups = {}
        for start, b, _, _ in self.rf.iter_boards(self.chunk_rows, with_class=False):
            k, _ = B.board_keys(b)
            hit = np.nonzero(np.isin(k, dup_keys))[0]
            for r in hit:
                groups.setdefault(bytes(b[r].tobytes()), []).append(start + int(r))
        details = []
        confirmed = 0
        for board, rows in groups.items():
            if len(rows) > 1:
                confirmed += len(rows) - 1
                if len(details) < MAX_DETAILS:
                    details.append(f"/boards/solutions rows {_rows_text(rows)}: board "
                                   f"[{_fmt_board(np.frombuffer(board, np.uint8))}] "
                                   f"stored {len(rows)} times")
        if not exact:
            n_extra = confirmed
        if n_extra == 0:
            rep.ok(f"/boards/solutions: no duplicate boards among {S}")
        else:
            rep.fail(f"/boards/solutions: {n_extra} duplicate boards", details,
                     total=max(len(details), sum(1 for r in groups.values() if len(r) > 1)))

    # ------------------------------------------------------------------ driver
    def run(self):
        rf, rep = self.rf, self.rep
        a = rf.attrs
        print(f"verify {rf.path}", file=self.out)
        print(f"  n={a.get('n')} mode={a.get('mode')} boards_stored={a.get('boards_stored')} "
              f"status={a.get('status')} units={a.get('units_done')}/{a.get('units_total')} "
              f"depth={a.get('depth')} symmetry={a.get('symmetry')} "
              f"shard={a.get('shard_index')}/{a.get('shard_count')}", file=self.out)
        if self.check_attributes():
            self.units_ok = self.check_units()
            self.check_totals()
            self.check_boards()
        else:
            rep.fail("cannot check further without valid n and depth")
        if rep.fails:
            print(f"RESULT: FAIL ({len(rep.fails)} failed checks, {rep.warns} warnings): "
                  + "; ".join(rep.fails[:3]) + (" ..." if len(rep.fails) > 3 else ""),
                  file=self.out)
            return 1
        print(f"RESULT: PASS ({rep.oks} checks, {rep.warns} warnings)", file=self.out)
        return 0


def verify_path(path, out=None, progress=None, **kw):
    """Verify one file; returns the exit code (0 pass, 1 fail, 3 unreadable)."""
    out = out or sys.stdout
    with ResultFile(path, progress) as rf:
        return Verifier(rf, out, **kw).run()
