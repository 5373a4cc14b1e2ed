"""`nqueens run` under mpirun across three emulated hosts (conftest.py, hosts.sh): Open MPI over
TCP only, the master on host 1, workers on all three. Same files as on one host, a lost host,
a slow link."""
import re
import subprocess
import time

import numpy as np
import pytest

from conftest import H1, H2, H3, HOSTS, SUBNET
from faultlib import Journal, journal_of
from nqtest import (BIN, KNOWN, ROOT, assert_same_result, attrs, board_set, fault_env, journaled_units, pid_of_rank,
                    resumed_units, run, stop_after, units_table, wait_until, when_stopped)

# master + a worker on host 1, one worker on host 2, two on host 3
LAYOUT = {H1: 2, H2: 1, H3: 2}
RANK_HOST = {0: H1, 1: H1, 2: H2, 3: H3, 4: H3}
# The default threads of a worker are its host's cores shared by the worker ranks there (the
# master's rank leaves them to the workers): 2 cores -> 2 on hosts 1 and 2, 1 each on host 3.
CORES = 2
THREADS = {r: CORES // sum(1 for q, h in RANK_HOST.items() if h == RANK_HOST[r] and q != 0) for r in RANK_HOST if r}

# A lost host: N = 17 with the plain plan, 4 rows pre-placed (24,851 units), runs a few seconds
# across the hosts; the host is lost once the journal holds LOST_AT units (the master stops itself
# there, injected fault stop-after, and is continued after the loss: a moment of progress, not
# of time). The job must end by itself, with no process of it left on any host, within
# LOST_BOUND seconds.
LOST_N = 17
LOST_AT = 5000
LOST_BOUND = 60


def test_ranks_are_placed_on_the_hosts_of_the_hostfile(cluster, workdir):
    hf = cluster.hostfile(workdir / "hosts", LAYOUT)
    p = cluster.run(["-c", "echo $OMPI_COMM_WORLD_RANK $(hostname)"], hf, len(RANK_HOST), program="sh", check=0)
    placed = dict(line.split() for line in p.stdout.splitlines() if line.strip())
    assert {int(r): h for r, h in placed.items()} == RANK_HOST, p.stdout


@pytest.mark.parametrize("mode,n", [("count", 14), ("boards", 12)])
def test_three_hosts_give_the_file_of_one_host(cluster, workdir, mode, n, report):
    one, three = workdir / "one.h5", workdir / "three.h5"
    run(["run", "--n", n, "--mode", mode, "--out", one], ranks=3, check=0)   # one machine, shared memory
    hf = cluster.hostfile(workdir / "hosts", LAYOUT)
    p = cluster.run(["run", "--n", n, "--mode", mode, "--out", three], hf, len(RANK_HOST), check=0)

    assert_same_result(one, three)   # totals, status, the unit table
    a = attrs(three)
    assert a["total"] == KNOWN[n]["total"] and a["matches_known"] == "yes"
    if mode == "boards":
        boards = board_set(three)
        assert boards == board_set(one) and len(boards) == KNOWN[n]["total"]
    assert a["hosts"] == ",".join(HOSTS), a["hosts"]
    assert a["ranks"] == len(RANK_HOST)
    assert a["threads"] == max(THREADS.values())
    total_threads = sum(THREADS.values())
    assert f"layout   {len(RANK_HOST)} rank(s), {total_threads} compute thread(s) on {','.join(HOSTS)}" in p.stdout, p.stdout
    u = units_table(three)
    assert set(u["rank"].tolist()) == set(THREADS), "every worker rank, on every host, computed units"
    for r, t in THREADS.items():
        assert u["thread"][u["rank"] == r].max() < t, f"rank {r} on {RANK_HOST[r]} used more than {t} thread(s)"
    report(f"{mode} N = {n}: same file on 3 hosts as on one; threads per worker rank {THREADS} "
           f"(total {total_threads}); units per rank {dict(zip(*np.unique(u['rank'], return_counts=True)))}")


def test_a_check_across_hosts_deals_the_units_and_names_the_host_of_each_recount(cluster, workdir, report):
    """`nqueens check` under mpirun over the three hosts: each unit recounted once, by one of the five ranks,
    each line naming the rank and its host; every rank computes (rank 0 too: it is no idle master here),
    so host 1's two ranks share its cores."""
    out = workdir / "c14.h5"
    run(["run", "--n", 14, "--depth", 3, "--out", out], ranks=3, check=0)
    hf = cluster.hostfile(workdir / "hosts", LAYOUT)
    p = cluster.run(["check", out, "--units", "0-99"], hf, len(RANK_HOST), check=0)
    named = re.findall(r"^unit +(\d+) +agrees .*  \(rank (\d+), host ([^)]+)\)$", p.stdout, re.M)
    assert [int(u) for u, _, _ in named] == list(range(100)), p.stdout
    assert {int(r) for _, r, _ in named} == set(RANK_HOST), p.stdout
    assert all(RANK_HOST[int(r)] == h for _, r, h in named), p.stdout
    per_rank = {r: CORES // sum(1 for h in RANK_HOST.values() if h == RANK_HOST[r]) for r in RANK_HOST}
    assert f"search on {sum(per_rank.values())} thread(s) of {len(RANK_HOST)} ranks" in p.stdout, p.stdout
    assert len(re.findall(r"^result +100 of 100 units agree", p.stdout, re.M)) == 1, p.stdout
    report(f"check over 3 hosts: 100 units dealt to ranks {sorted({int(r) for _, r, _ in named})}, "
           f"threads per rank {per_rank}")


def test_a_count_across_hosts_shares_the_units_and_rank_0_prints_one_report(cluster, workdir, report):
    """`nqueens count` under mpirun over the three hosts: one report, whose total is the published one and
    whose nodes are one process's count of the same plan (each unit counted by one rank), with a layout
    line naming the five ranks, their threads (every rank computes) and the three hosts."""
    cmd = ["count", 15, "--depth", 2, "--quiet"]
    alone = run(cmd, check=0).stdout
    hf = cluster.hostfile(workdir / "hosts", LAYOUT)
    p = cluster.run(cmd, hf, len(RANK_HOST), check=0)
    assert p.stdout.count("total    ") == 1 and f"total    {KNOWN[15]['total']}\n" in p.stdout, p.stdout
    nodes = re.search(r"^units .*, nodes \d+$", alone, re.M).group(0)
    assert nodes in p.stdout.splitlines(), (alone, p.stdout)
    per_rank = {r: CORES // sum(1 for h in RANK_HOST.values() if h == RANK_HOST[r]) for r in RANK_HOST}
    layout = re.search(r"^layout +5 rank\(s\), (\d+) compute thread\(s\) on (.+)$", p.stdout, re.M)
    assert layout and int(layout.group(1)) == sum(per_rank.values()), p.stdout
    assert set(layout.group(2).split(",")) == set(HOSTS), p.stdout
    report(f"count over 3 hosts: {nodes}, {layout.group(0)}")


def _lost_host(cluster, how):
    if how == "kill":
        cluster.kill(H3)            # every process of host 3: its orted and its ranks
    else:
        cluster.link(H3, "down")    # the cable: host 3's processes live on, unreachable


@pytest.mark.parametrize("how", ["kill", "link"])
def test_a_lost_host_ends_the_job_and_the_rerun_on_the_others_is_exact(cluster, workdir, how, report):
    """Host 3 is lost mid-run (all its processes killed, or its link cut) once the journal holds
    LOST_AT units. The job ends by itself within LOST_BOUND s and no process of it is left on any
    host; the journal is intact (every record whole, or a torn last one), and the rerun on hosts
    1 and 2 resumes from it and gives the exact total."""
    n, out = LOST_N, workdir / "lost.h5"
    args = ["run", "--n", n, "--symmetry", "none", "--depth", 4, "--out", out, "--checkpoint-interval", 0.05]
    proc = cluster.start(args, cluster.hostfile(workdir / "hosts3", {H1: 2, H2: 1, H3: 1}), 4,
                         extra_env=fault_env(stop_after(LOST_AT)))
    try:
        when_stopped(proc, pid_of_rank(proc, 0), lambda: _lost_host(cluster, how))
        lost_at, units_at_loss = time.monotonic(), journaled_units(out)
        try:
            stdout, stderr = proc.communicate(timeout=LOST_BOUND)
        except subprocess.TimeoutExpired:
            left = {h: cluster.job_processes(h) for h in HOSTS}
            report(f"lost host ({how}): the job still ran {LOST_BOUND} s after host 3 was lost (hang); left: {left}")
            pytest.fail(f"lost host ({how}): mpirun did not end within {LOST_BOUND} s; processes left: {left}")
        ended = time.monotonic() - lost_at
        wait_until(lambda: not any(cluster.job_processes(h) for h in HOSTS),
                   lambda: f"end of the job's processes (left: {({h: cluster.job_processes(h) for h in HOSTS})})",
                   max(0.0, LOST_BOUND - (time.monotonic() - lost_at)), step=0.1)
        gone = time.monotonic() - lost_at
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        cluster.link(H3, "up")

    if out.exists() and attrs(out)["status"] == "complete":
        # The master declared host 3's workers stalled, handed their batches to the others and
        # wrote the complete file; then it waits for them (kRemoteStopWaitSeconds) and Open MPI's
        # own detection of the lost node ends the job (non-zero), or the master's MPI_Abort does.
        assert "has not answered for over 3 s" in stderr, stderr
        a = attrs(out)
        assert a["total"] == KNOWN[n]["total"] and a["matches_known"] == "yes", stdout + stderr
        assert not journal_of(out).exists()
        report(f"lost host ({how}) at {units_at_loss} units: the job completed without it (exit "
               f"{proc.returncode}), mpirun ended {ended:.1f} s after the loss, no process left after {gone:.1f} s")
        return
    j = Journal(journal_of(out))
    ids = [j.unit(i)[0] for i in range(len(j.records))]
    assert len(ids) >= LOST_AT and len(set(ids)) == len(ids), "every journaled unit once"
    assert len(j.data) - j.valid_end < 8 + 4096, "only the last record may be torn"

    p = cluster.run(args, cluster.hostfile(workdir / "hosts2", {H1: 2, H2: 1}), 3, check=0)
    assert resumed_units(p.stderr) == len(ids), p.stderr
    a, u = attrs(out), units_table(out)
    assert a["status"] == "complete" and a["total"] == KNOWN[n]["total"] and a["matches_known"] == "yes"
    assert a["hosts"] == f"{H1},{H2}"
    assert units_at_loss < a["units_total"] // 2, "the host was lost early in the job"
    row = {uid: i for i, uid in enumerate(u["id"].tolist())}
    for i, uid in enumerate(ids):   # what was journaled before the loss is what the file holds
        _, mult, sols = j.unit(i)
        assert (u["multiplicity"][row[uid]], u["solutions"][row[uid]]) == (mult, sols), uid
    report(f"lost host ({how}) at {units_at_loss} of {a['units_total']} units: mpirun ended after {ended:.1f} s "
           f"(exit {proc.returncode}), no process left on any host after {gone:.1f} s; the journal held "
           f"{len(ids)} units; the rerun on {H1},{H2} resumed them, exact total")


def dispatch(cluster, workdir, layout):
    """bench/dispatch.sh over the hosts (N = 13, 9 rows pre-placed: 543,284 units of well under a
    microsecond each): its table's two rows, one process on host 1 and mpirun across the hosts."""
    hf = cluster.hostfile(workdir / "dispatch-hosts", layout)
    ranks = sum(layout.values())
    launcher = f"mpirun --hostfile {hf} --mca btl self,tcp --mca btl_tcp_if_include {SUBNET} --mca oob_tcp_if_include {SUBNET}"
    p = cluster.exec(H1, [ROOT / "bench/dispatch.sh", f"{ranks}x1", 13, 9], timeout=600,
                     env={"NQUEENS_BIN": BIN, "NQ_MPIRUN": launcher})
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [l for l in p.stdout.splitlines() if l.startswith(("one process", "mpirun"))]
    assert len(rows) == 2, p.stdout
    m = re.match(r"mpirun -n (\d+), 1 thread\(s\)/worker\s+(\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\+([\d.]+)$", rows[1])
    assert m, rows[1]
    units = int(rows[0].split()[-5])
    assert int(m.group(2)) == units == 543284 and int(m.group(4)) > 0
    return rows, float(m.group(6)) + float(m.group(7))


def test_a_slow_link_still_finishes_with_the_dispatch_figures(cluster, workdir, report):
    """Host 3's link delays every frame 10 ms each way and drops 1 % of them (slowlink.py: the
    kernel has no sch_netem). A real job still finishes exactly, with host 3 taking part; the
    dispatch figures of bench/dispatch.sh over TCP, with and without the slow link."""
    layout = {H1: 2, H2: 1, H3: 1}
    fast_rows, fast_bytes = dispatch(cluster, workdir, layout)
    cluster.slow(H3, 10, 0.01)
    slow_rows, slow_bytes = dispatch(cluster, workdir, layout)
    out = workdir / "slow.h5"
    p = cluster.run(["run", "--n", 14, "--out", out], cluster.hostfile(workdir / "hosts", layout), 4, check=0)
    a, u = attrs(out), units_table(out)
    assert a["total"] == KNOWN[14]["total"] and a["hosts"] == ",".join(HOSTS)
    assert 3 in set(u["rank"].tolist()), "the worker behind the slow link computed units"
    assert "dispatch " in p.stdout
    # The messages do not change with the link: bytes per unit within 20 % (batch sizes vary).
    assert abs(slow_bytes - fast_bytes) < 0.2 * fast_bytes, (fast_rows, slow_rows)
    report("dispatch over TCP (bench/dispatch.sh N = 13, depth 9; layout, units, seconds, units/s, vs single, bytes/unit):")
    for label, rows in (("plain veth", fast_rows), ("host 3 at 10 ms each way, 1 % loss", slow_rows)):
        report(f"  {label}:")
        for r in rows:
            report(f"    {r}")
    share = int((u["rank"] == 3).sum())
    report(f"  N = 14 over the slow link: exact; host 3's worker computed {share} of {len(u['rank'])} units; "
           + next(l for l in p.stdout.splitlines() if l.startswith("dispatch")))
