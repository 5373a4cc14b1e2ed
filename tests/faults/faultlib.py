"""Helpers of the faults tier: the seed, the tally of injected faults, sizes for this build,
interrupting a running job, and watching the restart journal (its file format is read and
written by tests/support/nqtest.py)."""
import hashlib
import os
import random
import signal
import struct
import time
from collections import Counter
from pathlib import Path

import h5py

from nqtest import EXIT, Journal, journal_of, kill_group, pid_of_rank, start  # noqa: F401  (re-exported)
from nqtest import _records, _records_start

# Seeded randomness: NQUEENS_FAULTS_SEED=<int> repeats a run's random moments and inputs.
SEED = int(os.environ.get("NQUEENS_FAULTS_SEED", random.SystemRandom().randrange(1, 2**31)))
print(f"faults tier seed: {SEED} (NQUEENS_FAULTS_SEED={SEED} repeats it)")


def rng_for(name):
    r = random.Random(f"{SEED}:{name}")
    print(f"seed {SEED} for {name}")
    return r


# ASan+UBSan builds are several times slower: smaller boards there (CMake sets this).
SANITIZED = os.environ.get("NQUEENS_FAULTS_SANITIZED") == "1"
# Count-mode chains strike at moments of progress (JournalWatch), which needs a job of a few
# seconds: N = 18 unless the kernel got so fast that it is shorter (test_interrupt then moves up).
COUNT_N_PINNED = "NQUEENS_FAULTS_COUNT_N" in os.environ
COUNT_N = int(os.environ.get("NQUEENS_FAULTS_COUNT_N", 18))
MIN_CHAIN_SECONDS = 4
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


def wait_until(cond, timeout, proc=None, step=0.01):
    """Polls cond() until true (returns True) or timeout / the process ended (returns False)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        if proc is not None and proc.poll() is not None:
            return cond()
        time.sleep(step)
    return False


def interrupt(args, rank, sig, delay=0.0, ranks=3, extra_env=None, timeout=300, after=None):
    """Starts the job, waits until after() is true (if given), then `delay` more seconds, and
    sends `sig` to `rank` (ranks=None: one plain process, no mpirun). Returns (returncode,
    stdout, stderr, fired): fired is False when the job ended before the moment."""
    proc = start(args, ranks=ranks, extra_env=extra_env)
    try:
        pid = pid_of_rank(proc, rank) if ranks else proc.pid
        fired = after is None or wait_until(after, timeout, proc, step=0.005)
        fired = fired and proc.poll() is None and not wait_until(lambda: proc.poll() is not None, delay)
        if fired:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                fired = False
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        kill_group(proc)
        raise
    assert not _alive(pid), f"rank {rank} (pid {pid}) still runs after mpirun ended"
    return proc.returncode, out, err, fired


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


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


class JournalWatch:
    """The distinct units a running job's journal holds, read incrementally (cheap enough to poll
    every few ms). The moments of the faults tier are defined by this progress, not by seconds:
    the same seed means the same moments on a fast or a slow, busy machine."""

    def __init__(self, out):
        self.path = journal_of(out)
        self.offset = None
        self.ids = set()

    def units(self):
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return 0
        if self.offset is None:
            self.offset = _records_start(data)
            if self.offset is None:
                return 0
        for off, _, end in _records(data, self.offset):
            self.ids.add(struct.unpack_from("<Q", data, off + 8)[0])
            self.offset = end
        return len(self.ids)

    def reaches(self, target):
        """A condition for wait_until/interrupt: the journal holds >= target distinct units."""
        return lambda: self.units() >= target


# The journal is synced every CHECKPOINT seconds in this tier (default 2 s), so progress shows.
CHECKPOINT = 0.05


def stopped_job(args, out, min_units=10):
    """Runs the job `args` (writing OUT) as one process with one thread and stops it with SIGTERM
    once its journal holds `min_units` units: OUT is a partial result file and OUT.journal holds
    the finished units (exit 75). Rerunning `args` resumes it."""
    args = list(args) + ["--threads", 1, "--checkpoint-interval", CHECKPOINT]
    code, _, err, hit = interrupt(args, 0, signal.SIGTERM, ranks=None, after=JournalWatch(out).reaches(min_units))
    assert hit and code == EXIT["interrupted"], err
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
