"""`nqueens run`: the distributed job under mpirun with several ranks and as one process, its
HDF5 file, job files, and its refusals."""
import itertools
import os
import re
import shlex
import shutil
import signal
import subprocess

import h5py
import numpy as np
import pytest

from conftest import (BIN, EXIT, KNOWN, ROOT, STOP_WRITING, attrs, board_set, env, fault_env, journal_of, run, set_counts, start,
                      strike, units_table, when_stopped)


def brute_force(n):
    """Independent of the C++ code: every permutation checked for diagonal attacks."""
    return {bytes(p) for p in itertools.permutations(range(n))
            if len({r + c for r, c in enumerate(p)}) == n and len({r - c for r, c in enumerate(p)}) == n}


@pytest.mark.parametrize("ranks", [None, 2, 3, 4])
def test_count_mode_same_result_every_layout(workdir, ranks):
    out = workdir / "c.h5"
    p = run(["run", "--n", 12, "--out", out, "--threads", 1], ranks=ranks, check=0)
    a = attrs(out)
    assert a["status"] == "complete" and a["format"] == "nqueens-result" and a["format_version"] == 2
    assert a["total"] == KNOWN[12]["total"] and a["unique"] == KNOWN[12]["unique"]
    assert a["total_hi"] == 0 and a["total_lo"] == a["total"] and a["total_decimal"] == str(a["total"])
    assert a["matches_known"] == "yes" and a["ranks"] == (ranks or 1)
    u = units_table(out)
    assert len(u["id"]) == a["units_total"] == a["units_done"]
    assert list(u["id"]) == list(range(a["units_total"]))          # every unit exactly once, sorted
    assert int(np.sum(u["multiplicity"].astype(np.uint64) * u["solutions"])) == a["total"]
    assert u["placement"].shape == (a["units_total"], 12)
    assert f"total    {KNOWN[12]['total']}" in p.stdout and str(out) in p.stdout
    # every rank's peak memory: the master's, and the largest worker's from the stop confirmations
    m = re.search(r"^memory   peak RSS (\d+) MB \(master\)(?:, (\d+) MB \(largest worker: rank (\d+) of (\d+)\))?$",
                  p.stdout, re.M)
    assert m, p.stdout
    assert 0 < int(m.group(1)) < 1024
    if (ranks or 1) > 1:
        assert m.group(2) and 0 < int(m.group(2)) < 1024 and 1 <= int(m.group(3)) < ranks and int(m.group(4)) == ranks
    else:
        assert m.group(2) is None
    # the summary names the analysis launcher of the checkout the binary was built in
    assert f"|   {ROOT}/analysis/nqanalyze summary {out}\n" in p.stdout, p.stdout


@pytest.mark.parametrize("n,ranks", [(6, 3), (8, 2), (8, 4)])
def test_boards_mode_equals_brute_force(workdir, n, ranks):
    out = workdir / "b.h5"
    run(["run", "--n", n, "--mode", "boards", "--out", out], ranks=ranks, check=0)
    with h5py.File(out, "r") as f:
        sol = f["boards/solutions"]
        assert sol.shape == (KNOWN[n]["total"], n) and sol.dtype == np.uint8
        assert sol.fletcher32 and sol.shuffle and sol.compression == "gzip" and sol.chunks
    assert board_set(out) == brute_force(n)


def test_boards_class_mode_stores_one_board_per_class(workdir):
    out = workdir / "k.h5"
    run(["run", "--n", 8, "--mode", "boards", "--boards", "class", "--out", out], ranks=3, check=0)
    with h5py.File(out, "r") as f:
        sizes = f["boards/class_size"][()]
        assert len(sizes) == KNOWN[8]["unique"] and int(sizes.sum()) == KNOWN[8]["total"]
    assert attrs(out)["boards_stored"] == "class"


def test_job_file_is_read_and_flags_override_it(workdir):
    job = workdir / "job.toml"
    job.write_text(f'n = 9\nmode = "count"\nout = "{workdir}/from-file.h5"\n')
    run(["run", job, "--n", 10], ranks=2, check=0)
    assert attrs(workdir / "from-file.h5")["total"] == KNOWN[10]["total"]


