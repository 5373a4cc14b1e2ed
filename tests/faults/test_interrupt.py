"""Interruptions at random (seeded) moments, several over one job, each followed by a rerun that
is itself interrupted, until one run finishes: kill -9 of a worker, kill -9 of the master
(including while it writes the result file), SIGTERM/SIGUSR1 to the master. The final file must
equal an uninterrupted run's: totals, unit table and (boards mode) the board set.

Moments are progress, not seconds: a seeded share of the units left, at which the master stops
itself (injected fault stop-after, or stop-writing in the middle of the result file's write) and
is struck while it is held; the same seed gives the same moments on any machine."""
import os
import signal

import pytest

from faultlib import (BOARDS_N, CHECKPOINT, COUNT_N, Journal, injected, interrupt, journal_of,
                      kill_group, readable_result, sha256, stop_a_job_of_long_units, temp_files)
from nqtest import (EXIT, KNOWN, STOP_WRITING, assert_same_result, attrs, board_set, cpu_seconds,
                    fault_env, journaled_units, pid_of_rank, resumed_units, run, start, stop_after, wait_until,
                    when_stopped)


def count_args(out):
    return ["run", "--n", COUNT_N, "--out", out, "--symmetry", "mirror", "--progress-interval", 1,
            "--checkpoint-interval", CHECKPOINT]


def boards_args(out):
    return ["run", "--n", BOARDS_N, "--mode", "boards", "--out", out, "--symmetry", "mirror",
            "--progress-interval", 1, "--checkpoint-interval", CHECKPOINT]


@pytest.fixture(scope="module")
def count_ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "count.h5"
    run(count_args(out), ranks=3, check=0)
    return out


@pytest.fixture(scope="module")
def boards_ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "boards.h5"
    run(boards_args(out), ranks=3, check=0)
    return out


def moment(rng, out, ref, lo, hi):
    """A random moment of a run, as progress: the journal's unit count at which to strike, a
    share uniform in [lo, hi] of the units this run still has to do (never 0, never all)."""
    done = journaled_units(out)
    left = attrs(ref)["units_total"] - done
    return done + max(1, min(left - 1, round(rng.uniform(lo, hi) * left)))


def check_final(stderr, out, ref, boards=False):
    """The run that finished: it resumed from the journal and its file equals the reference."""
    assert resumed_units(stderr) > 0, "the final run did not resume from the journal:\n" + stderr
    assert_same_result(ref, out)
    assert attrs(out)["matches_known"] == "yes" and attrs(out)["total"] == KNOWN[attrs(out)["n"]]["total"]
    if boards:
        assert board_set(out) == board_set(ref)
    assert not journal_of(out).exists() and not temp_files(out)


def finish_and_compare(args, out, ref, boards=False):
    p = run(args, ranks=3, check=0)
    check_final(p.stderr, out, ref, boards)
    return p


def kill_chain(rng, out, ref, kills, pick_rank, label):
    """`kills` runs, each killed with -9 at a random moment (2-50 % of the units it has left),
    then one run that finishes and must equal the uninterrupted one. A killed run never leaves
    a broken file at OUT: none, the last partial file, or (a worker killed when the master,
    continued, had the last results already: it finishes before mpirun's teardown reaches it)
    the complete, exact file, which ends the chain."""
    for i in range(kills):
        rank = pick_rank()
        target = moment(rng, out, ref, 0.02, 0.5)
        code, _, err = interrupt(count_args(out), rank, signal.SIGKILL, target)
        print(f"{label} {i}: kill -9 rank {rank} at {target} journaled units -> exit {code}")
        injected(label)
        assert code != 0
        if out.exists() and readable_result(out)["status"] == "complete":
            assert rank != 0, "a master killed while held wrote a complete file"
            assert_same_result(ref, out)
            assert not journal_of(out).exists() and not temp_files(out)
            print(f"{label} {i}: the master finished the job before mpirun ended it")
            return
        if out.exists():
            assert readable_result(out)["status"] == "partial"
    finish_and_compare(count_args(out), out, ref)


