"""Plans that cannot run are refused up front (exit 2, naming a depth and a shard count that
work, before any file is touched), SIGTERM is answered in the long phases before and after the
computation (counting the plan, the Burnside search, writing the result file), and totals past
2^64 are exact through run, info, merge and the files. The real binary, plainly and under
mpirun -n 2.

Timing: a signal is sent at a deterministic point (the phase's announcement on stderr, or the
injected fault stop-writing for the result file's write), with the process stopped (SIGSTOP)
while it is queued, so the phase is certainly still running when the signal is handled; the
bounds on seconds are generous (the measured times are ~100x smaller)."""
import ctypes
import math
import os
import re
import signal
import subprocess
import time

import h5py
import numpy as np
import pytest

from conftest import (CORE_TIME, EXIT, KNOWN, ROOT, STOP_WRITING, Journal, StderrLines, attrs, fault_env, journal_header, journal_of,
                      journal_record, journaled_units, kill_group, core_seconds, needs, needs_the_16_gib_cap, pid_of_rank,
                      process_state, run, set_counts, start, stop_after, strike, units_table, wait_until, when_stopped)

REFUSAL = re.compile(r"nqueens: error: the plan \(N = (\d+), depth (\d+), symmetry (\w+)\) has (.+?) work units"
                     r".*: use --depth (\d+) \(")
TWO64 = 2 ** 64
# Generous bounds: a refusal takes ~0.4 s here (mpirun -n 2 ~2.5 s), a signal is answered in
# well under 0.1 s.
REFUSAL_SECONDS = 20
ANSWER_SECONDS = 5


def io_error_after_the_plan_check(args, workdir, ranks, extra_env=None):
    """Runs `args` with an --out whose directory cannot be created (a regular file is in its
    way): exit 4 proves the plan passed the limits, since they are checked first, and nothing
    is computed."""
    blocker = workdir / "blocker"
    blocker.write_text("not a directory\n")
    p = run(args + ["--out", blocker / "out.h5"], ranks=ranks, timeout=120, extra_env=extra_env)
    assert p.returncode == EXIT["io"] and "cannot create directory" in p.stderr, p.stderr


def mebibytes(gigabytes):
    """A size in GB as Slurm's megabytes (MiB), rounded up: what --mem=<that>M gives."""
    return str(math.ceil(float(gigabytes) * 1e9 / 2 ** 20))


@pytest.mark.parametrize("ranks", [None, 2])
@pytest.mark.parametrize("plan", [pytest.param(["--n", 31], marks=needs_the_16_gib_cap), ["--n", 26, "--depth", 22], ["--n", 26, "--depth", 22,
                                                                            "--symmetry", "full"]])
def test_a_plan_beyond_the_limits_is_refused_at_once_naming_a_depth_that_works(workdir, plan, ranks):
    out = workdir / "results" / "out.h5"
    t0 = time.monotonic()
    p = run(["run", *plan, "--out", out], ranks=ranks, timeout=120)
    seconds = time.monotonic() - t0
    assert p.returncode == EXIT["usage"], p.stderr
    m = REFUSAL.search(p.stderr)
    assert m, p.stderr
    assert seconds < REFUSAL_SECONDS, f"the refusal took {seconds:.1f} s"
    print(f"refused {plan} ({'mpirun -n 2' if ranks else 'one process'}) in {seconds:.2f} s")
    assert not (workdir / "results").exists()   # refused before any file or directory was created
    n, depth, symmetry, depth_ok = int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(5))
    assert n == plan[1] and depth_ok < depth
    if "--depth" in plan:   # ~1e17 units: over the per-plan limit, which sharding does not help
        assert "over the limit of 1,073,741,824 (2^30) per plan" in p.stderr and "--shard" not in p.stderr
    else:                   # N = 31's default plan: ~5.9e8 units, more than the master's 16 GiB (4.3e8)
        assert "over its limit of 16 GiB" in p.stderr
        shards = int(re.search(r"--shard i/(\d+) \(", p.stderr).group(1))
        io_error_after_the_plan_check(["run", "--n", n, "--symmetry", symmetry, "--depth", depth,
                                       "--shard", f"0/{shards}"], workdir, ranks)
    io_error_after_the_plan_check(["run", "--n", n, "--symmetry", symmetry, "--depth", depth_ok], workdir, ranks)


@needs_the_16_gib_cap
def test_a_plan_its_estimate_lets_through_is_refused_by_its_exact_count(workdir):
    # N = 30, depth 4, full: ~4.37e8 units, estimated within 5 % of what one master may hold
    # (426,829,048 at 40 bytes and 2 bits a unit), so they are counted: the count stops past the
    # limit, before any file.
    out = workdir / "results" / "out.h5"
    p = run(["run", "--n", 30, "--depth", 4, "--symmetry", "full", "--out", out], timeout=120)
    assert p.returncode == EXIT["usage"], p.stderr
    assert "counting the work units of the plan" in p.stderr
    assert re.search(r"has more than [\d,]+ work units; the master would keep more than [\d.]+ GB", p.stderr), p.stderr
    assert not (workdir / "results").exists()
    shards = int(re.search(r"--shard i/(\d+) \(", p.stderr).group(1))
    assert shards >= 2
    io_error_after_the_plan_check(["run", "--n", 30, "--depth", 4, "--symmetry", "full", "--shard", f"0/{shards}"],
                                  workdir, None)


