"""export: units.csv and boards.csv match the datasets."""

import csv

import h5py
import numpy as np

from conftest import flip_stored_byte, nq
from nqanalysis.export import export_boards, int_matrix_csv
from nqanalysis.resultfile import ResultFile


def test_int_matrix_csv_matches_python():
    rng = np.random.default_rng(3)
    m = np.concatenate([rng.integers(0, 30, size=(50, 5)),
                        rng.integers(0, 2**63, size=(50, 1), dtype=np.uint64).astype(np.int64)
                        .reshape(50, 1) * 0 + np.arange(50).reshape(50, 1) * 10**12], axis=1)
    m[0, :] = 0
    want = "".join(",".join(str(int(v)) for v in row) + "\n" for row in m)
    assert int_matrix_csv(m).decode() == want
    big = np.array([[2**64 - 1, 0, 10]], dtype=np.uint64)
    assert int_matrix_csv(big).decode() == f"{2**64 - 1},0,10\n"


def read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_export_count_file(runs, tmp_path):
    r = nq("export", runs["count10"], "--csv", tmp_path / "csv")
    assert r.rc == 0, r
    header, rows = read_csv(tmp_path / "csv" / "units.csv")
    with h5py.File(runs["count10"], "r") as f:
        ids = f["/units/id"][...]
        sols = f["/units/solutions"][...]
        sec = f["/units/seconds"][...]
        pname = "placement"   # (U, n), 0xFF = row left to the search
        pre = f["/units/" + pname][...]
    k = pre.shape[1]
    assert header[:1 + k] == ["id"] + [f"{pname}{i}" for i in range(k)]
    assert len(rows) == len(ids)
    col = {h: i for i, h in enumerate(header)}
    assert [int(r[col["id"]]) for r in rows] == ids.tolist()
    assert [int(r[col["solutions"]]) for r in rows] == sols.tolist()
    assert np.array_equal(np.array([float(r[col["seconds"]]) for r in rows]), sec)
    for i in range(k):
        got = [255 if r[col[f"{pname}{i}"]] == "" else int(r[col[f"{pname}{i}"]]) for r in rows]
        assert got == pre[:, i].tolist()
    assert not (tmp_path / "csv" / "boards.csv").exists()
    assert "boards.csv not written" in r.out


def test_export_of_a_count_file_removes_an_earlier_exports_boards(runs, tmp_path):
    """A boards file exported into DIR, then a count file: boards.csv stayed beside the count
    file's units.csv, as if it were its boards. An earlier export's is removed; a file of the
    user's of that name is left and named."""
    csv = tmp_path / "csv"
    assert nq("export", runs["boards_all8"], "--csv", csv).rc == 0 and (csv / "boards.csv").exists()
    r = nq("export", runs["count10"], "--csv", csv)
    assert r.rc == 0 and not (csv / "boards.csv").exists(), r
    assert f"(removed {csv / 'boards.csv'}: an earlier export's, not count10.h5's)" in r.out, r.out
    (csv / "boards.csv").write_text("my notes\n")
    r = nq("export", runs["count10"], "--csv", csv)
    assert r.rc == 0 and (csv / "boards.csv").read_text() == "my notes\n", r
    assert f"(warning: {csv / 'boards.csv'} is not count10.h5's: an earlier file, left as it is)" in r.out, r.out