def test_kill_9_of_a_worker_at_random_moments_then_reruns_give_the_uninterrupted_result(workdir, rng, count_ref):
    ref = count_ref
    out = workdir / "w.h5"
    kill_chain(rng, out, ref, 4, lambda: rng.choice([1, 2]), "kill -9 worker")


def test_kill_9_of_the_master_at_random_moments_then_reruns_give_the_uninterrupted_result(workdir, rng, count_ref):
    ref = count_ref
    out = workdir / "m.h5"
    kill_chain(rng, out, ref, 4, lambda: 0, "kill -9 master")


def test_stop_signals_at_random_moments_always_give_a_partial_file_and_exit_75(workdir, rng, count_ref):
    ref = count_ref
    out = workdir / "s.h5"
    done_before = 0
    for i in range(4):
        sig = rng.choice([signal.SIGTERM, signal.SIGUSR1])
        # The first one during start-up (once the master catches it), the others anywhere in the
        # remaining work.
        target = None if i == 0 else moment(rng, out, ref, 0.02, 0.6)
        code, stdout, err = interrupt(count_args(out), 0, sig, target)
        print(f"signal {i}: {sig.name} at {'start-up' if i == 0 else f'{target} journaled units'} -> exit {code}")
        injected(sig.name + " to the master")
        assert code == EXIT["interrupted"], err
        assert "rerun the same command to resume" in err and stdout == ""
        a = readable_result(out)
        assert a["status"] == "partial" and a["unique"] == 0 and a["matches_known"] == "unknown"
        assert done_before <= a["units_done"] < a["units_total"]
        assert a["units_done"] == len(Journal(journal_of(out)).records)   # the journal was synced
        done_before = a["units_done"]
        assert not temp_files(out)
    assert done_before > 0
    finish_and_compare(count_args(out), out, ref)


def long_count_args(out):
    """A job that still has work left a second after it is struck (see the test below): one
    board size up, one thread a worker."""
    return ["run", "--n", COUNT_N + 1, "--out", out, "--symmetry", "mirror", "--threads", 1, "--progress-interval", 1,
            "--checkpoint-interval", CHECKPOINT]


@pytest.fixture(scope="module")
def long_count_ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "long.h5"
    run(long_count_args(out), ranks=3, check=0)
    return out


def test_stop_signals_to_mpirun_itself_keep_the_finished_work(workdir, rng, long_count_ref):
    """Ctrl-C at a terminal, or a batch system that signals the launcher, strikes mpirun, not the
    ranks (docs/faults.md). USR1: mpirun forwards it to every rank, the master writes its partial
    file and mpirun exits with the master's 75. TERM: Open MPI 4.1's mpirun ends the job itself,
    with SIGCONT to every rank, SIGTERM a second later and SIGKILL a second after that
    (odls_base_sigkill_timeout), and exits 1 whatever the ranks did; the master stops at its
    SIGTERM as at any stop signal (a partial file, every finished unit journaled), unless the work
    left took less than that first second (then the file is complete and exact)."""
    ref = long_count_ref
    out = workdir / "l.h5"
    code, _, err = interrupt(long_count_args(out), "mpirun", signal.SIGUSR1, moment(rng, out, ref, 0.02, 0.2))
    injected("SIGUSR1 to mpirun")
    assert code == EXIT["interrupted"], err
    assert "rerun the same command to resume" in err
    a = readable_result(out)
    assert a["status"] == "partial" and a["units_done"] == len(Journal(journal_of(out)).records) > 0

    before = sha256(out)
    target = moment(rng, out, ref, 0.02, 0.2)
    code, _, err = interrupt(long_count_args(out), "mpirun", signal.SIGTERM, target)
    injected("SIGTERM to mpirun")
    a = readable_result(out)
    if a["status"] == "complete":
        print(f"SIGTERM to mpirun: the job finished in the second before mpirun signalled the ranks (exit {code})")
        assert code in (EXIT["ok"], EXIT["internal"]), err
        assert_same_result(ref, out)
        assert not journal_of(out).exists() and not temp_files(out)
        return
    assert code == EXIT["internal"], err   # mpirun's own code
    assert journaled_units(out) >= target
    if sha256(out) == before:   # SIGKILL came before the new partial file was written: OUT as it was
        print("SIGTERM to mpirun: the SIGKILL a second later cut the partial file's write")
    else:
        assert "stopped by signal 15" in err and "rerun the same command to resume" in err, err
        assert a["status"] == "partial" and target <= a["units_done"] == len(Journal(journal_of(out)).records)
        assert not temp_files(out)
    finish_and_compare(long_count_args(out), out, ref)


