"""Helpers shared by the pytest tiers (tests/e2e, tests/faults): the real `nqueens` binary, run
plainly or under mpirun with several ranks, on real HDF5 files read with h5py. One copy of each
helper: tests/e2e/conftest.py and tests/faults/conftest.py re-export this module."""
import csv
import os
import re
import signal
import struct
import subprocess
import threading
import time
import zlib
from pathlib import Path

import h5py
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
from nqanalysis.resultfile import count_attrs  # (the schema's one description of a count)
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


def needs(stdout):
    """The lines of `run --dry-run`, by their first word (plan, master, merge, disk, output)."""
    return {line.split(None, 1)[0]: line.split(None, 1)[1] for line in stdout.splitlines()}


def cgroup_memory_limit():
    """The smallest memory limit of this process's memory cgroup and its parents (v2 memory.max,
    v1 memory.limit_in_bytes), in bytes; None when there is none. Read here independently of
    nqueens (app::memory_limit), for tests whose message depends on the master's 16 GiB cap
    applying, i.e. on no cgroup limit under 16 GiB / 0.75 = 21.3 GiB."""
    limits = []
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers in ("", "memory") or "memory" in controllers.split(","):
            root = Path("/sys/fs/cgroup") / ("memory" if controllers else "")
            name = "memory.limit_in_bytes" if controllers else "memory.max"
            group = root / path.lstrip("/")
            for d in [group, *group.parents]:
                f = d / name
                if f.is_file() and f.read_text().strip().isdigit():
                    limits.append(int(f.read_text()))
                if d == root:
                    break
    return min(limits) if limits else None


MASTER_CAP = 16 * 2 ** 30
# The master's tables may take 3/4 of the memory the process may use, and at most 16 GiB.
CAP_APPLIES = (cgroup_memory_limit() or 2 ** 63) * 0.75 >= MASTER_CAP
needs_the_16_gib_cap = pytest.mark.skipif(
    not CAP_APPLIES, reason="this machine's memory cgroup allows less than 21.3 GiB: the master's limit is 3/4 of it, "
                            "not the 16 GiB cap this test's plan is sized for")


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
    return bool(ranks) or (bool(args) and str(args[0]) in ("run", "check"))


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


def kill_group(proc):
    """Ends whatever is left of a job started with start() (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate(timeout=60)


class StderrLines:
    """Reads a started process's stderr line by line on a thread, so a test can wait for a line
    (a phase the binary announces) and still get the whole text at the end."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.lines.append(None)   # end of the stream
            self.cond.notify_all()

    def wait_for(self, needle, timeout=120):
        """Waits until a line contains `needle`; AssertionError if the stream ends first."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if any(line is not None and needle in line for line in self.lines):
                    return
                if self.lines and self.lines[-1] is None:
                    raise AssertionError(f"stderr ended without {needle!r}:\n{self.text()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {needle!r} on stderr within {timeout} s:\n{self.text()}")
                self.cond.wait(left)

    def text(self):
        """Everything read so far (all of stderr once the process ended and close() returned)."""
        return "".join(line for line in self.lines if line is not None)

    def close(self, timeout=60):
        self.thread.join(timeout)
        return self.text()


def wait_until(cond, what, timeout=300, proc=None, step=0.005):
    """The one progress watch of the test tiers: polls cond() every `step` s until it is true.
    AssertionError naming `what` (a string, or a function called for it then) if `proc` (when
    given) ends first or `timeout` s pass. It waits for a moment the binary reaches by itself (a
    rank that stopped itself, a file that appears, a process that is gone); the timeout only
    turns a hang into a failure, it never picks a moment."""
    deadline = time.monotonic() + timeout
    while not cond():
        if proc is not None and proc.poll() is not None:
            if cond():
                break
            raise AssertionError(f"the process ended (exit {proc.returncode}) before {_said(what)}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {_said(what)} within {timeout} s")
        time.sleep(step)


def _said(what):
    return what() if callable(what) else what


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (state first), None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split() or None
    except (OSError, IndexError):
        return None


def process_state(pid):
    """The state letter of process `pid` in /proc (R, S, T (stopped), Z, ...), None if it is gone."""
    fields = stat_fields(pid)
    return fields[0] if fields else None


# The core time a dry run's `compute` line prints: two significant digits, in the unit that reads
# best at the pace timed (seconds on a fast host, minutes or hours on a slow or busy one).
CORE_TIME = r"about ([\d,]+) core-(second|minute|hour)s?"


def core_seconds(number, unit):
    """(seconds, seconds of one of its unit) of a CORE_TIME match's groups."""
    one = {"second": 1, "minute": 60, "hour": 3600}[unit]
    return int(number.replace(",", "")) * one, one


