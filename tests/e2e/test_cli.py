"""The classic behaviour and the CLI's error handling, on the real binary."""
import json
import os
import re
import subprocess

import pytest

from conftest import EXIT, KNOWN, StderrLines, attrs, command, env, kill_group, run, start, uses_mpi


def test_solve_four_prints_the_classic_matrix():
    p = run(["solve", "4"], check=0)
    assert p.stdout == "0 0 1 0\n1 0 0 0\n0 0 0 1\n0 1 0 0\n"


@pytest.mark.parametrize("n", [2, 3])
def test_solve_says_so_when_no_solution_exists(n):
    p = run(["solve", n], check=0)
    assert p.stdout.strip() == f"No solution exists for N = {n}."


def test_solve_all_prints_every_solution_as_valid_matrices():
    p = run(["solve", "6", "--all"], check=0)
    blocks = [b for b in p.stdout.strip().split("\n\n")]
    assert blocks[-1] == "4 solutions for N = 6."
    boards = blocks[:-1]
    assert len(boards) == 4
    for b in boards:
        rows = [list(map(int, r.split())) for r in b.splitlines()]
        cols = [r.index(1) for r in rows]
        assert all(sum(r) == 1 for r in rows) and sorted(cols) == list(range(6))
        assert len({r - c for r, c in enumerate(cols)}) == 6 and len({r + c for r, c in enumerate(cols)}) == 6


def test_solve_columns_prints_only_boards_on_stdout_and_its_closing_line_on_stderr():
    """`--format columns` is for programs: its closing line ("2 solutions for N = 4.") was the
    last line of stdout, among the boards. And one solution was "1 solutions"."""
    p = run(["solve", 4, "--all", "--format", "columns"], check=0)
    assert p.stdout == "[2, 0, 3, 1]\n[1, 3, 0, 2]\n" and p.stderr == "2 solutions for N = 4.\n", p
    p = run(["solve", 3, "--format", "columns"], check=0)
    assert p.stdout == "" and p.stderr == "No solution exists for N = 3.\n", p
    assert run(["solve", 1, "--all"], check=0).stdout == "1\n\n1 solution for N = 1.\n"


def test_solve_json_lists_every_board():
    doc = json.loads(run(["solve", "8", "--all", "--format", "json"], check=0).stdout)
    assert doc["n"] == 8 and len(doc["solutions"]) == 92 and len({tuple(s) for s in doc["solutions"]}) == 92


@pytest.mark.parametrize("n", [1, 8, 12])
def test_count_prints_totals_that_match_the_table(n):
    p = run(["count", n, "--threads", "2"], check=0)
    assert f"total    {KNOWN[n]['total']}\n" in p.stdout
    assert f"unique   {KNOWN[n]['unique']} " in p.stdout
    assert "known    match" in p.stdout


def test_a_count_that_takes_long_says_so_before_it_starts_and_names_run():
    """`count 24` (days here) started straight away, "ETA -" for its first seconds, and a stop
    loses all of it. Now a count whose estimate at the pace timed here passes 5 minutes of its
    threads' time says its core time and that `run` journals and resumes; a short one says
    nothing. (N = 24 is ~350 core-hours on this machine: a 100x slower one still notes it.)"""
    def stderr_until(args, *needles):
        """The stderr of `args` up to the lines holding `needles` (the count is then killed)."""
        proc = start(args)
        lines = StderrLines(proc)
        try:
            for needle in needles:
                lines.wait_for(needle, timeout=120)
        finally:
            kill_group(proc)
            lines.close()
        return lines.text()

    text = stderr_until(["count", 24, "--threads", 2], "nqueens: note: this count takes about ",
                        "journals every finished unit and resumes (`nqueens run --n 24 --dry-run` plans it)")
    assert re.search(r"this count takes about [\d,]+ core-hours \(about [\d.]+ (hours|days) on its 2 thread\(s\), "
                     r"at the pace timed here\), and keeps nothing if it is stopped: `nqueens run --n 24`", text), text
    # Past the sampled N (28), the longest counts of all: the largest sampled N's time, as a lower
    # bound (they started without a word until session 47).
    text = stderr_until(["count", 30, "--threads", 2], "nqueens: note: this count takes more than N = 28's ")
    assert re.search(r"this count takes more than N = 28's [\d,]+ core-hours \(more than [\d.]+ (days|years) on its 2 "
                     r"thread\(s\), at the pace timed here\), and keeps nothing if it is stopped: `nqueens run --n 30`",
                     text), text
    # A deep plan of few units walks long to each: its count is said once it has taken 2 s (the
    # plan of N = 17 at depth 17 takes minutes here; `count 16 --depth 16` was silent for 98 s).
    text = stderr_until(["count", 17, "--depth", 17, "--threads", 1], "nqueens: counting the work units of the plan")
    assert re.search(r"counting the work units of the plan \(about [\d.e+]+, depth 17\)\n", text), text
    p = run(["count", 14], check=0)
    assert "note" not in p.stderr and "counting the work units" not in p.stderr, p.stderr


