"""Interruptions at random (seeded) moments, several over one job, each followed by a rerun that
is itself interrupted, until one run finishes: kill -9 of a worker, kill -9 of the master
(including while it writes the result file), SIGTERM/SIGUSR1 to the master. The final file must
equal an uninterrupted run's: totals, unit table and (boards mode) the board set."""
import os
import signal
import time

import pytest

from faultlib import (BOARDS_N, CHECKPOINT, COUNT_N, COUNT_N_PINNED, MIN_CHAIN_SECONDS, Journal, JournalWatch,
                      injected, interrupt, journal_of, kill_group, readable_result, sha256, temp_files, wait_until)
from nqtest import (EXIT, KNOWN, assert_same_result, attrs, board_set, pid_of_rank, resumed_units,
                    run, start)


chain_n = COUNT_N   # the board size of the count-mode chains (set by the count_ref fixture)


def count_args(out, n=None):
    return ["run", "--n", n or chain_n, "--out", out, "--symmetry", "mirror", "--progress-interval", 1,
            "--checkpoint-interval", CHECKPOINT]


def boards_args(out):
    return ["run", "--n", BOARDS_N, "--mode", "boards", "--out", out, "--symmetry", "mirror",
            "--progress-interval", 1, "--checkpoint-interval", CHECKPOINT]


def timed_run(args):
    t0 = time.time()
    run(args, ranks=3, check=0)
    return time.time() - t0


@pytest.fixture(scope="module")
def count_ref(tmp_path_factory):
    """An uninterrupted count-mode run of >= MIN_CHAIN_SECONDS (N grows if the kernel is fast)."""
    global chain_n
    d = tmp_path_factory.mktemp("ref")
    n = COUNT_N
    while True:
        out = d / f"count{n}.h5"
        t = timed_run(count_args(out, n))
        if t >= MIN_CHAIN_SECONDS or COUNT_N_PINNED or n >= 20:
            break
        n += 1
    chain_n = n
    print(f"count-mode chains at N = {n}: {t:.1f} s uninterrupted")
    return out, t


@pytest.fixture(scope="module")
def boards_ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "boards.h5"
    return out, timed_run(boards_args(out))


def moment(rng, out, ref, lo, hi):
    """A random moment of a run, as progress: the journal's unit count at which to strike, a
    share uniform in [lo, hi] of the units this run still has to do (never 0, never all)."""
    done = JournalWatch(out).units()
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
    then one run that finishes and must equal the uninterrupted one."""
    for i in range(kills):
        rank = pick_rank()
        target = moment(rng, out, ref, 0.02, 0.5)
        code, _, err, hit = interrupt(count_args(out), rank, signal.SIGKILL, after=JournalWatch(out).reaches(target))
        print(f"{label} {i}: kill -9 rank {rank} at {target} journaled units -> exit {code}")
        assert hit, f"the run ended before {target} units were journaled (exit {code}):\n{err}"
        injected(label)
        assert code != 0
        if out.exists():   # a killed run never leaves a broken file at OUT
            assert readable_result(out)["status"] == "partial"
    finish_and_compare(count_args(out), out, ref)


def test_kill_9_of_a_worker_at_random_moments_then_reruns_give_the_uninterrupted_result(workdir, rng, count_ref):
    ref, _ = count_ref
    out = workdir / "w.h5"
    kill_chain(rng, out, ref, 4, lambda: rng.choice([1, 2]), "kill -9 worker")


def test_kill_9_of_the_master_at_random_moments_then_reruns_give_the_uninterrupted_result(workdir, rng, count_ref):
    ref, _ = count_ref
    out = workdir / "m.h5"
    kill_chain(rng, out, ref, 4, lambda: 0, "kill -9 master")


def test_stop_signals_at_random_moments_always_give_a_partial_file_and_exit_75(workdir, rng, count_ref):
    ref, _ = count_ref
    out = workdir / "s.h5"
    done_before = 0
    for i in range(4):
        sig = rng.choice([signal.SIGTERM, signal.SIGUSR1])
        # The first one during start-up (MPI_Init), the others anywhere in the remaining work.
        if i == 0:
            when, after = "0.25 s after the start", None
        else:
            target = moment(rng, out, ref, 0.02, 0.6)
            when, after = f"{target} journaled units", JournalWatch(out).reaches(target)
        code, stdout, err, hit = interrupt(count_args(out), 0, sig, 0.25 if i == 0 else 0.0, after=after)
        print(f"signal {i}: {sig.name} at {when} -> exit {code}")
        assert hit, "the job finished before the signal: the moments are too late for this machine"
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


def kill_master_when_writing(args, out, rng, max_delay, sigterm_at=None):
    """Starts the job and kills the master with -9 while the result file is being written: a
    random 0..max_delay seconds after the temporary file OUT.tmp-* appears (the write of a small
    partial file takes only tens of milliseconds); with sigterm_at (a journal unit count), a
    SIGTERM at that moment first asks for a partial file. Returns the stderr."""
    proc = start(args, ranks=3)
    try:
        master = pid_of_rank(proc, 0)
        if sigterm_at is not None:
            assert wait_until(JournalWatch(out).reaches(sigterm_at), 300, proc, step=0.005), "the job ended early"
            os.kill(master, signal.SIGTERM)
        assert wait_until(lambda: temp_files(out), 300, proc, step=0.002), "no temporary file seen"
        time.sleep(rng.uniform(0, max_delay))
        still_writing = bool(temp_files(out))
        os.kill(master, signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    except BaseException:
        kill_group(proc)
        raise
    assert still_writing, "the write finished before the kill"
    assert proc.returncode not in (0, EXIT["interrupted"]), err
    injected("kill -9 master while writing the result file")
    return err


def test_kill_9_of_the_master_while_it_writes_the_result_file(workdir, rng, boards_ref):
    ref, _ = boards_ref
    out = workdir / "b.h5"
    # 1. SIGTERM, then kill -9 during the partial file's write: there was no file, there is none.
    kill_master_when_writing(boards_args(out), out, rng, 0.003, sigterm_at=moment(rng, out, ref, 0.1, 0.4))
    assert not out.exists() and temp_files(out)   # only the dead writer's temporary file
    assert len(Journal(journal_of(out)).records) > 0
    # 2. SIGTERM at a random moment: a partial file.
    target = moment(rng, out, ref, 0.1, 0.4)
    code, _, err, hit = interrupt(boards_args(out), 0, signal.SIGTERM, after=JournalWatch(out).reaches(target))
    assert hit and code == EXIT["interrupted"], err
    injected("SIGTERM to the master")
    assert "removed" in err and ".tmp-" in err   # the dead writer's temporary file is cleaned up
    assert not temp_files(out)
    partial = readable_result(out)
    assert partial["status"] == "partial" and partial["units_done"] > 0
    digest = sha256(out)
    # 3. kill -9 during the final write: OUT is still the previous partial file, byte for byte.
    kill_master_when_writing(boards_args(out), out, rng, 0.1)   # the complete file: every board
    assert temp_files(out) and sha256(out) == digest
    assert readable_result(out) == partial
    # 4. The rerun completes with exactly the uninterrupted result.
    p = finish_and_compare(boards_args(out), out, ref, boards=True)
    assert resumed_units(p.stderr) == attrs(out)["units_total"]   # everything was journaled before the write
    assert "removed" in p.stderr and ".tmp-" in p.stderr
