"""Helpers of the faults tier: the seed, the tally of injected faults, sizes for this build and
interrupting a running job at a moment of its progress (the journal's file format is read and
written by tests/support/nqtest.py, which also holds the one progress watch, wait_until)."""
import hashlib
import os
import random
import signal
from collections import Counter
from pathlib import Path

import h5py

from nqtest import (EXIT, Journal, StderrLines, alive, attrs, fault_env, journal_of, kill_group, pid_of_rank,  # noqa: F401
                    start, stop_after, wait_until, when_stopped)

# Seeded randomness: NQUEENS_FAULTS_SEED=<int> repeats a run's random moments and inputs.
SEED = int(os.environ.get("NQUEENS_FAULTS_SEED", random.SystemRandom().randrange(1, 2**31)))
print(f"faults tier seed: {SEED} (NQUEENS_FAULTS_SEED={SEED} repeats it)")


def rng_for(name):
    r = random.Random(f"{SEED}:{name}")
    print(f"seed {SEED} for {name}")
    return r


# ASan+UBSan builds are several times slower: smaller boards there (CMake sets this).
SANITIZED = os.environ.get("NQUEENS_FAULTS_SANITIZED") == "1"
# Count-mode chains strike at moments of progress (the master stops itself at a journaled unit
# count), so any size with enough units to spread the moments over will do.
COUNT_N = int(os.environ.get("NQUEENS_FAULTS_COUNT_N", 16 if SANITIZED else 17))
BOARDS_N = int(os.environ.get("NQUEENS_FAULTS_BOARDS_N", 14 if SANITIZED else 15))

_tally = Counter()


def injected(kind, n=1):
    """Counts an injected fault for the end-of-session summary."""
    _tally[kind] += n


def summary():
    lines = [f"faults tier seed {SEED}; injected faults by kind:"]
    lines += [f"  {n:5d}  {kind}" for kind, n in sorted(_tally.items())]
    return "\n".join(lines)


def temp_files(out):
    out = Path(out)
    return sorted(out.parent.glob(out.name + ".tmp-*"))


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def readable_result(path):
    """The attributes of `path` read with h5py, and its unit table read in full (fletcher32 checked)."""
    with h5py.File(path, "r") as f:
        a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        assert a["format"] == "nqueens-result"
        assert len(f["units/id"][()]) == a["units_done"]
        if "boards" in f:
            f["boards/solutions"][()]
    return a


def signals_caught(pid):
    """The signals process `pid` has handlers for (the SigCgt mask of /proc/PID/status)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                mask = int(line.split()[1], 16)
                return {s for s in range(1, 65) if mask >> (s - 1) & 1}
    except OSError:
        pass
    return set()


def interrupt(args, rank, sig, at, ranks=3, extra_env=None, timeout=300):
    """Starts the job with its master set to stop itself once its journal holds `at` units
    (stop-after, synced), sends `sig` to `rank` (or to "mpirun" itself) while the master is held
    there and continues it (ranks=None: one plain process, no mpirun). at=None: during start-up
    instead, as soon as the master catches stop signals (it is stopped, signalled and continued).
    Returns (returncode, stdout, stderr) once every rank has ended; the moment is certain to come,
    on any machine."""
    env = dict(extra_env or {}, **(fault_env(stop_after(at)) if at is not None else {}))
    proc = start(args, ranks=ranks, extra_env=env)
    try:
        ranks_pids = [pid_of_rank(proc, r) for r in range(ranks)] if ranks else [proc.pid]
        master = ranks_pids[0]
        pid = proc.pid if rank == "mpirun" else ranks_pids[rank]
        if at is None:
            wait_until(lambda: signal.SIGTERM in signals_caught(master), "the master's signal handlers", timeout, proc,
                       step=0.001)
            os.kill(master, signal.SIGSTOP)
        when_stopped(proc, master, lambda: os.kill(pid, sig), timeout)
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        kill_group(proc)
        raise
    assert_no_rank_left(ranks_pids)
    return proc.returncode, out, err


def assert_no_rank_left(pids, grace=5):
    """Every rank is gone at most `grace` seconds after mpirun returned: it kills them as it exits,
    and a rank may take a moment to die (an ASan build's exit, with its shadow memory, is seen to
    outlast mpirun's)."""
    wait_until(lambda: not any(alive(p) for p in pids),
               lambda: f"end of rank(s) {[r for r, p in enumerate(pids) if alive(p)]} within {grace} s of mpirun's",
               grace, step=0.05)


def stop_a_job_of_long_units(out, ranks, before_stop, extra_env=None, threads=1):
    """Runs N = 27 with 2 pre-placed rows (units of hours each) in one process (ranks None) or
    under mpirun, `threads` compute threads a rank, calls before_stop(proc, pids) once the units
    are handed out, then sends SIGTERM to the master. Checks that the job stopped as the
    scheduler's warning asks: exit 75, a partial file with no unit done, no rank left. Returns
    its stderr."""
    proc = start(["run", "--n", 27, "--depth", 2, "--threads", threads, "--out", out, "--progress-interval", 1],
                 ranks=ranks, extra_env=extra_env)
    lines = StderrLines(proc)
    try:
        pids = [proc.pid] if ranks is None else [pid_of_rank(proc, r) for r in range(ranks)]
        lines.wait_for("[run]")   # the units are handed out
        before_stop(proc, pids)
        os.kill(pids[0], signal.SIGTERM)
        proc.wait(timeout=60)
    except BaseException:
        kill_group(proc)
        raise
    err = lines.close()
    assert proc.returncode == EXIT["interrupted"], err
    assert "stopped by signal 15: 0 of" in err, err
    assert attrs(out)["status"] == "partial" and attrs(out)["units_done"] == 0
    if ranks:
        assert_no_rank_left(pids)
    return err


def assert_clean_error(p, codes, needle=None, max_lines=2):
    """A documented exit code, no crash, no 'internal error', stderr of one or two lines."""
    assert p.returncode in codes, f"exit {p.returncode} not in {codes}\nstderr:\n{p.stderr}"
    assert p.returncode >= 0, f"killed by signal {-p.returncode}"
    assert "internal error" not in p.stderr and "Sanitizer" not in p.stderr, p.stderr
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        assert 1 <= len(lines) <= max_lines, f"{len(lines)} stderr lines:\n{p.stderr}"
        assert lines[0].startswith("nqueens: error:"), p.stderr
        if needle is not None:
            assert needle in p.stderr, f"{needle!r} not in:\n{p.stderr}"


# The journal is synced every CHECKPOINT seconds in this tier (default 2 s), so progress shows.
CHECKPOINT = 0.05


def stopped_job(args, out, min_units=10):
    """Runs the job `args` (writing OUT) as one process with one thread and stops it with SIGTERM
    once its journal holds `min_units` units: OUT is a partial result file and OUT.journal holds
    the finished units (exit 75). Rerunning `args` resumes it."""
    args = list(args) + ["--threads", 1, "--checkpoint-interval", CHECKPOINT]
    code, _, err = interrupt(args, 0, signal.SIGTERM, min_units, ranks=None)
    assert code == EXIT["interrupted"], err
    j = Journal(journal_of(out))
    assert len(j.records) >= min_units and j.valid_end == len(j.data), "the journal is not as expected"
    return j


M64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def in_audit_sample(unit_id, fraction=1 / 64):
    """The documented audit sample (src/cluster/scheduler.h): splitmix64(id) < fraction * 2^64."""
    return fraction >= 1 or splitmix64(unit_id) < int(fraction * 2**64)