def cpu_seconds(pid):
    """The CPU time process `pid` has used, all its threads (user + system), 0 if it is gone."""
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0


def running_share(pid, seconds, step=0.02):
    """The share of `seconds` in which process `pid` was running or waiting for a CPU (state R,
    sampled every `step` s): about 1 for a process that spins, on a loaded host too (waiting for
    a CPU is R as well), near 0 for one that sleeps. Sampled, never timed: the share does not
    depend on the machine's speed."""
    states = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        states.append(process_state(pid))
        time.sleep(step)
    assert None not in states, f"process {pid} ended while it was watched"
    return states.count("R") / len(states)


def alive(pid):
    return process_state(pid) not in (None, "Z")


def fault_env(*specs):
    """The environment that injects faults (src/cluster/fault_injection.h), e.g.
    fault_env("stop-after:40", "stop-writing:0")."""
    return {"NQUEENS_INJECT_FAULT": ",".join(specs)}


def stop_after(units):
    """The master stops itself (SIGSTOP) once its journal holds `units` units, synced to disk."""
    return f"stop-after:{units}"


STOP_WRITING = "stop-writing:0"   # the master stops itself in the middle of writing the result file


def when_stopped(proc, pid, act, timeout=300):
    """The deterministic moment of the tiers: waits until process `pid` (of job `proc`) has
    stopped itself at an injected stop fault, calls act() (a signal, a kill, a full disk...) while
    it is held there, then continues it with SIGCONT. The same moment on a fast or a slow, busy
    machine."""
    wait_until(lambda: process_state(pid) == "T", f"stop of process {pid} at its injected fault", timeout, proc)
    act()
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass   # act() killed it


def strike(cmd, ranks, act, at):
    """Runs `cmd` with its master set to stop once `at` units are journaled, calls act(proc,
    master pid) there, continues the master and returns (returncode, stderr)."""
    proc = start(cmd, ranks=ranks, extra_env=fault_env(stop_after(at)))
    try:
        master = pid_of_rank(proc, 0)
        when_stopped(proc, master, lambda: act(proc, master))
        _, err = proc.communicate(timeout=120)
    except BaseException:
        kill_group(proc)
        raise
    return proc.returncode, err


def journaled_units(out):
    """How many distinct units the journal of result file `out` holds (0 without a journal)."""
    try:
        data = journal_of(out).read_bytes()
    except FileNotFoundError:
        return 0
    start = _records_start(data)
    if start is None:
        return 0
    return len({struct.unpack_from("<Q", data, off + 8)[0] for off, _, _ in _records(data, start)})


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


def pid_of_rank(proc, rank, timeout=60):
    """Waits until mpirun (`proc`) has started `rank` and returns its PID."""
    found = []

    def started():
        found[:] = [pid for pid in rank_pids(proc) if rank_of(pid) == rank]
        return bool(found)

    wait_until(started, f"rank {rank} started by mpirun", timeout, proc, step=0.02)
    return found[0]


def attrs(path):
    with h5py.File(path, "r") as f:
        return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}


def set_counts(f, **values):
    """Rewrites counts (total=..., unique=...) of an open h5py result file consistently: the
    uint64 attribute and its _hi, _lo and _decimal companions."""
    for name, value in values.items():
        for attr, v in count_attrs(name, value).items():
            f.attrs[attr] = v


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


# ---------------------------------------------------------------------- the restart journal --
# src/store/journal.h: header "NQJOURNL", u32 version, u32 key length K, key, crc32(bytes 8..16+K);
# then records: u32 magic 0x4E514A52, u32 payload length P, payload, crc32(payload). All
# little-endian; crc32 is zlib's. Key: n, depth, shard_index, shard_count i32, units_total u64,
# then mode, boards_stored, symmetry, program_version as u16 length + bytes. Payload (count
# mode, P = 92): id u64 at 0, placement 32 bytes at 8, multiplicity u32 at 40, solutions u64 at
# 44, nodes u64 at 52, seconds f64 at 60, started f64 at 68, rank i32 at 76, thread i32 at 80,
# boards u32 at 84, class sizes u32 at 88 (boards mode: then the unit's boards as its worker sent
# them, n bytes each, in all mode its completions only; then the class sizes).
RECORD_MAGIC = 0x4E514A52
JOURNAL_VERSION = 2
KEY_INTS = ("n", "depth", "shard_index", "shard_count")
KEY_STRINGS = ("mode", "boards_stored", "symmetry", "program_version")


def journal_of(out):
    return Path(str(out) + ".journal")


