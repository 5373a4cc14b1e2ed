"""Helpers shared by the tiers that run jobs on a real Slurm cluster (tests/slurm: the single-node
cluster of slurm/cluster.sh; tests/multihost: one slurmd per emulated host). A `Slurm` talks to
one cluster: its client commands are prefixed by `client` (e.g. ["hosts.sh", "client"] to run
them on the host where that cluster's slurmctld listens)."""
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import h5py
import pytest

from nqtest import BIN, process_state

REPO = Path(__file__).resolve().parents[2]
SLURM_DIR = REPO / "slurm"
KNOWN = {}
for _line in (REPO / "data" / "known-counts.tsv").read_text().splitlines()[1:]:
    _f = _line.split("\t")
    KNOWN[int(_f[0])] = (int(_f[1]), int(_f[2]))

# Job states after which a job will not run again (unless requeued: then it is PENDING).
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
         "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
# slurmctld checks time limits (and sends --signal warnings) every PERIODIC_TIMEOUT seconds.
CONTROLLER_TICK = 30
# The time-limit job's master holds (stops itself) at this many journaled units until warned.
HOLD_AT = 20


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


class Slurm:
    def __init__(self, client=()):
        self.client = list(client)

    def run(self, cmd, **kw):
        return run(self.client + list(cmd), **kw)

    def job_records(self, job_id):
        """`scontrol show job -o ID` as a list of dicts (an array job gives one per task/record)."""
        res = self.run(["scontrol", "show", "job", "-o", str(job_id)])
        assert res.returncode == 0, f"scontrol show job {job_id}: {res.stderr}"
        recs = []
        for line in res.stdout.splitlines():
            if not line.strip():
                continue
            rec = {}
            for m in re.finditer(r"(\w[\w/:]*)=(\S*)", line):
                rec.setdefault(m.group(1), m.group(2))
            recs.append(rec)
        return recs

    def in_queue(self, job_ids):
        """Jobs (or array tasks) still pending, running or completing."""
        res = self.run(["squeue", "-h", "-r", "-o", "%i %T %r", "-j", ",".join(map(str, job_ids))])
        return [l for l in res.stdout.splitlines() if l.strip()]

    def nodes_released(self):
        """No CPU of any node is allocated to a job."""
        out = self.run(["scontrol", "-o", "show", "node"]).stdout
        nodes = [l for l in out.splitlines() if l.strip()]
        return bool(nodes) and all("CPUAlloc=0 " in l for l in nodes)

    def wait_jobs(self, job_ids, timeout, on_requeued=None, each_second=None):
        """Waits until every job (array jobs: every task) has left the queue for good.

        A job that checkpointed and requeued itself sits PENDING with Reason=BeginTime for ~120 s;
        we call on_requeued(rec) and start it early (`scontrol update JobId=X StartTime=now`), but
        only once the nodes have released the previous run (no CPU allocated) and a few seconds
        have passed: started within a second of its requeue, slurmctld allocates the job before
        slurmd has finished the old run and kills it ("Killing non-startable batch job: Job
        credential revoked", exit 1; seen in CI). each_second() (if given) is called on every
        look at the queue. Returns the final records of all jobs/tasks."""
        deadline = time.monotonic() + timeout
        seen = {}   # (job, restarts) -> when the requeued job was first seen pending
        bumped = set()
        while True:
            if each_second:
                each_second()
            for jid in job_ids:
                for rec in self.job_records(jid):
                    if rec.get("JobState") == "PENDING" and rec.get("Reason") == "BeginTime":
                        key = (rec["JobId"], rec.get("Restarts"))
                        if key not in seen:
                            seen[key] = time.monotonic()
                            if on_requeued:
                                on_requeued(rec)
                        if key not in bumped and time.monotonic() - seen[key] >= 3 and self.nodes_released():
                            bumped.add(key)
                            self.run(["scontrol", "update", f"JobId={rec['JobId']}", "StartTime=now"])
            if not self.in_queue(job_ids):
                recs = [r for jid in job_ids for r in self.job_records(jid)]
                if all(r.get("JobState") in FINAL for r in recs):
                    return recs
            if time.monotonic() > deadline:
                pytest.fail(f"jobs {job_ids} not finished after {timeout} s: {self.in_queue(job_ids)}")
            time.sleep(1)

    def sbatch(self, args, cwd, env, jobs):
        res = self.run(["sbatch", "--parsable"] + list(args), cwd=cwd, env=env)
        assert res.returncode == 0, f"sbatch {args} failed: {res.stderr}"
        jid = res.stdout.strip().split(";")[0]
        jobs.append(jid)
        return jid

    def cancel(self, job_ids):
        if job_ids:
            self.run(["scancel"] + list(job_ids))

    def time_limit_job(self, workdir, env, jobs, resources, n):
        """Runs slurm/nqueens.sbatch on an N-queens count whose time limit strikes mid-run: the
        warning signal makes nqueens checkpoint (exit 75), the script requeues the job, and the
        rerun resumes. `resources` are the sbatch options for the job's size (e.g. ["-n", "2"]).
        Checks the partial file between the runs and the log; returns (record, log, result path).

        slurmctld sends --signal warnings only on its time-limit check, every 30 s. So that the
        warning comes a few seconds into the run, a probe job first finds when the checks happen
        and the real job is submitted ~20 s before one. So that the run is still computing then,
        however fast the machine, its master stops itself once HOLD_AT units are journaled
        (NQUEENS_INJECT_FAULT=stop-after) and is continued only once the log shows the warning
        (a rerun's master, which stops at once, is continued at once)."""
        rec, log, result, partials, held = self._time_limit_run(workdir, env, jobs, resources, n)
        check_time_limit_run(rec, log, n, partials, held)
        return rec, log, result

    def _time_limit_run(self, workdir, env, jobs, resources, n):
        # Seconds from the submission to the warning: enough for a step that crashed at start-up
        # and was launched again by the script (~6 s) to reach HOLD_AT; with --time=1 and
        # @30 the warning (30-60 s before the end) still comes on that check.
        lead = 20
        probe_out = workdir / "probe.txt"
        # 2 min with the warning 90 s before the end: the warning comes on the first check after
        # 30 s, long before the limit, however the checks fall.
        probe = self.sbatch(["--time=2", "--signal=B:USR1@90", "-n", "1", "-c", "1", "-o", "/dev/null",
                             "--wrap", f"trap 'date +%s.%N > {probe_out}; exit 0' USR1; sleep 90 & wait"],
                            workdir, env, jobs)
        self.wait_jobs([probe], timeout=180)
        assert probe_out.is_file(), "probe job got no USR1 warning within its time limit"
        tick = float(probe_out.read_text())
        now = time.time()
        next_tick = tick + CONTROLLER_TICK * max(1, int((now + lead + 2 - tick) // CONTROLLER_TICK) + 1)
        time.sleep(max(0.0, next_tick - lead - time.time()))

        job = write_job(workdir, f"n{n}.toml", n=n, mode="count", symmetry="none", out=f"results/n{n}.h5")
        jid = self.sbatch(list(resources) + ["--time=1", "--signal=B:USR1@30",
                                             str(SLURM_DIR / "nqueens.sbatch"), str(job)], workdir,
                          dict(env, NQUEENS_INJECT_FAULT=f"stop-after:{HOLD_AT}"), jobs)
        result = workdir / "results" / f"n{n}.h5"
        partials = []
        held = []   # masters seen stopped at HOLD_AT

        def release_master():
            log = workdir / f"nqueens-{jid}.out"
            text = log.read_text(errors="replace") if log.is_file() else ""
            for pid in held_masters(job):
                if pid not in held:
                    held.append(pid)
                # The first run goes on once the warning, forwarded by the script and srun, is
                # pending at the master; a rerun (its journal is past HOLD_AT) goes on at once.
                if text.count("start (restart") > 1 or signal.SIGUSR1 in pending_signals(pid):
                    os.kill(pid, signal.SIGCONT)

        def on_requeued(rec):
            # The job is between runs: its file must be a valid partial result.
            a = attrs(result)
            partials.append(a)
            assert a["status"] == "partial"
            assert 0 < int(a["units_done"]) < int(a["units_total"])
            assert 0 < int(a["total"]) < KNOWN[n][0]

        recs = self.wait_jobs([jid], timeout=300, on_requeued=on_requeued, each_second=release_master)
        log = log_text(workdir / f"nqueens-{jid}.out")
        (rec,) = recs
        return rec, log, result, partials, held


def check_time_limit_run(rec, log, n, partials, held):
    """The checks of a time-limit run (Slurm.time_limit_job): requeued at least once, a valid
    partial file between the runs, the master held at HOLD_AT, the log's story complete."""
    assert rec["JobState"] == "COMPLETED" and rec["ExitCode"] == "0:0", f"{rec}\n{log}"
    assert int(rec["Restarts"]) >= 1, (
        f"the job was never interrupted (N = {n} finished before the warning?):\n{log}")
    assert partials, f"no partial result seen between runs:\n{log}"
    assert held, f"the master never held at {HOLD_AT} journaled units:\n{log}"
    assert all(int(a["units_done"]) >= HOLD_AT for a in partials), partials
    assert "got SIGUSR1" in log and "nqueens exited with code 75" in log and "job requeued" in log, log
    assert log.count("start (restart") == int(rec["Restarts"]) + 1


def start_up_relaunches(log, workdir):
    """What the log says about steps slurm/nqueens.sbatch launched again after a crash at
    start-up (with the stacks of any core file the crashed ranks left), or None if there were
    none."""
    lines = [l for l in log.splitlines() if "launching again" in l or "] Signal: " in l]
    if not any("launching again" in l for l in lines):
        return None
    return "\n".join(lines) + "\n" + core_stacks(workdir)


def core_stacks(workdir):
    """The stacks of core files the job's ranks left in `workdir` (RLIMIT_CORE is raised by the
    multihost tier; where core_pattern writes to the process's folder), if gdb is installed."""
    cores = sorted(Path(workdir).glob("core*"))
    gdb = shutil.which("gdb")
    if not cores or not gdb:
        return f"core files: {len(cores)}{'' if gdb else ' (gdb not installed)'}"
    out = []
    for core in cores[:2]:
        p = subprocess.run([gdb, "-batch", "-ex", "thread apply all bt 30", str(BIN), str(core)],
                           capture_output=True, text=True, timeout=120)
        out.append(f"--- {core.name}\n{p.stdout[-6000:]}")
    return "\n".join(out)


def job_ranks(job):
    """(PID, rank, state letter) of each nqueens process running job file `job`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            if str(job).encode() not in cmdline or not any(a.endswith(b"nqueens") for a in cmdline):
                continue
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        state = process_state(proc.name)
        if state is None:
            continue
        ranks = [int(kv.split(b"=")[1]) for kv in environ if kv.startswith((b"PMIX_RANK=", b"OMPI_COMM_WORLD_RANK="))]
        found.append((int(proc.name), ranks[0] if ranks else None, state))
    return found


def held_masters(job):
    """PIDs of the stopped (state T) rank-0 nqueens processes running job file `job`."""
    return [pid for pid, rank, state in job_ranks(job) if rank == 0 and state == "T"]


def pending_signals(pid):
    """The signals pending at process `pid` (SigPnd and ShdPnd of /proc/PID/status)."""
    mask = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("SigPnd:", "ShdPnd:")):
                mask |= int(line.split()[1], 16)
    except OSError:
        pass
    return {sig for sig in range(1, 65) if mask >> (sig - 1) & 1}


def attrs(path):
    assert Path(path).is_file(), f"no result file {path}"
    with h5py.File(path, "r") as f:
        a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        a["_unit_ids"] = f["units/id"][:].tolist()
        a["_unit_solutions"] = f["units/solutions"][:].tolist()
    return a


def assert_complete(path, n, ranks=None):
    a = attrs(path)
    assert a["format"] == "nqueens-result"
    assert int(a["n"]) == n
    assert a["status"] == "complete", f"{path}: status {a['status']}"
    assert int(a["total"]) == KNOWN[n][0], f"{path}: total {a['total']} != known {KNOWN[n][0]}"
    assert int(a["unique"]) == KNOWN[n][1], f"{path}: unique {a['unique']} != known {KNOWN[n][1]}"
    assert a["matches_known"] == "yes"
    assert int(a["units_done"]) == int(a["units_total"]) == len(a["_unit_ids"])
    if ranks is not None:
        assert int(a["ranks"]) == ranks
    return a


def log_text(path):
    p = Path(path)
    assert p.is_file(), f"no job log {p}"
    return p.read_text(errors="replace")


def write_job(dirpath, name, **keys):
    lines = [f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in keys.items()]
    p = Path(dirpath) / name
    p.write_text("\n".join(lines) + "\n")
    return p
