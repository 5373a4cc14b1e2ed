"""Slurm tier: the real scripts in slurm/ on a real single-node cluster, with the real binary.

Run as root:  NQUEENS_BIN=build/release/src/app/nqueens /usr/bin/python3 -m pytest tests/slurm -v
The cluster is started with slurm/cluster.sh (and stopped at the end if this session started it;
NQ_SLURM_KEEP=1 leaves it running). The binary is $NQUEENS_BIN, else
build/release/src/app/nqueens; a missing binary is a test failure, not a skip.
About 2-3 minutes on 2 cores; the time-limit test is the long one (it waits for the controller).
"""
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import h5py
import pytest

REPO = Path(__file__).resolve().parents[2]
SLURM = REPO / "slurm"
KNOWN = {}
for _line in (REPO / "data" / "known-counts.tsv").read_text().splitlines()[1:]:
    _f = _line.split("\t")
    KNOWN[int(_f[0])] = (int(_f[1]), int(_f[2]))

# Job states after which a job will not run again (unless requeued: then it is PENDING).
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
         "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
# slurmctld checks time limits (and sends --signal warnings) every PERIODIC_TIMEOUT seconds.
CONTROLLER_TICK = 30

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the Slurm tier starts daemons: run as root")


# ---------------------------------------------------------------------------------------------
# helpers

def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def job_records(job_id):
    """`scontrol show job -o ID` as a list of dicts (an array job gives one per task/record)."""
    res = run(["scontrol", "show", "job", "-o", str(job_id)])
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


def in_queue(job_ids):
    """Jobs (or array tasks) still pending, running or completing."""
    res = run(["squeue", "-h", "-r", "-o", "%i %T %r", "-j", ",".join(map(str, job_ids))])
    return [l for l in res.stdout.splitlines() if l.strip()]


def node_released():
    """No CPU of the (single) node is allocated to any job."""
    out = run(["scontrol", "-o", "show", "node"]).stdout
    return "CPUAlloc=0 " in out


def wait_jobs(job_ids, timeout, on_requeued=None):
    """Waits until every job (array jobs: every task) has left the queue for good.

    A job that checkpointed and requeued itself sits PENDING with Reason=BeginTime for ~120 s;
    we call on_requeued(rec) and start it early (`scontrol update JobId=X StartTime=now`), but
    only once the node has released the previous run (no CPU allocated) and a few seconds have
    passed: started within a second of its requeue, slurmctld allocates the job before slurmd
    has finished the old run and kills it ("Killing non-startable batch job: Job credential
    revoked", exit 1; seen in CI). Returns the final records of all jobs/tasks."""
    deadline = time.monotonic() + timeout
    seen = {}   # (job, restarts) -> when the requeued job was first seen pending
    bumped = set()
    while True:
        for jid in job_ids:
            for rec in job_records(jid):
                if rec.get("JobState") == "PENDING" and rec.get("Reason") == "BeginTime":
                    key = (rec["JobId"], rec.get("Restarts"))
                    if key not in seen:
                        seen[key] = time.monotonic()
                        if on_requeued:
                            on_requeued(rec)
                    if key not in bumped and time.monotonic() - seen[key] >= 3 and node_released():
                        bumped.add(key)
                        run(["scontrol", "update", f"JobId={rec['JobId']}", "StartTime=now"])
        if not in_queue(job_ids):
            recs = [r for jid in job_ids for r in job_records(jid)]
            if all(r.get("JobState") in FINAL for r in recs):
                return recs
        if time.monotonic() > deadline:
            pytest.fail(f"jobs {job_ids} not finished after {timeout} s: {in_queue(job_ids)}")
        time.sleep(1)


def sbatch(args, cwd, env, jobs):
    res = run(["sbatch", "--parsable"] + args, cwd=cwd, env=env)
    assert res.returncode == 0, f"sbatch {args} failed: {res.stderr}"
    jid = res.stdout.strip().split(";")[0]
    jobs.append(jid)
    return jid


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


# ---------------------------------------------------------------------------------------------
# fixtures

@pytest.fixture(scope="session")
def nqueens_bin():
    path = Path(os.environ.get("NQUEENS_BIN") or REPO / "build" / "release" / "src" / "app" / "nqueens")
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"nqueens binary not found: {path} (build it, or set NQUEENS_BIN)")
    return path.resolve()


@pytest.fixture(scope="session")
def cluster():
    was_running = run([str(SLURM / "cluster.sh"), "status"]).returncode == 0
    res = run([str(SLURM / "cluster.sh"), "start"])
    assert res.returncode == 0, f"cluster.sh start failed:\n{res.stdout}\n{res.stderr}"
    yield
    if not was_running and os.environ.get("NQ_SLURM_KEEP") != "1":
        run([str(SLURM / "cluster.sh"), "stop"])