MEMORY_REFUSAL = re.compile(r"the master would keep about ([\d.]+) GB for them \(40 bytes per unit\), over its limit of "
                            r"([\d.]+) GB \(3/4 of the ([\d.]+) GB this process may use: ([^)]+)\): use --depth (\d+) "
                            r"\([^)]*\) or --shard i/(\d+) \((\d+) masters, each keeping 1/\d+ of the units\) or more "
                            r"memory \(at least ([\d.]+) GB\)")


@needs_the_16_gib_cap   # (its last run: N = 27 passes without the job's limit)
@pytest.mark.parametrize("slurm", [{"SLURM_MEM_PER_NODE": "4000"},
                                   {"SLURM_MEM_PER_CPU": "2000", "SLURM_CPUS_ON_NODE": "2"}], ids=["--mem", "--mem-per-cpu"])
def test_a_plan_whose_table_exceeds_the_jobs_memory_is_refused_naming_shards_and_memory(workdir, slurm):
    """Slurm says the job's memory on the node (sbatch sets these variables from --mem and
    --mem-per-cpu); N = 27's default plan keeps 6.6 GB on its master, which the OOM killer would
    end days in, and again at each resume. Refused up front; the --shard count it names runs."""
    out = workdir / "results" / "out.h5"
    p = run(["run", "--n", 27, "--out", out], timeout=120, extra_env=slurm)
    assert p.returncode == EXIT["usage"], p.stderr
    m = MEMORY_REFUSAL.search(p.stderr)
    assert m, p.stderr
    keep, limit, memory, source = float(m.group(1)), float(m.group(2)), float(m.group(3)), m.group(4)
    # 4000 MB (MiB, as Slurm counts them), of which 3/4; printed to 0.1 GB.
    assert memory == pytest.approx(4000 * 2 ** 20 / 1e9, abs=0.06) and limit == pytest.approx(3000 * 2 ** 20 / 1e9, abs=0.06)
    assert source == ("SLURM_MEM_PER_NODE" if "SLURM_MEM_PER_NODE" in slurm else "SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE")
    assert keep == pytest.approx(6.6, abs=0.1)
    shards = int(m.group(6))
    assert shards == 3 and not (workdir / "results").exists()
    io_error_after_the_plan_check(["run", "--n", 27, "--shard", f"0/{shards}"], workdir, None, slurm)
    # The memory it names is enough (the plan was refused on its estimate: sized with the estimate's margin).
    io_error_after_the_plan_check(["run", "--n", 27], workdir, None, {"SLURM_MEM_PER_NODE": mebibytes(m.group(8))})
    # Without the job's limit the same plan passes (16 GiB may be kept).
    io_error_after_the_plan_check(["run", "--n", 27], workdir, None)


def test_merge_refuses_a_job_whose_table_exceeds_its_memory(workdir):
    """merge keeps the whole job's table (40 bytes a unit): over 3/4 of its memory it is refused
    at once, naming the memory that would do, and OUT is not written; with the memory it merges."""
    args = ["run", "--n", 16, "--depth", 2, "--symmetry", "full"]   # 27,030 units: 1.08 MB of table
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(args + ["--shard", f"{i}/2", "--out", s], check=0)
    out = workdir / "m.h5"
    p = run(["merge", out] + shards, extra_env={"SLURM_MEM_PER_NODE": "1"})
    assert p.returncode == EXIT["usage"], p.stderr
    assert re.search(r"merge: the job's 27,030 units take about 1 MB in its table \(40 bytes per unit\), over its limit "
                     r"of 786 kB \(3/4 of the 1 MB this process may use: SLURM_MEM_PER_NODE\): run the merge with more "
                     r"memory \(at least 1.1 GB\)", p.stderr), p.stderr   # (at least 1 GiB: the process itself)
    assert not out.exists()
    run(["merge", out] + shards, extra_env={"SLURM_MEM_PER_NODE": "2"}, check=0)
    assert attrs(out)["total"] == KNOWN[16]["total"]


def to_ask(table_bytes):
    """Slurm's --mem for a process keeping `table_bytes` of tables: 4/3 of them, at least 1 GiB, in MiB rounded up."""
    return f"--mem={math.ceil(max(table_bytes / 0.75, 2 ** 30) / 2 ** 20)}M"


