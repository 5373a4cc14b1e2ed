"""Restart: the job is interrupted (SIGTERM/SIGUSR1 to the master, kill -9 of the master or of a
worker) and the same command, rerun, resumes and gives exactly the uninterrupted result.

Moments: the master stops itself (injected fault stop-after:K, src/cluster/fault_injection.h)
once its journal holds K units, synced; the test strikes while it is held there and continues
it. So every interruption lands in the middle of the job with at least K units on disk, however
fast or slow the machine is."""
import fcntl
import os
import re
import shutil
import signal

import h5py
import pytest

from conftest import strike as strike_at
from conftest import (EXIT, KNOWN, StderrLines, assert_same_result, attrs, board_set, fault_env, journal_of,
                      journaled_units, kill_group, needs, pid_of_rank, process_state, resumed_units, run, running_share,
                      start, stop_after, wait_until)

N, DEPTH = 16, 5     # mirror plan: ~73,000 small units
STOP_AT = 300        # journaled units when the master holds


def args(out, mode="count"):
    return ["run", "--n", N, "--depth", DEPTH, "--symmetry", "mirror", "--mode", mode, "--out", out,
            "--progress-interval", 1]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ref.h5"
    run(args(out), ranks=2, check=0)
    return out


def strike(cmd, ranks, act, at=STOP_AT):
    """conftest's strike, by default once STOP_AT units are journaled."""
    return strike_at(cmd, ranks, act, at)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGUSR1])
def test_stop_signal_to_master_writes_partial_file_and_rerun_completes(workdir, reference, sig):
    out = workdir / "r.h5"
    code, err = strike(args(out), 3, lambda proc, master: os.kill(master, sig))
    assert code == EXIT["interrupted"], err
    a = attrs(out)
    assert a["status"] == "partial" and STOP_AT <= a["units_done"] < a["units_total"], a
    assert a["units_done"] == journaled_units(out)   # the journal was synced at the stop
    assert "rerun the same command to resume" in err
    # The dry run says what the rerun will find, and changes nothing.
    journal = journal_of(out)
    kept = journal.stat()
    lines = needs(run(args(out) + ["--dry-run"], check=0).stdout)
    assert re.fullmatch(rf"{re.escape(str(out))} holds a partial result \({a['units_done']:,} units done\); its journal "
                        rf"{re.escape(str(journal))} \(\d+ [kM]B\) holds finished units: the run resumes, skipping them",
                        lines["output"]), lines
    assert re.search(r"is written\), \d+ [kM]B more than now; ", lines["disk"]), lines
    assert journal.stat().st_mtime_ns == kept.st_mtime_ns and journal.stat().st_size == kept.st_size
    p = run(args(out), ranks=3, check=0)
    assert resumed_units(p.stderr) == a["units_done"], p.stderr
    assert_same_result(reference, out)
    assert not journal_of(out).exists()


def test_a_killed_master_loses_no_unit_it_reported_done_whatever_its_checkpoint_interval(workdir):
    """Every result is written to the journal as it arrives; checkpoint_interval spaces only the
    fsyncs, which a crash of the machine needs and a killed process does not. The records used
    to wait in a buffer for the next checkpoint: a master killed (kill -9, the OOM killer) with
    --checkpoint-interval 3600, as usage.md advises on a parallel file system, lost up to an hour
    of units. (N = 18: the first progress line, after 2 s, comes well before the end.)"""
    out = workdir / "k.h5"
    cmd = ["run", "--n", 18, "--depth", DEPTH, "--symmetry", "mirror", "--out", out, "--progress-interval", 1]
    proc = start(cmd + ["--checkpoint-interval", 3600], ranks=3)
    lines = StderrLines(proc)
    try:
        master = pid_of_rank(proc, 0)
        lines.wait_for("[run]", timeout=120)   # the first progress line
        os.kill(master, signal.SIGKILL)
        proc.wait(timeout=60)
    except BaseException:
        kill_group(proc)
        raise
    reported, units = max((int(m[1]), int(m[2])) for m in re.finditer(r"units (\d+)/(\d+)", lines.close()))
    assert 0 < reported < units and reported <= journaled_units(out), (reported, units, journaled_units(out))
    p = run(cmd, ranks=3, check=0)
    assert resumed_units(p.stderr) >= reported, p.stderr
    assert attrs(out)["total"] == KNOWN[18]["total"] and attrs(out)["status"] == "complete"