def kill_master_when_writing(args, out, sigterm_at=None):
    """Runs the job and kills the master with -9 in the middle of writing the result file (it
    stops itself there: stop-writing); with sigterm_at (a journaled unit count), a SIGTERM at
    that moment first asks for a partial file. Returns the stderr."""
    specs = [STOP_WRITING] + ([stop_after(sigterm_at)] if sigterm_at is not None else [])
    proc = start(args, ranks=3, extra_env=fault_env(*specs))
    writing = []
    try:
        master = pid_of_rank(proc, 0)
        if sigterm_at is not None:
            when_stopped(proc, master, lambda: os.kill(master, signal.SIGTERM))
        when_stopped(proc, master, lambda: (writing.append(temp_files(out)), os.kill(master, signal.SIGKILL)))
        _, err = proc.communicate(timeout=120)
    except BaseException:
        kill_group(proc)
        raise
    assert writing[0], "no temporary result file while the master was writing it"
    assert proc.returncode not in (0, EXIT["interrupted"]), err
    injected("kill -9 master while writing the result file")
    return err


@pytest.mark.parametrize("ranks", [None, 3], ids=["one-process", "3-ranks"])
def test_a_stop_signal_cancels_the_units_being_computed(workdir, ranks):
    """N = 27 with 2 pre-placed rows: units of hours each. Once a compute thread has had a
    second of CPU on its unit, a SIGTERM to the master ends the job within seconds, exit 75, a
    partial file: the units in the ranks' hands are cancelled (core::count_completions with a
    CancelFlag). They used to be finished first, which kept the job (and its allocation) alive for
    as long as a unit takes: minutes at N = 27 with the default plan."""
    def a_second_of_cpu(proc, pids):
        computing = pids[0] if ranks is None else pids[1]   # the master's own pool, or a worker
        wait_until(lambda: cpu_seconds(computing) >= 1, "a second of CPU on the units", 120, proc)

    stop_a_job_of_long_units(workdir / "n27.h5", ranks, a_second_of_cpu)


def test_a_stop_signal_ends_the_job_around_a_compute_thread_stuck_in_its_unit(workdir):
    """As above, but the thread that takes unit 0 is stuck in it (`freeze`; under the default
    hung limit of 600 s, so not yet reported). The other units are cancelled; the stuck thread
    cannot be, and its rank used to wait for it for ever as it ended: the partial file written,
    exit 75 announced, and the process never gone. Threads still in a unit 2 s after the stop are
    now left running until the process ends (cluster::kReleaseWaitSeconds). One process with 2
    threads: a second of CPU on the other unit means unit 0 was taken. (A worker rank ends the
    same way: test_ranks.py's stuck thread.)"""
    def a_second_of_cpu(proc, pids):
        wait_until(lambda: cpu_seconds(pids[0]) >= 1, "a second of CPU on a unit", 120, proc)

    stop_a_job_of_long_units(workdir / "n27.h5", None, a_second_of_cpu,
                             extra_env={"NQUEENS_INJECT_FAULT": "freeze:0"}, threads=2)
    injected("compute thread stuck at a stop signal")