def test_a_dry_run_counts_the_plan_and_touches_nothing_and_the_run_then_finds_its_units(workdir):
    """run --dry-run checks the job as a run does and counts its plan, then prints what the run needs, and
    writes nothing: no file, no directory. The units it counts are those the run then computes."""
    out = workdir / "results" / "s.h5"
    args = ["run", "--n", 13, "--depth", 3, "--shard", "1/3", "--out", out]
    p = run(args + ["--dry-run"], timeout=60, check=0)
    assert "nothing was run or written (--dry-run)" in p.stderr and not (workdir / "results").exists()
    lines = needs(p.stdout)
    m = re.fullmatch(r"N = 13, count mode, depth 3, symmetry full: ([\d,]+) work units; shard 1/3: ([\d,]+) of them",
                     lines["plan"])
    assert m, p.stdout
    units, mine = (int(g.replace(",", "")) for g in m.groups())
    assert f"beside {out} (" in lines["disk"] and f"free in {workdir}" in lines["disk"], lines["disk"]
    run(args, ranks=2, check=0)
    a = attrs(out)
    assert (int(a["units_total"]), int(a["units_done"])) == (units, mine) and a["status"] == "complete"
    # Under mpirun too, the dry run starts no MPI job and only plans: the same lines, once (rank 0 speaks for
    # all), still nothing written.
    p = run(["run", "--n", 13, "--depth", 3, "--out", workdir / "other" / "o.h5", "--dry-run"], ranks=2, timeout=60,
            check=0)
    assert p.stdout.count("\nplan ") + p.stdout.startswith("plan ") == 1, p.stdout
    assert needs(p.stdout)["plan"].startswith(f"N = 13, count mode, depth 3, symmetry full: {units:,} ")
    assert not (workdir / "other").exists()


def test_a_dry_run_judges_what_is_at_out_as_the_run_does(workdir):
    """A complete result at OUT: the run refuses it (exit 5) unless --force recomputes it or --skip-complete
    takes it as done, and only if it is this job's (the same parameters); a directory at OUT is an I/O error
    (exit 4), a file that is not a result is refused. The dry run says the same, with the same message and
    exit code, so a job that would end so is known before it is queued. It changes nothing."""
    out = workdir / "results" / "c.h5"
    args = ["run", "--n", 10, "--out", out]
    fresh = needs(run(args + ["--dry-run"], check=0).stdout)["output"]
    assert fresh == f"{out} does not exist yet: the run computes every unit", fresh
    run(args, ranks=2, check=0)
    before = out.read_bytes()
    for extra, code, said in [
            ([], EXIT["refused"], f"{out} already holds a complete result (N = 10, total 724); pass --force"),
            (["--skip-complete", "--depth", 3], EXIT["refused"], "already holds a complete result, but of other parameters"),
            (["--skip-complete"], 0, f"{out} already holds the complete result of this job (total 724): nothing to do")]:
        dry = run(args + extra + ["--dry-run"], timeout=60)
        real = run(args + extra, ranks=2, timeout=120)
        assert dry.returncode == real.returncode == code, (extra, dry.stderr, real.stderr)
        assert said in real.stderr, (extra, real.stderr)
        if code:   # the run's own line, before any plan line
            assert dry.stderr.splitlines()[0] in real.stderr.splitlines() and dry.stdout == "", (dry.stderr, real.stderr)
        else:
            assert said in needs(dry.stdout)["output"], dry.stdout
    forced = needs(run(args + ["--force", "--dry-run"], check=0).stdout)["output"]
    assert forced == (f"{out} holds a complete result ({attrs(out)['units_done']:,} units done, total 724): --force "
                      "recomputes every unit, and replaces it at the end"), forced
    assert out.read_bytes() == before and sorted(p.name for p in out.parent.iterdir()) == ["c.h5"]
    # A directory the run cannot write in: the dry run used to approve it (exit 0), and the job
    # failed (exit 4) once it started. (A read-only tmpfs where the test may mount one.)
    foreign = workdir / "foreign.txt"
    cases = [(workdir / "results", EXIT["io"], "is a directory; give a file path with --out"),
             (foreign, EXIT["refused"], "not an nqueens result file"),
             (foreign / "sub" / "r.h5", EXIT["io"],
              f"cannot create directory {foreign / 'sub'} for {foreign / 'sub' / 'r.h5'}: {foreign} is not a directory")]
    ro = workdir / "ro"
    ro.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)], capture_output=True).returncode == 0
    if mounted:
        cases += [(ro / "r.h5", EXIT["io"], f"cannot write in {ro} (r.h5, its journal): Read-only file system"),
                  (ro / "a" / "r.h5", EXIT["io"], f"cannot write in {ro} (r.h5, its journal, the directories on the way)")]
    try:
        for path, code, said in cases:
            if path == foreign:
                path.write_text("someone else's file\n")
            dry = run(["run", "--n", 10, "--out", path, "--dry-run"], timeout=60)
            real = run(["run", "--n", 10, "--out", path], ranks=2, timeout=120)
            assert dry.returncode == real.returncode == code and said in dry.stderr and said in real.stderr, \
                (path, dry.stderr, real.stderr)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(ro)], check=False)
    assert mounted or os.geteuid() != 0, "root could not mount a tmpfs"


