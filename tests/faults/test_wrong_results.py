"""Workers that return wrong results (NQUEENS_INJECT_FAULT, src/cluster/fault_injection.h):
a garbled count (bad checksum), a duplicated result or a repeated board is rejected by the
master's batch checks and recomputed; a lying worker (wrong count, valid checksum) is caught by the audit (a
deterministic 1/64 of the units, or --audit FRACTION, computed again by a different worker and
compared) and the unit recomputed; a persistently lying worker fails the job with exit 6.
Each time the final total is exact and the file says so."""
import re

import h5py
import numpy as np
import pytest

from faultlib import SANITIZED, in_audit_sample, injected, journal_of, readable_result
from nqtest import EXIT, KNOWN, assert_same_result, attrs, board_set, resumed_units, run, units_table

N = 15 if SANITIZED else 16


def args(out, *extra):
    return ["run", "--n", N, "--out", out, "--progress-interval", 30] + list(extra)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "ref.h5"
    run(args(out, "--audit", 0), ranks=3, check=0)
    return out


def pick_unit(rng, reference, audited):
    total = int(attrs(reference)["units_total"])
    while True:
        uid = rng.randrange(total)
        if in_audit_sample(uid) == audited:
            return uid


def assert_exact(out, reference):
    a = readable_result(out)
    assert a["status"] == "complete" and a["matches_known"] == "yes"
    assert a["total"] == KNOWN[N]["total"] and a["unique"] == KNOWN[N]["unique"]
    assert_same_result(reference, out)   # every unit's count, including the faulty unit's
    assert not journal_of(out).exists()


def audit_line(stdout):
    m = re.search(r"^audit +(\d+) unit\(s\) computed twice.*$", stdout, re.M)
    assert m, stdout
    mismatches = re.search(r", (\d+) mismatch", m.group(0))
    return int(m.group(1)), int(mismatches.group(1)) if mismatches else 0


@pytest.mark.parametrize("kind,why", [("garble", "fails its checksum"), ("duplicate", "returned twice")])
def test_garbled_or_duplicated_results_are_rejected_and_recomputed(workdir, rng, reference, kind, why):
    uid = pick_unit(rng, reference, audited=False)
    out = workdir / "g.h5"
    p = run(args(out), ranks=3, extra_env={"NQUEENS_INJECT_FAULT": f"{kind}:{uid}"}, check=0)
    rejected = re.findall(r"rejected a result batch from rank \d \(recomputing it\): batch \d+: unit (\d+) " + why,
                          p.stderr)
    injected(f"worker result: {kind}", len(rejected))
    assert rejected and set(rejected) == {str(uid)}, p.stderr   # each worker process misbehaves once
    assert f"note     {len(rejected)} result batch(es) failed the checks and were recomputed" in p.stdout
    assert_exact(out, reference)


def test_a_lying_worker_is_caught_by_the_default_audit(workdir, rng, reference):
    uid = pick_unit(rng, reference, audited=True)   # in the default 1/64 sample
    out = workdir / "w.h5"
    p = run(args(out), ranks=3, extra_env={"NQUEENS_INJECT_FAULT": f"wrong:{uid}@1"}, check=0)
    injected("worker result: wrong count, valid checksum (audited)")
    assert re.search(rf"audit mismatch: unit {uid}: rank \d says \d+ solutions, rank \d says \d+; "
                     r"both results discarded", p.stderr), p.stderr
    sample = sum(in_audit_sample(i) for i in range(int(attrs(reference)["units_total"])))
    assert audit_line(p.stdout) == (sample, 1)   # exactly the documented sample was audited
    assert_exact(out, reference)


@pytest.mark.parametrize("ranks,fault", [(3, "wrong:{}@2"), (2, "wrong:{}@1"), (None, "wrong:{}")],
                         ids=["two workers", "one worker + the master's audit thread", "one process"])
