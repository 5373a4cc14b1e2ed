"""Shared fixtures: result files written by the real nqueens binary (primary) and helpers.

NQUEENS_BIN selects the binary (default /work/main/build/release/src/app/nqueens).  A missing
binary, or one without `run`, makes the tests FAIL, not skip.  For development only,
NQANALYSIS_FIXTURES=python writes the same files with tests/make_fixture.py instead.
"""

import io
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from nqanalysis.cli import main as cli_main   # found through pytest's pythonpath (analysis/pyproject.toml)
import make_fixture

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.dirname(HERE)
REPO = os.path.dirname(ANALYSIS)

DEFAULT_BIN = os.path.join(REPO, "build", "release", "src", "app", "nqueens")
NQANALYZE = os.path.join(ANALYSIS, "nqanalyze")

# name -> (n, mode, boards, threads)
RUNS = {
    "count10": (10, "count", None, 2),
    "boards_all8": (8, "boards", "all", 2),
    "boards_class8": (8, "boards", "class", 2),
}
SCALING_RUNS = {f"scale_n{n}_t{t}": (n, "count", None, t) for n in (8, 9) for t in (1, 2)}
# name -> (n, mode, boards, threads, symmetry)
SYMMETRY_RUNS = {
    "sym_none_boards9": (9, "boards", "all", 2, "none"),
    "sym_full_boards9": (9, "boards", "all", 2, "full"),
    "sym_full_class8": (8, "boards", "class", 2, "full"),
    "sym_mirror_count11": (11, "count", None, 2, "mirror"),
}


def _use_python_fixtures():
    return os.environ.get("NQANALYSIS_FIXTURES", "") == "python"


def _binary():
    return os.environ.get("NQUEENS_BIN", DEFAULT_BIN)


def _bin_env():
    env = dict(os.environ)
    # a single-process MPI run as root in containers
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def _make(path, n, mode, boards, threads, symmetry=None):
    if _use_python_fixtures():
        make_fixture.make_result(path, n, mode, boards or "all", threads=threads,
                                 symmetry=symmetry or "mirror")
        return
    binary = _binary()
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.fail(f"nqueens binary not found: {binary} (build it, or set NQUEENS_BIN)")
    cmd = [binary, "run", "--n", str(n), "--mode", mode, "--threads", str(threads),
           "--out", path]
    if boards:
        cmd += ["--boards", boards]
    if symmetry:
        cmd += ["--symmetry", symmetry]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120, env=_bin_env(), cwd=os.path.dirname(path))
    if proc.returncode != 0 or not os.path.isfile(path):
        pytest.fail(f"{' '.join(cmd)} failed with exit code {proc.returncode}:\n"
                    f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """dict name -> path of the three primary result files (count N=10, boards all N=8,
    boards class N=8)."""
    d = tmp_path_factory.mktemp("runs")
    out = {}
    for name, (n, mode, boards, threads) in RUNS.items():
        path = str(d / f"{name}.h5")
        _make(path, n, mode, boards, threads)
        out[name] = path
    return out


@pytest.fixture(scope="session")
def scaling_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("scaling")
    out = {}
    for name, (n, mode, boards, threads) in SCALING_RUNS.items():
        path = str(d / f"{name}.h5")
        _make(path, n, mode, boards, threads)
        out[name] = path
    return out


@pytest.fixture(scope="session")
def symmetry_runs(tmp_path_factory):
    """Runs with --symmetry none and --symmetry full (the binary's other unit reductions)."""
    d = tmp_path_factory.mktemp("symmetry")
    out = {}
    for name, (n, mode, boards, threads, sym) in SYMMETRY_RUNS.items():
        path = str(d / f"{name}.h5")
        _make(path, n, mode, boards, threads, sym)
        out[name] = path
    return out


class Result:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    @property
    def text(self):
        return self.out + self.err

    def __repr__(self):
        return f"Result(rc={self.rc})\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def nq(*args):
    """Run nqanalyze in-process; returns Result(rc, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    rc = cli_main([str(a) for a in args], out=out, err=err)
    return Result(rc, out.getvalue(), err.getvalue())


def nq_subprocess(*args):
    proc = subprocess.run([NQANALYZE] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def copy_file(src, dst_dir, name):
    dst = os.path.join(str(dst_dir), name)
    shutil.copyfile(src, dst)
    return dst


def flip_stored_byte(path, dataset, at=5):
    """Inverts byte `at` of `dataset`'s first chunk as stored in the file at `path` (its
    checksum then fails when the chunk is read)."""
    with h5py.File(path, "r") as f:
        off = f[dataset].id.get_chunk_info(0).byte_offset
    with open(path, "r+b") as fh:
        fh.seek(off + at)
        byte = fh.read(1)
        fh.seek(off + at)
        fh.write(bytes([byte[0] ^ 0xFF]))


def delete_unit_row(path, row):
    """Remove one row from every /units dataset by rewriting the datasets.
    Returns the id of the removed unit."""
    with h5py.File(path, "r+") as f:
        g = f["units"]
        uid = int(g["id"][row])
        for name in list(g.keys()):
            data = g[name][...]
            dtype = g[name].dtype
            del g[name]
            g.create_dataset(name, data=np.delete(data, row, axis=0), dtype=dtype)
    return uid
