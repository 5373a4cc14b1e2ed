"""verify: passes on good files from the binary, fails (naming the problem) on corrupted copies."""

import io
import os

import h5py
import numpy as np
import pytest

from conftest import copy_file, delete_unit_row, flip_stored_byte, nq, nq_subprocess
import make_fixture
from nqanalysis.resultfile import ResultFile
from nqanalysis.verify import Verifier


@pytest.mark.parametrize("name", ["count10", "boards_all8", "boards_class8"])
def test_verify_passes_on_good_files(runs, name):
    r = nq("verify", runs[name])
    assert r.rc == 0, r
    assert "RESULT: PASS" in r.out
    assert "FAIL" not in r.out


def test_verify_good_files_facts(runs):
    r = nq("verify", runs["boards_all8"])
    assert "all 92 boards are valid" in r.out, r
    assert "match the published table for n = 8" in r.out
    assert "Burnside" in r.out
    r = nq("verify", runs["boards_class8"])
    assert "every board is its class's canonical representative" in r.out, r
    assert "sum(/boards/class_size) = 92 = total" in r.out
    assert "12 rows = unique" in r.out


def _first_row_with_solutions(path):
    with h5py.File(path, "r") as f:
        sols = f["/units/solutions"][...]
    return int(np.nonzero(sols > 0)[0][0])


@pytest.mark.parametrize("name", ["count10", "boards_all8"])
def test_verify_wrong_unit_count(runs, tmp_path, name):
    path = copy_file(runs[name], tmp_path, "wrong_count.h5")
    row = _first_row_with_solutions(path)
    with h5py.File(path, "r+") as f:
        f["/units/solutions"][row] += 1
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "RESULT: FAIL" in r.out
    assert "sum(multiplicity*solutions) over /units/solutions" in r.out
    # N <= 10: every unit is recounted, the row is named
    assert f"/units/solutions row {row} " in r.out, r
    if name == "boards_all8":
        assert "board count different from multiplicity*solutions" in r.out, r
        assert f"(/units row {row})" in r.out


def test_verify_invalid_board(runs, tmp_path):
    path = copy_file(runs["boards_all8"], tmp_path, "invalid.h5")
    with h5py.File(path, "r+") as f:
        b = f["/boards/solutions"][5]
        b[3] = b[2]
        f["/boards/solutions"][5] = b
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/boards/solutions: 1 invalid boards" in r.out, r
    assert "/boards/solutions row 5 " in r.out
    assert "rows 2 and 3 share column" in r.out


def test_verify_board_value_out_of_range(runs, tmp_path):
    path = copy_file(runs["boards_class8"], tmp_path, "range.h5")
    with h5py.File(path, "r+") as f:
        b = f["/boards/solutions"][2]
        b[0] = 9
        f["/boards/solutions"][2] = b
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/boards/solutions row 2 " in r.out
    assert "outside 0..7" in r.out


@pytest.mark.parametrize("name", ["boards_all8", "boards_class8"])
def test_verify_duplicated_board(runs, tmp_path, name):
    path = copy_file(runs[name], tmp_path, "dup.h5")
    with h5py.File(path, "r+") as f:
        f["/boards/solutions"][7] = f["/boards/solutions"][3]
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/boards/solutions: 1 duplicate boards" in r.out, r
    assert "/boards/solutions rows 3, 7" in r.out


def test_verify_duplicates_found_across_passes(runs, tmp_path):
    """Duplicate detection with a tiny key budget (several passes over the data)."""
    path = copy_file(runs["boards_all8"], tmp_path, "dup2.h5")
    with h5py.File(path, "r+") as f:
        f["/boards/solutions"][90] = f["/boards/solutions"][1]
    out = io.StringIO()
    with ResultFile(path) as rf:
        rc = Verifier(rf, out, chunk_rows=7, key_budget=10).run()
    assert rc == 1
    assert "/boards/solutions rows 1, 90" in out.getvalue(), out.getvalue()


