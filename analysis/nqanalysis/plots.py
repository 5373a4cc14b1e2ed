"""`nqanalyze plot`: PNG figures of one result file (matplotlib, Agg backend)."""

import os
from types import SimpleNamespace

import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt                     # noqa: E402

from . import boards as B                           # noqa: E402
from . import known as K                            # noqa: E402
from .outfiles import check_output_dir, output_dir, replace_when_done  # noqa: E402
from .resultfile import OutputError, ResultFile, UsageError, unit_scheme  # noqa: E402

DPI = 110
GANTT_MAX_UNITS = 20000
BOARD_SOLVER_NODES = 5_000_000


def _save(fig, path):
    try:
        with replace_when_done(path, "wb") as fh:
            fig.savefig(fh, dpi=DPI, format="png")
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


# ------------------------------------------------------------------ /units, chunk by chunk
def _chunks(rf, fields, units=None, chunk_rows=None):
    """The /units columns `fields` chunk by chunk (rf.iter_units: memory bounded whatever the
    number of units), or `units`, a dict of whole arrays, as one chunk."""
    if units is not None:
        yield {k: np.asarray(units[k]) for k in fields}
        return
    for _, chunk in rf.iter_units(chunk_rows, fields):
        yield chunk


def _bin_index(x, edges):
    """The bin of each value (bins [edges[i], edges[i+1]), the last one closed, as np.histogram)."""
    return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)


# ------------------------------------------------------------------ unit times
FINE_BINS = 4000   # log bins of the percentiles and the straggler tail


def _valid_seconds(chunk):
    sec = np.asarray(chunk["seconds"], dtype=float)
    return sec[np.isfinite(sec) & (sec >= 0)]


def unit_time_hist(rf, units=None, chunk_rows=None):
    """The unit times (finite, >= 0) in two passes over /units/seconds: their range, then their
    counts in the figure's 50 log bins `bins` (a time below lo counts as lo) and their counts and
    seconds in FINE_BINS log bins `fine` over the same range, bin 0 = [0, fine[1]) (the zeros)."""
    cnt, total, lo, top = 0, 0.0, np.inf, 0.0
    for c in _chunks(rf, ["seconds"], units, chunk_rows):
        sec = _valid_seconds(c)
        pos = sec[sec > 0]
        cnt, total = cnt + len(sec), total + sec.sum()
        if len(pos):
            lo, top = min(lo, pos.min()), max(top, pos.max())
    lo = lo if np.isfinite(lo) else 1e-6
    hi = max(top, lo * 10) if cnt else 1.0
    span = (np.log10(lo) - 0.05, np.log10(hi) + 0.05)
    h = SimpleNamespace(count=cnt, total=total, lo=lo, max=top, bins=np.logspace(*span, 50),
                        fine=np.concatenate([[0.0], np.logspace(*span, FINE_BINS + 1)]))
    h.counts = np.zeros(len(h.bins) - 1, dtype=np.int64)
    h.fine_counts = np.zeros(len(h.fine) - 1, dtype=np.int64)
    h.fine_seconds = np.zeros(len(h.fine) - 1)
    for c in _chunks(rf, ["seconds"], units, chunk_rows) if cnt else ():
        sec = _valid_seconds(c)
        h.counts += np.bincount(_bin_index(np.maximum(sec, lo), h.bins), minlength=len(h.counts))
        j = _bin_index(sec, h.fine)
        h.fine_counts += np.bincount(j, minlength=len(h.fine_counts))
        h.fine_seconds += np.bincount(j, weights=sec, minlength=len(h.fine_counts))
    return h