@pytest.mark.parametrize("victim", [0, 1])
def test_kill_9_of_a_rank_then_rerun_gives_the_uninterrupted_result(workdir, reference, victim):
    out = workdir / "k.h5"
    code, _ = strike(args(out), 3, lambda proc, _: os.kill(pid_of_rank(proc, victim), signal.SIGKILL))
    assert code != 0
    journaled = journaled_units(out)
    assert journaled >= STOP_AT
    p = run(args(out), ranks=3, check=0)
    assert resumed_units(p.stderr) == journaled, p.stderr
    assert_same_result(reference, out)


def test_boards_mode_resume_gives_the_same_board_set(workdir):
    n = 13
    ref = workdir / "ref.h5"
    cmd = ["run", "--n", n, "--depth", 4, "--mode", "boards", "--out"]
    run(cmd + [ref], ranks=2, check=0)
    out = workdir / "b.h5"
    code, _ = strike(cmd + [out], 3, lambda _, master: os.kill(master, signal.SIGKILL), at=1000)
    assert code != 0
    assert not out.exists()   # killed before its result file
    journaled = journaled_units(out)
    assert 1000 <= journaled < attrs(ref)["units_total"]
    p = run(cmd + [out], ranks=3, check=0)
    assert resumed_units(p.stderr) == journaled, p.stderr
    assert attrs(out)["total"] == KNOWN[n]["total"]
    assert board_set(out) == board_set(ref)


def test_a_partial_result_is_replaced_only_by_the_run_that_resumes_it(workdir, reference):
    """A partial OUT holds finished units, which a run takes over from OUT's journal. A run of
    other parameters would replace them: refused (exit 5), by the dry run too, every file as it
    was (until session 33 it replaced OUT; the journal's header refused it only where the journal
    was there, and still does where OUT is not). A count job whose journal is gone resumes from
    OUT's own units, journaled anew (it used to recompute every unit, and a stop then wrote fewer
    over them), unless they are not this plan's units; the result is exact."""
    out = workdir / "p.h5"
    code, err = strike(args(out), 2, lambda _, master: os.kill(master, signal.SIGTERM))
    assert code == EXIT["interrupted"], err
    partial, done = out.read_bytes(), attrs(out)["units_done"]
    assert done >= STOP_AT

    def files():
        return {f.name: f.read_bytes() for f in workdir.iterdir()}

    def refused(cmd, said):
        before = files()
        for dry in (False, True):
            p = run(cmd + (["--dry-run"] if dry else []), ranks=1 if dry else 2)
            assert p.returncode == EXIT["refused"] and p.stdout == "" and said in p.stderr, p.stderr
            assert files() == before

    other = ["run", "--n", N, "--depth", DEPTH - 1, "--out", out]
    refused(other, f"{out} holds a partial result of other parameters (depth is {DEPTH} there, {DEPTH - 1} here; "
                   f"symmetry is 'mirror' there, 'full' here; {done:,} of ")
    journal_of(out).rename(workdir / "kept.journal")
    out.rename(workdir / "kept.h5")
    (workdir / "kept.journal").rename(journal_of(out))
    refused(other, "belongs to another job: depth is ")
    journal_of(out).unlink()
    (workdir / "kept.h5").rename(out)
    # Units that are not this plan's (one multiplicity changed with h5py): refused, nothing left behind.
    tampered = workdir / "t.h5"
    tampered.write_bytes(partial)
    with h5py.File(tampered, "r+") as f:
        f["units"]["multiplicity"][5] = f["units"]["multiplicity"][5] ^ 3
    p = run(args(tampered), ranks=2)
    assert p.returncode == EXIT["refused"] and f"{tampered} (its /units): its units are not those of the plan" in p.stderr, p.stderr
    assert not journal_of(tampered).exists()
    tampered.unlink()
    dry = needs(run(args(out) + ["--dry-run"], check=0).stdout)
    assert dry["output"] == (f"{out} holds a partial result ({done:,} units done); it has no journal: the run resumes "
                             "from its units, journaled anew"), dry
    p = run(args(out), ranks=2, check=0)
    assert f"nqueens: resuming from {out}, whose journal was gone: {done} of " in p.stderr, p.stderr
    assert_same_result(reference, out)
    assert not journal_of(out).exists()


