"""The end-of-job cross-checks (src/app/result_files.cpp finalize_totals, also used by merge):
the total is the sum of the units (64-bit, overflow checked; the writer re-checks the sum),
Burnside's identity (total + P + 2R) % 8 == 0 with P, R counted independently, and the published
table. A wrong count that slipped past the workers' checks (a lie with the audit off, or a
journal record rewritten with a valid CRC, or a tampered shard file) makes the run exit 6 and
the file say matches_known = no."""
import re
import shutil

import h5py
import pytest

from faultlib import SANITIZED, Journal, injected, journal_of, readable_result, stopped_job
from nqtest import EXIT, KNOWN, attrs, board_set, run, set_counts, units_table

N = 16 if SANITIZED else 17


def args(out, *extra):
    return ["run", "--n", N, "--out", out, "--progress-interval", 30] + list(extra)


def assert_verification_failed(p, out, total_delta, burnside):
    assert p.returncode == EXIT["verify"], p.stderr
    a = readable_result(out)
    assert a["status"] == "complete" and a["matches_known"] == "no"
    assert a["total"] == KNOWN[a["n"]]["total"] + total_delta
    assert a["total"] == sum(int(m) * int(s) for m, s in zip(units_table(out)["multiplicity"], units_table(out)["solutions"]))
    if burnside:
        assert "integrity check failed: Burnside check failed" in p.stderr, p.stderr
        assert a["unique"] == 0
    else:
        assert "verification failed: total" in p.stderr and "matches_known = no" in p.stderr, p.stderr
        assert a["unique"] == KNOWN[a["n"]]["unique"] + total_delta // 8


def test_a_lie_with_the_audit_off_fails_the_burnside_check(workdir, rng):
    uid = rng.randrange(1000)
    out = workdir / "w.h5"
    # Every worker process lies once about the unit: whichever computes it lies (no @RANK).
    p = run(["run", "--n", 14, "--out", out, "--audit", 0], ranks=3,
            extra_env={"NQUEENS_INJECT_FAULT": f"wrong:{uid}"})
    injected("wrong count with the audit off")
    assert "audit mismatch" not in p.stderr and "rejected" not in p.stderr   # nothing caught it on the way
    mult = int(units_table(out)["multiplicity"][uid])
    # A lie of +1 on a unit of multiplicity 8 (most units of the full-symmetry plan) moves the
    # total by 8, which keeps Burnside's identity: then only the published table can tell.
    assert_verification_failed(p, out, mult, burnside=mult % 8 != 0)


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    out = tmp_path_factory.mktemp("stopped") / "s.h5"
    stopped_job(args(out), out)
    return out


@pytest.fixture
def edited(stopped, workdir):
    out = workdir / "s.h5"
    shutil.copy(stopped, out)
    shutil.copy(journal_of(stopped), journal_of(out))
    return out, Journal(journal_of(out))


@pytest.mark.parametrize("burnside", [False, True], ids=["table only", "Burnside"])
def test_a_journal_record_rewritten_with_a_valid_crc_makes_the_final_run_exit_6(edited, rng, burnside):
    out, j = edited
    # +8/mult keeps Burnside's identity (only the table can tell); +1 breaks it unless the unit
    # stands for 8 boards (the full plan's usual multiplicity): those are left out then.
    rows = [i for i in range(len(j.records)) if not burnside or j.unit(i)[1] % 8]
    i = rows[rng.randrange(len(rows))]
    uid, mult, sols = j.unit(i)
    delta = 1 if burnside else 8 // mult
    j.set_solutions(i, sols + delta)
    j.save()
    injected("journal record rewritten with a valid CRC")
    p = run(args(out))
    assert_verification_failed(p, out, delta * mult, burnside)