def hist_percentile(h, q):
    """The q-th percentile of the unit times (np.percentile's linear interpolation between order
    statistics), each order statistic placed within its fine bin: off by less than one bin."""
    cum = np.cumsum(h.fine_counts)

    def at(k):   # the k-th smallest time (0-based), spread evenly (log scale) over its bin
        j = int(np.searchsorted(cum, k, side="right"))
        if j == 0:
            return 0.0
        frac = (k - (cum[j] - h.fine_counts[j]) + 0.5) / h.fine_counts[j]
        return h.fine[j] * (h.fine[j + 1] / h.fine[j]) ** frac

    r = q / 100 * (h.count - 1)
    k = int(np.floor(r))
    return at(k) + (r - k) * (at(min(k + 1, h.count - 1)) - at(k))


def straggler_tail(h):
    """(units, time, seconds): going down the fine bins from the slowest, the number of units at
    or above each non-empty bin, the bin's lower edge (at least lo) and their seconds; the first
    point is the slowest unit, exact."""
    c, s, edge = h.fine_counts[::-1], h.fine_seconds[::-1], h.fine[-2::-1]
    nz = c > 0
    return (np.concatenate([[1], np.cumsum(c)[nz]]),
            np.concatenate([[max(h.max, h.lo)], np.maximum(edge[nz], h.lo)]),
            np.concatenate([[h.max], np.cumsum(s)[nz]]))


def slowest_seconds(h, k):
    """The compute seconds of the k slowest units, from the fine bins (the units of the bin where
    the k-th falls counted at their bin's mean)."""
    c, s = h.fine_counts[::-1], h.fine_seconds[::-1]
    cum = np.cumsum(c)
    j = int(np.searchsorted(cum, k))
    return s[:j].sum() + (k - (cum[j] - c[j])) * s[j] / c[j]