def test_verify_passes_spill_their_keys_and_clean_up(runs, tmp_path, monkeypatch):
    """With a tiny key budget the keys are spilled to one temporary file per pass, which are
    gone afterwards; a clean file passes, a duplicate across chunks is found."""
    import tempfile
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    out = io.StringIO()
    with ResultFile(runs["boards_all8"]) as rf:
        assert Verifier(rf, out, chunk_rows=5, key_budget=9).run() == 0, out.getvalue()
    assert "no duplicate boards among 92" in out.getvalue()
    assert list(spill.iterdir()) == []
    path = copy_file(runs["boards_class8"], tmp_path, "dup3.h5")
    with h5py.File(path, "r+") as f:
        f["/boards/solutions"][11] = f["/boards/solutions"][0]
    out = io.StringIO()
    with ResultFile(path) as rf:
        assert Verifier(rf, out, chunk_rows=4, key_budget=3).run() == 1
    assert "/boards/solutions rows 0, 11" in out.getvalue(), out.getvalue()
    assert list(spill.iterdir()) == []


def test_verify_non_canonical_and_class_size(runs, tmp_path):
    path = copy_file(runs["boards_class8"], tmp_path, "noncanon.h5")
    with h5py.File(path, "r+") as f:
        b = f["/boards/solutions"][0]
        f["/boards/solutions"][0] = (7 - b)            # the mirror: same class, not canonical
        cs = f["/boards/class_size"][...]
        f["/boards/class_size"][1] = 4 if cs[1] == 8 else 8
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/boards/solutions row 0 " in r.out and "is not canonical" in r.out, r
    assert "/boards/class_size row 1:" in r.out


@pytest.mark.parametrize("name", ["count10", "boards_all8"])
def test_verify_missing_unit(runs, tmp_path, name):
    path = copy_file(runs[name], tmp_path, "missing.h5")
    with h5py.File(path, "r") as f:
        row = len(f["/units/id"]) // 2
    uid = delete_unit_row(path, row)
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "unit ids are missing" in r.out, r
    assert f"missing ids {uid}" in r.out
    if name == "boards_all8":
        assert f"unit id {uid} is not in /units/id" in r.out or \
            "name a unit that is not in /units" in r.out or \
            _unit_had_no_boards(runs[name], uid)


def _unit_had_no_boards(path, uid):
    with h5py.File(path, "r") as f:
        return not (f["/boards/unit"][...] == uid).any()


def test_verify_total_attribute(runs, tmp_path):
    path = copy_file(runs["boards_class8"], tmp_path, "total.h5")
    with h5py.File(path, "r+") as f:
        f.attrs.modify("total", np.uint64(93))
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "root attribute total = 93" in r.out
    assert "published value 92" in r.out
    assert "Burnside identity broken" in r.out


