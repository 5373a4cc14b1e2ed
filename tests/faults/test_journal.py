"""The restart journal damaged on disk: a torn tail (a record cut short, a garbled last record,
garbage after the last record) is cut off and its unit recomputed, with exact final counts; a
record damaged in the middle (or a damaged header) stops the run, and its dry run, with exit 3, a
message naming the journal, and the journal and the previous result file left untouched."""
import shutil

import pytest

from faultlib import SANITIZED, Journal, injected, journal_of, readable_result, sha256, stopped_job
from nqtest import EXIT, KNOWN, assert_same_result, attrs, resumed_units, run

N = 16 if SANITIZED else 17


def args(out):
    return ["run", "--n", N, "--out", out, "--progress-interval", 30]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A stopped job (SIGTERM, exit 75): its partial result file and journal, and a reference run."""
    d = tmp_path_factory.mktemp("journal")
    ref = d / "ref.h5"
    run(args(ref), check=0)
    out = d / "p.h5"
    stopped_job(args(out), out)
    return ref, out


@pytest.fixture
def damaged(pristine, workdir):
    """A fresh copy of the stopped job in workdir: (reference, out, its Journal)."""
    ref, src = pristine
    out = workdir / "p.h5"
    shutil.copy(src, out)
    shutil.copy(journal_of(src), journal_of(out))
    return ref, out, Journal(journal_of(out))


def rerun_recovers(ref, out, dropped_bytes, resumed):
    digest = sha256(journal_of(out))
    run(args(out) + ["--dry-run"], check=0)   # a torn tail: the dry run lets it through, and cuts nothing
    assert sha256(journal_of(out)) == digest
    p = run(args(out), check=0)
    assert f"dropped a torn last record ({dropped_bytes} bytes); that unit is recomputed" in p.stderr, p.stderr
    assert resumed_units(p.stderr) == resumed
    assert_same_result(ref, out)
    assert attrs(out)["total"] == KNOWN[N]["total"] and attrs(out)["matches_known"] == "yes"
    assert not journal_of(out).exists()


def test_record_cut_mid_way_is_dropped_and_recomputed(damaged, rng):
    ref, out, j = damaged
    off, plen = j.records[-1]
    cut = off + rng.randrange(1, 12 + plen)     # anywhere inside the last record
    j.save(j.data[:cut])
    injected("journal: last record truncated")
    rerun_recovers(ref, out, cut - off, len(j.records) - 1)


def test_garbled_last_record_is_dropped_and_recomputed(damaged, rng):
    ref, out, j = damaged
    off, plen = j.records[-1]
    pos = off + rng.randrange(0, 12 + plen)     # magic, length, payload or CRC
    j.data[pos] ^= 1 << rng.randrange(8)
    j.save()
    injected("journal: last record garbled")
    rerun_recovers(ref, out, 12 + plen, len(j.records) - 1)


def test_garbage_after_the_last_record_is_dropped(damaged, rng):
    ref, out, j = damaged
    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    j.save(j.data + junk)
    injected("journal: garbage appended")
    rerun_recovers(ref, out, len(junk), len(j.records))


def assert_refused_untouched(out, j, needle):
    journal_digest, file_digest = sha256(journal_of(out)), sha256(out)
    before = readable_result(out)
    # The dry run refuses it as the run does (it let a record damaged in the middle through: exit 0,
    # "the run resumes", and `slurm/submit` queued a job that failed at its start).
    for dry in (["--dry-run"], []):
        p = run(args(out) + dry)
        assert p.returncode == EXIT["bad_input"], (dry, p.stderr)
        assert str(journal_of(out)) in p.stderr and needle in p.stderr, (dry, p.stderr)
        assert "internal error" not in p.stderr
    assert sha256(journal_of(out)) == journal_digest   # the journal is left as it was
    assert sha256(out) == file_digest                  # and no result (with a wrong count) was written
    assert readable_result(out) == before and before["status"] == "partial"


def test_corrupt_record_in_the_middle_stops_with_exit_3_and_touches_nothing(damaged, rng):
    _, out, j = damaged
    k = rng.randrange(0, len(j.records) - 1)    # any record but the last
    off, plen = j.records[k]
    j.data[off + rng.randrange(0, 12 + plen)] ^= 1 << rng.randrange(8)
    j.save()
    injected("journal: record in the middle corrupted")
    assert_refused_untouched(out, j, f"corrupt record at byte offset {off} followed by valid records")


def test_damaged_journal_header_stops_with_exit_3_and_touches_nothing(damaged, rng):
    _, out, j = damaged
    j.data[8 + rng.randrange(0, j.data_start - 8)] ^= 1 << rng.randrange(8)   # version, key or its CRC
    j.save()
    injected("journal: header corrupted")
    assert_refused_untouched(out, j, "journal")
