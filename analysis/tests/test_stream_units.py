"""plot and export read /units in chunks: on files that span many chunks (CHUNK rows each),
the streamed results equal the ones computed from the whole arrays."""

import numpy as np
import pytest

from conftest import nq
from nqanalysis import plots
from nqanalysis.export import export_units
from nqanalysis.resultfile import ResultFile

CHUNK = 7


def _path(runs, symmetry_runs, which):
    path = runs.get(which) or symmetry_runs[which]
    with ResultFile(path) as rf:
        assert rf.unit_rows() > 3 * CHUNK, "the file must span several chunks"
    return path


def test_export_units_streamed_in_chunks(runs, tmp_path):
    with ResultFile(runs["count10"]) as rf:
        assert rf.unit_rows() > 3 * CHUNK
        export_units(rf, str(tmp_path / "small.csv"), chunk_rows=CHUNK)
        export_units(rf, str(tmp_path / "one.csv"), chunk_rows=rf.unit_rows())
    r = nq("export", runs["count10"], "--csv", tmp_path / "default")
    assert r.rc == 0, r
    want = (tmp_path / "default" / "units.csv").read_bytes()
    assert (tmp_path / "small.csv").read_bytes() == want
    assert (tmp_path / "one.csv").read_bytes() == want


@pytest.mark.parametrize("which", ["count10", "boards_all8", "sym_none_boards9", "sym_full_boards9",
                                   "sym_full_class8"])
def test_prefix_tables_streamed_equal_whole(runs, symmetry_runs, which):
    with ResultFile(_path(runs, symmetry_runs, which)) as rf:
        un = rf.units(fields=plots.PREFIX_FIELDS)
        want = plots.prefix_tables(rf.n, un["placement"], un["multiplicity"], un["solutions"],
                                   rf.get("symmetry"))
        got = plots.prefix_totals(rf, chunk_rows=CHUNK)
    assert np.allclose(got[0], want[0]) and np.allclose(got[1], want[1])
    assert (got[2] is None) == (want[2] is None)
    if want[2] is not None:
        assert np.allclose(got[2], want[2])


def test_prefix_totals_none_without_row_0(tmp_path):
    import make_fixture
    path = str(tmp_path / "d0.h5")
    make_fixture.make_result(path, 8, "count", depth=0)
    with ResultFile(path) as rf:
        assert plots.prefix_totals(rf, chunk_rows=CHUNK) is None


def _whole_load(un, edges):
    """The reference from the whole arrays: workers (np.unique of the (rank, thread) pairs),
    busy seconds, units, and the busy seconds per time bin (each unit's overlap with each bin)."""
    st = np.asarray(un["started"], dtype=float)
    sec = np.asarray(un["seconds"], dtype=float)
    s = st - st.min()
    e = s + sec
    workers, widx = np.unique(np.stack([un["rank"], un["thread"]], axis=1), axis=0,
                              return_inverse=True)
    widx = widx.ravel()
    W = len(workers)
    overlap = np.minimum(e[:, None], edges[1:]) - np.maximum(s[:, None], edges[:-1])
    overlap = np.clip(overlap, 0, None)
    prof = np.zeros((W, len(edges) - 1))
    np.add.at(prof, widx, overlap)
    return workers, np.bincount(widx, weights=sec, minlength=W), np.bincount(widx, minlength=W), \
        prof, e.max()


def _synthetic_units(U=3000):
    rng = np.random.default_rng(1)
    rank = rng.integers(-2, 5, U).astype(np.int32)
    thread = rng.integers(-3, 4, U).astype(np.int32)
    rank[:2], thread[:2] = (2**31 - 1, -2**31), (-2**31, 2**31 - 1)   # the extremes of int32
    return dict(seconds=rng.lognormal(-3, 1.2, U), started=1.7e9 + rng.uniform(0, 100, U),
                rank=rank, thread=thread)


