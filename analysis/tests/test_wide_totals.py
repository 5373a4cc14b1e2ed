"""Counts past 2^64 (format version 2: the uint64 attribute, its _hi/_lo halves and _decimal
text) and version 1 files (uint64 only): ResultFile.count, summary and verify read them exactly.
The files come from the real binary and are then widened with h5py."""

import h5py
import numpy as np

from conftest import copy_file, nq
from nqanalysis.resultfile import DOES_NOT_FIT, ResultFile, count_attrs

TWO64 = 2 ** 64


def widen(path):
    """Adds 2^63 completions to a unit of multiplicity 2: the total grows by exactly 2^64 and
    Burnside's identity still holds (unique grows by 2^61). Returns (total, unique)."""
    with h5py.File(path, "r+") as f:
        m = f["/units/multiplicity"][...]
        row = int(np.nonzero(m == 2)[0][0])
        sol = f["/units/solutions"][...]
        sol[row] += np.uint64(2 ** 63)
        f["/units/solutions"][...] = sol
        total = sum(int(a) * int(b) for a, b in zip(m.tolist(), sol.tolist()))
        unique = int(f.attrs["unique"]) + 2 ** 61
        for name, value in {**count_attrs("total", total), **count_attrs("unique", unique)}.items():
            f.attrs[name] = value
    return total, unique


def test_a_total_just_above_2_to_64_is_read_exactly(runs, tmp_path):
    path = copy_file(runs["count10"], tmp_path, "wide.h5")
    total, unique = widen(path)
    assert TWO64 < total < TWO64 + 10 ** 6
    with h5py.File(path, "r") as f:   # what a plain h5py reader sees
        a = f.attrs
        assert int(a["total"]) == DOES_NOT_FIT and int(a["total_hi"]) == 1
        assert int(a["total_lo"]) == total - TWO64 and a["total_decimal"].decode() == str(total)
        assert int(a["format_version"]) == 2
    with ResultFile(path) as rf:
        assert rf.count("total") == total and rf.count("unique") == unique
        assert rf.count_problem("total") is None


def test_summary_and_verify_use_the_exact_total(runs, tmp_path):
    path = copy_file(runs["count10"], tmp_path, "wide.h5")
    total, unique = widen(path)
    r = nq("summary", path)
    assert r.rc == 0, r
    assert f"{total:,}" in r.out and f"{unique:,}" in r.out
    r = nq("verify", path)
    assert f"total = {total} equals sum(multiplicity*solutions) over /units" in r.out, r
    assert f"= {total + 12 + 0} = 8*unique" in r.out, r   # P = 12, R = 0 for n = 10
    assert "root attribute values are in range" in r.out
    # the one failure: N = 10 is published, and this is not its count
    assert r.rc == 1 and "values differ from the published table for n = 10" in r.out, r
    assert "128-bit" not in r.out


def test_verify_fails_on_count_attributes_that_disagree(runs, tmp_path):
    path = copy_file(runs["count10"], tmp_path, "bad.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["total_lo"] = np.uint64(int(f.attrs["total_lo"]) + 1)
    r = nq("verify", path)
    assert r.rc == 1, r
    assert "the 128-bit count total: total_decimal = '724' but total_hi/_lo give 725" in r.out, r


def test_a_version_1_file_is_read_from_its_uint64_counts(runs, tmp_path):
    path = copy_file(runs["count10"], tmp_path, "v1.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["format_version"] = np.int32(1)
        for name in ("total", "unique"):
            for part in ("_hi", "_lo", "_decimal"):
                del f.attrs[name + part]
    with ResultFile(path) as rf:
        assert rf.count("total") == 724 and rf.count("unique") == 92
    r = nq("verify", path)
    assert r.rc == 0 and "RESULT: PASS" in r.out, r
