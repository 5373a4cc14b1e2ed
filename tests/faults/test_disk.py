"""The output becomes unwritable in the middle of a run: the disk fills up (a small tmpfs), a
file-size limit is hit (prlimit on the running master: EFBIG, SIGXFSZ must not kill it), the
directory loses its write permission. Each time: exit 4 with a clear message, the finished work
kept in the journal, and after the cause is removed the rerun resumes and completes exactly."""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import h5py
import pytest

from faultlib import BOARDS_N, Journal, injected, journal_of, kill_group, readable_result, temp_files
from nqtest import (BIN, EXIT, assert_same_result, attrs, board_set, fault_env, pid_of_rank, resumed_units,
                    run, start, stop_after, when_stopped)

N = BOARDS_N - 1   # boards mode: the journal (completions) grows by ~0.5 MB in about a second
N_WRITE = 13       # small enough that its journal fits where its result file will not


def args(out, threads=None, n=N):
    a = ["run", "--n", n, "--mode", "boards", "--out", out, "--progress-interval", 30]
    return a + (["--threads", threads] if threads else [])


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """Uninterrupted runs by board size, made on first use."""
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = tmp_path_factory.mktemp("ref") / f"ref{n}.h5"
            run(args(cache[n], n=n), ranks=3, check=0)
        return cache[n]
    return get


@pytest.fixture
def reference(references):
    return references(N)


def assert_io_error_kept_journal(code, err, reason):
    assert code == EXIT["io"], f"exit {code}\n{err}"
    assert reason in err, err
    assert "are kept in" in err and "rerun the same command to resume" in err, err
    assert "internal error" not in err and "signal" not in err.lower(), err


def resume_and_compare(out, reference, journaled, ranks=3, user=None, n=N):
    p = run(args(out, n=n), ranks=ranks, check=0) if user is None else as_user(user, args(out, n=n))
    assert p.returncode == 0, p.stderr
    assert "warning: this run needs" not in p.stderr   # room enough now
    assert resumed_units(p.stderr) == journaled > 0, p.stderr
    assert_same_result(reference, out)
    assert board_set(out) == board_set(reference)
    assert not temp_files(out) and not journal_of(out).exists()


def mount_tmpfs(mnt, size):
    mnt.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({p.stderr.strip()}); the file-size limit test covers EFBIG")


@pytest.fixture
def mounts():
    mounted = []
    yield lambda mnt, size: (mount_tmpfs(mnt, size), mounted.append(mnt))
    for m in mounted:
        subprocess.run(["umount", "-l", str(m)], check=False)


def journal_bytes(ref):
    """The journal of a finished boards-mode (all) job, from its result file (src/store/journal.h):
    a record per unit holding its completions (the file holds them with their images)."""
    a = attrs(ref)
    key = 24 + sum(2 + len(a[k]) for k in ("mode", "boards_stored", "symmetry", "program_version"))
    with h5py.File(ref) as f:
        completions = int(f["units/solutions"][()].sum())
    return 16 + key + 4 + int(a["units_total"]) * (12 + 92) + completions * int(a["n"])