def test_a_boards_job_whose_journal_is_gone_is_refused_rather_than_recomputed_over_its_partial_result(workdir):
    """A boards job's partial OUT holds the boards, not the journal's completions that a run resumes
    from: without the journal the run is refused (exit 5), by the dry run too, the file as it was;
    --force recomputes it."""
    out = workdir / "b.h5"
    cmd = ["run", "--n", 12, "--depth", 4, "--symmetry", "mirror", "--mode", "boards", "--out", out]
    code, err = strike(cmd, 2, lambda _, master: os.kill(master, signal.SIGTERM), at=100)
    assert code == EXIT["interrupted"], err
    partial, done = out.read_bytes(), attrs(out)["units_done"]
    journal_of(out).unlink()
    for dry in (False, True):
        p = run(cmd + (["--dry-run"] if dry else []), ranks=1 if dry else 2)
        assert p.returncode == EXIT["refused"] and p.stdout == "", p.stderr
        assert (f"{out} holds a partial result of boards mode ({done:,} of " in p.stderr
                and f"but not its journal {journal_of(out)}, from which a run resumes: put the journal back" in p.stderr), p.stderr
        assert out.read_bytes() == partial and not journal_of(out).exists()
    run(cmd + ["--force"], ranks=2, check=0)
    assert attrs(out)["status"] == "complete" and attrs(out)["total"] == KNOWN[12]["total"]


def test_a_stopped_forced_run_keeps_the_complete_result_and_the_same_command_resumes(workdir, reference):
    """--force over a complete result: a stop used to write the partial result over it, and the
    same command, rerun (as a requeued batch job reruns it), discarded the journal and started
    over, so a forced job longer than its time limit never finished. Now the complete result
    stays until the forced run's is complete, and --force resumes this job's journal; another
    job's journal it still discards."""
    out, status = workdir / "r.h5", workdir / "status"
    shutil.copy(reference, out)
    before = out.read_bytes()
    forced = args(out) + ["--force", "--status-file", status]
    code, err = strike(forced, 3, lambda proc, master: os.kill(master, signal.SIGTERM))
    assert code == EXIT["interrupted"], err
    assert out.read_bytes() == before, err
    done = journaled_units(out)
    assert done >= STOP_AT and status.read_text() == f"{EXIT['interrupted']} {done}\n", (done, status.read_text())
    assert (f"units done; {out} still holds the earlier complete result, which this job replaces once it completes; "
            "rerun the same command to resume" in err), err
    journal = journal_of(out)
    line = needs(run(forced + ["--dry-run"], check=0).stdout)["output"]
    assert re.fullmatch(rf"{re.escape(str(out))} holds a complete result \([\d,]+ units done, total \d+\); its journal "
                        rf"{re.escape(str(journal))} \(\d+ [kM]B\) holds finished units of this job: the run resumes, "
                        r"skipping them, and replaces it at the end \(--force keeps this job's finished units: remove "
                        r"the journal to recompute them\)", line), line
    # The journal of another job (other N): --force discards it, as before.
    other = workdir / "o.h5"
    shutil.copy(journal, journal_of(other))
    other_cmd = ["run", "--n", 12, "--out", other, "--force"]
    line = needs(run(other_cmd + ["--dry-run"], check=0).stdout)["output"]
    assert line.startswith(f"{other} does not exist yet: --force recomputes every unit, discarding the journal "
                           f"{journal_of(other)} (") and line.endswith("), which is not this job's"), line
    p = run(other_cmd, ranks=2, check=0)
    assert resumed_units(p.stderr) == 0 and attrs(other)["total"] == KNOWN[12]["total"], p.stderr
    # The same forced command resumes, and its complete result replaces the earlier one.
    p = run(forced, ranks=3, check=0)
    assert resumed_units(p.stderr) == done, p.stderr
    assert "(--force keeps this job's finished units: remove the journal to recompute them)" in p.stderr, p.stderr
    assert status.read_text() == f"0 {int(attrs(out)['units_total']) - done}\n"
    assert_same_result(reference, out)
    assert not journal.exists()


