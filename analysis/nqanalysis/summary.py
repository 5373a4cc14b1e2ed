"""`nqanalyze summary`: one column per file, one row per quantity."""

import sys

from .known import lookup
from .resultfile import NQError, ResultFile, compute_threads, shard_size


def human_seconds(s):
    if s is None:
        return "?"
    s = float(s)
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    if s < 60:
        return f"{s:.2f} s"
    m, sec = divmod(s, 60)
    if m < 60:
        return f"{int(m)}m{sec:04.1f}s"
    h, m = divmod(int(m), 60)
    return f"{h}h{m:02d}m{int(sec):02d}s"


def human_rate(x):
    if x is None:
        return "?"
    for div, suf in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g} {suf}/s"
    return f"{x:.3g} /s"


def known_match(rf):
    """Our own comparison with the published table, plus the file's claim when it differs."""
    n, total, unique = rf.n, rf.count("total"), rf.count("unique")
    status = rf.get("status")
    if status not in ("complete", "partial"):   # no run writes it: `verify` fails the file
        ours = f"n/a (status {status!r} is neither complete nor partial: see nqanalyze verify)"
    elif not rf.is_complete:
        ours = "n/a (partial)"
    elif rf.is_sharded:
        ours = "n/a (shard)"
    else:
        k = lookup(n)
        if k is None:
            ours = "unknown"
        elif total == k.total and unique == k.unique:
            ours = "yes"
        else:
            parts = []
            if total != k.total:
                parts.append(f"total {k.total}")
            if unique != k.unique:
                parts.append(f"unique {k.unique}")
            ours = "NO (known " + ", ".join(parts) + ")"
    claim = rf.get("matches_known")
    plain = ours.split()[0].lower()
    if claim is not None and plain in ("yes", "no") and claim != plain:
        ours += f" [file says {claim}]"
    return ours


def summary_rows(rf):
    a = rf.attrs
    mode = a.get("mode", "?")
    if mode == "boards":
        mode = f"boards ({a.get('boards_stored', '?')})"
    status = a.get("status", "?")
    sc = rf.int_attr("shard_count", 1) or 1
    if sc > 1:
        status += f", shard {a.get('shard_index')}/{sc}"
    total, unique = rf.count("total"), rf.count("unique")
    wall = a.get("wall_seconds")
    ranks, threads = rf.int_attr("ranks"), rf.int_attr("threads")
    if ranks is None or threads is None:
        rt = "?"
    elif ranks == 1:
        rt = f"1 x {threads} = {threads}"
    else:   # (it said ranks x threads computed: the master computes none of the units)
        rt = f"{ranks} x {threads}, {compute_threads(ranks, threads)} computing (rank 0 is the master)"
    # A partial file or a shard holds no unique count (the whole job's classes): `info` says -.
    no_unique = sc > 1 or a.get("status", "complete") != "complete"
    # A shard's units are its share of the job's (a complete shard showed 1134/3402).
    done, ut, si = rf.int_attr("units_done"), rf.int_attr("units_total"), rf.int_attr("shard_index")
    depth = f"depth {a.get('depth', '?')}"
    if sc > 1 and None not in (done, ut, si):
        units = f"{done}/{shard_size(ut, si, sc)} of shard {si}/{sc} ({ut} in the job, {depth})"
    else:
        units = f"{a.get('units_done', '?')}/{a.get('units_total', '?')} ({depth})"
    rate = (total / wall) if (total is not None and isinstance(wall, (int, float)) and wall > 0) else None
    return [
        ("N", str(a.get("n", "?"))),
        ("mode", mode),
        ("status", status),
        ("total", f"{total:,}" if total is not None else "?"),
        ("unique", "-" if no_unique else f"{unique:,}" if unique is not None else "?"),
        ("known match", known_match(rf)),
        ("wall time", human_seconds(wall) if isinstance(wall, (int, float)) else "?"),
        ("ranks x threads", rt),
        ("units", units),
        ("solutions/s", human_rate(rate) if rate is not None else "?"),
        ("program", f"{a.get('program_version', '?')} ({a.get('git_commit', '?')})"),
    ]


def print_table(headers, rows, out):
    cols = [headers] + rows
    widths = [max(len(str(r[i])) for r in cols) for i in range(len(headers))]
    for j, r in enumerate(cols):
        print("  ".join(str(v).ljust(widths[i]) if i == 0 else str(v).rjust(widths[i])
                        for i, v in enumerate(r)).rstrip(), file=out)
        if j == 0:
            print("  ".join("-" * w for w in widths), file=out)


def summary(paths, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    columns, names, code = [], [], 0
    for p in paths:
        try:
            with ResultFile(p, strict=True) as rf:
                columns.append(summary_rows(rf))
                names.append(rf.name)
        except NQError as exc:
            print(f"nqanalyze summary: {exc}", file=err)
            code = max(code, exc.exit_code)
    if columns:
        labels = [k for k, _ in columns[0]]
        rows = [[lab] + [dict(c)[lab] for c in columns] for lab in labels]
        # disambiguate equal base names
        if len(set(names)) < len(names):
            names = [p for p in paths if p]  # full paths
        print_table(["file"] + names, rows, out)
    return code
