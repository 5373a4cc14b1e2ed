"""`nqanalyze export`: units.csv and (for boards files) boards.csv, streamed in chunks."""

import os

import numpy as np

from .outfiles import output_dir, replace_together
from .resultfile import OutputError, ResultFile

CHUNK_ROWS = 1 << 17
UNIT_CSV_ROWS = 1 << 15   # units.csv rows formatted at once (~1 KB of Python strings each)


def int_matrix_csv(mat):
    """CSV text (bytes) of a 2-D array of non-negative integers, fully vectorised.

    Each field gets a fixed-width slot of digits (leading zeros as NUL bytes) plus a separator;
    the NUL padding is dropped at the end."""
    mat = np.asarray(mat)
    if mat.ndim != 2 or mat.size == 0:
        return b""
    m, k = mat.shape
    v = mat.astype(np.uint64)
    maxes = v.max(axis=0)
    widths = [max(1, len(str(int(x)))) for x in maxes]
    buf = np.zeros((m, sum(widths) + k), dtype=np.uint8)
    pos = 0
    ten = np.uint64(10)
    for j, w in enumerate(widths):
        col = v[:, j]
        for d in range(w):
            p = np.uint64(10 ** (w - 1 - d))
            digit = (col // p) % ten
            ch = (digit + np.uint64(48)).astype(np.uint8)
            if d < w - 1:
                ch[col < p] = 0     # leading zero -> padding
            buf[:, pos + d] = ch
        pos += w
        buf[:, pos] = ord(",") if j < k - 1 else ord("\n")
        pos += 1
    flat = buf.ravel()
    return flat[flat != 0].tobytes()


def export_units(rf, path, chunk_rows=UNIT_CSV_ROWS):
    """units.csv: id, placement0..placement{n-1} (the column of the pre-placed queen per row,
    empty for rows left to the search), multiplicity, solutions, nodes, seconds, started,
    rank, thread; /units read chunk_rows rows at a time."""
    U = rf.unit_rows()   # a bad /units stops here, before the file is created
    k = rf.board_size()
    header = ["id"] + [f"placement{i}" for i in range(k)] + \
        ["multiplicity", "solutions", "nodes", "seconds", "started", "rank", "thread"]
    with open(path, "w", encoding="ascii", newline="") as fh:
        fh.write(",".join(header) + "\n")
        for _, un in rf.iter_units(chunk_rows):
            pre = un["placement"]
            cols = [un["id"].tolist()]
            cols += [["" if v < 0 else str(v) for v in pre[:, i].tolist()] for i in range(k)]
            cols += [un["multiplicity"].tolist(), un["solutions"].tolist(), un["nodes"].tolist(),
                     [repr(float(x)) for x in un["seconds"]],
                     [repr(float(x)) for x in un["started"]], un["rank"].tolist(),
                     un["thread"].tolist()]
            fh.write("".join(",".join(map(str, row)) + "\n" for row in zip(*cols)))
    return U


def export_boards(rf, path, chunk_rows=CHUNK_ROWS):
    n = rf.board_size()
    has_class = "class_size" in rf.h5["boards"]
    has_unit = "unit" in rf.h5["boards"]
    header = ["index"] + (["unit"] if has_unit else []) + (["class_size"] if has_class else []) + \
        [f"row{i}" for i in range(n)]
    count = 0
    with open(path, "wb") as fh:
        fh.write((",".join(header) + "\n").encode("ascii"))
        for start, b, u, c in rf.iter_boards(chunk_rows, with_class=has_class):
            m = len(b)
            parts = [np.arange(start, start + m, dtype=np.uint64)[:, None]]
            if has_unit:
                parts.append(u.astype(np.uint64)[:, None])
            if has_class:
                parts.append(c.astype(np.uint64)[:, None])
            parts.append(b.astype(np.uint64))
            fh.write(int_matrix_csv(np.hstack(parts)))
            count += m
    return count


def stale_boards(bp, name):
    """An earlier export's boards.csv beside this file's units.csv would read as this file's
    boards: removed where it is one (its header is ours), else named. The line to say, or None."""
    try:
        with open(bp, "rb") as fh:
            first = fh.readline(4096)
    except FileNotFoundError:
        return None
    except OSError:
        first = b""
    if first.startswith(b"index,") and b",row0" in first:
        try:
            os.remove(bp)
            return f"(removed {bp}: an earlier export's, not {name}'s)"
        except OSError:
            pass
    return f"(warning: {bp} is not {name}'s: an earlier file, left as it is)"


def export(path, csv_dir, out, chunk_rows=CHUNK_ROWS, progress=None):
    stale = None
    with ResultFile(path, progress, strict=True) as rf, output_dir(csv_dir, "--csv"):
        up = os.path.join(csv_dir, "units.csv")
        bp = os.path.join(csv_dir, "boards.csv")
        # The files first: a reader of stdout that leaves must not cut them short. Both written,
        # then both put in place (an interrupted export left this file's units.csv beside an
        # earlier export's boards.csv).
        try:
            with replace_together(up, *([bp] if rf.has_boards else [])) as parts:
                nu = export_units(rf, parts[0])
                nb = export_boards(rf, parts[1], chunk_rows) if rf.has_boards else None
                if nb is None:
                    stale = stale_boards(bp, rf.name)   # before this file's units.csv is in place
        except OSError as exc:
            raise OutputError(f"cannot write CSV in {csv_dir}: {exc.strerror or exc}") from None
        name, mode = rf.name, rf.mode
    print(f"{up}: {nu} units", file=out)
    if nb is None:
        print(f"(no /boards in {name}: mode {mode}; boards.csv not written)", file=out)
        if stale:
            print(stale, file=out)
    else:
        print(f"{bp}: {nb} boards", file=out)
    return 0
