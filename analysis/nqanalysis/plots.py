"""`nqanalyze plot`: PNG figures of one result file (matplotlib, Agg backend)."""

import os

import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt                     # noqa: E402

from . import boards as B                           # noqa: E402
from .resultfile import OutputError, ResultFile, UsageError, unit_scheme  # noqa: E402

DPI = 110
GANTT_MAX_UNITS = 20000
BOARD_SOLVER_NODES = 5_000_000


def _save(fig, path):
    try:
        fig.savefig(path, dpi=DPI)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return path


def _title(rf):
    a = rf.attrs
    mode = a.get("mode", "?")
    if mode == "boards":
        mode += f"/{a.get('boards_stored')}"
    return (f"{rf.name}: N={a.get('n')} {mode} {a.get('status')}, "
            f"{a.get('ranks')}x{a.get('threads')} workers")


# ------------------------------------------------------------------ unit times
def plot_unit_times(rf, un, path):
    sec = np.asarray(un["seconds"], dtype=float)
    sec = sec[np.isfinite(sec) & (sec >= 0)]
    fig, (ax1, ax2) = plt.subplots(1, 2, layout="constrained", figsize=(12, 4.8))
    pos = sec[sec > 0]
    lo = pos.min() if len(pos) else 1e-6
    hi = max(sec.max(), lo * 10) if len(sec) else 1.0
    bins = np.logspace(np.log10(lo) - 0.05, np.log10(hi) + 0.05, 50)
    ax1.hist(np.clip(sec, lo, None), bins=bins, color="tab:blue", edgecolor="none")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("unit compute time [s]")
    ax1.set_ylabel("units")
    ax1.set_title("distribution of unit times")
    if len(sec):
        for q, style in ((50, "--"), (99, ":")):
            v = np.percentile(sec, q)
            ax1.axvline(max(v, lo), color="k", ls=style, lw=1, label=f"p{q} = {v:.3g} s")
        ax1.axvline(max(sec.max(), lo), color="tab:red", lw=1, label=f"max = {sec.max():.3g} s")
        ax1.legend(fontsize=8)
    # straggler tail: units sorted by time, cumulative share of the compute time
    srt = np.sort(sec)[::-1]
    if len(srt):
        ranks = np.arange(1, len(srt) + 1)
        ax2.plot(ranks, np.maximum(srt, lo), color="tab:blue", label="unit time")
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel("units, slowest first")
        ax2.set_ylabel("unit time [s]")
        tot = srt.sum()
        if tot > 0:
            axc = ax2.twinx()
            axc.plot(ranks, np.cumsum(srt) / tot * 100, color="tab:orange", label="cumulative share")
            axc.set_ylabel("share of total compute time [%]")
            axc.set_ylim(0, 101)
            h1, l1 = ax2.get_legend_handles_labels()
            h2, l2 = axc.get_legend_handles_labels()
            ax2.legend(h1 + h2, l1 + l2, fontsize=8, loc="center left")
            k = max(1, len(srt) // 100)
            share = srt[:k].sum() / tot * 100
            ax2.set_title(f"straggler tail: slowest {k} unit(s) = {share:.1f}% of compute")
        else:
            ax2.set_title("straggler tail")
    fig.suptitle(_title(rf), fontsize=10)
    return _save(fig, path)


# ------------------------------------------------------------------ load per worker
def _busy_profile(starts, ends, edges):
    """Busy time of one worker inside each interval of edges (intervals may overlap)."""
    s = np.sort(starts)
    e = np.sort(ends)
    cs = np.concatenate([[0.0], np.cumsum(s)])
    ce = np.concatenate([[0.0], np.cumsum(e)])
    ks = np.searchsorted(s, edges, side="right")
    ke = np.searchsorted(e, edges, side="right")
    # integral of (#started - #ended) up to t = sum(t - s_i | s_i < t) - sum(t - e_i | e_i < t)
    f = (ks * edges - cs[ks]) - (ke * edges - ce[ke])
    return np.diff(f)


def plot_load(rf, un, path):
    st = np.asarray(un["started"], dtype=float)
    sec = np.asarray(un["seconds"], dtype=float)
    rank = np.asarray(un["rank"], dtype=np.int64)
    thread = np.asarray(un["thread"], dtype=np.int64)
    t0 = st.min()
    s = st - t0
    e = s + sec
    workers, widx = np.unique(np.stack([rank, thread], axis=1), axis=0, return_inverse=True)
    widx = widx.ravel()
    W = len(workers)
    labels = [f"r{r}.t{t}" for r, t in workers]
    nranks = len(np.unique(workers[:, 0]))
    cmap = plt.get_cmap("tab20" if nranks > 10 else "tab10")
    colors = [cmap(int(np.nonzero(np.unique(workers[:, 0]) == r)[0][0]) % cmap.N) for r, _ in workers]

    fig, axes = plt.subplots(3, 1, layout="constrained", figsize=(12, 4 + min(W, 64) * 0.12 + 5),
                             gridspec_kw={"height_ratios": [max(2, min(W, 64) * 0.12), 1.4, 1.2]})
    ax = axes[0]
    tend = e.max() if len(e) else 1.0
    if len(s) <= GANTT_MAX_UNITS:
        for w in range(W):
            m = widx == w
            ax.broken_barh(list(zip(s[m], sec[m])), (w - 0.4, 0.8), facecolors=colors[w],
                           edgecolor="white", linewidth=0.3)
        ax.set_title("units per worker over time (one bar per unit)")
    else:
        nb = 300
        edges = np.linspace(0, tend, nb + 1)
        util = np.zeros((W, nb))
        for w in range(W):
            m = widx == w
            util[w] = _busy_profile(s[m], e[m], edges) / np.diff(edges)
        im = ax.imshow(util, aspect="auto", origin="lower", extent=(0, tend, -0.5, W - 0.5),
                       cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
        fig.colorbar(im, ax=ax, label="busy fraction", pad=0.01)
        ax.set_title("worker utilisation over time (busy fraction per time bin)")
    ax.set_xlim(0, tend * 1.01 if tend > 0 else 1)
    ax.set_ylim(-0.5, W - 0.5)
    if W <= 40:
        ax.set_yticks(range(W))
        ax.set_yticklabels(labels, fontsize=7)
    ax.set_ylabel("rank.thread")
    ax.set_xlabel("seconds since the first unit started")

    ax = axes[1]
    busy = np.bincount(widx, weights=sec, minlength=W)
    cnt = np.bincount(widx, minlength=W)
    ax.bar(range(W), busy, color=colors)
    ax.axhline(busy.mean(), color="k", ls="--", lw=1,
               label=f"mean {busy.mean():.3g} s, max/mean {busy.max() / busy.mean():.2f}"
               if busy.mean() > 0 else "mean 0")
    ax.set_ylabel("busy seconds")
    ax.set_title(f"load per worker ({W} workers, {len(s)} units; "
                 f"units per worker {cnt.min()}..{cnt.max()})")
    if W <= 40:
        ax.set_xticks(range(W))
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
    ax.legend(fontsize=8)

    ax = axes[2]
    nb = 400
    edges = np.linspace(0, tend if tend > 0 else 1.0, nb + 1)
    width = np.diff(edges)
    active = np.zeros(nb)
    for w in range(W):
        m = widx == w
        active += np.minimum(1.0, _busy_profile(s[m], e[m], edges) / width)
    ax.fill_between(edges[:-1], active, step="post", color="tab:green", alpha=0.6)
    ax.step(edges[:-1], active, where="post", color="tab:green")
    ax.set_xlim(axes[0].get_xlim())
    ax.set_ylim(0, W * 1.1)
    ax.axhline(W, color="k", ls=":", lw=1)
    ax.set_xlabel("seconds since the first unit started")
    ax.set_ylabel("busy workers")
    ax.set_title(f"busy workers over time (of {W}; average {sec.sum() / tend if tend > 0 else 0:.2f};"
                 f" the tail shows stragglers)")
    fig.suptitle(_title(rf), fontsize=10)
    return _save(fig, path)


# ------------------------------------------------------------------ by first rows
def prefix_tables(n, placement, mult, sols, symmetry="mirror"):
    """Solutions by the row-0 column (computed units, images) and by the (row-0, row-1)
    columns.  placement: (U, n), -1 = empty row.  Images: the mirror of multiplicity-2 units
    (mirror), or every distinct image of the border (full: the row-0 queen of an image is
    known from the border alone; the row-0/row-1 table is then None)."""
    pl = np.asarray(placement, dtype=np.int64)
    sols = np.asarray(sols, dtype=np.float64)
    mult = np.asarray(mult)
    has0 = pl[:, 0] >= 0
    own = np.bincount(pl[has0, 0], weights=sols[has0], minlength=n)[:n]
    img = np.zeros(n)
    grid = None
    if unit_scheme(symmetry, n) == "border":
        cache = {}
        for r in np.nonzero(has0 & (mult > 1))[0]:
            border = B.border_squares(pl[r], n)
            if border not in cache:
                cols = []
                for image, k in B.square_orbit(border, n).items():
                    if k == 0:
                        continue
                    cols.extend(c for rr, c in image if rr == 0)
                cache[border] = cols
            for c in cache[border]:
                img[c] += sols[r]
        return own, img, None
    m2 = has0 & (mult == 2)
    img = np.bincount((n - 1) - pl[m2, 0], weights=sols[m2], minlength=n)[:n]
    if n >= 2 and (pl[:, 1] >= 0).all() and len(pl):
        grid = np.zeros((n, n))
        np.add.at(grid, (pl[:, 0], pl[:, 1]), sols)
        np.add.at(grid, ((n - 1) - pl[m2, 0], (n - 1) - pl[m2, 1]), sols[m2])
    return own, img, grid


def plot_prefix(rf, un, path):
    n = rf.board_size()
    sym = rf.get("symmetry", "mirror")
    own, img, grid = prefix_tables(n, un["placement"], un["multiplicity"], un["solutions"], sym)
    ncols = 2 if grid is not None else 1
    fig, axes = plt.subplots(1, ncols, layout="constrained", figsize=(6.5 * ncols, 5))
    axes = np.atleast_1d(axes)
    ax = axes[0]
    x = np.arange(n)
    ax.bar(x, own, color="tab:blue", label="computed units")
    what = "images of the border (multiplicity > 1)" if unit_scheme(sym, n) == "border" else \
        "mirror (multiplicity 2)"
    ax.bar(x, img, bottom=own, color="tab:cyan", label=what)
    ax.set_xticks(x)
    ax.set_xlabel("column of the queen in row 0")
    ax.set_ylabel("solutions")
    ax.set_title("solutions by the first row's placement")
    ax.legend(fontsize=8)
    if grid is not None:
        ax = axes[1]
        data = np.ma.masked_equal(grid, 0)
        im = ax.imshow(data, origin="upper", cmap="viridis")
        fig.colorbar(im, ax=ax, label="solutions")
        ax.set_xlabel("column of the queen in row 1")
        ax.set_ylabel("column of the queen in row 0")
        ax.set_xticks(x)
        ax.set_yticks(x)
        ax.set_title("solutions by the first two rows")
        if n <= 12:
            for i in range(n):
                for j in range(n):
                    if grid[i, j]:
                        ax.text(j, i, f"{int(grid[i, j])}", ha="center", va="center",
                                fontsize=7, color="w")
    fig.suptitle(_title(rf), fontsize=10)
    return _save(fig, path)


# ------------------------------------------------------------------ queen heat map
def queen_heatmap_counts(rf, chunk_rows=1 << 17):
    """(n, n) counts of how often each square holds a queen over all solutions stored
    (for class files every class is expanded: each of the 8 transforms weighs class_size/8)."""
    n = rf.board_size()
    counts = np.zeros(n * n, dtype=np.float64)
    is_class = "class_size" in rf.h5["boards"]
    rows = np.arange(n)
    for _, b, _, c in rf.iter_boards(chunk_rows, with_class=is_class):
        b = b.astype(np.int64)
        if len(b) == 0:
            continue
        if not is_class:
            counts += np.bincount((rows * n + b).ravel(), minlength=n * n)
        else:
            w = np.repeat(c.astype(np.float64) / 8.0, n)
            for t in B.transforms(b):
                counts += np.bincount((rows * n + t.astype(np.int64)).ravel(), weights=w,
                                      minlength=n * n)
    return np.rint(counts).reshape(n, n)


def plot_queen_heatmap(rf, path):
    n = rf.board_size()
    counts = queen_heatmap_counts(rf)
    fig, ax = plt.subplots(layout="constrained", figsize=(6.5, 5.5))
    im = ax.imshow(counts, cmap="magma", origin="upper")
    fig.colorbar(im, ax=ax, label="solutions with a queen on the square")
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    what = "all solutions" if rf.boards_stored != "class" else "all solutions (classes expanded)"
    ax.set_title(f"how often each square holds a queen: {what}", fontsize=10)
    if n <= 12:
        vmax = counts.max() if counts.size else 0
        for i in range(n):
            for j in range(n):
                ax.text(j, i, f"{int(counts[i, j])}", ha="center", va="center", fontsize=7,
                        color="k" if counts[i, j] > 0.6 * vmax else "w")
    fig.suptitle(_title(rf), fontsize=9)
    return _save(fig, path)


# ------------------------------------------------------------------ one board
def draw_board(board, title, path):
    board = [int(v) for v in board]
    n = len(board)
    size = min(9.0, max(4.5, 0.45 * n))
    fig, ax = plt.subplots(layout="constrained", figsize=(size, size + 0.4))
    light, dark = "#f0d9b5", "#b58863"
    img = np.array([[(r + c) % 2 for c in range(n)] for r in range(n)])
    from matplotlib.colors import ListedColormap
    ax.imshow(img, cmap=ListedColormap([light, dark]), origin="upper",
              extent=(-0.5, n - 0.5, n - 0.5, -0.5))
    fs = max(6, int(size * 72 / n * 0.7))
    for r, c in enumerate(board):
        ax.text(c, r, "\u265b", ha="center", va="center", fontsize=fs, color="black",
                family="DejaVu Sans")
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    ax.set_title(title, fontsize=9)
    return _save(fig, path)


def board_for_plot(rf, index):
    """(board, description) or (None, reason to skip)."""
    n = rf.board_size()
    if rf.has_boards:
        S = rf.dataset("/boards/solutions").shape[0]
        if S == 0:
            return None, "no boards stored (N has no solution)"
        if not 0 <= index < S:
            raise UsageError(f"--board {index} out of range: /boards/solutions has {S} rows "
                             f"(0..{S - 1})")
        b = rf.read("/boards/solutions", slice(index, index + 1))[0]
        extra = ""
        if "class_size" in rf.h5["boards"]:
            cs = int(rf.read("/boards/class_size", slice(index, index + 1))[0])
            extra = f", class of {cs}"
        u = ""
        if "unit" in rf.h5["boards"]:
            u = f", unit {int(rf.read('/boards/unit', slice(index, index + 1))[0])}"
        return b, f"N={n}: /boards/solutions row {index}{u}{extra}\n[{' '.join(map(str, b))}]"
    # count file: a tiny Python solver
    if index < 0:
        raise UsageError(f"--board {index}: must be >= 0")
    count = 0
    try:
        for i, sol in enumerate(B.iter_solutions(n, limit_nodes=BOARD_SOLVER_NODES)):
            if i == index:
                # `nqueens solve` places queens column by column, rows tried top to bottom:
                # its i-th solution is the transpose of the i-th lexicographic board
                board = [0] * n
                for c, r in enumerate(sol):
                    board[r] = c
                return board, (f"N={n}: solution {index} in `nqueens solve --all` order\n"
                               f"(Python solver: a count file stores no boards)\n"
                               f"[{' '.join(map(str, board))}]")
            count = i + 1
    except RuntimeError:
        return None, (f"the Python solver gave up after {BOARD_SOLVER_NODES} nodes "
                      f"(count file, N={n})")
    if count == 0:
        return None, f"N={n} has no solution"
    raise UsageError(f"--board {index} out of range: N={n} has {count} solutions (0..{count - 1})")


# ------------------------------------------------------------------ driver
def plot_file(path, out_dir, board_index=0, out=None):
    import sys
    out = out or sys.stdout
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise UsageError(f"--out {out_dir}: exists and is not a directory")
    written = []
    with ResultFile(path) as rf:
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
        stem = os.path.splitext(rf.name)[0]
        p = lambda what: os.path.join(out_dir, f"{stem}_{what}.png")  # noqa: E731
        board, desc = board_for_plot(rf, board_index)   # a bad --board fails before any plot
        un = rf.units()
        if len(un["id"]) == 0:
            print("skipped unit plots: /units is empty", file=out)
        else:
            written.append(plot_unit_times(rf, un, p("unit_times")))
            written.append(plot_load(rf, un, p("load")))
            if (un["placement"][:, 0] >= 0).all():
                written.append(plot_prefix(rf, un, p("prefix")))
            else:
                print("skipped prefix plot: row 0 is not pre-placed (depth 0)", file=out)
        if rf.has_boards:
            if rf.dataset("/boards/solutions").shape[0]:
                written.append(plot_queen_heatmap(rf, p("queen_heatmap")))
            else:
                print("skipped queen heat map: no boards stored", file=out)
        if board is None:
            print(f"skipped board drawing: {desc}", file=out)
        else:
            written.append(draw_board(board, desc, p(f"board{board_index}")))
    for w in written:
        print(w, file=out)
    return 0