def test_a_second_run_of_a_running_job_is_refused_even_with_force(workdir, reference):
    """The same command started twice (a job submitted twice, a rerun while the first still
    runs): the second finds the journal locked and is refused, with --force too (which used to
    remove the running job's journal), leaving it as it was; the first finishes exactly. The dry
    run (slurm/submit runs it) says the same (it used to say that the run would resume), and with
    --lock-wait that the run would wait."""
    out = workdir / "twice.h5"
    refused = []

    def second_runs():
        before = journal_of(out).read_bytes()
        for extra in ([], ["--force"]):
            p = run(args(out) + extra, ranks=2)
            assert p.returncode == EXIT["refused"], p.stderr
            assert "is in use by another process" in p.stderr and "another --out" in p.stderr, p.stderr
            dry = run(args(out) + extra + ["--dry-run"])
            assert dry.returncode == EXIT["refused"] and dry.stdout == "", dry.stderr
            assert dry.stderr.splitlines()[0] == p.stderr.splitlines()[0], (dry.stderr, p.stderr)
            assert journal_of(out).read_bytes() == before and not out.exists()
            refused.append(extra)
        dry = run(args(out) + ["--dry-run", "--lock-wait", 30], check=0)
        assert needs(dry.stdout)["output"].endswith(
            "; but another process holds the journal now: the run waits up to 30 s for it (--lock-wait)"), dry.stdout

    code, err = strike(args(out), 2, lambda proc, master: second_runs())
    assert code == EXIT["ok"], err
    assert refused == [[], ["--force"]]
    assert_same_result(reference, out)
    p = run(args(out), ranks=2)   # and now it is done
    assert p.returncode == EXIT["refused"] and "already holds a complete result" in p.stderr


@pytest.mark.parametrize("mode, extra, code, said", [
    ("count", [], EXIT["refused"], "already holds a complete result"),
    ("count", ["--skip-complete"], EXIT["ok"], "already holds the complete result of this job"),
    ("boards", ["--skip-complete"], EXIT["refused"], "complete result, but of other parameters (mode is 'count' there, 'boards' here"),
], ids=["plain", "skip-complete", "skip-complete-other-job"])
def test_a_run_that_starts_as_the_job_finishes_is_refused_once_the_file_is_complete(workdir, reference, mode, extra,
                                                                                   code, said):
    """The second run read OUT (partial) before the first finished, and takes the journal's lock
    after the first has written the complete file and removed its journal: it reads OUT again
    under the lock and is refused, instead of computing the whole job again (as it used to).
    With --skip-complete it takes this job's file as done (exit 0) and refuses another job's
    (exit 5); it used to compute the whole job again, and over another job's file."""
    out = workdir / "late.h5"
    first = start(args(out), ranks=2, extra_env=fault_env(stop_after(STOP_AT)))
    second = None
    try:
        master = pid_of_rank(first, 0)
        wait_until(lambda: process_state(master) == "T", "the first run's hold", proc=first)
        second = start(args(out, mode) + extra, ranks=2, extra_env=fault_env("stop-opening:0"))
        late = pid_of_rank(second, 0)
        wait_until(lambda: process_state(late) == "T", "the second run's hold before its journal", proc=second)
        os.kill(master, signal.SIGCONT)
        _, err = first.communicate(timeout=120)
        assert first.returncode == EXIT["ok"], err
        assert attrs(out)["status"] == "complete" and not journal_of(out).exists()
        os.kill(late, signal.SIGCONT)
        _, err = second.communicate(timeout=120)
    except BaseException:
        kill_group(first)
        if second is not None:
            kill_group(second)
        raise
    assert second.returncode == code and said in err, err
    assert not journal_of(out).exists()
    assert_same_result(reference, out)