def plot_unit_times(rf, path, units=None, chunk_rows=None):
    h = unit_time_hist(rf, units, chunk_rows)
    lo = h.lo
    fig, (ax1, ax2) = plt.subplots(1, 2, layout="constrained", figsize=(12, 4.8))
    ax1.hist(h.bins[:-1], bins=h.bins, weights=h.counts, color="tab:blue", edgecolor="none")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("unit compute time [s]")
    ax1.set_ylabel("units")
    ax1.set_title("distribution of unit times")
    if h.count:
        for q, style in ((50, "--"), (99, ":")):
            v = hist_percentile(h, q)
            ax1.axvline(max(v, lo), color="k", ls=style, lw=1,
                        label=f"p{q} \u2248 {v:.3g} s (histogram)")
        ax1.axvline(max(h.max, lo), color="tab:red", lw=1, label=f"max = {h.max:.3g} s")
        ax1.legend(fontsize=8)
        # straggler tail: units slowest first, cumulative share of the compute time
        ranks, times, secs = straggler_tail(h)
        ax2.plot(ranks, times, color="tab:blue", label="unit time")
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel("units, slowest first")
        ax2.set_ylabel("unit time [s]")
        if h.total > 0:
            axc = ax2.twinx()
            axc.plot(ranks, secs / h.total * 100, color="tab:orange", label="cumulative share")
            axc.set_ylabel("share of total compute time [%]")
            axc.set_ylim(0, 101)
            h1, l1 = ax2.get_legend_handles_labels()
            h2, l2 = axc.get_legend_handles_labels()
            ax2.legend(h1 + h2, l1 + l2, fontsize=8, loc="center left")
            k = max(1, h.count // 100)
            share = slowest_seconds(h, k) / h.total * 100
            ax2.set_title(f"straggler tail: slowest {k} unit(s) = {share:.1f}% of compute")
        else:
            ax2.set_title("straggler tail")
    fig.suptitle(_title(rf), fontsize=10)
    return _save(fig, path)


# ------------------------------------------------------------------ load per worker
LOAD_FIELDS = ["started", "seconds", "rank", "thread"]
MAP_BINS, ACTIVE_BINS = 300, 400   # time bins of the utilisation map and the busy-workers curve


def _worker_keys(chunk):
    """(rank, thread) as one int64 that sorts as the pair: rank * 2^32 + thread + 2^31."""
    return (chunk["rank"].astype(np.int64) << 32) + chunk["thread"].astype(np.int64) + (1 << 31)


def _busy_bins(w, s, e, edges, W):
    """(W, bins) busy seconds: the overlap of each unit [s, e) of worker w with each interval of
    edges (increasing), summed per worker."""
    nb = len(edges) - 1
    s, e = np.clip(s, edges[0], edges[-1]), np.clip(e, edges[0], edges[-1])
    j0, j1 = _bin_index(s, edges), _bin_index(e, edges)
    more = j1 > j0
    row = w * (nb + 1)
    size = W * (nb + 1)
    # the unit's part of its first and last bin; the bins in between are covered whole
    part = np.bincount(row + j0, np.where(more, edges[j0 + 1], e) - s, size) + \
        np.bincount(row + j1, np.where(more, e - edges[j1], 0.0), size)
    cover = np.bincount(row + j0 + 1, more, size) - np.bincount(row + j1, more, size)
    cover = np.cumsum(cover.reshape(W, nb + 1), axis=1)
    return part.reshape(W, nb + 1)[:, :nb] + cover[:, :nb] * np.diff(edges)


def load_profile(rf, units=None, chunk_rows=None):
    """Two passes over /units: the time span (t0 = first start, tend) and the workers (rank,
    thread), then per worker the units, the busy seconds and the busy seconds in MAP_BINS and
    ACTIVE_BINS time bins over 0..tend (`map`, `active`, their `edges`)."""
    ref, t0, t1, keys, U = None, np.inf, -np.inf, np.zeros(0, dtype=np.int64), 0
    for c in _chunks(rf, LOAD_FIELDS, units, chunk_rows):
        st = np.asarray(c["started"], dtype=float)
        ref = st[0] if ref is None else ref   # ends relative to a start: epoch + seconds rounds
        t0, t1 = min(t0, st.min()), max(t1, (st - ref + c["seconds"]).max())
        keys, U = np.union1d(keys, _worker_keys(c)), U + len(st)
    tend = t1 - (t0 - ref) if U else 1.0
    W = len(keys)
    p = SimpleNamespace(t0=t0, tend=tend, units=U, keys=keys, busy=np.zeros(W),
                        count=np.zeros(W, dtype=np.int64),
                        workers=np.stack([keys >> 32, (keys & 0xFFFFFFFF) - (1 << 31)], axis=1))
    span = tend if tend > 0 else 1.0
    p.edges = {nb: np.linspace(0, span, nb + 1) for nb in (MAP_BINS, ACTIVE_BINS)}
    prof = {nb: np.zeros((W, nb)) for nb in p.edges}
    for c in _chunks(rf, LOAD_FIELDS, units, chunk_rows) if U else ():
        w = np.searchsorted(keys, _worker_keys(c))
        sec = np.asarray(c["seconds"], dtype=float)
        s = np.asarray(c["started"], dtype=float) - t0
        p.busy += np.bincount(w, weights=sec, minlength=W)
        p.count += np.bincount(w, minlength=W)
        for nb, edges in p.edges.items():
            prof[nb] += _busy_bins(w, s, s + sec, edges, W)
    p.map, p.active = prof[MAP_BINS], prof[ACTIVE_BINS]
    return p


def plot_load(rf, path, units=None, chunk_rows=None):
    p = load_profile(rf, units, chunk_rows)
    workers, W, tend = p.workers, len(p.workers), p.tend
    labels = [f"r{r}.t{t}" for r, t in workers]
    ranks = np.unique(workers[:, 0])
    cmap = plt.get_cmap("tab20" if len(ranks) > 10 else "tab10")
    colors = [cmap(int(np.searchsorted(ranks, r)) % cmap.N) for r in workers[:, 0]]

    fig, axes = plt.subplots(3, 1, layout="constrained", figsize=(12, 4 + min(W, 64) * 0.12 + 5),
                             gridspec_kw={"height_ratios": [max(2, min(W, 64) * 0.12), 1.4, 1.2]})
    ax = axes[0]
    if p.units <= GANTT_MAX_UNITS:   # few units: whole arrays
        un = units if units is not None else rf.units(fields=LOAD_FIELDS)
        s = np.asarray(un["started"], dtype=float) - p.t0
        sec = np.asarray(un["seconds"], dtype=float)
        widx = np.searchsorted(p.keys, _worker_keys(un))
        for w in range(W):
            m = widx == w
            ax.broken_barh(list(zip(s[m], sec[m])), (w - 0.4, 0.8), facecolors=colors[w],
                           edgecolor="white", linewidth=0.3)
        ax.set_title("units per worker over time (one bar per unit)")
    else:
        util = p.map / np.diff(p.edges[MAP_BINS])
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
    busy, cnt = p.busy, p.count
    ax.bar(range(W), busy, color=colors)
    ax.axhline(busy.mean(), color="k", ls="--", lw=1,
               label=f"mean {busy.mean():.3g} s, max/mean {busy.max() / busy.mean():.2f}"
               if busy.mean() > 0 else "mean 0")
    ax.set_ylabel("busy seconds")
    ax.set_title(f"load per worker ({W} workers, {p.units} units; "
                 f"units per worker {cnt.min()}..{cnt.max()})")
    if W <= 40:
        ax.set_xticks(range(W))
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
    ax.legend(fontsize=8)

    ax = axes[2]
    edges = p.edges[ACTIVE_BINS]
    active = np.minimum(1.0, p.active / np.diff(edges)).sum(axis=0)
    ax.fill_between(edges[:-1], active, step="post", color="tab:green", alpha=0.6)
    ax.step(edges[:-1], active, where="post", color="tab:green")
    ax.set_xlim(axes[0].get_xlim())
    ax.set_ylim(0, W * 1.1)
    ax.axhline(W, color="k", ls=":", lw=1)
    ax.set_xlabel("seconds since the first unit started")
    ax.set_ylabel("busy workers")
    average = busy.sum() / tend if tend > 0 else 0
    ax.set_title(f"busy workers over time (of {W}; average {average:.2f};"
                 f" the tail shows stragglers)")
    fig.suptitle(_title(rf), fontsize=10)
    return _save(fig, path)


# ------------------------------------------------------------------ by first rows
PREFIX_FIELDS = ["placement", "multiplicity", "solutions"]


def prefix_tables(n, placement, mult, sols, symmetry="mirror", cache=None):
    """Solutions by the row-0 column (computed units, images) and by the (row-0, row-1)
    columns.  placement: (U, n), -1 = empty row.  Images: the mirror of multiplicity-2 units
    (mirror), or every distinct image of the border (full: the row-0 queen of an image is
    known from the border alone; the row-0/row-1 table is then None).  cache: border -> the
    row-0 columns of its images, kept by the caller across chunks."""
    pl = np.asarray(placement)
    sols = np.asarray(sols, dtype=np.float64)
    mult = np.asarray(mult)
    c0 = pl[:, 0].astype(np.int64)
    has0 = c0 >= 0
    own = np.bincount(c0[has0], weights=sols[has0], minlength=n)[:n]
    if unit_scheme(symmetry, n) == "border":
        cache = {} if cache is None else cache
        img = np.zeros(n)
        sel = has0 & (mult > 1)
        p = pl[sel]
        # the units by border: their queens on the border as n bytes (0 = none), one sort
        on = np.isin(np.arange(n), (0, n - 1)) | (p == 0) | (p == n - 1)
        key = np.ascontiguousarray(np.where(on, p, -1) + 1, dtype=np.uint8).view(f"V{n}").ravel()
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        per = np.bincount(inv.ravel(), weights=sols[sel], minlength=len(first))
        for r, v in zip(first, per):
            border = B.border_squares(p[r], n)
            if border not in cache:
                cache[border] = [c for image, k in B.square_orbit(border, n).items() if k
                                 for rr, c in image if rr == 0]
            for c in cache[border]:
                img[c] += v
        return own, img, None
    m2 = has0 & (mult == 2)
    img = np.bincount((n - 1) - c0[m2], weights=sols[m2], minlength=n)[:n]
    grid = None
    if n >= 2 and (pl[:, 1] >= 0).all() and len(pl):
        c1 = pl[:, 1].astype(np.int64)
        grid = np.zeros((n, n))
        np.add.at(grid, (c0, c1), sols)
        np.add.at(grid, ((n - 1) - c0[m2], (n - 1) - c1[m2]), sols[m2])
    return own, img, grid


def prefix_totals(rf, units=None, chunk_rows=None):
    """prefix_tables summed over /units chunk by chunk (the border images cached across
    chunks); None if a unit leaves row 0 to the search (depth 0) or there is no unit."""
    n, sym, cache, tot = rf.board_size(), rf.get("symmetry", "mirror"), {}, None
    for c in _chunks(rf, PREFIX_FIELDS, units, chunk_rows):
        if (c["placement"][:, 0] < 0).any():
            return None
        t = prefix_tables(n, c["placement"], c["multiplicity"], c["solutions"], sym, cache)
        tot = t if tot is None else (tot[0] + t[0], tot[1] + t[1],
                                     None if tot[2] is None or t[2] is None else tot[2] + t[2])
    return tot


def plot_prefix(rf, path, units=None, chunk_rows=None):
    """The figure, or None (nothing written) when prefix_totals is None."""
    tables = prefix_totals(rf, units, chunk_rows)
    if tables is None:
        return None
    own, img, grid = tables
    n = rf.board_size()
    sym = rf.get("symmetry", "mirror")
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
    known = K.lookup(n)   # N's solutions, from the published table: the range is known up front
    if known is not None and known.total == 0:
        return None, f"N={n} has no solution"
    if known is not None and index >= known.total:
        raise UsageError(f"--board {index} out of range: N={n} has {known.total} solutions "
                         f"(0..{known.total - 1}; published table)")
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
                      f"(count file, N={n}): `nqueens solve {n} --all --format columns` lists them, "
                      f"or plot a boards file")
    if count == 0:
        return None, f"N={n} has no solution"
    raise UsageError(f"--board {index} out of range: N={n} has {count} solutions (0..{count - 1})")