def test_kill_9_of_the_master_while_it_writes_the_result_file(workdir, rng, boards_ref):
    ref = boards_ref
    out = workdir / "b.h5"
    # 1. SIGTERM, then kill -9 during the partial file's write: there was no file, there is none.
    kill_master_when_writing(boards_args(out), out, sigterm_at=moment(rng, out, ref, 0.1, 0.4))
    assert not out.exists() and temp_files(out)   # only the dead writer's temporary file
    assert len(Journal(journal_of(out)).records) > 0
    # 2. SIGTERM at a random moment: a partial file.
    target = moment(rng, out, ref, 0.1, 0.4)
    code, _, err = interrupt(boards_args(out), 0, signal.SIGTERM, target)
    assert code == EXIT["interrupted"], err
    injected("SIGTERM to the master")
    assert "removed" in err and ".tmp-" in err   # the dead writer's temporary file is cleaned up
    assert not temp_files(out)
    partial = readable_result(out)
    assert partial["status"] == "partial" and partial["units_done"] > 0
    digest = sha256(out)
    # 3. kill -9 during the final write: OUT is still the previous partial file, byte for byte.
    kill_master_when_writing(boards_args(out), out)   # the complete file: every board
    assert temp_files(out) and sha256(out) == digest
    assert readable_result(out) == partial
    # 4. The rerun completes with exactly the uninterrupted result.
    p = finish_and_compare(boards_args(out), out, ref, boards=True)
    assert resumed_units(p.stderr) == attrs(out)["units_total"]   # everything was journaled before the write
    assert "removed" in p.stderr and ".tmp-" in p.stderr


def test_a_journal_header_left_by_a_killed_run_goes_once_it_is_stale(workdir):
    """A run killed while it creates its journal (the header written to OUT.journal.tmp-<pid>,
    not yet linked: a window of one fsync, too short to strike at, so the test plants the file it
    leaves) used to leave that file for good. The next run removes it once it is 10 minutes old
    and says so. A younger one stays (a run starting beside this one may be creating it), and so
    do files that only look alike."""
    out = workdir / "c.h5"
    stale, young = workdir / "c.h5.journal.tmp-4242", workdir / "c.h5.journal.tmp-4343"
    alike = [workdir / "c.h5.journal.tmp-42x", workdir / "d.h5.journal.tmp-4242"]
    for f in [stale, young, *alike]:
        f.write_bytes(b"NQJOURNL")
    hour_ago = os.stat(stale).st_mtime - 3600
    for f in [stale, *alike]:
        os.utime(f, (hour_ago, hour_ago))
    p = run(["run", "--n", 10, "--out", out], check=0)
    assert f"removed {stale}" in p.stderr, p.stderr
    assert not stale.exists() and young.exists() and all(f.exists() for f in alike)
    assert attrs(out)["status"] == "complete" and attrs(out)["total"] == KNOWN[10]["total"]


def test_the_status_file_counts_the_units_of_this_run_not_of_the_resume(workdir):
    """`run --status-file`: an interrupted run writes 75 and the units it journaled; its resume
    writes 0 and only the units it added (slurm/nqueens.sbatch stops requeueing a job whose runs
    journal none)."""
    out, status = workdir / "s.h5", workdir / "status"
    args = ["run", "--n", 12, "--out", out, "--status-file", status, "--checkpoint-interval", CHECKPOINT]
    code, _, err = interrupt(args, 0, signal.SIGTERM, 20)
    assert code == EXIT["interrupted"], err
    done = attrs(out)["units_done"]
    assert 20 <= done < attrs(out)["units_total"]
    assert status.read_text() == f"{EXIT['interrupted']} {done}\n"
    run(args, ranks=3, check=0)
    assert attrs(out)["total"] == KNOWN[12]["total"]
    assert status.read_text() == f"0 {attrs(out)['units_total'] - done}\n"


@pytest.mark.parametrize("ranks", [None, 2], ids=["one-process", "2-ranks"])
def test_a_rank_of_4096_threads_finishes_and_stops_on_a_signal(workdir, ranks):
    """--threads takes up to 4096, far more than the cores here. Each batch of units used to wake
    every thread of the rank to fight for one lock: on 2 cores a rank of 4096 threads never
    finished a unit and never answered SIGTERM (1024 took 27 s for N = 10)."""
    out = workdir / "t.h5"
    p = run(["run", "--n", 10, "--threads", 4096, "--out", out], ranks=ranks, timeout=120)
    assert p.returncode == 0, p.stderr
    assert attrs(out)["total"] == KNOWN[10]["total"] and attrs(out)["threads"] == 4096
    code, _, err = interrupt(["run", "--n", 13, "--threads", 4096, "--out", workdir / "s.h5",
                              "--checkpoint-interval", CHECKPOINT], 0, signal.SIGTERM, 20, ranks=ranks, timeout=120)
    assert code == EXIT["interrupted"], err
    assert attrs(workdir / "s.h5")["status"] == "partial"