def test_an_export_that_fails_leaves_the_earlier_pair_of_files_not_a_mix(runs, tmp_path):
    """units.csv was put in place before boards.csv was written: an export stopped or failed in
    between (Ctrl-C, a full disk) left this file's units.csv beside an earlier export's boards.csv,
    whose `unit` column then named units of another plan. Both are written, then both put in
    place. The boards' write fails here at once (its .part is a directory)."""
    csv = tmp_path / "csv"
    assert nq("export", runs["boards_all8"], "--csv", csv).rc == 0
    before = {name: (csv / name).read_bytes() for name in ("units.csv", "boards.csv")}
    (csv / "boards.csv.part").mkdir()
    r = nq("export", runs["boards_class8"], "--csv", csv)
    assert r.rc == 4 and "cannot write CSV in" in r.err, r
    assert {name: (csv / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in csv.iterdir()) == ["boards.csv", "boards.csv.part", "units.csv"]


def test_export_boards_files(runs, tmp_path):
    for name in ("boards_all8", "boards_class8"):
        d = tmp_path / name
        r = nq("export", runs[name], "--csv", d)
        assert r.rc == 0, r
        header, rows = read_csv(d / "boards.csv")
        with h5py.File(runs[name], "r") as f:
            sol = f["/boards/solutions"][...]
            unit = f["/boards/unit"][...]
            cls = f["/boards/class_size"][...] if "class_size" in f["boards"] else None
        want = ["index", "unit"] + (["class_size"] if cls is not None else []) + \
            [f"row{i}" for i in range(8)]
        assert header == want
        arr = np.array(rows, dtype=np.int64)
        assert np.array_equal(arr[:, 0], np.arange(len(sol)))
        assert np.array_equal(arr[:, 1], unit)
        if cls is not None:
            assert np.array_equal(arr[:, 2], cls)
        assert np.array_equal(arr[:, -8:], sol)
        assert str(d / "boards.csv") in r.out and str(d / "units.csv") in r.out


def test_export_boards_streamed_in_chunks(runs, tmp_path):
    with ResultFile(runs["boards_all8"]) as rf:
        n = export_boards(rf, str(tmp_path / "b.csv"), chunk_rows=5)
        assert n == 92
    ref = tmp_path / "ref"
    nq("export", runs["boards_all8"], "--csv", ref)
    assert (tmp_path / "b.csv").read_bytes() == (ref / "boards.csv").read_bytes()


def test_export_errors(runs, tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    r = nq("export", runs["count10"], "--csv", f)
    assert r.rc == 2 and "not a directory" in r.err
    r = nq("export", runs["count10"])
    assert r.rc == 2


def test_export_placement_layout(tmp_path):
    import make_fixture
    path = str(tmp_path / "pl.h5")
    make_fixture.make_result(path, 8, "count", symmetry="full")
    r = nq("export", path, "--csv", tmp_path / "csv")
    assert r.rc == 0, r
    header, rows = read_csv(tmp_path / "csv" / "units.csv")
    assert header[1:9] == [f"placement{i}" for i in range(8)]
    with h5py.File(path, "r") as f:
        raw = f["/units/placement"][...]
    got = np.array([[255 if v == "" else int(v) for v in row[1:9]] for row in rows])
    assert np.array_equal(got, raw)


def test_a_failed_export_leaves_no_directory_it_made(runs, tmp_path):
    """An export that failed (a refused file) left the --csv directory it had made, empty. A
    directory it makes is removed again when it fails before writing into it, parents it made
    too; one that was there before, or that holds files, is left."""
    bad_n = tmp_path / "n.h5"
    bad_n.write_bytes(open(runs["count10"], "rb").read())
    with h5py.File(bad_n, "r+") as f:
        f.attrs["n"] = np.int32(0)
    r = nq("export", bad_n, "--csv", tmp_path / "new" / "csv")
    assert r.rc == 3 and "is not a board size" in r.err, r
    assert not (tmp_path / "new").exists()
    # failing after the directory is made: a checksum error in /units/solutions
    flip = tmp_path / "flip.h5"
    flip.write_bytes(open(runs["count10"], "rb").read())
    flip_stored_byte(flip, "/units/solutions")
    r = nq("export", flip, "--csv", tmp_path / "new" / "csv")
    assert r.rc == 3 and "cannot read /units/solutions" in r.err, r
    assert not (tmp_path / "new").exists()
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("mine\n")
    for d in ("empty", "notes"):
        assert nq("export", flip, "--csv", tmp_path / d).rc == 3
    assert (tmp_path / "empty").is_dir() and (tmp_path / "notes" / "mine.txt").read_text() == "mine\n"
    assert sorted(p.name for p in (tmp_path / "notes").iterdir()) == ["mine.txt"]
    # plot alike: a --board past N's solutions, found after the directory is made
    r = nq("plot", runs["count10"], "--out", tmp_path / "new" / "pl", "--board", 724)
    assert r.rc == 2 and "out of range" in r.err, r
    assert not (tmp_path / "new").exists()