def test_a_dry_run_sizes_the_memory_of_the_master_and_of_the_merge_and_refuses_what_the_job_would(workdir):
    """N = 27's default plan in 4 shards: each master keeps 40 bytes a unit of its shard and 2 bits a unit of
    the plan, the merge 40 bytes and 2 bits a unit of the whole job (6.6 GB); the dry run names the --mem
    for each (what slurm/submit gives the merge job). It judges the job's memory as the job will (Slurm's
    variables: what --mem asked for) and the 16 GiB cap, not this machine's cgroup (it plans a job for
    another machine), and refuses what the run would, with the run's message."""
    p = run(["run", "--n", 27, "--shard", "0/4", "--dry-run"], timeout=120, check=0, cwd=workdir)
    lines = needs(p.stdout)
    m = re.fullmatch(r"N = 27, count mode, depth (\d+), symmetry full: ([\d,]+) work units; shard 0/4: ([\d,]+) of them",
                     lines["plan"])
    assert m, p.stdout
    units, mine = int(m.group(2).replace(",", "")), int(m.group(3).replace(",", ""))
    assert mine == (units + 3) // 4 and units > 1.6e8   # ids 0, 4, 8, ...
    master, merge = 40 * mine + math.ceil(units * 2 / 8), 40 * units + math.ceil(units * 2 / 8)
    assert lines["master"].endswith(f"within its limit of 16 GiB: give its rank about {max(master / 0.75, 2 ** 30) / 1e9:.1f} "
                                    f"GB ({to_ask(master)} where it is alone on its node)"), lines["master"]
    assert lines["merge"] == (f"of the 4 shards keeps about {merge / 1e9:.1f} GB for the job's units: give it about "
                              f"{merge / 0.75 / 1e9:.1f} GB ({to_ask(merge)})"), lines["merge"]
    assert not (workdir / "results").exists()
    # Unsharded: no merge line; a small table is given 1 GiB.
    lines = needs(run(["run", "--n", 10, "--dry-run"], check=0, cwd=workdir).stdout)
    assert "merge" not in lines and lines["master"].endswith("(--mem=1024M where it is alone on its node)"), lines
    # Refused as the run is: within a job's 2000 MB (the run's own message: a depth, shards, memory); over the
    # 16 GiB cap on any machine (N = 31); over the units per plan.
    for args, extra, needle in [
            (["--n", 27], {"SLURM_MEM_PER_NODE": "2000"}, "over its limit of 1.6 GB (3/4 of the 2.1 GB this process may "
                                                          "use: SLURM_MEM_PER_NODE): use --depth 3 "),
            (["--n", 31], {}, "over its limit of 16 GiB: use --depth 3 "),
            (["--n", 26, "--depth", 22], {}, "over the limit of 1,073,741,824 (2^30) per plan")]:
        p = run(["run", *args, "--dry-run"], timeout=60, cwd=workdir, extra_env=extra)
        assert p.returncode == EXIT["usage"] and REFUSAL.search(p.stderr) and needle in p.stderr, p.stderr
        assert p.stdout == "" and not (workdir / "results").exists()
    p = run(["run", "--n", 20, "--mode", "boards", "--depth", 1, "--dry-run"], timeout=60, cwd=workdir)
    assert p.returncode == EXIT["usage"] and BOARDS_REFUSAL.search(p.stderr) and p.stdout == "", p.stderr
    # The same 2000 MB as SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE, 4 shards: 1.7 GB a master, refused too.
    p = run(["run", "--n", 27, "--shard", "0/4", "--dry-run"], timeout=60, cwd=workdir,
            extra_env={"SLURM_MEM_PER_CPU": "1000", "SLURM_CPUS_ON_NODE": "2"})
    assert p.returncode == EXIT["usage"] and "use --depth 3 " in p.stderr and "or --shard i/5 " in p.stderr, p.stderr
    # In 2048 MB the estimate lets that plan through, so its count stops past the limit, at a lower bound of
    # its units: the memory it names is sized by the estimate (with its margin), and is enough.
    p = run(["run", "--n", 27, "--shard", "0/4", "--dry-run"], timeout=60, cwd=workdir,
            extra_env={"SLURM_MEM_PER_NODE": "2048"})
    assert p.returncode == EXIT["usage"] and "work units; the master would keep more than " in p.stderr, p.stderr
    named = re.search(r" or more memory \(at least ([\d.]+) GB\)", p.stderr).group(1)
    assert master / 0.75 / 1e9 <= float(named) <= 1.2 * master / 0.75 / 1e9, (named, master)
    run(["run", "--n", 27, "--shard", "0/4", "--dry-run"], timeout=60, cwd=workdir, check=0,
        extra_env={"SLURM_MEM_PER_NODE": mebibytes(named)})   # and it is enough


COMPUTE = re.compile(r"about ([\d.e+]+) search nodes \(sampled, \+-(\d+) %\): about ([\d,]+) core-hours at ([\d.]+) ns "
                     r"a node, as timed here \(([\w-]+) kernel, one thread: (\d+) units of N = 18, ([\d.e+]+) nodes in "
                     r"([\d.]+) s, (?:one pass|the fastest of [23] passes)\); shard 0/4: about ([\d,]+) core-hours")


def sampled_plan(n):
    """bench/sampled-nodes.txt's last estimate of N's default plan: (nodes, its units, nodes' relative error)."""
    rows = [line.split() for line in (ROOT / "bench/sampled-nodes.txt").read_text().splitlines()
            if line.startswith(f"estimate {n} vector ")]
    return float(rows[-1][8]), int(rows[-1][5]), float(rows[-1][9])   # estimate N vector CORE_S REL_SE UNITS TIMED DEPTH NODES NODES_REL_SE