def _records_start(data):
    """Offset of the first record, or None while the header is incomplete."""
    if len(data) < 16 or data[:8] != b"NQJOURNL":
        return None
    (k,) = struct.unpack_from("<I", data, 12)
    return 16 + k + 4


def _records(data, off):
    """(offset, payload length, end) of each whole record with a valid CRC from `off` on,
    stopping at the first that is cut short or damaged (the torn tail the binary drops)."""
    while off + 12 <= len(data):
        magic, plen = struct.unpack_from("<II", data, off)
        end = off + 8 + plen + 4
        if magic != RECORD_MAGIC or end > len(data):
            return
        if zlib.crc32(data[off + 8:off + 8 + plen]) != struct.unpack_from("<I", data, off + 8 + plen)[0]:
            return
        yield off, plen, end
        off = end


def _frame(payload):
    return struct.pack("<II", RECORD_MAGIC, len(payload)) + payload + struct.pack("<I", zlib.crc32(payload))


def journal_header(key):
    """The header of a journal for `key` (a dict with KEY_INTS, units_total and KEY_STRINGS)."""
    k = struct.pack("<4iQ", *(key[f] for f in KEY_INTS), key["units_total"])
    for f in KEY_STRINGS:
        b = key[f].encode()
        k += struct.pack("<H", len(b)) + b
    head = b"NQJOURNL" + struct.pack("<II", JOURNAL_VERSION, len(k)) + k
    return head + struct.pack("<I", zlib.crc32(head[8:]))


def journal_record(uid, multiplicity, solutions, nodes=0, placement=()):
    """A count-mode record of unit `uid`: its placement's columns by row (the rows after them
    empty, 0xFF). A resumed journal's units must be the plan's, placements and multiplicities."""
    rows = bytes(int(c) for c in placement)
    payload = (struct.pack("<Q", uid) + rows + b"\xff" * (32 - len(rows))
               + struct.pack("<IQQddiiII", multiplicity, solutions, nodes, 0.0, 0.0, 0, 0, 0, 0))
    return _frame(payload)


class Journal:
    def __init__(self, path):
        self.path = Path(path)
        self.data = bytearray(self.path.read_bytes())
        self.data_start = _records_start(self.data)
        assert self.data_start is not None, "not a journal"
        self.records = []   # (offset, payload length)
        self.valid_end = self.data_start
        for off, plen, end in _records(self.data, self.data_start):
            self.records.append((off, plen))
            self.valid_end = end

    def key(self):
        """The header's job key as a dict (see journal_header)."""
        ints = struct.unpack_from("<4iQ", self.data, 16)
        key = dict(zip(KEY_INTS + ("units_total",), ints))
        off = 16 + struct.calcsize("<4iQ")
        for f in KEY_STRINGS:
            (ln,) = struct.unpack_from("<H", self.data, off)
            key[f] = bytes(self.data[off + 2:off + 2 + ln]).decode()
            off += 2 + ln
        return key

    def unit(self, i):
        off, _ = self.records[i]
        uid, = struct.unpack_from("<Q", self.data, off + 8)
        mult, sols = struct.unpack_from("<IQ", self.data, off + 8 + 40)
        return uid, mult, sols

    def set_solutions(self, i, solutions):
        """Rewrites record i's count and its CRC: a well-formed record with a wrong count."""
        off, plen = self.records[i]
        struct.pack_into("<Q", self.data, off + 8 + 44, solutions)
        struct.pack_into("<I", self.data, off + 8 + plen, zlib.crc32(bytes(self.data[off + 8:off + 8 + plen])))

    def set_placement(self, i, row, column):
        """Rewrites row `row` of record i's placement and its CRC: a well-formed record of a unit
        that is not the plan's."""
        off, plen = self.records[i]
        self.data[off + 8 + 8 + row] = column
        struct.pack_into("<I", self.data, off + 8 + plen, zlib.crc32(bytes(self.data[off + 8:off + 8 + plen])))

    def swap_placements(self, i, j):
        """Exchanges the placements of records i and j and rewrites their CRCs: well-formed
        records, each of a unit of the plan, under the other's id."""
        (oi, pi), (oj, pj) = self.records[i], self.records[j]
        a, b = bytes(self.data[oi + 16:oi + 48]), bytes(self.data[oj + 16:oj + 48])
        self.data[oi + 16:oi + 48], self.data[oj + 16:oj + 48] = b, a
        for off, plen in ((oi, pi), (oj, pj)):
            struct.pack_into("<I", self.data, off + 8 + plen, zlib.crc32(bytes(self.data[off + 8:off + 8 + plen])))

    def save(self, data=None):
        self.path.write_bytes(bytes(self.data if data is None else data))