def report(stdout):
    """`count`'s report, by its first word (N, total, unique, seconds, threads, units, known, layout)."""
    return {line.split(None, 1)[0]: line.split(None, 1)[1] for line in stdout.splitlines()}


def test_count_under_mpirun_shares_the_units_among_the_ranks_and_rank_0_alone_prints():
    """Under mpirun every rank makes the same plan and counts its share of the units; rank 0 adds
    the ranks' counts and alone prints them (every rank used to count the whole plan and print it).
    Totals and nodes equal one process's count of the same plan: every unit was counted once. An
    error in the arguments is said once, with the same exit code on every rank, and every time: it
    used to be said after MPI_Finalize, and mpirun, ending the job at the first rank that left with
    the code, cut it off in 1 run of 10 (so it runs 10 times)."""
    cmd = ["count", 16, "--threads", 1, "--depth", 2, "--quiet"]
    alone = report(run(cmd, check=0).stdout)
    p = run(cmd, ranks=3, check=0)
    shared = report(p.stdout)
    assert shared.pop("layout").startswith("3 rank(s), 3 compute thread(s) on "), p.stdout
    assert shared.pop("threads") == "3" and alone.pop("threads") == "1"
    shared.pop("seconds"), alone.pop("seconds")
    assert shared == alone and alone["total"] == str(KNOWN[16]["total"]) and alone["known"].startswith("match"), p.stdout
    assert p.stdout.count("total    ") == 1, p.stdout
    for _ in range(10):
        p = run(["count", 8, "--depth", 9], ranks=3)
        assert p.returncode == EXIT["usage"] and p.stdout == "", p.stderr
        assert p.stderr.count("nqueens: error: --depth 9 exceeds N = 8\n") == 1, p.stderr


