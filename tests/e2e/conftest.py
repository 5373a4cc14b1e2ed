"""Shared helpers for the end-to-end tests: the real `nqueens` binary, run plainly or under
mpirun with several ranks, on real HDF5 files read with h5py."""
import csv
import os
import signal
import subprocess
import time
from pathlib import Path

import h5py
import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("NQUEENS_BIN", str(ROOT / "build/release/src/app/nqueens"))
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl": "self,vader",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_oob_tcp_if_include": "lo",
    "OMPI_MCA_hwloc_base_binding_policy": "none",
}
EXIT = {"ok": 0, "internal": 1, "usage": 2, "bad_input": 3, "io": 4, "refused": 5, "verify": 6,
        "interrupted": 75}


def known_counts():
    with open(ROOT / "data/known-counts.tsv") as f:
        return {int(r["n"]): {k: int(v) for k, v in r.items()} for r in csv.DictReader(f, delimiter="\t")}


KNOWN = known_counts()


def env(extra=None):
    e = dict(os.environ, **MPI_ENV)
    e.update(extra or {})
    return e


def command(args, ranks=None):
    base = [BIN] + [str(a) for a in args]
    return ["mpirun", "-n", str(ranks)] + base if ranks else base


def run(args, ranks=None, timeout=300, extra_env=None, check=None):
    """Runs nqueens (under mpirun with `ranks`, or plainly) and returns the CompletedProcess."""
    p = subprocess.run(command(args, ranks), env=env(extra_env), capture_output=True, text=True,
                       timeout=timeout)
    if check is not None:
        assert p.returncode == check, f"exit {p.returncode}, expected {check}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def start(args, ranks=None, extra_env=None):
    """Starts nqueens in its own process group (so a test can signal or kill it)."""
    return subprocess.Popen(command(args, ranks), env=env(extra_env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_journal_records(journal: Path, min_bytes: int, proc, timeout=120):
    """Waits until the journal has grown past `min_bytes` (units are being finished)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if journal.exists() and journal.stat().st_size > min_bytes:
            return
        if proc.poll() is not None:
            raise AssertionError(f"nqueens ended early ({proc.returncode}): {proc.stderr.read()}")
        time.sleep(0.05)
    raise AssertionError("journal did not grow")


def rank_pids(proc):
    """PIDs of the nqueens ranks that `proc` (mpirun) started: its child processes."""
    out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
    return sorted(int(p) for p in out.split())


def attrs(path):
    with h5py.File(path, "r") as f:
        return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}


def units_table(path):
    with h5py.File(path, "r") as f:
        g = f["units"]
        return {name: g[name][()] for name in g}


def board_set(path):
    with h5py.File(path, "r") as f:
        return {bytes(row) for row in f["boards/solutions"][()]}


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


def pytest_sessionstart(session):
    assert Path(BIN).exists(), f"nqueens binary not found at {BIN}: build it first (scripts/build.sh)"