@pytest.fixture
def jobs():
    """Job ids a test submits; whatever is still queued afterwards is cancelled."""
    ids = []
    yield ids
    if ids:
        run(["scancel"] + ids)


@pytest.fixture
def env(nqueens_bin):
    e = dict(os.environ)
    e["NQUEENS_BIN"] = str(nqueens_bin)
    return e


@pytest.fixture
def workdir(tmp_path):
    # Jobs run as root on this machine, so the pytest tmp dir works as a submit directory.
    return tmp_path


def write_job(dirpath, name, **keys):
    lines = [f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in keys.items()]
    p = Path(dirpath) / name
    p.write_text("\n".join(lines) + "\n")
    return p


# ---------------------------------------------------------------------------------------------
# tests

def test_cluster_start_is_idempotent(cluster):
    t0 = time.monotonic()
    res = run([str(SLURM / "cluster.sh"), "start"])
    assert res.returncode == 0, res.stderr
    assert "already running" in res.stderr
    assert time.monotonic() - t0 < 10
    st = run([str(SLURM / "cluster.sh"), "status"])
    assert st.returncode == 0, st.stdout + st.stderr
    assert re.search(r"\bidle\b|\bmixed\b|\ballocated\b", st.stdout)


def test_batch_job_counts_and_writes_result(cluster, env, workdir, jobs):
    """(b) sbatch --wait slurm/nqueens.sbatch on a job file: 2 MPI ranks, exact total."""
    job = write_job(workdir, "n13.toml", n=13, mode="count", out="results/n13.h5")
    res = run(["sbatch", "--wait", "--parsable", "-n", "2", "-c", "1", "--time=5",
               str(SLURM / "nqueens.sbatch"), str(job)], cwd=workdir, env=env, timeout=180)
    jid = res.stdout.strip().split(";")[0]
    jobs.append(jid)
    log = log_text(workdir / f"nqueens-{jid}.out")
    assert res.returncode == 0, f"job exit {res.returncode}:\n{log}"
    a = assert_complete(workdir / "results" / "n13.h5", 13, ranks=2)
    assert int(a["threads"]) == 1
    assert "nqueens exited with code 0" in log