def test_a_journal_whose_units_are_not_the_plans_is_refused_and_kept(edited, rng):
    """The resumed units' placements and multiplicities are the plan's: a journal written by
    another plan (an nqueens of the same version, another commit: the key names the version
    only) would pair its counts with other units. Simulated by two records' placements swapped
    with valid CRCs: the rerun exits 5 naming the journal, and touches nothing."""
    out, j = edited
    placement = lambda i: bytes(j.data[j.records[i][0] + 16:j.records[i][0] + 48])
    i, k = rng.sample(range(len(j.records)), 2)
    while placement(i) == placement(k):   # a unit recomputed after a crash is journaled twice
        i, k = rng.sample(range(len(j.records)), 2)
    j.swap_placements(i, k)
    j.save()
    before, file_before = journal_of(out).read_bytes(), out.read_bytes()
    injected("journal records' placements swapped, valid CRCs")
    p = run(args(out))
    assert p.returncode == EXIT["refused"], p.stderr
    assert re.search(rf"journal \S+: its units are not those of the plan that this nqueens \(\S+, commit \S+\) makes "
                     rf"for N = {N}, depth \d+, symmetry full: their placements or multiplicities differ", p.stderr), p.stderr
    assert journal_of(out).read_bytes() == before and out.read_bytes() == file_before


def test_a_journal_record_of_a_unit_not_in_the_plan_makes_the_boards_run_exit_6_and_keeps_the_journal(workdir, rng):
    """In `all` mode the journal holds each unit's completions and the master makes their images
    from the record's placement as it writes the file: a record rewritten (valid CRC) with a
    placement no unit of the plan has is named when the rerun reads the journal, before any
    work; the run exits 6, OUT and the journal stay."""
    out = workdir / "b.h5"
    a = ["run", "--n", 12, "--mode", "boards", "--out", out, "--progress-interval", 30]
    j = stopped_job(a, out, min_units=4)
    rows = [i for i in range(len(j.records)) if j.unit(i)[2] > 0]   # records holding completions
    i = rows[rng.randrange(len(rows))]
    uid = j.unit(i)[0]
    j.set_placement(i, 11, 5)   # row N-1 holds a border queen: a side column moved inside
    j.save()
    before = journal_of(out).read_bytes()
    injected("journal record moved off the plan, valid CRC")
    p = run(a)
    assert p.returncode == EXIT["verify"], p.stderr
    assert re.search(rf"integrity check failed: .*journal \S+: the record of unit {uid} does not fit the plan", p.stderr), p.stderr
    assert readable_result(out)["status"] == "partial"
    assert journal_of(out).read_bytes()[:len(before)] == before   # the journal is kept


def test_a_tampered_shard_makes_merge_exit_6(workdir, rng):
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(["run", "--n", 12, "--shard", f"{i}/2", "--out", s], check=0)
    victim = shards[rng.randrange(2)]
    with h5py.File(victim, "r+") as f:   # a consistent file with a wrong count: +8 solutions
        row = rng.randrange(len(f["units/id"]))
        mult = int(f["units/multiplicity"][row])
        sols = f["units/solutions"][()]
        sols[row] += 8 // mult
        f["units/solutions"][...] = sols
        set_counts(f, total=int(f.attrs["total"]) + 8)
    injected("shard file tampered")
    out = workdir / "m.h5"
    p = run(["merge", out] + [str(s) for s in shards])
    assert p.returncode == EXIT["verify"], p.stderr
    a = attrs(out)
    assert a["matches_known"] == "no" and a["total"] == KNOWN[12]["total"] + 8
    assert "matches published: no" in p.stdout


def _edit_boards(f, edit, rng):
    """One edit of a boards shard's stored boards, as h5py makes it (chunk checksums recomputed):
    what the merge must see, returns what its message names."""
    sols, units = f["boards/solutions"], f["boards/unit"][()]
    rows = len(units)
    if edit == "image replaced":   # all: a completion's image replaced by its completion
        i = rng.randrange(1, rows)
        while units[i] != units[i - 1]:
            i = rng.randrange(1, rows)
        row = sols[i - 1]
        while (sols[i] == row).all():   # (an image equal to its completion: the next row)
            i += 1
        sols[i] = row
        return "is not the image of its completion"
    if edit == "board changed":   # a queen moved: no longer a solution (or not the unit's)
        i = rng.randrange(rows)
        b = sols[i]
        b[0], b[1] = b[1], b[0]
        sols[i] = b
        return f"unit {units[i]}"
    if edit == "class size":   # class: a board's class said to be another size
        i = rng.randrange(rows)
        cs = f["boards/class_size"][()]
        cs[i] = 8 if cs[i] != 8 else 4
        f["boards/class_size"][...] = cs
        return f"unit {units[i]}"
    # moved to another unit: a unit's first board given the id of the unit before it
    starts = [i for i in range(1, rows) if units[i] != units[i - 1]]
    i = rng.choice(starts)
    units[i] = units[i - 1] if edit == "board moved" else 10**9
    f["boards/unit"][...] = units
    return f"unit {units[i]}"