# ------------------------------------------------------------------ driver
def plot_file(path, out_dir, board_index=None, out=None, progress=None):
    """board_index None: draw solution 0 where there is one; given (--board), the file must
    hold that solution (exit 2 otherwise: a board asked for and not drawn exited 0)."""
    import sys
    out = out or sys.stdout
    asked = board_index is not None
    board_index = board_index or 0
    check_output_dir(out_dir, "--out")   # before the file is read
    written = []
    with ResultFile(path, progress, strict=True) as rf, output_dir(out_dir, "--out"):
        stem = os.path.splitext(rf.name)[0]
        p = lambda what: os.path.join(out_dir, f"{stem}_{what}.png")  # noqa: E731
        board, desc = board_for_plot(rf, board_index)   # a bad --board fails before any plot
        if board is None and asked:   # (no solution, or the solver gave up: exit 0 until session 46)
            raise UsageError(f"--board {board_index}: {desc}")
        if rf.unit_rows() == 0:   # (checks the /units datasets' shapes too)
            print("skipped unit plots: /units is empty", file=out)
        else:   # each reads /units in chunks: memory bounded whatever the number of units
            written.append(plot_unit_times(rf, p("unit_times")))
            written.append(plot_load(rf, p("load")))
            prefix = plot_prefix(rf, p("prefix"))
            if prefix:
                written.append(prefix)
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
