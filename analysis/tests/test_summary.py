"""summary: a side-by-side table of the key numbers."""

import h5py
import numpy as np

from conftest import copy_file, nq, nq_subprocess


def test_summary_three_files(runs):
    files = [runs["count10"], runs["boards_all8"], runs["boards_class8"]]
    r = nq("summary", *files)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    header = lines[0].split()
    assert header == ["file", "count10.h5", "boards_all8.h5", "boards_class8.h5"]
    rows = {ln[:16].strip(): ln[16:].split() for ln in lines[2:]}
    assert rows["N"] == ["10", "8", "8"]
    assert rows["total"] == ["724", "92", "92"]
    assert rows["unique"] == ["92", "12", "12"]
    assert rows["known match"] == ["yes", "yes", "yes"]
    assert rows["status"] == ["complete"] * 3
    for key in ("mode", "wall time", "ranks x threads", "units", "solutions/s"):
        assert key in rows, key
    assert "count" in r.out and "boards (all)" in r.out and "boards (class)" in r.out
    assert "x 2 = 2" in r.out


def test_summary_does_not_count_the_master_as_computing(runs, tmp_path):
    # A file as a run of 3 ranks with 2 threads each leaves it: 4 threads computed, not 6.
    path = copy_file(runs["count10"], tmp_path, "r3.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["ranks"] = np.int32(3)
    r = nq("summary", path)
    assert r.rc == 0, r
    assert "3 x 2, 4 computing (rank 0 is the master)" in r.out, r.out


def test_summary_unreadable_file_is_named(runs, tmp_path):
    bad = tmp_path / "junk.h5"
    bad.write_bytes(b"not hdf5")
    r = nq("summary", runs["count10"], str(bad))
    assert r.rc == 3
    assert "junk.h5" in r.err and "unreadable HDF5 file" in r.err
    assert "count10.h5" in r.out          # the readable file is still shown


def test_summary_partial_and_wrong_values(tmp_path):
    import h5py
    import numpy as np
    import make_fixture
    p = str(tmp_path / "partial.h5")
    make_fixture.make_result(p, 9, "count", partial=5)
    w = str(tmp_path / "wrong.h5")
    make_fixture.make_result(w, 8, "count")
    with h5py.File(w, "r+") as f:
        f.attrs.modify("total", np.uint64(90))
    u = str(tmp_path / "unknown.h5")   # a status no run writes: not shown as partial
    make_fixture.make_result(u, 8, "count")
    with h5py.File(u, "r+") as f:
        f.attrs["status"] = "bomplete"
    r = nq("summary", p, w, u)
    assert r.rc == 0, r
    assert "n/a (partial)" in r.out and r.out.count("n/a (partial)") == 1
    assert "NO (known total 92)" in r.out and "[file says yes]" in r.out
    assert "n/a (status 'bomplete' is neither complete nor partial: see nqanalyze verify)" in r.out


def test_summary_help_and_usage():
    r = nq_subprocess("summary", "--help")
    assert r.rc == 0 and "usage: nqanalyze summary" in r.out
    r = nq("summary")
    assert r.rc == 2 and len(r.err.strip().splitlines()) == 1


def test_summary_of_a_shard_or_a_partial_file_gives_its_share_of_units_and_no_unique(tmp_path):
    """A complete shard showed `1134/3402` units, as if unfinished, and a partial file or a
    shard `unique 0`: neither holds the whole job's classes (nqueens info shows -)."""
    import make_fixture
    shard, partial = str(tmp_path / "s1.h5"), str(tmp_path / "p.h5")
    make_fixture.make_result(shard, 9, shard=(1, 3))
    make_fixture.make_result(partial, 9, partial=5)
    r = nq("summary", shard, partial)
    assert r.rc == 0, r
    rows = {ln[:16].strip(): ln[16:] for ln in r.out.splitlines()[2:]}
    with h5py.File(shard, "r") as f:
        done, total_units, depth = int(f.attrs["units_done"]), int(f.attrs["units_total"]), f.attrs["depth"]
    assert done == len(range(1, total_units, 3))
    assert f"{done}/{done} of shard 1/3 ({total_units} in the job, depth {depth})" in rows["units"], r.out
    assert rows["unique"].split() == ["-", "-"], r.out
    assert rows["status"].split()[:3] == ["complete,", "shard", "1/3"], r.out


def test_a_units_total_past_2_63_is_read_not_an_internal_error(runs, tmp_path):
    """A partial file of a job of 2^64 - 1 units: verify ended in "internal error: OverflowError"
    (len(range()) of the ids stops at 2^63). (In a complete file it is refused: test_cli.py.)"""
    path = copy_file(runs["count10"], tmp_path, "huge.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["status"] = np.bytes_("partial")
        f.attrs.create("units_total", np.array(2**64 - 1, dtype=f.attrs["units_total"].dtype))
    r = nq("summary", path)
    assert r.rc == 0 and "/18446744073709551615 (depth" in r.out, r
    r = nq("verify", path)
    assert "internal error" not in r.err and r.err == "", r
    assert " of 18446744073709551615 units done" in r.out, r