@pytest.mark.parametrize("text,needle", [
    ('n = 8\ncolour = "red"\n', "unknown key 'colour'"),
    ('n = "eight"\n', "key 'n' must be an integer"),
    ('n = 40\n', "key 'n' = 40 is outside 1..32"),
    ('n = -3\n', "key 'n' = -3"),
    ('n = 99999999999999999999\n', "line 1"),
    ('mode = "count"\n', "key 'n' (the board size) is missing"),
    ('n = 8\nmode = "fast"\n', "key 'mode' = \"fast\" is not one of count, boards"),
    ('n = 8\ndepth = 2.5\n', "key 'depth' must be an integer"),
    ('n = 8\nthreads = [1]\n', "key 'threads' must be an integer"),
    ('n = 8\n[[broken\n', "line 2"),
    ('n = 8\nout = ""\n', "key 'out' is empty"),   # (it fell back to the default file)
])
def test_bad_job_files_are_usage_errors_naming_the_key(workdir, text, needle):
    """Said once under mpirun -n 3: rank 0 alone reads the job file (every rank did, and said it)."""
    job = workdir / "bad.toml"
    job.write_text(text)
    p = run(["run", job, "--out", workdir / "x.h5"], ranks=3)
    assert p.returncode == EXIT["usage"], p.stderr
    assert needle in p.stderr and str(job) in p.stderr
    assert p.stderr.count("nqueens: error:") == 1, p.stderr
    assert not (workdir / "x.h5").exists()


def test_missing_job_file_and_directory_job_file(workdir):
    for job in (workdir / "nope.toml", workdir):
        p = run(["run", job], ranks=3)
        assert p.returncode == EXIT["usage"] and p.stderr.count("nqueens: error: job file") == 1, p.stderr


