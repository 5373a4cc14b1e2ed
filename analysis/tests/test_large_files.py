"""Files of many units (N = 27 has 164 M).  verify, plot and export read /units in chunks: their
memory does not grow with the number of units.  Each command runs in its own process on two files of the real binary,
N = 17 at depth 1 (4,319 units) and at depth 4 (1,352,465 units), and the difference of their
peak RSS is measured.  Reading /units whole, it was 728, 585 and 432 MB (about 320-540 bytes a
unit); read in chunks, 75, 40 and 38 MB.  A long export ended by the scheduler's SIGTERM
leaves the earlier CSV, not a truncated one.  A long pass says how far it is on stderr."""

import io
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import NQANALYZE, _bin_env, _binary, nq

GROWTH_LIMIT_MB = 150   # for 1.35 M more units: ~110 bytes a unit, a third of the least of before


@pytest.fixture(scope="module")
def n17_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("many_units")
    out = {}
    for depth in (1, 4):
        path = str(d / f"c17d{depth}.h5")
        cmd = [_binary(), "run", "--n", "17", "--depth", str(depth), "--threads", "2",
               "--out", path]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=300, env=_bin_env())
        if proc.returncode != 0:
            pytest.fail(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stdout[-2000:]}")
        out[depth] = path
    return out


def _peak_rss_mb(args):
    """Peak RSS of `nqanalyze ARGS` in a fresh process (a child of a fresh interpreter, so the
    figure is that command's alone)."""
    probe = ("import resource, subprocess, sys\n"
             "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
             "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    proc = subprocess.run([sys.executable, "-c", probe, sys.executable, NQANALYZE] + args,
                          stdout=subprocess.PIPE, text=True, timeout=600, check=True)
    rc, kb = proc.stdout.split()
    assert rc == "0", f"nqanalyze {' '.join(args)}: exit {rc}"
    return int(kb) / 1024


@pytest.mark.parametrize("command", ["verify", "plot", "export"])
def test_memory_does_not_grow_with_the_units(n17_files, tmp_path, command):
    def args(depth):
        f = n17_files[depth]
        return {"verify": [f], "plot": [f, "--out", str(tmp_path / f"p{depth}")],
                "export": [f, "--csv", str(tmp_path / f"e{depth}")]}[command]
    few, many = (_peak_rss_mb([command] + args(depth)) for depth in (1, 4))
    if command == "export":
        assert os.path.getsize(tmp_path / "e4" / "units.csv") > 1352465 * 50
    assert many - few < GROWTH_LIMIT_MB, \
        f"nqanalyze {command}: {few:.0f} MB for 4,319 units, {many:.0f} MB for 1,352,465"


def test_sigterm_ends_an_export_with_the_earlier_csv_kept(n17_files, tmp_path):
    csv = tmp_path / "csv"
    csv.mkdir()
    earlier = csv / "units.csv"
    earlier.write_text("id\n0\n")
    part = csv / "units.csv.part"
    proc = subprocess.Popen([sys.executable, NQANALYZE, "export", n17_files[4], "--csv", str(csv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not part.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGSTOP)   # held while writing: the SIGTERM lands mid-export
        assert part.exists(), "the export did not start writing units.csv.part"
        proc.send_signal(signal.SIGTERM)
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, (proc.returncode, out, err)
    assert "nqanalyze export: terminated (SIGTERM)" in err
    assert earlier.read_text() == "id\n0\n" and not part.exists()
    assert sorted(os.listdir(csv)) == ["units.csv"]


def test_progress_lines_come_after_FIRST_seconds_then_every_EVERY():
    from nqanalysis.progress import EVERY, FIRST, Progress
    now = [0.0]
    err = io.StringIO()
    p = Progress(err, "nqanalyze verify: f.h5", clock=lambda: now[0])
    for done in range(0, 1001, 10):   # one chunk of 10 rows a second
        p.rows("/units", done, 1000)
        now[0] += 1.0
    lines = err.getvalue().splitlines()
    want = int((100 - FIRST) // EVERY) + 1
    assert len(lines) == want, lines
    assert lines[0] == f"nqanalyze verify: f.h5: /units {int(FIRST) * 10:,} of 1,000 rows " \
                       f"({int(FIRST)} %), {int(FIRST)} s"
    # a second pass (done back to the start) waits FIRST seconds again; a short one says nothing
    for done in (10, 20, 30):
        p.rows("/units", done, 1000)
        now[0] += 1.0
    assert err.getvalue().splitlines() == lines


def test_a_long_verify_says_how_far_it_is_on_stderr_only(runs, monkeypatch):
    import nqanalysis.progress as progress
    quiet = nq("verify", runs["count10"], "--chunk", "50")
    assert quiet.rc == 0 and quiet.err == ""
    monkeypatch.setattr(progress, "FIRST", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    r = nq("verify", runs["count10"], "--chunk", "50")
    assert r.rc == 0 and r.out == quiet.out, r
    rows = [ln for ln in r.err.splitlines() if ": /units " in ln]
    assert rows and all(ln.startswith(f"nqanalyze verify: {runs['count10']}: /units ")
                        for ln in rows), r.err
    assert rows[0].split(": /units ")[1].startswith("100 of "), rows[0]