def test_audit_all_catches_a_lie_on_any_unit(workdir, rng, reference, ranks, fault):
    uid = pick_unit(rng, reference, audited=False)   # only --audit 1 covers it
    out = workdir / "a.h5"
    p = run(args(out, "--audit", 1), ranks=ranks, extra_env={"NQUEENS_INJECT_FAULT": fault.format(uid)}, check=0)
    injected("worker result: wrong count, valid checksum (--audit 1)")
    assert f"audit mismatch: unit {uid}:" in p.stderr, p.stderr
    assert audit_line(p.stdout) == (attrs(reference)["units_total"], 1)
    assert_exact(out, reference)


def test_a_persistent_liar_fails_the_job_with_exit_6_and_the_rerun_completes(workdir, rng, reference):
    uid = pick_unit(rng, reference, audited=True)
    out = workdir / "p.h5"
    p = run(args(out), ranks=3, extra_env={"NQUEENS_INJECT_FAULT": f"wrong-always:{uid}@1"})
    injected("worker result: wrong count on every try")
    assert p.returncode == EXIT["verify"], p.stderr
    assert f"nqueens: error: audit: unit {uid}:" in p.stderr and "disagreed in 3 rounds" in p.stderr, p.stderr
    assert p.stderr.count(f"audit mismatch: unit {uid}:") == 2
    a = readable_result(out)
    assert a["status"] == "partial" and a["matches_known"] == "unknown"
    assert uid not in set(units_table(out)["id"].tolist())   # the disputed unit was never counted
    assert journal_of(out).exists()
    p = run(args(out), ranks=3, check=0)   # the faulty node is gone: resume
    assert resumed_units(p.stderr) == a["units_done"]
    assert_exact(out, reference)


@pytest.mark.parametrize("boards", ["all", "class"])
def test_a_repeated_board_is_rejected_and_recomputed(workdir, rng, boards):
    """A worker sends its unit's first board again in place of the last (all: a completion, which
    the master would store with its images): every board valid, the count and the checksum
    consistent. The master's board check (core::check_unit_boards) sees the repeat, the unit is
    recomputed, and the file holds each board once: the reference set."""
    n = 12
    run_args = ["run", "--n", n, "--mode", "boards", "--boards", boards, "--progress-interval", 30]
    ref = workdir / "ref.h5"
    run(run_args + ["--out", ref], ranks=3, check=0)
    with h5py.File(ref) as f:   # a unit sending >= 2 boards: completions (all) or class boards
        if boards == "all":
            ids = f["units/id"][()][f["units/solutions"][()] >= 2]
        else:
            ids, boards_per_unit = np.unique(f["boards/unit"][()], return_counts=True)
            ids = ids[boards_per_unit >= 2]
    uid = rng.choice(sorted(int(i) for i in ids))
    out = workdir / "r.h5"
    p = run(run_args + ["--out", out], ranks=3, extra_env={"NQUEENS_INJECT_FAULT": f"repeat-board:{uid}"}, check=0)
    rejected = re.findall(r"rejected a result batch from rank \d \(recomputing it\): batch \d+: unit (\d+): board \d+ "
                          r"\[[\d, ]+\] (does not follow the unit's previous completion in lexicographic order|does not follow "
                          r"the unit's previous board in the order of their symmetries and completions) \(a repeat\?\)", p.stderr)
    injected(f"worker result: a repeated board ({boards})", len(rejected))
    assert rejected and {r[0] for r in rejected} == {str(uid)}, p.stderr
    assert f"note     {len(rejected)} result batch(es) failed the checks and were recomputed" in p.stdout
    a = readable_result(out)
    assert a["status"] == "complete" and a["matches_known"] == "yes"
    with h5py.File(out) as f:
        assert f["boards/solutions"].shape[0] == (KNOWN[n]["total"] if boards == "all" else KNOWN[n]["unique"])
    assert board_set(out) == board_set(ref)