def test_the_job_file_need_be_readable_only_where_rank_0_runs(workdir):
    """The workers take the job from the master, so they never read the file: here the workers run
    in a directory without it (as on a node that cannot see the file's directory). They used to
    stop the job at once with 'job file job.toml: not found'."""
    master, elsewhere = workdir / "master", workdir / "elsewhere"
    master.mkdir()
    elsewhere.mkdir()
    (master / "job.toml").write_text(f'n = 10\nout = "{workdir}/r.h5"\n')
    args = [BIN, "run", "job.toml"]
    p = subprocess.run(["mpirun", "-n", "1", "--wdir", str(master), *args, ":", "-n", "2", "--wdir", str(elsewhere), *args],
                       env=env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    a = attrs(workdir / "r.h5")
    assert a["total"] == KNOWN[10]["total"] and a["ranks"] == 3 and a["status"] == "complete", a


def test_complete_result_is_never_overwritten_without_force(workdir):
    out = workdir / "r.h5"
    run(["run", "--n", 8, "--out", out], check=0)
    before = out.read_bytes()
    p = run(["run", "--n", 9, "--out", out], ranks=2)
    assert p.returncode == EXIT["refused"] and "--force" in p.stderr
    assert out.read_bytes() == before
    run(["run", "--n", 9, "--out", out, "--force"], ranks=2, check=0)
    assert attrs(out)["n"] == 9


@pytest.mark.parametrize("ranks", [None, 3])
def test_status_file_holds_the_exit_code_of_the_run(workdir, ranks):
    """`--status-file F`: rank 0 writes the run's exit code and the units it journaled to F as it
    ends (slurm/nqueens.sbatch takes srun's exit code 0 only with a 0 there). It replaces what F
    held; a status file that cannot be written at the end (its folder gone meanwhile) is a
    warning, and the run's own result and exit code stand. (A resumed run counts only its own
    units: faults/test_interrupt.py.)"""
    out, status = workdir / "r.h5", workdir / "status"
    status.write_text("launched, no exit code yet\n")   # as slurm/nqueens.sbatch leaves it
    run(["run", "--n", 9, "--out", out, "--status-file", status], ranks=ranks, check=0)
    assert status.read_text() == f"0 {attrs(out)['units_total']}\n"
    run(["run", "--n", 9, "--out", out, "--status-file", status], ranks=ranks, check=EXIT["refused"])
    assert status.read_text() == f"{EXIT['refused']} 0\n"
    if not ranks:
        return   # (the stop fault below holds a master that mpirun started)
    folder = workdir / "gone"
    folder.mkdir()
    lost = folder / "status"
    code, err = strike(["run", "--n", 12, "--out", workdir / "r2.h5", "--status-file", lost], ranks,
                       lambda proc, master: folder.rmdir(), at=1)
    assert code == 0 and f"nqueens: warning: cannot write the status file {lost} (--status-file)" in err, err
    assert attrs(workdir / "r2.h5")["total"] == KNOWN[12]["total"]


def test_a_status_file_that_would_destroy_a_file_or_hang_is_refused(workdir):
    """`--status-file` replaced whatever it named: the result file (destroyed, exit 0), a complete
    result the run then refused (destroyed, exit 5), the journal of a partial run (its finished
    units lost), a log behind /dev/stderr; a FIFO without a reader hung the finished run. Each is
    exit 2 now, before anything is touched."""
    out = workdir / "c.h5"
    job = workdir / "j.toml"
    job.write_text(f'n = 9\nout = "{out}"\n')
    run(["run", job], check=0)
    before = out.read_bytes()
    journal = workdir / "p.h5.journal"
    journal.write_bytes(b"NQJOURNL-not-touched")
    fifo = workdir / "fifo"
    os.mkfifo(fifo)
    link = workdir / "link.h5"
    os.link(out, link)
    os.symlink(".", workdir / "here")
    os.symlink("new.h5", workdir / "dangling")
    notes = workdir / "notes.txt"
    notes.write_text("line one\nline two\n")
    cases = [([job, "--status-file", out], "is the result file"),
             (["--n", 9, "--out", out, "--status-file", link], "is the result file"),
             # the same file spelled otherwise, and not there yet: it was overwritten after the run
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", f"{workdir}/./new.h5"], "is the result file"),
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", workdir / "here" / "new.h5"],
              "is the result file"),
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", workdir / "dangling"], "is not a regular file"),
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", workdir / "here" / "new.h5.journal"],
              "is its journal"),
             (["--n", 9, "--out", workdir / "p.h5", "--status-file", journal], "is its journal"),
             ([job, "--status-file", job], "is the job file"),
             ([job, "--status-file", fifo], "is not a regular file"),
             ([job, "--status-file", "/dev/stderr"], "is not a regular file"),
             ([job, "--status-file", workdir], "is not a regular file"),
             ([job, "--status-file", ""], "give a file path"),
             # another job's result, a text of several lines: not a status file (it replaced them, exit 0)
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", link], "exists and is not a status file"),
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", notes], "exists and is not a status file"),
             # a folder that is not there: the run ended with a warning, exit 0
             (["--n", 9, "--out", workdir / "new.h5", "--status-file", workdir / "nodir" / "s"],
              f"the folder {workdir / 'nodir'} does not exist: create it, or give another path")]
    for args, needle in cases:
        for dry in ([], ["--dry-run"]):
            p = run(["run", *args, *dry], ranks=2, timeout=60)
            assert p.returncode == EXIT["usage"] and needle in p.stderr, (args, dry, p.returncode, p.stderr)
    assert out.read_bytes() == before and journal.read_bytes() == b"NQJOURNL-not-touched"
    assert notes.read_text() == "line one\nline two\n"
    assert job.read_text().startswith("n = 9") and not (workdir / "new.h5").exists()


def test_an_out_path_ending_in_a_slash_is_refused_before_anything_is_made(workdir):
    """`--out newdir/` created newdir and then called it a directory in the way (exit 5; exit 4
    the second time)."""
    p = run(["run", "--n", 8, "--out", f"{workdir}/newdir/"])
    assert p.returncode == EXIT["usage"] and "ends with '/'" in p.stderr, p.stderr
    assert not (workdir / "newdir").exists()


def test_the_longest_result_file_name_that_fits_works(workdir):
    """235 bytes: with OUT.journal.tmp-<pid> (7-digit pid) beside it, 255 (NAME_MAX). One byte
    more is refused up front (test_cli.py)."""
    out = workdir / ("r" * 235)
    run(["run", "--n", 8, "--out", out], ranks=2, check=0)
    assert attrs(out)["total"] == KNOWN[8]["total"]


