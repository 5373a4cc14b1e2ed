#!/usr/bin/python3
"""Write schema-conforming nqueens result files (docs/file-format.md) from a
pure-Python solver.

Development aid for the analysis tests while the C++ binary is not available, and a source of
unusual files (shards, partial runs, symmetry none) the tests use in addition to the real
binary's output.  Usage:

    PYTHONPATH=analysis analysis/tests/make_fixture.py OUT.h5 --n 8 --mode boards --boards class \
        [--depth 2] [--ranks 2 --threads 2]

(pytest finds nqanalysis through the pythonpath in analysis/pyproject.toml.)
"""

import argparse

import numpy as np
import h5py

from nqanalysis import boards as B
from nqanalysis.known import lookup
from nqanalysis.resultfile import FORMAT_VERSION, count_attrs


def enumerate_units(n, depth, symmetry="mirror"):
    """[(placement, multiplicity, image_ks)] of every work unit in a deterministic order.

    placement: n columns, -1 for rows left to the search.  image_ks: the symmetries k (see
    nqanalysis.boards.map_square) whose images of a completion the unit stands for.
    none:   every valid placement of rows 0..depth-1, multiplicity 1.
    mirror: the same with the first queen in the left half (x2); for odd n with the first queen
            in the middle column, the second queen in the left half (x2) (depth 1: x1).
    full:   the border (queens of row 0, row n-1, column 0, column n-1), one representative per
            class of the 8 symmetries, multiplicity = number of distinct images, plus rows
            1..depth-1 (src/core/units.h); for n <= 3 the mirror scheme."""
    if symmetry == "full" and n >= 4:
        return _full_units(n, depth)
    out = []
    mid = n // 2

    def rec(prefix):
        if len(prefix) == depth:
            pl = list(prefix) + [-1] * (n - depth)
            if symmetry == "none" or depth == 0:
                out.append((pl, 1, [0]))
                return
            c0 = prefix[0]
            if c0 < mid:
                out.append((pl, 2, [0, 4]))
            elif n % 2 == 1 and c0 == mid:
                if depth == 1:
                    out.append((pl, 1, [0]))
                elif prefix[1] < mid:
                    out.append((pl, 2, [0, 4]))
            return
        for c in range(n):
            cand = prefix + [c]
            if B.explain_board(cand, n) == "":
                rec(cand)

    rec([])
    return out


def _full_units(n, depth):
    seen = set()
    out = []
    lines = [lambda sq: sq[0] == 0, lambda sq: sq[0] == n - 1,
             lambda sq: sq[1] == 0, lambda sq: sq[1] == n - 1]
    for a in range(n):
        for b in range(n):
            for c in range(n):
                for d in range(n):
                    sqs = frozenset({(0, a), (n - 1, b), (c, 0), (d, n - 1)})
                    if any(sum(1 for q in sqs if line(q)) != 1 for line in lines):
                        continue
                    pl = [-1] * n
                    rows = [r for r, _ in sqs]
                    if len(set(rows)) != len(rows):
                        continue
                    for r, col in sqs:
                        pl[r] = col
                    if B.explain_board(pl, n) != "" or sqs in seen:
                        continue
                    orbit = B.square_orbit(sqs, n)
                    seen.update(orbit)
                    ks = sorted(orbit.values())
                    todo = [r for r in range(min(depth, n)) if pl[r] < 0]

                    def fill(i, pl=pl, ks=ks):
                        if i == len(todo):
                            out.append((list(pl), len(ks), ks))
                            return
                        for col in range(n):
                            pl[todo[i]] = col
                            if B.explain_board(pl, n) == "":
                                fill(i + 1)
                        pl[todo[i]] = -1

                    fill(0)
    return out


def image(board, n, k):
    out = [0] * n
    for r, c in enumerate(board):
        r2, c2 = B.map_square(n, k, r, c)
        out[r2] = c2
    return tuple(out)


def solve_unit(n, placement):
    """(list of completions, nodes visited)."""
    sols = list(B.iter_solutions(n, placement))
    return sols, 1 + len(sols) * n


def _s(text):
    return np.bytes_(text.encode("ascii"))