def test_a_lock_that_outlives_its_holder_is_waited_for_with_lock_wait(workdir, reference):
    """A partial job's journal locked by a process that is no run of it (as a file server keeps the
    lock of a node that died until its lease ends, while the requeued job starts): the rerun with
    --lock-wait waits, then resumes from the journal and ends exact. A wait that runs out is
    refused (exit 5), and a stop signal ends the wait (exit 75); both leave the files as they were."""
    out = workdir / "held.h5"
    code, err = strike(args(out), 2, lambda _, master: os.kill(master, signal.SIGTERM))
    assert code == EXIT["interrupted"], err
    journaled = journaled_units(out)
    journal, partial = journal_of(out).read_bytes(), out.read_bytes()

    def unchanged():
        return journal_of(out).read_bytes() == journal and out.read_bytes() == partial

    def waiting_run():
        proc = start(args(out) + ["--lock-wait", 600], ranks=2)
        lines = StderrLines(proc)
        try:
            lines.wait_for("is locked by another process: waiting up to 600 s for it")
        except BaseException:
            kill_group(proc)
            raise
        return proc, lines

    def end_of(proc, lines, timeout, act=lambda: None):
        """act(), then the waiting run's end: its stderr (the whole job killed if either fails)."""
        try:
            act()
            proc.wait(timeout=timeout)
        except BaseException:
            kill_group(proc)
            raise
        return lines.close()

    with open(journal_of(out), "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        p = run(args(out) + ["--lock-wait", 1], ranks=2)
        assert p.returncode == EXIT["refused"], p.stderr
        assert "in use by another process (still, after waiting 1 s: --lock-wait)" in p.stderr, p.stderr
        assert unchanged()

        proc, lines = waiting_run()
        err = end_of(proc, lines, 60, lambda: os.kill(pid_of_rank(proc, 0), signal.SIGTERM))
        assert proc.returncode == EXIT["interrupted"], err
        assert "while waiting for the lock of" in err and "rerun the same command" in err, err
        assert unchanged()

        proc, lines = waiting_run()
        # the worker waits for the job in a broadcast meanwhile: polling, not spinning on a core.
        # A spinning worker is running or runnable nearly all the time (~1); a polling one ran
        # 26 % of the wait once while other jobs kept both cores busy, so the bound is 0.5.
        share = running_share(pid_of_rank(proc, 1), 3)
        if proc.poll() is not None or not unchanged() or share > 0.5:
            kill_group(proc)
            raise AssertionError(f"the waiting run ended, changed the files or its worker ran "
                                 f"{share:.0%} of a 3 s wait:\n{lines.text()}")
    # the holder's lock is gone with its file descriptor: the waiting run takes over
    err = end_of(proc, lines, 300)
    assert proc.returncode == EXIT["ok"], err
    assert "is free now, after" in err and resumed_units(err) == journaled, err
    assert_same_result(reference, out)
    assert not journal_of(out).exists()