def test_a_dry_run_estimates_the_core_hours_from_the_plans_sampled_nodes_at_the_pace_timed_here(workdir):
    """A job's cost is its core-hours: the dry run prints the plan's search nodes, as sampled for its N
    (bench/sampled-nodes.txt, scaled to the plan's units), and the core time they take at the time a node
    took here, timed on units of N = 18 there and then; a shard's share too. Where nothing was sampled it
    says why and times nothing."""
    p = run(["run", "--n", 27, "--shard", "0/4", "--dry-run"], timeout=120, check=0, cwd=workdir)
    lines = needs(p.stdout)
    units = int(re.search(r"symmetry full: ([\d,]+) work units", lines["plan"]).group(1).replace(",", ""))
    m = COMPUTE.fullmatch(lines["compute"])
    assert m, lines["compute"]
    nodes, its_units, rel_se = sampled_plan(27)
    nodes += its_units - units   # a plan of another depth: one node more or less a unit
    assert float(m[1]) == float(f"{nodes:.3g}") and int(m[2]) == round(100 * rel_se), lines["compute"]
    ns, timed_units, timed_nodes, seconds = float(m[4]), int(m[6]), float(m[7]), float(m[8])
    assert 1 <= timed_units <= math.ceil(5728 / 24) and ns == pytest.approx(1e9 * seconds / timed_nodes, rel=0.06)
    hours = int(m[3].replace(",", ""))
    assert hours == pytest.approx(nodes * ns * 1e-9 / 3600, rel=0.06), lines["compute"]
    assert int(m[9].replace(",", "")) == pytest.approx(hours / 4, rel=0.06), lines["compute"]
    # Timed here: against a count on one thread of this machine, whose report gives its seconds and nodes
    # (generous: both are timed on a host that may be busy with other tests).
    count = {line.split(None, 1)[0]: line.split(None, 1)[1] for line in
             run(["count", 17, "--threads", 1, "--quiet"], timeout=120, check=0).stdout.splitlines()}
    counted_ns = 1e9 * float(count["seconds"]) / int(re.search(r"nodes (\d+)", count["units"]).group(1))
    assert 1 / 5 < ns / counted_ns < 5, (ns, counted_ns)
    for args, why in [(["--n", 18], "the search nodes are sampled from N = 19 on; N = 18 takes core-minutes at most"),
                      (["--n", 20, "--symmetry", "mirror"], "the search nodes are sampled for plans of symmetry full only"),
                      (["--n", 19, "--mode", "boards"], "in boards mode, storing the boards takes most of the time")]:
        lines = needs(run(["run", *args, "--dry-run"], timeout=60, check=0, cwd=workdir).stdout)
        assert lines["compute"].startswith("not estimated: " + why), lines["compute"]


def test_a_dry_run_of_a_resume_takes_the_journaled_units_nodes_off_the_core_time(workdir):
    """A run that resumes searches only what its journal lacks: the dry run reads the journal (no
    lock: a run may hold it), counts its units once each and takes their nodes off the plan's
    estimate. Here a shard of N = 19 is stopped once 15,000 of its 42,135 units are journaled; the line names
    those units and the nodes the partial file says they took, and the core time left is the
    rest of the shard's nodes at the pace timed. --force keeps this job's journal, and takes the
    same part off. Without the journal, the partial file's units (which the run adopts) are taken
    off; --force, which replaces the file, then gives no such part."""
    out = workdir / "r19.h5"
    cmd = ["run", "--n", 19, "--shard", "1/2", "--out", out, "--threads", 1]
    code, err = strike(cmd, 2, lambda proc, master: os.kill(master, signal.SIGTERM), at=15000)
    assert code == EXIT["interrupted"], err
    done = attrs(out)["units_done"]
    assert 15000 <= done == journaled_units(out), err
    done_nodes = int(units_table(out)["nodes"].sum())
    line = needs(run(cmd + ["--dry-run"], timeout=120, check=0).stdout)["compute"]
    # (core time in the unit that reads best at this host's pace: seconds, or minutes on a slow or busy one)
    m = re.fullmatch(rf"about ([\d.e+]+) search nodes .*?: {CORE_TIME} at ([\d.]+) ns a node, .*; "
                     rf"shard 1/2: {CORE_TIME}; left after the ([\d,]+) units done \(([\d.e+]+) nodes, "
                     rf"in the journal\): {CORE_TIME}", line)
    assert m, line
    nodes, ns = float(m[1]), float(m[4])
    (shard_seconds, _), (left_seconds, left_unit) = core_seconds(m[5], m[6]), core_seconds(m[9], m[10])
    assert int(m[7].replace(",", "")) == done and float(m[8]) == float(f"{done_nodes:.3g}"), line
    assert left_seconds <= shard_seconds, line
    assert left_seconds == pytest.approx((nodes / 2 - done_nodes) * ns * 1e-9, rel=0.02, abs=max(left_unit / 2 + 0.5, 0.05 * left_seconds)), line
    forced = needs(run(cmd + ["--dry-run", "--force"], timeout=120, check=0).stdout)["compute"]
    assert forced.startswith(f"about {m[1]} search nodes"), forced
    assert re.search(rf"; left after the {m[7]} units done \({re.escape(m[8])} nodes, in the journal\): {CORE_TIME}$",
                     forced), forced
    # Its journal gone, the run resumes from the partial file's units: the same units, from there.
    journal_of(out).rename(workdir / "away.journal")
    line = needs(run(cmd + ["--dry-run"], timeout=120, check=0).stdout)["compute"]   # (its pace timed anew)
    assert re.search(rf"; left after the {m[7]} units done \({re.escape(m[8])} nodes, in {re.escape(str(out))}'s "
                     rf"units\): {CORE_TIME}$", line), line
    forced = needs(run(cmd + ["--dry-run", "--force"], timeout=120, check=0).stdout)["compute"]
    assert "left after" not in forced and forced.startswith(f"about {m[1]} search nodes"), forced


