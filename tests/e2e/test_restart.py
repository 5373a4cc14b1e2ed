"""Restart: the job is interrupted (SIGTERM/SIGUSR1 to the master, kill -9 of the master or of a
worker) and the same command, rerun, resumes and gives exactly the uninterrupted result."""
import os
import signal
from pathlib import Path

import pytest

from conftest import (EXIT, KNOWN, assert_same_result, attrs, board_set, pid_of_rank, run, start,
                      wait_for_journal_records)

N, DEPTH = 17, 5     # mirror plan: ~3 s on 2 cores, ~250,000 small units: easy to stop in the middle


def args(out, mode="count"):
    return ["run", "--n", N, "--depth", DEPTH, "--symmetry", "mirror", "--mode", mode, "--out", out,
            "--progress-interval", 1]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ref.h5"
    run(args(out), ranks=2, check=0)
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGUSR1])
def test_stop_signal_to_master_writes_partial_file_and_rerun_completes(workdir, reference, sig):
    out = workdir / "r.h5"
    proc = start(args(out), ranks=3)
    wait_for_journal_records(Path(str(out) + ".journal"), 4096, proc)
    os.kill(pid_of_rank(proc, 0), sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT["interrupted"], err
    a = attrs(out)
    assert a["status"] == "partial" and 0 < a["units_done"] < a["units_total"]
    assert "rerun the same command to resume" in err
    p = run(args(out), ranks=3, check=0)
    assert "resuming" in p.stderr
    assert_same_result(reference, out)
    assert not Path(str(out) + ".journal").exists()


@pytest.mark.parametrize("victim", [0, 1])
def test_kill_9_of_a_rank_then_rerun_gives_the_uninterrupted_result(workdir, reference, victim):
    out = workdir / "k.h5"
    proc = start(args(out), ranks=3)
    wait_for_journal_records(Path(str(out) + ".journal"), 4096, proc)
    os.kill(pid_of_rank(proc, victim), signal.SIGKILL)
    proc.communicate(timeout=120)
    assert proc.returncode != 0
    p = run(args(out), ranks=3, check=0)
    assert "resuming" in p.stderr
    assert_same_result(reference, out)


def test_boards_mode_resume_gives_the_same_board_set(workdir):
    # N = 14: a ~5 MB journal, so the kill at 100 KB lands mid-run (N = 13's whole run took 0.3 s
    # on a CI machine and finished before the kill)
    n = 14
    ref = workdir / "ref.h5"
    run(["run", "--n", n, "--depth", 4, "--mode", "boards", "--out", ref], ranks=2, check=0)
    out = workdir / "b.h5"
    cmd = ["run", "--n", n, "--depth", 4, "--mode", "boards", "--out", out]
    proc = start(cmd, ranks=3)
    wait_for_journal_records(Path(str(out) + ".journal"), 100_000, proc, step=0.005)
    os.kill(pid_of_rank(proc, 0), signal.SIGKILL)
    proc.communicate(timeout=120)
    assert not out.exists()   # killed before its result file
    p = run(cmd, ranks=3, check=0)
    assert "resuming" in p.stderr, p.stderr
    assert attrs(out)["total"] == KNOWN[n]["total"]
    assert board_set(out) == board_set(ref)


def test_resume_with_other_parameters_is_refused(workdir):
    out = workdir / "p.h5"
    proc = start(args(out), ranks=2)
    wait_for_journal_records(Path(str(out) + ".journal"), 4096, proc)
    os.kill(pid_of_rank(proc, 0), signal.SIGTERM)
    proc.communicate(timeout=120)
    p = run(["run", "--n", N, "--depth", DEPTH - 1, "--symmetry", "mirror", "--out", out], ranks=2)
    assert p.returncode == EXIT["refused"] and "depth" in p.stderr
    assert attrs(out)["status"] == "partial"