@pytest.mark.parametrize("cut", ["half", "tail"])
def test_verify_truncated_file(runs, tmp_path, cut):
    path = copy_file(runs["boards_all8"], tmp_path, "trunc.h5")
    size = os.path.getsize(path)
    os.truncate(path, size // 2 if cut == "half" else size - 64)
    r = nq("verify", path)
    assert r.rc == 3, r
    assert "unreadable" in r.err and "trunc.h5" in r.err
    assert len(r.err.strip().splitlines()) == 1


def test_verify_corrupt_chunk_is_reported(tmp_path):
    """A flipped byte inside a checksummed /boards chunk: exit 3 naming dataset and rows."""
    path = str(tmp_path / "flip.h5")
    make_fixture.make_result(path, 8, "boards", "all")
    flip_stored_byte(path, "/boards/solutions")
    r = nq("verify", path)
    assert r.rc == 3, r
    assert "/boards/solutions" in r.err and "rows 0.." in r.err


def test_verify_not_nqueens_file(tmp_path):
    other = str(tmp_path / "other.h5")
    with h5py.File(other, "w") as f:
        f.attrs["format"] = "something-else"
    r = nq("verify", other)
    assert r.rc == 3 and "not an nqueens result file" in r.err, r
    text = tmp_path / "text.h5"
    text.write_text("hello")
    r = nq("verify", str(text))
    assert r.rc == 3 and "unreadable HDF5 file" in r.err, r
    r = nq("verify", str(tmp_path / "absent.h5"))
    assert r.rc == 3 and "no such file" in r.err, r


def test_verify_usage():
    r = nq("verify")
    assert r.rc == 2
    assert len(r.err.strip().splitlines()) == 1
    r = nq("verify", "--recount", "sometimes", "x.h5")
    assert r.rc == 2


@pytest.mark.parametrize("name", sorted(["sym_none_boards9", "sym_full_boards9",
                                          "sym_full_class8"]))
def test_verify_passes_other_symmetries(symmetry_runs, name):
    r = nq("verify", symmetry_runs[name])
    assert r.rc == 0, r
    assert "RESULT: PASS" in r.out


@pytest.mark.parametrize("kw", [
    dict(n=10, mode="count", partial=7),
    dict(n=9, mode="count", shard=(1, 3)),
    dict(n=7, mode="boards", boards="all", symmetry="none", depth=3),
    dict(n=9, mode="boards", boards="class", depth=3),
    dict(n=6, mode="boards", boards="class", depth=0),
    dict(n=1, mode="boards", boards="class"),
    dict(n=3, mode="count"),
    # odd n: the mirror scheme's middle-column rule
    dict(n=9, mode="count"),
    dict(n=9, mode="boards", boards="all"),
    # symmetry full (src/core/units.h), including the mirror fallback for n <= 3
    dict(n=4, mode="boards", boards="all", symmetry="full", depth=1),
    dict(n=3, mode="count", symmetry="full", depth=1),
    dict(n=1, mode="boards", boards="all", symmetry="full", depth=1),
    dict(n=8, mode="boards", boards="all", symmetry="full"),
    dict(n=8, mode="boards", boards="class", symmetry="full", depth=3),
    dict(n=9, mode="count", symmetry="full", depth=1, partial=20),
])
def test_verify_fixture_variants_pass(tmp_path, kw):
    """Unusual but valid files (partial, shard, no symmetry, full symmetry, depth 0, N = 1,
    N = 3)."""
    path = str(tmp_path / "variant.h5")
    make_fixture.make_result(path, **kw)
    r = nq("verify", path)
    assert r.rc == 0, r


def test_verify_wrapper_exit_codes(runs, tmp_path):
    assert nq_subprocess("verify", runs["boards_class8"]).rc == 0
    path = copy_file(runs["count10"], tmp_path, "bad.h5")
    with h5py.File(path, "r+") as f:
        f["/units/solutions"][0] += 3
    r = nq_subprocess("verify", path)
    assert r.rc == 1 and "RESULT: FAIL" in r.out, r
    r = nq_subprocess("verify", str(tmp_path / "none.h5"))
    assert r.rc == 3, r


def test_verify_full_symmetry_problems(tmp_path):
    path = str(tmp_path / "full.h5")
    make_fixture.make_result(path, 8, "boards", "all", symmetry="full")
    with h5py.File(path, "r+") as f:
        mult = f["/units/multiplicity"][...]
        row = int(np.nonzero(mult == 8)[0][0])
        f["/units/multiplicity"][row] = 4
        b = f["/boards/solutions"][0]
        f["/boards/solutions"][0] = f["/boards/solutions"][len(b) * 0 + 1]
        f["/boards/solutions"][1] = b
    r = nq("verify", path)
    assert r.rc == 1, r
    assert f"/units/multiplicity row {row} " in r.out and "distinct images" in r.out, r
    if "does not complete the pre-placement" not in r.out:
        # both boards came from the same unit: swapping them changes nothing per unit
        with h5py.File(path, "r") as f:
            assert f["/boards/unit"][0] == f["/boards/unit"][1]


def test_verify_placement_not_matching_board(tmp_path):
    path = str(tmp_path / "pl.h5")
    make_fixture.make_result(path, 9, "boards", "all")
    with h5py.File(path, "r+") as f:
        units = f["/boards/unit"][...]
        j = int(np.nonzero(units != units[0])[0][0])
        f["/boards/unit"][0] = units[j]
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/boards/solutions row 0 " in r.out and "does not complete the pre-placement" in r.out


def test_verify_full_symmetry_coverage_reported(symmetry_runs):
    """The binary's full-symmetry units: borders and their images cover every valid border."""
    r = nq("verify", symmetry_runs["sym_full_boards9"])
    assert r.rc == 0, r
    assert "valid borders exactly once" in r.out, r
    assert "symmetry 'full' is not in" not in r.out and "WARN" not in r.out, r


def _drop_unit_renumbered(path, row):
    """Delete /units row `row`, then renumber the ids 0..U-2 and fix units_total, units_done
    and total, so that only the coverage of the units is wrong."""
    delete_unit_row(path, row)
    with h5py.File(path, "r+") as f:
        U = len(f["/units/id"])
        f["/units/id"][...] = np.arange(U, dtype=np.uint64)
        total = int((f["/units/multiplicity"][...].astype(np.uint64)
                     * f["/units/solutions"][...]).sum())
        for name, value in (("units_total", U), ("units_done", U), ("total", total)):
            f.attrs.modify(name, np.uint64(value))


def test_verify_full_symmetry_missing_border(tmp_path):
    path = str(tmp_path / "full_d1.h5")
    make_fixture.make_result(path, 8, "count", symmetry="full", depth=1)
    _drop_unit_renumbered(path, 5)
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/units: complete" in r.out, r      # the ids alone look fine
    assert "classes of valid borders have no unit" in r.out, r
    assert "(and its images) has no unit" in r.out


def test_verify_full_symmetry_missing_filling(tmp_path):
    path = str(tmp_path / "full_d3.h5")
    make_fixture.make_result(path, 8, "count", symmetry="full", depth=3)
    with h5py.File(path, "r") as f:
        pl = f["/units/placement"][...]
    # a unit whose border has other units too
    first = [tuple(p[[0, 7]]) + (int(np.argmax(p == 0)), int(np.argmax(p == 7))) for p in pl]
    row = next(i for i in range(1, len(first)) if first[i] == first[i - 1])
    _drop_unit_renumbered(path, row)
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "borders do not have one unit per valid placement of their empty rows among " \
           "rows 1..2" in r.out, r


def test_verify_full_symmetry_duplicate_and_overlap(tmp_path):
    path = str(tmp_path / "full_dup.h5")
    make_fixture.make_result(path, 8, "count", symmetry="full", depth=1)
    with h5py.File(path, "r+") as f:
        pl = f["/units/placement"][...]
        mult = f["/units/multiplicity"][...]
        # row 1 := row 0 (a duplicate); row 3 := the 180-degree image of row 2's border
        pl[1] = pl[0]
        i = next(i for i in range(2, len(pl)) if mult[i] == 8)
        img = np.full(8, 255, dtype=np.uint8)
        for r_, c in enumerate(pl[i]):
            if c != 255:
                img[7 - r_] = 7 - c
        j = i + 1
        pl[j] = img
        f["/units/placement"][...] = pl
        f["/units/multiplicity"][j] = 8
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "full-symmetry units inconsistent" in r.out, r
    assert "covered more than once: rows 0, 1" in r.out, r
    assert f"units in rows {i} and {j}" in r.out and "are images of each other" in r.out, r


def test_verify_full_symmetry_not_a_border(tmp_path):
    path = str(tmp_path / "full_nb.h5")
    make_fixture.make_result(path, 8, "count", symmetry="full", depth=2)
    with h5py.File(path, "r+") as f:
        pl = f["/units/placement"][...]
        row = int(np.nonzero(pl[:, 7] != 0)[0][0])   # bottom queen not in the corner
        pl[row, 7] = 255
        f["/units/placement"][...] = pl
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "units are not a border" in r.out and f"row {row} (unit id {row})" in r.out, r


def test_verify_needs_units_placement(tmp_path):
    """A file without /units/placement (e.g. a pre-release /units/prefix) is a bad file."""
    path = str(tmp_path / "old.h5")
    make_fixture.make_result(path, 8, "boards", "all")
    with h5py.File(path, "r+") as f:
        pl = f["/units/placement"][...]
        del f["/units/placement"]
        f["units"].create_dataset("prefix", data=pl[:, :2])
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "/units datasets missing: /units/placement" in r.out, r
    for args in (["plot", path, "--out", tmp_path / "figs"],
                 ["export", path, "--csv", tmp_path / "csv"]):
        r = nq(*args)
        assert r.rc == 3, (args, r)
        assert "dataset /units/placement is missing" in r.err, r
        assert len(r.err.strip().splitlines()) == 1, r


def test_verify_several_files_exit_code(runs, tmp_path):
    """Several files: each gets its report; the exit code is the highest (3 > 1 > 0)."""
    bad = copy_file(runs["count10"], tmp_path, "bad.h5")
    with h5py.File(bad, "r+") as f:
        f["/units/solutions"][0] += 1
    good = runs["boards_class8"]
    r = nq("verify", good, good)
    assert r.rc == 0 and r.out.count("RESULT: PASS") == 2, r
    r = nq("verify", good, bad)
    assert r.rc == 1 and "RESULT: PASS" in r.out and "RESULT: FAIL" in r.out, r
    r = nq("verify", bad, str(tmp_path / "absent.h5"), good)
    assert r.rc == 3 and "RESULT: FAIL" in r.out and r.out.count("RESULT: PASS") == 1, r
    assert "no such file" in r.err and len(r.err.strip().splitlines()) == 1, r


def _verify_text(path, **kw):
    out = io.StringIO()
    with ResultFile(path) as rf:
        rc = Verifier(rf, out, **kw).run()
    return rc, out.getvalue()


@pytest.mark.parametrize("which", ["count10", "sym_none_boards9", "sym_mirror_count11"])
def test_verify_reads_units_in_chunks_and_finds_what_spans_them(runs, symmetry_runs, tmp_path,
                                                                which):
    """/units is read 7 rows at a time with the placements' keys spilled to files (a key budget
    of 10): defects that span chunks (a repeated id on both sides of a chunk's end, two ids out
    of order across one, a placement repeated 3 chunks later, a missing id) are found, and the
    report is the one of a single chunk, line for line."""
    src = runs.get(which) or symmetry_runs[which]
    path = copy_file(src, tmp_path, "spans.h5")
    with h5py.File(path, "r+") as f:
        ids = f["/units/id"][...]
        first = ids[:30].copy()
        ids[7] = ids[6]                      # rows 6 and 7: the end of chunk 0
        ids[13], ids[14] = ids[14], ids[13]  # rows 13 and 14: the end of chunk 1
        f["/units/id"][...] = ids
        f["/units/placement"][25] = f["/units/placement"][4]
    rc, whole = _verify_text(path, chunk_rows=1 << 20)
    rc7, chunked = _verify_text(path, chunk_rows=7, key_budget=10)
    assert (rc, rc7) == (1, 1), whole
    assert chunked == whole
    assert f"/units/id rows 6 and 7: id {int(first[6])} appears twice" in whole, whole
    assert f"/units/id row 14: id {int(first[13])} follows {int(first[14])} (not sorted)" in whole
    assert "unit ids are missing (/units has" in whole and f"missing ids {int(first[7])}" in whole
    assert "covered more than once: rows 4, 25" in whole or \
        "covered more than once: row 4, row 25" in whole, whole
    # unchanged, the file passes read 7 rows at a time as well
    rc, clean = _verify_text(src, chunk_rows=7, key_budget=10)
    assert rc == 0 and clean == _verify_text(src)[1], clean


@pytest.mark.parametrize("budget", [1 << 20, 1000, 3])
def test_repeated_keys_held_or_spilled_find_every_repeat(tmp_path, monkeypatch, budget):
    """RepeatedKeys in memory (one part), spilled to 20 parts, and spilled with a budget that
    would need 6,667 files, capped at MAX_PARTS: the same repeats, and no file left."""
    import tempfile
    from nqanalysis.repeats import RepeatedKeys
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    keys = np.random.default_rng(7).integers(0, 15000, 20000).astype(np.uint64)
    values, counts = np.unique(keys, return_counts=True)
    rk = RepeatedKeys(len(keys), budget)
    assert rk.parts == min(RepeatedKeys.MAX_PARTS, -(-len(keys) // budget))
    for s in range(0, len(keys), 777):
        rk.add(keys[s:s + 777])
    extra, distinct, found = rk.repeated(limit=50)
    assert extra == int((counts - 1).sum()) and distinct == int((counts > 1).sum())
    assert found.tolist() == values[counts > 1][:50].tolist()
    assert list(tmp_path.iterdir()) == []


def test_a_table_without_the_files_n_is_named_as_such(runs, tmp_path):
    """The file's known_total/known_unique against a table that lacks its N: the message showed
    the table's internal placeholder ('the published table says -1')."""
    table = tmp_path / "t.tsv"
    table.write_text("n total unique rot90_fixed rot180_fixed\n8 92 12 0 4\n")
    r = nq("verify", runs["count10"], "--known", table)
    assert "root attribute known_total = 724, but the published table has no n = 10" in r.out, r.out
    assert "says -1" not in r.out, r.out