@pytest.mark.parametrize("which", ["count10", "boards_all8", "sym_full_class8", "synthetic"])
def test_load_profile_streamed_equals_whole(runs, symmetry_runs, which):
    if which == "synthetic":   # many workers, negative and extreme ranks and threads
        with ResultFile(runs["count10"]) as rf:
            un = _synthetic_units()
            p = plots.load_profile(rf, units=un)
    else:
        with ResultFile(_path(runs, symmetry_runs, which)) as rf:
            un = rf.units(fields=plots.LOAD_FIELDS)
            p = plots.load_profile(rf, chunk_rows=CHUNK)
    workers, busy, cnt, _, tend = _whole_load(un, p.edges[plots.MAP_BINS])
    assert p.units == len(un["seconds"]) and np.isclose(p.tend, tend)
    assert np.array_equal(p.workers, workers)
    assert np.allclose(p.busy, busy) and np.array_equal(p.count, cnt)
    for prof, nb in ((p.map, plots.MAP_BINS), (p.active, plots.ACTIVE_BINS)):
        edges = p.edges[nb]
        want = _whole_load(un, edges)[3]
        assert prof.shape == want.shape == (len(workers), nb)
        assert np.allclose(prof, want, rtol=1e-9, atol=1e-12 * tend)
        assert np.allclose(prof.sum(axis=1), busy)   # every unit lies inside 0..tend
        width = np.diff(edges)   # the utilisation map and the busy-workers curve
        assert np.allclose(prof / width, want / width)
        assert np.allclose(np.minimum(1, prof / width).sum(axis=0),
                           np.minimum(1, want / width).sum(axis=0))


def _synthetic_seconds(U=20000):
    rng = np.random.default_rng(2)
    sec = rng.lognormal(-8, 2.5, U)
    sec[:40] = 0.0
    sec[40:43] = (np.nan, -1.0, np.inf)   # not counted
    return sec


@pytest.mark.parametrize("which", ["count10", "sym_full_boards9", "synthetic"])
def test_unit_time_hist_streamed(runs, symmetry_runs, which):
    if which == "synthetic":   # zeros, a wide range, and values that are not times
        raw = _synthetic_seconds()
        with ResultFile(runs["count10"]) as rf:
            h = whole = plots.unit_time_hist(rf, units={"seconds": raw})
    else:
        with ResultFile(_path(runs, symmetry_runs, which)) as rf:
            raw = rf.units(fields=["seconds"])["seconds"]
            h = plots.unit_time_hist(rf, chunk_rows=CHUNK)
            whole = plots.unit_time_hist(rf, units={"seconds": raw})
    sec = raw[np.isfinite(raw) & (raw >= 0)]
    U = len(sec)
    assert h.count == U and h.counts.sum() == U and h.fine_counts.sum() == U
    assert np.array_equal(h.counts, whole.counts)
    assert np.array_equal(h.fine_counts, whole.fine_counts)
    assert np.allclose(h.fine_seconds, whole.fine_seconds) and np.isclose(h.total, sec.sum())
    assert h.max == sec.max() and h.lo == sec[sec > 0].min()
    # the figure's 50-bin histogram as matplotlib's of the whole array (times below lo as lo)
    assert np.array_equal(h.counts, np.histogram(np.maximum(sec, h.lo), bins=h.bins)[0])
    # p50, p99 (and the others): within one fine bin (ratio R) of np.percentile
    R = h.fine[2] / h.fine[1]
    for q in (0, 1, 10, 50, 90, 99, 100):
        v, want = plots.hist_percentile(h, q), np.percentile(sec, q)
        assert abs(v - want) <= want * (R - 1), (q, v, want)
    # the straggler tail: at each point, the units at or above it and their exact seconds
    srt = np.sort(sec)[::-1]
    ranks, times, secs = plots.straggler_tail(h)
    assert ranks[0] == 1 and times[0] == max(srt[0], h.lo) and ranks[-1] == U
    assert np.all(np.diff(ranks) >= 0) and np.all(np.diff(times) <= 0)
    assert np.allclose(secs, np.cumsum(srt)[ranks - 1])
    at = srt[ranks - 1]   # the unit at each point lies in the point's bin
    pos = at > 0
    assert np.all(times[pos] <= at[pos] * (1 + 1e-12)) and np.all(at[pos] < times[pos] * R)
    for k in (1, max(1, U // 100), U // 3, U):
        exact = srt[:k].sum()
        assert abs(plots.slowest_seconds(h, k) - exact) <= exact * (R - 1) + 1e-15, k


def test_plot_reads_no_whole_units(runs, tmp_path, monkeypatch):
    """With many units (a Gantt threshold below the file's units) plot and export read /units
    CHUNK rows at a time and never whole."""
    def whole(*_a, **_k):
        raise AssertionError("/units read whole")
    monkeypatch.setattr(ResultFile, "UNIT_CHUNK", CHUNK)
    monkeypatch.setattr(ResultFile, "units", whole)
    monkeypatch.setattr(plots, "GANTT_MAX_UNITS", 10)
    r = nq("plot", runs["count10"], "--out", tmp_path / "figs")
    assert r.rc == 0, r
    assert len([ln for ln in r.out.splitlines() if ln.endswith(".png")]) == 4, r.out
    with ResultFile(runs["count10"]) as rf:
        export_units(rf, str(tmp_path / "u.csv"), chunk_rows=CHUNK)