@pytest.mark.parametrize("ranks", [None, 2])
def test_skip_complete_takes_this_jobs_complete_result_as_done_and_nothing_else(workdir, ranks):
    """--skip-complete (slurm/shard.sbatch passes it: the shards of a job submitted again after
    one failed used to exit 5, and the merge never ran): this job's complete result at OUT is
    exit 0 at once, the file untouched; a complete result of other parameters is still exit 5;
    with --force it is a usage error; with no result yet, the job runs; a complete result that
    contradicts the published counts is not taken as done (exit 5)."""
    out, status = workdir / "c.h5", workdir / "status"
    run(["run", "--n", 10, "--out", out], ranks=ranks, check=0)
    before = out.read_bytes()
    p = run(["run", "--n", 10, "--out", out, "--skip-complete", "--status-file", status], ranks=ranks, check=0)
    assert f"{out} already holds the complete result of this job (total 724): nothing to do" in p.stderr, p.stderr
    assert out.read_bytes() == before and status.read_text() == "0 0\n"
    p = run(["run", "--n", 10, "--depth", 3, "--out", out, "--skip-complete"], ranks=ranks, check=EXIT["refused"])
    assert "complete result, but of other parameters (depth is 6 there, 3 here)" in p.stderr, p.stderr
    p = run(["run", "--n", 10, "--out", out, "--skip-complete", "--force"], ranks=ranks, check=EXIT["usage"])
    assert out.read_bytes() == before
    fresh = workdir / "f.h5"
    run(["run", "--n", 10, "--out", fresh, "--skip-complete"], ranks=ranks, check=0)
    assert attrs(fresh)["total"] == KNOWN[10]["total"]
    # A complete file whose count contradicts the table (exit 6 when it was made) is not "done".
    wrong = workdir / "w.h5"
    run(["run", "--n", 9, "--out", wrong, "--audit", 0], ranks=ranks, extra_env={"NQUEENS_INJECT_FAULT": "wrong:30"},
        check=EXIT["verify"])
    assert attrs(wrong)["status"] == "complete" and attrs(wrong)["matches_known"] == "no"
    p = run(["run", "--n", 9, "--out", wrong, "--audit", 0, "--skip-complete"], ranks=ranks, check=EXIT["refused"])
    assert "contradicts the published counts" in p.stderr, p.stderr
    # Without either flag the refusal offers only what works: --skip-complete would refuse it too.
    p = run(["run", "--n", 9, "--out", wrong, "--audit", 0], ranks=ranks, check=EXIT["refused"])
    assert "contradicts the published counts: pass --force to replace it" in p.stderr and "--skip-complete" not in p.stderr, p.stderr
    p = run(["run", "--n", 11, "--out", out], ranks=ranks, check=EXIT["refused"])
    assert "but of other parameters (n is 10 there, 11 here)" in p.stderr and "--skip-complete" not in p.stderr, p.stderr
    # A file edited after it was written is judged by its counts, not its word: a total changed
    # with its companions (Burnside no longer holds; the file still says it matches), or a partial
    # result marked complete (units_done short of units_total). Both used to be exit 0, "nothing to do".
    edited, marked = workdir / "e.h5", workdir / "m.h5"
    shutil.copy(out, edited)
    with h5py.File(edited, "r+") as f:
        set_counts(f, total=KNOWN[10]["total"] + 8)
    p = run(["run", "--n", 10, "--out", edited, "--skip-complete"], ranks=ranks, check=EXIT["refused"])
    assert "its counts disagree (Burnside gives" in p.stderr, p.stderr
    shutil.copy(out, marked)
    with h5py.File(marked, "r+") as f:
        f.attrs["units_total"] = np.uint64(f.attrs["units_total"] + 1)
    p = run(["run", "--n", 10, "--out", marked, "--skip-complete"], ranks=ranks, check=EXIT["refused"])
    assert "status is complete, but units_done = " in p.stderr, p.stderr
    assert run(["info", marked]).returncode == EXIT["bad_input"]


def test_a_result_file_open_for_writing_elsewhere_is_called_busy_not_foreign(workdir):
    """h5py holding OUT open with mode 'r+' (HDF5's file lock): `run` said OUT "is not a readable
    nqueens result file ... move it away". It is busy: run refuses it (exit 5), info says why
    (exit 3), and once the other program closes it, both work."""
    out = workdir / "c.h5"
    run(["run", "--n", 8, "--out", out], check=0)
    with h5py.File(out, "r+"):
        p = run(["run", "--n", 8, "--out", out, "--force"], check=EXIT["refused"])
        assert "open for writing in another program" in p.stderr and "move it away" not in p.stderr, p.stderr
        p = run(["info", out], check=EXIT["bad_input"])
        assert "open for writing in another program" in p.stderr, p.stderr
    run(["info", out], check=0)
    run(["run", "--n", 8, "--out", out, "--force"], check=0)


