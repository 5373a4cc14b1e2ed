"""`nqueens check FILE`: units of a real result file recounted, by default with another kernel
than the one that counted them in the run, and compared with the file: each
unit's placement and multiplicity against the plan's unit of its id, its solutions and nodes
against the recount. Tampered copies of a real file (h5py) must be caught unit by unit."""
import os
import re
import shutil
import signal
import subprocess
import time

import h5py
import pytest

from conftest import BIN, EXIT, attrs, env, kill_group, run, start

UNIT_LINE = re.compile(r"^unit +(\d+) +(agrees|DIFFERS) +(.*)$", re.M)


@pytest.fixture(scope="module")
def n14(tmp_path_factory):
    out = tmp_path_factory.mktemp("n14") / "n14.h5"
    run(["run", "--n", 14, "--depth", 3, "--out", out], ranks=2, check=0)
    return out


def lines(stdout):
    """The unit lines: id -> (agrees or DIFFERS, what it says, without the seconds that follow)."""
    return {int(m.group(1)): (m.group(2), m.group(3).split("  ")[0]) for m in UNIT_LINE.finditer(stdout)}


def result_line(stdout):
    return re.search(r"^result +(.*)$", stdout, re.M).group(1)


def cpu_has(flag):
    with open("/proc/cpuinfo") as f:
        return any(line.startswith("flags") and flag in line.split() for line in f)


def test_every_unit_recounted_by_another_kernel_agrees_and_a_seed_draws_the_same_sample(n14):
    """By default the recount is another kernel than the one runs use on this CPU (AVX2 where it has
    AVX-512, else the scalar search); each kernel can be chosen, and all agree unit by unit."""
    units = attrs(n14)["units_done"]
    p = run(["check", n14, "--all", "--kernel", "scalar"], check=0)
    assert re.search(r"^units +every unit of the file \([\d,]+\); recounted with the scalar search on \d+ thread",
                     p.stdout, re.M), p.stdout
    assert result_line(p.stdout).startswith(f"{units:,} of {units:,} units agree"), p.stdout
    # A sample: its seed is printed, and draws the same units again, whatever the kernel.
    p = run(["check", n14, "--sample", 5], check=0)
    other = "AVX2" if cpu_has("avx512f") and cpu_has("avx2") else "scalar"
    assert f"recounted with the {other} search" in p.stdout, p.stdout
    seed = re.search(r"--seed (\d+) draws them again", p.stdout).group(1)
    drawn = lines(p.stdout)
    assert len(drawn) == 5 and all(v[0] == "agrees" for v in drawn.values()), p.stdout
    fastest = "AVX-512" if cpu_has("avx512f") else "AVX2" if cpu_has("avx2") else "scalar"
    for kernel, name in [("fastest", fastest), ("avx2", "AVX2" if cpu_has("avx2") else "scalar"), ("scalar", "scalar")]:
        again = run(["check", n14, "--sample", 5, "--seed", seed, "--kernel", kernel], check=0)
        assert lines(again.stdout) == drawn and f"recounted with the {name} search" in again.stdout, again.stdout
    # Ids and ranges, overlapping: each unit once.
    p = run(["check", n14, "--units", "3-6,5,40"], check=0)
    assert sorted(lines(p.stdout)) == [3, 4, 5, 6, 40], p.stdout