def make_result(path, n, mode="count", boards="all", depth=None, ranks=1, threads=2,
                shard=None, partial=None, symmetry="mirror", seed=1, wall_seconds=None):
    """Write a result file; returns a dict of what was written.

    shard=(index, count) keeps units with id % count == index; partial=k keeps the first k
    units of the (sharded) enumeration and marks the file partial."""
    if depth is None:
        depth = min(2, n)
    rng = np.random.default_rng(seed)
    units = enumerate_units(n, depth, symmetry)
    units_total = len(units)
    si, sc = shard if shard else (0, 1)
    keep = [i for i in range(units_total) if i % sc == si]
    complete = partial is None
    if partial is not None:
        keep = keep[:partial]

    rows = []
    all_boards, all_units, all_cls = [], [], []
    workers = ranks * threads
    free_at = np.zeros(workers)
    t0 = 1.7e9
    for uid in keep:
        pl, mult, ks = units[uid]
        sols, nodes = solve_unit(n, pl)
        sec = nodes * 2e-6 * float(rng.lognormal(0, 0.6)) + 1e-6
        w = int(np.argmin(free_at))
        started = t0 + free_at[w]
        free_at[w] += sec
        rows.append((uid, pl, mult, len(sols), nodes, sec, started, w // threads, w % threads))
        for sol in sols:
            found = [image(sol, n, k) for k in ks]
            if mode == "boards" and boards == "all":
                all_boards.extend(found)
                all_units.extend([uid] * len(found))
            elif mode == "boards":
                for f in found:
                    arr = np.array([f], dtype=np.int16)
                    if B.canonical_mask(arr)[0]:
                        all_boards.append(f)
                        all_units.append(uid)
                        all_cls.append(int(B.class_size(arr)[0]))

    U = len(rows)
    total = sum(r[2] * r[3] for r in rows)
    sols_all = B.solve_all(n) if n <= 12 else None
    if complete and sc == 1 and sols_all is not None and len(sols_all):
        p_fixed = int(B.rot180_fixed_mask(sols_all).sum())
        r_fixed = int(B.rot90_fixed_mask(sols_all).sum())
        unique = int(B.canonical_mask(sols_all).sum())
    elif complete and sc == 1 and sols_all is not None:
        p_fixed = r_fixed = unique = 0
    else:
        p_fixed = r_fixed = unique = 0
    k = lookup(n)
    known_total = k.total if k else -1
    known_unique = k.unique if k else -1
    if complete and sc == 1:
        matches = "unknown" if k is None else (
            "yes" if (total == k.total and unique == k.unique) else "no")
    else:
        matches = "unknown"

    with h5py.File(path, "w") as f:
        A = f.attrs
        A.create("format", _s("nqueens-result"))
        A.create("format_version", np.int32(FORMAT_VERSION))
        A.create("program_version", _s("0.1.0"))
        A.create("git_commit", _s("fixture"))
        A.create("n", np.int32(n))
        A.create("mode", _s(mode))
        A.create("boards_stored", _s(boards if mode == "boards" else "none"))
        A.create("depth", np.int32(depth))
        A.create("symmetry", _s(symmetry))
        A.create("ranks", np.int32(ranks))
        A.create("threads", np.int32(threads))
        A.create("hosts", _s(",".join(f"node{i}" for i in range(ranks))))
        A.create("start_time", _s("2024-01-01T00:00:00Z"))
        A.create("end_time", _s("2024-01-01T00:00:01Z"))
        wall = float(free_at.max()) + 0.01 if wall_seconds is None else float(wall_seconds)
        A.create("wall_seconds", np.float64(wall))
        A.create("status", _s("complete" if complete else "partial"))
        A.create("units_total", np.uint64(units_total))
        A.create("units_done", np.uint64(U))
        A.create("shard_index", np.int32(si))
        A.create("shard_count", np.int32(sc))
        for name, value in {**count_attrs("total", total), **count_attrs("unique", unique)}.items():
            A.create(name, value)
        A.create("rot180_fixed", np.uint64(p_fixed))
        A.create("rot90_fixed", np.uint64(r_fixed))
        A.create("known_total", np.int64(known_total))
        A.create("known_unique", np.int64(known_unique))
        A.create("matches_known", _s(matches))
        g = f.create_group("units")
        g.create_dataset("id", data=np.array([r[0] for r in rows], dtype=np.uint64))
        pls = np.array([r[1] for r in rows], dtype=np.int16).reshape(U, n)
        g.create_dataset("placement", data=np.where(pls < 0, 0xFF, pls).astype(np.uint8))
        g.create_dataset("multiplicity", data=np.array([r[2] for r in rows], dtype=np.uint32))
        g.create_dataset("solutions", data=np.array([r[3] for r in rows], dtype=np.uint64))
        g.create_dataset("nodes", data=np.array([r[4] for r in rows], dtype=np.uint64))
        g.create_dataset("seconds", data=np.array([r[5] for r in rows], dtype=np.float64))
        g.create_dataset("started", data=np.array([r[6] for r in rows], dtype=np.float64))
        g.create_dataset("rank", data=np.array([r[7] for r in rows], dtype=np.int32))
        g.create_dataset("thread", data=np.array([r[8] for r in rows], dtype=np.int32))
        if mode == "boards":
            bg = f.create_group("boards")
            S = len(all_boards)
            arr = np.array(all_boards, dtype=np.uint8).reshape(S, n)
            chunk = (max(1, min(S, 4096)), n)
            bg.create_dataset("solutions", data=arr, chunks=chunk, maxshape=(None, n),
                              shuffle=True, compression="gzip", fletcher32=True)
            bg.create_dataset("unit", data=np.array(all_units, dtype=np.uint64))
            if boards == "class":
                bg.create_dataset("class_size", data=np.array(all_cls, dtype=np.uint8))
    return {"total": total, "unique": unique, "units": U, "units_total": units_total}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--mode", choices=["count", "boards"], default="count")
    ap.add_argument("--boards", choices=["all", "class"], default="all")
    ap.add_argument("--depth", type=int)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--symmetry", choices=["mirror", "none", "full"], default="mirror")
    ap.add_argument("--shard", help="i/n")
    ap.add_argument("--partial", type=int, help="keep only the first K units")
    a = ap.parse_args(argv)
    shard = tuple(int(x) for x in a.shard.split("/")) if a.shard else None
    info = make_result(a.out, a.n, a.mode, a.boards, a.depth, a.ranks, a.threads, shard,
                       a.partial, a.symmetry)
    print(f"{a.out}: {info}")


if __name__ == "__main__":
    main()