def test_foreign_file_at_output_is_not_overwritten(workdir):
    out = workdir / "foreign.h5"
    with h5py.File(out, "w") as f:
        f["data"] = np.arange(10)
    before = out.read_bytes()
    p = run(["run", "--n", 8, "--out", out], ranks=2)
    assert p.returncode == EXIT["refused"] and "not a readable nqueens result file" in p.stderr
    assert out.read_bytes() == before


def test_output_path_that_is_a_directory_is_an_io_error(workdir):
    p = run(["run", "--n", 8, "--out", workdir], ranks=2)
    assert p.returncode == EXIT["io"] and "is a directory" in p.stderr


def test_info_prints_provenance(workdir):
    out = workdir / "i.h5"
    run(["run", "--n", 10, "--out", out], ranks=2, check=0)
    p = run(["info", out], check=0)
    assert "complete" in p.stdout and str(KNOWN[10]["total"]) in p.stdout and "matches         yes" in p.stdout
    # `threads` is per worker: the layout said "2 rank(s) x 2 thread(s)" for 2 compute threads.
    assert re.search(r"^layout +2 ranks: a master and 1 worker\(s\) x \d+ compute thread\(s\) on ", p.stdout, re.M), p.stdout
    run(["run", "--n", 8, "--out", workdir / "one.h5", "--threads", 1], check=0)
    assert re.search(r"^layout +1 process x 1 compute thread\(s\) on ", run(["info", workdir / "one.h5"], check=0).stdout, re.M)
    # An edited total: the file still says it matches; info says again from the counts.
    with h5py.File(out, "r+") as f:
        set_counts(f, total=KNOWN[10]["total"] + 8)
    p = run(["info", out], check=0)
    assert re.search(r"^matches +no \(the file says yes: it was changed after it was written\)$", p.stdout, re.M), p.stdout
    # ... and the unique count again from total, P and R (Burnside): total + 8 gives one more class.
    unique = KNOWN[10]["unique"]
    assert re.search(rf"^unique +{unique} \(Burnside gives {unique + 1} from total, P and R: the file was changed after it was written\)$",
                     p.stdout, re.M), p.stdout
    # P edited by 1: total + P + 2R is no longer a multiple of 8.
    with h5py.File(out, "r+") as f:
        set_counts(f, total=KNOWN[10]["total"])
        f.attrs["rot180_fixed"] = f.attrs["rot180_fixed"] + 1
    p = run(["info", out], check=0)
    assert re.search(rf"^unique +{unique} \(Burnside check failed .* is not a multiple of 8: the file was changed after it was written\)$",
                     p.stdout, re.M), p.stdout
    # Unedited, the rows say no more than the counts.
    with h5py.File(out, "r+") as f:
        f.attrs["rot180_fixed"] = f.attrs["rot180_fixed"] - 1
    p = run(["info", out], check=0)
    assert re.search(rf"^unique +{unique}$", p.stdout, re.M) and re.search(r"^matches +yes$", p.stdout, re.M), p.stdout


def test_info_on_a_foreign_file_is_a_bad_input_error(workdir):
    (workdir / "t.h5").write_text("hello")
    p = run(["info", workdir / "t.h5"])
    assert p.returncode == EXIT["bad_input"] and "t.h5" in p.stderr


def test_shards_merge_into_the_single_run_result(workdir):
    single = workdir / "single.h5"
    run(["run", "--n", 10, "--mode", "boards", "--out", single], ranks=2, check=0)
    shards = []
    for i in range(3):
        s = workdir / f"s{i}.h5"
        run(["run", "--n", 10, "--mode", "boards", "--shard", f"{i}/3", "--out", s], ranks=2, check=0)
        assert attrs(s)["shard_count"] == 3
        shards.append(s)
    merged = workdir / "merged.h5"
    gap = run(["merge", merged, shards[0], shards[2]])
    assert gap.returncode == EXIT["refused"] and "missing" in gap.stderr
    overlap = run(["merge", merged, shards[0], shards[0], shards[1]])
    assert overlap.returncode == EXIT["refused"] and "twice" in overlap.stderr
    run(["merge", merged, *shards], check=0)
    a, b = attrs(single), attrs(merged)
    for k in ("n", "total", "unique", "units_total", "units_done", "matches_known", "status"):
        assert a[k] == b[k], k
    ua, ub = units_table(single), units_table(merged)
    for k in ("id", "placement", "multiplicity", "solutions"):
        assert np.array_equal(ua[k], ub[k]), k
    assert board_set(single) == board_set(merged)