def tampered_copy(src, dst, edit):
    """dst: a copy of the result file src whose /units group `edit` changed (h5py); returns the unit ids."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        edit(f["units"])
        return f["units"]["id"][:]


def test_a_tampered_count_nodes_placement_or_multiplicity_is_named_and_fails_with_exit_6(n14, workdir):
    bad = workdir / "bad.h5"
    rows = {"solutions": 7, "nodes": 20, "placement": 33, "multiplicity": 51}

    def edit(u):
        u["solutions"][7] = u["solutions"][7] + 1
        u["nodes"][20] = u["nodes"][20] - 1
        u["placement"][33] = u["placement"][34]
        u["multiplicity"][51] = 2 if u["multiplicity"][51] != 2 else 4

    ids = tampered_copy(n14, bad, edit)
    p = run(["check", bad, "--all"])
    assert p.returncode == EXIT["verify"], p.stderr
    found = lines(p.stdout)
    assert sorted(found) == sorted(int(ids[r]) for r in rows.values()), p.stdout
    assert all(v[0] == "DIFFERS" for v in found.values())
    assert found[int(ids[7])][1].startswith("the file says ") and " solutions and " in found[int(ids[7])][1]
    assert found[int(ids[33])][1] == "its placement is not that of the plan's unit of this id"
    assert found[int(ids[51])][1].startswith("its multiplicity is ")
    assert result_line(p.stdout).startswith(f"4 of {len(ids):,} units differ (above)"), p.stdout
    assert "note " not in p.stdout, p.stdout   # written by this nqueens: its plan is the file's
    # Written by another build: its plan may differ from this one's, and the check says so.
    with h5py.File(bad, "r+") as f:
        f.attrs["git_commit"] = "0123456789ab"
    p = run(["check", bad, "--all"])
    assert p.returncode == EXIT["verify"] and re.search(
        r"^note +.* was written by nqueens [^,]+, commit 0123456789ab: a unit whose placement or multiplicity is not "
        r"that of the plan that this nqueens .* may be right for the plan of the nqueens that wrote it", p.stdout, re.M), \
        p.stdout
    # The same units named one at a time; an untouched one passes.
    assert run(["check", bad, "--units", str(int(ids[20]))]).returncode == EXIT["verify"]
    run(["check", bad, "--units", str(int(ids[21]))], check=0)


def test_units_out_of_id_order_are_named_as_such(n14, workdir):
    """Two rows' ids swapped: the later row, of the lower id, was said to be of no unit of the
    plan ("the plan has no unit of this id"), which it is."""
    bad = workdir / "swapped.h5"

    def edit(u):
        ids = u["id"][10:12]
        u["id"][10:12] = ids[::-1]

    ids = tampered_copy(n14, bad, edit)
    p = run(["check", bad, "--all", "--threads", 1])
    assert p.returncode == EXIT["verify"], p.stderr
    assert lines(p.stdout)[int(ids[11])][1] == ("its row comes after that of a higher id (the file's units are out of "
                                                "id order, or an id repeats)"), p.stdout


def test_shard_and_boards_files_are_checked_and_bad_requests_get_clear_errors(workdir, n14):
    shard = workdir / "s.h5"
    run(["run", "--n", 14, "--depth", 3, "--shard", "1/3", "--out", shard], check=0)
    p = run(["check", shard, "--units", "0-11"], check=0)
    assert sorted(lines(p.stdout)) == [1, 4, 7, 10] and "shard 1/3" in p.stdout, p.stdout
    boards = workdir / "b.h5"   # mirror symmetry, boards: another plan, counts of its stored boards
    run(["run", "--n", 11, "--mode", "boards", "--symmetry", "mirror", "--out", boards], ranks=2, check=0)
    p = run(["check", boards, "--all"], check=0)
    units = attrs(boards)["units_done"]
    assert "boards mode" in p.stdout and result_line(p.stdout).startswith(f"{units:,} of {units:,} units agree"), p.stdout
    p = run(["check", shard, "--units", "3"])
    assert p.returncode == EXIT["usage"] and "holds no unit of that id" in p.stderr and "those of shard 1/3" in p.stderr
    for args, said in [(["--units", "5-2"], "ends before it starts"), (["--units", "x"], "--units takes unit ids"),
                       (["--sample", "0"], "--sample"), (["--sample", "3", "--all"], "excludes"),
                       # a range past the plan's last id was cut short unsaid (a single id was refused)
                       (["--units", "3,43600-43700"], f"--units 43600-43700: the plan of {n14} has unit ids 0 to 43608 (43,609 units)"),
                       # --seed draws only --sample's units: with these it was ignored
                       (["--units", "3", "--seed", "4"], "excludes"), (["--all", "--seed", "4"], "excludes")]:
        p = run(["check", n14, *args])
        assert p.returncode == EXIT["usage"] and said in p.stderr, (args, p.stderr)
    other = workdir / "other.txt"
    other.write_text("not a result\n")
    p = run(["check", other])
    assert p.returncode == EXIT["bad_input"] and "not an nqueens result file" in p.stderr, p.stderr


def test_a_stop_signal_ends_a_long_check_at_once_reporting_what_it_checked(workdir):
    """SIGTERM (Slurm's warning) while units are recounted: the searches under way are cancelled, the units
    checked so far are reported, exit 75. The scalar search on one thread takes ~12 s here for this file's
    40,562 units: a progress line (every 2 s, with its ETA) comes first; the signal is sent while the
    process is stopped (SIGSTOP) right after that line, so the recount is certainly under way when it is
    handled. With --quiet no progress line comes."""
    out = workdir / "n17.h5"
    run(["run", "--n", 17, "--depth", 2, "--out", out], ranks=2, check=0, timeout=600)
    units = attrs(out)["units_done"]
    proc = subprocess.Popen([BIN, "check", str(out), "--all", "--threads", "1", "--kernel", "scalar"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().startswith("check ")
        assert proc.stdout.readline().startswith("units ")
        progress = proc.stderr.readline()
        assert re.fullmatch(rf"\[check\] +[\d.]+%  units \d+/{units}  solutions \d+  .* sol/s  elapsed [\d.]+ s  "
                            r"ETA ([\d.]+ s|\d+ min \d+ s)\n", progress), progress
        os.kill(proc.pid, signal.SIGSTOP)
        os.kill(proc.pid, signal.SIGTERM)
        signalled = time.monotonic()
        os.kill(proc.pid, signal.SIGCONT)
        rest, err = proc.communicate(timeout=60)
        took = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == EXIT["interrupted"], err
    m = re.search(r"^result +stopped by signal 15 after ([\d,]+) of ([\d,]+) units: all ([\d,]+) of ", rest, re.M)
    assert m and int(m.group(2).replace(",", "")) == units, rest
    assert int(m.group(1).replace(",", "")) < units and took < 20, (rest, took)
    quiet = subprocess.Popen([BIN, "check", str(out), "--all", "--threads", "1", "--kernel", "scalar", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert quiet.stdout.readline().startswith("check ") and quiet.stdout.readline().startswith("units ")
        time.sleep(3)
        os.kill(quiet.pid, signal.SIGTERM)
        rest, err = quiet.communicate(timeout=60)
    finally:
        kill_group(quiet)
    assert quiet.returncode == EXIT["interrupted"] and "stopped by signal 15" in rest, (rest, err)
    assert "[check" not in err, err
    # Under mpirun, SIGUSR1 to mpirun (which passes it to every rank): each rank stops, and rank 0
    # reports what all of them checked.
    proc = start(["check", out, "--all", "--threads", "1", "--kernel", "scalar"], ranks=3)
    try:
        assert proc.stdout.readline().startswith("check ")
        assert proc.stdout.readline().startswith("units ")   # printed once every rank catches the signals
        line = proc.stderr.readline()
        if "compute threads (--threads 1 on each of 3 computing ranks)" in line:   # on fewer than 3 CPUs
            line = proc.stderr.readline()
        assert line.startswith("[check, rank 0's share] "), line   # its progress stands for the job's
        signalled = time.monotonic()
        os.kill(proc.pid, signal.SIGUSR1)
        rest, err = proc.communicate(timeout=60)
        took = time.monotonic() - signalled
    finally:
        kill_group(proc)
    assert proc.returncode == EXIT["interrupted"], err
    m = re.search(r"^result +stopped by signal 10 after ([\d,]+) of ([\d,]+) units: all ([\d,]+) of ", rest, re.M)
    assert m and int(m.group(2).replace(",", "")) == units, rest
    assert int(m.group(1).replace(",", "")) < units and took < 20, (rest, took)


RANK_OF_LINE = re.compile(r"^unit +(\d+) +(?:agrees|DIFFERS) .*  \(rank (\d+), host [^)]+\)$", re.M)


def test_several_ranks_share_the_units_and_rank_0_names_each_once(n14, workdir):
    """Under mpirun the ranks deal the selection among themselves: each unit is recounted by one rank
    (its line names it), rank 0 prints every line once, in id order, and one result line."""
    units = attrs(n14)["units_done"]
    p = run(["check", n14, "--all"], ranks=3, check=0)
    assert re.search(r"^units +every unit of the file .* thread\(s\) of 3 ranks$", p.stdout, re.M), p.stdout
    assert len(re.findall(r"^(?:check|units|result) ", p.stdout, re.M)) == 3, p.stdout
    assert result_line(p.stdout).startswith(f"{units:,} of {units:,} units agree"), p.stdout
    p = run(["check", n14, "--units", "0-59"], ranks=3, check=0)
    named = [(int(u), int(r)) for u, r in RANK_OF_LINE.findall(p.stdout)]
    assert [u for u, _ in named] == list(range(60)), p.stdout
    assert {r for _, r in named} == {0, 1, 2}, p.stdout
    assert result_line(p.stdout).startswith("60 of 60 units agree"), p.stdout
    # A seed draws the same sample whatever the ranks.
    one = run(["check", n14, "--sample", 7, "--seed", 99], check=0)
    three = run(["check", n14, "--sample", 7, "--seed", 99], ranks=3, check=0)
    assert sorted(lines(one.stdout)) == [int(u) for u, _ in RANK_OF_LINE.findall(three.stdout)], (one.stdout, three.stdout)
    assert lines(one.stdout) == lines(three.stdout)


def test_several_ranks_name_a_tampered_unit_once_and_fail_alike(n14, workdir):
    bad = workdir / "bad.h5"

    def edit(u):
        u["solutions"][5] = u["solutions"][5] + 1
        u["placement"][300] = u["placement"][301]

    ids = tampered_copy(n14, bad, edit)
    p = run(["check", bad, "--all"], ranks=3)
    assert p.returncode == EXIT["verify"], p.stderr
    assert sorted(int(u) for u, _ in RANK_OF_LINE.findall(p.stdout)) == sorted([int(ids[5]), int(ids[300])]), p.stdout
    assert result_line(p.stdout).startswith(f"2 of {len(ids):,} units differ (above)"), p.stdout
    # Every unit wrong: each rank lists 1,000 and counts the rest, which rank 0 adds up.
    with h5py.File(bad, "r+") as f:
        f["units"]["solutions"][:] = f["units"]["solutions"][:] + 1
    assert len(ids) > 3000
    p = run(["check", bad, "--all"], ranks=3)
    assert p.returncode == EXIT["verify"], p.stderr
    assert len(RANK_OF_LINE.findall(p.stdout)) == 3000, p.stdout[-2000:]
    assert re.search(rf"^more +{len(ids) - 3000:,} units differ and are not listed \(each rank lists at most 1000\)",
                     p.stdout, re.M), p.stdout[-2000:]
    assert result_line(p.stdout).startswith(f"{len(ids):,} of {len(ids):,} units differ (above)"), p.stdout[-2000:]


def test_an_error_on_any_rank_ends_every_rank_promptly_with_one_message(n14, workdir):
    """A bad request fails on every rank alike: one message, rank 0's. A file that one rank cannot see
    (on a node-local disk, say) fails that rank alone: the others must not wait for it."""
    p = run(["check", n14, "--units", "999999999"], ranks=3, timeout=60)
    assert p.returncode == EXIT["usage"] and p.stderr.count("nqueens: error:") == 1, p.stderr
    assert "has unit ids 0 to 43608" in p.stderr and "rank " not in p.stderr, p.stderr
    local = workdir / "here"
    local.mkdir()
    shutil.copy(n14, local / "n14.h5")
    script = (f'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then cd /; fi; exec {BIN} check n14.h5 --all')
    began = time.monotonic()
    p = subprocess.run(["mpirun", "-n", "3", "sh", "-c", script], cwd=local, env=env(None, True), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == EXIT["bad_input"], (p.stdout, p.stderr)
    assert p.stderr.count("nqueens: error:") == 1 and "nqueens: error: rank 1 on host " in p.stderr, p.stderr
    assert "n14.h5" in p.stderr and not re.search(r"^units ", p.stdout, re.M), p.stdout
    assert time.monotonic() - began < 30


def test_a_complete_shard_without_units_has_nothing_to_check(workdir):
    """N = 4's plan has 2 units, so shard 2/3 is complete with none: it said "holds no unit yet",
    as of a run that had not finished one, and then exit 2, a usage error, for a file with
    nothing wrong (a batch check of a job's shards failed on it). Now exit 0, saying so; ids
    asked for with --units are still refused, none being there."""
    out = workdir / "empty-shard.h5"
    run(["run", "--n", 4, "--shard", "2/3", "--out", out], check=0)
    assert attrs(out)["status"] == "complete" and attrs(out)["units_done"] == 0
    for ranks in (None, 2):
        p = run(["check", out], ranks=ranks, check=0)
        assert p.stdout.splitlines()[-1] == "result   nothing to check: the file holds no unit", p.stdout
    p = run(["check", out, "--units", "1"])
    assert p.returncode == EXIT["usage"] and f"check: {out} holds no unit: --units has nothing to check" in p.stderr, p.stderr


def test_a_file_whose_header_crashes_libhdf5_is_a_damaged_file_for_every_reader(workdir):
    """A flipped byte in the size of the `format` attribute's datatype (found by flipping bytes
    150-1,455 of a result file three ways each): libhdf5 1.10 crashed inside H5Aexists under `check`
    (SIGSEGV, exit 139, Open MPI's backtrace) where `info` got an error, as the heap lay. Every
    reader now ends as for a damaged file: exit 3, one line naming it, crashed or not."""
    out = workdir / "c8.h5"
    run(["run", "--n", 8, "--out", out], check=0)
    data = out.read_bytes()
    at = data.find(b"format\x00") - 3   # the datatype size's high byte, in the attribute message
    assert at > 0
    for flip in (0x80, 0xFF):
        bad = workdir / f"flipped-{flip}.h5"
        bad.write_bytes(data[:at] + bytes([data[at] ^ flip]) + data[at + 1:])
        for args, ranks in ((["check", bad], None), (["check", bad], 2), (["info", bad], None),
                            (["merge", workdir / "m.h5", bad, bad], None)):
            p = run(args, ranks=ranks)
            assert p.returncode == EXIT["bad_input"], (args, ranks, p.returncode, p.stderr)
            assert f"{bad}" in p.stderr and "nqueens: error:" in p.stderr, p.stderr
            assert "Segmentation fault" not in p.stderr and "Process received signal" not in p.stderr, p.stderr
