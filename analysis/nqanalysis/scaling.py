"""`nqanalyze scaling`: wall time vs N and vs ranks*threads over several runs."""

import os
import sys

import numpy as np

from .outfiles import check_output_dir, output_dir
from .resultfile import NQError, OutputError, ResultFile, compute_threads
from .summary import human_rate, human_seconds, print_table


def job_of(rf):
    """What a run computed, beyond N: its mode (and board set), symmetry and depth. Runs compare
    only within one job: a class run against an all run, or symmetry none against full, walk
    other trees (a speedup of 0.04 was shown for them as if they differed in workers only)."""
    mode = rf.mode or "?"
    if mode == "boards":
        mode += f" {rf.boards_stored or '?'}"
    return f"{mode}, {rf.get('symmetry') or '?'}, depth {rf.int_attr('depth')}"


def collect(paths, err):
    runs, code = [], 0
    for p in paths:
        try:
            with ResultFile(p, strict=True) as rf:
                a = rf.attrs
                if a.get("status") != "complete" or rf.is_sharded:
                    why = "partial" if a.get("status") != "complete" else "a shard"
                    print(f"nqanalyze scaling: {p}: skipped, the file is {why}", file=err)
                    continue
                ranks, threads = rf.int_attr("ranks"), rf.int_attr("threads")
                wall = a.get("wall_seconds")
                if None in (rf.n, ranks, threads) or not isinstance(wall, (int, float)):
                    print(f"nqanalyze scaling: {p}: skipped, n/ranks/threads/wall_seconds missing",
                          file=err)
                    code = max(code, 3)
                    continue
                cpu = float(np.sum(rf.read("/units/seconds"))) if "units" in rf.h5 else float("nan")
                runs.append(dict(path=p, name=rf.name, n=rf.n, mode=rf.mode, job=job_of(rf),
                                 ranks=ranks, threads=threads, workers=compute_threads(ranks, threads),
                                 wall=float(wall), cpu=cpu, total=rf.count("total") or 0))
        except NQError as exc:
            print(f"nqanalyze scaling: {exc}", file=err)
            code = max(code, exc.exit_code)
    return runs, code


def add_speedup(runs):
    groups = {}
    for r in runs:
        groups.setdefault((r["n"], r["job"]), []).append(r)
    for g in groups.values():
        base = min(g, key=lambda r: (r["workers"], r["wall"]))
        for r in g:
            r["speedup"] = base["wall"] / r["wall"] if r["wall"] > 0 else float("nan")
            r["efficiency"] = r["speedup"] / (r["workers"] / base["workers"])
            r["base_workers"] = base["workers"]
    return groups


def plot_scaling(runs, groups, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, layout="constrained", figsize=(12, 4.8))
    by_workers = {}
    for r in runs:
        by_workers.setdefault((r["workers"], r["job"]), []).append(r)
    for (w, job), g in sorted(by_workers.items()):
        g = sorted(g, key=lambda r: r["n"])
        ax1.plot([r["n"] for r in g], [max(r["wall"], 1e-6) for r in g], "o-",
                 label=f"{w} workers ({job})")
    ax1.set_yscale("log")
    ax1.set_xlabel("N")
    ax1.set_ylabel("wall time [s]")
    ax1.set_title("time vs N")
    ax1.xaxis.get_major_locator().set_params(integer=True)
    ax1.legend(fontsize=8)
    bases = {}
    for (n, job), g in sorted(groups.items()):
        g = sorted(g, key=lambda r: r["workers"])
        ax2.plot([r["workers"] for r in g], [r["speedup"] for r in g], "o-",
                 label=f"N={n} ({job})")
        b = g[0]["base_workers"]
        bases[b] = max(bases.get(b, b), g[-1]["workers"])
    for i, (b, top) in enumerate(sorted(bases.items())):
        xs = np.array([b, max(top, 2 * b)], dtype=float)
        ax2.plot(xs, xs / b, "k--", lw=1, label="ideal" if i == 0 else None)
    from matplotlib.ticker import FormatStrFormatter
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log", base=2)
    for axis in (ax2.xaxis, ax2.yaxis):
        axis.set_major_formatter(FormatStrFormatter("%g"))
    ax2.set_xlabel("computing threads (worker ranks x threads)")
    ax2.set_ylabel("speedup vs the fewest workers")
    ax2.set_title("speedup vs computing threads")
    ax2.legend(fontsize=8)
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return path


def scaling(paths, out_dir, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    check_output_dir(out_dir, "--out")   # before the files are read
    runs, code = collect(paths, err)
    if not runs:
        raise NQError("no complete result files to compare") if code == 0 else \
            _with_code(NQError("no readable complete result files"), code)
    groups = add_speedup(runs)
    runs.sort(key=lambda r: (r["job"], r["n"], r["workers"], r["wall"]))
    rows = [[r["name"], r["n"], r["job"], f"{r['ranks']} x {r['threads']}", r["workers"],
             human_seconds(r["wall"]), human_seconds(r["cpu"]) if np.isfinite(r["cpu"]) else "?",
             f"{r['speedup']:.2f}", f"{r['efficiency'] * 100:.0f}%",
             human_rate(r["total"] / r["wall"]) if r["wall"] > 0 else "?"] for r in runs]
    print_table(["file", "N", "job", "ranks x threads", "workers", "wall", "unit cpu",
                 "speedup", "efficiency", "solutions/s"], rows, out)
    with output_dir(out_dir, "--out"):
        path = plot_scaling(runs, groups, os.path.join(out_dir, "scaling.png"))
    print(path, file=out)
    return code


def _with_code(exc, code):
    exc.exit_code = code
    return exc