def test_merge_replaces_a_partial_result_only_with_force_and_never_while_its_run_writes_it(workdir):
    """A partial OUT is a run's progress: the merge replaced it silently, and merged into the file
    of a run still under way (which then wrote its own over the merged one). Now a partial OUT
    needs --force, as a complete one does, and a run's lock on OUT.journal refuses the merge,
    with --force too."""
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(["run", "--n", 10, "--shard", f"{i}/2", "--out", s], check=0)
    out = workdir / "r.h5"
    refused = []

    def merge_while_the_run_is_held(_, master):
        for force in ([], ["--force"]):
            p = run(["merge", out, *shards, *force])
            refused.append((p.returncode, p.stderr))
        os.kill(master, signal.SIGTERM)

    code, err = strike(["run", "--n", 14, "--depth", 4, "--out", out], 2, merge_while_the_run_is_held, at=20)
    for code_, said in refused:
        assert code_ == EXIT["refused"] and (f"{journal_of(out)} is in use by another process: a run or another merge "
                                             f"is writing {out}; let it finish, or merge into another file") in said, said
    assert code == EXIT["interrupted"] and attrs(out)["n"] == 14, err
    partial = out.read_bytes()
    p = run(["merge", out, *shards])
    assert p.returncode == EXIT["refused"], p.stderr
    assert f"{out} holds a partial result (N = 14, " in p.stderr and "pass --force to replace it" in p.stderr, p.stderr
    assert out.read_bytes() == partial
    run(["merge", out, *shards, "--force"], check=0)
    assert attrs(out)["total"] == KNOWN[10]["total"] and attrs(out)["status"] == "complete"
    foreign = workdir / "notes.h5"   # (the merge has no --out: its remedy is its own)
    foreign.write_text("someone else's file\n")
    p = run(["merge", foreign, *shards, "--force"])
    assert p.returncode == EXIT["refused"] and "refusing to overwrite it: move it away or merge into another file" in p.stderr
    assert foreign.read_text() == "someone else's file\n"


def test_a_merge_holds_outs_lock_while_it_writes_and_a_stop_signal_ends_it_leaving_out_as_it_was(workdir):
    """The merge took no lock: it looked for a run of OUT once, before reading the shards. A run
    of OUT started during the merge removed the merge's temporary file as stale (the merge then
    failed, exit 4), or wrote its complete result, which the merge replaced without --force; two
    merges replaced each other's. A stop signal killed it, leaving its temporary file. Now it
    holds OUT's journal, as a run does, from its check of OUT to its end, removes what a killed
    run or merge left, and a stop signal ends it with exit 75 and nothing changed. The merge is
    held (SIGSTOP) in the middle of writing (the injected fault), so it is certainly under way."""
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(["run", "--n", 10, "--shard", f"{i}/2", "--out", s], check=0)
    out = workdir / "m.h5"
    stale = workdir / "m.h5.tmp-999999-0"   # as a merge killed with -9 leaves it
    stale.write_text("left by a killed merge\n")
    temp_files = lambda: sorted(p.name for p in workdir.glob("m.h5.tmp-*"))
    seen = {}

    def meanwhile():
        seen["writing"] = temp_files()
        seen["run"] = run(["run", "--n", 8, "--out", out])
        seen["merge"] = run(["merge", out, *shards, "--force"])
        seen["after"] = temp_files()

    proc = start(["merge", out, *shards], extra_env=fault_env(STOP_WRITING))
    when_stopped(proc, proc.pid, meanwhile)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert f"removed {stale} (left by an earlier run or merge that was killed while writing)" in err, err
    assert len(seen["writing"]) == 1 and seen["writing"] != [stale.name] and seen["after"] == seen["writing"], seen
    in_use = f"{journal_of(out)} is in use by another process"
    assert seen["run"].returncode == EXIT["refused"] and in_use in seen["run"].stderr, seen["run"].stderr
    assert "another run, or a merge, is writing this result file" in seen["run"].stderr, seen["run"].stderr
    assert seen["merge"].returncode == EXIT["refused"], seen["merge"].stderr
    assert f"{in_use}: a run or another merge is writing {out}" in seen["merge"].stderr, seen["merge"].stderr
    a = attrs(out)
    assert (a["n"], a["total"], a["status"]) == (10, KNOWN[10]["total"], "complete"), a
    assert not journal_of(out).exists() and temp_files() == []

    merged = out.read_bytes()
    proc = start(["merge", out, *shards, "--force"], extra_env=fault_env(STOP_WRITING))
    when_stopped(proc, proc.pid, lambda: os.kill(proc.pid, signal.SIGTERM))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT["interrupted"] and "interrupted" in err, err
    assert out.read_bytes() == merged and temp_files() == [] and not journal_of(out).exists(), err