@pytest.mark.parametrize("boards, edit", [("all", "image replaced"), ("all", "board changed"),
                                          ("all", "board moved"), ("class", "class size"),
                                          ("class", "board changed"), ("class", "unit unknown")])
def test_merge_checks_the_boards_of_boards_shards(workdir, rng, boards, edit):
    """merge copied a shard's boards unchecked: an edited shard (an image replaced, a queen
    moved, a class size changed, a board under another unit's id) merged as complete, exit 0;
    only nqanalyze verify saw it. Each shard's boards are now checked unit by unit as its run's
    master checked them: exit 3 naming the shard and the unit, OUT not written. Unedited, the
    merge is the one run's file."""
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(["run", "--n", 9, "--mode", "boards", "--boards", boards, "--shard", f"{i}/2", "--out", s], check=0)
    whole = workdir / "whole.h5"
    run(["run", "--n", 9, "--mode", "boards", "--boards", boards, "--out", whole], check=0)
    good = workdir / "good.h5"
    run(["merge", good] + [str(s) for s in shards], check=0)
    assert board_set(good) == board_set(whole) and attrs(good)["matches_known"] == "yes"
    victim = rng.randrange(2)
    with h5py.File(shards[victim], "r+") as f:
        said = _edit_boards(f, edit, rng)
    injected(f"boards shard edited: {edit}")
    out = workdir / "m.h5"
    p = run(["merge", out] + [str(s) for s in shards])
    assert p.returncode == EXIT["bad_input"], p.stderr
    assert f"merge: {shards[victim]}: " in p.stderr and said in p.stderr, p.stderr
    assert "its boards are not those its run stored; run that shard again" in p.stderr, p.stderr
    assert not out.exists()


@pytest.mark.parametrize("edit", ["placements swapped", "multiplicity"])
def test_merge_refuses_shards_whose_units_are_not_its_plans(workdir, rng, edit):
    """The merged file's placements and multiplicities are the plan's, made again by the merging
    nqueens; a shard run by a plan that differs (another version) would have its counts written
    beside other units. Simulated by editing a shard's stored units (the counts untouched): the
    merge is refused with exit 5, naming both programs, and OUT is not written."""
    shards = [workdir / f"s{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        run(["run", "--n", 12, "--shard", f"{i}/2", "--out", s], check=0)
    with h5py.File(shards[rng.randrange(2)], "r+") as f:
        rows = rng.sample(range(len(f["units/id"])), 2)
        if edit == "multiplicity":
            m = f["units/multiplicity"][()]
            m[rows[0]] = 4 if m[rows[0]] == 8 else 8
            f["units/multiplicity"][...] = m
        else:   # each still a unit of the plan, under the other's id
            p = f["units/placement"][()]
            p[rows] = p[rows[::-1]]
            f["units/placement"][...] = p
    injected(f"shard's units edited: {edit}")
    out = workdir / "m.h5"
    p = run(["merge", out] + [str(s) for s in shards])
    assert p.returncode == EXIT["refused"], p.stderr
    assert re.search(r"merge: the shards' units are not those of the plan that this nqueens \(\S+, commit \S+\) makes for "
                     r"N = 12, depth \d+, symmetry full: their placements or multiplicities differ; merge them with the "
                     r"nqueens that ran them \(\S+, commit \S+\)", p.stderr), p.stderr
    assert not out.exists()