def test_more_threads_than_the_cpus_are_warned_about_with_the_fix(workdir):
    """`--threads` beyond the CPUs the job may use only take turns on them (session 46: `count 17
    --threads 1000` on 2 CPUs ran 4x slower, without a word). `count`, `run` and `check` now warn,
    once, naming the threads, the CPUs and the fix, and still run. One CPU by taskset for one
    process; under mpirun, every rank told to start as many threads as this process may use CPUs."""
    one_cpu = ["taskset", "-c", str(min(os.sched_getaffinity(0)))]
    out = workdir / "r.h5"
    for args in (["count", 10], ["run", "--n", 10, "--out", out, "--force"], ["check", out, "--quiet"]):
        p = subprocess.run(one_cpu + command(args + ["--threads", 2]), env=env(None, uses_mpi(args, None)),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, (args, p.stderr)
        assert p.stderr.count("compute threads (--threads") == 1, (args, p.stderr)   # (run: and the layout's)
        assert re.search(r"warning: (on host \S+: )?2 compute threads \(--threads 2\) on the 1 CPU\(s\) the job may use "
                         r"here: .* Leave --threads out: each rank then starts its share of the CPUs\n", p.stderr), (args, p.stderr)
        p = subprocess.run(one_cpu + command(args + ["--threads", 1]), env=env(None, uses_mpi(args, None)),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "compute threads (--threads" not in p.stderr, (args, p.stderr)   # one a CPU
    mine = len(os.sched_getaffinity(0))
    for args, computing in ((["count", 10], 3), (["run", "--n", 10, "--out", out, "--force"], 2)):
        p = run(args + ["--threads", mine], ranks=3, check=0)
        assert p.stderr.count("compute threads (--threads") == 1, (args, p.stderr)
        assert re.search(rf"warning: on host \S+: {computing * mine} compute threads \(--threads {mine} on each of "
                         rf"{computing} computing ranks\) on the \d+ CPU\(s\)", p.stderr), (args, p.stderr)
    assert attrs(out)["status"] == "complete" and attrs(out)["total"] == KNOWN[10]["total"]


@pytest.mark.parametrize("args,needle", [
    (["count", "abc"], "abc"),
    (["count", "0"], "1 to 32"),
    (["count", "33"], "1 to 32"),
    (["count", "-5"], "-5"),
    (["count", "8", "--threads", "0"], "--threads"),
    (["count", "8", "--depth", "9"], "depth 9 exceeds N = 8"),
    (["solve", "8", "--format", "xml"], "xml"),
    (["count", "8", "--bogus"], "--bogus"),
    # An unknown flag before N (or FILE): CLI11 said only "N is required" (session 47)
    (["count", "--bogus"], "not expected: --bogus (see nqueens count --help)"),
    (["solve", "--bogus=3"], "not expected: --bogus (see nqueens solve --help)"),
    (["check", "--bogus"], "not expected: --bogus (see nqueens check --help)"),
    # Numbers that fail every comparison, or have no end (--out where nothing can be written:
    # a run that got through would fail with exit 4, not 2). A NaN --lock-wait used to be taken,
    # and its wait then spun for ever without polling the stop signals.
    *[(["run", "--n", "8", "--out", "/proc/nq.h5", flag, value], flag)
      for flag in ["--lock-wait", "--audit", "--progress-interval", "--checkpoint-interval"]
      for value in ["nan", "-nan", "inf"]],
    # Numbers out of range say the range (CLI11's own check printed DBL_MAX's 309 digits as the
    # bound), and text that is no number says so.
    (["run", "--n", "8", "--progress-interval", "-1"], "--progress-interval must be a number of seconds in (0, 86400]"),
    (["run", "--n", "8", "--checkpoint-interval", "1e400"], "--checkpoint-interval must be a number of seconds in (0, 3600]"),
    (["run", "--n", "8", "--audit", "2"], "--audit must be a number from 0 to 1"),
    (["run", "--n", "8", "--lock-wait", "-5"], "--lock-wait must be a number of seconds from 0 to 86400"),
    (["run", "--n", "8", "--audit", "abc"], "--audit must be a number, got 'abc'"),
    # A result file name with no room for OUT.journal.tmp-<pid> beside it (it failed with exit 4
    # when the journal was created; 235 bytes work: test_run.py).
    (["run", "--n", "8", "--out", "r" * 236], "name is 236 bytes long; at most 235 fit"),
    # Empty paths (an unset shell variable): --out fell back to the default file, merge's ended
    # in "store::commit: : No such file or directory" (exit 4).
    (["run", "--n", "8", "--out", ""], "--out is empty: give a file path"),
    # a count file was written without a word (session 46)
    (["run", "--n", "8", "--boards", "class"], "--boards class is for boards mode, and this job counts (mode count)"),
    (["merge", "", "x.h5"], "OUT is empty: give a file path"),
    (["merge", "m.h5", ""], "SHARD is empty: give a file path"),
    (["info", ""], "FILE is empty: give a file path"),
    # A seed out of range was taken as 2^64-1 (CLI11 wrapped -1 and saturated the too large).
    # The option's name once (CLI11 wrote "--seed: --seed must ...").
    (["check", "x.h5", "--seed", "-1"], "error: --seed must be a whole number from 0 to 9223372036854775807, got '-1'"),
    (["count", "abc"], "error: board size N must be a whole number from 1 to 32, got 'abc'"),
    (["check", "x.h5", "--seed", "99999999999999999999999"], "--seed must be a whole number from 0 to"),
    (["frobnicate"], "frobnicate"),
    ([], "subcommand"),
    # N given the other command's way: the message said only what was not expected
    (["count", "--n", "10"], "(count takes N without --n: nqueens count 10; see nqueens count --help)"),
    (["solve", "--n", "10"], "(solve takes N without --n: nqueens solve 10; see nqueens solve --help)"),
    (["run", "10"], "job file 10: not found or not a regular file (N is given as --n 10)"),
])
def test_bad_input_gives_one_clear_line_and_exit_2(args, needle):
    p = run(args)
    assert p.returncode == EXIT["usage"], p.stderr
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nqueens: error:") and needle in lines[0], p.stderr


@pytest.mark.parametrize("args,needle", [
    (["count", "8", "--threads", "0"], "error: --threads must be a whole number from 1 to 4096, got '0'"),
    (["run", "--n", "99"], "error: --n: board size N must be a whole number from 1 to 32, got '99'"),
    (["frobnicate"], "error: unknown command 'frobnicate'"),
    (["check", "r.h5", "--units", "5-2"], "error: --units: the range 5-2 ends before it starts"),
    (["run", "--n", "8", "--shard", "5/2"], "error: --shard: shard '5/2' must be i/n"),
    # the dry run's job file is read by rank 0 alone (every rank read it and said its error)
    (["run", "no-such-job.toml", "--dry-run"], "error: job file no-such-job.toml: not found"),
])
def test_bad_arguments_under_mpirun_are_said_once(args, needle):
    """Under mpirun every rank parses the same arguments: rank 0 alone says what is wrong, and it
    is never cut off (5 runs each). Every rank used to say it."""
    for _ in range(5):
        p = run(args, ranks=3)
        assert p.returncode == EXIT["usage"] and p.stdout == "", p.stderr
        assert p.stderr.count("nqueens: error:") == 1 and p.stderr.count(needle) == 1, p.stderr


def test_help_and_version():
    assert "count" in run(["--help"], check=0).stdout
    assert run(["--version"], check=0).stdout.startswith("nqueens ")


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["check", "-h"]])
def test_help_under_mpirun_is_printed_once(args):
    """Every rank parses the same arguments: the first prints the help for all (every rank used
    to, as many copies as ranks). --version stays per rank: each names its own CPU's kernel."""
    p = run(args, ranks=3, check=0)
    assert p.stdout.count("Usage:") == 1 and p.stderr == "", p.stdout + p.stderr
    p = run(["--version"], ranks=3, check=0)
    assert p.stdout.count("on this CPU") == 3, p.stdout