def test_a_run_whose_directory_is_removed_under_it_does_not_say_its_journal_keeps_its_units(workdir):
    """OUT's directory removed while the run computes: the final write fails (exit 4), and the run
    said "finished units up to the failure are kept in DIR/r.h5.journal", a file removed with the
    directory. The directory is removed while the master is held after 20 units."""
    out = workdir / "gone" / "r.h5"
    code, err = strike(["run", "--n", 12, "--depth", 4, "--out", out], 2, lambda *_: shutil.rmtree(out.parent), at=20)
    assert code == EXIT["io"], err
    assert f"{out}.journal is gone (removed, or its directory), and with it the units this run finished: rerun" in err, err
    assert "are kept in" not in err, err
    run(["run", "--n", 12, "--depth", 4, "--out", out], check=0)   # (the directory made again)
    assert attrs(out)["total"] == KNOWN[12]["total"]


def test_an_out_that_is_a_symlink_is_written_through_by_run_and_merge(workdir):
    """--out LINK (a symlink to real/r.h5): the run kept its journal beside the link, resumed from
    the target's units, and replaced the link with a regular file, leaving the target partial and
    its journal orphaned; a run through the link and one through the target did not exclude each
    other. Now LINK stands for its target, a target not made yet too."""
    (workdir / "real").mkdir()
    link, target = workdir / "link.h5", workdir / "real" / "r.h5"
    link.symlink_to("real/r.h5")   # (relative, and dangling until the run writes the target)
    cmd = ["run", "--n", 12, "--depth", 4]
    code, err = strike(cmd + ["--out", link], 2, lambda _, master: os.kill(master, signal.SIGTERM), at=20)
    assert code == EXIT["interrupted"], err
    assert link.is_symlink() and attrs(target)["status"] == "partial", err
    assert journal_of(target).exists() and not journal_of(link).exists()
    p = run(cmd + ["--out", target], check=0)   # the same job: it resumes
    assert f"resuming from {journal_of(target)}" in p.stderr, p.stderr
    assert link.is_symlink() and attrs(link)["total"] == KNOWN[12]["total"] and attrs(link)["status"] == "complete"
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(["run", "--n", 10, "--shard", f"{i}/2", "--out", s], check=0)
    merged = workdir / "merged.h5"
    merged.symlink_to("real/m.h5")
    run(["merge", merged, *shards], check=0)
    assert merged.is_symlink() and attrs(workdir / "real" / "m.h5")["total"] == KNOWN[10]["total"]


def test_the_reports_inspect_commands_can_be_pasted_into_a_shell(workdir):
    """The report's `inspect` line names OUT as one shell word: a path with a space or a quote
    was printed bare, and the pasted command named other files."""
    out = workdir / "my results" / "it's n8.h5"
    p = run(["run", "--n", 8, "--out", out], check=0)
    line = next(l for l in p.stdout.splitlines() if l.startswith("inspect "))
    info = line.split(None, 1)[1].split("   |   ")[0]
    assert shlex.split(info) == ["nqueens", "info", str(out)], line
    pasted = subprocess.run(["bash", "-c", shlex.quote(str(BIN)) + info[len("nqueens"):]], capture_output=True, text=True,
                            timeout=60)
    assert pasted.returncode == 0 and re.search(r"^total +92$", pasted.stdout, re.M), pasted


def test_merge_refuses_shards_of_different_jobs(workdir):
    a, b = workdir / "a.h5", workdir / "b.h5"
    run(["run", "--n", 9, "--shard", "0/2", "--out", a], check=0)
    run(["run", "--n", 10, "--shard", "1/2", "--out", b], check=0)
    p = run(["merge", workdir / "m.h5", a, b])
    assert p.returncode == EXIT["refused"] and f"n is 9 in {a}, 10 in {b}" in p.stderr, p.stderr