def test_count_refuses_a_plan_beyond_the_limits_naming_a_depth(workdir):
    p = run(["count", 26, "--depth", 22], timeout=60)
    assert p.returncode == EXIT["usage"], p.stderr
    assert REFUSAL.search(p.stderr) and "--shard" not in p.stderr, p.stderr
    assert p.stdout == ""


def test_count_holds_its_plan_in_the_bytes_its_memory_check_counts(workdir):
    """The check lets a plan through by 48 bytes a unit (docs/usage.md, Limits). One process grew
    its vector of units one by one until session 46, up to 3x that while it doubled: 407 MB at
    its peak for these 5.5 M units (265 MB counted), and a plan the check let through died of
    std::bad_alloc (exit 1) or the OOM killer. Peak RSS from the kernel (wait4), not timed."""
    proc = start(["count", 16, "--depth", 6, "--threads", 1, "--quiet"])
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, err
    assert re.search(r"^total +14772512$", out, re.M), out
    units = int(re.search(r"^units +(\d+) \(depth 6\)", out, re.M)[1])
    peak = usage.ru_maxrss * 1024   # (kilobytes on Linux)
    assert peak <= 48 * units + 32 * 2 ** 20, (peak, units)   # 13.5 MB without a plan to hold


BOARDS_REFUSAL = re.compile(r"nqueens: error: boards mode holds each unit's result in memory .*the plan "
                            r"\(N = (\d+), depth (\d+), symmetry (\w+)\) has ([\d,]+) units; storing every board, "
                            r"a unit's result \(its completions\) holds ([\d.]+) MiB on average, over the limit of 0.80 MiB "
                            r".*: use --depth (\d+) \(([\d,]+) units\)")


@pytest.mark.parametrize("ranks", [None, 2])
def test_a_boards_plan_whose_units_hold_too_many_boards_is_refused_naming_a_depth_that_works(workdir, ranks):
    # N = 15, no symmetry, depth 1: 15 units of 2,279,184 boards in all, each its own
    # completion, 2.17 MiB a unit on average (a worker builds a unit's result whole): refused
    # before any file; the depth it names runs, and stores every board.
    out = workdir / "results" / "b15.h5"
    args = ["run", "--n", 15, "--mode", "boards", "--symmetry", "none", "--out", out]
    p = run(args + ["--depth", 1], ranks=ranks, timeout=120)
    assert p.returncode == EXIT["usage"], p.stderr
    m = BOARDS_REFUSAL.search(p.stderr)
    assert m, p.stderr
    assert (m.group(1), m.group(2), m.group(3), m.group(4)) == ("15", "1", "none", "15")
    assert float(m.group(5)) == pytest.approx(KNOWN[15]['total'] * 15 / 15 / 2 ** 20, abs=0.01)
    assert not (workdir / "results").exists()   # refused before any file or directory was created
    depth_ok = int(m.group(6))
    assert depth_ok == 2
    p = run(args + ["--depth", depth_ok], ranks=2, timeout=300)
    assert p.returncode == EXIT["ok"], p.stderr
    a = attrs(out)
    assert int(a["depth"]) == depth_ok and int(a["units_total"]) == int(m.group(7).replace(",", ""))
    assert int(a["total"]) == KNOWN[15]['total']
    with h5py.File(out) as f:
        assert f["boards/solutions"].shape == (KNOWN[15]['total'], 15)


def term_when(proc, ready, pid=None):
    """Waits for ready() (which raises if the moment does not come), then stops the process
    (`pid`, default the one started), queues SIGTERM and continues it. Returns the seconds from
    the signal to the exit and the whole stderr."""
    lines = StderrLines(proc)
    try:
        ready(lines)
        os.kill(pid or proc.pid, signal.SIGSTOP)
        os.kill(pid or proc.pid, signal.SIGTERM)
        t0 = time.monotonic()
        os.kill(pid or proc.pid, signal.SIGCONT)
        proc.wait(timeout=120)
    except BaseException:
        kill_group(proc)
        raise
    return time.monotonic() - t0, lines.close()


