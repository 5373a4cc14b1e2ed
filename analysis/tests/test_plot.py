"""plot and scaling: every figure is written and is a real, readable PNG."""

import io
import os

import matplotlib
import numpy as np
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from conftest import copy_file, nq  # noqa: E402
from nqanalysis import plots  # noqa: E402
from nqanalysis.resultfile import UsageError  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_png(path, min_w=200, min_h=200):
    assert os.path.isfile(path), path
    with open(path, "rb") as fh:
        assert fh.read(8) == PNG_MAGIC, path
    img = plt.imread(path)
    h, w = img.shape[:2]
    assert w >= min_w and h >= min_h, (path, img.shape)
    assert w <= 5000 and h <= 5000, (path, img.shape)
    assert img.std() > 0.01, f"{path} looks blank"


EXPECTED = {
    "count10": ["unit_times", "load", "prefix", "board0"],
    "boards_all8": ["unit_times", "load", "prefix", "queen_heatmap", "board0"],
    "boards_class8": ["unit_times", "load", "prefix", "queen_heatmap", "board5"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_plot_writes_pngs(runs, tmp_path, name):
    args = ["plot", runs[name], "--out", tmp_path / "figs"]
    if name == "boards_class8":
        args += ["--board", "5"]
    r = nq(*args)
    assert r.rc == 0, r
    printed = [ln for ln in r.out.splitlines() if ln.endswith(".png")]
    want = [str(tmp_path / "figs" / f"{name}_{what}.png") for what in EXPECTED[name]]
    assert sorted(printed) == sorted(want), r.out
    for p in want:
        assert_png(p)


def test_plot_board_out_of_range(runs, tmp_path):
    r = nq("plot", runs["boards_all8"], "--out", tmp_path, "--board", "92")
    assert r.rc == 2, r
    assert "--board 92 out of range" in r.err and len(r.err.strip().splitlines()) == 1


def test_plot_board_of_a_count_file_is_drawn_or_refused_never_skipped(runs, tmp_path, monkeypatch):
    """A count file's --board is found by a Python solver, which gives up after a budget of
    nodes: a board asked for and not drawn exited 0 ("skipped board drawing"), and an index past
    N's solutions was only caught after the whole enumeration (for N >= 14 never: the solver gave
    up first). The range comes from the published table now, and giving up is exit 2."""
    r = nq("plot", runs["count10"], "--out", tmp_path / "a", "--board", "724")
    assert r.rc == 2 and "--board 724 out of range: N=10 has 724 solutions (0..723; published table)" in r.err, r
    assert not (tmp_path / "a").exists() or not any((tmp_path / "a").iterdir())
    monkeypatch.setattr(plots, "BOARD_SOLVER_NODES", 200)   # (N = 10's solution 700 needs ~34,000)
    with pytest.raises(UsageError, match=r"--board 700: the Python solver gave up after 200 nodes "
                                         r"\(count file, N=10\): `nqueens solve 10 --all --format columns`"):
        plots.plot_file(runs["count10"], str(tmp_path / "b"), board_index=700, out=io.StringIO())
    monkeypatch.undo()
    out = io.StringIO()
    assert plots.plot_file(runs["count10"], str(tmp_path / "c"), board_index=700, out=out) == 0
    assert (tmp_path / "c" / "count10_board700.png").exists(), out.getvalue()


def test_plot_a_board_of_a_file_without_solutions(tmp_path):
    """N = 3 has no solution: the plots are written and the drawing skipped, but a --board asked
    for is an error (it exited 0, saying 'skipped board drawing' among the paths written)."""
    import make_fixture
    for mode in ("count", "boards"):
        path = str(tmp_path / f"{mode}3.h5")
        make_fixture.make_result(path, 3, mode)
        r = nq("plot", path, "--out", tmp_path / "figs")
        assert r.rc == 0 and "skipped board drawing" in r.out, r
        r = nq("plot", path, "--out", tmp_path / "figs", "--board", "0")
        assert r.rc == 2 and "--board 0: " in r.err and "no solution" in r.err, r


def test_plot_requires_out(runs):
    r = nq("plot", runs["count10"])
    assert r.rc == 2 and "--out" in r.err


def test_plot_bad_file(tmp_path):
    r = nq("plot", tmp_path / "none.h5", "--out", tmp_path)
    assert r.rc == 3 and "no such file" in r.err


def test_scaling(scaling_runs, runs, symmetry_runs, tmp_path):
    """The table's values are the files' own: N, job (mode, board set, symmetry, depth), ranks x
    threads, and the speedup (wall time of the fewest-workers run of the same N and job over this
    run's) with its efficiency (speedup per worker ratio), each worked out here from the files'
    attributes. A run alone in its group (count10; the two boards runs of N = 9 of symmetry none
    and full, which were one group of N and mode) is its own base: 1.00 and 100%."""
    import re
    import h5py
    # One file as a run of 3 ranks had left it: its master computed nothing, so 2 x 2 workers,
    # not 3 x 2 (the table and the efficiency used to count the master).
    three = copy_file(scaling_runs["scale_n9_t2"], tmp_path, "scale_n9_r3.h5")
    with h5py.File(three, "r+") as f:
        f.attrs["ranks"] = np.int32(3)
        f.attrs["wall_seconds"] = f.attrs["wall_seconds"] / 2
    files = sorted(scaling_runs.values()) + [runs["count10"], three, symmetry_runs["sym_none_boards9"],
                                             symmetry_runs["sym_full_boards9"]]
    r = nq("scaling", *files, "--out", tmp_path)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    header = re.split(r"\s{2,}", lines[0].strip())
    assert header == ["file", "N", "job", "ranks x threads", "workers", "wall", "unit cpu", "speedup",
                      "efficiency", "solutions/s"], lines[0]
    rows = [dict(zip(header, re.split(r"\s{2,}", line.strip()))) for line in lines[2:-1]]
    facts = {}
    for path in files:
        with h5py.File(path, "r") as f:
            a = f.attrs
            text = lambda k: a[k].decode() if isinstance(a[k], bytes) else str(a[k])   # noqa: E731
            mode = text("mode") + (f" {text('boards_stored')}" if text("mode") == "boards" else "")
            job = f"{mode}, {text('symmetry')}, depth {int(a['depth'])}"
            facts[os.path.basename(path)] = dict(n=int(a["n"]), job=job, ranks=int(a["ranks"]),
                                                 threads=int(a["threads"]), wall=float(a["wall_seconds"]))
    assert sorted(row["file"] for row in rows) == sorted(facts)
    for row in rows:
        f = facts[row["file"]]
        group = [g for g in facts.values() if (g["n"], g["job"]) == (f["n"], f["job"])]
        workers = lambda g: g["threads"] * (g["ranks"] - 1 if g["ranks"] > 1 else 1)   # noqa: E731
        base = min(group, key=lambda g: (workers(g), g["wall"]))
        speedup = base["wall"] / f["wall"]
        efficiency = speedup / (workers(f) / workers(base))
        assert (row["N"], row["job"]) == (str(f["n"]), f["job"]), row
        assert row["ranks x threads"] == f"{f['ranks']} x {f['threads']}", row
        assert row["workers"] == str(workers(f)), row
        assert row["speedup"] == f"{speedup:.2f}" and row["efficiency"] == f"{efficiency * 100:.0f}%", row
    for name in (runs["count10"], symmetry_runs["sym_none_boards9"], symmetry_runs["sym_full_boards9"]):
        alone = next(row for row in rows if row["file"] == os.path.basename(name))
        assert (alone["speedup"], alone["efficiency"]) == ("1.00", "100%"), alone
    assert_png(str(tmp_path / "scaling.png"))
    assert lines[-1] == str(tmp_path / "scaling.png")


def test_load_plot_many_units_uses_utilisation_map(runs, tmp_path):
    """More units than a Gantt chart can draw: the utilisation heat map path."""
    import numpy as np
    from nqanalysis import plots
    from nqanalysis.resultfile import ResultFile
    rng = np.random.default_rng(0)
    U = plots.GANTT_MAX_UNITS + 1000
    un = dict(seconds=rng.lognormal(-3, 1.2, U), started=1.7e9 + rng.uniform(0, 100, U),
              rank=rng.integers(0, 16, U).astype(np.int32),
              thread=rng.integers(0, 4, U).astype(np.int32))
    with ResultFile(runs["count10"]) as rf:
        path = plots.plot_load(rf, str(tmp_path / "load.png"), units=un)
    assert_png(path)


def test_queen_heatmap_class_equals_all(runs):
    """Expanding classes (class_size/8 per transform) gives the same map as all boards."""
    import numpy as np
    from nqanalysis.plots import queen_heatmap_counts
    from nqanalysis.resultfile import ResultFile
    with ResultFile(runs["boards_all8"]) as a, ResultFile(runs["boards_class8"]) as c:
        ma, mc = queen_heatmap_counts(a), queen_heatmap_counts(c)
    assert np.array_equal(ma, mc)
    assert np.all(ma.sum(axis=1) == 92) and np.all(ma.sum(axis=0) == 92)


@pytest.mark.parametrize("kw", [dict(symmetry="full"), dict(),
                                dict(depth=0), dict(symmetry="none", boards="class")])
def test_plot_fixture_variants(tmp_path, kw):
    import make_fixture
    path = str(tmp_path / "v.h5")
    make_fixture.make_result(path, 8, "boards", **{"boards": "all", **kw})
    r = nq("plot", path, "--out", tmp_path / "figs")
    assert r.rc == 0, r
    pngs = [ln for ln in r.out.splitlines() if ln.endswith(".png")]
    assert len(pngs) == (4 if kw.get("depth") == 0 else 5), r.out
    for p in pngs:
        assert_png(p)


@pytest.mark.parametrize("which", ["boards_all8", "sym_full_boards9", "sym_none_boards9"])
def test_prefix_tables_match_the_boards(runs, symmetry_runs, which):
    """Solutions by row-0 (and row-0/row-1) column, derived from /units with the images the
    multiplicities stand for, equal the same counts taken from the stored boards."""
    import numpy as np
    from nqanalysis.plots import prefix_tables
    from nqanalysis.resultfile import ResultFile
    path = runs.get(which) or symmetry_runs[which]
    with ResultFile(path) as rf:
        un = rf.units()
        own, img, grid = prefix_tables(rf.n, un["placement"], un["multiplicity"],
                                       un["solutions"], rf.get("symmetry"))
        b = rf.read("/boards/solutions").astype(np.int64)
    assert np.array_equal(own + img, np.bincount(b[:, 0], minlength=b.shape[1]))
    if grid is not None:
        g = np.zeros_like(grid)
        np.add.at(g, (b[:, 0], b[:, 1]), 1)
        assert np.array_equal(g, grid)