def test_version_names_the_kernel_the_cpu_flags_allow():
    # Independent of the binary's own detection: the flags the kernel reads, as /proc/cpuinfo
    # lists them.
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if {"avx512f", "avx512vl", "avx512bw", "avx512dq", "popcnt", "bmi2"} <= flags:
        expected = "AVX-512"
    elif {"avx2", "popcnt", "bmi2"} <= flags:
        expected = "AVX2"
    else:
        expected = "scalar"
    lines = run(["--version"], check=0).stdout.splitlines()
    assert len(lines) == 2 and lines[1] == f"kernel {expected} on this CPU", lines


def test_output_that_cannot_be_written_is_an_io_error_not_success(workdir):
    """stdout on a full disk, or closed: every command used to exit 0 with its output gone. Now
    exit 4 and one line saying why, once (`count` and `check` flush it before their MPI session
    ends, and the command line's end checks it again); a run's result file is still written."""
    out = workdir / "r.h5"
    for args in (["solve", 8], ["solve", 10, "--all", "--format", "columns"], ["count", 12],
                 ["run", "--n", 10, "--out", out], ["info", out], ["check", out, "--quiet"], ["--help"], ["--version"],
                 ["run", "--help"], ["run", "--n", 10, "--out", workdir / "dry.h5", "--dry-run"]):
        with open("/dev/full", "w") as full:
            p = subprocess.run(command(args), env=env(None, uses_mpi(args, None)), stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=120)
        assert p.returncode == EXIT["io"], (args, p.stderr)
        # (with its reason: `solve --all` and `check` write as they go, and a dry run's line on
        # stderr flushes stdout first; they keep the reason of their first failed write, which the
        # last flush no longer knows)
        assert "nqueens: error: cannot write the output to stdout: No space left on device\n" in p.stderr, (args, p.stderr)
        assert p.stderr.count("cannot write the output") == 1, (args, p.stderr)
    assert attrs(out)["status"] == "complete" and attrs(out)["total"] == KNOWN[10]["total"]
    p = subprocess.run(["bash", "-c", 'exec "$@" >&-', "-", *command(["solve", 8])], env=env(mpi=False),
                       stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == EXIT["io"] and "cannot write the output to stdout: Bad file descriptor" in p.stderr, p.stderr


@pytest.mark.parametrize("lost", ["stdout and stderr", "stderr"])
def test_a_run_whose_output_reader_is_gone_computes_on_and_writes_its_file(workdir, lost):
    """`run ... 2>&1 | head -2`: the first write after the reader left killed the job by SIGPIPE
    (exit 141, no partial file; the journal kept its units). A run ignores SIGPIPE now: the writes
    fail instead, the job computes and writes its file, and a lost stdout is exit 4 at the end (a
    lost stderr, its progress lines, is not a failure). The pipe's reader is closed before the run
    starts, so every write of the run meets it gone."""
    out = workdir / "r.h5"
    reader, writer = os.pipe()
    os.close(reader)
    try:
        with open(workdir / "stdout.txt", "w") as kept:
            p = subprocess.run(command(["run", "--n", 12, "--out", out]), env=env(None, True), timeout=120,
                               stdout=writer if lost != "stderr" else kept, stderr=writer)   # (SIGPIPE: default)
    finally:
        os.close(writer)
    assert p.returncode == (EXIT["io"] if lost != "stderr" else 0), p.returncode
    assert attrs(out)["status"] == "complete" and attrs(out)["total"] == KNOWN[12]["total"]
    if lost == "stderr":
        assert re.search(r"^total +14200$", (workdir / "stdout.txt").read_text(), re.M)


def test_solve_all_stops_when_its_reader_is_gone_and_sigpipe_is_ignored():
    """Some launchers start programs with SIGPIPE ignored; a write then fails with EPIPE instead
    of ending the process. `solve 20 --all` (39 billion boards) used to go on enumerating into
    the closed pipe."""
    proc = subprocess.Popen(command(["solve", 20, "--all", "--format", "columns"]), env=env(mpi=False),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            restore_signals=False)   # keep Python's SIG_IGN for SIGPIPE
    try:
        assert proc.stdout.readline().startswith("[")
        proc.stdout.close()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    err = proc.stderr.read()
    assert proc.returncode == EXIT["io"] and "cannot write the output to stdout: Broken pipe\n" in err, err