def pages(nbytes):
    return -(-nbytes // 4096) * 4096


@pytest.mark.parametrize("phase", ["journal", "result file"])
def test_disk_full_mid_run_is_an_io_error_and_the_rerun_resumes(workdir, rng, mounts, references, phase):
    fs = workdir / "fs"
    if phase == "journal":   # full while units are being journaled: 20-80 % of the journal fits
        n = N
        reference = references(n)
        size = pages(int(journal_bytes(reference) * rng.uniform(0.2, 0.8)))
    else:                    # the whole journal fits, 20-80 % of the result file does too
        n = N_WRITE
        reference = references(n)
        size = pages(journal_bytes(reference)) + pages(int(reference.stat().st_size * rng.uniform(0.2, 0.8)))
    mounts(fs, size)
    out, status = fs / "r.h5", workdir / "status"
    p = run(args(out, n=n) + ["--status-file", status], ranks=3)
    injected(f"disk full (ENOSPC) while writing the {phase}")
    assert_io_error_kept_journal(p.returncode, p.stderr, "No space left on device")
    if phase == "journal":   # told at the start, from the plan's estimate (app::disk_shortfall)
        assert re.search(rf"nqueens: warning: this run needs about [\d.]+ [kMG]B more in {re.escape(str(fs))} \(its "
                         r"journal, .* and it has [\d.]+ [kMG]B free: when the disk fills, the run stops \(exit 4\)", p.stderr), p.stderr
    assert not temp_files(out)                  # no half-written result file left on the full disk
    if out.exists():
        assert readable_result(out)["status"] == "partial"
    journaled = len(Journal(journal_of(out)).records)
    units = int(attrs(reference)["units_total"])
    assert 0 < journaled < units if phase == "journal" else journaled == units
    # The status file counts the units the run wrote to its journal, not those that the full disk
    # took no more of (it said 3,402 of N = 12's units where the journal held 1,968).
    code, written = map(int, status.read_text().split())
    assert code == EXIT["io"] and (written <= journaled if phase == "journal" else written == units), (written, journaled)
    subprocess.run(["mount", "-o", "remount,size=512m", str(fs)], check=True)   # free space
    resume_and_compare(out, reference, journaled, n=n)


def test_file_size_limit_mid_run_is_an_io_error_not_a_silent_death(workdir, rng, reference):
    out = workdir / "l.h5"
    proc = start(args(out), ranks=3, extra_env=fault_env(stop_after(1)))
    limit = []
    try:
        master = pid_of_rank(proc, 0)

        def set_limit():   # below the finished journal's size, so the limit is always hit
            final = journal_bytes(reference)
            limit.append(rng.randrange(min(journal_of(out).stat().st_size + 4096, final // 2), final * 9 // 10))
            subprocess.run(["prlimit", "--pid", str(master), f"--fsize={limit[0]}"], check=True)

        when_stopped(proc, master, set_limit)   # the first unit is journaled
        _, err = proc.communicate(timeout=300)
    except BaseException:
        kill_group(proc)
        raise
    injected("file size limit (EFBIG/SIGXFSZ)")
    assert_io_error_kept_journal(proc.returncode, err, "File too large")
    assert journal_of(out).stat().st_size <= limit[0]
    journaled = len(Journal(journal_of(out)).records)
    resume_and_compare(out, reference, journaled)


NOBODY = 65534


def user_command(uid, a):
    """nqueens with arguments `a` as user `uid`, and its environment."""
    cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", BIN] + [str(x) for x in a]
    return cmd, dict(os.environ, HOME="/tmp", ASAN_OPTIONS="detect_leaks=0")


def as_user(uid, a, timeout=300):
    cmd, env = user_command(uid, a)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture
def nobodys_dir():
    """A directory owned by `nobody` outside root's private pytest directory."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run as another user (root ignores permissions)")
    top = Path(tempfile.mkdtemp(prefix="nqueens-faults-"))
    top.chmod(0o755)
    d = top / "out"
    d.mkdir()
    os.chown(d, NOBODY, NOBODY)
    try:
        yield d
    finally:
        d.chmod(0o755)
        shutil.rmtree(top)


def test_output_directory_made_read_only_mid_run_is_an_io_error_and_the_rerun_resumes(nobodys_dir, reference):
    out = nobodys_dir / "p.h5"
    cmd, env = user_command(NOBODY, args(out))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env, **fault_env(stop_after(1))), start_new_session=True)
    try:
        # once the first unit is journaled: the open journal still takes appends; no new file can be made
        when_stopped(proc, proc.pid, lambda: nobodys_dir.chmod(0o555))
        _, err = proc.communicate(timeout=300)
    except BaseException:
        kill_group(proc)
        raise
    injected("output directory made read-only (EACCES)")
    assert_io_error_kept_journal(proc.returncode, err, "Permission denied")
    assert not out.exists() and not temp_files(out)
    journaled = len(Journal(journal_of(out)).records)
    nobodys_dir.chmod(0o755)
    resume_and_compare(out, reference, journaled, user=NOBODY)