@pytest.mark.parametrize("ranks", [None, 2])
def test_sigterm_while_the_plan_is_counted_ends_the_run_at_once_with_exit_75(workdir, ranks):
    out = workdir / "out.h5"
    # 807,998,022 units (N = 17, 11 rows, no symmetry): within the limits with 8 shards (~9 GB
    # of master memory each), and counting them exactly takes ~6 s here.
    proc = start(["run", "--n", 17, "--depth", 11, "--symmetry", "none", "--shard", "0/8", "--out", out],
                 ranks=ranks)
    try:
        pid = pid_of_rank(proc, 0) if ranks else proc.pid
    except BaseException:
        kill_group(proc)
        raise
    seconds, err = term_when(proc, lambda lines: lines.wait_for("counting the work units of the plan"), pid)
    assert proc.returncode == EXIT["interrupted"], err
    assert "stopped by signal 15 while counting the work units" in err and "rerun the same command" in err
    assert seconds < ANSWER_SECONDS, f"exit {seconds:.2f} s after the signal"
    print(f"SIGTERM while counting the plan ({'mpirun -n 2' if ranks else 'one process'}): exit {seconds:.3f} s later")
    assert not out.exists() and not journal_of(out).exists()   # the plan is counted before any file


def test_sigterm_during_the_burnside_search_ends_the_run_at_once_with_a_partial_file(workdir):
    out = workdir / "b.h5"
    args = ["run", "--n", 24, "--depth", 1, "--symmetry", "none", "--threads", 1, "--out", out]
    # 1. The journal of this job (its header is written whole, by a rename): the first run is
    #    killed as soon as it exists, long before its first unit (~minutes) is done.
    proc = start(args)
    try:
        wait_until(journal_of(out).exists, "journal", 60, proc)
    finally:
        kill_group(proc)
    key = Journal(journal_of(out)).key()
    units = key["units_total"]
    # 2. Every unit journaled, with a synthetic count: 2^60 completions each, a total past 2^64.
    #    The units are the plan's (a resumed journal's must be): with no symmetry reduction, unit
    #    i is the queen of row 0 in column i, multiplicity 1.
    assert units == 24
    journal_of(out).write_bytes(journal_header(key) + b"".join(journal_record(i, 1, 2 ** 60, placement=[i])
                                                               for i in range(units)))
    before = journal_of(out).read_bytes()
    # 3. The rerun has nothing left to compute and starts the Burnside search (N = 24: ~4 s on
    #    two cores, 9 s on one).
    proc = start(args)
    seconds, err = term_when(proc, lambda lines: lines.wait_for("Burnside check"))
    assert proc.returncode == EXIT["interrupted"], err
    assert f"resuming from {journal_of(out)}: {units} of {units} units already done" in err
    assert f"stopped by signal 15: {units} of {units} units done; partial result in {out}" in err, err
    assert seconds < ANSWER_SECONDS, f"exit {seconds:.2f} s after the signal"
    print(f"SIGTERM during the Burnside search: exit {seconds:.3f} s later")
    a = attrs(out)
    assert a["status"] == "partial" and a["units_done"] == units and a["unique"] == 0
    assert a["matches_known"] == "unknown" and a["rot180_fixed"] == 0
    u = units_table(out)
    assert list(u["id"]) == list(range(units)) and set(u["multiplicity"]) == {1}
    assert list(u["placement"][:, 0]) == list(range(units)) and (u["placement"][:, 1:] == 0xFF).all()
    assert int(a["total_decimal"]) == units * 2 ** 60 > TWO64 and a["total"] == TWO64 - 1
    assert journal_of(out).read_bytes() == before   # the finished work is intact


def bump(units_path):
    """The unit row of multiplicity 8 whose count gets 2^61 more: 2^64 more in the total, a
    multiple of 8, so Burnside's identity still holds (unique grows by 2^61)."""
    u = units_table(units_path)
    return int(np.nonzero(u["multiplicity"] == 8)[0][0])


def test_a_run_whose_total_passes_2_to_64_sums_stores_and_reports_it_exactly(workdir):
    args = ["run", "--n", 16, "--depth", 1, "--symmetry", "full"]
    ref = workdir / "ref.h5"
    run(args + ["--out", ref], check=0)
    a, u = attrs(ref), units_table(ref)
    row = bump(ref)
    # The same job's journal with every unit done, one of them 2^61 completions larger.
    out = workdir / "wide.h5"
    key = {"n": 16, "depth": 1, "shard_index": 0, "shard_count": 1, "units_total": int(a["units_total"]),
           "mode": "count", "boards_stored": "none", "symmetry": "full", "program_version": a["program_version"]}
    records = [journal_record(int(uid), int(m), int(s) + (2 ** 61 if i == row else 0), int(nodes), placement)
               for i, (uid, m, s, nodes, placement) in enumerate(zip(u["id"], u["multiplicity"], u["solutions"],
                                                                     u["nodes"], u["placement"]))]
    journal_of(out).write_bytes(journal_header(key) + b"".join(records))
    p = run(args + ["--out", out])
    total, unique = KNOWN[16]["total"] + TWO64, KNOWN[16]["unique"] + 2 ** 61
    assert p.returncode == EXIT["verify"], p.stderr   # exact, but not the published count
    assert f"total    {total}\n" in p.stdout and f"unique   {unique} " in p.stdout, p.stdout
    assert f"verification failed: total {total}, unique {unique} differ from the published" in p.stderr
    b = attrs(out)
    assert b["status"] == "complete" and b["matches_known"] == "no"
    assert (b["total"], b["total_hi"], b["total_lo"], b["total_decimal"]) == (TWO64 - 1, 1, KNOWN[16]["total"], str(total))
    assert (b["unique"], b["unique_hi"], b["unique_lo"], b["unique_decimal"]) == (unique, 0, unique, str(unique))
    info = run(["info", out], check=0)
    assert re.search(rf"^total +{total}$", info.stdout, re.M) and re.search(rf"^unique +{unique}$", info.stdout, re.M)


