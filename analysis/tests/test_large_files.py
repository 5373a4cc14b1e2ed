"""Files of many units (N = 27 has 164 M).  verify, plot and export read /units in chunks: their
memory does not grow with the number of units.  Each command runs in its own process on two files of the real binary,
N = 17 at depth 1 (4,319 units) and at depth 4 (1,352,465 units), and the difference of their
peak RSS is measured.  Reading /units whole, it was 728, 585 and 432 MB (about 320-540 bytes a
unit); read in chunks, 75, 40 and 38 MB.  A long export ended by the scheduler's SIGTERM
leaves the earlier CSV, not a truncated one."""

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import NQANALYZE, _bin_env, _binary

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
