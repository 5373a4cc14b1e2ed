"""Helpers shared by the pytest tiers (tests/e2e, tests/faults): the real `nqueens` binary, run
plainly or under mpirun with several ranks, on real HDF5 files read with h5py. One copy of each
helper: tests/e2e/conftest.py and tests/faults/conftest.py re-export this module."""
import csv
import os
import re
import subprocess
import time
from pathlib import Path

import h5py
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("NQUEENS_BIN", str(ROOT / "build/release/src/app/nqueens"))
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl": "self,vader",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_oob_tcp_if_include": "lo",
    "OMPI_MCA_hwloc_base_binding_policy": "none",
}
# An ASan+UBSan build: Open MPI's own allocations would be reported as leaks at exit, so runs
# that start MPI (`run`) do not check leaks; `info`, `merge`, `count`, `solve` still do.
MPI_ASAN_OPTIONS = os.environ.get("NQUEENS_MPI_ASAN_OPTIONS", "detect_leaks=0")
EXIT = {"ok": 0, "internal": 1, "usage": 2, "bad_input": 3, "io": 4, "refused": 5, "verify": 6,
        "rank_failed": 7, "interrupted": 75}


def known_counts():
    with open(ROOT / "data/known-counts.tsv") as f:
        return {int(r["n"]): {k: int(v) for k, v in r.items()} for r in csv.DictReader(f, delimiter="\t")}


KNOWN = known_counts()


def env(extra=None, mpi=True):
    e = dict(os.environ, **MPI_ENV)
    if mpi:
        e["ASAN_OPTIONS"] = MPI_ASAN_OPTIONS
    e.update(extra or {})
    return e


def uses_mpi(args, ranks):
    return bool(ranks) or (bool(args) and str(args[0]) == "run")


def command(args, ranks=None):
    base = [BIN] + [str(a) for a in args]
    return ["mpirun", "-n", str(ranks)] + base if ranks else base


def run(args, ranks=None, timeout=300, extra_env=None, check=None, cwd=None):
    """Runs nqueens (under mpirun with `ranks`, or plainly) and returns the CompletedProcess."""
    p = subprocess.run(command(args, ranks), env=env(extra_env, uses_mpi(args, ranks)), capture_output=True,
                       text=True, timeout=timeout, cwd=cwd)
    if check is not None:
        assert p.returncode == check, f"exit {p.returncode}, expected {check}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def start(args, ranks=None, extra_env=None):
    """Starts nqueens in its own process group (so a test can signal or kill it)."""
    return subprocess.Popen(command(args, ranks), env=env(extra_env, uses_mpi(args, ranks)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_journal_records(journal: Path, min_bytes: int, proc, timeout=120, step=0.05):
    """Waits until the journal has grown past `min_bytes` (units are being finished), looking
    every `step` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if journal.exists() and journal.stat().st_size > min_bytes:
            return
        if proc.poll() is not None:
            raise AssertionError(f"nqueens ended early ({proc.returncode}): {proc.stderr.read()}")
        time.sleep(step)
    raise AssertionError("journal did not grow")


def rank_pids(proc):
    """PIDs of the nqueens ranks that `proc` (mpirun) started: its child processes."""
    out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
    return sorted(int(p) for p in out.split())


def rank_of(pid):
    """The MPI rank of process `pid` (from its environment), None if it is gone or not a rank."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    for kv in environ:
        if kv.startswith(b"OMPI_COMM_WORLD_RANK="):
            return int(kv.split(b"=")[1])
    return None


def pid_of_rank(proc, rank, timeout=30):
    """Waits until mpirun (`proc`) has started `rank` and returns its PID."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for pid in rank_pids(proc):
            if rank_of(pid) == rank:
                return pid
        if proc.poll() is not None:
            raise AssertionError(f"mpirun ended ({proc.returncode}) before rank {rank} was found")
        time.sleep(0.02)
    raise AssertionError(f"rank {rank} not found")


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


def assert_same_result(a, b):
    """Two result files hold the same job result: totals, status and the unit table (the columns
    that do not depend on who computed a unit, or when)."""
    aa, ab = attrs(a), attrs(b)
    for k in ("n", "total", "unique", "units_total", "units_done", "status", "matches_known"):
        assert aa[k] == ab[k], k
    ua, ub = units_table(a), units_table(b)
    for k in ("id", "placement", "multiplicity", "solutions", "nodes"):
        assert np.array_equal(ua[k], ub[k]), k


def resumed_units(stderr):
    """How many units a run found already done in its journal (0 when it did not resume)."""
    m = re.search(r"resuming from \S+: (\d+) of (\d+) units already done", stderr)
    return int(m.group(1)) if m else 0