def test_merge_sums_shards_past_2_to_64_exactly(workdir):
    args = ["run", "--n", 16, "--depth", 1, "--symmetry", "full"]
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(args + ["--shard", f"{i}/2", "--out", s], check=0)
    row = bump(shards[0])
    with h5py.File(shards[0], "r+") as f:   # a shard whose subtotal grows by 2^64, consistently
        sol = f["units/solutions"][...]
        sol[row] += np.uint64(2 ** 61)
        f["units/solutions"][...] = sol
        subtotal = sum(int(m) * int(s) for m, s in zip(f["units/multiplicity"][...], sol))
        set_counts(f, total=subtotal)
    assert run(["info", shards[0]], check=0).stdout.count(str(subtotal)) == 1
    merged = workdir / "m.h5"
    p = run(["merge", merged, *shards])
    total, unique = KNOWN[16]["total"] + TWO64, KNOWN[16]["unique"] + 2 ** 61
    assert p.returncode == EXIT["verify"], p.stderr
    assert f"total {total}, unique {unique}, matches published: no" in p.stdout, p.stdout
    b = attrs(merged)
    assert b["total_decimal"] == str(total) and (b["total_hi"], b["total_lo"]) == (1, KNOWN[16]["total"])
    assert b["unique"] == unique and b["status"] == "complete"


SAME_STOP_SECONDS = 10   # app::kSameStopSeconds


def to_thread(pid, tid, sig):
    """tgkill(2): `sig` to thread `tid` of process `pid` (the main thread's tid is the pid)."""
    number = {"x86_64": 234, "aarch64": 131}[os.uname().machine]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, pid, tid, sig) != 0:
        raise OSError(ctypes.get_errno(), f"tgkill({pid}, {tid}, {sig})")


@pytest.mark.parametrize("second", ["at once", "later"])
def test_a_second_signal_during_the_partial_write_is_the_same_stop_only_at_once(workdir, second):
    """At a time limit Slurm sends the step SIGTERM and the batch script forwards its own: the
    second, moments after the first, abandoned the partial file every time (the job resumed from
    its journal, but the log said the partial file was kept, and there was none). A signal within
    10 s of the one that stopped the run is the same stop: the partial file is written. Later, it
    abandons the write: OUT is left as it was, the journal keeps every finished unit. The moments
    are the injected stops: the master held at 20 journaled units (the first SIGTERM), then in the
    partial file's write (the second, sent at once or 11 s after the first)."""
    out = workdir / "p.h5"
    proc = start(["run", "--n", 16, "--out", out], ranks=2, extra_env=fault_env(stop_after(20), STOP_WRITING))
    try:
        master = pid_of_rank(proc, 0)
        when_stopped(proc, master, lambda: os.kill(master, signal.SIGTERM))

        def again():   # to the main thread, which writes the file: a signal to the process may run
            if second == "later":   # its handler on another thread after the write's last poll
                time.sleep(SAME_STOP_SECONDS + 1)
            to_thread(master, master, signal.SIGTERM)

        when_stopped(proc, master, again)
        _, err = proc.communicate(timeout=120)
    except BaseException:
        kill_group(proc)
        raise
    assert proc.returncode == EXIT["interrupted"], err
    if second == "at once":
        assert attrs(out)["status"] == "partial" and "left as it was" not in err, err
        assert attrs(out)["units_done"] == journaled_units(out), err
    else:
        assert f"while writing {out}: {out} was left as it was" in err and not out.exists(), err
        assert journaled_units(out) >= 20


def test_sigterm_while_the_result_file_is_written_abandons_the_write_and_keeps_the_journal(workdir):
    out = workdir / "w.h5"
    args = ["run", "--n", 15, "--mode", "boards", "--symmetry", "full", "--threads", 2, "--out", out]
    proc = start(args, extra_env=fault_env(STOP_WRITING))

    def writing(lines):   # the process stopped itself while it writes the complete file
        wait_until(lambda: process_state(proc.pid) == "T", "stop in the result file's write", 300, proc)
        assert list(workdir.glob("w.h5.tmp-*")), lines.text()

    seconds, err = term_when(proc, writing)
    assert proc.returncode == EXIT["interrupted"], err
    assert f"while writing {out}: {out} was left as it was" in err, err
    assert seconds < ANSWER_SECONDS, f"exit {seconds:.2f} s after the signal"
    print(f"SIGTERM while the result file is written: exit {seconds:.3f} s later")
    assert not out.exists() and not list(workdir.glob("w.h5.tmp-*"))   # no file, not a broken one
    j = Journal(journal_of(out))
    journaled = {j.unit(i)[0] for i in range(len(j.records))}
    p = run(args, check=0)   # the rerun only writes the file
    assert "resuming from" in p.stderr
    a = attrs(out)
    assert a["status"] == "complete" and a["total"] == KNOWN[15]["total"] and a["units_total"] == len(journaled)