def test_time_limit_checkpoint_requeue_resume(cluster, env, workdir, jobs):
    """(c) The time limit strikes mid-run: the warning signal makes nqueens checkpoint (exit 75),
    the script requeues the job, and the rerun resumes and finishes with the exact count.

    slurmctld sends --signal warnings only on its time-limit check, every 30 s. So that the
    warning comes a few seconds into the run whatever the machine's speed, a probe job first
    finds when the checks happen and the real job is submitted ~10 s before one."""
    # The plain `none` plan at N = 18 computes ~1 min on one thread: long enough to be warned.
    n = int(os.environ.get("NQ_SLURM_TIMELIMIT_N", "18"))
    lead = 10   # seconds of computing before the warning

    probe_out = workdir / "probe.txt"
    # 2 min with the warning 90 s before the end: the warning comes on the first check after
    # 30 s, long before the limit, however the checks fall.
    probe = sbatch(["--time=2", "--signal=B:USR1@90", "-n", "1", "-c", "1", "-o", "/dev/null",
                    "--wrap", f"trap 'date +%s.%N > {probe_out}; exit 0' USR1; sleep 90 & wait"],
                   workdir, env, jobs)
    wait_jobs([probe], timeout=180)
    assert probe_out.is_file(), "probe job got no USR1 warning within its time limit"
    tick = float(probe_out.read_text())
    now = time.time()
    next_tick = tick + CONTROLLER_TICK * max(1, int((now + lead + 2 - tick) // CONTROLLER_TICK) + 1)
    time.sleep(max(0.0, next_tick - lead - time.time()))

    job = write_job(workdir, f"n{n}.toml", n=n, mode="count", symmetry="none", out=f"results/n{n}.h5")
    jid = sbatch(["-n", "2", "-c", "1", "--time=1", "--signal=B:USR1@30",
                  str(SLURM / "nqueens.sbatch"), str(job)], workdir, env, jobs)
    result = workdir / "results" / f"n{n}.h5"
    partials = []

    def on_requeued(rec):
        # The job is between runs: its file must be a valid partial result.
        a = attrs(result)
        partials.append(a)
        assert a["status"] == "partial"
        assert 0 < int(a["units_done"]) < int(a["units_total"])
        assert 0 < int(a["total"]) < KNOWN[n][0]

    recs = wait_jobs([jid], timeout=300, on_requeued=on_requeued)
    log = log_text(workdir / f"nqueens-{jid}.out")
    (rec,) = recs
    assert rec["JobState"] == "COMPLETED" and rec["ExitCode"] == "0:0", f"{rec}\n{log}"
    assert int(rec["Restarts"]) >= 1, (
        f"the job was never interrupted (N = {n} finished before the warning?):\n{log}")
    assert partials, f"no partial result seen between runs:\n{log}"
    assert "got SIGUSR1" in log and "nqueens exited with code 75" in log and "job requeued" in log, log
    assert log.count("start (restart") == int(rec["Restarts"]) + 1
    assert_complete(result, n, ranks=2)


def test_array_sweep_over_n(cluster, env, workdir, jobs):
    """(d) slurm/sweep.sbatch as --array=8-12: one result file per N, each exact."""
    arr = sbatch(["--array=8-12", "-n", "1", "-c", "1", "--time=5", str(SLURM / "sweep.sbatch")],
                 workdir, env, jobs)
    recs = wait_jobs([arr], timeout=180)
    assert len(recs) == 5
    for rec in recs:
        assert rec["JobState"] == "COMPLETED" and rec["ExitCode"] == "0:0", rec
    for n in range(8, 13):
        assert_complete(workdir / "results" / f"sweep-n{n}.h5", n)
        assert "nqueens exited with code 0" in log_text(workdir / f"nq-sweep-{arr}_{n}.out")


def test_shards_merged_equal_one_run(cluster, env, workdir, jobs):
    """(e) slurm/submit --shards 3: three shard jobs and a merge job; the merged file equals
    a single run of the same job, unit by unit."""
    n = 14
    job = write_job(workdir, "n14.toml", n=n, mode="count", out="results/n14.h5")
    res = run([str(SLURM / "submit"), str(job), "--shards", "3", "-n", "1", "-c", "1", "--time=5"],
              cwd=workdir, env=env)
    assert res.returncode == 0, res.stderr
    info = {}
    for line in res.stdout.splitlines():
        key, _, val = line.partition(" ")
        info.setdefault(key, []).append(val)
    arr, merge = info["job"][0], info["merge-job"][0]
    jobs += [arr, merge]
    assert len(info["shard-result"]) == 3
    assert info["result"] == [str(workdir / "results" / "n14.h5")]
    single = sbatch(["-n", "1", "-c", "1", "--time=5", str(SLURM / "nqueens.sbatch"), str(job),
                     "--out", "results/single.h5"], workdir, env, jobs)

    recs = wait_jobs([arr, merge, single], timeout=180)
    for rec in recs:
        assert rec["JobState"] == "COMPLETED" and rec["ExitCode"] == "0:0", rec
    shard_ids = []
    for i, path in enumerate(info["shard-result"]):
        a = attrs(path)
        assert a["status"] == "complete"
        assert (int(a["shard_index"]), int(a["shard_count"])) == (i, 3)
        assert all(u % 3 == i for u in a["_unit_ids"])
        assert 0 < int(a["total"]) < KNOWN[n][0]
        shard_ids += a["_unit_ids"]
    merged = assert_complete(info["result"][0], n)
    one = assert_complete(workdir / "results" / "single.h5", n)
    assert sorted(shard_ids) == merged["_unit_ids"]
    assert merged["_unit_ids"] == one["_unit_ids"]
    assert merged["_unit_solutions"] == one["_unit_solutions"]
    assert int(merged["units_total"]) == int(one["units_total"])
    assert "nqueens merge exited with code 0" in log_text(info["merge-log"][0])


def test_submit_fills_resources_and_user_options_win(tmp_path):
    """slurm/submit --dry-run: defaults from the job file, user options replace them."""
    job = write_job(tmp_path, "j.toml", n=18, mode="count", out="results/x.h5", threads=2,
                    time_limit="01:30:00")
    res = run([str(SLURM / "submit"), str(job), "--dry-run"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    cmd = res.stderr
    for opt in ["--job-name=nq-18", "--time=01:30:00", "--ntasks=1", "--cpus-per-task=2",
                str(SLURM / "nqueens.sbatch")]:
        assert opt in cmd, cmd
    assert f"result {tmp_path / 'results' / 'x.h5'}" in res.stdout

    res = run([str(SLURM / "submit"), str(job), "--dry-run", "-t", "7", "-J", "mine", "-n", "3",
               "--", "--depth", "4"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    cmd = res.stderr
    assert "--time=" not in cmd and "--job-name=" not in cmd and "--ntasks=" not in cmd, cmd
    assert "-t 7 -J mine -n 3" in cmd and cmd.rstrip().endswith("--depth 4"), cmd

    bad = write_job(tmp_path, "bad.toml", mode="count")
    res = run([str(SLURM / "submit"), str(bad), "--dry-run"], cwd=tmp_path)
    assert res.returncode == 2 and "'n'" in res.stderr
