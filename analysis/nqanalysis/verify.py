"""`nqanalyze verify`: an integrity check of a result file, independent of the C++ code.

Every check prints one line (ok / WARN / FAIL / info); a FAIL names the dataset or attribute
and the row indices concerned.  Exit codes: 0 pass, 1 fail, 3 unreadable / not an nqueens file.
"""

import math
import os
import sys
import tempfile

import numpy as np

from . import boards as B
from .known import default_table_path, load_known
from .resultfile import (BOARD_DATASETS, READABLE_VERSIONS, UNIT_DATASETS, WIDE_COUNTS,
                         ResultFile, dtype_problem, root_attrs, unit_scheme)

MAX_DETAILS = 10
CHUNK_ROWS = 1 << 17            # boards per chunk (~2 MB of uint8 for N = 16)
KEY_BUDGET = 16 * 1024 * 1024   # uint64 keys held at once for duplicate detection (128 MB)
RECOUNT_AUTO_MAX_N = 10         # recount every unit with the Python solver up to this N
COVERAGE_LIMIT = 2_000_000      # largest placement enumeration for the unit coverage check
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


def _rows_text(rows, limit=MAX_DETAILS):
    rows = [int(r) for r in rows]
    text = ", ".join(str(r) for r in rows[:limit])
    if len(rows) > limit:
        text += f", ... ({len(rows)} rows)"
    return text


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
        self.units = None

    # ------------------------------------------------------------------ attributes
    def check_attributes(self):
        rf, rep = self.rf, self.rep
        schema = root_attrs(rf.format_version)
        missing = [k for k in schema if k not in rf.attrs]
        type_fail, type_warn = [], []
        for k, kind in schema.items():
            if k not in rf.attrs:
                continue
            sev, msg = dtype_problem(rf.raw_attr_types[k], kind)
            if kind == "str" and sev is None:
                raw = rf.raw_attr_types[k]
                if raw.kind == "O":
                    sev, msg = "warn", ("is a variable-length string, the schema says "
                                        "fixed-length ASCII")
            if sev == "fail":
                type_fail.append(f"root attribute '{k}' {msg}")
            elif sev == "warn":
                type_warn.append(f"root attribute '{k}' {msg}")
        if missing:
            rep.fail(f"root attributes missing: {', '.join(missing)}")
        if type_fail:
            rep.fail("root attribute types differ from the schema", type_fail)
        if type_warn:
            rep.warn("root attribute storage types differ from the schema", type_warn)
        if not missing and not type_fail:
            rep.ok(f"root attributes: all {len(schema)} present with the schema's types")

        a = rf.attrs
        bad = []

        def val_int(name):
            v = a.get(name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                return None
            return int(v)

        def need(cond, text):
            if not cond:
                bad.append(text)

        fv = val_int("format_version")
        need(fv is None or fv in READABLE_VERSIONS,
             f"format_version = {fv}, this verifier knows versions {READABLE_VERSIONS}")
        for name in WIDE_COUNTS:
            problem = rf.count_problem(name)
            need(problem is None, f"the 128-bit count {name}: {problem}")
        n = val_int("n")
        need(n is None or n >= 1, f"n = {n} (must be >= 1)")
        mode = a.get("mode")
        need(mode is None or mode in ("count", "boards"), f"mode = {mode!r} (count or boards)")
        bs = a.get("boards_stored")
        if mode == "count":
            need(bs is None or bs == "none", f"boards_stored = {bs!r} but mode is count (expected 'none')")
        elif mode == "boards":
            need(bs is None or bs in ("all", "class"),
                 f"boards_stored = {bs!r} but mode is boards (expected 'all' or 'class')")
        depth = val_int("depth")
        need(depth is None or n is None or 0 <= depth <= n, f"depth = {depth} outside 0..n={n}")
        sym = a.get("symmetry")
        need(sym is None or sym in ("none", "mirror", "full"),
             f"symmetry = {sym!r} (none, mirror or full)")
        status = a.get("status")
        need(status is None or status in ("complete", "partial"),
             f"status = {status!r} (complete or partial)")
        for k in ("ranks", "threads"):
            v = val_int(k)
            need(v is None or v >= 1, f"{k} = {v} (must be >= 1)")
        si, sc = val_int("shard_index"), val_int("shard_count")
        need(sc is None or sc >= 1, f"shard_count = {sc} (must be >= 1; 1 = unsharded)")
        need(si is None or sc is None or sc < 1 or 0 <= si < sc,
             f"shard_index = {si} outside 0..shard_count-1 = {None if sc is None else sc - 1}")
        ud, ut = val_int("units_done"), val_int("units_total")
        need(ud is None or ut is None or ud <= ut, f"units_done = {ud} > units_total = {ut}")
        ws = a.get("wall_seconds")
        need(ws is None or (isinstance(ws, float) and math.isfinite(ws) and ws >= 0),
             f"wall_seconds = {ws!r} (must be a finite number >= 0)")
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
        self.shard_index = si if si is not None else 0
        self.shard_count = sc if (sc is not None and sc >= 1) else 1
        self.units_total = ut
        self.complete = status == "complete"
        self.whole = self.complete and self.shard_count == 1
        return n is not None and depth is not None and 0 <= depth <= n

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
        type_fail, type_warn, shape_bad = [], [], []
        lengths = {}
        for k, (kind, rank) in UNIT_DATASETS.items():
            ds = grp[k]
            if not hasattr(ds, "dtype"):
                shape_bad.append(f"/units/{k} is not a dataset")
                continue
            sev, msg = dtype_problem(ds.dtype, kind)
            if sev == "fail":
                type_fail.append(f"/units/{k} {msg}")
            elif sev == "warn":
                type_warn.append(f"/units/{k} {msg}")
            if ds.ndim != rank:
                shape_bad.append(f"/units/{k} has shape {ds.shape}, expected rank {rank}")
            lengths[k] = ds.shape[0] if ds.ndim else None
        if type_fail:
            rep.fail("/units dataset types differ from the schema", type_fail)
        if type_warn:
            rep.warn("/units dataset storage types differ from the schema", type_warn)
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
        if type_fail:
            return False
        self.units = un = rf.units()
        U = len(un["id"])
        ids = un["id"].astype(np.uint64)
        mult = un["multiplicity"].astype(np.int64)
        pl = un["placement"]
        self.U = U

        ud = self.rf.int_attr("units_done")
        if ud is not None:
            rep.check(ud == U, f"units_done = {U} equals the rows of /units",
                      f"root attribute units_done = {ud} but /units has {U} rows")

        # ids: sorted, unique, in range, shard
        prob = []
        if U > 1:
            dup = np.nonzero(ids[1:] == ids[:-1])[0]
            uns = np.nonzero(ids[1:] < ids[:-1])[0]
            for r in dup[:MAX_DETAILS]:
                prob.append(f"/units/id rows {r} and {r + 1}: id {int(ids[r])} appears twice")
            for r in uns[:MAX_DETAILS]:
                prob.append(f"/units/id row {r + 1}: id {int(ids[r + 1])} follows "
                            f"{int(ids[r])} (not sorted)")
            ndup, nuns = len(dup), len(uns)
        else:
            ndup = nuns = 0
        ut = self.units_total
        nout = 0
        if ut is not None:
            out_rows = np.nonzero(ids >= np.uint64(ut))[0]
            nout = len(out_rows)
            for r in out_rows[:MAX_DETAILS]:
                prob.append(f"/units/id row {r}: id {int(ids[r])} outside [0, units_total={ut})")
        nshard = 0
        if self.shard_count > 1:
            wrong = np.nonzero(ids % np.uint64(self.shard_count) != np.uint64(self.shard_index))[0]
            nshard = len(wrong)
            for r in wrong[:MAX_DETAILS]:
                prob.append(f"/units/id row {r}: id {int(ids[r])} does not belong to shard "
                            f"{self.shard_index}/{self.shard_count}")
        if prob:
            rep.fail(f"/units/id: {ndup} duplicate, {nuns} unsorted, {nout} out-of-range"
                     + (f", {nshard} foreign-shard" if self.shard_count > 1 else "") + " ids",
                     prob, total=ndup + nuns + nout + nshard)
        else:
            rng = f"[0, {ut})" if ut is not None else "(units_total unknown)"
            rep.ok(f"/units/id: {U} ids unique, sorted, within {rng}"
                   + (f", all in shard {self.shard_index}/{self.shard_count}"
                      if self.shard_count > 1 else ""))

        # completeness
        if ut is not None:
            expected = len(range(self.shard_index, ut, self.shard_count))
            where = "" if self.shard_count == 1 else f" of shard {self.shard_index}/{self.shard_count}"
            if self.complete:
                if expected > 200_000_000:
                    rep.fail(f"units_total = {ut} is implausible for a complete file with {U} rows")
                else:
                    exp_ids = np.arange(self.shard_index, ut, self.shard_count, dtype=np.uint64)
                    miss = np.setdiff1d(exp_ids, ids, assume_unique=True)
                    if len(miss) == 0 and U == expected:
                        rep.ok(f"/units: complete, exactly the {expected} units{where}")
                    else:
                        txt = ", ".join(str(int(x)) for x in miss[:20])
                        if len(miss) > 20:
                            txt += ", ..."
                        rep.fail(f"/units: status is complete but {len(miss)} unit ids{where} "
                                 f"are missing (/units has {U} rows, expected {expected})"
                                 + (f": missing ids {txt}" if len(miss) else ""))
            else:
                rep.info(f"status partial: {U} of {expected} units{where} done")
                if U >= expected and expected > 0:
                    rep.warn(f"status is partial but /units holds all {expected} units{where}")

        # multiplicity
        symtext = f"symmetry {self.sym}"
        if self.sym == "full" and self.scheme == "mirror":
            symtext += ", the mirror scheme for n <= 3"
        allowed = {"none": (1,), "mirror": (1, 2), "border": (1, 2, 4, 8)}[self.scheme]
        badm = np.nonzero(~np.isin(mult, allowed))[0]
        if len(badm):
            rep.fail(f"/units/multiplicity: {len(badm)} values other than "
                     f"{' or '.join(map(str, allowed))} ({symtext})",
                     [f"row {r} (unit id {int(ids[r])}): {int(mult[r])}" for r in badm[:MAX_DETAILS]],
                     total=len(badm))
        else:
            rep.ok(f"/units/multiplicity: all {' or '.join(map(str, allowed))} ({symtext})")

        # placements: valid, rows filled as the symmetry says, no overlaps, full coverage
        self.check_placements(ids, pl, mult)

        # per-unit recount with the Python solver
        do_recount = self.recount == "always" or (self.recount == "auto" and n <= RECOUNT_AUTO_MAX_N)
        if do_recount and U:
            sols = un["solutions"]
            wrong = []
            for r in range(U):
                if not self._placement_ok[r]:
                    continue
                c = B.count_completions(n, pl[r])
                if c != int(sols[r]):
                    wrong.append(f"/units/solutions row {r} (unit id {int(ids[r])}, placement "
                                 f"[{_fmt_pl(pl[r])}]): file says {int(sols[r])}, "
                                 f"recount gives {c}")
            rep.check(not wrong, f"/units/solutions: all {U} units recounted by the Python solver",
                      f"/units/solutions: {len(wrong)} units differ from an independent recount",
                      wrong)
        elif self.recount == "auto":
            rep.info(f"per-unit recount skipped for n = {n} > {RECOUNT_AUTO_MAX_N} "
                     f"(use --recount to force)")

        # times and workers
        sec, st = un["seconds"], un["started"]
        bad_t = np.nonzero(~np.isfinite(sec) | (sec < 0) | ~np.isfinite(st))[0]
        if len(bad_t):
            rep.fail(f"/units/seconds or /units/started: {len(bad_t)} rows not finite or negative",
                     [f"row {r}: seconds={sec[r]!r} started={st[r]!r}" for r in bad_t[:MAX_DETAILS]],
                     total=len(bad_t))
        ranks, threads = self.rf.int_attr("ranks"), self.rf.int_attr("threads")
        wr = []
        if ranks is not None:
            rr = np.nonzero((un["rank"] < 0) | (un["rank"] >= ranks))[0]
            if len(rr):
                wr.append(f"/units/rank: {len(rr)} rows outside [0, ranks={ranks}) "
                          f"(rows {_rows_text(rr)}; expected only after a resume with more ranks)")
        if threads is not None:
            tr = np.nonzero((un["thread"] < 0) | (un["thread"] >= threads))[0]
            if len(tr):
                wr.append(f"/units/thread: {len(tr)} rows outside [0, threads={threads}) "
                          f"(rows {_rows_text(tr)})")
        if wr:
            rep.warn("worker ids outside the last run's ranks x threads", wr)
        return True

    def check_placements(self, ids, pl, mult):
        rep, n, depth, pname = self.rep, self.n, self.depth, PNAME
        U = len(ids)
        self._placement_ok = np.ones(U, dtype=bool)
        if U == 0:
            return
        okm = B.placement_valid_mask(pl, n)
        self._placement_ok = okm
        bad = np.nonzero(~okm)[0]
        if len(bad):
            rep.fail(f"{pname}: {len(bad)} pre-placements are not valid (queens attack each "
                     f"other or lie off the board)",
                     [f"row {r} (unit id {int(ids[r])}) [{_fmt_pl(pl[r])}]: "
                      f"{B.explain_board(pl[r], n)}" for r in bad[:MAX_DETAILS]],
                     total=len(bad))
            return
        if self.scheme == "border":
            self.check_border_units(ids, pl, mult)
            return
        # none / mirror: exactly rows 0..depth-1 are pre-placed
        filled = pl >= 0
        want = np.arange(n) < depth
        wrong = np.nonzero((filled != want).any(axis=1))[0]
        if len(wrong):
            rep.fail(f"{pname}: {len(wrong)} units do not pre-place exactly rows 0..{depth - 1}",
                     [f"row {r} (unit id {int(ids[r])}): [{_fmt_pl(pl[r])}]"
                      for r in wrong[:MAX_DETAILS]], total=len(wrong))
            return
        if depth == 0:
            rep.ok(f"{pname}: depth 0, nothing pre-placed")
            if self.whole and (U != 1 or int(mult[0]) != 1):
                rep.fail(f"/units: depth 0 needs exactly one unit of multiplicity 1 "
                         f"({U} units, multiplicities {sorted(set(mult.tolist()))})")
            return
        first = pl[:, :depth]
        # every placement a unit stands for: its own, and its mirror when multiplicity 2
        m2 = np.nonzero(mult == 2)[0]
        mir = (n - 1) - first[m2]
        selfsym = m2[(mir == first[m2]).all(axis=1)]
        allp = np.concatenate([first, mir], axis=0)
        owner = np.concatenate([np.arange(U), m2])
        is_mirror = np.concatenate([np.zeros(U, bool), np.ones(len(m2), bool)])
        uniq, inv, counts = np.unique(allp, axis=0, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        problems = []
        for r in selfsym[:MAX_DETAILS]:
            problems.append(f"row {r} (unit id {int(ids[r])}): multiplicity 2 but placement "
                            f"[{_fmt_pl(pl[r])}] is its own mirror")
        dup_groups = np.nonzero(counts > 1)[0]
        for g in dup_groups[:MAX_DETAILS]:
            members = np.nonzero(inv == g)[0]
            desc = ", ".join(f"row {owner[m]}{' (mirrored)' if is_mirror[m] else ''}"
                             for m in members)
            problems.append(f"placement [{_fmt_board(uniq[g])}] covered more than once: {desc}")
        covered = len(allp)
        if problems:
            rep.fail(f"{pname}: units overlap (counting the mirror of multiplicity-2 units)",
                     problems, total=len(selfsym) + len(dup_groups))
            return
        if self.whole:
            expect = None if covered > COVERAGE_LIMIT else \
                B.valid_prefix_count(n, depth, limit=COVERAGE_LIMIT)
            if expect is None:
                rep.info(f"{pname}: coverage check skipped (more than {COVERAGE_LIMIT} placements)")
                rep.ok(f"{pname}: {U} valid, distinct pre-placements (mirrors included)")
            elif expect == covered:
                rep.ok(f"{pname}: valid and distinct; with mirrors they cover all {expect} "
                       f"placements of the first {depth} rows exactly once")
            else:
                rep.fail(f"{pname}: units (with mirrors) cover {covered} placements of the "
                         f"first {depth} rows, but there are {expect}")
        else:
            rep.ok(f"{pname}: {U} valid, distinct pre-placements (mirrors included)")

    def check_border_units(self, ids, pl, mult):
        """symmetry full (n >= 4): each unit pre-places a border (the queens of row 0, row
        n-1, column 0 and column n-1) and rows 1..depth-1; its multiplicity is the number of
        distinct images of the border.  The borders with their images cover every valid border
        exactly once, and the units of each border cover every valid filling of rows
        1..depth-1 exactly once (whole files)."""
        rep, n, depth, pname = self.rep, self.n, self.depth, PNAME
        U = len(ids)
        rows = np.arange(n)
        filled = pl >= 0
        need = (rows < max(depth, 1)) | (rows == n - 1)
        side = (pl == 0) | (pl == n - 1)
        bad = (need & ~filled).any(axis=1) | (filled & ~need & ~side).any(axis=1) | \
            ~(pl == 0).any(axis=1) | ~(pl == n - 1).any(axis=1)
        badr = np.nonzero(bad)[0]
        if len(badr):
            rep.fail(f"{pname}: {len(badr)} units are not a border (queens in row 0, row "
                     f"{n - 1}, column 0 and column {n - 1}) plus rows 0..{max(depth, 1) - 1}",
                     [f"row {r} (unit id {int(ids[r])}) [{_fmt_pl(pl[r])}]" for r in badr],
                     total=len(badr))
            return
        bt = B.border_tuples(pl, n)
        keys = ((bt[:, 0] * n + bt[:, 1]) * n + bt[:, 2]) * n + bt[:, 3]
        ukeys, first, inv, counts = np.unique(keys, return_index=True, return_inverse=True,
                                              return_counts=True)
        inv = inv.ravel()
        size = np.zeros(len(ukeys), dtype=np.int64)
        owner = {}
        overlaps = []
        for i, j in enumerate(first):
            orbit = B.border_orbit(bt[j], n)
            size[i] = len(orbit)
            for img in orbit:
                o = owner.setdefault(img, i)
                if o != i and (o, i) not in overlaps:
                    overlaps.append((o, i))
        probs = []

        def bname(i):
            t = bt[first[i]]
            return f"border top={t[0]} bottom={t[1]} left={t[2]} right={t[3]}"

        wrongm = np.nonzero(mult != size[inv])[0]
        for r in wrongm[:MAX_DETAILS]:
            probs.append(f"/units/multiplicity row {r} (unit id {int(ids[r])}): {int(mult[r])}, "
                         f"but its border has {int(size[inv[r]])} distinct images")
        for a, b in overlaps[:MAX_DETAILS]:
            probs.append(f"units in rows {first[a]} and {first[b]}: {bname(a)} and {bname(b)} "
                         f"are images of each other")
        uniq, pinv, pcount = np.unique(pl, axis=0, return_inverse=True, return_counts=True)
        pinv = pinv.ravel()
        dups = np.nonzero(pcount > 1)[0]
        for g in dups[:MAX_DETAILS]:
            members = np.nonzero(pinv == g)[0]
            probs.append(f"placement [{_fmt_pl(uniq[g])}] covered more than once: rows "
                         f"{_rows_text(members)}")
        if probs:
            rep.fail(f"{pname}: full-symmetry units inconsistent ({len(wrongm)} wrong "
                     f"multiplicities, {len(overlaps)} overlapping borders, {len(dups)} "
                     f"duplicate placements)", probs,
                     total=len(wrongm) + len(overlaps) + len(dups))
            return
        what = (f"{U} valid, distinct pre-placements on {len(ukeys)} borders; multiplicity = "
                f"number of distinct images of the border; no border is an image of another")
        if not self.whole:
            rep.ok(f"{pname}: {what}")
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
            rep.fail(f"{pname}: {len(miss)} classes of valid borders have no unit (their borders "
                     f"with images: {sum(len(B.border_orbit(t, n)) for t in miss)} of the "
                     f"{len(valid)} valid borders)",
                     [f"border top={t[0]} bottom={t[1]} left={t[2]} right={t[3]} (and its "
                      f"images) has no unit" for t in miss[:MAX_DETAILS]], total=len(miss))
            return
        empty = len(seen)
        # coverage of rows 1..depth-1 under each border
        if U > COVERAGE_LIMIT:
            rep.ok(f"{pname}: {what}; with their images the borders cover all {len(valid)} "
                   f"valid borders exactly once{_empty_text(empty, depth)}")
            rep.info(f"{pname}: coverage of {_rows_range(depth)} skipped (more than "
                     f"{COVERAGE_LIMIT} units)")
            return
        wrongf = []
        budget = COVERAGE_LIMIT
        for i, j in enumerate(first):
            f = B.count_fillings(n, _border_placement(bt[j], n), _rows_to_fill(bt[j], n, depth),
                                 limit=budget)
            if f is None:
                rep.info(f"{pname}: coverage of {_rows_range(depth)} skipped (more than "
                         f"{COVERAGE_LIMIT} placements)")
                rep.ok(f"{pname}: {what}; with their images the borders cover all "
                       f"{len(valid)} valid borders exactly once{_empty_text(empty, depth)}")
                return
            budget -= f
            if f != counts[i]:
                wrongf.append((i, f))
        if wrongf:
            rep.fail(f"{pname}: {len(wrongf)} borders do not have one unit per valid placement "
                     f"of their empty rows among {_rows_range(depth)}",
                     [f"{bname(i)} (first unit row {first[i]}): {int(counts[i])} units, "
                      f"{f} valid placements of its empty rows among {_rows_range(depth)}"
                      for i, f in wrongf[:MAX_DETAILS]], total=len(wrongf))
            return
        per_border = (f", and each border's units cover every valid placement of its empty "
                      f"rows among {_rows_range(depth)} exactly once") if depth >= 2 else \
            " (depth 1: one unit per border)"
        rep.ok(f"{pname}: valid and distinct; with their images the {len(ukeys)} borders cover "
               f"all {len(valid)} valid borders exactly once{_empty_text(empty, depth)}"
               f"{per_border}")

    # ------------------------------------------------------------------ totals
    def check_totals(self):
        rf, rep, n = self.rf, self.rep, self.n
        a = rf.attrs
        total = rf.count("total")
        unique = rf.count("unique")
        p_fixed = rf.int_attr("rot180_fixed")
        r_fixed = rf.int_attr("rot90_fixed")
        if self.units is not None:
            un = self.units
            m = un["multiplicity"].astype(np.uint64)
            sol = un["solutions"].astype(np.uint64)
            if len(sol) == 0:
                recomputed = 0
            elif int(m.max()) * int(sol.max()) * len(sol) < 2 ** 63:   # no uint64 overflow
                recomputed = int(np.sum(m * sol, dtype=np.uint64))
            else:
                recomputed = sum(int(a) * int(b) for a, b in zip(m.tolist(), sol.tolist()))
            self.recomputed_total = recomputed
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
        probs, tfail, twarn = [], [], []
        for k in need:
            ds = grp[k]
            kind, rank = BOARD_DATASETS[k]
            sev, msg = dtype_problem(ds.dtype, kind)
            if sev == "fail":
                tfail.append(f"/boards/{k} {msg}")
            elif sev == "warn":
                twarn.append(f"/boards/{k} {msg}")
            if ds.ndim != rank:
                probs.append(f"/boards/{k} has shape {ds.shape}, expected rank {rank}")
            elif ds.shape[0] != S:
                probs.append(f"/boards/{k} has {ds.shape[0]} rows but /boards/solutions has {S}")
        if sol.ndim == 2 and sol.shape[1] != n:
            probs.append(f"/boards/solutions has {sol.shape[1]} columns but n = {n}")
        if tfail:
            rep.fail("/boards dataset types differ from the schema", tfail)
        if twarn:
            rep.warn("/boards dataset storage types differ from the schema", twarn)
        if probs:
            rep.fail("/boards dataset shapes are inconsistent", probs)
        if tfail or probs:
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

        units_ok = self.units is not None
        if units_ok:
            ids = self.units["id"].astype(np.uint64)
            order = np.argsort(ids, kind="stable")
            sorted_ids = ids[order]
            upl = self.units["placement"]
            any_placed = bool((upl >= 0).any())
            umult = self.units["multiplicity"].astype(np.int64)
            per_unit = np.zeros(len(ids), dtype=np.int64)

        n_pass = max(1, -(-S // self.key_budget))
        spill = None   # n_pass > 1: the keys of part p go to file p, read back one part at a time
        if n_pass == 1:
            keys0 = np.empty(S, dtype=np.uint64)
        else:
            spill = tempfile.TemporaryDirectory(prefix="nqanalyze-keys-")
            keys0 = [os.path.join(spill.name, f"part{p}.u64") for p in range(n_pass)]
            spill_files = [open(k, "wb") for k in keys0]
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
            keys, _ = B.board_keys(b)
            if n_pass == 1:
                keys0[start:start + m] = keys
            else:
                part = B.mix_keys(keys) % np.uint64(n_pass)
                by_part = np.argsort(part, kind="stable")
                ends = np.cumsum(np.bincount(part.astype(np.intp), minlength=n_pass))
                for p in range(n_pass):
                    keys[by_part[ends[p - 1] if p else 0:ends[p]]].tofile(spill_files[p])
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
        if spill is not None:
            for f in spill_files:
                f.close()
        try:
            self.check_duplicates(keys0, n_pass, exact_keys, S)
        finally:
            if spill is not None:
                spill.cleanup()
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
                want = umult * self.units["solutions"].astype(np.int64)
                diff = np.nonzero(per_unit != want)[0]
                rep.check(len(diff) == 0,
                          "/boards/unit: every unit has multiplicity*solutions boards",
                          f"/boards/unit: {len(diff)} units have a board count different from "
                          f"multiplicity*solutions",
                          [f"unit id {int(ids[r])} (/units row {r}): {int(per_unit[r])} boards, "
                           f"multiplicity*solutions = {int(umult[r])}*"
                           f"{int(self.units['solutions'][r])} = {int(want[r])}"
                           for r in diff[:MAX_DETAILS]], total=len(diff))
            if self.whole and n_invalid == 0:
                probs = []
                for name, have, want in (("unique", unique_attr, canon_count),
                                         ("rot180_fixed", rf.int_attr("rot180_fixed"), p_fixed),
                                         ("rot90_fixed", rf.int_attr("rot90_fixed"), r_fixed)):
                    if have != want:
                        probs.append(f"root attribute {name} = {have}, the boards give {want}")
                rep.check(not probs, f"boards give unique {canon_count}, rot180_fixed {p_fixed}, "
                          f"rot90_fixed {r_fixed}, as the root attributes say",
                          "symmetry counts derived from /boards differ from the root attributes",
                          probs)
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
                    probs = []
                    for name, have, want in (("rot180_fixed", rf.int_attr("rot180_fixed"), p_fixed),
                                             ("rot90_fixed", rf.int_attr("rot90_fixed"), r_fixed)):
                        if have != want:
                            probs.append(f"root attribute {name} = {have}, the boards give {want}")
                    rep.check(not probs, f"boards give rot180_fixed {p_fixed}, rot90_fixed "
                              f"{r_fixed}, as the root attributes say",
                              "symmetry counts derived from /boards differ from the root attributes",
                              probs)
            else:
                rep.info("class counts vs total/unique skipped (partial or shard file)")

    def check_duplicates(self, keys0, n_pass, exact, S):
        rep = self.rep
        dup_keys = []
        n_extra = 0
        for p in range(n_pass):
            # one part of the keys at a time: all of them, or the file of part p (check_boards)
            keys = keys0 if n_pass == 1 else np.fromfile(keys0[p], dtype=np.uint64)
            keys.sort()
            eq = keys[1:] == keys[:-1]
            if eq.any():
                n_extra += int(eq.sum())
                dk = np.unique(keys[1:][eq])
                dup_keys.append(dk[:1000])
            del keys
        if n_extra == 0:
            rep.ok(f"/boards/solutions: no duplicate boards among {S}")
            return
        dup_keys = np.unique(np.concatenate(dup_keys))[:1000]
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
            units_ok = self.check_units()
            if not units_ok:
                self.units = None
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


def verify_path(path, out=None, **kw):
    """Verify one file; returns the exit code (0 pass, 1 fail, 3 unreadable)."""
    out = out or sys.stdout
    with ResultFile(path) as rf:
        return Verifier(rf, out, **kw).run()
