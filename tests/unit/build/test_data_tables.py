"""The C++ tables made at configure time from the data files (cmake/DataTables.cmake).

The real data/known-counts.tsv and bench/sampled-nodes.txt give one row per line meant as a row.
A copy with one bad line added (a sampled line of a mirror plan, which bench/estimates.py
refuses; a vector line without its nodes; a count that is not a number) is a configure error
that names the line, not a row silently left out. The build that runs this test lists both files
among its configure dependencies, so that an edit to either configures it again.
Environment (set by tests/unit/CMakeLists.txt): NQ_SOURCE_DIR, NQ_BINARY_DIR, NQ_CMAKE."""
import os
import subprocess
from pathlib import Path

import pytest

SRC = Path(os.environ["NQ_SOURCE_DIR"])
BUILD = Path(os.environ["NQ_BINARY_DIR"])
CMAKE = os.environ.get("NQ_CMAKE", "cmake")
SCRIPT = Path(__file__).with_name("print_table.cmake")
KNOWN = SRC / "data/known-counts.tsv"
SAMPLED = SRC / "bench/sampled-nodes.txt"


def table(kind, path):
    return subprocess.run([CMAKE, f"-DTABLE={kind}", f"-DFILE={path}", "-P", str(SCRIPT)],
                          capture_output=True, text=True, timeout=60)


def rows(kind, path):
    p = table(kind, path)
    assert p.returncode == 0, p.stderr
    return [r.strip() for r in p.stderr.splitlines() if r.strip()]


def test_known_counts_every_row():
    lines = [l for l in KNOWN.read_text().splitlines() if l[:1].isdigit()]
    got = rows("known", KNOWN)
    assert len(got) == len(lines) >= 27
    n, total, unique, r90, r180 = lines[8 - 1].split("\t")   # N = 8
    assert got[8 - 1] == f"{{{n}, {total}ULL, {unique}ULL, {r90}ULL, {r180}ULL}},"
    assert got[8 - 1] == "{8, 92ULL, 12ULL, 0ULL, 4ULL},"


def test_sampled_nodes_every_vector_line():
    lines = [l.split() for l in SAMPLED.read_text().splitlines() if l.startswith("estimate ")]
    vector = [w for w in lines if w[2] == "vector"]
    got = rows("sampled", SAMPLED)
    assert len(vector) >= 9 and len(got) == len(vector)
    for w, r in zip(vector, got):   # {n, depth, units, nodes, nodes_rel_se}
        assert r == f"{{{w[1]}, {w[7]}, {w[5]}ULL, {w[8]}, {w[9]}}},"


def with_line(tmp_path, src, line):
    p = tmp_path / src.name
    p.write_text(src.read_text() + line + "\n")
    return p


@pytest.mark.parametrize("line", [
    "estimate 18 vector 10.7 0.14 5728 40 1 8.069e+09 0.107 666090624 0.05 mirror",   # another plan
    "estimate 18 vector 10.7 0.14",                                                   # no nodes
    "estimate 18 vector 10.7 0.14 5728 40 1 lots 0.107",                              # not a number
])
def test_sampled_bad_line_is_an_error(tmp_path, line):
    p = table("sampled", with_line(tmp_path, SAMPLED, line))
    assert p.returncode != 0
    assert line in p.stderr and "of a full plan" in p.stderr, p.stderr


def test_sampled_full_and_other_engines_accepted(tmp_path):
    good = "estimate 18 vector 10.7 0.14 5728 40 1 8.069e+09 0.107 666090624 0.05 full"
    path = with_line(tmp_path, SAMPLED, good + "\nestimate 18 peer 5.0 0.1 50 6 0 0 0")
    assert rows("sampled", path)[-1] == "{18, 1, 5728ULL, 8.069e+09, 0.107},"


def test_known_bad_row_is_an_error(tmp_path):
    line = "28\t4.9e18\t1\t0\t0"
    p = table("known", with_line(tmp_path, KNOWN, line))
    assert p.returncode != 0
    assert line in p.stderr and "all whole numbers" in p.stderr, p.stderr


def test_an_edit_to_either_file_configures_again():
    # Where the generator keeps the files whose change reruns CMake: Ninja's build.ninja, the
    # Makefile generator's CMakeFiles/Makefile.cmake.
    deps = [f for f in (BUILD / "build.ninja", BUILD / "CMakeFiles/Makefile.cmake") if f.exists()]
    assert deps, f"no build.ninja or CMakeFiles/Makefile.cmake in {BUILD}"
    text = deps[0].read_text()
    for data in (KNOWN, SAMPLED):
        assert str(data) in text, f"{data} is not a configure dependency of {BUILD}"
